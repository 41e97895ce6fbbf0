/* test_chunk.c -- CMocka unit tests for src/redist/chunk.{h,c}: the pieces
 * of a byte range tile it exactly, each below INT_MAX; the q/r split of a
 * range for a derived datatype; the int-fit check at the INT_MAX edges. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "chunk.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count),
        cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
