/* strangerkinds.c -- the general data kinds, written by a tester who read only
 * README.md, docs/ and include/ (tests/malleable/stranger.sh runs it).
 * The general data kinds through grow and shrink: a 2-D N-D block with
 * halos, a FlexMPI sparse (CSR, int indices) matrix, and custom data
 * (particles) moved by callbacks.  Everything is checked against closed
 * forms at every iteration; halos right after each resize.
 * Usage: kinds ITMAX */
#include <mpi.h>
#include <empi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 10
#define NY 7
#define SDIM 23
#define NP 37
static double gval(int i, int j, int it) { return i * 100 + j + it; }
static int snnz(int i) { return i % 4 + 1; }
static int scol(int i, int k) { return (i * 3 + k * 5) % SDIM; }
static double sval(int i, int k, int it) { return i + k * 0.125 + it; }

typedef struct { int id; double v; } part_t;
typedef struct { part_t *p; int n; } plist_t;
static int owner(int id, int size) { for (int r = 0; r < size; r++) { int d, c; EMPI_Get_wsize(r, size, NP, &d, &c, NULL, NULL); if (id >= d && id < d + c) return r; } return -1; }
static int64_t csize(void *u, int nr, int ns) { plist_t *l = u; int64_t n = 0; for (int i = 0; i < l->n; i++) if (owner(l->p[i].id, ns) == nr) n++; return n * (int64_t)sizeof(part_t); }
static int cpack(void *u, int nr, int ns, void *b, int64_t bytes) { plist_t *l = u; part_t *o = b; int64_t k = 0; for (int i = 0; i < l->n; i++) if (owner(l->p[i].id, ns) == nr) o[k++] = l->p[i]; return k * (int64_t)sizeof(part_t) == bytes ? 0 : 1; }
static int cunpack(void *u, int orank, int osz, const void *b, int64_t bytes) { plist_t *l = u; (void)osz; if (orank == 0) { free(l->p); l->p = NULL; l->n = 0; } int m = (int)(bytes / sizeof(part_t)); l->p = realloc(l->p, (l->n + m + 1) * sizeof(part_t)); memcpy(l->p + l->n, b, m * sizeof(part_t)); l->n += m; return 0; }

