/* test_settings.c -- unit tests of the DUCTILE_* settings parser (CMocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/common/settings.h"
#include "../../src/proto/net.h"

static int parse(char **env, struct ductile_settings *s, char *err)
{
    return settings_parse(env, s, err, 512);
}

static void test_defaults(void **state)
{
    (void)state;
    char *env[] = {"PATH=/bin", "HOME=/root", NULL};
    struct ductile_settings s;
    char err[512] = "";
    assert_int_equal(parse(env, &s, err), 0);
    assert_int_equal(s.disable, 0);
    assert_int_equal(s.monitor, 1);
    assert_string_equal(s.report, "ductile-%j.json");
    assert_int_equal(s.summary, 1);
    assert_int_equal(s.verbose, 0);
    assert_int_equal(s.iter_detect, 1);
    assert_int_equal(s.iter_frames, 3);
    assert_int_equal(s.iter_repeats, 3);
    assert_int_equal(s.iter_max_calls, 1000000);
    assert_string_equal(s.job_id, "");
}

static void test_values(void **state)
{
    (void)state;
    char *env[] = {"DUCTILE_MONITOR=off", "DUCTILE_VERBOSE=2", "DUCTILE_REPORT=none", "DUCTILE_ITER_FRAMES=8",
                   "DUCTILE_JOB_ID=abc", "DUCTILE_SUMMARY=FALSE", NULL};
    struct ductile_settings s;
    char err[512] = "";
    assert_int_equal(parse(env, &s, err), 0);
    assert_int_equal(s.monitor, 0);
    assert_int_equal(s.verbose, 2);
    assert_string_equal(s.report, "");
    assert_int_equal(s.iter_frames, 8);
    assert_string_equal(s.job_id, "abc");
    assert_int_equal(s.summary, 0);
}

static void test_bad_bool(void **state)
{
    (void)state;
    char *env[] = {"DUCTILE_MONITOR=maybe", NULL};
    struct ductile_settings s;
    char err[512] = "";
    assert_int_equal(parse(env, &s, err), -1);
    assert_string_equal(err, "DUCTILE_MONITOR='maybe' is not valid: expected a boolean (1/0, yes/no, on/off, true/false)");
}

static void test_bad_int(void **state)
{
    (void)state;
    const char *bad[] = {"DUCTILE_VERBOSE=4", "DUCTILE_VERBOSE=-1", "DUCTILE_VERBOSE=", "DUCTILE_VERBOSE=1x",
                         "DUCTILE_ITER_FRAMES=0", "DUCTILE_ITER_REPEATS=99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *env[] = {(char *)bad[i], NULL};
        struct ductile_settings s;
        char err[512] = "";
        assert_int_equal(parse(env, &s, err), -1);
        assert_non_null(strstr(err, "is not valid: expected an integer from"));
    }
}

static void test_unknown_suggests(void **state)
{
    (void)state;
    char *env[] = {"DUCTILE_MONTIOR=1", NULL};
    struct ductile_settings s;
    char err[512] = "";
    assert_int_equal(parse(env, &s, err), -1);
    assert_string_equal(err, "unknown setting DUCTILE_MONTIOR='1' (did you mean DUCTILE_MONITOR?); "
                             "'ductile-run --help' lists every setting");
    char *env2[] = {"DUCTILE_COMPLETELY_DIFFERENT=1", NULL};
    assert_int_equal(parse(env2, &s, err), -1);
    assert_null(strstr(err, "did you mean"));
}

static void test_bool_words(void **state)
{
    (void)state;
    assert_int_equal(settings_parse_bool("YES"), 1);
    assert_int_equal(settings_parse_bool("on"), 1);
    assert_int_equal(settings_parse_bool("True"), 1);
    assert_int_equal(settings_parse_bool("0"), 0);
    assert_int_equal(settings_parse_bool("Off"), 0);
    assert_int_equal(settings_parse_bool(""), -1);
    assert_int_equal(settings_parse_bool("2"), -1);
}

static void test_expand_path(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(settings_expand_path("ductile-%j.json", "42", 7, out, sizeof out), 0);
    assert_string_equal(out, "ductile-42.json");
    assert_int_equal(settings_expand_path("r-%p-%%-%x", "j", 1234, out, sizeof out), 0);
    assert_string_equal(out, "r-1234-%-%x");
    assert_int_equal(settings_expand_path("0123456789", "j", 1, out, 10), -1);
    assert_int_equal(settings_expand_path("012345678", "j", 1, out, 10), 0);
}

static void test_every_default_parses(void **state)
{
    (void)state;
    /* each default, set explicitly, must parse */
    for (const struct setting_def *d = ductile_setting_defs; d->name; d++) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s=%s", d->name, d->default_value);
        char *env[] = {buf, NULL};
        struct ductile_settings s;
        char err[512] = "";
        assert_int_equal(parse(env, &s, err), 0);
        assert_non_null(d->help);
    }
}

