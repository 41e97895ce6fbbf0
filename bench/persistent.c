/* bench/persistent -- what persistence gains for a redistribution that is
 * repeated with the same buffers, after "Analyzing Persistent Alltoallv RMA
 * Implementations" (persistent fence- and lock-based RMA Alltoallv: window
 * and metadata set up once, then only the transfer per use; the paper finds
 * that persistence pays off for messages of 32,768 bytes and more).
 *
 * The pattern is a malleable resize: a block-distributed array of
 * N = BLOCK x NS x ND bytes moves from NS source processes (comm ranks
 * 0..NS-1, source s holds [s N/NS, (s+1) N/NS)) to ND drain processes (comm
 * ranks 0..ND-1, drain d gets [d N/ND, (d+1) N/ND)) over a communicator of
 * max(NS, ND) processes; a rank that is both source and drain sends its own
 * intersection to itself through the MPI like the other messages.
 * Plain MPI, no Ductile.  Per block size and method, non-persistent
 * (everything per use) against persistent (set up once, "init"):
 *   col        MPI_Alltoallv (counts computed per use)
 *              | MPI_Alltoallv_init (MPI 4; Open MPI 4.1: MPIX_Alltoallv_init
 *                from <mpi-ext.h>), then MPI_Start + MPI_Wait per use
 *   p2p        MPI_Isend/MPI_Irecv + MPI_Waitall (counts computed per use)
 *              | MPI_Send_init/MPI_Recv_init, then MPI_Startall + MPI_Waitall
 *   rma-fence  MPI_Win_create over the source block + MPI_Alltoall of the
 *                source displacements + fence, MPI_Get per source, fence,
 *                MPI_Win_free per use
 *              | window and get list once, then fence, gets, fence per use
 *   rma-lock   window + displacements + MPI_Win_lock_all, gets,
 *                MPI_Win_unlock_all, MPI_Barrier, MPI_Win_free per use
 *              | window and get list once, then lock_all, gets, unlock_all,
 *                barrier per use
 * Time per use: max over ranks of one use, median over --reps uses after one
 * warm-up use; the non-persistent and the persistent uses of a method take
 * turns (np, p, p, np, np, p, ...), so that both see the same machine (on a
 * loaded or oversubscribed node the noise comes in bursts).  Before every
 * use (not timed) the drains' buffers are cleared and all ranks pass a
 * barrier; after every use every drain compares its bytes with the expected
 * pattern (FAIL and exit status 1 on a mismatch).  The barrier also stands in
 * for the start synchronisation a real program needs before persistent
 * lock-based gets (the sources' data must be ready).
 * init = max over ranks of the one-time setup (teardown is not counted).
 *
 * usage: mpiexec -n max(NS,ND) bench/persistent [--ns 2] [--nd 4]
 *          [--min-bytes 1K] [--max-bytes 4M] [--factor 2] [--reps 5]
 *          [--uses 10] [--csv persistent.csv]
 *   BLOCK runs from --min-bytes to --max-bytes, times --factor (K, M, G
 *   suffixes allowed).  Prints a table and, per method, the break-even
 *   block size: the smallest one from which on (for it and every larger size
 *   measured) persistent per use <= non-persistent per use and
 *   init + U persistent uses < U non-persistent uses (U = --uses); then the
 *   same against the plain MPI_Alltoallv (col np) instead of the method's own
 *   non-persistent use.  On a node with more processes than cores the MPI's
 *   busy polling makes the times mostly scheduler time slices (a note says
 *   so); MPICH: MPIR_CVAR_CH4_PROGRESS_THROTTLE=1 and
 *   MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=1 help.
 *   Plot: python3 bench/persistent-plot.py persistent.csv
 */
#include <mpi.h>
#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if MPI_VERSION >= 4
#define PCOLL_INIT MPI_Alltoallv_init
#define PCOLL_NAME "MPI_Alltoallv_init"
#elif defined(OPEN_MPI) && defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
#define PCOLL_INIT MPI_Alltoallv_init /* Open MPI 5 has MPI 4's persistent collectives (MPI_VERSION 3.1) */
#define PCOLL_NAME "MPI_Alltoallv_init"
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define PCOLL_INIT MPIX_Alltoallv_init
#define PCOLL_NAME "MPIX_Alltoallv_init"
#endif

