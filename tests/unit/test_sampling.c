/* test_sampling.c -- CMocka unit tests for src/common/sampling.h, the pure
 * parts of sampled timing (DUCTILE_TIME_SAMPLE): the gap between timed calls
 * (1 .. 2N-1, N on average; every call for N = 1), the per-thread countdown
 * as the hot path runs it (1 call in N timed, and as often at every position
 * of a program whose calls repeat with a period: no aliasing), and the
 * estimate time x calls / timed calls (exact when nothing was skipped, no
 * overflow, close to the true total on a mixed workload).  Deterministic:
 * fixed seeds, bounds far from the statistical spread. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sampling.h"

static void test_gap(void **state)
{
    (void)state;
    for (uint32_t r = 0; r < 1000; r++) {
        assert_int_equal(ductile_sample_gap(r * 4294967u, 0), 1);
        assert_int_equal(ductile_sample_gap(r * 4294967u, 1), 1);
    }
    uint32_t ns[] = {2, 3, 64, 1000, 1000000};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        uint32_t n = ns[k];
        assert_int_equal(ductile_sample_gap(0, n), 1);
        assert_int_equal(ductile_sample_gap(UINT32_MAX, n), 2 * n - 1);
        uint32_t x = 12345;
        double sum = 0;
        const int draws = 200000;
        for (int i = 0; i < draws; i++) {
            uint32_t g = ductile_sample_draw(&x, 0, n);
            assert_true(g >= 1 && g <= 2 * n - 1);
            sum += g;
        }
        double mean = sum / draws;
        if (fabs(mean - n) > 0.02 * n + 0.05) fail_msg("1 in %u: mean gap %.3f", n, mean);
    }
}

/* the hot path's loop: returns how many of `calls` calls were timed; when
 * period > 0 also counts timed calls per position of the period */
static uint64_t run_calls(uint32_t n, uint64_t calls, uint32_t seed, uint32_t period, uint64_t *per_pos)
{
    uint32_t left = 0, rng = 0;
    uint64_t timed = 0;
    for (uint64_t i = 0; i < calls; i++) {
        if (ductile_sample_skip(&left)) continue;
        left = ductile_sample_draw(&rng, seed, n);
        timed++;
        if (period) per_pos[i % period]++;
    }
    return timed;
}

static void test_countdown(void **state)
{
    (void)state;
    /* N = 1: every call, and a thread's first call is timed */
    assert_int_equal(run_calls(1, 1000, 7, 0, NULL), 1000);
    assert_int_equal(run_calls(64, 1, 7, 0, NULL), 1);
    uint32_t ns[] = {2, 3, 10, 64, 1000};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        uint32_t n = ns[k];
        uint64_t calls = 2000000;
        uint64_t timed = run_calls(n, calls, 99, 0, NULL);
        double expect = (double)calls / n;
        if (fabs((double)timed - expect) > 0.03 * expect) fail_msg("1 in %u: %llu of %llu timed", n,
                                                                    (unsigned long long)timed, (unsigned long long)calls);
    }
    /* a program whose calls repeat every N (or 2N) calls: each position is timed 1 in N too */
    uint32_t periods[] = {10, 20, 7};
    for (size_t k = 0; k < sizeof periods / sizeof periods[0]; k++) {
        uint64_t per_pos[20] = {0};
        uint32_t p = periods[k];
        uint64_t calls = 2000000;
        run_calls(10, calls, 4242, p, per_pos);
        double expect = (double)calls / p / 10;
        for (uint32_t i = 0; i < p; i++)
            if (fabs((double)per_pos[i] - expect) > 0.06 * expect)
                fail_msg("period %u, position %u: timed %llu times, expected about %.0f", p, i,
                         (unsigned long long)per_pos[i], expect);
    }
}

static void test_estimate(void **state)
{
    (void)state;
    /* nothing skipped: exact, whatever the counts */
    assert_true(ductile_sample_estimate(123456789, 1000, 0) == 123456789);
    assert_true(ductile_sample_estimate(0, 0, 0) == 0);
    assert_true(ductile_sample_estimate(UINT64_MAX - 1, 3, 0) == UINT64_MAX - 1);
    /* every call skipped: no time to scale */
    assert_true(ductile_sample_estimate(0, 0, 500) == 0);
    /* ticks x (counted + skipped) / counted */
    assert_true(ductile_sample_estimate(1000, 10, 90) == 10000);
    assert_true(ductile_sample_estimate(7, 3, 1) == 9); /* 28 / 3, rounded down */
    /* no overflow in the product; a result past 64 bits saturates */
    assert_true(ductile_sample_estimate(UINT64_MAX / 2, 1000000, 1000000) == UINT64_MAX / 2 * 2);
    assert_true(ductile_sample_estimate(UINT64_MAX / 2, 1, 3) == UINT64_MAX);

    /* a mixed workload through the hot path's countdown: a period of 10 calls
     * of one function, 9 short (100 ticks) and 1 long (10,000), 1 in 10 timed:
     * the estimate lies within 3 % of the true total */
    uint32_t left = 0, rng = 0;
    uint64_t ticks = 0, counted = 0, skipped = 0, truth = 0;
    for (uint64_t i = 0; i < 1000000; i++) {
        uint64_t d = i % 10 == 9 ? 10000 : 100;
        truth += d;
        if (ductile_sample_skip(&left)) {
            skipped++;
            continue;
        }
        left = ductile_sample_draw(&rng, 31337, 10);
        counted++;
        ticks += d;
    }
    uint64_t est = ductile_sample_estimate(ticks, counted, skipped);
    assert_true(counted + skipped == 1000000);
    double rel = ((double)est - (double)truth) / (double)truth;
    if (fabs(rel) > 0.03) fail_msg("estimate %llu, truth %llu (%.1f%% off)", (unsigned long long)est,
                                   (unsigned long long)truth, 100 * rel);
}

/* The bound of a process's estimates by its run (MPI calls one at a time):
 * the report's, the controller's samples' and EMPI's (ductile_sample_clamp). */
static void test_clamp(void **state)
{
    (void)state;
    assert_true(ductile_sample_clamp(1.0, 0.2, 0.5) == 1.0);  /* fits: unchanged */
    assert_true(ductile_sample_clamp(1.0, 0.2, 0.8) == 1.0);  /* exactly fits */
    assert_true(ductile_sample_clamp(1.0, 0.0, 0.0) == 1.0);  /* nothing estimated */
    double f = ductile_sample_clamp(1.0, 0.2, 1.6);           /* 0.8 of room for 1.6 estimated */
    assert_true(fabs(f - 0.5) < 1e-12);
    assert_true(fabs(0.2 + 1.6 * f - 1.0) < 1e-12);           /* measured + scaled estimate = the interval */
    assert_true(ductile_sample_clamp(1.0, 1.5, 0.3) == 0.0);  /* the measured part alone fills it */
    assert_true(ductile_sample_clamp(0.0, 0.0, 0.3) == 0.0);  /* an empty interval */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gap),
        cmocka_unit_test(test_countdown),
        cmocka_unit_test(test_estimate),
        cmocka_unit_test(test_clamp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
