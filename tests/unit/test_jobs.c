/* test_jobs.c -- ductiled's picture of a job (src/daemon/jobs_place.c,
 * jobs_queue.c, jobs_state.c): reservations follow their commands (sent,
 * queued, taken, reported, cancelled, expired), ranks join on their
 * reserved hosts and leave (named ranks, parked, exited, standby), folds,
 * samples that show an unexplained size, and a state file round trip that
 * keeps all of it; after every step the resource manager holds exactly what
 * the picture says. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobs.h"
#include "../proto/protocol.h"

static struct rm rm;
static struct jobs t;

static void setup(void)
{
    memset(&rm, 0, sizeof rm);
    rm_add_host(&rm, "a", 4);
    rm_add_host(&rm, "b", 4);
    jobs_init(&t, &rm);
}

static void teardown(void)
{
    jobs_destroy(&t);
    rm_destroy(&rm);
}

/* the invariant: per host, the job's slots are its running (folded: at most
 * fold_cores), parked and reserved processes, and the rm's use is the sum
 * over the live jobs */
static void check(void)
{
    for (int h = 0; h < rm.nhosts; h++) {
        int used = 0;
        for (int i = 0; i < t.n; i++) {
            struct job *j = t.v[i];
            int run = jobs_procs_on(j, h);
            if (j->fold_cores && run > j->fold_cores) run = j->fold_cores;
            int live = j->state == JOB_RUNNING || j->state == JOB_DISCONNECTED;
            assert_int_equal(j->alloc[h], live ? run + j->parked_on[h] + jobs_reserved_on(j, h) : 0);
            used += j->alloc[h];
        }
        assert_int_equal(rm.hosts[h].used, used);
    }
}

static struct job *reg(const char *tag, int procs, const char *rank_hosts)
{
    char buf[512];
    snprintf(buf, sizeof buf, "{\"tag\":\"%s\",\"pid\":%d,\"binary\":\"x\",\"procs\":%d,\"rank_hosts\":%s}", tag,
             100 + procs, procs, rank_hosts);
    json_t *r = json_loads(buf, 0, NULL);
    char why[128];
    struct job *j = jobs_register(&t, r, 10, why, sizeof why);
    json_decref(r);
    assert_non_null(j);
    check();
    return j;
}

static void resized(struct job *j, const char *op, int from, int to, int cmd, const char *extra)
{
    char buf[512];
    snprintf(buf, sizeof buf, "{\"op\":\"%s\",\"from\":%d,\"to\":%d,\"status\":\"ok\",\"command\":%d%s}", op, from, to, cmd,
             extra ? extra : "");
    json_t *d = json_loads(buf, 0, NULL);
    jobs_resized(&t, j, d, 20);
    json_decref(d);
    check();
}

/* an expansion granted on host b, queued, taken, reported: the new rank is on b */
static void test_expand_reserved(void **st)
{
    (void)st;
    setup();
    struct job *j = reg("e", 2, "[\"a\",\"a\"]");
    int where[2];
    char why[128];
    assert_int_equal(rm_grant(&rm, j->alloc, 2, (const char *const[]){"b", "b"}, where, why, sizeof why), 0);
    jobs_cmd_sent(j, 7, "expand", 2, where, 2, "b;b", 0, 11);
    jobs_place(&t, j);
    check();
    assert_int_equal(j->pending, 2);
    json_t *res = json_pack("{s:i, s:i}", "id", 1, "at_iteration", 500);
    assert_non_null(jobs_cmd_answered(&t, j, 7, 1, res, 12));
    json_decref(res);
    /* queued far longer than the TTL: the reservation stays */
    t.pending_ttl = 5;
    assert_int_equal(jobs_cmds_expire(&t, 1000), 0);
    assert_int_equal(j->pending, 2);
    json_t *q = json_loads("[]", 0, NULL);
    assert_int_equal(jobs_queue_set(&t, j, q, 1001), 0); /* taken */
    json_decref(q);
    assert_int_equal(jobs_cmd_find(j, 1)->state, CMD_TAKEN);
    assert_int_equal(j->pending, 2);
    resized(j, "expand", 2, 4, 1, NULL);
    assert_int_equal(j->procs, 4);
    assert_int_equal(j->pending, 0);
    assert_int_equal(jobs_procs_on(j, 0), 2);
    assert_int_equal(jobs_procs_on(j, 1), 2);
    assert_int_equal(j->guessed, 0);
    teardown();
}

