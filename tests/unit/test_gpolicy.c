/* test_gpolicy.c -- CMocka unit tests for ductiled's global policies
 * (src/daemon/policy.c) on synthetic job models: fair sharing, efficiency
 * threshold and band, throughput, io weighting, the Eq. 2 cost check,
 * hysteresis (cooldown, in-flight resizes), slots for a waiting job, and a
 * randomised check that no decision leaves --min/--max or the free slots;
 * size constraints (DUCTILE_SIZES): only counts the job can use. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy.h"

#define NOW 1000.0

static struct model models[16];

/* model k: t(p) = a + b/p (+ io seconds of I/O per iteration), measured at p0 and 2 p0 */
static const struct model *mk(int k, double a, double b, double io, int p0, long long iter, long long maxiter)
{
    struct model *m = &models[k];
    model_init(m);
    for (int s = 1; s <= 2; s++) {
        int p = p0 * s;
        double t = a + b / p + io;
        for (int n = 0; n < 3; n++) model_add(m, p, 10, 10 * t, 10 * b / p, 10 * a, 10 * io);
    }
    model_progress(m, iter, maxiter);
    return m;
}

static struct pol_job job(int id, int procs, int min, int max, const struct model *m)
{
    struct pol_job j = {.id = id, .procs = procs, .min = min, .max = max, .malleable = 1, .busy = 0,
                        .last_resize = 0, .cost_s = 0.5, .m = m};
    return j;
}

static struct pol_params prm(void)
{
    struct pol_params p;
    policy_defaults(&p);
    return p;
}

static int decide(int flags, struct pol_job *jobs, int n, int free_slots, int reserve, struct pol_decision *d)
{
    struct pol_params p = prm();
    struct pol_snapshot s = {.jobs = jobs, .n = n, .free = free_slots, .reserve = reserve, .now = NOW};
    return policy_decide(flags, &p, &s, d, 32);
}

static const struct pol_decision *for_job(const struct pol_decision *d, int n, int id)
{
    for (int i = 0; i < n; i++)
        if (d[i].job == id) return &d[i];
    return NULL;
}

static void test_parse(void **state)
{
    (void)state;
    int f;
    char err[200];
    assert_int_equal(policy_parse("fair", &f, err, sizeof err), 0);
    assert_int_equal(f, POL_FAIR);
    assert_int_equal(policy_parse("efficiency,io", &f, err, sizeof err), 0);
    assert_int_equal(f, POL_EFFICIENCY | POL_IO);
    assert_string_equal(policy_name(f), "efficiency+io");
    assert_int_equal(policy_parse("throughput+io", &f, err, sizeof err), 0);
    assert_int_equal(policy_parse("io", &f, err, sizeof err), 0);
    assert_string_equal(policy_name(f), "io");
    assert_int_equal(policy_parse("fair,efficiency", &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "exclude"));
    assert_int_equal(policy_parse("speedy", &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "speedy"));
    assert_int_equal(policy_parse("", &f, err, sizeof err), -1);
}

static void test_fair_shares_evenly(void **state)
{
    (void)state;
    struct pol_job j[2] = {job(1, 2, 1, 16, mk(0, 0.01, 2, 0, 2, 0, 1000)), job(2, 2, 1, 16, mk(1, 0.5, 2, 0, 2, 0, 1000))};
    struct pol_decision d[32];
    int n = decide(POL_FAIR, j, 2, 4, 0, d);
    assert_int_equal(n, 2);
    assert_int_equal(for_job(d, n, 1)->to, 4);
    assert_int_equal(for_job(d, n, 2)->to, 4);
    assert_non_null(strstr(d[0].reason, "fair"));
    assert_non_null(strstr(d[0].reason, "Eq. 2"));
}

static void test_fair_respects_max(void **state)
{
    (void)state;
    struct pol_job j[2] = {job(1, 2, 1, 3, mk(0, 0.01, 2, 0, 2, 0, 1000)), job(2, 2, 1, 16, mk(1, 0.01, 2, 0, 2, 0, 1000))};
    struct pol_decision d[32];
    int n = decide(POL_FAIR, j, 2, 4, 0, d);
    assert_int_equal(for_job(d, n, 1)->to, 3);
    assert_int_equal(for_job(d, n, 2)->to, 5);
}

