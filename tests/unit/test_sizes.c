/* test_sizes.c -- CMocka unit tests for src/common/sizes.{h,c}: a job's size
 * constraints (min, max, step, allowed counts, preferred count), the reason
 * a count is refused, malformed specifications, the nearest allowed count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sizes.h"

static void test_none(void **state)
{
    (void)state;
    struct ductile_sizes s = {0};
    char why[400];
    for (int n = 1; n < 100; n++) assert_true(sizes_allows(&s, n, why, sizeof why));
    assert_false(sizes_allows(&s, 0, why, sizeof why));
    assert_int_equal(sizes_nearest(&s, 7, 1, 10), 7);
    sizes_format(&s, why, sizeof why);
    assert_string_equal(why, "");
}

static void test_squares_or_multiples(void **state)
{
    (void)state;
    struct ductile_sizes s = {0};
    char why[400];
    assert_int_equal(sizes_parse("allowed=squares|multiples:3", &s, why, sizeof why), 0);
    int ok[] = {1, 3, 4, 6, 9, 12, 15, 16, 18, 25};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) assert_true(sizes_allows(&s, ok[i], why, sizeof why));
    int no[] = {2, 5, 7, 8, 10, 11, 13, 14, 17};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) assert_false(sizes_allows(&s, no[i], why, sizeof why));
    assert_false(sizes_allows(&s, 5, why, sizeof why));
    assert_non_null(strstr(why, "5 processes is not among the job's allowed counts (squares|multiples:3)"));
    assert_int_equal(sizes_nearest(&s, 5, 1, 100), 6);
    assert_int_equal(sizes_nearest(&s, 5, -1, 100), 4);
    assert_int_equal(sizes_nearest(&s, 8, 0, 100), 9);
    assert_int_equal(sizes_nearest(&s, 2, -1, 100), 1);
}

static void test_min_max_step_preferred(void **state)
{
    (void)state;
    struct ductile_sizes s = {0};
    char why[400];
    assert_int_equal(sizes_parse("min=2,max=10,step=2,preferred=6", &s, why, sizeof why), 0);
    assert_true(sizes_allows(&s, 2, why, sizeof why));
    assert_true(sizes_allows(&s, 8, why, sizeof why));
    assert_false(sizes_allows(&s, 1, why, sizeof why));
    assert_non_null(strstr(why, "below the job's minimum of 2"));
    assert_false(sizes_allows(&s, 12, why, sizeof why));
    assert_non_null(strstr(why, "above the job's maximum of 10"));
    assert_false(sizes_allows(&s, 5, why, sizeof why));
    assert_non_null(strstr(why, "step 2"));
    assert_int_equal(sizes_nearest(&s, 11, 1, 100), 0);
    assert_int_equal(sizes_nearest(&s, 11, -1, 100), 10);
    char spec[200];
    sizes_format(&s, spec, sizeof spec);
    assert_string_equal(spec, "min=2,max=10,step=2,preferred=6");
    struct ductile_sizes t = {0};
    assert_int_equal(sizes_parse(spec, &t, why, sizeof why), 0);
    assert_memory_equal(&s, &t, sizeof s);
    /* keys not given keep their values */
    assert_int_equal(sizes_parse("max=20", &s, why, sizeof why), 0);
    assert_int_equal(s.min, 2);
    assert_int_equal(s.max, 20);
    assert_int_equal(s.step, 2);
    assert_int_equal(sizes_parse("allowed=4|6|10", &s, why, sizeof why), 0);
    assert_true(sizes_allows(&s, 10, why, sizeof why));
    assert_false(sizes_allows(&s, 8, why, sizeof why));
    assert_int_equal(sizes_parse("allowed=pow2,preferred=0", &s, why, sizeof why), 0);
    assert_true(sizes_allows(&s, 16, why, sizeof why));
    assert_false(sizes_allows(&s, 12, why, sizeof why));
}

static void test_bad(void **state)
{
    (void)state;
    struct ductile_sizes s = {0}, before;
    char why[400];
    assert_int_equal(sizes_parse("min=4,max=16,allowed=squares", &s, why, sizeof why), 0);
    before = s;
    const char *bad[] = {"min=8,max=4", "max=2", "preferred=5", "step=-1", "min=x", "allowed=cubes",
                         "allowed=squares|", "allowed=multiples:0", "size=4", "min", "preferred=2"};
    const char *says[] = {"min=8 is above max=4", "min=4 is above max=2", "preferred=5 cannot be used", "not a count",
                          "not a count", "'cubes' is not squares", "ends with '|'", "'multiples:0'", "unknown key 'size'",
                          "not KEY=VALUE", "below the job's minimum"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sizes_parse(bad[i], &s, why, sizeof why), -1);
        if (!strstr(why, says[i])) fail_msg("'%s': '%s' does not say '%s'", bad[i], why, says[i]);
        assert_memory_equal(&s, &before, sizeof s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_squares_or_multiples),
        cmocka_unit_test(test_min_max_step_preferred),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