/* sent and never answered, or taken and never reported: released after the TTL */
static void test_expire(void **st)
{
    (void)st;
    setup();
    t.pending_ttl = 5;
    struct job *j = reg("x", 1, "[\"a\"]");
    int where[1];
    char why[128];
    assert_int_equal(rm_grant(&rm, j->alloc, 1, NULL, where, why, sizeof why), 0);
    jobs_cmd_sent(j, 3, "expand", 1, where, 1, "", 0, 10);
    jobs_place(&t, j);
    check();
    assert_int_equal(jobs_cmds_expire(&t, 14), 0);
    assert_int_equal(jobs_cmds_expire(&t, 16), 1);
    assert_int_equal(j->pending, 0);
    check();
    /* refused: released at once */
    assert_int_equal(rm_grant(&rm, j->alloc, 1, NULL, where, why, sizeof why), 0);
    jobs_cmd_sent(j, 4, "expand", 1, where, 1, "", 0, 20);
    jobs_place(&t, j);
    assert_null(jobs_cmd_answered(&t, j, 4, 0, NULL, 21));
    assert_int_equal(j->pending, 0);
    check();
    teardown();
}

/* a shrink of named ranks: they park on their hosts; the highest by default; exited ones free their slots */
static void test_shrink(void **st)
{
    (void)st;
    setup();
    struct job *j = reg("s", 4, "[\"a\",\"b\",\"a\",\"b\"]");
    jobs_cmd_sent(j, 5, "shrink", 1, NULL, 0, "0", 0, 11);
    json_t *res = json_pack("{s:i}", "id", 2);
    jobs_cmd_answered(&t, j, 5, 1, res, 12);
    json_decref(res);
    resized(j, "shrink", 4, 3, 2, NULL);
    assert_int_equal(j->procs, 3);
    assert_int_equal(j->rank_host[0], 1); /* old rank 1 (on b) is rank 0 now */
    assert_int_equal(j->parked_on[0], 1);
    assert_int_equal(j->shrunk_on[0], 1);
    assert_int_equal(rm.hosts[0].used, 2);
    resized(j, "shrink", 3, 2, 0, ",\"exited\":1"); /* the highest rank (on b) ended */
    assert_int_equal(j->procs, 2);
    assert_int_equal(j->exited, 1);
    assert_int_equal(jobs_procs_on(j, 1), 1);
    /* the parked process ends ("exited" event) */
    json_t *d = json_loads("{\"hosts\":{\"a\":1}}", 0, NULL);
    jobs_parked_exited(&t, j, d, 30);
    json_decref(d);
    assert_int_equal(j->parked, 0);
    check();
    /* standby: the processes come back on their own hosts */
    resized(j, "shrink", 2, 1, 0, ",\"standby\":1");
    assert_int_equal(j->nstandby, 1);
    resized(j, "expand", 1, 2, 0, ",\"standby\":1");
    assert_int_equal(j->nstandby, 0);
    assert_int_equal(j->procs, 2);
    assert_int_equal(j->guessed, 0);
    teardown();
}

/* folded: the running processes hold at most fold_cores per host; a resize ends the fold */
static void test_fold(void **st)
{
    (void)st;
    setup();
    struct job *j = reg("f", 4, "[\"a\",\"a\",\"a\",\"b\"]");
    j->fold_cores = 1;
    jobs_place(&t, j);
    check();
    assert_int_equal(rm_alloc_total(&rm, j->alloc), 2);
    resized(j, "expand", 4, 5, 0, NULL);
    assert_int_equal(j->fold_cores, 0);
    assert_int_equal(j->guessed, 1); /* nobody placed it: on its main host */
    assert_int_equal(jobs_procs_on(j, 0), 4);
    teardown();
}

/* samples that show another size and no event: adopted after three */
static void test_samples(void **st)
{
    (void)st;
    setup();
    struct job *j = reg("m", 2, "[\"a\",\"a\"]");
    jobs_size_seen(&t, j, 3, 11);
    jobs_size_seen(&t, j, 3, 12);
    assert_int_equal(j->procs, 2);
    jobs_size_seen(&t, j, 3, 13);
    assert_int_equal(j->procs, 3);
    check();
    teardown();
}

