/* test_schema.c -- CMocka unit tests of the protocol's edge (issue 23):
 * the schemas of src/proto/schema.c (every event kind, unknown members
 * removed, nested members checked, job results) and the stream MACs of
 * src/proto/seal.c (round trip, injection, replay, alteration, reordering,
 * the two directions' keys). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "auth.h"
#include "protocol.h"
#include "schema.h"
#include "seal.h"

static int parse(const char *s, struct proto_msg *m, char *reason, size_t rl)
{
    const char *code;
    int k = proto_parse(s, strlen(s), m, &code, reason, rl);
    if (k == PROTO_INVALID) print_message("  (%s: %s)\n", code, reason);
    return k;
}

static void accepted(const char *s)
{
    struct proto_msg m;
    char why[512];
    if (parse(s, &m, why, sizeof why) != PROTO_REQUEST) fail_msg("refused: %s: %s", s, why);
    proto_msg_free(&m);
}

static void refused(const char *s, const char *needle)
{
    struct proto_msg m;
    const char *code;
    char why[512];
    int k = proto_parse(s, strlen(s), &m, &code, why, sizeof why);
    if (k != PROTO_INVALID) fail_msg("accepted: %s", s);
    if (needle && !strstr(why, needle)) fail_msg("reason '%s' lacks '%s'", why, needle);
}

#define EV(kind, details) "{\"v\":1,\"id\":1,\"cmd\":\"event\",\"job\":1,\"kind\":\"" kind "\",\"details\":" details "}"

static void test_events(void **st)
{
    (void)st;
    accepted(EV("resized", "{\"from\":2,\"to\":3,\"status\":\"ok\",\"op\":\"expand\",\"standby\":0,\"exited\":0,"
                           "\"duration_s\":0.5,\"reason\":\"\",\"persistent\":\"reused\"}"));
    refused(EV("resized", "{\"from\":-5,\"to\":1,\"status\":\"ok\"}"), "details.from");
    refused(EV("resized", "{\"from\":2,\"to\":65537,\"status\":\"ok\"}"), "details.to");
    refused(EV("resized", "{\"from\":2,\"to\":3}"), "missing 'details.status'");
    refused(EV("resized", "{\"from\":2,\"to\":3,\"status\":\"maybe\"}"), "details.status");
    refused(EV("resized", "{\"from\":2,\"to\":1,\"status\":\"ok\",\"exited\":-1}"), "details.exited");
    refused(EV("resized", "{\"from\":2.0,\"to\":1,\"status\":\"ok\"}"), "details.from");
    refused(EV("resized", "{\"from\":2,\"to\":1,\"status\":\"ok\",\"reason\":\"" /* 256 bytes */
                          "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                          "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}"),
            "details.reason");
    accepted(EV("io_phase", "{\"start\":1.7e9,\"duration_s\":1,\"io_s\":0.5,\"delay_s\":0,\"bytes\":10,\"calls\":2,"
                            "\"iteration\":-1,\"procs\":2}"));
    refused(EV("io_phase", "{\"duration_s\":-1}"), "details.duration_s");
    accepted(EV("io_request", "{\"iteration\":5}"));
    accepted("{\"v\":1,\"id\":1,\"cmd\":\"event\",\"job\":1,\"kind\":\"io_request\"}"); /* details may be absent */
    accepted(EV("io_release", "{\"kept_s\":0.3}"));
    refused(EV("io_release", "{\"kept_s\":1e300}"), "details.kept_s");
    refused(EV("io_release", "{\"kept_s\":\"x\"}"), "details.kept_s");
    accepted(EV("queue", "{\"queued\":[{\"id\":1,\"op\":\"expand\",\"n\":2,\"at_iteration\":-1,\"list\":\"a;b\"}]}"));
    refused(EV("queue", "{\"queued\":[{\"id\":0,\"op\":\"expand\",\"n\":2}]}"), "details.queued[0].id");
    refused(EV("queue", "{\"queued\":[{\"id\":1,\"op\":\"grow\",\"n\":2}]}"), "details.queued[0].op");
    refused(EV("queue", "{}"), "missing 'details.queued'");
    accepted(EV("exited", "{\"hosts\":{\"node1\":2,\"node-2.x\":1}}"));
    refused(EV("exited", "{\"hosts\":{\"a b\":1}}"), "not a valid host name");
    refused(EV("exited", "{\"hosts\":{\"node1\":0}}"), "details.hosts.node1");
    refused(EV("exited", "{\"hosts\":{\"node1\":1e6}}"), "details.hosts.node1");
    refused(EV("custom", "{}"), "unknown kind 'custom'");
    accepted(EV("resized", "{\"from\":4,\"to\":2,\"status\":\"ok\",\"command\":3,\"method\":\"baseline\",\"exited\":4}"));
    refused(EV("resized", "{\"from\":4,\"to\":2,\"status\":\"ok\",\"method\":\"other\"}"), "details.method");
    accepted(EV("handover", "{\"pid\":42,\"reason\":\"rank 0 left the world\"}"));
    accepted(EV("reconnect", "{\"reason\":\"no answer\",\"waited_s\":10}"));
    refused(EV("reconnect", "{\"waited_s\":-1}"), "details.waited_s");
    refused(EV("resized", "[1,2]"), "'details' must be an object");
}