/* a waiting job needs 2 slots: the malleable jobs give them, never below --min */
static void test_reserve_for_waiting_job(void **state)
{
    (void)state;
    struct pol_job j[2] = {job(1, 4, 4, 8, mk(0, 0.01, 2, 0, 2, 0, 1000)), job(2, 4, 1, 8, mk(1, 0.01, 2, 0, 2, 0, 1000))};
    struct pol_decision d[32];
    int n = decide(POL_FAIR, j, 2, 0, 2, d);
    assert_int_equal(n, 1);
    assert_int_equal(d[0].job, 2);
    assert_int_equal(d[0].to, 2);
    assert_non_null(strstr(d[0].reason, "waiting job"));
    /* a waiting job that could not start even then: nobody shrinks */
    n = decide(POL_FAIR, j, 2, 0, 9, d);
    assert_int_equal(n, 0);
}

static void test_efficiency_threshold(void **state)
{
    (void)state;
    /* job 1 scales well; job 2 is communication-bound (1.2 s serial per iteration: t(1) = 3.2, E(3) = 0.57) */
    struct pol_job j[2] = {job(1, 2, 1, 16, mk(0, 0.01, 4, 0, 2, 0, 1000)), job(2, 2, 1, 16, mk(1, 1.2, 2, 0, 2, 0, 1000))};
    struct pol_decision d[32];
    int n = decide(POL_EFFICIENCY, j, 2, 8, 0, d);
    const struct pol_decision *a = for_job(d, n, 1), *b = for_job(d, n, 2);
    assert_non_null(a);
    assert_true(a->to > 2);
    assert_true(a->eff_to >= 0.6);
    assert_true(!b || b->to <= 2);
    /* job 2 at 8 processes: E = 3.2/(8*1.45) = 0.28 < 0.5: shrinks (to 3), though nobody needs the slots */
    j[1].procs = 8;
    n = decide(POL_EFFICIENCY, j, 2, 0, 0, d);
    b = for_job(d, n, 2);
    assert_non_null(b);
    assert_int_equal(b->to, 3);
    assert_non_null(strstr(b->reason, "below"));
}

/* band: a job at a size whose efficiency is between threshold - band and the threshold keeps it */
static void test_efficiency_band(void **state)
{
    (void)state;
    /* t(p) = 0.3 + 2/p: t(1) = 2.3; E(4) = 2.3 / (4 * 0.8) = 0.72, E(5) = 2.3/(5*0.7) = 0.657, E(6) = 0.61, E(7) = 0.57 */
    struct pol_job j[1] = {job(1, 7, 1, 16, mk(0, 0.3, 2, 0, 2, 0, 100000))};
    struct pol_decision d[32];
    int n = decide(POL_EFFICIENCY, j, 1, 0, 0, d);
    assert_int_equal(n, 0); /* 0.57 >= 0.5: stays at 7 */
    j[0].procs = 4;
    n = decide(POL_EFFICIENCY, j, 1, 10, 0, d);
    assert_int_equal(n, 1);
    assert_int_equal(d[0].to, 6); /* grows while E(next) >= 0.6: not to 7 */
}

static void test_throughput_prefers_scalable(void **state)
{
    (void)state;
    struct pol_job j[2] = {job(1, 2, 1, 16, mk(0, 0.01, 4, 0, 2, 0, 1000)), job(2, 2, 1, 16, mk(1, 2.0, 0.5, 0, 2, 0, 1000))};
    struct pol_decision d[32];
    int n = decide(POL_THROUGHPUT, j, 2, 4, 0, d);
    const struct pol_decision *a = for_job(d, n, 1), *b = for_job(d, n, 2);
    assert_non_null(a);
    assert_true(a->to >= 5);
    assert_true(!b || b->to - 2 < a->to - 2);
}

/* io: two identical scalers, one with much I/O: the slots go to the other (Algorithm 6) */
static void test_io_prefers_less_io(void **state)
{
    (void)state;
    struct pol_job j[2] = {job(1, 2, 1, 3, mk(0, 0.01, 2, 0.0, 2, 0, 1000)), job(2, 2, 1, 3, mk(1, 0.01, 2, 1.0, 2, 0, 1000))};
    struct pol_decision d[32];
    int n = decide(POL_THROUGHPUT | POL_IO, j, 2, 1, 0, d);
    assert_int_equal(n, 1);
    assert_int_equal(d[0].job, 1);
}