#define TAG 7
#define PAPER_BREAK_EVEN 32768

/* ------------------------------------------------------------------ the pattern */

static void block(int64_t n, int p, int r, int64_t *d, int64_t *c)
{
    int64_t q = n / p, m = n % p;
    *c = q + (r < m);
    *d = r * q + (r < m ? r : m);
}

static int64_t isect(int64_t a, int64_t ac, int64_t b, int64_t bc, int64_t *start)
{
    int64_t lo = a > b ? a : b, hi = (a + ac) < (b + bc) ? a + ac : b + bc;
    *start = lo;
    return hi > lo ? hi - lo : 0;
}

/* The byte at global index g. */
static inline unsigned char pat(uint64_t g)
{
    return (unsigned char)((g * 0x9E3779B97F4A7C15ull) >> 56);
}

struct ctx {
    MPI_Comm comm;
    int me, cs, ns, nd;
    int64_t n, soff, scnt, doff, dcnt; /* my source block, my drain block (count 0: not one) */
    char *sbuf, *rbuf, *expect;
    int *sc, *sd, *rc, *rd; /* scratch for the non-persistent methods */
    int *tdisp;
    MPI_Request *req;
};

/* The Alltoallv arrays (bytes) of this rank. */
static void counts(const struct ctx *C, int *sc, int *sd, int *rc, int *rd)
{
    int64_t s;
    for (int j = 0; j < C->cs; j++) {
        sc[j] = sd[j] = rc[j] = rd[j] = 0;
        int64_t d, c;
        if (C->scnt > 0 && j < C->nd) {
            block(C->n, C->nd, j, &d, &c);
            sc[j] = (int)isect(C->soff, C->scnt, d, c, &s);
            sd[j] = sc[j] ? (int)(s - C->soff) : 0;
        }
        if (C->dcnt > 0 && j < C->ns) {
            block(C->n, C->ns, j, &d, &c);
            rc[j] = (int)isect(d, c, C->doff, C->dcnt, &s);
            rd[j] = rc[j] ? (int)(s - C->doff) : 0;
        }
    }
}

/* ------------------------------------------------------------------ the methods */

/* State of one method while it is measured (the persistent ones keep it between uses). */
struct st {
    int *sc, *sd, *rc, *rd, *tdisp;
    MPI_Request *req;
    int nreq;
    MPI_Win win;
    int ngets, *g_rank, *g_tdisp, *g_off, *g_cnt; /* the get list */
};

