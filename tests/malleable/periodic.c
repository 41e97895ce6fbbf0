/* periodic.c -- a 2-D periodic stencil on two fields, "u" and "w", on the
 * same process grid, registered with EMPI_Register_block_grid: both
 * dimensions periodic, the process grid chosen by the program (q x P/q, q the
 * largest divisor of P not above its square root: 2x2, 2x3, 1x3, 1x5 --
 * never MPI_Dims_create's 3x2, 3x1, 5x1).  PERIODIC_REFUSE_PRIMES=1: the
 * grid function refuses a prime count of 5 or more (the resize to it must be
 * refused, the job going on at its size).  The halos are exchanged at the
 * END of each iteration (on the Cartesian communicator Ductile gives), so
 * after a resize the program relies on Ductile's halo fill.
 *
 * After every resize (and in a spawned process once its data arrived) each
 * process checks: u and w give the same communicator, periodic in both
 * dimensions, whose grid is the program's; every halo cell of both fields
 * (edges, corners, and across the periodic boundary) equals the global
 * grid's cell at that position modulo the grid size (the global grids are
 * assembled and broadcast for the check).  At the end rank 0 prints
 * "hash H on P processes" over both global grids (bit-identical to a static
 * run whatever the sizes), "BAD" when a check failed.
 *
 * PERIODIC_STORAGE=1: the local arrays are the program's
 * (EMPI_Register_block_storage): rows padded by 3 cells holding a sentinel
 * that must never change, strides read with EMPI_Get_block_strides; the
 * checks add that exactly two arrays are live (the old ones given back at
 * every resize) and the padding is intact.  PERIODIC_ALLOC_FAIL=N: rank 0's
 * N-th allocation returns NULL (that resize must roll back cleanly).
 *
 * usage: periodic N ITERS   (grid N x (N+7)) */
#include <mpi.h>
#include <empi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int G[2], rank_, size_, refuse_primes, storage, live, alloc_fail, nalloc;
enum { PAD = 3 };
static const double SENTINEL = -7777.25;
static struct { void *addr; int64_t row; } rows_[2]; /* the program's arrays: their row strides */

static void *alloc_fn(const EMPI_Block *b, int64_t strides[3], void *arg)
{
    (void)arg;
    if (rank_ == 0 && ++nalloc == alloc_fail) return NULL;
    size_t n = (size_t)b->lsizes[0] * (size_t)(b->lsizes[1] + PAD);
    double *p = malloc((n ? n : 1) * sizeof *p);
    for (size_t x = 0; p && x < n; x++) p[x] = SENTINEL;
    strides[0] = b->lsizes[1] + PAD;
    strides[1] = 1;
    strides[2] = 1;
    if (p) live++;
    return p;
}
static void release_fn(void *addr, void *arg)
{
    (void)arg;
    live--;
    free(addr);
}
static void refresh(const char *id, int f)
{
    int64_t st[3] = {0, 0, 0};
    EMPI_Block b;
    EMPI_Get_block(id, &b);
    rows_[f].addr = b.addr;
    rows_[f].row = EMPI_Get_block_strides(id, st) == 0 ? st[0] : -1;
}
static int64_t row_of(const EMPI_Block *b)
{
    for (int f = 0; f < 2; f++)
        if (storage && rows_[f].addr == b->addr) return rows_[f].row;
    return b->lsizes[1];
}

static int grid_fn(int nprocs, int ndims, int dims[], void *arg)
{
    (void)arg;
    int q = 1;
    for (int d = 1; d * d <= nprocs; d++)
        if (nprocs % d == 0) q = d;
    if (*(int *)arg && q == 1 && nprocs >= 5) return -1; /* a prime: refused */
    if (ndims != 2) return -1;
    dims[0] = q;
    dims[1] = nprocs / q;
    return 0;
}

static size_t at(const EMPI_Block *b, int i, int j) { return (size_t)i * row_of(b) + j; }

static void exchange(const EMPI_Block *b, double *u)
{
    for (int d = 0; d < 2; d++) {
        int lo, hi, sub[2], st[2], full[2] = {b->lsizes[0], (int)row_of(b)};
        MPI_Cart_shift(b->comm, d, 1, &lo, &hi);
        for (int dir = 0; dir < 2; dir++) {
            MPI_Datatype s, r;
            sub[0] = b->lsizes[0]; sub[1] = b->lsizes[1]; st[0] = st[1] = 0;
            sub[d] = b->halo[d];
            st[d] = dir ? b->subsizes[d] : b->halo[d];
            MPI_Type_create_subarray(2, full, sub, st, MPI_ORDER_C, MPI_DOUBLE, &s);
            st[d] = dir ? 0 : b->halo[d] + b->subsizes[d];
            MPI_Type_create_subarray(2, full, sub, st, MPI_ORDER_C, MPI_DOUBLE, &r);
            MPI_Type_commit(&s);
            MPI_Type_commit(&r);
            MPI_Sendrecv(u, 1, s, dir ? hi : lo, 30 + d, u, 1, r, dir ? lo : hi, 30 + d, b->comm, MPI_STATUS_IGNORE);
            MPI_Type_free(&s);
            MPI_Type_free(&r);
        }
    }
}

