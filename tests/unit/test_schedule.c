/* test_schedule.c -- CMocka unit tests for src/malleable/schedule.{h,c}:
 * DUCTILE_SCHEDULE parsing, host and rank lists, the request queue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "schedule.h"

static void test_parse_ok(void **state)
{
    (void)state;
    struct resize_request *r;
    int n;
    char err[512] = "";
    assert_int_equal(schedule_parse("10:+2,40:-3", &r, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(r[0].iteration, 10);
    assert_int_equal(r[0].kind, RESIZE_DELTA);
    assert_int_equal(r[0].value, 2);
    assert_int_equal(r[1].iteration, 40);
    assert_int_equal(r[1].value, -3);
    resize_request_free(r, n);
    free(r);
    assert_int_equal(schedule_parse("5:=4@node1;node-2.x,5:-1@3,7:+1", &r, &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(r[0].kind, RESIZE_TARGET);
    assert_int_equal(r[0].value, 4);
    assert_string_equal(r[0].list, "node1;node-2.x");
    assert_string_equal(r[1].list, "3");
    assert_null(r[2].list);
    resize_request_free(r, n);
    free(r);
    assert_int_equal(schedule_parse("", &r, &n, err, sizeof err), 0);
    assert_int_equal(n, 0);
    assert_null(r);
    assert_int_equal(schedule_parse("0:+2@a;b", &r, &n, err, sizeof err), 0);
    resize_request_free(r, n);
    free(r);
    assert_int_equal(schedule_parse("40:-4@0-3,50:-3@0-4:2", &r, &n, err, sizeof err), 0); /* rank sets */
    assert_int_equal(n, 2);
    assert_string_equal(r[1].list, "0-4:2");
    resize_request_free(r, n);
    free(r);
}

static void expect_bad(const char *text, const char *needle)
{
    struct resize_request *r = (void *)1;
    int n = 7;
    char err[512] = "";
    assert_int_equal(schedule_parse(text, &r, &n, err, sizeof err), -1);
    assert_null(r);
    assert_int_equal(n, 0);
    char want[600];
    snprintf(want, sizeof want, "DUCTILE_SCHEDULE='%s' is not valid", text);
    if (!strstr(err, want) || !strstr(err, needle)) fail_msg("for '%s' got: %s", text, err);
}

static void test_parse_bad(void **state)
{
    (void)state;
    expect_bad("x", "expected ITER:+N");
    expect_bad("10", "expected ':'");
    expect_bad("10:2", "expected +N, -N or =N");
    expect_bad("10:+", "expected a number");
    expect_bad("10:+0", "a change of 0");
    expect_bad("10:=0", "a world of 0");
    expect_bad("10:+2,", "entry 2");
    expect_bad(",10:+2", "entry 1");
    expect_bad("10:+2,5:-1", "must not decrease");
    expect_bad("10:+2x", "unexpected 'x'");
    expect_bad("10:+2@", "empty list");
    expect_bad("10:+2@a b", "not a valid host name");
    expect_bad("3:+1@localhost;localhost", "2 hosts listed for 1 new process (one per new process)");
    expect_bad("3:+2@localhost", "1 host listed for 2 new processes");
    expect_bad("10:-2@1", "1 ranks listed to remove 2");
    expect_bad("10:-2@1;1", "appears twice");
    expect_bad("10:-1@x", "non-negative ranks");
    expect_bad("10:-4@0-4", "5 ranks listed to remove 4"); /* rank sets (src/common/rankset.h) */
    expect_bad("10:-3@0-4:2;2", "appears twice");
    expect_bad("10:-3@4-0", "non-negative ranks");
    expect_bad("99999999999:+1", "iteration too large");
    expect_bad("-1:+1", "expected ITER");
}

