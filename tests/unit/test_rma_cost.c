/* test_rma_cost.c -- unit tests of the automatic redistribution choice
 * (src/rma/cost.c): Eq. 1-3 of the MaM RMA paper on hand-computed cases;
 * the latency term (steps of the collective against messages to the real
 * partners: col at small P or dense, p2p at P = 64 with 2-3 partners) and
 * the fit of bandwidth and latency from measured transfers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cost.h"

static struct cost_input base(void)
{
    struct cost_input in;
    memset(&in, 0, sizeof in);
    in.ns = 2;
    in.nd = 4;
    in.bw_col = 1e9;
    in.bw_rma = 1e9;
    in.thread_multiple = 1;
    in.rma_ok = 1;
    in.rma_background_ok = 1;
    return in;
}

static const struct cost_version *find(const struct cost_version *all, int n, int m, int s)
{
    for (int i = 0; i < n; i++)
        if (all[i].method == m && all[i].strategy == s) return &all[i];
    return NULL;
}

/* only variable data: blocking versions only; a window to create makes RMA lose */
static void test_variable_only(void **st)
{
    (void)st;
    struct cost_input in = base();
    in.var_bytes = 1e8;
    in.win_setup_s = 0.05;
    struct cost_version all[COST_MAX_VERSIONS];
    int n = 0;
    char why[256];
    int b = cost_choose(&in, all, &n, why, sizeof why);
    assert_int_equal(n, 4); /* col, p2p, rma-lock, rma-lockall */
    assert_int_equal(all[b].method, COST_COL);
    assert_int_equal(all[b].strategy, COST_BLOCKING);
    assert_true(all[b].r > 0.0999 && all[b].r < 0.1001);
    assert_non_null(strstr(why, "col: f="));
}

/* the reusable window (set-up 0) and a faster measured RMA bandwidth: RMA-Lockall wins, ties go to the earlier */
static void test_reused_window(void **st)
{
    (void)st;
    struct cost_input in = base();
    in.var_bytes = 1e8;
    in.bw_rma = 2e9;
    in.win_setup_s = 0;
    struct cost_version all[COST_MAX_VERSIONS];
    int n = 0;
    int b = cost_choose(&in, all, &n, NULL, 0);
    assert_int_equal(all[b].method, COST_RMA_LOCKALL);
    in.bw_rma = 1e9; /* equal cost: the simpler COL */
    b = cost_choose(&in, all, &n, NULL, 0);
    assert_int_equal(all[b].method, COST_COL);
}

/* constant data and a known iteration time: Eq. 2 with M = max N_it */
static void test_background(void **st)
{
    (void)st;
    struct cost_input in = base();
    in.const_bytes = 1e9; /* 1 s at 1 GB/s */
    in.t_it = 0.2;        /* 0.1 s per iteration at ND = 4 */
    struct cost_version all[COST_MAX_VERSIONS];
    int n = 0;
    int b = cost_choose(&in, all, &n, NULL, 0);
    assert_int_equal(n, 4 + 4 + 3 + 3); /* COL and P2P: 4 strategies each; RMA: blocking, WD, T each */
    const struct cost_version *blk = find(all, n, COST_COL, COST_BLOCKING);
    const struct cost_version *rwd = find(all, n, COST_RMA_LOCKALL, COST_WD);
    const struct cost_version *cnb = find(all, n, COST_COL, COST_NB);
    assert_non_null(blk);
    assert_non_null(rwd);
    assert_non_null(cnb);
    assert_null(find(all, n, COST_RMA_LOCK, COST_NB));
    assert_int_equal(blk->n_it, 0);
    /* RMA-WD: 1 s / (0.1 s x 1.05) -> 10 iterations, R = 10 x 0.105 */
    assert_int_equal(rwd->n_it, 10);
    assert_true(rwd->r > 1.0499 && rwd->r < 1.0501);
    int mx = 0;
    for (int i = 0; i < n; i++) mx = all[i].n_it > mx ? all[i].n_it : mx;
    assert_true(blk->f > 1.0 + 0.1 * mx - 1e-9 && blk->f < 1.0 + 0.1 * mx + 1e-9);
    /* the best is a background version with the smallest omega */
    assert_int_equal(all[b].strategy, COST_WD);
    assert_true(all[b].method != COST_COL);
}

