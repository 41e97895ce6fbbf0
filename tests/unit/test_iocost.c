/* test_iocost.c -- CMocka unit tests of the I/O coordination cost predictor
 * (src/daemon/iopolicy_cost.c): the simulated I/O time without
 * coordination, with exclusive I/O, with a phase shift and with period
 * coupling; the device time of a measured phase; the choice and its margin. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "iopolicy_cost.h"

static const struct ioc_params P = {.horizon = 18, .margin = 0.1, .min_gain = 0.05, .grant = 0};

/* two identical jobs in step (bench case C): 0.4 s phases every 6 s */
static void test_same_period(void **state)
{
    (void)state;
    struct ioc_job j[2] = {{0, 5.6, 0.4, 1, 0, 0}, {0, 5.6, 0.4, 1, 0, 0}};
    /* shared: every phase of both takes 0.8 s, they stay in step: phases at 0, 6.4, 12.8 */
    assert_float_equal(ioc_simulate(j, 2, 0, &P), 6 * 0.8, 1e-6);
    /* exclusive: the first collision costs the second job a 0.4 s wait; after it the phases
     * no longer meet (0, 6.0, 12.0 and 0.4, 6.4, 12.8) */
    assert_float_equal(ioc_simulate(j, 2, 1, &P), 6 * 0.4 + 0.4, 1e-6);
    struct ioc_choice c;
    ioc_choose(j, 2, NULL, NULL, -1, &P, &c);
    assert_int_equal(c.mode, IOC_EXCLUSIVE);
    assert_false(c.valid[IOC_SHIFT]);
    assert_non_null(strstr(c.why, "none 4.80 s"));
    assert_non_null(strstr(c.why, "exclusive 2.80 s"));
}

/* exclusive I/O where the holder keeps the token 1 s after its phase (its phase gap):
 * the first collision costs the second job 1.4 s of waiting */
static void test_token_tail(void **state)
{
    (void)state;
    struct ioc_job j[2] = {{0, 5.6, 0.4, 1, 1.0, 0}, {0, 5.6, 0.4, 1, 1.0, 0}};
    /* A: 0, 6.0, 12.0; B: 0 (starts at 1.4, ends 1.8), 7.4, 13.4 (each just as the token is free) */
    assert_float_equal(ioc_simulate(j, 2, 1, &P), 3 * 0.4 + 1.8 + 2 * 0.4, 1e-6);
    assert_float_equal(ioc_simulate(j, 2, 0, &P), 6 * 0.8, 1e-6); /* no token, no tail */
    /* shorter periods: the tail makes every collision cost more than sharing */
    struct ioc_params p = P;
    p.horizon = 1;
    struct ioc_job k[2] = {{0, 5.6, 0.4, 1, 1.0, 0}, {0.1, 5.6, 0.4, 1, 1.0, 0}};
    assert_float_equal(ioc_simulate(k, 2, 0, &p), 0.7 + 0.7, 1e-6);
    assert_float_equal(ioc_simulate(k, 2, 1, &p), 0.4 + 1.7, 1e-6);
    struct ioc_choice c;
    ioc_choose(k, 2, NULL, NULL, -1, &p, &c);
    assert_int_equal(c.mode, IOC_NONE);
}

/* a phase shift removes that first collision, but only pays when its resizes cost less
 * than the 0.4 s wait it saves */
static void test_shift_pays_or_not(void **state)
{
    (void)state;
    struct ioc_job j[2] = {{0.5, 5.6, 0.4, 1, 0, 0}, {0.5, 5.6, 0.4, 1, 0, 0}};
    struct ioc_alt sh = {.job = 0, .shift = 0.5, .cost = 0.02};
    struct ioc_choice c;
    ioc_choose(j, 2, &sh, NULL, -1, &P, &c);
    assert_float_equal(c.t[IOC_SHIFT], 6 * 0.4 + 0.02, 1e-6);
    assert_int_equal(c.mode, IOC_SHIFT);
    sh.cost = 1.0; /* two resizes of 0.5 s: more than the wait saved */
    ioc_choose(j, 2, &sh, NULL, -1, &P, &c);
    assert_int_equal(c.mode, IOC_EXCLUSIVE);
    sh.cost = 0.3; /* gains 0.1 s of 2.8: under the 10 % margin */
    ioc_choose(j, 2, &sh, NULL, -1, &P, &c);
    assert_int_equal(c.mode, IOC_EXCLUSIVE);
}