/* the list's text (jobs_list.c, written without a tree) reads back as the summary says: its start
 * with 6 decimals as "%.6f" writes it, its sampled timing (time_sample) only when sampled */
static void test_list_text(void **st)
{
    (void)st;
    setup();
    struct job *a = reg("la", 1, "[\"a\"]"), *b = reg("lb", 1, "[\"a\"]");
    a->start = 1764230400.1234565;
    b->start = 0; /* unknown: its registration's time */
    b->registered = 1764230401.000001;
    json_t *s = json_loads("{\"job\":1,\"t\":1.0,\"iteration\":5,\"procs\":1,\"time_sample\":16}", 0, NULL);
    jobs_sample(&t, a, s, 20);
    json_decref(s);
    for (int brief = 0; brief < 2; brief++) {
        size_t n = 0;
        char *txt = jobs_list_text(&t, 30, brief, &n);
        assert_non_null(txt);
        json_t *l = json_loadb(txt, n, 0, NULL);
        assert_non_null(l);
        char want[64];
        snprintf(want, sizeof want, "%.6f", a->start);
        assert_true(fabs(json_real_value(json_object_get(json_array_get(l, 0), "start")) - strtod(want, NULL)) < 1e-9);
        assert_true(json_real_value(json_object_get(json_array_get(l, 1), "start")) == 1764230401.000001);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(l, 0), "time_sample")), 16);
        assert_null(json_object_get(json_array_get(l, 1), "time_sample"));
        json_decref(l);
        free(txt);
    }
    teardown();
}

/* the state file keeps ranks, parked processes, commands and their reservations, and the fold */
static void test_state(void **st)
{
    (void)st;
    setup();
    struct job *j = reg("r", 3, "[\"a\",\"b\",\"b\"]");
    int where[1];
    char why[128];
    assert_int_equal(rm_grant(&rm, j->alloc, 1, (const char *const[]){"a"}, where, why, sizeof why), 0);
    jobs_cmd_sent(j, 9, "expand", 1, where, 1, "a", 0, 11);
    json_t *res = json_pack("{s:i, s:i}", "id", 4, "at_iteration", 900);
    jobs_cmd_answered(&t, j, 9, 1, res, 12);
    json_decref(res);
    resized(j, "shrink", 3, 2, 0, NULL); /* rank 2 (b) parks */
    j->fold_cores = 1;
    jobs_place(&t, j);
    check();
    int used0 = rm.hosts[0].used, used1 = rm.hosts[1].used;
    char path[] = "/tmp/ductile-test-jobs-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    char err[256];
    assert_int_equal(jobs_save(&t, path, err, sizeof err), 0);
    teardown();
    setup();
    assert_int_equal(jobs_load(&t, path, 50, err, sizeof err), 0);
    unlink(path);
    struct job *k = jobs_get(&t, 1);
    assert_non_null(k);
    assert_int_equal(k->state, JOB_DISCONNECTED);
    assert_int_equal(k->procs, 2);
    assert_int_equal(k->parked_on[1], 1);
    assert_int_equal(k->fold_cores, 1);
    assert_int_equal(k->pending, 1);
    assert_non_null(jobs_cmd_find(k, 4));
    assert_int_equal(rm.hosts[0].used, used0);
    assert_int_equal(rm.hosts[1].used, used1);
    check();
    /* it comes back (same tag and pid): the picture stands */
    json_t *r = json_loads("{\"tag\":\"r\",\"pid\":103,\"binary\":\"x\",\"procs\":2,\"job\":1}", 0, NULL);
    assert_ptr_equal(jobs_register(&t, r, 60, why, sizeof why), k);
    json_decref(r);
    assert_int_equal(k->parked_on[1], 1);
    assert_int_equal(k->pending, 1);
    check();
    teardown();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand_reserved), cmocka_unit_test(test_expire), cmocka_unit_test(test_shrink),
        cmocka_unit_test(test_fold),            cmocka_unit_test(test_samples), cmocka_unit_test(test_state),
        cmocka_unit_test(test_list_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
