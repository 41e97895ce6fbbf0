/* test_rankpick.c -- the ranks that leave a shrink emptying hosts
 * (src/daemon/rankpick.c) and their text form (src/common/rankset.c): the
 * choice is the earlier O(leavers x (hosts + P)) loop's, rank for rank, on
 * random placements; the text names exactly the ranks, in a few bytes for
 * blocks and strides, and refuses what is malformed or out of range; and at
 * 16,384 and 65,536 ranks the operation count and the bytes the choice
 * allocates (counted by rankpick, never timed) grow no faster than P log P. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/common/rankset.h"
#include "../../src/daemon/rankpick.h"

/* the loop slurm.c ran before rankpick.c */
static int reference(const int *rank_host, int procs, int nh, int n, int *leave)
{
    int nleave = 0;
    int *cnt = calloc((size_t)nh, sizeof(int));
    char *taken = calloc((size_t)procs, 1);
    assert_non_null(cnt);
    assert_non_null(taken);
    for (int r = 0; r < procs; r++)
        if (rank_host[r] >= 0) cnt[rank_host[r]]++;
    while (nleave < n) {
        int best = -1;
        for (int h = 0; h < nh; h++) {
            int avail = cnt[h] - (h == rank_host[0]);
            if (avail <= 0) continue;
            if (best < 0 || cnt[h] <= cnt[best]) best = h;
        }
        if (best < 0) break;
        for (int r = procs - 1; r > 0 && nleave < n; r--)
            if (!taken[r] && rank_host[r] == best) {
                taken[r] = 1;
                leave[nleave++] = r;
                cnt[best]--;
                break;
            }
    }
    free(cnt);
    free(taken);
    return nleave == n ? n : 0;
}

static void test_same_as_before(void **state)
{
    (void)state;
    srand(25);
    for (int trial = 0; trial < 3000; trial++) {
        int procs = 1 + rand() % 60, nh = 1 + rand() % 9, n = rand() % (procs + 1);
        int *rh = malloc((size_t)procs * sizeof(int)), *a = calloc((size_t)procs + 1, sizeof(int)),
            *b = calloc((size_t)procs + 1, sizeof(int));
        int kind = rand() % 3;
        for (int r = 0; r < procs; r++)
            rh[r] = kind == 0 ? rand() % nh : kind == 1 ? r * nh / procs : (rand() % 10 == 0 ? -1 : r % nh);
        int ka = reference(rh, procs, nh, n, a), kb = rankpick_empty_hosts(rh, procs, nh, n, b, NULL);
        assert_int_equal(ka, n >= 1 && n < procs ? ka : 0);
        assert_int_equal(kb, ka);
        for (int k = 0; k < ka; k++) assert_int_equal(b[k], a[k]);
        free(rh), free(a), free(b);
    }
}

static void roundtrip(const int *r, int n, int limit, size_t maxlen)
{
    char *s = rankset_encode(r, n), why[200];
    assert_non_null(s);
    assert_true(strlen(s) <= maxlen);
    unsigned char *m = calloc((size_t)limit, 1);
    assert_non_null(m);
    assert_int_equal(rankset_mark(s, limit, m, why, sizeof why), n);
    for (int k = 0; k < n; k++) assert_int_equal(m[r[k]], 1);
    char *t = rankset_encode_marked(m, limit, 1);
    assert_string_equal(s, t);
    free(s), free(t), free(m);
}

