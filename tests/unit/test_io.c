/* test_io.c -- CMocka unit tests for ductiled's I/O logic: the FCFS token
 * (src/daemon/iotoken.c), the predictor (Eq. 1, extrapolation, interference
 * with the uncertainty margin, per-configuration iteration times) and
 * Algorithms 3 (Phase Shifting, Eq. 2) and 4 (Period Coupling) in
 * src/daemon/iopredict.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "iopredict.h"
#include "iotoken.h"

static void test_token_fcfs(void **state)
{
    (void)state;
    struct iotoken t;
    iotoken_init(&t);
    assert_int_equal(iotoken_request(&t, 1, 0), 1); /* free: granted at once */
    assert_int_equal(iotoken_request(&t, 2, 1), 0); /* queued */
    assert_int_equal(iotoken_request(&t, 3, 2), 0);
    assert_int_equal(iotoken_request(&t, 2, 3), 0); /* repeated: still once in the queue */
    assert_int_equal(t.n, 2);
    assert_int_equal(iotoken_release(&t, 2, 4), 0); /* not the holder: only leaves the queue */
    assert_int_equal(t.n, 1);
    assert_int_equal(iotoken_request(&t, 2, 5), 0);
    assert_int_equal(iotoken_release(&t, 1, 6), 3);  /* first come, first served */
    assert_int_equal(iotoken_release(&t, 3, 7), 2);
    assert_int_equal(iotoken_release(&t, 2, 8), 0);
    assert_int_equal(t.holder, 0);
    assert_int_equal(t.grants, 3);
}

/* a job with I/O phases every `period` s of `dur` s, `ipp` iterations apart */
static void feed(struct iop_job *j, double t0, double period, double dur, int n, long long ipp, int procs)
{
    for (int k = 0; k < n; k++) iop_add_phase(j, t0 + k * period, dur, k * ipp, procs);
}

/* Period Coupling reconfigures only jobs whose next phases interfere
 * (issue 12: it used to resize without checking) */
static void test_coupling_needs_interference(void **state)
{
    (void)state;
    struct iop_params prm = {.uncertainty = 0.5, .overhead = 0.25, .similar = 0.25, .max_procs = 16};
    struct iop_job a, b;
    iop_job_init(&a, 1, 2);
    iop_job_init(&b, 2, 2);
    feed(&a, 0, 10, 2, 3, 100, 2); /* next [30, 32] */
    feed(&b, -7.5, 7, 1, 3, 70, 2); /* next [13.5..], then 27.5 and 34.5: none meets a's */
    iop_add_iterations(&a, 2, 10, 100);
    iop_add_iterations(&b, 2, 7, 70);
    struct iop_plan pl;
    assert_int_equal(iop_period_coupling(&a, 205, &b, 205, &prm, &pl), 0);
    assert_non_null(strstr(pl.why, "no interference"));
    assert_int_equal(pl.fallback, 0);
}

static void test_predict(void **state)
{
    (void)state;
    struct iop_job j;
    iop_job_init(&j, 1, 4);
    struct iop_pred p;
    iop_predict(&j, &p);
    assert_false(p.valid);
    feed(&j, 100, 10, 2, 4, 50, 4);
    iop_predict(&j, &p);
    assert_true(p.valid);
    assert_float_equal(p.period, 10, 1e-9);   /* Eq. 1: between phase starts */
    /* Eq. 1's one implementation: the mean of consecutive start differences, the sum of its terms */
    static const double st[] = {100, 110, 121, 129};
    assert_float_equal(iop_period(st, 0, 3), 29.0 / 3, 1e-9);
    assert_float_equal(iop_period(st, 1, 2), 11, 1e-9);
    assert_float_equal(iop_period(st, 2, 2), 0, 1e-9);
    struct iop_terms tm = {6.5, 2.25, 1.25};
    assert_float_equal(iop_eq1(&tm), 10, 1e-9);
    assert_float_equal(p.duration, 2, 1e-9);
    assert_float_equal(p.next_start, 140, 1e-9);
    assert_int_equal(p.next_iter, 200);
    /* a resize changes the period: only the phases at the new size count */
    iop_add_phase(&j, 137, 1.5, 200, 8);
    iop_add_phase(&j, 143, 1.5, 250, 8);
    iop_predict(&j, &p);
    assert_true(p.valid);
    assert_float_equal(p.period, 6, 1e-9);
    assert_float_equal(p.next_start, 149, 1e-9);
    /* resized again (samples report 16 processes) but no phase at 16 yet: no prediction from the old period */
    j.procs = 16;
    iop_predict(&j, &p);
    assert_false(p.valid);
    iop_add_phase(&j, 147, 1.0, 300, 16);
    iop_add_phase(&j, 150, 1.0, 350, 16);
    iop_predict(&j, &p);
    assert_true(p.valid);
    assert_float_equal(p.period, 3, 1e-9);
}

