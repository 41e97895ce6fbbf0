/* test_plan_sources.c -- CMocka unit tests for plan_recv_sources()
 * (src/redist/plan.c): the distinct remote sources a process of an RMA
 * transfer reads from, as the P x partners scan of persist.c found them, over
 * many small layouts and mappings; and at 16,384 and 65,536 ranks (a shrink to
 * 2 processes, where new rank 0 reads from half the old ranks) its operation
 * count and scratch grow no faster than P log P between the two sizes.
 * Also plan_max_partners() (the cost model's message count) against a count
 * over plan_compute()'s whole table, and its 2-3 partners at 32 <-> 64. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plan.h"

/* the earlier loop: every transfer checked against every source found so far */
static long naive(plan_transfer *tr, long ntr, const int *o2c, int me, int *out)
{
    long n = 0;
    for (long k = 0; k < ntr; k++) {
        int t = o2c[tr[k].src], seen = 0;
        tr[k].src = t;
        if (t == me) continue;
        for (long j = 0; j < n; j++) seen |= out[j] == t;
        if (!seen) out[n++] = t;
    }
    return n;
}

static void test_same_as_before(void **state)
{
    (void)state;
    srand(25);
    for (int ns = 1; ns <= 9; ns++)
        for (int nd = 1; nd <= 9; nd++)
            for (int map = 0; map < 3; map++) {
                int csize = ns + nd, o2c[9], n2c[9];
                for (int r = 0; r < ns; r++) o2c[r] = map == 0 ? r : map == 1 ? csize - 1 - r : 2 * r % csize;
                for (int k = 0; k < nd; k++) n2c[k] = map == 0 ? k : ns + k;
                for (int dst = 0; dst < nd; dst++) {
                    int64_t n = rand() % 40;
                    size_t cap = plan_max_transfers(ns, nd);
                    plan_transfer a[32], b[32];
                    int oa[32], ob[32];
                    unsigned char seen[32] = {0};
                    long ntr = plan_recvs_of(n, ns, nd, dst, a, cap);
                    assert_true(ntr >= 0);
                    memcpy(b, a, sizeof a);
                    uint64_t ops = 0;
                    long x = plan_recv_sources(a, ntr, o2c, csize, n2c[dst], seen, oa, &ops);
                    long y = naive(b, ntr, o2c, n2c[dst], ob);
                    assert_int_equal(x, y);
                    assert_memory_equal(oa, ob, (size_t)x * sizeof *oa);
                    assert_memory_equal(a, b, (size_t)ntr * sizeof *a);
                    for (int c = 0; c < csize; c++) assert_int_equal(seen[c], 0);
                    assert_true(ops == (uint64_t)ntr);
                }
            }
    /* a rank outside the communicator */
    plan_transfer t = {0, 0, 0, 1, 0, 0};
    int bad = 5, out[1];
    unsigned char seen[2] = {0};
    assert_int_equal(plan_recv_sources(&t, 1, &bad, 2, 0, seen, out, NULL), -1);
}

/* P -> 2: new rank 0 reads from the first P/2 old ranks */
static void at(int P, uint64_t *ops, size_t *bytes, long *nsrc)
{
    size_t cap = plan_max_transfers(P, 2);
    plan_transfer *tr = malloc(cap * sizeof *tr);
    int *o2c = malloc((size_t)P * sizeof *o2c), *out = malloc((size_t)P * sizeof *out);
    unsigned char *seen = calloc((size_t)P, 1);
    assert_true(tr && o2c && out && seen);
    for (int r = 0; r < P; r++) o2c[r] = r;
    long ntr = plan_recvs_of((int64_t)P * 1000, P, 2, 0, tr, cap);
    assert_true(ntr == P / 2);
    *ops = 0;
    *nsrc = plan_recv_sources(tr, ntr, o2c, P, 0, seen, out, ops);
    assert_true(*nsrc == P / 2 - 1); /* all but itself */
    *bytes = (size_t)P + (size_t)*nsrc * sizeof *out; /* the scratch and the result */
    free(tr);
    free(o2c);
    free(out);
    free(seen);
}

static void test_scale(void **state)
{
    (void)state;
    uint64_t o1, o2;
    size_t b1, b2;
    long s1, s2;
    at(16384, &o1, &b1, &s1);
    at(65536, &o2, &b2, &s2);
    double bound = 65536.0 * 16 / (16384.0 * 14), ro = (double)o2 / (double)o1, rb = (double)b2 / (double)b1;
    printf("plan_recv_sources 16384 -> 2: %ld sources, %llu ops, %zu bytes; 65536 -> 2: %ld sources, %llu ops, "
           "%zu bytes; ratios ops %.3f bytes %.3f (P log P: %.3f; the earlier scan: %.1f)\n",
           s1, (unsigned long long)o1, b1, s2, (unsigned long long)o2, b2, ro, rb, bound,
           ((double)s2 * s2) / ((double)s1 * s1));
    assert_true(ro <= bound);
    assert_true(rb <= bound);
}

/* the partners of every process from the whole plan (P x P marks, small P only) */
static int naive_partners(int64_t n, int ns, int nd, int same)
{
    int np = same ? (ns > nd ? ns : nd) : ns + nd, most = 0;
    plan_transfer *tr = calloc(plan_max_transfers(ns, nd), sizeof *tr);
    unsigned char *m = calloc((size_t)np * (size_t)np, 1);
    assert_non_null(tr);
    assert_non_null(m);
    long k = plan_compute(n, ns, nd, tr, plan_max_transfers(ns, nd));
    assert_true(k >= 0);
    for (long i = 0; i < k; i++) {
        int a = tr[i].src, b = same ? tr[i].dst : ns + tr[i].dst;
        if (a == b) continue;
        m[(size_t)a * np + b] = m[(size_t)b * np + a] = 1;
    }
    for (int p = 0; p < np; p++) {
        int c = 0;
        for (int q = 0; q < np; q++) c += m[(size_t)p * np + q];
        most = c > most ? c : most;
    }
    free(tr);
    free(m);
    return most;
}

static void test_max_partners(void **state)
{
    (void)state;
    static const int64_t sizes[] = {0, 1, 7, 64, 1000, 4099};
    for (int ns = 1; ns <= 12; ns++)
        for (int nd = 1; nd <= 12; nd++)
            for (int si = 0; si < 6; si++)
                for (int same = 0; same < 2; same++)
                    assert_int_equal(plan_max_partners(sizes[si], ns, nd, same), naive_partners(sizes[si], ns, nd, same));
    /* a block expansion or shrink by 2x: each process has 2-3 partners, not P - 1 */
    int e = plan_max_partners(1 << 20, 32, 64, 1), s = plan_max_partners(1 << 20, 64, 32, 1);
    assert_true(e >= 2 && e <= 3);
    assert_true(s >= 2 && s <= 3);
    assert_int_equal(e, naive_partners(1 << 20, 32, 64, 1));
    assert_int_equal(plan_max_partners(1000, 0, 4, 1), -1);
    /* 2 -> 4: rank 1 gives its old half to ranks 2 and 3 and takes its new quarter from rank 0 */
    assert_int_equal(plan_max_partners(1000, 2, 4, 1), 3);
    /* Baseline 2 -> 4: an old process sends to two new ones, a new one receives from one */
    assert_int_equal(plan_max_partners(1000, 2, 4, 0), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_before),
        cmocka_unit_test(test_max_partners),
        cmocka_unit_test(test_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