static void test_stripped(void **st)
{
    (void)st;
    struct proto_msg m;
    char why[512];
    /* members no schema names are removed at the edge, at every level */
    const char *s = "{\"v\":1,\"id\":1,\"cmd\":\"sample\",\"job\":1,\"t\":1.5,\"iteration\":3,\"procs\":2,\"padding\":\"xxxx\","
                    "\"arrays\":[{\"name\":\"v\",\"elements\":10,\"elem_size\":8,\"junk\":[1,2,3]}]}";
    assert_int_equal(parse(s, &m, why, sizeof why), PROTO_REQUEST);
    assert_null(json_object_get(m.root, "padding"));
    assert_non_null(json_object_get(m.root, "procs"));
    assert_non_null(json_object_get(m.root, "v"));
    assert_null(json_object_get(json_array_get(json_object_get(m.root, "arrays"), 0), "junk"));
    proto_msg_free(&m);
    s = EV("resized", "{\"from\":2,\"to\":3,\"status\":\"ok\",\"huge\":{\"a\":[1,2,3]}}");
    assert_int_equal(parse(s, &m, why, sizeof why), PROTO_REQUEST);
    assert_null(json_object_get(json_object_get(m.root, "details"), "huge"));
    assert_int_equal(json_object_size(json_object_get(m.root, "details")), 3);
    proto_msg_free(&m);
    /* registration: rank_hosts, pmix and the key are checked too */
    accepted("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":2,"
             "\"rank_hosts\":[\"n1\",\"n2\"],\"pmix\":{\"nspace\":\"x\",\"job_size\":2,\"node_list\":\"n1,n2\"},"
             "\"key\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":2,\"rank_hosts\":[\"a;b\"]}",
            "rank_hosts[0]");
    /* rank_hosts as {host: rank set} (issue 25): each rank once, below 65,536, known host names */
    accepted("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":65536,"
             "\"rank_hosts\":{\"n1\":\"0-65535:2\",\"n2\":\"1-65535:2\"}}");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":4,"
            "\"rank_hosts\":{\"n1\":\"0-3\",\"n2\":\"3\"}}", "'rank_hosts.n2' names rank 3 twice");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":4,"
            "\"rank_hosts\":{\"n1\":\"0-65536\"}}", "out of range");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":4,"
            "\"rank_hosts\":{\"n1\":[0,1]}}", "must be a rank set");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":4,"
            "\"rank_hosts\":{\"a;b\":\"0\"}}", "not a valid host name");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":4,"
            "\"rank_hosts\":{\"n1\":\"0-2,\"}}", "rank set");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":4,"
            "\"rank_hosts\":7}", "rank_hosts");
    /* a shrink's ranks: a rank set, or an array that becomes one */
    accepted("{\"v\":1,\"id\":1,\"cmd\":\"shrink\",\"job\":1,\"n\":16384,\"ranks\":\"49152-65535\"}");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"shrink\",\"job\":1,\"n\":3,\"ranks\":\"1-4:2,3\"}", "shrink: 'ranks' names rank 3 twice");
    /* an empty list is refused, not taken as "ductiled's choice" (the stranger's --ranks '' and --hosts '') */
    refused("{\"v\":1,\"id\":1,\"cmd\":\"shrink\",\"job\":1,\"n\":1,\"ranks\":\"\"}", "'ranks' is empty");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"shrink\",\"job\":1,\"n\":1,\"ranks\":[]}", "'ranks' is empty");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"expand\",\"job\":1,\"n\":1,\"hosts\":[]}", "'hosts' is an empty list");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"resize\",\"job\":1,\"to\":3,\"hosts\":[]}", "'hosts' is an empty list");
    accepted("{\"v\":1,\"id\":1,\"cmd\":\"expand\",\"job\":1,\"n\":1,\"hosts\":[\"localhost\"]}");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"shrink\",\"job\":1,\"n\":3,\"ranks\":\"1-2x\"}", "separated by ',' or ';'");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"shrink\",\"job\":1,\"n\":3,\"ranks\":\"x\"}", "ranks");
    {
        struct proto_msg m2;
        char w2[512];
        const char *s2 = "{\"v\":1,\"id\":1,\"cmd\":\"shrink\",\"job\":1,\"n\":6,\"ranks\":[9,1,2,3,7,5]}";
        assert_int_equal(parse(s2, &m2, w2, sizeof w2), PROTO_REQUEST);
        assert_string_equal(json_string_value(json_object_get(m2.root, "ranks")), "1-3,5-9:2");
        proto_msg_free(&m2);
    }
    refused("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":2,\"pmix\":{\"job_size\":-1}}",
            "pmix.job_size");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":2,\"key\":\"abc\"}", "'key'");
    /* a job's size constraints (src/common/sizes.h) are checked at the edge, in register and submit */
    accepted("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":4,"
             "\"sizes\":\"allowed=squares|multiples:3,max=9\"}");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"t\",\"pid\":1,\"binary\":\"b\",\"procs\":4,"
            "\"sizes\":\"allowed=cubes\"}", "'sizes' is not valid: allowed='cubes'");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"submit\",\"argv\":[\"a\"],\"n\":4,\"sizes\":\"min=8,max=4\"}",
            "min=8 is above max=4");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"submit\",\"argv\":[\"a\"],\"n\":4,\"sizes\":7}", "'sizes' must be a string");
    /* an io hold may name its longest time */
    accepted("{\"v\":1,\"id\":1,\"cmd\":\"io\",\"job\":1,\"action\":\"hold\",\"seconds\":2}");
    refused("{\"v\":1,\"id\":1,\"cmd\":\"io\",\"job\":1,\"action\":\"hold\",\"seconds\":0}", "'seconds'");
    /* error replies are bounded */
    char big[2200];
    snprintf(big, sizeof big, "{\"v\":1,\"id\":1,\"ok\":false,\"error\":\"busy\",\"reason\":\"%01500d\"}", 0);
    refused(big, "at most 1024");
}

