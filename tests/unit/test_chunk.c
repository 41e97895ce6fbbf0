/* test_chunk.c -- CMocka unit tests for src/redist/chunk.{h,c}: the pieces
 * of a byte range tile it exactly, each below INT_MAX; the q/r split of a
 * range for a derived datatype; the int-fit check at the INT_MAX edges; the
 * form of a collective transfer, which every process must derive alike:
 * chunk_layout_fits against every process's own counts (plan.c) over many
 * layouts, the issue-22 case (3 GiB, 1 -> 2: one side past INT_MAX), the
 * test limit, and the choice of the form. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "chunk.h"
#include "plan.h"

static void tiles(int64_t bytes, int64_t max)
{
    int64_t n = chunk_count(bytes, max), next = 0;
    assert_true(n >= 0);
    for (int64_t k = 0; k < n; k++) {
        int64_t off = -1;
        int len = -1;
        assert_int_equal(chunk_piece(bytes, max, k, &off, &len), 0);
        assert_true(off == next);
        assert_true(len >= 1 && len <= max && len <= INT_MAX);
        next = off + len;
    }
    assert_true(next == bytes);
    int64_t off;
    int len;
    assert_int_equal(chunk_piece(bytes, max, n, &off, &len), -1);
}

static void test_count(void **state)
{
    (void)state;
    assert_true(chunk_count(0, CHUNK_MAX) == 0);
    assert_true(chunk_count(1, CHUNK_MAX) == 1);
    assert_true(chunk_count(CHUNK_MAX, CHUNK_MAX) == 1);
    assert_true(chunk_count(CHUNK_MAX + 1, CHUNK_MAX) == 2);
    assert_true(chunk_count((int64_t)5 << 29, CHUNK_MAX) == 3); /* 2.5 GiB */
    assert_true(chunk_count((int64_t)INT_MAX + 1, INT_MAX) == 2);
    assert_true(chunk_count(-1, CHUNK_MAX) == -1);
    assert_true(chunk_count(10, 0) == -1);
    assert_true(chunk_count(10, (int64_t)INT_MAX + 1) == -1);
}

static void test_pieces(void **state)
{
    (void)state;
    int64_t sizes[] = {0, 1, 7, CHUNK_MAX - 1, CHUNK_MAX, CHUNK_MAX + 1, (int64_t)5 << 29, (int64_t)INT_MAX,
                       (int64_t)INT_MAX + 1, (int64_t)3 << 31, ((int64_t)1 << 40) + 12345};
    int64_t maxes[] = {1, 3, 4096, CHUNK_MAX, INT_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t j = 0; j < sizeof maxes / sizeof *maxes; j++)
            if (sizes[i] / maxes[j] < 100000) tiles(sizes[i], maxes[j]);
    int64_t off;
    int len;
    assert_int_equal(chunk_piece(10, 4, -1, &off, &len), -1);
    assert_int_equal(chunk_piece(10, 4, 2, NULL, &len), -1);
    assert_int_equal(chunk_piece(10, 4, 2, &off, &len), 0);
    assert_true(off == 8 && len == 2);
}

static void test_split(void **state)
{
    (void)state;
    int q, r;
    assert_int_equal(chunk_split((int64_t)5 << 29, CHUNK_MAX, &q, &r), 0);
    assert_int_equal(q, 2);
    assert_int_equal(r, 1 << 29);
    assert_int_equal(chunk_split(0, CHUNK_MAX, &q, &r), 0);
    assert_true(q == 0 && r == 0);
    assert_int_equal(chunk_split(CHUNK_MAX - 1, CHUNK_MAX, &q, &r), 0);
    assert_true(q == 0 && r == CHUNK_MAX - 1);
    int64_t big = ((int64_t)1 << 50) + 77;
    assert_int_equal(chunk_split(big, CHUNK_MAX, &q, &r), 0);
    assert_true((int64_t)q * CHUNK_MAX + r == big);
    assert_int_equal(chunk_split((int64_t)INT_MAX * 2 + 2, 1, &q, &r), -1); /* q would not fit an int */
    assert_int_equal(chunk_split(-5, 8, &q, &r), -1);
    assert_int_equal(chunk_split(5, 0, &q, &r), -1);
}

static void test_fits(void **state)
{
    (void)state;
    int64_t c[2] = {INT_MAX / 8, 0}, d[2] = {0, 0};
    assert_int_equal(chunk_fits_int(c, d, 2, 8), 1);
    c[0] = INT_MAX / 8 + 1;
    assert_int_equal(chunk_fits_int(c, d, 2, 8), 0);
    c[0] = 100;
    d[1] = INT_MAX / 8;
    assert_int_equal(chunk_fits_int(c, d, 2, 8), 1);
    c[1] = 1; /* displacement + count past INT_MAX bytes */
    assert_int_equal(chunk_fits_int(c, d, 2, 8), 0);
    int64_t one = 1, zero = 0, huge = (int64_t)1 << 62;
    assert_int_equal(chunk_fits_int(&huge, &zero, 1, 1 << 20), 0); /* product would overflow */
    assert_int_equal(chunk_fits_int(&one, &zero, 1, (size_t)INT_MAX + 1), 0);
    assert_int_equal(chunk_fits_int(&zero, &zero, 1, (size_t)INT_MAX + 1), 1);
    assert_int_equal(chunk_fits_int(&one, &zero, 1, 0), 1);
}

/* Every process of a Merge transfer communicator (old rank r and new rank r
 * are comm rank r): its own counts fit?  *all: every process's do; *some:
 * at least one process's do (with !*all: the processes disagree, the bug of
 * issue 22 when each chose its form from its own counts). */