/* phases that use little of the device's bandwidth do not slow each other down:
 * serialising them only adds waits */
static void test_small_shares_no_coordination(void **state)
{
    (void)state;
    struct ioc_job j[2] = {{0, 5.6, 0.4, 0.4, 0, 0}, {0, 5.6, 0.4, 0.4, 0, 0}};
    assert_float_equal(ioc_simulate(j, 2, 0, &P), 6 * 0.4, 1e-6);
    assert_float_equal(ioc_simulate(j, 2, 1, &P), 6 * 0.4 + 0.4, 1e-6);
    struct ioc_choice c;
    ioc_choose(j, 2, NULL, NULL, -1, &P, &c);
    assert_int_equal(c.mode, IOC_NONE);
    assert_non_null(strstr(c.why, "no mode gains"));
    ioc_choose(j, 2, NULL, NULL, IOC_EXCLUSIVE, &P, &c); /* hysteresis: 0.4 s of 2.8 gains the margin */
    assert_int_equal(c.mode, IOC_NONE);
}

/* hysteresis: the current mode stays unless another beats it by the margin */
static void test_hysteresis(void **state)
{
    (void)state;
    struct ioc_params p = P;
    p.horizon = 1;
    /* exclusive 0.4 + (0.3 wait + 0.01 handover + 0.4) vs shared 0.7 + 0.7 (start 0.1 apart): */
    struct ioc_job j[2] = {{0, 20, 0.4, 1, 0, 0}, {0.1, 20, 0.4, 1, 0, 0}};
    p.grant = 0.01;
    struct ioc_choice c;
    ioc_choose(j, 2, NULL, NULL, -1, &p, &c);
    assert_float_equal(c.t[IOC_NONE], 1.4, 1e-6);
    assert_float_equal(c.t[IOC_EXCLUSIVE], 0.4 + 0.71, 1e-6);
    assert_int_equal(c.mode, IOC_EXCLUSIVE);
    p.margin = 0.25; /* a gain of 19 %: not enough to leave none, not enough to leave exclusive either */
    ioc_choose(j, 2, NULL, NULL, IOC_NONE, &p, &c);
    assert_int_equal(c.mode, IOC_NONE);
    ioc_choose(j, 2, NULL, NULL, IOC_EXCLUSIVE, &p, &c);
    assert_int_equal(c.mode, IOC_EXCLUSIVE);
    assert_non_null(strstr(c.why, "kept"));
}

/* a long phase holding the token makes a short one wait for all of it: worse than sharing */
static void test_long_blocks_short(void **state)
{
    (void)state;
    struct ioc_params p = P;
    p.horizon = 1;
    struct ioc_job j[2] = {{0, 100, 4, 1, 0, 0}, {0.1, 100, 0.4, 1, 0, 0}};
    /* shared: the short one ends at 0.1 + 0.8, the long one at 4.4 */
    assert_float_equal(ioc_simulate(j, 2, 0, &p), 0.8 + 4.4, 1e-6);
    /* exclusive: the short one waits 3.9 s */
    assert_float_equal(ioc_simulate(j, 2, 1, &p), 4 + 4.3, 1e-6);
    struct ioc_choice c;
    ioc_choose(j, 2, NULL, NULL, -1, &p, &c);
    assert_int_equal(c.mode, IOC_NONE);
}