static void st_alloc(struct st *S, int cs)
{
    memset(S, 0, sizeof *S);
    S->sc = calloc(5 * (size_t)cs, sizeof(int));
    S->sd = S->sc + cs;
    S->rc = S->sd + cs;
    S->rd = S->rc + cs;
    S->tdisp = S->rd + cs;
    S->req = calloc(2 * (size_t)cs, sizeof(MPI_Request));
    S->g_rank = calloc(4 * (size_t)cs, sizeof(int));
    S->g_tdisp = S->g_rank + cs;
    S->g_off = S->g_tdisp + cs;
    S->g_cnt = S->g_off + cs;
    S->win = MPI_WIN_NULL;
    if (!S->sc || !S->req || !S->g_rank) { fprintf(stderr, "persistent: out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
}

static void st_free(struct st *S)
{
    free(S->sc);
    free(S->req);
    free(S->g_rank);
}

/* col */
static void col_use(struct ctx *C, struct st *S)
{
    (void)S;
    counts(C, C->sc, C->sd, C->rc, C->rd);
    MPI_Alltoallv(C->sbuf, C->sc, C->sd, MPI_BYTE, C->rbuf, C->rc, C->rd, MPI_BYTE, C->comm);
}

#ifdef PCOLL_INIT
static void pcol_init(struct ctx *C, struct st *S)
{
    counts(C, S->sc, S->sd, S->rc, S->rd);
    PCOLL_INIT(C->sbuf, S->sc, S->sd, MPI_BYTE, C->rbuf, S->rc, S->rd, MPI_BYTE, C->comm, MPI_INFO_NULL, &S->req[0]);
}

static void pcol_use(struct ctx *C, struct st *S)
{
    (void)C;
    MPI_Start(&S->req[0]);
    MPI_Wait(&S->req[0], MPI_STATUS_IGNORE);
}

static void pcol_fini(struct ctx *C, struct st *S)
{
    (void)C;
    MPI_Request_free(&S->req[0]);
}
#endif

/* p2p */
static void p2p_use(struct ctx *C, struct st *S)
{
    (void)S;
    counts(C, C->sc, C->sd, C->rc, C->rd);
    int n = 0;
    for (int i = 0; i < C->cs; i++)
        if (C->rc[i]) MPI_Irecv(C->rbuf + C->rd[i], C->rc[i], MPI_BYTE, i, TAG, C->comm, &C->req[n++]);
    for (int j = 0; j < C->cs; j++)
        if (C->sc[j]) MPI_Isend(C->sbuf + C->sd[j], C->sc[j], MPI_BYTE, j, TAG, C->comm, &C->req[n++]);
    MPI_Waitall(n, C->req, MPI_STATUSES_IGNORE);
}

static void pp2p_init(struct ctx *C, struct st *S)
{
    counts(C, S->sc, S->sd, S->rc, S->rd);
    S->nreq = 0;
    for (int i = 0; i < C->cs; i++)
        if (S->rc[i]) MPI_Recv_init(C->rbuf + S->rd[i], S->rc[i], MPI_BYTE, i, TAG, C->comm, &S->req[S->nreq++]);
    for (int j = 0; j < C->cs; j++)
        if (S->sc[j]) MPI_Send_init(C->sbuf + S->sd[j], S->sc[j], MPI_BYTE, j, TAG, C->comm, &S->req[S->nreq++]);
}

static void pp2p_use(struct ctx *C, struct st *S)
{
    (void)C;
    MPI_Startall(S->nreq, S->req);
    MPI_Waitall(S->nreq, S->req, MPI_STATUSES_IGNORE);
}

static void pp2p_fini(struct ctx *C, struct st *S)
{
    (void)C;
    for (int i = 0; i < S->nreq; i++) MPI_Request_free(&S->req[i]);
}

/* rma: the window over the source block and the source displacements (the
 * Alltoallv metadata a drain needs for its gets: source i sends sd[j] to j). */
static void rma_setup(struct ctx *C, MPI_Win *win, int *sc, int *sd, int *rc, int *rd, int *tdisp)
{
    counts(C, sc, sd, rc, rd);
    MPI_Win_create(C->sbuf, (MPI_Aint)C->scnt, 1, MPI_INFO_NULL, C->comm, win);
    MPI_Alltoall(sd, 1, MPI_INT, tdisp, 1, MPI_INT, C->comm);
}

static void rma_gets(struct ctx *C, MPI_Win win, const int *rc, const int *rd, const int *tdisp)
{
    for (int i = 0; i < C->cs; i++)
        if (rc[i]) MPI_Get(C->rbuf + rd[i], rc[i], MPI_BYTE, i, tdisp[i], rc[i], MPI_BYTE, win);
}

static void fence_use(struct ctx *C, struct st *S)
{
    (void)S;
    MPI_Win win;
    rma_setup(C, &win, C->sc, C->sd, C->rc, C->rd, C->tdisp);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    rma_gets(C, win, C->rc, C->rd, C->tdisp);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_free(&win);
}

static void lock_use(struct ctx *C, struct st *S)
{
    (void)S;
    MPI_Win win;
    rma_setup(C, &win, C->sc, C->sd, C->rc, C->rd, C->tdisp);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    rma_gets(C, win, C->rc, C->rd, C->tdisp);
    MPI_Win_unlock_all(win);
    MPI_Barrier(C->comm);
    MPI_Win_free(&win);
}

/* persistent rma: window and get list once */
static void prma_init(struct ctx *C, struct st *S)
{
    rma_setup(C, &S->win, S->sc, S->sd, S->rc, S->rd, S->tdisp);
    S->ngets = 0;
    for (int i = 0; i < C->cs; i++)
        if (S->rc[i]) {
            S->g_rank[S->ngets] = i;
            S->g_tdisp[S->ngets] = S->tdisp[i];
            S->g_off[S->ngets] = S->rd[i];
            S->g_cnt[S->ngets] = S->rc[i];
            S->ngets++;
        }
}

static void prma_gets(struct ctx *C, struct st *S)
{
    for (int k = 0; k < S->ngets; k++)
        MPI_Get(C->rbuf + S->g_off[k], S->g_cnt[k], MPI_BYTE, S->g_rank[k], S->g_tdisp[k], S->g_cnt[k], MPI_BYTE,
                S->win);
}

static void pfence_use(struct ctx *C, struct st *S)
{
    (void)C;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, S->win);
    prma_gets(C, S);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, S->win);
}