int main(int argc, char **argv)
{
    int itmax = argc > 1 ? atoi(argv[1]) : 30;
    int rank, size, type, status = EMPI_ACTIVE, it = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
    EMPI_Get_type(&type);
    /* N-D block */
    int g[2] = { NX, NY }, halo[2] = { 1, 1 };
    EMPI_Block blk;
    if (EMPI_Register_block("u", MPI_DOUBLE, 2, g, halo, &blk)) printf("rank %d: register_block failed\n", rank);
    /* sparse */
    int d, c; EMPI_Get_wsize(rank, size, SDIM, &d, &c, NULL, NULL);
    int *srow = NULL, *scl = NULL; double *sv = NULL; int nnz = 0;
    if (type != EMPI_SPAWNED) {
        srow = malloc((c + 1) * sizeof(int)); srow[0] = 0;
        for (int i = 0; i < c; i++) srow[i + 1] = srow[i] + snnz(d + i);
        nnz = srow[c]; scl = malloc((nnz + 1) * sizeof(int)); sv = malloc((nnz + 1) * sizeof(double));
        for (int i = 0; i < c; i++) for (int k = 0; k < snnz(d + i); k++) { scl[srow[i] + k] = scol(d + i, k); sv[srow[i] + k] = sval(d + i, k, 0); }
    }
    EMPI_Register_sparse("S", srow, scl, sv, MPI_DOUBLE, SDIM, nnz);
    /* custom */
    plist_t pl = { NULL, 0 };
    if (type != EMPI_SPAWNED) {
        int pd, pc; EMPI_Get_wsize(rank, size, NP, &pd, &pc, NULL, NULL);
        pl.p = malloc((pc + 1) * sizeof(part_t)); pl.n = pc;
        for (int i = 0; i < pc; i++) { pl.p[pc - 1 - i].id = pd + i; pl.p[pc - 1 - i].v = (pd + i) * 2.0; }
    }
    if (EMPI_Register_custom("parts", csize, cpack, cunpack, &pl)) printf("rank %d: register_custom failed\n", rank);
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    else {
        double *u = blk.addr;
        for (int i = 0; i < blk.subsizes[0]; i++) for (int j = 0; j < blk.subsizes[1]; j++)
            u[(i + 1) * blk.lsizes[1] + j + 1] = gval(blk.starts[0] + i, blk.starts[1] + j, 0);
    }
    EMPI_Get_block("u", &blk);
    int prevsize = -1, changed = (type == EMPI_SPAWNED);
    long errs = 0; char hist[256] = ""; int hl = 0, lastsz = -1;
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        if (rank == 0 && size != lastsz && hl < (int)sizeof hist - 32) { hl += snprintf(hist + hl, sizeof hist - hl, "%d@%d ", size, it); lastsz = size; }
        long e0 = errs;
        /* block: interior (and halos right after a resize) */
        double *u = blk.addr;
        int ckh = changed;
        for (int i = -1; i <= blk.subsizes[0]; i++) for (int j = -1; j <= blk.subsizes[1]; j++) {
            int halo_cell = i < 0 || j < 0 || i == blk.subsizes[0] || j == blk.subsizes[1];
            if (halo_cell && !ckh) continue;
            int gi = blk.starts[0] + i, gj = blk.starts[1] + j;
            double want = (gi < 0 || gj < 0 || gi >= NX || gj >= NY) ? 0.0 : gval(gi, gj, it);
            if (u[(i + 1) * blk.lsizes[1] + j + 1] != want) { if (errs - e0 < 3) printf("rank %d size %d it %d: u[%d][%d]%s = %g want %g\n", rank, size, it, gi, gj, halo_cell ? " (halo)" : "", u[(i + 1) * blk.lsizes[1] + j + 1], want); errs++; }
        }
        for (int i = 0; i < blk.subsizes[0]; i++) for (int j = 0; j < blk.subsizes[1]; j++) u[(i + 1) * blk.lsizes[1] + j + 1] += 1;
        int bcheck = blk.subsizes[0] * blk.subsizes[1], btot;
        MPI_Allreduce(&bcheck, &btot, 1, MPI_INT, MPI_SUM, blk.comm);
        if (btot != NX * NY) { errs++; printf("block cells %d\n", btot); }
        /* sparse */
        int64_t r0, nr, nz;
        EMPI_Get_sparse_rows("S", &r0, &nr, &nz);
        void *ar, *ac, *av; EMPI_Get_addr_sparse("S", &ar, &ac, &av);
        srow = ar; scl = ac; sv = av;
        int wd, wc; EMPI_Get_wsize(rank, size, SDIM, &wd, &wc, NULL, NULL);
        if (r0 != wd || nr != wc) { errs++; printf("rank %d: sparse rows %lld+%lld, wsize %d+%d\n", rank, (long long)r0, (long long)nr, wd, wc); }
        for (int64_t i = 0; i < nr; i++) {
            if (srow[i + 1] - srow[i] != snnz((int)(r0 + i))) { errs++; continue; }
            for (int k = 0; k < snnz((int)(r0 + i)); k++) {
                if (scl[srow[i] + k] != scol((int)(r0 + i), k) || sv[srow[i] + k] != sval((int)(r0 + i), k, it)) errs++;
                sv[srow[i] + k] += 1;
            }
        }
        /* custom: exactly my particles, each once, with the right value */
        int pd, pc; EMPI_Get_wsize(rank, size, NP, &pd, &pc, NULL, NULL);
        if (pl.n != pc) { errs++; if (errs - e0 < 3) printf("rank %d size %d it %d: %d particles, want %d\n", rank, size, it, pl.n, pc); }
        long idsum = 0;
        for (int i = 0; i < pl.n; i++) {
            idsum += pl.p[i].id;
            if (pl.p[i].id < pd || pl.p[i].id >= pd + pc || pl.p[i].v != pl.p[i].id * 2.0 + it) errs++;
            pl.p[i].v += 1;
        }
        if (idsum != (long)pc * pd + (long)pc * (pc - 1) / 2) errs++;
        prevsize = size;
        EMPI_Monitor_end(&rank, &size, it, itmax, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        EMPI_Get_block("u", &blk);
        changed = size != prevsize;
    }
    if (status != EMPI_REMOVED) {
        long tot;
        MPI_Reduce(&errs, &tot, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) printf("kinds sizes: %s| final size %d errors %ld => %s\n", hist, size, tot, tot == 0 ? "PASS" : "FAIL");
    }
    MPI_Finalize();
    return 0;
}
