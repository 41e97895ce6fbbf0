/* test_policy.c -- CMocka unit tests for src/malleable/policy.{h,c}: which
 * resize requests the engine carries out and why it refuses the others, and
 * the constant-data strategy that applies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy.h"
#include "schedule.h"

static int check(int ns, int nd, int baseline, int sparse, const char *req, const char *hosts, const char **list, char *why)
{
    struct policy_request r = {ns, nd, baseline, sparse, req, hosts, NULL};
    return policy_check(&r, list, why, 400);
}

static void test_sizes(void **state)
{
    (void)state;
    const char *list;
    char why[400];
    assert_int_equal(check(2, 4, 0, 0, "", NULL, &list, why), 0);
    assert_string_equal(list, "");
    assert_string_equal(why, "");
    assert_int_equal(check(4, 2, 0, 0, "", NULL, &list, why), 0);
    assert_int_equal(check(2, 0, 0, 0, "", NULL, &list, why), -1);
    assert_non_null(strstr(why, "below one process"));
    assert_int_equal(check(3, 3, 0, 0, "", NULL, &list, why), -1);
    assert_non_null(strstr(why, "already has 3 processes"));
    assert_int_equal(check(1, 1, 0, 0, "", NULL, &list, why), -1);
    assert_non_null(strstr(why, "already has 1 process"));
    assert_int_equal(check(2, 3, 0, 1, "", NULL, &list, why), -1);
    assert_non_null(strstr(why, "sparse"));
    assert_string_equal(list, "");
}

static void test_hosts(void **state)
{
    (void)state;
    const char *list;
    char why[400];
    /* the request's hosts win over DUCTILE_SPAWN_HOSTS */
    assert_int_equal(check(2, 4, 0, 0, "localhost;localhost", "other", &list, why), 0);
    assert_string_equal(list, "localhost;localhost");
    /* the request's list names one host per new process; the setting is a set of hosts */
    assert_int_equal(check(2, 4, 0, 0, "localhost", NULL, &list, why), -1);
    assert_string_equal(why, "1 host listed for 2 new processes (one per new process)");
    assert_int_equal(check(2, 4, 0, 0, "", "localhost", &list, why), 0);
    assert_string_equal(list, "localhost");
    assert_int_equal(check(2, 4, 0, 0, "bad host!", NULL, &list, why), -1);
    assert_string_equal(list, "");
    assert_true(why[0] != '\0');
    /* baseline shrink: the launcher places the new processes; no list of leaving ranks */
    assert_int_equal(check(4, 2, 1, 0, "", "localhost", &list, why), 0);
    assert_string_equal(list, "");
    assert_int_equal(check(4, 2, 1, 0, "3;2", NULL, &list, why), -1);
    assert_non_null(strstr(why, "baseline"));
}

static void test_leaving_ranks(void **state)
{
    (void)state;
    const char *list;
    char why[400];
    assert_int_equal(check(4, 2, 0, 0, "0;2", NULL, &list, why), 0);
    assert_string_equal(list, "0;2");
    assert_int_equal(check(4, 2, 0, 0, "1", NULL, &list, why), -1);
    assert_non_null(strstr(why, "1 ranks listed to leave, 2 must"));
    assert_int_equal(check(4, 3, 0, 0, "7", NULL, &list, why), -1);
    assert_non_null(strstr(why, "rank 7 does not exist (world of 4)"));
    assert_string_equal(list, "");
    assert_int_equal(check(4, 3, 0, 0, "x", NULL, &list, why), -1);
    assert_true(why[0] != '\0');
}

static void test_strategy(void **state)
{
    (void)state;
    int note = -1;
    assert_int_equal(policy_const_strategy("nb"), CONST_NB);
    assert_int_equal(policy_const_strategy("wd"), CONST_WD);
    assert_int_equal(policy_const_strategy("thread"), CONST_THREAD);
    assert_int_equal(policy_const_strategy("blocking"), CONST_BLOCKING);
    assert_int_equal(policy_const_strategy(NULL), CONST_BLOCKING);
    assert_int_equal(policy_const_effective(CONST_NB, 1, 1, &note), CONST_WD);
    assert_int_equal(note, 1);
    assert_int_equal(policy_const_effective(CONST_NB, 0, 0, &note), CONST_NB);
    assert_int_equal(note, 0);
    assert_int_equal(policy_const_effective(CONST_THREAD, 0, 0, &note), CONST_BLOCKING);
    assert_int_equal(note, 2);
    assert_int_equal(policy_const_effective(CONST_THREAD, 1, 1, &note), CONST_THREAD);
    assert_int_equal(note, 0);
}

/* the job's size constraints (src/common/sizes.h): a count outside them is refused with the reason */
static void test_constraints(void **state)
{
    (void)state;
    const char *list;
    char why[400];
    struct ductile_sizes sz = {0};
    assert_int_equal(sizes_parse("allowed=squares|multiples:3,max=9", &sz, why, sizeof why), 0);
    struct policy_request r = {4, 9, 0, 0, "", NULL, &sz};
    assert_int_equal(policy_check(&r, &list, why, sizeof why), 0);
    r.nd = 6;
    assert_int_equal(policy_check(&r, &list, why, sizeof why), 0);
    r.nd = 5;
    assert_int_equal(policy_check(&r, &list, why, sizeof why), -1);
    assert_non_null(strstr(why, "the job cannot run on 5 processes: 5 processes is not among the job's allowed counts"));
    r.nd = 12;
    assert_int_equal(policy_check(&r, &list, why, sizeof why), -1);
    assert_non_null(strstr(why, "above the job's maximum of 9"));
    assert_string_equal(list, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_hosts),
        cmocka_unit_test(test_leaving_ranks),
        cmocka_unit_test(test_strategy),
        cmocka_unit_test(test_constraints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