static void test_text(void **state)
{
    (void)state;
    enum { P = 65536 };
    int *r = malloc(P * sizeof(int));
    assert_non_null(r);
    for (int k = 0; k < P; k++) r[k] = k;
    roundtrip(r, P, P, 16); /* "0-65535" */
    for (int k = 0; k < P / 64; k++) r[k] = 5 + 64 * k;
    roundtrip(r, P / 64, P, 16); /* one host of 64 in a round-robin placement: "5-65477:64" */
    for (int k = 0; k < 3; k++) r[k] = 2 * k + 1;
    roundtrip(r, 3, 8, 8);
    r[0] = 3, r[1] = 9;
    roundtrip(r, 2, 10, 3);
    roundtrip(r, 0, 10, 0);
    srand(7); /* random sets: every rank once */
    for (int trial = 0; trial < 200; trial++) {
        int n = 0;
        for (int x = 0; x < 3000; x++)
            if (rand() % 3 == 0) r[n++] = x;
        roundtrip(r, n, 3000, (size_t)n * 12);
    }
    char *s = rankset_encode(r, 0);
    assert_string_equal(s, "");
    free(s);
    const char *bad[] = {",", "1,", ",1", "1,,2", "a", "-1", "3-2", "1-4:0", "1-", "1-4:", "65536", "0-65536",
                         "1 2", "12345678901", "2-9:x", "1;2;", NULL};
    unsigned char *m = calloc(P, 1);
    char why[200];
    for (int k = 0; bad[k]; k++) {
        memset(m, 0, P);
        assert_int_equal(rankset_mark(bad[k], P, m, why, sizeof why), -1);
        assert_true(strstr(why, "rank set") != NULL);
    }
    memset(m, 0, P);
    assert_int_equal(rankset_mark("0-9,5", P, m, why, sizeof why), -1);
    assert_true(strstr(why, "twice") != NULL);
    memset(m, 0, P);
    assert_int_equal(rankset_mark("0-9:3;20", P, m, why, sizeof why), 5); /* 0 3 6 9 20 */
    assert_int_equal(m[9] + m[20] + m[3] + m[1], 3);
    free(m);
    free(r);
}

/* P ranks on P/16 hosts, placed in blocks or round robin; a shrink of a quarter */
static struct rankpick_cost run_at(int P, int cyclic)
{
    int nh = P / 16, n = P / 4;
    int *rh = malloc((size_t)P * sizeof(int)), *leave = malloc((size_t)n * sizeof(int));
    assert_non_null(rh);
    assert_non_null(leave);
    for (int r = 0; r < P; r++) rh[r] = cyclic ? r % nh : r / 16;
    struct rankpick_cost c;
    assert_int_equal(rankpick_empty_hosts(rh, P, nh, n, leave, &c), n);
    /* whole hosts leave: the quarter of the hosts with the highest numbers (ties: the later host) */
    unsigned char *m = calloc((size_t)P, 1);
    assert_non_null(m);
    for (int k = 0; k < n; k++) m[leave[k]] = 1;
    for (int r = 0; r < P; r++) assert_int_equal(m[r], rh[r] >= nh - nh / 4);
    char *s = rankset_encode_marked(m, P, 1);
    assert_non_null(s);
    printf("rankpick %-11s P=%d: %d leave as '%.60s%s' (%zu bytes)\n", cyclic ? "round-robin" : "blocks", P, n, s,
           strlen(s) > 60 ? "..." : "", strlen(s));
    assert_true(strlen(s) <= (size_t)(cyclic ? 16 * (nh / 4) : 16)); /* one item per host at most */
    free(s), free(m), free(rh), free(leave);
    return c;
}

static void test_scale(void **state)
{
    (void)state;
    const int P1 = 16384, P2 = 65536;
    const double bound = (double)P2 * log2((double)P2) / ((double)P1 * log2((double)P1)); /* 4.571 */
    for (int cyclic = 0; cyclic < 2; cyclic++) {
        struct rankpick_cost a = run_at(P1, cyclic), b = run_at(P2, cyclic);
        double ro = (double)b.ops / (double)a.ops, rm = (double)b.bytes / (double)a.bytes;
        printf("rankpick %-11s P=%d: %llu ops %zu bytes; P=%d: %llu ops %zu bytes; ratios ops %.3f bytes %.3f "
               "(P log P: %.3f)\n", cyclic ? "round-robin" : "blocks", P1, a.ops, a.bytes, P2, b.ops, b.bytes, ro, rm, bound);
        assert_true(ro <= bound);
        assert_true(rm <= bound);
        /* and absolutely: a few passes over the ranks, never leavers x (hosts + P) */
        assert_true(b.ops <= 8ULL * (unsigned long long)P2 * 17);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_before),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