/* DUCTILE_WSIZE is a setting like the others (it was refused as unknown) */
static void test_wsize(void **state)
{
    (void)state;
    struct ductile_settings s;
    char err[512] = "";
    char *env0[] = {NULL};
    assert_int_equal(parse(env0, &s, err), 0);
    assert_string_equal(s.wsize, "flexmpi");
    char *env1[] = {"DUCTILE_WSIZE=first", NULL};
    assert_int_equal(parse(env1, &s, err), 0);
    assert_string_equal(s.wsize, "first");
    char *env2[] = {"DUCTILE_WSIZE=middle", NULL};
    assert_int_equal(parse(env2, &s, err), -1);
    assert_string_equal(err, "DUCTILE_WSIZE='middle' is not valid: expected one of flexmpi,first");
}

/* DUCTILE_CONTROLLER: a bad address is refused here, naming it; every
 * address accepted here is one src/proto/net.c's net_parse_addr takes, and
 * every word appctl.c knows is accepted */
static void test_controller(void **state)
{
    (void)state;
    static const char *const good[] = {"auto", "off", "none", "", "unix:/tmp/x.sock", "/tmp/x.sock", "tcp:localhost:9",
                                       "tcp:10.0.0.1:65535", "tcp:[::1]:80", "tcp:node-1.example.org:7000", NULL};
    static const char *const bad[] = {"bogus", "tcp:nohost", "tcp:host:99999", "tcp:host:0", "tcp:host:", "tcp::80",
                                      "tcp:a:b:80", "tcp:ho st:80", "tcp:host:80x", "unix:", "tcp:[::1]80", "x.sock",
                                      NULL};
    char why[160];
    for (int i = 0; good[i]; i++) {
        assert_int_equal(settings_check_address(good[i], why, sizeof why), 0);
        if (!*good[i] || !strcmp(good[i], "auto") || !strcmp(good[i], "off") || !strcmp(good[i], "none")) continue;
        struct net_addr a;
        char err[256];
        if (net_parse_addr(good[i], &a, err, sizeof err) != 0) fail_msg("net_parse_addr refuses '%s': %s", good[i], err);
    }
    for (int i = 0; bad[i]; i++) {
        if (settings_check_address(bad[i], why, sizeof why) == 0) fail_msg("'%s' accepted", bad[i]);
        struct net_addr a;
        char err[256];
        if (net_parse_addr(bad[i], &a, err, sizeof err) == 0) fail_msg("net_parse_addr takes '%s', refused here", bad[i]);
    }
    struct ductile_settings s;
    char err[512] = "";
    char *env[] = {"DUCTILE_CONTROLLER=tcp:nohost", NULL};
    assert_int_equal(parse(env, &s, err), -1);
    assert_non_null(strstr(err, "DUCTILE_CONTROLLER='tcp:nohost' is not valid"));
    char *env2[] = {"DUCTILE_CONTROLLER=unix:/run/d.sock", NULL};
    assert_int_equal(parse(env2, &s, err), 0);
    assert_string_equal(s.controller, "unix:/run/d.sock");
}

/* fields of each width get their value; a setting without a field is only validated */
static void test_fields(void **state)
{
    (void)state;
    char *env[] = {"DUCTILE_ITER_MAX_CALLS=2000000000", "DUCTILE_TEST_INT_LIMIT=2147483647", "DUCTILE_MIN_PROCS=7",
                   "DUCTILE_TEST_FAIL=spawn", "DUCTILE_REPORT_RANKS=3", NULL};
    struct ductile_settings s;
    char err[512] = "";
    assert_int_equal(parse(env, &s, err), 0);
    assert_int_equal(s.iter_max_calls, 2000000000L);
    assert_int_equal(s.test_int_limit, 2147483647L);
    assert_int_equal(s.min_procs, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),       cmocka_unit_test(test_values),
        cmocka_unit_test(test_bad_bool),       cmocka_unit_test(test_bad_int),
        cmocka_unit_test(test_unknown_suggests), cmocka_unit_test(test_bool_words),
        cmocka_unit_test(test_expand_path),    cmocka_unit_test(test_every_default_parses),
        cmocka_unit_test(test_wsize),          cmocka_unit_test(test_controller),
        cmocka_unit_test(test_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
