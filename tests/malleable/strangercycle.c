/* strangercycle.c -- written by a tester from include/empi.h and the docs only (stranger 34),
 * kept as a test (tests/malleable/strangercycle.sh): a FlexMPI-style program with
 * several item kinds whose result does not depend on the number of processes.
 * usage: strangercycle ITMAX BIG_MIB CONST_MIB OUTFILE
 * Result is independent of the number of processes: compare OUTFILE with a static run. */
#include <empi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

#define NV 1001
#define DD 37
#define NR 50
#define BE 1024 /* uint64 per big row: 8 KiB */

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33; return x;
}
static int64_t NB, NC;
static long long *v, *r; static uint64_t *big; static int *C; static double *d; static long long s;
static int rank, size;

static void *xmalloc(size_t n) { void *p = EMPI_malloc(n ? n : 8); if (!p) { perror("malloc"); exit(3); } return p; }

static void reg(void) {
    EMPI_Register_vector("v", v, MPI_LONG_LONG, NV, EMPI_DISJOINT);
    if (EMPI_Register_array("big", big, MPI_UINT64_T, NB, BE, EMPI_DISJOINT, EMPI_VARIABLE)) exit(4);
    if (EMPI_Register_array("C", C, MPI_INT, NC, 1, EMPI_DISJOINT, EMPI_CONSTANT)) exit(4);
    EMPI_Register_dense("d", d, MPI_DOUBLE, DD, EMPI_DISJOINT);
    EMPI_Register_vector("r", r, MPI_LONG_LONG, NR, EMPI_SHARED);
    if (EMPI_Register_scalar("s", &s, MPI_LONG_LONG, 1)) exit(4);
}