static void local_fits(int64_t n, int ns, int nd, size_t rowbytes, int *all, int *some)
{
    int cs = ns > nd ? ns : nd;
    int o2c[64], n2c[64];
    int64_t sc[64], sd[64], rc[64], rd[64];
    for (int r = 0; r < cs; r++) o2c[r] = n2c[r] = r;
    *all = 1;
    *some = 0;
    for (int me = 0; me < cs; me++) {
        assert_int_equal(plan_alltoallv_arrays(n, ns, nd, me < ns ? me : -1, me < nd ? me : -1, o2c, n2c, cs, sc, sd,
                                               rc, rd),
                         0);
        int f = chunk_fits_int(sc, sd, cs, rowbytes) && chunk_fits_int(rc, rd, cs, rowbytes);
        *all &= f;
        *some |= f;
    }
}

static void test_layout_fits(void **state)
{
    (void)state;
    int disagree = 0;
    for (int last = 0; last < 2; last++) {
        plan_set_remainder_last(last);
        for (int64_t limit = 1; limit <= 40; limit += 3) {
            chunk_set_int_limit(limit);
            for (int64_t n = 0; n <= 50; n++)
                for (int ns = 1; ns <= 5; ns++)
                    for (int nd = 1; nd <= 5; nd++)
                        for (size_t rb = 1; rb <= 4; rb++) {
                            int all, some;
                            local_fits(n, ns, nd, rb, &all, &some);
                            assert_int_equal(chunk_layout_fits(n, ns, nd, rb), all);
                            disagree += some && !all;
                        }
        }
    }
    assert_true(disagree > 0); /* the layouts above include ones where the processes' own answers differ */
    plan_set_remainder_last(0);
    chunk_set_int_limit(0);
    assert_true(chunk_int_limit() == INT_MAX);
    /* issue 22: 3 GiB of bytes 1 -> 2; the old process sends 1.5 GiB at 1.5 GiB, the new one receives 1.5 GiB at 0 */
    int64_t n = (int64_t)3 << 30;
    int all, some;
    local_fits(n, 1, 2, 1, &all, &some);
    assert_true(!all && some);
    assert_int_equal(chunk_layout_fits(n, 1, 2, 1), 0);
    assert_int_equal(chunk_layout_fits(n, 2, 1, 1), 0); /* 2 -> 1: the receiving side past it */
    assert_int_equal(chunk_layout_fits(n, 2, 4, 1), 1); /* 1.5 GiB and 0.75 GiB blocks */
    assert_int_equal(chunk_layout_fits((int64_t)INT_MAX, 1, 2, 1), 1);
    assert_int_equal(chunk_layout_fits((int64_t)INT_MAX + 1, 1, 2, 1), 0);
    assert_int_equal(chunk_layout_fits((int64_t)INT_MAX / 8 + 1, 1, 1, 8), 0);
    assert_int_equal(chunk_layout_fits(0, 1, 2, (size_t)1 << 40), 1);
    assert_int_equal(chunk_layout_fits(1, 1, 2, (size_t)INT_MAX + 1), 0);
    assert_int_equal(chunk_layout_fits(-1, 1, 2, 1), 0);
    assert_int_equal(chunk_layout_fits(10, 0, 2, 1), 0);
}

static void test_limit(void **state)
{
    (void)state;
    assert_true(chunk_int_limit() == INT_MAX);
    assert_true(chunk_piece_max() == CHUNK_MAX);
    chunk_set_int_limit(1000);
    assert_true(chunk_int_limit() == 1000 && chunk_piece_max() == 500);
    int64_t c = 100, d = 900, z = 0;
    assert_int_equal(chunk_fits_int(&c, &d, 1, 1), 1);
    d = 901;
    assert_int_equal(chunk_fits_int(&c, &d, 1, 1), 0);
    assert_int_equal(chunk_fits_int(&c, &z, 1, 11), 0); /* 1100 bytes */
    chunk_set_int_limit(1);
    assert_true(chunk_piece_max() == 1);
    chunk_set_int_limit(-5);
    assert_true(chunk_int_limit() == INT_MAX);
    chunk_set_int_limit((int64_t)INT_MAX + 1);
    assert_true(chunk_int_limit() == INT_MAX && chunk_piece_max() == CHUNK_MAX);
}

static void test_form(void **state)
{
    (void)state;
    for (int have_c = 0; have_c < 2; have_c++) {
        int big = have_c ? CHUNK_FORM_C : CHUNK_FORM_W;
        assert_int_equal(chunk_a2a_form(1, -1, have_c), CHUNK_FORM_INT);
        assert_int_equal(chunk_a2a_form(0, -1, have_c), big);
        assert_int_equal(chunk_a2a_form(1, CHUNK_FORM_INT, have_c), CHUNK_FORM_INT);
        assert_int_equal(chunk_a2a_form(0, CHUNK_FORM_INT, have_c), big); /* never a truncating int form */
        assert_int_equal(chunk_a2a_form(1, CHUNK_FORM_C, have_c), big);
        assert_int_equal(chunk_a2a_form(0, CHUNK_FORM_C, have_c), big);
        assert_int_equal(chunk_a2a_form(1, CHUNK_FORM_W, have_c), CHUNK_FORM_W);
        assert_int_equal(chunk_a2a_form(0, CHUNK_FORM_W, have_c), CHUNK_FORM_W);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count),
        cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_fits),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_layout_fits),
        cmocka_unit_test(test_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
