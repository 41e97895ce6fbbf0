/* test_report.c -- unit tests of the report writer (JSON and summary), CMocka. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/monitor/report_build.h"

static struct report_rank ranks[2];
static struct report_fn fns[2 * DUCTILE_FN_COUNT];
static const char *const cmd[] = {"./app", "-n", "10"};
static const double recent[] = {0.5, 0.25};
static const char *const snames[] = {"DUCTILE_MONITOR"};
static const char *const svalues[] = {"1"};

static struct report_input make_input(void)
{
    memset(ranks, 0, sizeof ranks);
    memset(fns, 0, sizeof fns);
    for (int r = 0; r < 2; r++) {
        ranks[r].rank = r;
        ranks[r].pid = 100 + r;
        snprintf(ranks[r].host, sizeof ranks[r].host, "node%d", r);
        ranks[r].wall_s = 10.0;
    }
    /* rank 0: 4 Allreduce (2 s, 32 B each way), 1 File_write_all (1 s, 1000 B) */
    fns[DUCTILE_FN_MPI_Allreduce] = (struct report_fn){4, 2.0, 32, 32};
    fns[DUCTILE_FN_MPI_File_write_all] = (struct report_fn){1, 1.0, 1000, 0};
    /* rank 1: 4 Allreduce (6 s) */
    fns[DUCTILE_FN_COUNT + DUCTILE_FN_MPI_Allreduce] = (struct report_fn){4, 6.0, 32, 32};
    struct report_input in = {
        .job = "job7", .mpi_family = "openmpi", .mpi_library = "Open MPI v4.1.4", .mpi_version = 3,
        .mpi_subversion = 1, .command = cmd, .ncommand = 3, .start_epoch = 0, .nprocs = 2, .ranks = ranks,
        .fns = fns,
        .iter = {.detected = 1, .state = "locked", .head = "MPI_Allreduce from main", .period_calls = 2,
                 .count = 2, .total_s = 0.75, .mean_s = 0.375, .min_s = 0.25, .max_s = 0.5, .recent_s = recent,
                 .nrecent = 2},
        .setting_names = snames, .setting_values = svalues, .nsettings = 1,
    };
    return in;
}

static void test_totals(void **state)
{
    (void)state;
    struct report_input in = make_input();
    struct report_rank_totals t;
    report_rank_totals(&in, 0, &t);
    assert_int_equal(t.calls, 5);
    assert_int_equal(t.bytes_sent, 1032);
    assert_int_equal(t.bytes_recv, 32);
    assert_true(t.mpi_s == 3.0);
    assert_true(t.io_s == 1.0);
    assert_true(t.comm_s == 2.0);
    assert_true(t.compute_s == 7.0);
    report_rank_totals(&in, 1, &t);
    assert_true(t.compute_s == 4.0);
}

static void test_json(void **state)
{
    (void)state;
    struct report_input in = make_input();
    json_t *j = report_build_json(&in);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "schema")), "ductile-report/1");
    assert_string_equal(json_string_value(json_object_get(j, "job")), "job7");
    assert_int_equal(json_integer_value(json_object_get(j, "nprocs")), 2);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "mpi"), "standard")), "3.1");
    assert_string_equal(json_string_value(json_array_get(json_object_get(j, "command"), 2)), "10");
    json_t *r1 = json_array_get(json_object_get(j, "ranks"), 1);
    assert_string_equal(json_string_value(json_object_get(r1, "host")), "node1");
    json_t *f = json_object_get(json_object_get(r1, "functions"), "MPI_Allreduce");
    assert_int_equal(json_integer_value(json_object_get(f, "calls")), 4);
    assert_int_equal(json_integer_value(json_object_get(f, "bytes_sent")), 32);
    assert_string_equal(json_string_value(json_object_get(f, "category")), "collective");
    /* functions never called are absent */
    assert_null(json_object_get(json_object_get(r1, "functions"), "MPI_File_write_all"));
    json_t *agg = json_object_get(json_object_get(j, "functions"), "MPI_Allreduce");
    assert_int_equal(json_integer_value(json_object_get(agg, "calls")), 8);
    assert_true(json_real_value(json_object_get(agg, "time_max_rank_s")) == 6.0);
    json_t *tot = json_object_get(j, "totals");
    assert_int_equal(json_integer_value(json_object_get(tot, "calls")), 9);
    assert_true(json_real_value(json_object_get(tot, "io_time_s")) == 1.0);
    json_t *imb = json_object_get(json_object_get(j, "imbalance"), "mpi_time");
    assert_true(json_real_value(json_object_get(imb, "max_over_mean")) == 6.0 / 4.5);
    assert_int_equal(json_integer_value(json_object_get(imb, "max_rank")), 1);
    json_t *it = json_object_get(j, "iterations");
    assert_true(json_is_true(json_object_get(it, "detected")));
    assert_int_equal(json_integer_value(json_object_get(it, "count")), 2);
    assert_int_equal(json_array_size(json_object_get(it, "recent_times_s")), 2);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "settings"), "DUCTILE_MONITOR")), "1");
    json_decref(j);
}

