/* strangermulti.c -- many data types through resizes, written by a tester who
 * read only README.md, docs/ and include/ (tests/malleable/stranger.sh runs it).
 * Several registered arrays of different types, row sizes and row counts
 * (some smaller than the process count: ranks with zero rows), constant and
 * variable, a derived struct type with padding, a replicated array and a
 * scalar.  Every element is checked against a closed form at every
 * iteration on every process.  Usage: multi ITMAX [multiple] */
#include <mpi.h>
#include <empi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char c; double d; int i; } rec_t;   /* 24 bytes with padding */
enum { NI = 6 };
static const char *ids[NI] = { "ints", "dbls", "chars", "llong", "recs", "empty" };
static const long rows_of[NI] = { 13, 7, 3, 29, 11, 1 };
static const long relem[NI] = { 3, 1, 5, 2, 1, 4 };
static const int constant[NI] = { 1, 0, 1, 0, 0, 1 };
static MPI_Datatype types[NI];
static size_t esz[NI];
static void *buf[NI];

static long base(int k, long r, long e) { return (k + 1) * 1000 + r * 10 + e; }
/* value of element (r,e) of item k at the start of iteration it */
static void expect(int k, long r, long e, int it, void *out)
{
    long v = base(k, r, e) + (constant[k] ? 0 : it);
    switch (k) {
    case 0: *(int *)out = (int)v; break;
    case 1: *(double *)out = v * 0.5; break;
    case 2: *(char *)out = (char)(v % 127); break;
    case 3: *(long long *)out = v * 1000000007LL; break;
    case 4: { rec_t q; memset(&q, 0, sizeof q); q.c = (char)(v % 100); q.d = v / 3.0; q.i = (int)-v; *(rec_t *)out = q; break; }
    case 5: *(short *)out = (short)v; break;
    }
}
static int same(int k, const void *a, const void *b)
{
    if (k == 4) { const rec_t *x = a, *y = b; return x->c == y->c && x->d == y->d && x->i == y->i; }
    return memcmp(a, b, esz[k]) == 0;
}

int main(int argc, char **argv)
{
    int itmax = argc > 1 ? atoi(argv[1]) : 30, multiple = argc > 2 && !strcmp(argv[2], "multiple");
    int prov, rank, size, type, status = EMPI_ACTIVE, it = 0;
    if (multiple) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov); else MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
    types[0] = MPI_INT; types[1] = MPI_DOUBLE; types[2] = MPI_CHAR; types[3] = MPI_LONG_LONG; types[5] = MPI_SHORT;
    {
        int bl[3] = { 1, 1, 1 }; MPI_Aint dp[3] = { offsetof(rec_t, c), offsetof(rec_t, d), offsetof(rec_t, i) };
        MPI_Datatype tt[3] = { MPI_CHAR, MPI_DOUBLE, MPI_INT }, t;
        MPI_Type_create_struct(3, bl, dp, tt, &t); MPI_Type_create_resized(t, 0, sizeof(rec_t), &types[4]); MPI_Type_commit(&types[4]); MPI_Type_free(&t);
    }
    esz[0] = sizeof(int); esz[1] = sizeof(double); esz[2] = 1; esz[3] = sizeof(long long); esz[4] = sizeof(rec_t); esz[5] = sizeof(short);
    EMPI_Get_type(&type);
    int desp[NI], cnt[NI];
    for (int k = 0; k < NI; k++) {
        EMPI_Get_wsize(rank, size, (int)rows_of[k], &desp[k], &cnt[k], NULL, NULL);
        buf[k] = calloc((size_t)cnt[k] * relem[k] + 1, esz[k]);
        if (EMPI_Register_array(ids[k], buf[k], types[k], rows_of[k], relem[k], EMPI_DISJOINT, constant[k] ? EMPI_CONSTANT : EMPI_VARIABLE))
            printf("rank %d: register %s failed\n", rank, ids[k]);
    }
    float rep[10]; int sc[2];
    EMPI_Register_array("rep", rep, MPI_FLOAT, 10, 1, EMPI_SHARED, EMPI_VARIABLE);
    EMPI_Register_scalar("sc", sc, MPI_INT, 2);
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    else {
        for (int k = 0; k < NI; k++) for (long r = 0; r < cnt[k]; r++) for (long e = 0; e < relem[k]; e++)
            expect(k, desp[k] + r, e, 0, (char *)buf[k] + (r * relem[k] + e) * esz[k]);
        for (int i = 0; i < 10; i++) rep[i] = i * 0.25f;
        sc[0] = 0; sc[1] = 42;
    }
    long errs = 0, first_err_it = -1; char hist[256] = ""; int hl = 0, lastsz = -1;
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        if (rank == 0 && size != lastsz && hl < (int)sizeof hist - 32) { hl += snprintf(hist + hl, sizeof hist - hl, "%d@%d ", size, it); lastsz = size; }
        long e0 = errs;
        for (int k = 0; k < NI; k++) {
            EMPI_Get_wsize(rank, size, (int)rows_of[k], &desp[k], &cnt[k], NULL, NULL);
            char want[64];
            for (long r = 0; r < cnt[k]; r++) for (long e = 0; e < relem[k]; e++) {
                char *p = (char *)buf[k] + (r * relem[k] + e) * esz[k];
                expect(k, desp[k] + r, e, it, want);
                if (!same(k, p, want)) { if (errs - e0 < 3) printf("rank %d size %d it %d: %s[%ld][%ld] wrong\n", rank, size, it, ids[k], desp[k] + r, e); errs++; }
                /* update variable items for the next iteration */
                if (!constant[k]) expect(k, desp[k] + r, e, it + 1, p);
            }
        }
        for (int i = 0; i < 10; i++) { if (rep[i] != i * 0.25f + it) errs++; rep[i] += 1; }
        if (sc[0] != it || sc[1] != 42) errs++;
        sc[0]++;
        if (errs > e0 && first_err_it < 0) first_err_it = it;
        MPI_Barrier(MPI_COMM_WORLD);
        EMPI_Monitor_end(&rank, &size, it, itmax, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        for (int k = 0; k < NI; k++) buf[k] = EMPI_Get_addr((char *)ids[k]);
    }
    if (status != EMPI_REMOVED) {
        long tot;
        MPI_Reduce(&errs, &tot, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) printf("multi sizes: %s| final size %d errors %ld => %s\n", hist, size, tot, tot == 0 ? "PASS" : "FAIL");
    }
    MPI_Finalize();
    return 0;
}