static void plock_use(struct ctx *C, struct st *S)
{
    MPI_Win_lock_all(MPI_MODE_NOCHECK, S->win);
    prma_gets(C, S);
    MPI_Win_unlock_all(S->win);
    MPI_Barrier(C->comm);
}

static void prma_fini(struct ctx *C, struct st *S)
{
    (void)C;
    MPI_Win_free(&S->win);
}

typedef void (*fn_t)(struct ctx *, struct st *);

struct method {
    const char *name;
    fn_t np_use;                  /* non-persistent: everything per use */
    fn_t p_init, p_use, p_fini;   /* persistent (p_use NULL: not available) */
};

static const struct method methods[] = {
#ifdef PCOLL_INIT
    {"col", col_use, pcol_init, pcol_use, pcol_fini},
#else
    {"col", col_use, NULL, NULL, NULL},
#endif
    {"p2p", p2p_use, pp2p_init, pp2p_use, pp2p_fini},
    {"rma-fence", fence_use, prma_init, pfence_use, prma_fini},
    {"rma-lock", lock_use, prma_init, plock_use, prma_fini},
};
#define NMETH ((int)(sizeof methods / sizeof methods[0]))

/* ------------------------------------------------------------------ measuring */

static double tmax(double t, MPI_Comm c)
{
    double m = 0;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, c);
    return m;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Every drain compares its bytes; collective.  0: all correct. */
static int verify(struct ctx *C, const char *what, int64_t bsz, int use)
{
    int bad = 0;
    if (C->dcnt > 0 && memcmp(C->rbuf, C->expect, (size_t)C->dcnt) != 0) {
        int64_t i = 0;
        while (i < C->dcnt && C->rbuf[i] == C->expect[i]) i++;
        fprintf(stderr, "FAIL: %s, block %lld bytes, use %d: rank %d (drain [%lld, %lld)) byte %lld (global %lld): "
                        "got 0x%02x, want 0x%02x\n", what, (long long)bsz, use, C->me, (long long)C->doff,
                (long long)(C->doff + C->dcnt), (long long)i, (long long)(C->doff + i),
                (unsigned char)C->rbuf[i], (unsigned char)C->expect[i]);
        bad = 1;
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, C->comm);
    return any;
}

struct res {
    double np, p, init; /* seconds; p < 0: not available */
};

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof(double), cmpd);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* One use (drains cleared and a barrier first, not timed), then the check;
 * returns the time (max over ranks).  A wrong byte ends the program. */
static double one_use(struct ctx *C, fn_t use, struct st *S, const char *what, int64_t bsz, int u)
{
    if (C->dcnt > 0) memset(C->rbuf, 0xA5, (size_t)C->dcnt);
    MPI_Barrier(C->comm);
    double t0 = MPI_Wtime();
    use(C, S);
    double t = tmax(MPI_Wtime() - t0, C->comm);
    if (verify(C, what, bsz, u)) {
        if (C->me == 0) printf("FAIL: %s, block %lld bytes: wrong bytes at a drain (see stderr)\n", what, (long long)bsz);
        fflush(stdout);
        MPI_Finalize();
        exit(1);
    }
    return t;
}

/* One method at one block size: the persistent setup (timed, "init"), then
 * 1 + reps rounds of one non-persistent and one persistent use, in turns
 * (np first in even rounds, p first in odd ones) so that both see the same
 * machine; round 0 is the warm-up.  Medians per use; teardown not timed. */