int main(int argc, char **argv) {
    int provided;
    const char *th = getenv("CYC_THREAD");
    if (th && *th == '1') MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else MPI_Init(&argc, &argv);
    if (argc < 5) { fprintf(stderr, "usage\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    int itmax = atoi(argv[1]);
    NB = (int64_t)atoi(argv[2]) * 1024 * 1024 / (BE * 8) + 3; /* odd-ish row count */
    NC = (int64_t)atoi(argv[3]) * 1024 * 1024 / 4 + 5;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank); MPI_Comm_size(EMPI_COMM_WORLD, &size);
    int type; EMPI_Get_type(&type);
    int vd, vc, dd_, dc; int64_t bd, bc, cd, cc;
    EMPI_Get_wsize(rank, size, NV, &vd, &vc, NULL, NULL);
    EMPI_Get_wsize(rank, size, DD, &dd_, &dc, NULL, NULL);
    EMPI_Get_wsize64(rank, size, NB, &bd, &bc);
    EMPI_Get_wsize64(rank, size, NC, &cd, &cc);
    v = xmalloc(vc * sizeof *v); big = xmalloc(bc * BE * 8); C = xmalloc(cc * 4); d = xmalloc((size_t)dc * DD * 8);
    r = malloc(NR * sizeof *r);
    int it = 0;
    if (type == EMPI_SPAWNED) {
        reg();
        EMPI_Get_shared(&it);
    } else {
        for (int i = 0; i < vc; i++) v[i] = vd + i;
        for (int64_t i = 0; i < bc; i++) for (int j = 0; j < BE; j++) big[i * BE + j] = mix((uint64_t)(bd + i) * BE + j);
        for (int64_t i = 0; i < cc; i++) C[i] = (int)mix((uint64_t)(cd + i) + 7);
        for (int i = 0; i < dc; i++) for (int j = 0; j < DD; j++) d[i * DD + j] = (dd_ + i) * 0.5 + j;
        for (int k = 0; k < NR; k++) r[k] = k;
        s = 0;
        reg();
    }
    long long errs = 0;
    int removed = 0;
    int *mvc = NULL, *mvd = NULL;
    long long *full = malloc(NV * sizeof *full);
    const char *tr = getenv("CYC_TRACE");
    const char *slp = getenv("CYC_SLEEP_MS"); int sleep_ms = slp ? atoi(slp) : 0;
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        if (sleep_ms) usleep(sleep_ms * 1000);
        int *vcs = malloc(size * sizeof(int)), *vds = malloc(size * sizeof(int));
        EMPI_Get_wsize(rank, size, NV, &vd, &vc, vcs, vds);
        EMPI_Get_wsize(rank, size, DD, &dd_, &dc, NULL, NULL);
        EMPI_Get_wsize64(rank, size, NB, &bd, &bc);
        EMPI_Get_wsize64(rank, size, NC, &cd, &cc);
        if (rank % 3 == 1) usleep(1500); /* ranks reach the collectives at different times */
        MPI_Allgatherv(v, vc, MPI_LONG_LONG, full, vcs, vds, MPI_LONG_LONG, EMPI_COMM_WORLD);
        uint64_t h = 0;
        for (int i = 0; i < vc; i++) {
            uint64_t g = vd + i;
            v[i] = (long long)((uint64_t)v[i] + (uint64_t)full[(g + 1) % NV] * 3u + (uint64_t)it);
            h += mix((uint64_t)v[i] ^ g);
        }
        for (int64_t i = 0; i < bc; i++) {
            uint64_t *row = big + i * BE;
            for (int j = 0; j < BE; j += 1) row[j] = mix(row[j] ^ (uint64_t)(it + 1));
            h += row[0] ^ row[BE - 1];
        }
        for (int64_t i = 0; i < cc; i++) if (C[i] != (int)mix((uint64_t)(cd + i) + 7)) errs++;
        for (int i = 0; i < dc; i++) for (int j = 0; j < DD; j++) {
            d[i * DD + j] = d[i * DD + j] * 0.75 + (double)((dd_ + i) * DD + j) * 0.001 + it;
            uint64_t b; memcpy(&b, &d[i * DD + j], 8); h += mix(b);
        }
        uint64_t H; MPI_Allreduce(&h, &H, 1, MPI_UINT64_T, MPI_SUM, EMPI_COMM_WORLD);
        r[it % NR] = (long long)((uint64_t)r[it % NR] + H);
        s = (long long)((uint64_t)s * 31u + H);
        free(vcs); free(vds);
        int cnt = -5, dsp = -5;
        EMPI_Monitor_end(&rank, &size, it, itmax, &cnt, &dsp, &mvc, &mvd, NULL, argv + 1, argv[0]);
        int st; EMPI_Get_status(&st);
        if (st == EMPI_REMOVED) { removed = 1; break; }
        EMPI_Get_iteration(&it);
        /* re-read every address after the control point */
        v = EMPI_Get_addr("v"); big = EMPI_Get_addr("big"); C = EMPI_Get_addr("C"); d = EMPI_Get_addr("d");
        r = EMPI_Get_addr("r");
        long long *sp = EMPI_Get_addr("s");
        if (sp != &s) { if (sp) s = *sp; else errs++; }
        int rr, ss; MPI_Comm_rank(EMPI_COMM_WORLD, &rr); MPI_Comm_size(EMPI_COMM_WORLD, &ss);
        EMPI_Get_wsize(rank, size, NV, &vd, &vc, NULL, NULL);
        if (rr != rank || ss != size || cnt != vc || dsp != vd || !v || !big || !C || !d || !r ||
            (mvc && mvc[rank] != vc) || (mvd && mvd[rank] != vd)) {
            fprintf(stderr, "cyc: rank %d: inconsistent after control point %d: rank %d/%d size %d/%d count %d/%d disp %d/%d\n",
                    rank, it, rr, rank, ss, size, cnt, vc, dsp, vd);
            errs++;
        }
        if (rank == 0 && tr) { FILE *f = fopen(tr, "a"); if (f) { fprintf(f, "%d %d\n", it, size); fclose(f); } }
    }
    if (!removed) {
        long long E; MPI_Allreduce(&errs, &E, 1, MPI_LONG_LONG, MPI_SUM, EMPI_COMM_WORLD);
        EMPI_Get_wsize(rank, size, NV, &vd, &vc, NULL, NULL);
        EMPI_Get_wsize(rank, size, DD, &dd_, &dc, NULL, NULL);
        EMPI_Get_wsize64(rank, size, NB, &bd, &bc);
        EMPI_Get_wsize64(rank, size, NC, &cd, &cc);
        int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
        long long *Vall = rank ? NULL : malloc(NV * 8);
        uint64_t *Ball = rank ? NULL : malloc(NB * BE * 8);
        int *Call = rank ? NULL : malloc(NC * 4);
        double *Dall = rank ? NULL : malloc(DD * DD * 8);
#define GATHER(buf, n, T, out) do { int c_ = (int)(n); MPI_Gather(&c_, 1, MPI_INT, rc, 1, MPI_INT, 0, EMPI_COMM_WORLD); \
        if (!rank) { rd[0] = 0; for (int k = 1; k < size; k++) rd[k] = rd[k - 1] + rc[k - 1]; } \
        MPI_Gatherv(buf, c_, T, out, rc, rd, T, 0, EMPI_COMM_WORLD); } while (0)
        GATHER(v, vc, MPI_LONG_LONG, Vall);
        GATHER(big, bc * BE, MPI_UINT64_T, Ball);
        GATHER(C, cc, MPI_INT, Call);
        GATHER(d, dc * DD, MPI_DOUBLE, Dall);
        if (rank == 0) {
            FILE *f = fopen(argv[4], "wb");
            fwrite(Vall, 8, NV, f); fwrite(Ball, 8, NB * BE, f); fwrite(Call, 4, NC, f); fwrite(Dall, 8, DD * DD, f);
            fwrite(r, 8, NR, f); fwrite(&s, 8, 1, f); fclose(f);
            printf("cyc: done size %d errors %lld s %llx\n", size, E, (unsigned long long)s);
        }
        if (E) errs = 1;
        free(rc); free(rd); free(Vall); free(Ball); free(Call); free(Dall);
    }
    free(full);
    MPI_Finalize();
    return (rank == 0 && !removed && errs) ? 1 : 0;
}