static void test_results(void **st)
{
    (void)st;
    char why[300];
    json_t *r = json_loads("{\"queued\":true,\"at_iteration\":-1,\"id\":3,\"extra\":\"x\"}", 0, NULL);
    assert_int_equal(schema_check_result("shrink", r, why, sizeof why), 0);
    assert_null(json_object_get(r, "extra"));
    json_decref(r);
    r = json_loads("{\"id\":0}", 0, NULL);
    assert_int_equal(schema_check_result("expand", r, why, sizeof why), -1);
    json_decref(r);
    r = json_loads("{\"revoked\":\"all\",\"cancelled\":[{\"id\":1,\"op\":\"shrink\",\"n\":1}],\"io_held\":false}", 0, NULL);
    assert_int_equal(schema_check_result("revoke", r, why, sizeof why), 0);
    json_decref(r);
    r = json_loads("{\"revoked\":\"everything\"}", 0, NULL);
    assert_int_equal(schema_check_result("revoke", r, why, sizeof why), -1);
    json_decref(r);
    r = json_loads("{\"queued\":true,\"cores\":0,\"hosts\":1,\"host_ranks\":2,\"host_cpus\":4}", 0, NULL);
    assert_int_equal(schema_check_result("unfold", r, why, sizeof why), 0);
    json_decref(r);
    r = json_loads("{}", 0, NULL);
    assert_int_equal(schema_check_result("nosuch", r, why, sizeof why), -1);
    json_decref(r);
}