static void measure_method(struct ctx *C, const struct method *M, int reps, int64_t bsz, struct res *R)
{
    struct st S, N;
    st_alloc(&S, C->cs);
    st_alloc(&N, C->cs);
    double *tn = calloc((size_t)reps + 1, sizeof(double)), *tp = calloc((size_t)reps + 1, sizeof(double));
    char wn[64], wp[64];
    snprintf(wn, sizeof wn, "%s", M->name);
    snprintf(wp, sizeof wp, "%s persistent", M->name);
    R->p = R->init = -1;
    if (M->p_use) {
        MPI_Barrier(C->comm);
        double t0 = MPI_Wtime();
        M->p_init(C, &S);
        R->init = tmax(MPI_Wtime() - t0, C->comm);
    }
    for (int u = 0; u <= reps; u++) {
        if (u % 2 == 0 || !M->p_use) tn[u] = one_use(C, M->np_use, &N, wn, bsz, u);
        if (M->p_use) tp[u] = one_use(C, M->p_use, &S, wp, bsz, u);
        if (u % 2 == 1 && M->p_use) tn[u] = one_use(C, M->np_use, &N, wn, bsz, u);
    }
    if (M->p_use) {
        M->p_fini(C, &S);
        R->p = median(tp + 1, reps);
    }
    R->np = median(tn + 1, reps);
    free(tn);
    free(tp);
    st_free(&S);
    st_free(&N);
}

/* Buffers and expected bytes for one block size, then every method. */
static void measure(struct ctx *C, int64_t bsz, int reps, struct res *R)
{
    C->n = bsz * C->ns * C->nd;
    C->scnt = C->dcnt = 0;
    C->soff = C->doff = 0;
    if (C->me < C->ns) block(C->n, C->ns, C->me, &C->soff, &C->scnt);
    if (C->me < C->nd) block(C->n, C->nd, C->me, &C->doff, &C->dcnt);
    C->sbuf = malloc((size_t)(C->scnt ? C->scnt : 1));
    C->rbuf = malloc((size_t)(C->dcnt ? C->dcnt : 1));
    C->expect = malloc((size_t)(C->dcnt ? C->dcnt : 1));
    if (!C->sbuf || !C->rbuf || !C->expect) {
        fprintf(stderr, "persistent: out of memory for block %lld\n", (long long)bsz);
        MPI_Abort(C->comm, 1);
    }
    for (int64_t i = 0; i < C->scnt; i++) C->sbuf[i] = (char)pat((uint64_t)(C->soff + i));
    for (int64_t i = 0; i < C->dcnt; i++) C->expect[i] = (char)pat((uint64_t)(C->doff + i));
    for (int m = 0; m < NMETH; m++) measure_method(C, &methods[m], reps, bsz, &R[m]);
    free(C->sbuf);
    free(C->rbuf);
    free(C->expect);
}

/* ------------------------------------------------------------------ main */

static int64_t parse_bytes(const char *s)
{
    char *e;
    double v = strtod(s, &e);
    int64_t m = 1;
    if (*e == 'k' || *e == 'K') m = 1 << 10, e++;
    else if (*e == 'm' || *e == 'M') m = 1 << 20, e++;
    else if (*e == 'g' || *e == 'G') m = 1 << 30, e++;
    if (*e == 'i' || *e == 'I') e++;
    if (*e == 'b' || *e == 'B') e++;
    if (*e || v <= 0) return -1;
    return (int64_t)(v * (double)m);
}

static const char *human(int64_t b, char *buf, size_t n)
{
    if (b >= (1 << 20) && b % (1 << 20) == 0) snprintf(buf, n, "%lldM", (long long)(b >> 20));
    else if (b >= 1024 && b % 1024 == 0) snprintf(buf, n, "%lldK", (long long)(b >> 10));
    else snprintf(buf, n, "%lld", (long long)b);
    return buf;
}

/* The break-even line of one method: the smallest block from which on (for
 * it and every larger size) p <= np and init + U p < U np. */