static void test_interference(void **state)
{
    (void)state;
    struct iop_job a, b;
    iop_job_init(&a, 1, 2);
    iop_job_init(&b, 2, 2);
    feed(&a, 0, 10, 2, 3, 10, 2);      /* next: [30, 32] */
    feed(&b, 5, 10, 2, 3, 10, 2);      /* next: [35, 37] */
    struct iop_pred pa, pb;
    iop_predict(&a, &pa);
    iop_predict(&b, &pb);
    double ov;
    assert_false(iop_interfere(&pa, &pb, 0.5, &ov));
    assert_true(iop_interfere(&pa, &pb, 3.5, &ov)); /* the uncertainty margin makes them meet */
    assert_float_equal(ov, 0.5, 1e-9);
    iop_job_init(&b, 2, 2);
    feed(&b, 1, 10, 2, 3, 10, 2);      /* next: [31, 33] */
    iop_predict(&b, &pb);
    assert_true(iop_interfere(&pa, &pb, 0, &ov));
    assert_float_equal(ov, 1, 1e-9);
}

static void test_iter_times(void **state)
{
    (void)state;
    struct iop_job j;
    iop_job_init(&j, 1, 2);
    assert_true(iop_iter_time(&j, 2) < 0);
    iop_add_iterations(&j, 2, 10, 100);   /* 0.1 s */
    iop_add_iterations(&j, 2, 10, 100);
    iop_add_iterations(&j, 6, 4, 100);    /* 0.04 s (each reconfiguration adds a sample) */
    assert_float_equal(iop_iter_time(&j, 2), 0.1, 1e-12);
    assert_float_equal(iop_iter_time(&j, 4), 0.07, 1e-12);  /* interpolated */
    assert_float_equal(iop_iter_time(&j, 12), 0.02, 1e-12); /* ideal scaling beyond */
    assert_float_equal(iop_iter_time(&j, 1), 0.2, 1e-12);
    assert_int_equal(iop_procs_for_speedup(&j, 2, 2.0, 16), 6);  /* 0.1/0.055 < 2 at 5, 2.5 at 6 */
    assert_int_equal(iop_procs_for_speedup(&j, 2, 100, 16), -1);
}