/* three jobs in step: shared, each phase takes 3 times as long; exclusive 1, 2, 3 times once */
static void test_three_jobs(void **state)
{
    (void)state;
    struct ioc_params p = P;
    p.horizon = 1;
    struct ioc_job j[3] = {{0, 20, 0.4, 1, 0, 0}, {0, 20, 0.4, 1, 0, 0}, {0, 20, 0.4, 1, 0, 0}};
    assert_float_equal(ioc_simulate(j, 3, 0, &p), 3 * 1.2, 1e-6);
    assert_float_equal(ioc_simulate(j, 3, 1, &p), 0.4 + 0.8 + 1.2, 1e-6);
    p.grant = 0.01; /* a handover's round trip lengthens each phase that waited */
    assert_float_equal(ioc_simulate(j, 3, 1, &p), 0.4 + 0.81 + 1.22, 1e-6);
}

/* a phase that a wait or sharing pushes past the horizon still counts: both modes count the
 * same phases (those that would start before the horizon undisturbed) */
static void test_same_phases_counted(void **state)
{
    (void)state;
    struct ioc_params p = P;
    p.horizon = 1.0;
    /* A: phases at 0.1 and 0.95 undisturbed; B: one phase at 0 */
    struct ioc_job j[2] = {{0.1, 0.45, 0.4, 1, 0, 0}, {0, 100, 0.4, 1, 0, 0}};
    /* shared: B ends at 0.7, A at 0.8; A's second phase comes at 1.25, alone: 0.7 + 0.7 + 0.4 */
    assert_float_equal(ioc_simulate(j, 2, 0, &p), 1.8, 1e-6);
    /* exclusive: B 0.4, A waits 0.3 and writes 0.4, its second phase at 1.25: 0.4 + 0.7 + 0.4 */
    assert_float_equal(ioc_simulate(j, 2, 1, &p), 1.5, 1e-6);
}

/* the prior: first come, first served, unless a job keeps the token or phases differ a lot */
static void test_prior(void **state)
{
    (void)state;
    char why[256] = "";
    int id[3] = {1, 2, 3};
    /* checkpoints of 0.4 s given back at their close (no tail; 0 also when not known yet) */
    double len[3] = {0.4, 0.41, 0.5}, tail[3] = {0, 0.001, 0};
    assert_int_equal(ioc_prior_holds(id, len, tail, 3, why, sizeof why), 1);
    assert_int_equal(ioc_prior_holds(id, len, tail, 0, why, sizeof why), 1);
    /* job 2 keeps its file open: the token comes back a 1 s phase gap after the phase */
    tail[1] = 1.0;
    assert_int_equal(ioc_prior_holds(id, len, tail, 3, why, sizeof why), 0);
    assert_non_null(strstr(why, "job 2 kept the I/O token 1.00 s after a 0.41 s phase"));
    /* the tail allowance: 25 % of the phase + 50 ms */
    tail[1] = 0.41 * 0.25 + 0.049;
    assert_int_equal(ioc_prior_holds(id, len, tail, 3, why, sizeof why), 1);
    /* one phase more than twice another: serialising the short behind it may lose */
    len[2] = 0.9;
    assert_int_equal(ioc_prior_holds(id, len, tail, 3, why, sizeof why), 0);
    assert_non_null(strstr(why, "phases of 0.40 and 0.90 s"));
    /* ... but not for phases of a few ms (at most that much to lose per collision) */
    double small[2] = {0.002, 0.07}, none[2] = {0, 0};
    assert_int_equal(ioc_prior_holds(id, small, none, 2, why, sizeof why), 1);
}

/* Period Coupling: periods 3.4 and 6.4 s (bench case D) */
static void test_coupling(void **state)
{
    (void)state;
    struct ioc_params p = P;
    p.horizon = 30;
    struct ioc_job j[2] = {{0, 3.0, 0.4, 1, 0, 0}, {0, 6.0, 0.4, 1, 0, 0}};
    double ex = ioc_simulate(j, 2, 1, &p);
    assert_true(ex > 0);
    /* the job with the longer period sped up to a multiple: pays only if cheap */
    struct ioc_alt cp = {.job = 1, .compute = 2 * 3.4 - 0.4, .cost = 50};
    struct ioc_choice c;
    ioc_choose(j, 2, NULL, &cp, -1, &p, &c);
    assert_true(c.valid[IOC_COUPLE]);
    assert_true(c.t[IOC_COUPLE] > 50);
    assert_int_not_equal(c.mode, IOC_COUPLE);
    assert_non_null(strstr(c.why, "period-coupling"));
}