/* Large jobs: the figures combined by reductions alone (no per-rank tables)
 * give the same "functions", "totals" and "imbalance" as the tables. */
static void test_reduced_only(void **state)
{
    (void)state;
    struct report_input in = make_input();
    json_t *full = report_build_json(&in);
    static struct report_reduced acc, one;
    report_reduce_one(fns, ranks[0].wall_s, 0, &acc);
    report_reduce_one(fns + DUCTILE_FN_COUNT, ranks[1].wall_s, 1, &one);
    report_reduce_merge(&acc, &one);
    in.ranks = NULL;
    in.fns = NULL;
    in.reduced = &acc;
    json_t *red = report_build_json(&in);
    assert_int_equal(json_array_size(json_object_get(red, "ranks")), 0);
    assert_int_equal(json_array_size(json_object_get(full, "ranks")), 2);
    assert_true(json_equal(json_object_get(full, "functions"), json_object_get(red, "functions")));
    assert_true(json_equal(json_object_get(full, "totals"), json_object_get(red, "totals")));
    assert_true(json_equal(json_object_get(full, "imbalance"), json_object_get(red, "imbalance")));
    assert_true(json_real_value(json_object_get(red, "wall_time_s")) == 10.0);
    json_t *imb = json_object_get(json_object_get(red, "imbalance"), "mpi_time");
    assert_true(json_real_value(json_object_get(imb, "min_s")) == 3.0);
    assert_int_equal(json_integer_value(json_object_get(imb, "max_rank")), 1);
    /* the summary works from the reduced figures too */
    char buf[4096] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    report_print_summary(f, &in, "r.json");
    fclose(f);
    assert_non_null(strstr(buf, "MPI time 1.33 (rank 1)"));
    json_decref(full);
    json_decref(red);
}

static void test_summary(void **state)
{
    (void)state;
    struct report_input in = make_input();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_print_summary(f, &in, "out.json");
    fclose(f);
    assert_non_null(strstr(buf, "ductile: job job7: 2 ranks, 10.000 s, report out.json\n"));
    assert_non_null(strstr(buf, "compute 55.0%, communication 40.0%, I/O 5.0%"));
    assert_non_null(strstr(buf, "MPI time 1.33 (rank 1)"));
    /* top call first: Allreduce (8 s) before File_write_all (1 s) */
    char *a = strstr(buf, "MPI_Allreduce"), *w = strstr(buf, "MPI_File_write_all");
    assert_non_null(a);
    assert_non_null(w);
    assert_true(a < w);
    assert_non_null(strstr(buf, "main loop: 2 iterations of 2 MPI calls, 375.000 ms each"));
    free(buf);
}

