/* resize_app.c -- malleability test program: registers a distributed double
 * vector, a distributed int matrix (64-bit registration), a distributed
 * array of a derived struct type, a replicated array and a scalar; changes
 * the variable data every iteration and checks every element, byte for
 * byte, after every control point (so after every resize), on every rank.
 *
 * usage: resize_app ITERATIONS [SLEEP_MS]
 * env:   RESIZE_APP_REQUEST="ITER:DELTA" -- rank 0 calls ductile_request_resize
 *        at that iteration twice in a row; the second call must be refused.
 *        RESIZE_APP_CONST=ROWS -- also register a distributed constant array
 *        (EMPI_CONSTANT, ROWS rows of C_W doubles), filled once; with
 *        DUCTILE_REDIST_CONSTANT=nb it moves in the background: while the
 *        transfer is pending an old process must still see its old block
 *        untouched, and after it every process its new block.
 *        RESIZE_APP_NO_ITERATION=1 -- do not call EMPI_Get_iteration after
 *        control points (then removed processes cannot stand by).
 *        RESIZE_APP_NO_GET_SHARED=1 -- spawned processes do not call
 *        EMPI_Get_shared: their data arrives at their first control point.
 *        RESIZE_APP_SPAWNED_VARIABLE=1 -- spawned processes register the
 *        constant array as EMPI_VARIABLE (a mismatch the resize must refuse).
 *        RESIZE_APP_LINGER_MS=MS -- every process mpiexec started but rank 0
 *        goes on MS ms after MPI_Finalize (tests/malleable/linger.sh). */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ductile.h>
#include <empi.h>

#define N_DBL 1000
#define N_INT 37
#define W_INT 3
#define N_ST 101
#define N_REP 50

struct rec {
    int a;
    double b;
    char c[4];
};

#define C_W 16

static int rank, size, failures;
static void fail(const char *what, long g, int it);

/* Exported by libductile (src/malleable/resize.h); not yet in a public header. */
int ductile_constant_pending(void);

static double const_val(long g, int k) { return (double)g * 17.0 + (double)k * 0.125 + 0.5; }

/* the constant array holds the block of (crank, csize); csize 0: nothing valid yet */
static long c_rows;
static int crank, csize;

static void check_const(int it)
{
    if (!c_rows || !csize) return;
    long d, c;
    EMPI_Get_wsize64(crank, csize, c_rows, &d, &c);
    double *a = EMPI_Get_addr("const");
    for (long i = 0; i < c; i++)
        for (int k = 0; k < C_W; k++) {
            double v = const_val(d + i, k);
            if (memcmp(&a[i * C_W + k], &v, sizeof v) != 0) { fail("const", d + i, it); return; }
        }
}

static double dbl_val(long g, int it) { return 1.5 * (double)g + 0.25 + (double)it; }
static int int_val(long g, int col, int it) { return (int)(g * 7 + col + 1000 * it); }
static void st_val(long g, int it, struct rec *r)
{
    memset(r, 0, sizeof *r);
    r->a = (int)(g * 3 - it);
    r->b = (double)g / 3.0 + it;
    r->c[0] = (char)('a' + g % 26);
    r->c[1] = (char)('A' + it % 26);
    r->c[2] = (char)(g % 100);
}

static void fail(const char *what, long g, int it)
{
    if (failures++ < 5) fprintf(stderr, "CHECK FAIL rank %d/%d it %d: %s at %ld\n", rank, size, it, what, g);
}

static void fill(int it, int with_rep)
{
    long d, c;
    EMPI_Get_wsize64(rank, size, N_DBL, &d, &c);
    double *x = EMPI_Get_addr("dbl");
    for (long i = 0; i < c; i++) x[i] = dbl_val(d + i, it);
    EMPI_Get_wsize64(rank, size, N_INT, &d, &c);
    int *m = EMPI_Get_addr("int");
    for (long i = 0; i < c; i++)
        for (int k = 0; k < W_INT; k++) m[i * W_INT + k] = int_val(d + i, k, it);
    EMPI_Get_wsize64(rank, size, N_ST, &d, &c);
    struct rec *s = EMPI_Get_addr("st");
    for (long i = 0; i < c; i++) st_val(d + i, it, &s[i]);
    long long *sc = EMPI_Get_addr("scal");
    *sc = 3LL * it + 1;
    if (with_rep) {
        double *r = EMPI_Get_addr("rep");
        for (int i = 0; i < N_REP; i++) r[i] = (double)i * i + 0.5;
    }
}