static void test_alone(void **state)
{
    (void)state;
    double os[2] = {0.5, 10}, oe[2] = {1.5, 11};
    /* [0, 0.5) alone, [0.5, 1) shared with one other */
    assert_float_equal(ioc_alone(0, 1, os, oe, 2), 0.75, 1e-9);
    assert_float_equal(ioc_alone(0, 1, os, oe, 0), 1, 1e-9);
    double os3[2] = {0, 0}, oe3[2] = {2, 2}; /* two others all the time */
    assert_float_equal(ioc_alone(0, 1.2, os3, oe3, 2), 0.4, 1e-9);
    assert_float_equal(ioc_alone(1, 1, os, oe, 2), 0, 1e-9);
}

/* the jobs' ends (from maxiter): with the token tail, serialising pays over three phases each
 * (test_token_tail) but not over the one phase each has left */
static void test_job_end(void **state)
{
    (void)state;
    struct ioc_job j[2] = {{0, 5.6, 0.4, 1, 1.0, 1.0}, {0, 5.6, 0.4, 1, 1.0, 1.0}};
    assert_float_equal(ioc_simulate(j, 2, 0, &P), 2 * 0.8, 1e-6); /* one phase each, shared */
    assert_float_equal(ioc_simulate(j, 2, 1, &P), 0.4 + 1.8, 1e-6); /* B waits for A and its tail */
    struct ioc_choice c;
    ioc_choose(j, 2, NULL, NULL, -1, &P, &c);
    assert_int_equal(c.mode, IOC_NONE);
    /* one job ends after its next phase, the other runs on: only their first phases meet */
    j[1].end = 0;
    assert_float_equal(ioc_simulate(j, 2, 0, &P), 0.8 + 0.8 + 2 * 0.4, 1e-6);
    /* ends before the horizon (18) but after each job's third phase: as test_token_tail */
    j[0].end = j[1].end = 14;
    assert_float_equal(ioc_simulate(j, 2, 1, &P), 3 * 0.4 + 1.8 + 2 * 0.4, 1e-6);
    ioc_choose(j, 2, NULL, NULL, -1, &P, &c);
    assert_int_equal(c.mode, IOC_EXCLUSIVE);
}

static void test_bad_input(void **state)
{
    (void)state;
    struct ioc_job j[1] = {{0, 1, 0, 1, 0, 0}};
    assert_true(ioc_simulate(j, 1, 0, &P) < 0); /* zero length */
    j[0].length = 1;
    j[0].share = 2;
    assert_true(ioc_simulate(j, 1, 0, &P) < 0);
    j[0].share = NAN;
    assert_true(ioc_simulate(j, 1, 0, &P) < 0);
    j[0].share = 1;
    j[0].tail = -1;
    assert_true(ioc_simulate(j, 1, 1, &P) < 0);
    j[0].tail = 0;
    assert_float_equal(ioc_simulate(j, 0, 0, &P), 0, 1e-9);
    struct ioc_choice c;
    j[0].next = -1;
    ioc_choose(j, 1, NULL, NULL, -1, &P, &c);
    assert_int_equal(c.mode, IOC_NONE);
    assert_false(c.valid[IOC_NONE]);
    assert_string_equal(ioc_mode_name(IOC_COUPLE), "period-coupling");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_period),     cmocka_unit_test(test_shift_pays_or_not),
        cmocka_unit_test(test_small_shares_no_coordination), cmocka_unit_test(test_long_blocks_short),
        cmocka_unit_test(test_three_jobs),
        cmocka_unit_test(test_prior),
        cmocka_unit_test(test_same_phases_counted),      cmocka_unit_test(test_coupling),
        cmocka_unit_test(test_alone),           cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_token_tail),      cmocka_unit_test(test_hysteresis),
        cmocka_unit_test(test_job_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
