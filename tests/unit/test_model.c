/* test_model.c -- CMocka unit tests for ductiled's per-job performance model
 * (src/daemon/model.c): measured times per size, the fallbacks with one and
 * two sizes, the least-squares a + b/p + c log2 p fit, efficiency, remaining
 * work, Eq. 2 and the gain of a resize. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"

/* n samples of `it` iterations at p processes of a job with t(p) = a + b/p + c log2 p */
static void feed(struct model *m, int p, double a, double b, double c, int n)
{
    double t = a + b / p + c * log2((double)p);
    for (int k = 0; k < n; k++) model_add(m, p, 10, 10 * t, 10 * b / p, 10 * (a + c * log2((double)p)), 0);
}

static void test_empty(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    assert_int_equal(model_fit(&m), MODEL_NONE);
    assert_true(model_time(&m, 4) < 0);
    assert_true(model_efficiency(&m, 4) < 0);
    assert_true(model_remaining(&m) < 0);
    assert_int_equal(model_confidence(&m), 0);
}

static void test_first_sample_after_resize_skipped(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_add(&m, 2, 10, 100, 90, 10, 0); /* first at 2: skipped */
    assert_int_equal(model_confidence(&m), 0);
    model_add(&m, 2, 10, 10, 9, 1, 0);
    assert_int_equal(model_confidence(&m), 1);
    assert_float_equal(model_time(&m, 2), 1.0, 1e-12);
    model_add(&m, 4, 10, 1000, 0, 0, 0); /* mixes sizes: skipped */
    assert_int_equal(model_confidence(&m), 1);
}

/* iterations of 0.5 s sampled every 0.25 s: samples with no finished iteration are carried over */
static void test_long_iterations(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_add(&m, 1, 0, 0.25, 0.25, 0, 0); /* first at this size: skipped */
    for (int k = 0; k < 8; k++) {
        model_add(&m, 1, 0, 0.25, 0.25, 0, 0);
        model_add(&m, 1, 1, 0.25, 0.25, 0, 0);
    }
    assert_float_equal(model_time(&m, 1), 0.5, 1e-12);
}

/* one size: compute scales, communication and I/O do not */
static void test_split_fallback(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_add(&m, 2, 10, 10, 6, 3, 1);
    model_add(&m, 2, 10, 10, 6, 3, 1);
    assert_int_equal(m.kind, MODEL_SPLIT);
    assert_float_equal(model_time(&m, 2), 1.0, 1e-12);
    assert_float_equal(model_time(&m, 4), 0.4 + 0.6 * 2 / 4, 1e-12);
    assert_float_equal(model_time(&m, 1), 0.4 + 1.2, 1e-12);
    assert_float_equal(model_io_ratio(&m, 4), 0.1, 1e-12);
}

static void test_amdahl_two_sizes(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    feed(&m, 2, 0.1, 2.0, 0, 3);
    feed(&m, 4, 0.1, 2.0, 0, 3);
    assert_int_equal(m.kind, MODEL_AMDAHL);
    assert_float_equal(m.a, 0.1, 1e-9);
    assert_float_equal(m.b, 2.0, 1e-9);
    assert_float_equal(model_time(&m, 8), 0.1 + 0.25, 1e-9);
    assert_float_equal(model_efficiency(&m, 8), 2.1 / (8 * 0.35), 1e-9);
    assert_int_equal(model_confidence(&m), 2);
}

/* super-linear measurements (a < 0): the serial part is dropped, not negative */
static void test_amdahl_no_negative_serial(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_add(&m, 2, 1, 1, 1, 0, 0);
    model_add(&m, 2, 10, 10, 10, 0, 0);
    model_add(&m, 4, 1, 1, 1, 0, 0);
    model_add(&m, 4, 10, 4, 4, 0, 0);
    assert_int_equal(m.kind, MODEL_AMDAHL);
    assert_true(m.a >= 0);
    assert_true(model_time(&m, 64) > 0);
}

static void test_log_fit_recovers(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    int ps[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++) feed(&m, ps[i], 0.05, 1.0, 0.02, 3);
    assert_int_equal(m.kind, MODEL_LOG);
    assert_float_equal(m.a, 0.05, 1e-9);
    assert_float_equal(m.b, 1.0, 1e-9);
    assert_float_equal(m.c, 0.02, 1e-9);
    /* unseen size: the model; seen size: the measurement */
    assert_float_equal(model_time(&m, 16), 0.05 + 1.0 / 16 + 0.02 * 4, 1e-9);
    assert_false(model_measured(&m, 16));
    assert_true(model_measured(&m, 8));
    /* communication-bound: efficiency falls with size */
    assert_true(model_efficiency(&m, 16) < model_efficiency(&m, 4));
    assert_true(model_efficiency(&m, 1) > 0.999);
}

/* a c < 0 fit is not physical: falls back to a + b/p */
static void test_log_fit_fallback(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    feed(&m, 1, 0, 1.0, 0, 3);
    feed(&m, 2, 0, 0.45, 0, 3);
    feed(&m, 4, 0, 0.2, 0, 3);
    assert_int_equal(m.kind, MODEL_AMDAHL);
}

static void test_remaining_and_gain(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    feed(&m, 2, 0, 2.0, 0, 3); /* 1 s at 2, 0.5 s at 4 (split model) */
    model_progress(&m, 40, 100);
    assert_float_equal(model_remaining(&m), 60, 1e-12);
    model_progress(&m, 120, 0); /* maxiter kept, past the end: none left */
    assert_float_equal(model_remaining(&m), 0, 1e-12);
    model_progress(&m, 40, 0);
    assert_float_equal(model_gain(&m, 2, 4, 60, 5), 60 * 0.5 - 5, 1e-9);
    assert_true(model_gain(&m, 4, 2, 60, 5) < 0);
    /* Eq. 2: 100 s to go, 50 s to gain: speedup 2; 200 s: 1.33 (the seed's example) */
    assert_float_equal(model_eq2_speedup(100, 50), 2.0, 1e-12);
    assert_float_equal(model_eq2_speedup(200, 50), 200.0 / 150.0, 1e-12);
    assert_true(isinf(model_eq2_speedup(10, 10)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_first_sample_after_resize_skipped),
        cmocka_unit_test(test_long_iterations),
        cmocka_unit_test(test_split_fallback),
        cmocka_unit_test(test_amdahl_two_sizes),
        cmocka_unit_test(test_amdahl_no_negative_serial),
        cmocka_unit_test(test_log_fit_recovers),
        cmocka_unit_test(test_log_fit_fallback),
        cmocka_unit_test(test_remaining_and_gain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
