/* test_rma_cost.c -- unit tests of the automatic redistribution choice
 * (src/rma/cost.c): Eq. 1-3 of the MaM RMA paper on hand-computed cases. */
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
    assert_int_equal(n, 3);
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
    assert_int_equal(n, 3 * 3 + 1); /* COL: 4 strategies; RMA: blocking, WD, T each */
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
        assert_int_equal(all[i].method, COST_COL);
        assert_true(all[i].strategy != COST_THREAD);
    }
    assert_int_equal(n, 3);
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
        if (all[i].method == COST_COL) ncol++;
        else {
            nrma++;
            assert_int_equal(all[i].strategy, COST_BLOCKING);
        }
    }
    assert_int_equal(ncol, 4);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variable_only), cmocka_unit_test(test_reused_window), cmocka_unit_test(test_background),
        cmocka_unit_test(test_thread_and_rma_excluded), cmocka_unit_test(test_rma_background_excluded),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