static void breakeven(const char *name, int nsz, const int64_t *bs, int64_t mxmsg, const double *p, const double *np,
                      const double *init, int uses)
{
    int from_use = nsz, from_all = nsz;
    for (int z = nsz - 1; z >= 0; z--) {
        if (p[z] <= np[z] && from_use == z + 1) from_use = z;
        if (p[z] <= np[z] && init[z] + uses * p[z] < uses * np[z] && from_all == z + 1) from_all = z;
    }
    char h1[32], h2[32], h3[32];
    printf("  %-10s ", name);
    if (from_all < nsz)
        printf("block %s (largest message %s)", human(bs[from_all], h1, sizeof h1),
               human(bs[from_all] * mxmsg, h2, sizeof h2));
    else printf("none up to block %s", human(bs[nsz - 1], h1, sizeof h1));
    printf("; per use alone: %s", from_use < nsz ? human(bs[from_use], h3, sizeof h3) : "none");
    printf("; holds at:");
    int any = 0;
    for (int z = 0; z < nsz; z++)
        if (p[z] <= np[z] && init[z] + uses * p[z] < uses * np[z]) {
            printf(" %s", human(bs[z], h1, sizeof h1));
            any = 1;
        }
    printf("%s\n", any ? "" : " -");
}

/* "MPICH Version: 5.0.2" / "Open MPI v4.1.4": the first line up to a comma, spaces collapsed. */
static void libname(char *out, size_t n)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    size_t k = 0;
    int sp = 0;
    for (int i = 0; i < len && v[i] && v[i] != '\n' && v[i] != ',' && k + 1 < n; i++) {
        if (isspace((unsigned char)v[i])) { sp = 1; continue; }
        if (sp && k) out[k++] = ' ';
        sp = 0;
        if (k + 1 < n) out[k++] = v[i];
    }
    out[k] = 0;
}

