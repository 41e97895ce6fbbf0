/* test_settings.c -- unit tests of the DUCTILE_* settings parser (CMocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/common/settings.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),       cmocka_unit_test(test_values),
        cmocka_unit_test(test_bad_bool),       cmocka_unit_test(test_bad_int),
        cmocka_unit_test(test_unknown_suggests), cmocka_unit_test(test_bool_words),
        cmocka_unit_test(test_expand_path),    cmocka_unit_test(test_every_default_parses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