/* The global grid of a field, on every process (rank 0 assembles, then broadcasts). */
static double *global_of(const EMPI_Block *b)
{
    double *all = calloc((size_t)G[0] * G[1], sizeof *all), *mine = all;
    int hdr[4] = {b->starts[0], b->starts[1], b->subsizes[0], b->subsizes[1]};
    double *pk = malloc(((size_t)hdr[2] * hdr[3] + 1) * sizeof *pk);
    const double *u = b->addr;
    size_t q = 0;
    for (int i = 0; i < hdr[2]; i++)
        for (int j = 0; j < hdr[3]; j++) pk[q++] = u[at(b, i + b->halo[0], j + b->halo[1])];
    for (int r = 0; r < size_; r++) {
        int h[4];
        double *buf = pk;
        if (r && rank_ == r) {
            MPI_Send(hdr, 4, MPI_INT, 0, 1, EMPI_COMM_WORLD);
            MPI_Send(pk, hdr[2] * hdr[3], MPI_DOUBLE, 0, 2, EMPI_COMM_WORLD);
        }
        if (rank_) continue;
        if (!r) memcpy(h, hdr, sizeof h);
        else {
            MPI_Recv(h, 4, MPI_INT, r, 1, EMPI_COMM_WORLD, MPI_STATUS_IGNORE);
            buf = malloc(((size_t)h[2] * h[3] + 1) * sizeof *buf);
            MPI_Recv(buf, h[2] * h[3], MPI_DOUBLE, r, 2, EMPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        size_t p = 0;
        for (int i = 0; i < h[2]; i++)
            for (int j = 0; j < h[3]; j++) mine[(size_t)(h[0] + i) * G[1] + h[1] + j] = buf[p++];
        if (buf != pk) free(buf);
    }
    free(pk);
    MPI_Bcast(all, G[0] * G[1], MPI_DOUBLE, 0, EMPI_COMM_WORLD);
    return all;
}

static int check(const EMPI_Block *b, const EMPI_Block *c, const char *when, int it)
{
    int bad = 0, dims[2], periods[2], coords[2], want[2], cs = -1, zero = 0;
    if (b->comm != c->comm) {
        printf("FAIL: rank %d of %d (%s, iteration %d): u and w have different communicators\n", rank_, size_, when, it);
        bad = 1;
    }
    MPI_Comm_size(b->comm, &cs);
    MPI_Cart_get(b->comm, 2, dims, periods, coords);
    grid_fn(size_, 2, want, &zero);
    if (cs != size_ || !periods[0] || !periods[1] || dims[0] != want[0] || dims[1] != want[1] ||
        b->dims[0] != want[0] || b->dims[1] != want[1]) {
        printf("FAIL: rank %d of %d (%s, iteration %d): communicator of %d, grid %dx%d periods %d %d (want %dx%d "
               "periodic)\n", rank_, size_, when, it, cs, dims[0], dims[1], periods[0], periods[1], want[0], want[1]);
        bad = 1;
    }
    if (storage && live != 2) {
        printf("FAIL: rank %d of %d (%s, iteration %d): %d arrays of the program live, not 2\n", rank_, size_, when,
               it, live);
        bad = 1;
    }
    for (int f = 0; f < 2; f++) {
        const EMPI_Block *x = f ? c : b;
        const double *px = x->addr;
        for (int i = 0; storage && i < x->lsizes[0]; i++)
            for (int j = x->lsizes[1]; j < row_of(x); j++)
                if (px[at(x, i, j)] != SENTINEL) {
                    printf("FAIL: rank %d of %d (%s, iteration %d): padding (%d,%d) of '%s' written\n", rank_, size_,
                           when, it, i, j, f ? "w" : "u");
                    bad = 1;
                    i = x->lsizes[0];
                    break;
                }
        double *all = global_of(x);
        const double *u = x->addr;
        for (int i = 0; i < x->lsizes[0] && !bad; i++)
            for (int j = 0; j < x->lsizes[1] && !bad; j++) {
                int gi = ((x->starts[0] + i - x->halo[0]) % G[0] + G[0]) % G[0];
                int gj = ((x->starts[1] + j - x->halo[1]) % G[1] + G[1]) % G[1];
                if (memcmp(&u[at(x, i, j)], &all[(size_t)gi * G[1] + gj], sizeof *u)) {
                    printf("FAIL: rank %d of %d (%s, iteration %d): '%s' local (%d,%d) = %g, global (%d,%d) = %g\n",
                           rank_, size_, when, it, f ? "w" : "u", i, j, u[at(x, i, j)], gi, gj,
                           all[(size_t)gi * G[1] + gj]);
                    bad = 1;
                }
            }
        free(all);
    }
    return bad;
}

static void step(const EMPI_Block *b, const EMPI_Block *c)
{
    double *u = b->addr, *w = c->addr;
    size_t len = (size_t)b->lsizes[0] * b->lsizes[1];
    len = (size_t)b->lsizes[0] * (size_t)row_of(b);
    double *v = malloc((len ? len : 1) * sizeof *v);
    memcpy(v, u, len * sizeof *v);
    for (int i = 1; i <= b->subsizes[0]; i++)
        for (int j = 1; j <= b->subsizes[1]; j++) {
            double s = u[at(b, i - 1, j)] + u[at(b, i + 1, j)] + u[at(b, i, j - 1)] + u[at(b, i, j + 1)];
            v[at(b, i, j)] = u[at(b, i, j)] + 0.1 * (s - 4.0 * u[at(b, i, j)]);
            w[at(c, i, j)] = 0.5 * w[at(c, i, j)] + 0.25 * u[at(b, i - 1, j - 1)];
        }
    memcpy(u, v, len * sizeof *v);
    free(v);
    exchange(b, u);
    exchange(c, w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 24, itmax = argc > 2 ? atoi(argv[2]) : 20;
    int halo[2] = {1, 1}, periods[2] = {1, 1}, type, status = EMPI_ACTIVE, it = 0, bad = 0;
    G[0] = n;
    G[1] = n + 7;
    refuse_primes = getenv("PERIODIC_REFUSE_PRIMES") && atoi(getenv("PERIODIC_REFUSE_PRIMES"));
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank_);
    MPI_Comm_size(EMPI_COMM_WORLD, &size_);
    storage = getenv("PERIODIC_STORAGE") && atoi(getenv("PERIODIC_STORAGE"));
    alloc_fail = getenv("PERIODIC_ALLOC_FAIL") ? atoi(getenv("PERIODIC_ALLOC_FAIL")) : 0;
    EMPI_Block b, c;
    int rc = 0;
    for (int f = 0; f < 2; f++) {
        const char *id = f ? "w" : "u";
        EMPI_Block *x = f ? &c : &b;
        if (storage)
            rc |= EMPI_Register_block_storage(id, MPI_DOUBLE, 2, G, halo, periods, grid_fn, &refuse_primes, alloc_fn,
                                              release_fn, NULL, x);
        else rc |= EMPI_Register_block_grid(id, MPI_DOUBLE, 2, G, halo, periods, grid_fn, &refuse_primes, x);
        if (storage) refresh(id, f);
    }
    if (rc) MPI_Abort(MPI_COMM_WORLD, 1);
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) {
        EMPI_Get_shared(&it);
        EMPI_Get_block("u", &b);
        EMPI_Get_block("w", &c);
        if (storage) refresh("u", 0), refresh("w", 1);
        bad |= check(&b, &c, "spawned", it);
    } else {
        double *u = b.addr, *w = c.addr;
        for (int i = 0; i < b.subsizes[0]; i++)
            for (int j = 0; j < b.subsizes[1]; j++) {
                int gi = b.starts[0] + i, gj = b.starts[1] + j;
                u[at(&b, i + 1, j + 1)] = (double)((gi * 31 + gj * 17) % 23) / 7.0;
                w[at(&c, i + 1, j + 1)] = (double)((gi * 5 + gj * 3) % 11);
            }
        exchange(&b, u);
        exchange(&c, w);
        bad |= check(&b, &c, "start", 0);
    }
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        step(&b, &c);
        int oldsize = size_;
        EMPI_Monitor_end(&rank_, &size_, it, itmax, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        EMPI_Get_block("u", &b);
        EMPI_Get_block("w", &c);
        if (storage) refresh("u", 0), refresh("w", 1);
        if (size_ != oldsize) bad |= check(&b, &c, "resized", it);
    }
    if (status != EMPI_REMOVED) {
        bad |= check(&b, &c, "end", it);
        double *gu = global_of(&b), *gw = global_of(&c);
        int anybad = 0;
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, EMPI_COMM_WORLD);
        uint64_t h = 1469598103934665603ULL;
        for (size_t x = 0; x < (size_t)G[0] * G[1]; x++)
            for (int f = 0; f < 2; f++) {
                const unsigned char *p = (const unsigned char *)(f ? &gw[x] : &gu[x]);
                for (size_t y = 0; y < sizeof(double); y++) h = (h ^ p[y]) * 1099511628211ULL;
            }
        if (rank_ == 0) printf("hash %016llx on %d processes%s\n", (unsigned long long)h, size_, anybad ? " BAD" : "");
        free(gu);
        free(gw);
        if (storage) {
            EMPI_free(NULL, "u"); /* deregistered; the arrays are ours */
            EMPI_free(NULL, "w");
            free(b.addr);
            free(c.addr);
        }
    }
    MPI_Finalize();
    return 0;
}
