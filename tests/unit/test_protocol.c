/* test_protocol.c -- CMocka unit tests for the controllers' pure modules:
 * src/proto/protocol (parse, validate, build, framing, host names),
 * auth (HMAC challenge-response, secret file permissions), rm (grants,
 * refusals, host preference, release) and jobs (registration, samples,
 * I/O period, cost estimate, state file round trip). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "auth.h"
#include "jobs.h"
#include "protocol.h"
#include "rm.h"

static int parse(const char *s, struct proto_msg *m, const char **code)
{
    char reason[512];
    int k = proto_parse(s, strlen(s), m, code, reason, sizeof reason);
    if (k == PROTO_INVALID) print_message("  (%s: %s)\n", *code, reason);
    return k;
}

static void test_parse_valid(void **st)
{
    (void)st;
    struct proto_msg m;
    const char *code;
    assert_int_equal(parse("{\"v\":1,\"id\":7,\"cmd\":\"expand\",\"job\":1,\"n\":2,\"at_iteration\":500}", &m, &code),
                     PROTO_REQUEST);
    assert_string_equal(m.cmd, "expand");
    assert_int_equal(m.id, 7);
    assert_int_equal(proto_get_int(m.root, "n", 0), 2);
    proto_msg_free(&m);
    assert_int_equal(parse("{\"v\":1,\"id\":3,\"ok\":true,\"result\":{\"job\":4}}", &m, &code), PROTO_REPLY);
    assert_int_equal(m.ok, 1);
    proto_msg_free(&m);
    assert_int_equal(parse("{\"v\":1,\"id\":null,\"ok\":false,\"error\":\"bad_json\",\"reason\":\"x\"}", &m, &code),
                     PROTO_REPLY);
    assert_int_equal(m.ok, 0);
    assert_int_equal(m.id, -1);
    proto_msg_free(&m);
    /* unknown members are ignored (forward compatibility) */
    assert_int_equal(parse("{\"v\":1,\"id\":1,\"cmd\":\"list\",\"future\":[1,2]}", &m, &code), PROTO_REQUEST);
    proto_msg_free(&m);
}

static void expect_invalid(const char *s, const char *want_code)
{
    struct proto_msg m;
    const char *code = NULL;
    char reason[512];
    int k = proto_parse(s, strlen(s), &m, &code, reason, sizeof reason);
    if (k != PROTO_INVALID) print_message("accepted: %s\n", s);
    assert_int_equal(k, PROTO_INVALID);
    assert_non_null(code);
    assert_string_equal(code, want_code);
    assert_true(strlen(reason) > 0);
    assert_null(m.root);
}

static void test_parse_invalid(void **st)
{
    (void)st;
    expect_invalid("", PERR_BAD_JSON);
    expect_invalid("{", PERR_BAD_JSON);
    expect_invalid("[1,2]", PERR_BAD_REQUEST);
    expect_invalid("{\"id\":1,\"cmd\":\"list\"}", PERR_BAD_VERSION);
    expect_invalid("{\"v\":2,\"id\":1,\"cmd\":\"list\"}", PERR_BAD_VERSION);
    expect_invalid("{\"v\":1,\"cmd\":\"list\"}", PERR_BAD_REQUEST);
    expect_invalid("{\"v\":1,\"id\":-4,\"cmd\":\"list\"}", PERR_BAD_REQUEST);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"launch_missiles\"}", PERR_UNKNOWN_COMMAND);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"expand\",\"job\":1}", PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"expand\",\"job\":1,\"n\":0}", PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"expand\",\"job\":1,\"n\":2.5}", PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"expand\",\"job\":1,\"n\":\"2\"}", PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"expand\",\"job\":1,\"n\":99999999}", PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"expand\",\"job\":1,\"n\":1,\"hosts\":[\"a;rm -rf /\"]}", PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"expand\",\"job\":1,\"n\":1,\"hosts\":[\"node1 --oversubscribe\"]}",
                   PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"expand\",\"job\":1,\"n\":1,\"hosts\":\"node1\"}", PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"shrink\",\"job\":1,\"n\":2,\"ranks\":[1,1]}", PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"io\",\"job\":1,\"action\":\"pause\"}", PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"period\",\"job\":1,\"seconds\":0}", PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"status\",\"job\":0}", PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"a b\",\"pid\":1,\"binary\":\"x\",\"procs\":1}",
                   PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"auth\",\"nonce\":\"00\",\"mac\":\"00\"}", PERR_BAD_ARGUMENT);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"list\",\"ok\":true}", PERR_BAD_REQUEST);
    expect_invalid("{\"v\":1,\"id\":1,\"ok\":false}", PERR_BAD_REQUEST);
    expect_invalid("{\"v\":1,\"id\":1,\"cmd\":\"list\",\"cmd\":\"list\"}", PERR_BAD_JSON); /* duplicate keys */
    /* the id is recovered from an invalid request so that it can be answered */
    struct proto_msg m;
    const char *code;
    char reason[256];
    const char *s = "{\"v\":1,\"id\":42,\"cmd\":\"nope\"}";
    assert_int_equal(proto_parse(s, strlen(s), &m, &code, reason, sizeof reason), PROTO_INVALID);
    assert_int_equal(m.id, 42);
    /* embedded NUL bytes are not JSON */
    const char nul[] = "{\"v\":1,\"id\":1,\"cmd\":\"li\0st\"}";
    assert_int_equal(proto_parse(nul, sizeof nul - 1, &m, &code, reason, sizeof reason), PROTO_INVALID);
}