static void test_phase_shift(void **state)
{
    (void)state;
    struct iop_params prm = {.uncertainty = 0.5, .overhead = 0.25, .similar = 0.25, .max_procs = 8};
    struct iop_job a, b;
    iop_job_init(&a, 1, 2);
    iop_job_init(&b, 2, 2);
    /* equal periods of 10 s (100 iterations of 0.1 s), b 1 s after a */
    feed(&a, 0, 10, 2, 3, 100, 2);   /* next phase [30, 32] at iteration 300 */
    feed(&b, 1, 10, 2, 3, 100, 2);   /* next [31, 33] */
    iop_add_iterations(&a, 2, 10, 100);
    iop_add_iterations(&b, 2, 10, 100);
    struct iop_plan pl;
    assert_int_equal(iop_phase_shift(&a, 205, &b, 205, &prm, &pl), 1);
    assert_int_equal(pl.kind, 1);
    assert_int_equal(pl.job, 1);              /* equal periods: the phase that comes first */
    assert_float_equal(pl.shift, 32 + 0.5 - 31, 1e-9); /* ends (with margin) where b starts */
    assert_int_equal(pl.iter1, 206);          /* next control point */
    assert_int_equal(pl.iter2, 299);          /* last control point before the phase */
    assert_float_equal(pl.torig, 93 * 0.1, 1e-9);
    assert_float_equal(pl.treconf, 1.5 + 2 * 0.25 + 0.5, 1e-9);
    assert_float_equal(pl.speedup, 9.3 / (9.3 - 2.5), 1e-9); /* Eq. 2 */
    assert_int_equal(pl.new_procs, 3);        /* ideal scaling: 3/2 >= 1.37 */
    assert_int_equal(pl.delta, 1);
    /* the shifted phase no longer meets b */
    struct iop_pred pa, pb;
    iop_predict(&a, &pa);
    iop_predict(&b, &pb);
    pa.next_start -= pl.shift;
    double ov;
    assert_false(iop_interfere(&pa, &pb, 0, &ov));
    /* too late: too few iterations left */
    assert_int_equal(iop_phase_shift(&a, 290, &b, 290, &prm, &pl), 0);
    assert_non_null(strstr(pl.why, "unreachable"));
    /* the resource manager limit cancels it */
    prm.max_procs = 2;
    assert_int_equal(iop_phase_shift(&a, 205, &b, 205, &prm, &pl), 0);
    assert_non_null(strstr(pl.why, "needs more than"));
    /* similar but unequal periods: the shorter period is reconfigured */
    prm.max_procs = 8;
    iop_job_init(&b, 2, 2);
    feed(&b, 0.5 - 2 * 9, 9, 2, 3, 90, 2); /* period 9, next [27.5, 29.5]... */
    iop_add_iterations(&b, 2, 10, 100);
    iop_predict(&b, &pb);
    if (iop_phase_shift(&a, 205, &b, 205, &prm, &pl)) assert_int_equal(pl.job, 2);
}

static void test_period_coupling(void **state)
{
    (void)state;
    struct iop_params prm = {.uncertainty = 0.5, .overhead = 0.25, .similar = 0.25, .max_procs = 16};
    struct iop_job a, b;
    iop_job_init(&a, 1, 4);
    iop_job_init(&b, 2, 2);
    feed(&a, 0, 10, 1, 3, 100, 4);   /* period 10 */
    feed(&b, -9, 13, 1, 3, 100, 2);  /* period 13, next phase meets a's at 30: coupled to 10 (x1) needs speedup 1.3 */
    iop_add_iterations(&b, 2, 13, 100);
    struct iop_plan pl;
    assert_int_equal(iop_period_coupling(&a, 50, &b, 60, &prm, &pl), 1);
    assert_int_equal(pl.kind, 2);
    assert_int_equal(pl.job, 2);
    assert_float_equal(pl.speedup, 1.3, 1e-9);
    assert_int_equal(pl.new_procs, 3);   /* 3/2 = 1.5 >= 1.3 */
    assert_int_equal(pl.iter1, 61);
    /* 20.1 s vs 10 s: already (nearly) a multiple */
    iop_job_init(&b, 2, 2);
    feed(&b, 30 - 3 * 20.1, 20.1, 1, 3, 100, 2); /* next phase at 30, with a's */
    iop_add_iterations(&b, 2, 20.1, 100);
    assert_int_equal(iop_period_coupling(&a, 50, &b, 60, &prm, &pl), 0);
    assert_non_null(strstr(pl.why, "coupled"));
    assert_int_equal(pl.fallback, 1); /* the phases still meet: a phase shift is tried */
    /* not enough processes */
    iop_job_init(&b, 2, 2);
    feed(&b, 30 - 3 * 19, 19, 1, 3, 100, 2);
    iop_add_iterations(&b, 2, 19, 100);
    prm.max_procs = 3;
    assert_int_equal(iop_period_coupling(&a, 50, &b, 60, &prm, &pl), 0);
    assert_non_null(strstr(pl.why, "needs more than"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token_fcfs),   cmocka_unit_test(test_predict),
        cmocka_unit_test(test_interference), cmocka_unit_test(test_iter_times),
        cmocka_unit_test(test_phase_shift),  cmocka_unit_test(test_period_coupling), cmocka_unit_test(test_coupling_needs_interference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
