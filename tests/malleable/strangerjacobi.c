/* strangerjacobi.c -- a FlexMPI-style Jacobi written by a tester who read only
 * README.md, docs/ and include/ (tests/malleable/stranger.sh runs it).
 * FlexMPI-style Jacobi.  A (dim x dim) and b are constant distributed data,
 * xloc (my rows of the new iterate) is variable distributed, x (whole
 * iterate) is variable replicated.  Spawned processes allocate and register
 * their own buffers and compute on them right after EMPI_Get_shared.
 * Usage: fjacobi DIM ITMAX [malloc|empi] [single|multiple]
 * At the end rank 0 recomputes the whole thing serially and compares bitwise. */
#include <mpi.h>
#include <empi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <ductile.h>
#include <pthread.h>
#include <time.h>

static double aval(int i, int j, int dim) { return i == j ? 2.0 * dim : 1.0 / (1.0 + abs(i - j)) + 0.001 * ((i * 7 + j * 13) % 11); }
static double bval(int i) { return (double)(i % 7) + 1.0; }

static void *xalloc(size_t n, int empi) { if (n == 0) { if (getenv("FJ_NULL0")) return NULL; n = 1; } return empi ? EMPI_malloc(n) : malloc(n); }

/* FJ_THREADREQ=1: a thread of rank 0 asks for resizes (ductile_request_resize makes no MPI call) */
static void *reqthread(void *a)
{
    (void)a; char err[256];
    int seq[3][2] = { { 2, 0 }, { -1, 0 }, { 1, 1 } };
    for (int k = 0; k < 3; k++) {
        for (int tries = 0; tries < 400; tries++) {
            struct timespec ts = { 0, 20000000 }; nanosleep(&ts, NULL);
            err[0] = 0;
            if (ductile_request_resize(seq[k][0], seq[k][1], -1, NULL, err, sizeof err) == 0) { printf("THREAD request %d ok\n", k); break; }
            if (tries == 0) printf("THREAD request %d refused for now: %s\n", k, err);
        }
    }
    return NULL;
}
int main(int argc, char **argv)
{
    int dim = argc > 1 ? atoi(argv[1]) : 64, itmax = argc > 2 ? atoi(argv[2]) : 30;
    int empi = argc > 3 && !strcmp(argv[3], "empi");
    int multiple = argc > 4 && !strcmp(argv[4], "multiple");
    int prov, rank, size, type, status, desp, count, it = 0;
    if (multiple) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov); else MPI_Init(&argc, &argv);
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank); MPI_Comm_size(EMPI_COMM_WORLD, &size);
    EMPI_Get_type(&type);
    EMPI_Get_wsize(rank, size, dim, &desp, &count, NULL, NULL);
    /* FJ_SHORT_BUFFER=1: a spawned process allocates one row too few for A
     * (EMPI_malloc: Ductile knows; malloc: declared with EMPI_Set_buffer_rows) */
    int shortbuf = getenv("FJ_SHORT_BUFFER") && type == EMPI_SPAWNED && count > 0;
    double *A = xalloc((size_t)(count - shortbuf) * dim * sizeof(double), empi);
    double *b = xalloc((size_t)count * sizeof(double), empi);
    double *xloc = xalloc((size_t)count * sizeof(double), empi);
    /* FJ_SHORT_X=1: a spawned process allocates the replicated x one element short */
    double *x = xalloc((size_t)(dim - (getenv("FJ_SHORT_X") && type == EMPI_SPAWNED)) * sizeof(double), empi);
    /* FJ_SWAP=1: spawned processes register b before A (a mismatch) */
    if (getenv("FJ_SWAP") && type == EMPI_SPAWNED && EMPI_Register_array("b", b, MPI_DOUBLE, dim, 1, EMPI_DISJOINT, EMPI_CONSTANT)) printf("register b failed\n");
    if (EMPI_Register_array("A", A, MPI_DOUBLE, dim, dim, EMPI_DISJOINT, EMPI_CONSTANT)) printf("register A failed\n");
    if (shortbuf && !empi && EMPI_Set_buffer_rows("A", count - 1)) printf("EMPI_Set_buffer_rows failed\n");
    if (!(getenv("FJ_SWAP") && type == EMPI_SPAWNED) && EMPI_Register_array("b", b, MPI_DOUBLE, dim, 1, EMPI_DISJOINT, EMPI_CONSTANT)) printf("register b failed\n");
    EMPI_Register_vector("xloc", xloc, MPI_DOUBLE, dim, EMPI_DISJOINT);
    EMPI_Register_vector("x", x, MPI_DOUBLE, dim, EMPI_SHARED);
    long errs = 0;
    pthread_t th; int have_th = 0;
    if (getenv("FJ_THREADREQ") && rank == 0 && type != EMPI_SPAWNED) { pthread_create(&th, NULL, reqthread, NULL); have_th = 1; }
    if (type == EMPI_SPAWNED) {
        EMPI_Get_shared(&it);
        /* compute on our own pointers: check what arrived in them */
        MPI_Comm_rank(EMPI_COMM_WORLD, &rank); MPI_Comm_size(EMPI_COMM_WORLD, &size);
        int d2, c2; EMPI_Get_wsize(rank, size, dim, &d2, &c2, NULL, NULL);
        if (d2 != desp || c2 != count) { printf("SPAWNED rank %d: block changed %d+%d -> %d+%d\n", rank, desp, count, d2, c2); errs++; }
        for (int i = 0; i < count; i++) {
            if (b[i] != bval(desp + i)) errs++;
            for (int j = 0; j < dim; j++) if (A[(size_t)i * dim + j] != aval(desp + i, j, dim)) errs++;
            if (xloc[i] != x[desp + i]) errs++;
        }
        if (errs) printf("SPAWNED rank %d (it %d): %ld wrong elements in its registered buffers\n", rank, it, errs);
    } else {
        for (int i = 0; i < count; i++) { b[i] = bval(desp + i); xloc[i] = 0; for (int j = 0; j < dim; j++) A[(size_t)i * dim + j] = aval(desp + i, j, dim); }
        for (int j = 0; j < dim; j++) x[j] = 0;
    }
    char hist[512] = ""; int hl = 0, lastsz = -1;
    int *vc = malloc(sizeof(int) * 1024), *vd = malloc(sizeof(int) * 1024);
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        if (rank == 0 && size != lastsz && hl < (int)sizeof hist - 32) { hl += snprintf(hist + hl, sizeof hist - hl, "%d@%d ", size, it); lastsz = size; }
        /* data checks: my rows of A and b, xloc consistent with x */
        for (int i = 0; i < count; i++) {
            if (b[i] != bval(desp + i)) errs++;
            if (xloc[i] != x[desp + i]) errs++;
            for (int j = 0; j < dim; j++) if (A[(size_t)i * dim + j] != aval(desp + i, j, dim)) errs++;
        }
        for (int i = 0; i < count; i++) {
            double s = b[i];
            for (int j = 0; j < dim; j++) if (j != desp + i) s -= A[(size_t)i * dim + j] * x[j];
            xloc[i] = s / A[(size_t)i * dim + desp + i];
        }
        if (getenv("FJ_SLEEP_MS")) usleep(1000 * atoi(getenv("FJ_SLEEP_MS")));
        EMPI_Get_wsize(rank, size, dim, &desp, &count, vc, vd);
        MPI_Allgatherv(xloc, count, MPI_DOUBLE, x, vc, vd, MPI_DOUBLE, EMPI_COMM_WORLD);
        if (getenv("FJ_REQ")) {
            char err[256] = ""; int r = -2;
            struct { int it, d, tgt, at; const char *h; } q[] = {
                { 2, 2, 0, -1, NULL }, { 2, -1, 0, -1, NULL }, { 8, 0, 1, -1, NULL }, { 10, -10, 0, -1, NULL },
                { 12, -1, 0, -1, "7" }, { 14, -2, 0, -1, "1;1" }, { 16, 1, 0, -1, "nosuchhost.invalid" }, { 18, 3, 1, 22, NULL }, { 23, 0, 0, -1, NULL } };
            for (unsigned k = 0; k < sizeof q / sizeof q[0]; k++) if (q[k].it == it && (rank == 0 || it == 2)) {
                err[0] = 0; r = ductile_request_resize(q[k].d, q[k].tgt, q[k].at, q[k].h, err, sizeof err);
                printf("REQ rank %d it %d size %d: request(%d, target=%d, at=%d, %s) -> %d '%s'\n", rank, it, size, q[k].d, q[k].tgt, q[k].at, q[k].h ? q[k].h : "NULL", r, err);
            }
        }
        /* FJ_CP_EVERY=k: a control point only every k iterations */
        if (getenv("FJ_CP_EVERY") && (it + 1) % atoi(getenv("FJ_CP_EVERY")) != 0) continue;
        EMPI_Monitor_end(&rank, &size, it, itmax, &count, &desp, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        if (getenv("FJ_GETIT")) EMPI_Get_iteration(&it);   /* standby processes (DUCTILE_PERSISTENT) */
        A = EMPI_Get_addr("A"); b = EMPI_Get_addr("b"); xloc = EMPI_Get_addr("xloc");
        if (!getenv("FJ_KEEP_X")) x = EMPI_Get_addr("x");   /* FJ_KEEP_X=1: keep our own pointer to the replicated x, as FlexMPI programs do */
        int d2, c2; EMPI_Get_wsize(rank, size, dim, &d2, &c2, NULL, NULL);
        if (d2 != desp || c2 != count) { printf("rank %d: Monitor_end count/desp %d/%d != wsize %d/%d\n", rank, count, desp, c2, d2); errs++; }
    }
    if (status != EMPI_REMOVED) {
        long tot = 0;
        MPI_Reduce(&errs, &tot, 1, MPI_LONG, MPI_SUM, 0, EMPI_COMM_WORLD);
        if (rank == 0) {
            double *rx = calloc(dim, sizeof(double)), *nx = calloc(dim, sizeof(double));
            for (int k = 0; k < itmax; k++) {
                for (int i = 0; i < dim; i++) { double s = bval(i); for (int j = 0; j < dim; j++) if (j != i) s -= aval(i, j, dim) * rx[j]; nx[i] = s / aval(i, i, dim); }
                memcpy(rx, nx, dim * sizeof(double));
            }
            int same = memcmp(rx, x, dim * sizeof(double)) == 0;
            double cs = 0; for (int i = 0; i < dim; i++) cs += x[i];
            printf("fjacobi dim=%d it=%d sizes: %s| final size %d checksum %.17g data-errors %ld => %s\n", dim, itmax, hist, size, cs, tot, same && tot == 0 ? "PASS" : "FAIL");
        }
    }
    if (have_th) pthread_join(th, NULL);
    MPI_Finalize();
    return 0;
}