static void test_too_large(void **st)
{
    (void)st;
    size_t n = PROTO_MAX_LINE + 10;
    char *big = malloc(n + 1);
    memset(big, ' ', n);
    big[n] = '\0';
    struct proto_msg m;
    const char *code;
    char reason[256];
    char *huge = malloc(PROTO_MAX_REPLY + 11);
    memset(huge, ' ', PROTO_MAX_REPLY + 10);
    assert_int_equal(proto_parse(huge, PROTO_MAX_REPLY + 10, &m, &code, reason, sizeof reason), PROTO_INVALID);
    assert_string_equal(code, PERR_TOO_LARGE);
    free(huge);
    struct linebuf lb;
    linebuf_init(&lb);
    assert_int_equal(linebuf_append(&lb, big, n), -1);
    assert_true(lb.overflow);
    linebuf_free(&lb);
    free(big);
}

/* A reply of 1.3 MiB (a status with a long history) is built and read back
 * by a client's line buffer; requests stay bounded by PROTO_MAX_MSG. */
static void test_big_reply(void **st)
{
    (void)st;
    json_t *r = json_object();
    json_t *h = json_array();
    for (int i = 0; i < 30000; i++) json_array_append_new(h, json_pack("{s:i, s:s}", "i", i, "pad", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
    json_object_set_new(r, "history", h);
    char *line = proto_reply_ok(7, r);
    assert_non_null(line);
    assert_true(strlen(line) > PROTO_MAX_MSG);
    assert_null(proto_request(7, "status", r));
    struct linebuf lb;
    linebuf_init_max(&lb, PROTO_MAX_REPLY);
    assert_int_equal(linebuf_append(&lb, line, strlen(line)), 0);
    char *got;
    long n = linebuf_next(&lb, &got);
    assert_int_equal(n, (long)strlen(line) - 1);
    struct proto_msg m;
    const char *code;
    char reason[256];
    assert_int_equal(proto_parse(got, (size_t)n, &m, &code, reason, sizeof reason), PROTO_REPLY);
    assert_int_equal(json_array_size(json_object_get(json_object_get(m.root, "result"), "history")), 30000);
    proto_msg_free(&m);
    free(got);
    linebuf_free(&lb);
    /* a server's buffer still refuses it */
    linebuf_init(&lb);
    linebuf_append(&lb, line, strlen(line));
    assert_int_equal(linebuf_next(&lb, &got), -1);
    assert_null(got);
    assert_true(lb.overflow);
    linebuf_free(&lb);
    free(line);
    json_decref(r);
}

static void test_linebuf(void **st)
{
    (void)st;
    struct linebuf lb;
    linebuf_init(&lb);
    char *line;
    assert_int_equal(linebuf_append(&lb, "ab", 2), 0);
    assert_int_equal(linebuf_next(&lb, &line), 0);
    assert_null(line);
    assert_int_equal(linebuf_append(&lb, "c\r\nde\n\nf", 8), 0);
    assert_int_equal(linebuf_next(&lb, &line), 3);
    assert_string_equal(line, "abc");
    free(line);
    assert_int_equal(linebuf_next(&lb, &line), 2);
    assert_string_equal(line, "de");
    free(line);
    assert_int_equal(linebuf_next(&lb, &line), 0);
    assert_non_null(line); /* an empty line */
    free(line);
    assert_int_equal(linebuf_next(&lb, &line), 0);
    assert_null(line);
    linebuf_free(&lb);
}

/* Lines cut anywhere across appends (only the new bytes are scanned: the
 * buffer keeps the length of the partial line), the limit counted on the
 * partial line alone, and a buffer emptied by its owner (len = 0). */
static void test_linebuf_pieces(void **st)
{
    (void)st;
    struct linebuf lb;
    linebuf_init_max(&lb, 10);
    char *line;
    const char *in[] = {"ab\ncd", "ef\ng", "h", "\n", "123456789"};
    for (int k = 0; k < 4; k++) assert_int_equal(linebuf_append(&lb, in[k], strlen(in[k])), 0);
    const char *want[] = {"ab", "cdef", "gh"};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(linebuf_next(&lb, &line), (long)strlen(want[k]));
        assert_string_equal(line, want[k]);
        free(line);
    }
    assert_int_equal(linebuf_next(&lb, &line), 0);
    assert_null(line);
    for (int k = 0; k < 9; k++) assert_int_equal(linebuf_append(&lb, in[4] + k, 1), 0); /* 9 bytes: under 10 */
    assert_int_equal(linebuf_next(&lb, &line), 0);
    assert_null(line);
    lb.len = 0; /* the owner drops what it holds (ductiled, a closing connection) */
    assert_int_equal(linebuf_append(&lb, "12345678\nx", 10), 0);
    assert_int_equal(linebuf_next(&lb, &line), 8);
    free(line);
    assert_int_equal(linebuf_append(&lb, "123456789", 9), -1); /* x + 9: the partial line reaches 10 */
    assert_true(lb.overflow);
    linebuf_free(&lb);
    /* a backlog of 5,000 lines taken one by one from the front (not moved at each: O(bytes)), lines
     * appended between takes, and its buffer given back once drained (ductiled, issue 25 item 4) */
    linebuf_init(&lb);
    char msg[64];
    long got = 0, put = 0;
    for (; put < 5000; put++) {
        int w = snprintf(msg, sizeof msg, "{\"n\":%ld}\n", put);
        assert_int_equal(linebuf_append(&lb, msg, (size_t)w), 0);
    }
    assert_true(linebuf_has_line(&lb));
    for (; got < 5000; got++) {
        char want_l[64];
        snprintf(want_l, sizeof want_l, "{\"n\":%ld}", got);
        assert_int_equal(linebuf_next(&lb, &line), (long)strlen(want_l));
        assert_string_equal(line, want_l);
        free(line);
        if (got % 1000 == 999) { /* more come while the backlog is cut, a line split across appends */
            int w = snprintf(msg, sizeof msg, "{\"n\":%ld}\n", put++);
            assert_int_equal(linebuf_append(&lb, msg, 3), 0);
            assert_int_equal(linebuf_append(&lb, msg + 3, (size_t)w - 3), 0);
        }
    }
    for (; got < put; got++) {
        assert_true(linebuf_next(&lb, &line) > 0);
        free(line);
    }
    assert_false(linebuf_has_line(&lb));
    assert_true(lb.cap > 2 * 16384);
    assert_int_equal(linebuf_next(&lb, &line), 0);
    assert_null(line);
    assert_null(lb.buf); /* drained: given back */
    assert_int_equal(lb.cap, 0);
    assert_int_equal(linebuf_append(&lb, "ok\n", 3), 0);
    assert_int_equal(linebuf_next(&lb, &line), 2);
    assert_string_equal(line, "ok");
    free(line);
    linebuf_free(&lb);
    /* a line already as text (ductiled's list) reads back as a reply */
    char *l = proto_reply_ok_text(5, "{\"jobs\":[]}", 11);
    struct proto_msg m;
    const char *code;
    char reason[256];
    assert_non_null(l);
    assert_int_equal(proto_parse(l, strlen(l) - 1, &m, &code, reason, sizeof reason), PROTO_REPLY);
    assert_int_equal(m.id, 5);
    assert_int_equal(m.ok, 1);
    assert_true(json_is_array(json_object_get(json_object_get(m.root, "result"), "jobs")));
    proto_msg_free(&m);
    free(l);
}

static void test_builders(void **st)
{
    (void)st;
    json_t *args = json_pack("{s:i, s:i}", "job", 3, "n", 2);
    char *l = proto_request(9, "expand", args);
    json_decref(args);
    assert_non_null(l);
    assert_int_equal(l[strlen(l) - 1], '\n');
    struct proto_msg m;
    const char *code;
    char reason[256];
    assert_int_equal(proto_parse(l, strlen(l) - 1, &m, &code, reason, sizeof reason), PROTO_REQUEST);
    assert_int_equal(m.id, 9);
    proto_msg_free(&m);
    free(l);
    l = proto_reply_err(5, PERR_NO_SLOTS, "only 1 of 4 free");
    assert_int_equal(proto_parse(l, strlen(l) - 1, &m, &code, reason, sizeof reason), PROTO_REPLY);
    assert_int_equal(m.ok, 0);
    assert_string_equal(proto_get_str(m.root, "error", ""), PERR_NO_SLOTS);
    proto_msg_free(&m);
    free(l);
    /* a reason with invalid UTF-8 still gives a valid reply */
    l = proto_reply_err(-1, PERR_BAD_JSON, "bad \xff\xfe bytes");
    assert_non_null(l);
    assert_int_equal(proto_parse(l, strlen(l) - 1, &m, &code, reason, sizeof reason), PROTO_REPLY);
    proto_msg_free(&m);
    free(l);
}

static void test_hostnames(void **st)
{
    (void)st;
    assert_true(proto_valid_hostname("node1"));
    assert_true(proto_valid_hostname("n-1.cluster.example.org"));
    assert_true(proto_valid_hostname("10.0.0.1"));
    const char *bad[] = {"", "-node", "node-", "a..b", ".a", "a.", "node 1", "a;b", "a,b", "$(reboot)", "a\"b",
                         "a=b", "a:b", "a/b", "a_b", "nöde", NULL};
    for (int i = 0; bad[i]; i++) {
        if (proto_valid_hostname(bad[i])) print_message("accepted host '%s'\n", bad[i]);
        assert_false(proto_valid_hostname(bad[i]));
    }
    char longlabel[80];
    memset(longlabel, 'a', 64);
    longlabel[64] = '\0';
    assert_false(proto_valid_hostname(longlabel));
    assert_true(proto_valid_tag("job-1.x_y"));
    assert_false(proto_valid_tag("job 1"));
}

static void test_auth(void **st)
{
    (void)st;
    char path[] = "/tmp/ductile-test-secret-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    /* 16 bytes as hex: too little entropy (32 bytes are needed) */
    const char *weak = "0123456789abcdef0123456789abcdef\n";
    assert_int_equal(write(fd, weak, strlen(weak)), (ssize_t)strlen(weak));
    close(fd);
    chmod(path, 0600);
    struct auth_secret s, other;
    char err[512];
    assert_int_equal(auth_load_secret(path, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "entropy"));
    /* 32 bytes of one repeated letter: refused */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_int_equal(write(fd, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", 44), 44);
    close(fd);
    assert_int_equal(auth_load_secret(path, &s, err, sizeof err), -1);
    const char *good = "3f9a1c77e0b24d5a8c6e1f02b9d3a4c58e7f6a1b2c3d4e5f60718293a4b5c6d7\n";
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_int_equal(write(fd, good, strlen(good)), (ssize_t)strlen(good));
    close(fd);
    assert_int_equal(auth_load_secret(path, &s, err, sizeof err), 0);
    assert_int_equal(s.len, 32);
    /* the key is derived (HKDF), not the file's bytes */
    assert_int_not_equal(memcmp(s.key, good, 32), 0);
    char ns[AUTH_NONCE_HEX + 1], nc[AUTH_NONCE_HEX + 1], mac[AUTH_MAC_HEX + 1];
    assert_int_equal(auth_nonce(ns), 0);
    assert_int_equal(auth_nonce(nc), 0);
    assert_string_not_equal(ns, nc);
    assert_int_equal(auth_mac(&s, "client", ns, nc, mac), 0);
    assert_true(auth_verify(&s, "client", ns, nc, mac));
    assert_false(auth_verify(&s, "server", ns, nc, mac)); /* roles differ */
    assert_false(auth_verify(&s, "client", nc, ns, mac)); /* nonces swapped */
    mac[3] = mac[3] == '0' ? '1' : '0';
    assert_false(auth_verify(&s, "client", ns, nc, mac));
    assert_false(auth_verify(&s, "client", ns, nc, "short"));
    /* the secret itself does not appear in the MAC */
    assert_null(strstr(mac, "secret"));
    memcpy(&other, &s, sizeof s);
    other.key[0] ^= 1;
    assert_int_equal(auth_mac(&s, "client", ns, nc, mac), 0);
    assert_false(auth_verify(&other, "client", ns, nc, mac));
    /* group- or world-readable secret files are refused */
    chmod(path, 0640);
    assert_int_equal(auth_load_secret(path, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "refused"));
    chmod(path, 0604);
    assert_int_equal(auth_load_secret(path, &s, err, sizeof err), -1);
    /* too short */
    chmod(path, 0600);
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_int_equal(write(fd, "short\n", 6), 6);
    close(fd);
    assert_int_equal(auth_load_secret(path, &s, err, sizeof err), -1);
    unlink(path);
    assert_int_equal(auth_load_secret("/nonexistent/secret", &s, err, sizeof err), -1);
}

static void test_rm(void **st)
{
    (void)st;
    char path[] = "/tmp/ductile-test-hosts-XXXXXX";
    int fd = mkstemp(path);
    const char *hf = "# cluster\nnodeA slots=2\nnodeB slots=2\nnodeC:1\n";
    assert_int_equal(write(fd, hf, strlen(hf)), (ssize_t)strlen(hf));
    close(fd);
    struct rm rm;
    char err[256];
    assert_int_equal(rm_init_hostfile(&rm, path, err, sizeof err), 0);
    assert_int_equal(rm.nhosts, 3);
    assert_int_equal(rm_total(&rm), 5);
    int *a = rm_alloc_new(&rm), *b = rm_alloc_new(&rm);
    assert_int_equal(rm_adopt(&rm, a, "nodeB", 1), 1);
    int where[8];
    char reason[256];
    /* job a already uses nodeB: it is preferred */
    assert_int_equal(rm_grant(&rm, a, 1, NULL, where, reason, sizeof reason), 0);
    assert_string_equal(rm.hosts[where[0]].name, "nodeB");
    /* the next goes elsewhere (nodeB full) */
    assert_int_equal(rm_grant(&rm, a, 1, NULL, where, reason, sizeof reason), 0);
    assert_string_equal(rm.hosts[where[0]].name, "nodeA");
    assert_int_equal(rm_free_slots(&rm), 2);
    /* too many: refused with a reason, nothing taken */
    assert_int_equal(rm_grant(&rm, b, 3, NULL, where, reason, sizeof reason), -1);
    assert_non_null(strstr(reason, "not enough free slots"));
    assert_int_equal(rm_free_slots(&rm), 2);
    /* explicit hosts */
    const char *want[] = {"nodeC"};
    assert_int_equal(rm_grant(&rm, b, 1, want, where, reason, sizeof reason), 0);
    const char *want2[] = {"nodeC"};
    assert_int_equal(rm_grant(&rm, b, 1, want2, where, reason, sizeof reason), -1);
    const char *want3[] = {"nodeZ"};
    assert_int_equal(rm_grant(&rm, b, 1, want3, where, reason, sizeof reason), -1);
    assert_non_null(strstr(reason, "not managed"));
    /* release: job a gives back its least-used host first */
    assert_int_equal(rm_release(&rm, a, 1), 1);
    assert_int_equal(a[0], 0); /* nodeA */
    assert_int_equal(a[1], 2);
    rm_release_all(&rm, a);
    rm_release_all(&rm, b);
    assert_int_equal(rm_free_slots(&rm), 5);
    /* host states, as `ductilectl slots` shows them */
    assert_string_equal(rm_host_state(&rm, 0), "up");
    rm.hosts[0].away = RM_OUTSIDE;
    assert_string_equal(rm_host_state(&rm, 0), "outside");
    rm.hosts[0].away = RM_RELEASED;
    assert_string_equal(rm_host_state(&rm, 0), "released");
    rm.hosts[0].away = RM_LOST;
    assert_string_equal(rm_host_state(&rm, 0), "lost");
    assert_string_equal(rm_host_state(&rm, 99), "up");
    rm.hosts[0].away = RM_UP;
    free(a);
    free(b);
    rm_destroy(&rm);
    /* bad hostfiles */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_int_equal(write(fd, "bad;host\n", 9), 9);
    close(fd);
    assert_int_equal(rm_init_hostfile(&rm, path, err, sizeof err), -1);
    unlink(path);
}

static json_t *req_of(const char *s)
{
    struct proto_msg m;
    const char *code;
    char reason[256];
    assert_int_equal(proto_parse(s, strlen(s), &m, &code, reason, sizeof reason), PROTO_REQUEST);
    return m.root;
}

static void test_jobs(void **st)
{
    (void)st;
    struct rm rm;
    rm_init_slots(&rm, "here", 4);
    struct jobs t;
    jobs_init(&t, &rm);
    char reason[256];
    json_t *r = req_of("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"77\",\"pid\":77,\"binary\":\"app\",\"procs\":2,"
                       "\"hosts\":[{\"name\":\"here\",\"procs\":2}],\"malleable\":true,"
                       "\"arrays\":[{\"name\":\"x\",\"elements\":1000,\"elem_size\":8}]}");
    struct job *j = jobs_register(&t, r, 100.0, reason, sizeof reason);
    json_decref(r);
    assert_non_null(j);
    assert_int_equal(j->id, 1);
    assert_int_equal(rm_free_slots(&rm), 2);
    /* samples: an I/O phase every 3 samples */
    for (int i = 0; i < 9; i++) {
        char s[512];
        snprintf(s, sizeof s,
                 "{\"v\":1,\"id\":%d,\"cmd\":\"sample\",\"job\":1,\"t\":%d,\"iteration\":%d,\"procs\":2,\"iters\":10,"
                 "\"interval_s\":1.0,\"compute_s\":0.6,\"comm_s\":0.3,\"io_s\":%s,\"bytes\":100000000}",
                 i + 2, 101 + i, 10 * (i + 1), i % 3 == 2 ? "0.1" : "0");
        r = req_of(s);
        jobs_sample(&t, j, r, 101.0 + i);
        json_decref(r);
    }
    json_t *iop = jobs_io_period(j);
    assert_int_equal(proto_get_int(iop, "phases", 0), 3);
    assert_int_equal(proto_get_int(iop, "periods", 0), 2);
    assert_true(fabs(proto_get_num(iop, "mean_period_s", 0) - 3.0) < 1e-9);
    /* the period and the next phase come from the predictor (iop_predict): phases started at 102, 105, 108 */
    assert_true(fabs(proto_get_num(iop, "next_io_t", 0) - 111.0) < 1e-9);
    /* Eq. 1: the period is the sum of its cpu, communication and I/O times */
    assert_true(fabs(proto_get_num(iop, "last_period_s", 0) -
                     (proto_get_num(iop, "t_cpu_s", 0) + proto_get_num(iop, "t_comm_s", 0) +
                      proto_get_num(iop, "t_io_s", 0))) < 1e-9);
    json_decref(iop);
    /* cost: 1000 doubles 2 -> 4 */
    json_t *c = jobs_cost(&t, j, 4);
    assert_true(proto_get_num(c, "bytes", 0) > 0);
    assert_string_equal(proto_get_str(c, "bandwidth_source", ""), "measured");
    assert_true(json_is_true(json_object_get(c, "feasible")));
    json_decref(c);
    c = jobs_cost(&t, j, 9);
    assert_false(json_is_true(json_object_get(c, "feasible")));
    json_decref(c);
    /* DUCTILE_PERSISTENT: 2 -> 4 spawned, 4 -> 2 left 2 processes on standby: 2 -> 4 needs no spawn */
    jobs_event(j, "resized", json_pack("{s:s, s:i, s:i, s:s, s:f, s:i}", "op", "expand", "from", 2, "to", 4, "status",
                                       "ok", "spawn_s", 0.25, "standby", 0), 150.0);
    jobs_event(j, "resized", json_pack("{s:s, s:i, s:i, s:s, s:f, s:i}", "op", "shrink", "from", 4, "to", 2, "status",
                                       "ok", "spawn_s", 0.0, "standby", 2), 151.0);
    c = jobs_cost(&t, j, 4);
    assert_true(proto_get_num(c, "spawn_s", 1) == 0);
    assert_string_equal(proto_get_str(c, "spawn_source", ""), "standby processes");
    json_decref(c);
    c = jobs_cost(&t, j, 3); /* another size: the standby processes would be released, a spawn is needed */
    assert_true(fabs(proto_get_num(c, "spawn_s", 0) - 0.25) < 1e-9);
    assert_string_equal(proto_get_str(c, "spawn_source", ""), "measured");
    json_decref(c);
    /* a growth the job reports (a resize nobody placed) takes slots on its host */
    json_t *ev = json_pack("{s:s, s:i, s:i, s:s}", "op", "expand", "from", 2, "to", 3, "status", "ok");
    jobs_resized(&t, j, ev, 200);
    json_decref(ev);
    assert_int_equal(j->procs, 3);
    assert_int_equal(rm_free_slots(&rm), 1);
    /* state file round trip */
    char path[] = "/tmp/ductile-test-state-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    char err[256];
    assert_int_equal(jobs_save(&t, path, err, sizeof err), 0);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 077, 0);
    struct rm rm2;
    rm_init_slots(&rm2, "here", 4);
    struct jobs t2;
    jobs_init(&t2, &rm2);
    assert_int_equal(jobs_load(&t2, path, 300, err, sizeof err), 0);
    struct job *j2 = jobs_get(&t2, 1);
    assert_non_null(j2);
    assert_int_equal(j2->state, JOB_DISCONNECTED);
    assert_int_equal(j2->procs, 3);
    assert_int_equal(rm_free_slots(&rm2), 1); /* slots kept while it reconnects */
    assert_int_equal(t2.next_id, 2);
    /* it comes back: same id */
    r = req_of("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"77\",\"pid\":77,\"binary\":\"app\",\"procs\":3,\"job\":1}");
    struct job *j3 = jobs_register(&t2, r, 301, reason, sizeof reason);
    json_decref(r);
    assert_ptr_equal(j3, j2);
    assert_int_equal(j3->state, JOB_RUNNING);
    assert_int_equal(rm_free_slots(&rm2), 1);
    /* another job claiming id 1 gets a new id */
    r = req_of("{\"v\":1,\"id\":1,\"cmd\":\"register\",\"tag\":\"88\",\"pid\":88,\"binary\":\"b\",\"procs\":1,\"job\":1}");
    struct job *j4 = jobs_register(&t2, r, 302, reason, sizeof reason);
    json_decref(r);
    assert_non_null(j4);
    assert_int_equal(j4->id, 2);
    /* exit frees the slots */
    jobs_exit(&t2, j3, 0, 303);
    assert_int_equal(rm_free_slots(&rm2), 3);
    /* a restored job that never comes back is lost after the grace period */
    jobs_lost_connection(&t2, j4, 304);
    assert_int_equal(j4->state, JOB_CRASHED);
    assert_int_equal(rm_free_slots(&rm2), 4);
    unlink(path);
    jobs_destroy(&t);
    jobs_destroy(&t2);
    rm_destroy(&rm);
    rm_destroy(&rm2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_valid), cmocka_unit_test(test_parse_invalid), cmocka_unit_test(test_too_large), cmocka_unit_test(test_big_reply),
        cmocka_unit_test(test_linebuf),     cmocka_unit_test(test_linebuf_pieces),     cmocka_unit_test(test_builders),      cmocka_unit_test(test_hostnames),
        cmocka_unit_test(test_auth),        cmocka_unit_test(test_rm),            cmocka_unit_test(test_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