static void test_thread_and_rma_excluded(void **st)
{
    (void)st;
    struct cost_input in = base();
    in.const_bytes = 1e6;
    in.t_it = 0.01;
    in.thread_multiple = 0;
    in.rma_ok = 0;
    struct cost_version all[COST_MAX_VERSIONS];
    int n = 0;
    assert_true(cost_choose(&in, all, &n, NULL, 0) >= 0);
    for (int i = 0; i < n; i++) {
        assert_true(all[i].method == COST_COL || all[i].method == COST_P2P);
        assert_true(all[i].strategy != COST_THREAD);
    }
    assert_int_equal(n, 6);
}

/* Open MPI 4: one-sided methods only blocking; every collective version stays */
static void test_rma_background_excluded(void **st)
{
    (void)st;
    struct cost_input in = base();
    in.const_bytes = 1e6;
    in.t_it = 0.01;
    in.rma_background_ok = 0;
    struct cost_version all[COST_MAX_VERSIONS];
    int n = 0;
    assert_true(cost_choose(&in, all, &n, NULL, 0) >= 0);
    int ncol = 0, nrma = 0;
    for (int i = 0; i < n; i++) {
        if (all[i].method == COST_COL || all[i].method == COST_P2P) ncol++;
        else {
            nrma++;
            assert_int_equal(all[i].strategy, COST_BLOCKING);
        }
    }
    assert_int_equal(ncol, 8);
    assert_int_equal(nrma, 2);
}

static void test_bad_input(void **st)
{
    (void)st;
    struct cost_input in = base();
    struct cost_version all[COST_MAX_VERSIONS];
    int n = 0;
    in.ns = 0;
    assert_int_equal(cost_choose(&in, all, &n, NULL, 0), -1);
    in = base();
    in.bw_col = 0;
    assert_int_equal(cost_choose(&in, all, &n, NULL, 0), -1);
    in = base();
    in.t_it = 0; /* unknown iteration time: background versions still complete at one control point */
    in.const_bytes = 1e6;
    int b = cost_choose(&in, all, &n, NULL, 0);
    assert_true(b >= 0);
    assert_true(all[b].n_it <= 1);
}

/* 2 -> 4 (every process exchanges with every other): as many steps as messages, the collective wins the tie */
static void test_small_dense_col(void **st)
{
    (void)st;
    for (int alg = COST_A2A_PAIRWISE; alg <= COST_A2A_SCATTERED; alg++) {
        struct cost_input in = base();
        in.var_bytes = 1e8;
        in.win_setup_s = 0.02;
        in.np = 4;
        in.partners = 3;
        in.lat_s = 1e-4;
        in.col_alg = alg;
        struct cost_version all[COST_MAX_VERSIONS];
        int n = 0;
        char why[256];
        int b = cost_choose(&in, all, &n, why, sizeof why);
        assert_int_equal(all[b].method, COST_COL);
        const struct cost_version *p = find(all, n, COST_P2P, COST_BLOCKING);
        assert_non_null(p);
        assert_true(p->f >= all[b].f);
        assert_true(all[b].r > 0.1 + 3e-4 - 1e-9 && all[b].r < 0.1 + 3e-4 + 1e-9); /* 3 steps */
        assert_non_null(strstr(why, "col: f="));
        /* equal costs (3 steps each): a tie, the first in order, said "<=" */
        assert_non_null(strstr(why, p->f > all[b].f + 1e-12 ? "< p2p f=" : "<= p2p f="));
    }
}