static void check(int it)
{
    long d, c;
    EMPI_Get_wsize64(rank, size, N_DBL, &d, &c);
    double *x = EMPI_Get_addr("dbl");
    for (long i = 0; i < c; i++) {
        double v = dbl_val(d + i, it);
        if (memcmp(&x[i], &v, sizeof v) != 0) fail("dbl", d + i, it);
    }
    EMPI_Get_wsize64(rank, size, N_INT, &d, &c);
    int *m = EMPI_Get_addr("int");
    for (long i = 0; i < c; i++)
        for (int k = 0; k < W_INT; k++)
            if (m[i * W_INT + k] != int_val(d + i, k, it)) fail("int", d + i, it);
    EMPI_Get_wsize64(rank, size, N_ST, &d, &c);
    struct rec *s = EMPI_Get_addr("st");
    for (long i = 0; i < c; i++) {
        struct rec v;
        st_val(d + i, it, &v);
        if (s[i].a != v.a || memcmp(&s[i].b, &v.b, sizeof v.b) != 0 || memcmp(s[i].c, v.c, 3) != 0)
            fail("struct", d + i, it);
    }
    long long *sc = EMPI_Get_addr("scal");
    if (*sc != 3LL * it + 1) fail("scalar", 0, it);
    double *r = EMPI_Get_addr("rep");
    for (int i = 0; i < N_REP; i++)
        if (r[i] != (double)i * i + 0.5) fail("replicated", i, it);
    long total = 0, mine = 0;
    EMPI_Get_wsize64(rank, size, N_DBL, &d, &mine);
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, EMPI_COMM_WORLD);
    if (total != N_DBL) fail("blocks do not tile the vector", total, it);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 10;
    int sleep_ms = argc > 2 ? atoi(argv[2]) : 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);

    /* the derived type: a struct resized to its C extent */
    MPI_Datatype st_type, tmp;
    int bl[3] = {1, 1, 3};
    MPI_Aint disp[3] = {offsetof(struct rec, a), offsetof(struct rec, b), offsetof(struct rec, c)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, bl, disp, types, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(struct rec), &st_type);
    MPI_Type_commit(&st_type);

    long d, c;
    EMPI_Get_wsize64(rank, size, N_DBL, &d, &c);
    double *x = EMPI_malloc((size_t)(c ? c : 1) * sizeof(double));
    EMPI_Register_vector("dbl", x, MPI_DOUBLE, N_DBL, EMPI_DISJOINT);
    EMPI_Get_wsize64(rank, size, N_INT, &d, &c);
    int *m = malloc((size_t)(c ? c : 1) * W_INT * sizeof(int));
    if (EMPI_Register_array("int", m, MPI_INT, N_INT, W_INT, EMPI_DISJOINT, EMPI_VARIABLE) != 0) return 1;
    EMPI_Get_wsize64(rank, size, N_ST, &d, &c);
    struct rec *s = calloc((size_t)(c ? c : 1), sizeof *s);
    if (EMPI_Register_array("st", s, st_type, N_ST, 1, EMPI_DISJOINT, EMPI_VARIABLE) != 0) return 1;
    double *rep = calloc(N_REP, sizeof *rep);
    EMPI_Register_vector("rep", rep, MPI_DOUBLE, N_REP, EMPI_SHARED);
    long long scal = 0;
    if (EMPI_Register_scalar("scal", &scal, MPI_LONG_LONG, 1) != 0) return 1;
    const char *cr = getenv("RESIZE_APP_CONST");
    c_rows = cr ? atol(cr) : 0;
    double *ca = NULL; /* malloc'ed by the app: stays the app's to free, even after a resize */
    int type, it = 0, status = EMPI_ACTIVE;
    EMPI_Get_type(&type);
    if (c_rows > 0) {
        EMPI_Get_wsize64(rank, size, c_rows, &d, &c);
        ca = malloc((size_t)(c ? c : 1) * C_W * sizeof(double));
        int cflag = type == EMPI_SPAWNED && getenv("RESIZE_APP_SPAWNED_VARIABLE") ? EMPI_VARIABLE : EMPI_CONSTANT;
        if (EMPI_Register_array("const", ca, MPI_DOUBLE, c_rows, C_W, EMPI_DISJOINT, cflag) != 0) return 1;
    }

    if (type == EMPI_SPAWNED && getenv("RESIZE_APP_NO_GET_SHARED")) {
        crank = rank, csize = size; /* the data arrives at the first control point (EMPI_Monitor_end) */
    } else if (type == EMPI_SPAWNED) {
        EMPI_Get_shared(&it);
        check(it - 1); /* the data of the iteration at which we were spawned */
        if (!ductile_constant_pending()) crank = rank, csize = size;
    } else {
        fill(-1, 1);
        if (c_rows > 0) {
            EMPI_Get_wsize64(rank, size, c_rows, &d, &c);
            double *ca = EMPI_Get_addr("const");
            for (long i = 0; i < c; i++)
                for (int k = 0; k < C_W; k++) ca[i * C_W + k] = const_val(d + i, k);
        }
        crank = rank, csize = size;
    }
    check_const(it - 1);
    int overlapped = 0, was_pending = 0;
    int req_it = -1, req_delta = 0;
    const char *req = getenv("RESIZE_APP_REQUEST");
    int no_iteration = getenv("RESIZE_APP_NO_ITERATION") != NULL; /* do not call EMPI_Get_iteration */
    if (req) sscanf(req, "%d:%d", &req_it, &req_delta);

    for (; it < iters; it++) {
        EMPI_Monitor_init();
        fill(it, 0);
        if (sleep_ms) {
            struct timespec ts = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (rank == 0 && it == req_it) {
            char err[256] = "";
            int r1 = ductile_request_resize(req_delta, 0, -1, NULL, err, sizeof err);
            if (r1 != 0) fprintf(stderr, "REQUEST FAIL: first request refused: %s\n", err), failures++;
            int r2 = ductile_request_resize(req_delta, 0, -1, NULL, err, sizeof err);
            if (r2 == 0) fprintf(stderr, "REQUEST FAIL: second request accepted\n"), failures++;
            else printf("second request refused: %s\n", err);
        }
        int rank0 = rank, size0 = size;
        EMPI_Monitor_end(&rank, &size, it, iters, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        if (!no_iteration) {
            int it0 = it;
            EMPI_Get_iteration(&it); /* a standby process comes back iterations later (DUCTILE_PERSISTENT) */
            if (it != it0) printf("RESUMED rank %d of %d at iteration %d (stood by since %d)\n", rank, size, it, it0);
        }
        check(it);
        int pending = c_rows > 0 && ductile_constant_pending();
        if (pending && size != size0) {
            /* a resize here started a new transfer (an earlier one was completed first):
             * the buffer holds my block of the world before this control point */
            crank = rank0, csize = size0;
            overlapped = 0;
        }
        if (pending) overlapped++;
        else crank = rank, csize = size;
        if (was_pending && !pending && rank == 0)
            printf("NB constant transfer complete at iteration %d after %d overlapped iterations\n", it, overlapped);
        if (!pending) overlapped = 0;
        was_pending = pending;
        check_const(it);
    }
    int fl = failures;
    if (status != EMPI_REMOVED) {
        MPI_Allreduce(&failures, &fl, 1, MPI_INT, MPI_SUM, EMPI_COMM_WORLD);
        if (rank == 0) printf("FINAL size=%d iterations=%d failures=%d type=%s\n", size, it, fl,
                              type == EMPI_SPAWNED ? "spawned" : "native");
    }
    MPI_Type_free(&st_type);
    MPI_Type_free(&tmp);
    struct timespec w0, w1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    MPI_Finalize();
    clock_gettime(CLOCK_MONOTONIC, &w1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    const char *linger = getenv("RESIZE_APP_LINGER_MS");
    if (linger && rank != 0 && type != EMPI_SPAWNED) {
        long ms = atol(linger);
        struct timespec lt = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&lt, NULL);
    }
    /* Buffers the app allocated itself stay its own (Ductile frees only what
     * it or EMPI_malloc allocated): free the originals. */
    free(m);
    free(s);
    free(rep);
    free(ca);
    if (status == EMPI_REMOVED) {
        double w = (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec);
        double c = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
        printf("REMOVED waited %.3f s cpu %.3f s\n", w, c);
    }
    return failures ? 1 : 0;
}