/* Eq. 2: a resize that costs more than it saves over the remaining iterations is not made */
static void test_cost_versus_gain(void **state)
{
    (void)state;
    struct pol_job j[1] = {job(1, 2, 1, 16, mk(0, 0.0, 2, 0, 2, 990, 1000))}; /* 10 iterations of 1 s left at 2 */
    struct pol_decision d[32];
    j[0].cost_s = 8; /* 4 processes would save 5 s */
    assert_int_equal(decide(POL_FAIR, j, 1, 2, 0, d), 0);
    j[0].cost_s = 1;
    assert_int_equal(decide(POL_FAIR, j, 1, 2, 0, d), 1);
    assert_int_equal(d[0].to, 4);
    assert_float_equal(d[0].gain_s, 10 * 0.5 - 1, 1e-9);
    /* finished: nothing left to gain */
    model_progress(&models[0], 1000, 1000);
    assert_int_equal(decide(POL_FAIR, j, 1, 2, 0, d), 0);
}

static void test_hysteresis(void **state)
{
    (void)state;
    struct pol_job j[1] = {job(1, 2, 1, 16, mk(0, 0.01, 2, 0, 2, 0, 1000))};
    struct pol_decision d[32];
    j[0].last_resize = NOW - 1; /* cooldown */
    assert_int_equal(decide(POL_FAIR, j, 1, 2, 0, d), 0);
    j[0].last_resize = 0;
    j[0].busy = 1;
    assert_int_equal(decide(POL_FAIR, j, 1, 2, 0, d), 0);
    j[0].busy = 0;
    j[0].malleable = 0;
    assert_int_equal(decide(POL_FAIR, j, 1, 2, 0, d), 0);
    /* no model yet: no decision */
    struct model empty;
    model_init(&empty);
    j[0].malleable = 1;
    j[0].m = &empty;
    assert_int_equal(decide(POL_FAIR, j, 1, 2, 0, d), 0);
}

static void test_above_max_shrinks(void **state)
{
    (void)state;
    struct pol_job j[1] = {job(1, 6, 1, 4, mk(0, 0.01, 2, 0, 2, 0, 1000))};
    struct pol_decision d[32];
    int n = decide(POL_THROUGHPUT, j, 1, 0, 0, d);
    assert_int_equal(n, 1);
    assert_int_equal(d[0].to, 4);
    assert_non_null(strstr(d[0].reason, "--max"));
}

/* randomised: whatever the jobs, no decision leaves [min, max] and the expansions fit the free slots */
static void test_random_bounds(void **state)
{
    (void)state;
    static const int kinds[] = {POL_FAIR, POL_EFFICIENCY, POL_THROUGHPUT, POL_IO, POL_FAIR | POL_IO, POL_EFFICIENCY | POL_IO};
    srand(16);
    for (int round = 0; round < 2000; round++) {
        int n = 1 + rand() % 6, free_slots = rand() % 12, reserve = rand() % 4;
        struct pol_job j[6];
        for (int i = 0; i < n; i++) {
            int min = 1 + rand() % 3, max = min + rand() % 8;
            int procs = min + rand() % (max - min + 1);
            j[i] = job(i + 1, procs, min, max, mk(i, (rand() % 100) / 100.0, 0.1 + (rand() % 100) / 10.0,
                                                  (rand() % 3) / 10.0, 1 + rand() % 3, rand() % 500, 500 + rand() % 500));
            j[i].cost_s = (rand() % 100) / 20.0;
            j[i].malleable = rand() % 8 != 0;
        }
        struct pol_params p = prm();
        p.threshold = 0.3 + (rand() % 60) / 100.0;
        struct pol_snapshot s = {.jobs = j, .n = n, .free = free_slots, .reserve = reserve, .now = NOW};
        struct pol_decision d[32];
        int nd = policy_decide(kinds[round % 6], &p, &s, d, 32);
        int grown = 0;
        for (int k = 0; k < nd; k++) {
            const struct pol_job *x = NULL;
            for (int i = 0; i < n; i++)
                if (j[i].id == d[k].job) x = &j[i];
            assert_non_null(x);
            assert_true(x->malleable);
            assert_int_equal(d[k].from, x->procs);
            assert_true(d[k].to != x->procs);
            assert_true(d[k].to >= x->min);
            assert_true(d[k].to <= x->max);
            assert_true(d[k].reason[0] != '\0');
            if (d[k].to > x->procs) grown += d[k].to - x->procs;
        }
        assert_true(grown <= free_slots);
    }
}