static void usage(FILE *f, const char *argv0)
{
    fprintf(f,
            "usage: mpiexec -n max(NS,ND) %s [--ns 2] [--nd 4] [--min-bytes 1K] [--max-bytes 4M]\n"
            "         [--factor 2] [--reps 5] [--uses 10] [--csv persistent.csv]\n"
            "Non-persistent against persistent redistribution of a block-distributed array of\n"
            "BLOCK x NS x ND bytes from NS to ND processes (col, p2p, rma-fence, rma-lock).\n"
            "  --ns, --nd N        source and drain process counts (default 2, 4)\n"
            "  --min-bytes, --max-bytes B   block size sweep (K, M, G suffixes; default 1K .. 4M)\n"
            "  --factor F          block size step (default 2)\n"
            "  --reps R            timed uses per series, after one warm-up (default 5; median)\n"
            "  --uses U            uses the init cost is spread over for the break-even (default 10)\n"
            "  --csv FILE          one row per method and block size (default persistent.csv)\n"
            "Plot: python3 bench/persistent-plot.py FILE\n",
            argv0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wr, wsz;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &wsz);
    int ns = 2, nd = 4, reps = 5, uses = 10, factor = 2, bad = 0;
    int64_t minb = 1024, maxb = 4 << 20;
    const char *csv = "persistent.csv";
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            if (wr == 0) usage(stdout, argv[0]);
            MPI_Finalize();
            return 0;
        } else if (!v) bad = 1;
        else if (strcmp(a, "--ns") == 0) ns = atoi(v), i++;
        else if (strcmp(a, "--nd") == 0) nd = atoi(v), i++;
        else if (strcmp(a, "--reps") == 0) reps = atoi(v), i++;
        else if (strcmp(a, "--uses") == 0) uses = atoi(v), i++;
        else if (strcmp(a, "--factor") == 0) factor = atoi(v), i++;
        else if (strcmp(a, "--min-bytes") == 0) minb = parse_bytes(v), i++;
        else if (strcmp(a, "--max-bytes") == 0) maxb = parse_bytes(v), i++;
        else if (strcmp(a, "--csv") == 0) csv = v, i++;
        else bad = 1;
    }
    int w = ns > nd ? ns : nd;
    if (bad || ns < 1 || nd < 1 || reps < 1 || uses < 1 || factor < 2 || minb < 1 || maxb < minb) {
        if (wr == 0) usage(stderr, argv[0]);
        MPI_Finalize();
        return 2;
    }
    if ((maxb * w) > INT_MAX) {
        if (wr == 0)
            fprintf(stderr, "persistent: --max-bytes x max(NS,ND) must stay below 2 GiB (int counts)\n");
        MPI_Finalize();
        return 2;
    }
    if (wsz < w) {
        if (wr == 0) fprintf(stderr, "persistent: needs max(NS,ND) = %d processes, have %d\n", w, wsz);
        MPI_Finalize();
        return 2;
    }
    struct ctx C;
    memset(&C, 0, sizeof C);
    MPI_Comm_split(MPI_COMM_WORLD, wr < w ? 0 : MPI_UNDEFINED, wr, &C.comm);
    if (C.comm == MPI_COMM_NULL) { /* extra processes sit it out */
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_rank(C.comm, &C.me);
    MPI_Comm_size(C.comm, &C.cs);
    C.ns = ns;
    C.nd = nd;
    C.sc = calloc(5 * (size_t)C.cs, sizeof(int));
    C.sd = C.sc + C.cs;
    C.rc = C.sd + C.cs;
    C.rd = C.rc + C.cs;
    C.tdisp = C.rd + C.cs;
    C.req = calloc(2 * (size_t)C.cs, sizeof(MPI_Request));

    int nsz = 0;
    for (int64_t b = minb; b <= maxb; b *= factor) nsz++;
    int64_t *bs = calloc((size_t)nsz, sizeof(int64_t));
    struct res *R = calloc((size_t)nsz * NMETH, sizeof(struct res));
    nsz = 0;
    for (int64_t b = minb; b <= maxb; b *= factor) bs[nsz++] = b;

    char lib[128];
    libname(lib, sizeof lib);
    FILE *out = NULL;
    int ok = 1;
    if (C.me == 0) {
        out = fopen(csv, "w");
        if (!out) { perror(csv); ok = 0; }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, C.comm);
    if (!ok) { MPI_Finalize(); return 1; }

    /* the messages of the pattern (they scale with BLOCK: N = BLOCK x NS x ND) */
    int64_t mxmsg = 0, nmsg = 0, nself = 0;
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < nd; j++) {
            int64_t a, ac, b, bc, s, n = (int64_t)ns * nd;
            block(n, ns, i, &a, &ac);
            block(n, nd, j, &b, &bc);
            int64_t k = isect(a, ac, b, bc, &s);
            if (k) { nmsg++; nself += i == j; if (k > mxmsg) mxmsg = k; }
        }
    /* processes on my node against its cores: an oversubscribed node times the scheduler too */
    int oversub = 0;
    {
        MPI_Comm node;
        int nn = 0;
        MPI_Comm_split_type(C.comm, MPI_COMM_TYPE_SHARED, C.me, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &nn);
        MPI_Comm_free(&node);
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int mine = cores > 0 && nn > cores;
        MPI_Allreduce(&mine, &oversub, 1, MPI_INT, MPI_MAX, C.comm);
    }
    if (C.me == 0) {
        fprintf(out, "mpi,ns,nd,procs,method,block_bytes,max_msg_bytes,msgs,nonpersistent_us,persistent_us,ratio,"
                     "init_us,uses,uses_nonpersistent_us,init_plus_uses_persistent_us,pays_off\n");
        printf("MPI: %s   %d -> %d over %d processes, N = BLOCK x %d bytes; reps %d (+1 warm-up), median of max "
               "over ranks; break-even over %d uses\n", lib, ns, nd, C.cs, ns * nd, reps, uses);
#ifdef PCOLL_INIT
        printf("col persistent: %s\n", PCOLL_NAME);
#else
        printf("col persistent: not available (no MPI_Alltoallv_init / MPIX_Alltoallv_init at compile time); "
               "skipped\n");
#endif
        if (oversub)
            printf("note: more processes than cores on a node: waits include the scheduler (busy-polling ranks\n"
                   "      hold a core for a time slice); MPICH: MPIR_CVAR_CH4_PROGRESS_THROTTLE=1\n"
                   "      MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=1, Open MPI: --mca mpi_yield_when_idle 1\n"
                   "      (its default under --oversubscribe)\n");
        printf("messages per use: %lld (%lld to the same rank), the largest %lld x BLOCK bytes\n", (long long)nmsg,
               (long long)nself, (long long)mxmsg);
        printf("times in microseconds; np: non-persistent, p: persistent, p/np: ratio, init: one-time setup of p\n\n");
        printf("%7s %7s", "", "");
        for (int m = 0; m < NMETH; m++) printf(" | %-33s", methods[m].name);
        printf("\n%7s %7s", "block", "max msg");
        for (int m = 0; m < NMETH; m++) printf(" | %8s %8s %5s %9s", "np", "p", "p/np", "init");
        printf("\n");
        fflush(stdout);
    }

    /* warm-up: the smallest size once, not reported (first window, first connections) */
    measure(&C, bs[0], 1, R);

    for (int z = 0; z < nsz; z++) {
        struct res *r = R + (size_t)z * NMETH;
        measure(&C, bs[z], reps, r);
        if (C.me != 0) continue;
        char h1[32], h2[32];
        printf("%7s %7s", human(bs[z], h1, sizeof h1), human(bs[z] * mxmsg, h2, sizeof h2));
        for (int m = 0; m < NMETH; m++) {
            double np = r[m].np * 1e6, p = r[m].p * 1e6, in = r[m].init * 1e6;
            if (r[m].p < 0) printf(" | %8.1f %8s %5s %9s", np, "-", "-", "-");
            else printf(" | %8.1f %8.1f %5.2f %9.1f", np, p, p / np, in);
            double knp = uses * np, kp = in + uses * p;
            if (r[m].p < 0)
                fprintf(out, "%s,%d,%d,%d,%s,%lld,%lld,%lld,%.3f,nan,nan,nan,%d,%.3f,nan,0\n", lib, ns, nd, C.cs,
                        methods[m].name, (long long)bs[z], (long long)(bs[z] * mxmsg), (long long)nmsg, np, uses,
                        knp);
            else
                fprintf(out, "%s,%d,%d,%d,%s,%lld,%lld,%lld,%.3f,%.3f,%.4f,%.3f,%d,%.3f,%.3f,%d\n", lib, ns, nd, C.cs,
                        methods[m].name, (long long)bs[z], (long long)(bs[z] * mxmsg), (long long)nmsg, np, p, p / np,
                        in, uses, knp, kp, p <= np && kp < knp);
        }
        printf("\n");
        fflush(stdout);
        fflush(out);
    }

    if (C.me == 0) {
        fclose(out);
        printf("\nbreak-even: the smallest block from which on (every larger size too) persistent per use <= "
               "non-persistent\nand init + %d persistent uses < %d non-persistent uses (paper: messages >= %d bytes)\n",
               uses, uses, PAPER_BREAK_EVEN);
        double *p = calloc((size_t)nsz, sizeof(double)), *np = calloc((size_t)nsz, sizeof(double)),
               *in = calloc((size_t)nsz, sizeof(double)), *col = calloc((size_t)nsz, sizeof(double));
        for (int z = 0; z < nsz; z++) col[z] = R[(size_t)z * NMETH].np;
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1)
                printf("against the plain MPI_Alltoallv (col np) instead of the method's own non-persistent use:\n");
            for (int m = 0; m < NMETH; m++) {
                if (!methods[m].p_use) {
                    printf("  %-10s skipped (no persistent Alltoallv)\n", methods[m].name);
                    continue;
                }
                for (int z = 0; z < nsz; z++) {
                    struct res *r = R + (size_t)z * NMETH + m;
                    p[z] = r->p;
                    np[z] = pass ? col[z] : r->np;
                    in[z] = r->init;
                }
                breakeven(methods[m].name, nsz, bs, mxmsg, p, np, in, uses);
            }
        }
        free(p);
        free(np);
        free(in);
        free(col);
        printf("CSV: %s\n", csv);
    }
    free(bs);
    free(R);
    free(C.sc);
    free(C.req);
    MPI_Comm_free(&C.comm);
    MPI_Finalize();
    return 0;
}