/* processes that left the world: their own array, included in totals and aggregates */
static void test_departed(void **state)
{
    (void)state;
    struct report_input in = make_input();
    static struct report_departed dep[2];
    static struct report_fn depfns[2 * DUCTILE_FN_COUNT];
    memset(dep, 0, sizeof dep);
    memset(depfns, 0, sizeof depfns);
    for (int k = 0; k < 2; k++) {
        struct report_fn *fns = depfns + k * DUCTILE_FN_COUNT;
        dep[k].who.rank = 2 + k;
        dep[k].who.pid = 200 + k;
        snprintf(dep[k].who.host, sizeof dep[k].who.host, "node%d", 2 + k);
        dep[k].who.wall_s = 4.0;
        dep[k].left_at_iteration = 7;
        /* 3 Allreduce (1 s, 16 B each way), 1 Barrier */
        fns[DUCTILE_FN_MPI_Allreduce] = (struct report_fn){3, 1.0, 16, 16};
        fns[DUCTILE_FN_MPI_Barrier] = (struct report_fn){1, 0.5, 0, 0};
        report_fn_totals(fns, dep[k].who.wall_s, &dep[k].tot);
    }
    in.departed = dep;
    in.ndeparted = 2;
    in.departed_fns = depfns;
    json_t *j = report_build_json(&in);
    assert_non_null(j);
    json_t *d = json_object_get(j, "departed");
    assert_int_equal(json_array_size(d), 2);
    json_t *d1 = json_array_get(d, 1);
    assert_int_equal(json_integer_value(json_object_get(d1, "rank")), 3);
    assert_int_equal(json_integer_value(json_object_get(d1, "pid")), 201);
    assert_string_equal(json_string_value(json_object_get(d1, "host")), "node3");
    assert_int_equal(json_integer_value(json_object_get(d1, "left_at_iteration")), 7);
    assert_int_equal(json_integer_value(json_object_get(d1, "calls")), 4);
    assert_int_equal(json_integer_value(json_object_get(d1, "bytes_sent")), 16);
    assert_true(json_real_value(json_object_get(d1, "mpi_time_s")) == 1.5);
    assert_true(json_real_value(json_object_get(d1, "wall_time_s")) == 4.0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(d1, "functions"),
                                                                        "MPI_Allreduce"), "calls")), 3);
    assert_null(json_object_get(json_object_get(d1, "functions"), "MPI_File_write_all"));
    /* ranks unchanged; totals and aggregates include the departed */
    assert_int_equal(json_array_size(json_object_get(j, "ranks")), 2);
    assert_int_equal(json_integer_value(json_object_get(j, "nprocs")), 2);
    json_t *tot = json_object_get(j, "totals");
    assert_int_equal(json_integer_value(json_object_get(tot, "calls")), 9 + 8);
    assert_int_equal(json_integer_value(json_object_get(tot, "bytes_sent")), 1064 + 32);
    assert_true(json_real_value(json_object_get(tot, "mpi_time_s")) == 9.0 + 3.0);
    json_t *agg = json_object_get(json_object_get(j, "functions"), "MPI_Allreduce");
    assert_int_equal(json_integer_value(json_object_get(agg, "calls")), 8 + 6);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(j, "functions"),
                                                                        "MPI_Barrier"), "calls")), 2);
    json_int_t agg_bytes = json_integer_value(json_object_get(agg, "bytes_sent"));
    json_decref(j);
    /* many departed (more than DUCTILE_REPORT_RANKS): no functions per entry, the combined sums count them */
    static struct report_departed_fns sum;
    memset(&sum, 0, sizeof sum);
    sum.sum[DUCTILE_FN_MPI_Allreduce] = (struct report_fn){6, 2.0, 32, 32};
    sum.sum[DUCTILE_FN_MPI_Barrier] = (struct report_fn){2, 1.0, 0, 0};
    sum.tmax[DUCTILE_FN_MPI_Allreduce] = 7.5;
    in.departed_fns = NULL;
    in.departed_sum = &sum;
    j = report_build_json(&in);
    d1 = json_array_get(json_object_get(j, "departed"), 1);
    assert_null(json_object_get(d1, "functions"));
    assert_int_equal(json_integer_value(json_object_get(d1, "calls")), 4);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "totals"), "calls")), 9 + 8);
    agg = json_object_get(json_object_get(j, "functions"), "MPI_Allreduce");
    assert_int_equal(json_integer_value(json_object_get(agg, "calls")), 8 + 6);
    assert_int_equal(json_integer_value(json_object_get(agg, "bytes_sent")), agg_bytes);
    assert_true(json_real_value(json_object_get(agg, "time_max_rank_s")) == 7.5);
    json_decref(j);
    in.departed_sum = NULL;
    in.departed_fns = depfns;
    /* without departed processes the array is empty */
    in.departed = NULL;
    in.ndeparted = 0;
    j = report_build_json(&in);
    assert_int_equal(json_array_size(json_object_get(j, "departed")), 0);
    json_decref(j);

    in.departed = dep;
    in.ndeparted = 2;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_print_summary(f, &in, "out.json");
    fclose(f);
    assert_non_null(strstr(buf, "ductile: 2 processes left during the run (their counters are included)\n"));
    assert_non_null(strstr(buf, "ductile: job job7: 2 ranks, 10.000 s, report out.json\n"));
    free(buf);
}

/* sampled timing: the "timing" section and the summary say whether the times are estimated */
static void test_timing(void **state)
{
    (void)state;
    struct report_input in = make_input();
    for (int sampled = 0; sampled <= 1; sampled++) {
        in.time_sample_every = sampled ? 16 : 0;
        in.time_estimated_calls = sampled ? 123 : 0;
        json_t *j = report_build_json(&in);
        json_t *t = json_object_get(j, "timing");
        assert_non_null(t);
        assert_string_equal(json_string_value(json_object_get(t, "mode")), sampled ? "sampled" : "every-call");
        assert_true(json_is_true(json_object_get(t, "estimated")) == sampled);
        assert_int_equal(json_integer_value(json_object_get(t, "sample_every")), sampled ? 16 : 1);
        assert_int_equal(json_integer_value(json_object_get(t, "estimated_calls")), sampled ? 123 : 0);
        assert_int_equal(json_integer_value(json_object_get(t, "calls")),
                         json_integer_value(json_object_get(json_object_get(j, "totals"), "calls")));
        assert_true((strstr(json_string_value(json_object_get(t, "note")), "estimated") != NULL) == sampled);
        json_decref(j);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        report_print_summary(f, &in, "out.json");
        fclose(f);
        const char *line = "ductile: times are ESTIMATED: 1 call in 16 timed (DUCTILE_TIME_SAMPLE), 123 calls untimed; "
                           "calls and bytes exact\n";
        assert_true((strstr(buf, sampled ? line : "ESTIMATED") != NULL) == sampled);
        free(buf);
    }
}

static void test_human_bytes(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(report_human_bytes(999, b, sizeof b), "999 B");
    assert_string_equal(report_human_bytes(1500, b, sizeof b), "1.5 KB");
    assert_string_equal(report_human_bytes(2.5e9, b, sizeof b), "2.5 GB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_totals),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_reduced_only),
        cmocka_unit_test(test_departed),
        cmocka_unit_test(test_timing),
        cmocka_unit_test(test_human_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