static void test_hosts_ranks(void **state)
{
    (void)state;
    char err[300];
    int n = -1;
    assert_int_equal(schedule_check_hosts("a;b,c", &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(schedule_check_hosts("a;;b", &n, err, sizeof err), -1);
    assert_int_equal(schedule_check_hosts("a;", &n, err, sizeof err), -1);
    assert_int_equal(schedule_check_hosts("bad/host", &n, err, sizeof err), -1);
    int ranks[4];
    assert_int_equal(schedule_parse_ranks("3;0;2", ranks, 4, err, sizeof err), 3);
    assert_int_equal(ranks[0], 3);
    assert_int_equal(ranks[2], 2);
    assert_int_equal(schedule_parse_ranks("1;2;3;4;5", ranks, 4, err, sizeof err), -1);
    assert_int_equal(schedule_parse_ranks("-1", ranks, 4, err, sizeof err), -1);
    assert_int_equal(schedule_parse_ranks("1;", ranks, 4, err, sizeof err), -1);
    assert_int_equal(schedule_parse_ranks("", ranks, 4, err, sizeof err), 0);
    assert_int_equal(schedule_parse_ranks("1-3", ranks, 4, err, sizeof err), 3);
    assert_int_equal(ranks[2], 3);
    /* any number of ranks against the world: 65,536 in 11 bytes */
    static unsigned char mark[65536];
    assert_int_equal(schedule_mark_ranks("0-65535:2", 65536, mark, err, sizeof err), 32768);
    assert_int_equal(mark[65534] + mark[65535], 1);
    memset(mark, 0, sizeof mark);
    assert_int_equal(schedule_mark_ranks("7,9", 8, mark, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 9 does not exist (world of 8)"));
    assert_int_equal(schedule_count_ranks("0-1023;2048-4095:4", err, sizeof err), 1024 + 512);
}

static void test_queue(void **state)
{
    (void)state;
    struct resize_request *r;
    int n;
    char err[512] = "";
    assert_int_equal(schedule_parse("10:+2,10:-1,40:-3", &r, &n, err, sizeof err), 0);
    struct request_queue q;
    request_queue_init(&q, r, n);
    struct resize_request got;
    assert_int_equal(request_queue_take(&q, 9, &got), 0);
    assert_int_equal(request_queue_take(&q, 10, &got), 1);
    assert_int_equal(got.value, 2);
    /* one per control point: the second entry at 10 is due at the next one */
    assert_int_equal(request_queue_take(&q, 11, &got), 1);
    assert_int_equal(got.value, -1);
    assert_int_equal(request_queue_position(&q), 2);
    /* taking a request makes the queue busy at once (no request accepted during the resize) */
    assert_int_equal(request_queue_submit(&q, 1, RESIZE_DELTA, -1, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "in progress"));
    request_queue_set_busy(&q, 0); /* the engine, after the resize */
    /* a controller request goes first */
    assert_int_equal(request_queue_submit(&q, 5, RESIZE_TARGET, -1, NULL, err, sizeof err), 0);
    assert_int_equal(request_queue_submit(&q, 1, RESIZE_DELTA, -1, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "another resize request is pending"));
    assert_int_equal(request_queue_take(&q, 12, &got), 1);
    assert_int_equal(got.kind, RESIZE_TARGET);
    assert_int_equal(got.source, REQUEST_FROM_CONTROLLER);
    /* refused while a reconfiguration runs */
    request_queue_set_busy(&q, 1);
    assert_int_equal(request_queue_submit(&q, 1, RESIZE_DELTA, -1, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "in progress"));
    request_queue_set_busy(&q, 0);
    /* malformed */
    assert_int_equal(request_queue_submit(&q, 0, RESIZE_DELTA, -1, NULL, err, sizeof err), -1);
    assert_int_equal(request_queue_submit(&q, 0, RESIZE_TARGET, -1, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "at least one process"));
    assert_int_equal(request_queue_submit(&q, -2, RESIZE_DELTA, -1, "1", err, sizeof err), -1);
    assert_int_equal(request_queue_submit(&q, 2, RESIZE_DELTA, -1, "a b", err, sizeof err), -1);
    /* a controller request for a later iteration waits */
    assert_int_equal(request_queue_submit(&q, -1, RESIZE_DELTA, 100, "2", err, sizeof err), 0);
    assert_int_equal(request_queue_take(&q, 39, &got), 0);
    assert_int_equal(request_queue_take(&q, 40, &got), 1);
    assert_int_equal(got.value, -3);
    assert_int_equal(request_queue_take(&q, 100, &got), 1);
    assert_string_equal(got.list, "2");
    resize_request_free(&got, 1);
    /* position hand-over */
    request_queue_set_position(&q, 0);
    assert_int_equal(request_queue_take(&q, 10, &got), 1);
    resize_request_free(&got, 1);
    request_queue_set_position(&q, 99);
    assert_int_equal(request_queue_position(&q), 3);
    request_queue_destroy(&q);
}

/* controller commands: several delayed ones with ids, cancel, a full queue */
static void test_queue_ids(void **state)
{
    (void)state;
    struct request_queue q;
    request_queue_init(&q, NULL, 0);
    assert_ptr_equal(request_queue_active(), &q);
    char err[512] = "";
    int id1 = 0, id2 = 0, id3 = 0;
    assert_int_equal(request_queue_submit_id(&q, 2, RESIZE_DELTA, 50, NULL, &id1, err, sizeof err), 0);
    request_queue_set_busy(&q, 1); /* also accepted during a reconfiguration */
    assert_int_equal(request_queue_submit_id(&q, -1, RESIZE_DELTA, 30, NULL, &id2, err, sizeof err), 0);
    request_queue_set_busy(&q, 0);
    assert_int_equal(request_queue_submit_id(&q, 4, RESIZE_TARGET, 70, NULL, &id3, err, sizeof err), 0);
    assert_true(id1 > 0 && id2 > id1 && id3 > id2);
    /* the application's own request is still one at a time */
    assert_int_equal(request_queue_submit(&q, 1, RESIZE_DELTA, -1, NULL, err, sizeof err), -1);
    struct resize_request l[REQUEST_QUEUE_MAX], got;
    unsigned v1, v2;
    assert_int_equal(request_queue_list(&q, l, REQUEST_QUEUE_MAX, &v1), 3);
    assert_int_equal(l[0].id, id1);
    resize_request_free(l, 3);
    /* the earliest due goes first, whatever the order of submission */
    assert_int_equal(request_queue_take(&q, 29, &got), 0);
    assert_int_equal(request_queue_take(&q, 30, &got), 1);
    assert_int_equal(got.id, id2);
    request_queue_set_busy(&q, 0);
    assert_int_equal(request_queue_list(&q, l, REQUEST_QUEUE_MAX, &v2), 2);
    assert_true(v2 != v1);
    resize_request_free(l, 2);
    /* cancel one by id, then a missing id, then all */
    assert_int_equal(request_queue_cancel(&q, id1, l, REQUEST_QUEUE_MAX), 1);
    assert_int_equal(l[0].value, 2);
    assert_int_equal(request_queue_cancel(&q, id1, l, REQUEST_QUEUE_MAX), 0);
    assert_int_equal(request_queue_take(&q, 60, &got), 0); /* the cancelled +2 at 50 never runs */
    assert_int_equal(request_queue_cancel(&q, 0, l, REQUEST_QUEUE_MAX), 1);
    assert_int_equal(l[0].id, id3);
    /* bounded */
    for (int k = 0; k < REQUEST_QUEUE_MAX; k++)
        assert_int_equal(request_queue_submit_id(&q, 1, RESIZE_DELTA, 1000, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(request_queue_submit_id(&q, 1, RESIZE_DELTA, 1000, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "already queued"));
    assert_int_equal(request_queue_cancel(&q, 0, NULL, 0), REQUEST_QUEUE_MAX);
    request_queue_destroy(&q);
    assert_null(request_queue_active());
}

/* lists of any length: 65,536 new processes, one host name each (a 720 KB
 * list), through the queue, listed, taken, handed to a new rank 0; and the
 * runs that go into the spawn's info value */
static void test_long_lists(void **state)
{
    (void)state;
    enum { P = 65536, PER_HOST = 128 };
    char *hosts = malloc((size_t)P * 12 + 1), *o = hosts;
    for (int i = 0; i < P; i++) o += sprintf(o, "%snode%05d", i ? ";" : "", i / PER_HOST);
    size_t len = strlen(hosts);
    assert_true(len > 600000);
    struct request_queue q;
    request_queue_init(&q, NULL, 0);
    char err[512] = "";
    int id = 0;
    assert_int_equal(request_queue_submit_id(&q, P, RESIZE_DELTA, 5, hosts, &id, err, sizeof err), 0);
    /* a shrink naming every other rank of 65,536 as an explicit list (no rank set ranges) */
    char *ranks = malloc((size_t)P / 2 * 7 + 1);
    o = ranks;
    for (int i = 0; i < P; i += 2) o += sprintf(o, "%s%d", i ? ";" : "", i);
    assert_int_equal(request_queue_submit_id(&q, -P / 2, RESIZE_DELTA, 6, ranks, NULL, err, sizeof err), 0);
    struct resize_request l[REQUEST_QUEUE_MAX], got;
    unsigned v;
    assert_int_equal(request_queue_list(&q, l, REQUEST_QUEUE_MAX, &v), 2);
    assert_string_equal(l[0].list, hosts);
    assert_string_equal(l[1].list, ranks);
    assert_ptr_not_equal(l[0].list, hosts);
    resize_request_free(l, 2);
    /* the hand-over to a new rank 0 moves the lists */
    int next = 0;
    assert_int_equal(request_queue_export(&q, l, REQUEST_QUEUE_MAX, &next), 2);
    assert_int_equal(request_queue_take(&q, 10, &got), 0);
    struct request_queue q2;
    request_queue_init(&q2, NULL, 0);
    request_queue_import(&q2, l, 2, next);
    assert_null(l[0].list);
    assert_int_equal(request_queue_take(&q2, 5, &got), 1);
    assert_int_equal(got.id, id);
    assert_string_equal(request_list(&got), hosts);
    resize_request_free(&got, 1);
    /* the runs: 512 hosts of 128 processes each, "node00000:128,..." */
    long nruns = 0;
    char *runs = schedule_host_runs(hosts, &nruns);
    assert_int_equal(nruns, P / PER_HOST);
    assert_int_equal(strncmp(runs, "node00000:128,node00001:128,", 28), 0);
    assert_int_equal(strlen(runs), (size_t)(P / PER_HOST) * 14 - 1);
    free(runs);
    runs = schedule_host_runs("a;a;b;a,c", &nruns); /* only adjacent names join: the order of the processes stays */
    assert_string_equal(runs, "a:2,b,a,c");
    assert_int_equal(nruns, 4);
    free(runs);
    runs = schedule_host_runs("", &nruns);
    assert_string_equal(runs, "");
    assert_int_equal(nruns, 0);
    free(runs);
    request_queue_destroy(&q2); /* frees the shrink still queued */
    request_queue_destroy(&q);
    free(hosts);
    free(ranks);
}

/* schedule_share_runs_max against the runs of each share cut out by hand */
static size_t shares_by_hand(const char *list, long n, long k)
{
    size_t best = 0;
    const char *p = list;
    for (long i = 0; i < k; i++) {
        long m = n / k + (i < n % k);
        char *share = calloc(strlen(list) + 1, 1), *o = share;
        for (long j = 0; j < m && *p; j++) {
            const char *e = p;
            while (*e && *e != ';' && *e != ',') e++;
            o += sprintf(o, "%s%.*s", j ? ";" : "", (int)(e - p), p);
            p = *e ? e + 1 : e;
        }
        char *runs = schedule_host_runs(share, NULL);
        if (strlen(runs) > best) best = strlen(runs);
        free(runs);
        free(share);
    }
    return best;
}

static void test_share_runs(void **state)
{
    (void)state;
    const char *lists[] = {"a;a;b;a,c", "a;a;a;a;a;a;a;a;a;a;a;a", "hostA;hostB;hostB;hostB;c;c;c;c;c;c;c;c;c;c;c;c;d",
                           "x", "aa;aa;b;b;aa;aa;aa"};
    for (size_t l = 0; l < sizeof lists / sizeof *lists; l++) {
        long n = 1;
        for (const char *c = lists[l]; *c; c++) n += *c == ';' || *c == ',';
        for (long k = 1; k <= n; k++)
            assert_int_equal(schedule_share_runs_max(lists[l], n, k), shares_by_hand(lists[l], n, k));
    }
    /* one share is the whole list's runs */
    char *runs = schedule_host_runs("a;a;b;a,c", NULL);
    assert_int_equal(schedule_share_runs_max("a;a;b;a,c", 5, 1), strlen(runs));
    free(runs);
    /* 65,536 processes on 512 hosts of 128 (one pass): 64 shares of 1,024 processes, 8 hosts each */
    enum { P = 65536, PER_HOST = 128 };
    char *hosts = malloc((size_t)P * 10 + 1), *o = hosts;
    for (int i = 0; i < P; i++) o += sprintf(o, "%snode%05d", i ? ";" : "", i / PER_HOST);
    assert_int_equal(schedule_share_runs_max(hosts, P, 64), 8 * 14 - 1);
    assert_int_equal(schedule_share_runs_max(hosts, P, 64), shares_by_hand(hosts, P, 64));
    assert_int_equal(schedule_share_runs_max(hosts, P, 1000), shares_by_hand(hosts, P, 1000));
    assert_int_equal(schedule_share_runs_max(hosts, P, 0), 0);
    free(hosts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_ok),
        cmocka_unit_test(test_parse_bad),
        cmocka_unit_test(test_hosts_ranks),
        cmocka_unit_test(test_queue),
        cmocka_unit_test(test_queue_ids),
        cmocka_unit_test(test_long_lists),
        cmocka_unit_test(test_share_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