/* size constraints (DUCTILE_SIZES): a policy asks only for counts the job can use */
static void test_sizes_respected(void **state)
{
    (void)state;
    struct ductile_sizes sz = {0};
    char why[400];
    assert_int_equal(sizes_parse("allowed=squares|multiples:3", &sz, why, sizeof why), 0);
    struct pol_job j[1] = {job(1, 4, 1, 16, mk(0, 0.01, 2, 0, 2, 0, 1000))};
    j[0].sizes = &sz;
    struct pol_decision d[32];
    int n = decide(POL_FAIR, j, 1, 4, 0, d); /* 8 slots: 8 is neither, 6 is */
    assert_int_equal(n, 1);
    assert_int_equal(d[0].to, 6);
    n = decide(POL_FAIR, j, 1, 1, 0, d); /* 5 slots: none between 4 and 5 */
    assert_int_equal(n, 0);
    struct pol_job k[1] = {job(1, 10, 1, 7, mk(0, 0.01, 2, 0, 2, 0, 1000))}; /* above --max: down to 6, not 7 */
    k[0].sizes = &sz;
    n = decide(POL_FAIR, k, 1, 0, 0, d);
    assert_int_equal(n, 1);
    assert_int_equal(d[0].to, 6);
}

static void test_random_sizes(void **state)
{
    (void)state;
    static const char *specs[] = {"allowed=squares|multiples:3", "allowed=pow2", "step=2", "allowed=2|5|7", "min=2,step=3"};
    struct ductile_sizes sz[5];
    char why[400];
    for (int i = 0; i < 5; i++) {
        memset(&sz[i], 0, sizeof sz[i]);
        assert_int_equal(sizes_parse(specs[i], &sz[i], why, sizeof why), 0);
    }
    static const int kinds[] = {POL_FAIR, POL_EFFICIENCY, POL_THROUGHPUT, POL_IO, POL_FAIR | POL_IO, POL_EFFICIENCY | POL_IO};
    srand(26);
    int proposed = 0;
    for (int round = 0; round < 2000; round++) {
        int n = 1 + rand() % 6, free_slots = rand() % 12, reserve = rand() % 4;
        struct pol_job j[6];
        for (int i = 0; i < n; i++) {
            int min = 1 + rand() % 3, max = min + rand() % 8;
            int procs = min + rand() % (max - min + 1);
            j[i] = job(i + 1, procs, min, max, mk(i, (rand() % 100) / 100.0, 0.1 + (rand() % 100) / 10.0,
                                                  (rand() % 3) / 10.0, 1 + rand() % 3, rand() % 500, 500 + rand() % 500));
            j[i].cost_s = (rand() % 100) / 20.0;
            j[i].sizes = rand() % 4 ? &sz[rand() % 5] : NULL;
        }
        struct pol_params p = prm();
        struct pol_snapshot s = {.jobs = j, .n = n, .free = free_slots, .reserve = reserve, .now = NOW};
        struct pol_decision d[32];
        int nd = policy_decide(kinds[round % 6], &p, &s, d, 32);
        int grown = 0;
        for (int k = 0; k < nd; k++) {
            const struct pol_job *x = &j[d[k].job - 1];
            assert_true(d[k].to >= x->min && d[k].to <= x->max);
            if (x->sizes && !sizes_allows(x->sizes, d[k].to, why, sizeof why))
                fail_msg("job %d: %d -> %d proposed: %s", x->id, x->procs, d[k].to, why);
            if (d[k].to > x->procs) grown += d[k].to - x->procs;
            proposed += x->sizes != NULL;
        }
        assert_true(grown <= free_slots);
    }
    assert_true(proposed > 100); /* the constrained jobs were resized too */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_fair_shares_evenly),
        cmocka_unit_test(test_fair_respects_max),
        cmocka_unit_test(test_reserve_for_waiting_job),
        cmocka_unit_test(test_efficiency_threshold),
        cmocka_unit_test(test_efficiency_band),
        cmocka_unit_test(test_throughput_prefers_scalable),
        cmocka_unit_test(test_io_prefers_less_io),
        cmocka_unit_test(test_cost_versus_gain),
        cmocka_unit_test(test_hysteresis),
        cmocka_unit_test(test_above_max_shrinks),
        cmocka_unit_test(test_random_bounds),
        cmocka_unit_test(test_sizes_respected),
        cmocka_unit_test(test_random_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