/* 32 -> 64, 3 partners at most: Open MPI's pairwise Alltoallv pays 63 steps, p2p 3 messages */
static void test_p64_sparse_p2p(void **st)
{
    (void)st;
    struct cost_input in = base();
    in.ns = 32;
    in.nd = 64;
    in.var_bytes = 64.0 * 1048576;
    in.win_setup_s = 0.02;
    in.np = 64;
    in.partners = 3;
    in.nx = 2;
    in.lat_s = 1e-4;
    in.col_alg = COST_A2A_PAIRWISE;
    struct cost_version all[COST_MAX_VERSIONS];
    int n = 0;
    char why[256];
    int b = cost_choose(&in, all, &n, why, sizeof why);
    assert_int_equal(all[b].method, COST_P2P);
    assert_int_equal(all[b].strategy, COST_BLOCKING);
    const struct cost_version *c = find(all, n, COST_COL, COST_BLOCKING);
    double x = in.var_bytes / in.bw_col;
    assert_true(all[b].r > x + 2 * 3e-4 - 1e-9 && all[b].r < x + 2 * 3e-4 + 1e-9);
    assert_true(c->r > x + 2 * 63e-4 - 1e-9 && c->r < x + 2 * 63e-4 + 1e-9);
    assert_non_null(strstr(why, "p2p: f="));
    assert_non_null(strstr(why, "< col f="));
    assert_non_null(strstr(why, "steps col 126 p2p 6"));
    /* MPICH's scattered Alltoallv: the real partners and a second round of 32 ranks; p2p still wins */
    in.col_alg = COST_A2A_SCATTERED;
    assert_true(cost_steps(&in, COST_COL) > 3.999 && cost_steps(&in, COST_COL) < 4.001);
    b = cost_choose(&in, all, &n, why, sizeof why);
    assert_int_equal(all[b].method, COST_P2P);
    /* no latency known: bandwidth only, the tie goes to col */
    in.lat_s = 0;
    b = cost_choose(&in, all, &n, NULL, 0);
    assert_int_equal(all[b].method, COST_COL);
    /* constant data in the background moves by the collective also under p2p: its latency counts */
    in = base();
    in.np = 64;
    in.partners = 3;
    in.lat_s = 1e-4;
    in.const_bytes = 1e6;
    in.t_it = 1.0;
    b = cost_choose(&in, all, &n, NULL, 0);
    const struct cost_version *pw = find(all, n, COST_P2P, COST_WD), *cw = find(all, n, COST_COL, COST_WD);
    assert_non_null(pw);
    assert_true(pw->r > cw->r - 1e-12 && pw->r < cw->r + 1e-12);
}

/* bandwidth and latency from measured transfers */
static void test_fit(void **st)
{
    (void)st;
    const double bw = 2e9, lat = 3e-4;
    double by[3] = {1e8, 1e6, 5e7}, s[3] = {63, 3, 10}, t[3];
    for (int i = 0; i < 3; i++) t[i] = by[i] / bw + lat * s[i];
    double fb = 0, fl = 0;
    assert_int_equal(cost_fit(by, t, s, 3, &fb, &fl), 1);
    assert_true(fb > 0.999 * bw && fb < 1.001 * bw);
    assert_true(fl > 0.999 * lat && fl < 1.001 * lat);
    /* one transfer, or transfers of one shape: not told apart */
    assert_int_equal(cost_fit(by, t, s, 1, &fb, &fl), 0);
    double by2[2] = {1e8, 2e8}, s2[2] = {10, 20}, t2[2] = {0.1, 0.2};
    assert_int_equal(cost_fit(by2, t2, s2, 2, &fb, &fl), 0);
    /* faster with more steps: no latency, bandwidth alone */
    double t3[2] = {0.1, 0.0005}, by3[2] = {1e8, 1e6}, s3[2] = {3, 63};
    assert_int_equal(cost_fit(by3, t3, s3, 2, &fb, &fl), 1);
    assert_true(fl == 0);
    assert_true(fb > 0.99e9 && fb < 1.01e9);
    /* noise suggesting a latency larger than a whole transfer's time per step: bounded by it */
    double by4[3] = {1e6, 1e8, 2e8}, s4[3] = {60, 2, 3}, t4[3] = {0.003, 0.9, 0.5};
    assert_int_equal(cost_fit(by4, t4, s4, 3, &fb, &fl), 1);
    assert_true(fl <= 0.003 / 60 + 1e-12);
    assert_true(fb > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variable_only), cmocka_unit_test(test_reused_window), cmocka_unit_test(test_background),
        cmocka_unit_test(test_thread_and_rma_excluded), cmocka_unit_test(test_rma_background_excluded),
        cmocka_unit_test(test_bad_input), cmocka_unit_test(test_small_dense_col), cmocka_unit_test(test_p64_sparse_p2p),
        cmocka_unit_test(test_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