static char *dup_line(const char *s)
{
    char *p = malloc(strlen(s) + 1);
    strcpy(p, s);
    return p;
}

/* Receive a sealed line as the daemon's loop does: cut the newline, open it. */
static int receive(struct seal *s, const char *sealed, char *out, size_t outlen)
{
    size_t n = strcspn(sealed, "\n");
    assert_true(n < outlen);
    memcpy(out, sealed, n);
    out[n] = '\0';
    return seal_open(s, out, &n);
}

static void test_seal(void **st)
{
    (void)st;
    struct auth_secret k;
    char err[256];
    if (auth_ready(err, sizeof err) != 0) skip();
    memset(&k, 0, sizeof k);
    memset(k.key, 7, 32);
    k.len = 32;
    const char *ns = "1111111111111111111111111111111111111111111111111111111111111111";
    const char *nc = "2222222222222222222222222222222222222222222222222222222222222222";
    struct seal cli, srv, other;
    assert_int_equal(seal_start(&cli, &k, 0, ns, nc), 0);
    assert_int_equal(seal_start(&srv, &k, 1, ns, nc), 0);
    assert_int_equal(seal_start(&other, &k, 1, ns, "3333333333333333333333333333333333333333333333333333333333333333"), 0);
    char buf[1024];
    /* client -> server, in order */
    char *a = seal_line(&cli, dup_line("{\"v\":1,\"id\":1,\"cmd\":\"list\"}\n"));
    char *b = seal_line(&cli, dup_line("{\"v\":1,\"id\":2,\"cmd\":\"slots\"}\n"));
    assert_non_null(a);
    assert_non_null(strstr(a, ",\"mac\":\""));
    assert_int_equal(receive(&srv, a, buf, sizeof buf), 0);
    assert_string_equal(buf, "{\"v\":1,\"id\":1,\"cmd\":\"list\"}");
    /* a replay of the first one (same bytes, next sequence number): refused */
    assert_int_equal(receive(&srv, a, buf, sizeof buf), -1);
    assert_int_equal(receive(&srv, b, buf, sizeof buf), 0);
    /* another connection's keys (another client nonce): refused */
    assert_int_equal(receive(&other, a, buf, sizeof buf), -1);
    /* server -> client: its own key; a message sealed for the other direction is refused */
    char *c = seal_line(&srv, dup_line("{\"v\":1,\"id\":1,\"ok\":true,\"result\":{}}\n"));
    char *d = seal_line(&cli, dup_line("{\"v\":1,\"id\":3,\"cmd\":\"list\"}\n"));
    assert_int_equal(receive(&cli, d, buf, sizeof buf), -1);
    assert_int_equal(receive(&cli, c, buf, sizeof buf), 0);
    /* unsealed, altered, truncated: refused */
    assert_int_equal(receive(&srv, "{\"v\":1,\"id\":9,\"cmd\":\"drain\",\"on\":true}", buf, sizeof buf), -1);
    char *e = seal_line(&cli, dup_line("{\"v\":1,\"id\":4,\"cmd\":\"drain\",\"on\":false}\n"));
    char *alt = dup_line(e);
    memcpy(strstr(alt, "false"), "true ", 5);
    assert_int_equal(receive(&srv, alt, buf, sizeof buf), -1);
    alt[strlen(alt) - 5] = '\0';
    assert_int_equal(receive(&srv, alt, buf, sizeof buf), -1);
    /* reordering: d (sequence 2) was never delivered, e (sequence 3) is refused */
    assert_int_equal(receive(&srv, e, buf, sizeof buf), -1);
    free(a), free(b), free(c), free(d), free(e), free(alt);
    /* off: lines pass as they are */
    struct seal off = {0};
    char *p = seal_line(&off, dup_line("{\"v\":1}\n"));
    assert_string_equal(p, "{\"v\":1}\n");
    free(p);
    size_t n = 7;
    assert_int_equal(seal_open(&off, buf, &n), 0);
    seal_clear(&cli);
    seal_clear(&srv);
    seal_clear(&other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_events), cmocka_unit_test(test_stripped),
                                       cmocka_unit_test(test_results), cmocka_unit_test(test_seal)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
