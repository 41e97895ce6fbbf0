/* test_plan.c -- CMocka unit tests for src/redist/plan.{h,c}.
 *
 * Hand-written known cases, argument checking, and an exhaustive sweep over
 * every (ns, nd) in [1, 64]^2 for several element counts n.  For every case
 * the plan is verified against independent reference code written here (naive
 * block layout, per-element owner tables, element-by-element simulation of
 * the data movement, O(ns*nd) brute-force block intersection).
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plan.h"

#define MAXP 64
#define MAXT (2 * MAXP)
#define BIG_N 1000003

/* ------------------------------------------------------------------------ */
/* Reference helpers (deliberately different from the implementation)        */

/* Naive block layout: every rank gets n/p, the first n%p get one more, and
 * displacements are the prefix sums. */
static void naive_blocks(int64_t n, int p, int64_t *count, int64_t *displ)
{
    int64_t d = 0;
    for (int r = 0; r < p; r++) {
        count[r] = n / p;
        if (r < n % p)
            count[r]++;
        displ[r] = d;
        d += count[r];
    }
}

/* owner[g] for every global index g (linear fill). */
static void naive_owners(int64_t n, int p, int *owner)
{
    int64_t count[MAXP], displ[MAXP];
    naive_blocks(n, p, count, displ);
    for (int r = 0; r < p; r++)
        for (int64_t e = 0; e < count[r]; e++)
            owner[displ[r] + e] = r;
}

static int transfer_equal(const plan_transfer *a, const plan_transfer *b)
{
    return a->src == b->src && a->dst == b->dst && a->global_displ == b->global_displ &&
           a->count == b->count && a->src_offset == b->src_offset &&
           a->dst_offset == b->dst_offset;
}

static void assert_transfer(const plan_transfer *t, int src, int dst, int64_t g,
                            int64_t count, int64_t so, int64_t dof)
{
    assert_int_equal(t->src, src);
    assert_int_equal(t->dst, dst);
    assert_int_equal(t->global_displ, g);
    assert_int_equal(t->count, count);
    assert_int_equal(t->src_offset, so);
    assert_int_equal(t->dst_offset, dof);
}

/* Deterministic pseudo-random numbers (LCG), no hidden global state. */
static uint32_t lcg(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*state >> 33);
}

/* ------------------------------------------------------------------------ */
/* plan_block_of / plan_owner_of                                             */

static void test_block_of_known(void **state)
{
    (void)state;
    plan_block b;
    /* n=10 over 3: 4,3,3 */
    b = plan_block_of(10, 3, 0); assert_int_equal(b.count, 4); assert_int_equal(b.displ, 0);
    b = plan_block_of(10, 3, 1); assert_int_equal(b.count, 3); assert_int_equal(b.displ, 4);
    b = plan_block_of(10, 3, 2); assert_int_equal(b.count, 3); assert_int_equal(b.displ, 7);
    /* n=2 over 4: 1,1,0,0 with empty blocks at displ 2 */
    b = plan_block_of(2, 4, 0); assert_int_equal(b.count, 1); assert_int_equal(b.displ, 0);
    b = plan_block_of(2, 4, 1); assert_int_equal(b.count, 1); assert_int_equal(b.displ, 1);
    b = plan_block_of(2, 4, 2); assert_int_equal(b.count, 0); assert_int_equal(b.displ, 2);
    b = plan_block_of(2, 4, 3); assert_int_equal(b.count, 0); assert_int_equal(b.displ, 2);
    /* n=0 */
    b = plan_block_of(0, 5, 4); assert_int_equal(b.count, 0); assert_int_equal(b.displ, 0);
    /* n=1000003 over 64: 1000003 = 64*15625 + 3 */
    b = plan_block_of(BIG_N, 64, 2); assert_int_equal(b.count, 15626); assert_int_equal(b.displ, 2 * 15626);
    b = plan_block_of(BIG_N, 64, 3); assert_int_equal(b.count, 15625); assert_int_equal(b.displ, 3 * 15626);
    b = plan_block_of(BIG_N, 64, 63); assert_int_equal(b.count, 15625);
    assert_int_equal(b.displ + b.count, BIG_N);
}

static void test_block_of_sweep(void **state)
{
    (void)state;
    static const int64_t ns_[] = {0, 1, 2, 7, 63, 64, 65, 100, 127, 128, 129, 1000, BIG_N};
    int64_t count[MAXP], displ[MAXP];
    for (size_t i = 0; i < sizeof ns_ / sizeof ns_[0]; i++) {
        int64_t n = ns_[i];
        for (int p = 1; p <= MAXP; p++) {
            naive_blocks(n, p, count, displ);
            int64_t next = 0;
            for (int r = 0; r < p; r++) {
                plan_block b = plan_block_of(n, p, r);
                assert_int_equal(b.count, count[r]);
                assert_int_equal(b.displ, displ[r]);
                assert_int_equal(b.displ, next); /* contiguous */
                assert_true(b.count >= 0);
                next = b.displ + b.count;
            }
            assert_int_equal(next, n); /* sums to n */
        }
    }
}

static void test_block_of_huge(void **state)
{
    (void)state;
    static const int64_t ns_[] = {INT64_MAX, INT64_MAX - 1, (int64_t)1 << 62, 3};
    static const int ps[] = {1, 2, 3, 7, 64, 1000, INT_MAX - 1, INT_MAX};
    for (size_t i = 0; i < sizeof ns_ / sizeof ns_[0]; i++) {
        int64_t n = ns_[i];
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++) {
            int p = ps[j];
            int64_t rem = n % p;
            /* ranks at the start, around the rem boundary and at the end */
            int probe[] = {0, 1, (int)rem - 1, (int)rem, (int)rem + 1, p - 2, p - 1};
            for (size_t k = 0; k < sizeof probe / sizeof probe[0]; k++) {
                int r = probe[k];
                if (r < 0 || r >= p)
                    continue;
                plan_block b = plan_block_of(n, p, r);
                assert_int_equal(b.count, n / p + (r < rem));
                if (r + 1 < p) {
                    plan_block c = plan_block_of(n, p, r + 1);
                    assert_int_equal(b.displ + b.count, c.displ);
                } else {
                    assert_int_equal(b.displ + b.count, n);
                }
                if (b.count > 0) {
                    assert_int_equal(plan_owner_of(n, p, b.displ), r);
                    assert_int_equal(plan_owner_of(n, p, b.displ + b.count - 1), r);
                }
            }
        }
    }
}

static void test_owner_of(void **state)
{
    (void)state;
    static const int64_t ns_[] = {1, 2, 7, 63, 64, 65, 1000};
    static int owner[1000];
    for (size_t i = 0; i < sizeof ns_ / sizeof ns_[0]; i++) {
        int64_t n = ns_[i];
        for (int p = 1; p <= MAXP; p++) {
            naive_owners(n, p, owner);
            for (int64_t g = 0; g < n; g++)
                if (plan_owner_of(n, p, g) != owner[g])
                    fail_msg("owner_of(n=%lld, p=%d, g=%lld) = %d, expected %d", (long long)n,
                             p, (long long)g, plan_owner_of(n, p, g), owner[g]);
        }
    }
    /* big n: both ends of every block */
    for (int p = 1; p <= MAXP; p++)
        for (int r = 0; r < p; r++) {
            plan_block b = plan_block_of(BIG_N, p, r);
            assert_int_equal(plan_owner_of(BIG_N, p, b.displ), r);
            assert_int_equal(plan_owner_of(BIG_N, p, b.displ + b.count - 1), r);
        }
}

/* ------------------------------------------------------------------------ */
/* Argument checking and capacity                                            */

static void test_bad_arguments(void **state)
{
    (void)state;
    plan_transfer t[MAXT];
    plan_block b;

    b = plan_block_of(-1, 3, 0); assert_int_equal(b.count, 0); assert_int_equal(b.displ, 0);
    b = plan_block_of(10, 0, 0); assert_int_equal(b.count, 0); assert_int_equal(b.displ, 0);
    b = plan_block_of(10, -2, 0); assert_int_equal(b.count, 0); assert_int_equal(b.displ, 0);
    b = plan_block_of(10, 3, 3); assert_int_equal(b.count, 0); assert_int_equal(b.displ, 0);
    b = plan_block_of(10, 3, -1); assert_int_equal(b.count, 0); assert_int_equal(b.displ, 0);

    assert_int_equal(plan_owner_of(-1, 3, 0), -1);
    assert_int_equal(plan_owner_of(10, 0, 0), -1);
    assert_int_equal(plan_owner_of(10, 3, -1), -1);
    assert_int_equal(plan_owner_of(10, 3, 10), -1);
    assert_int_equal(plan_owner_of(0, 3, 0), -1);

    assert_int_equal(plan_max_transfers(0, 3), 0);
    assert_int_equal(plan_max_transfers(3, 0), 0);
    assert_int_equal(plan_max_transfers(-1, -1), 0);
    assert_int_equal(plan_max_transfers(1, 1), 1);
    assert_int_equal(plan_max_transfers(2, 3), 4);
    assert_int_equal(plan_max_transfers(INT_MAX, INT_MAX), (size_t)INT_MAX * 2 - 1);

    assert_int_equal(plan_compute(-1, 2, 3, t, MAXT), -1);
    assert_int_equal(plan_compute(10, 0, 3, t, MAXT), -1);
    assert_int_equal(plan_compute(10, 2, 0, t, MAXT), -1);
    assert_int_equal(plan_compute(10, 2, 3, NULL, 4), -1);

    assert_int_equal(plan_sends_of(-1, 2, 3, 0, t, MAXT), -1);
    assert_int_equal(plan_sends_of(10, 0, 3, 0, t, MAXT), -1);
    assert_int_equal(plan_sends_of(10, 2, 0, 0, t, MAXT), -1);
    assert_int_equal(plan_sends_of(10, 2, 3, -1, t, MAXT), -1);
    assert_int_equal(plan_sends_of(10, 2, 3, 2, t, MAXT), -1);
    assert_int_equal(plan_sends_of(10, 2, 3, 0, NULL, 2), -1);

    assert_int_equal(plan_recvs_of(-1, 2, 3, 0, t, MAXT), -1);
    assert_int_equal(plan_recvs_of(10, 0, 3, 0, t, MAXT), -1);
    assert_int_equal(plan_recvs_of(10, 2, 0, 0, t, MAXT), -1);
    assert_int_equal(plan_recvs_of(10, 2, 3, -1, t, MAXT), -1);
    assert_int_equal(plan_recvs_of(10, 2, 3, 3, t, MAXT), -1);
    assert_int_equal(plan_recvs_of(10, 2, 3, 0, NULL, 2), -1);

    assert_int_equal(plan_moved_elements(-1, 2, 3), -1);
    assert_int_equal(plan_moved_elements(10, 0, 3), -1);
    assert_int_equal(plan_moved_elements(10, 2, -3), -1);
}

static void test_capacity(void **state)
{
    (void)state;
    plan_transfer t[MAXT];
    /* n=10, 2->3 needs 4 transfers */
    assert_int_equal(plan_compute(10, 2, 3, t, 3), -1);
    assert_int_equal(plan_compute(10, 2, 3, t, 0), -1);
    assert_int_equal(plan_compute(10, 2, 3, NULL, 0), -1);
    assert_int_equal(plan_compute(10, 2, 3, t, 4), 4);
    /* sends_of(0) needs 2, recvs_of(1) needs 2 */
    assert_int_equal(plan_sends_of(10, 2, 3, 0, t, 1), -1);
    assert_int_equal(plan_sends_of(10, 2, 3, 0, t, 2), 2);
    assert_int_equal(plan_recvs_of(10, 2, 3, 1, t, 1), -1);
    assert_int_equal(plan_recvs_of(10, 2, 3, 1, t, 2), 2);
    /* nothing to write: NULL with capacity 0 is fine */
    assert_int_equal(plan_compute(0, 5, 7, NULL, 0), 0);
    assert_int_equal(plan_sends_of(2, 4, 1, 3, NULL, 0), 0);
    assert_int_equal(plan_recvs_of(2, 1, 4, 2, NULL, 0), 0);
    /* the bound ns+nd-1 is attained (n large, coprime-ish sizes) */
    assert_int_equal(plan_compute(BIG_N, 63, 64, t, plan_max_transfers(63, 64)), 126);
    assert_int_equal(plan_compute(BIG_N, 63, 64, t, 125), -1);
}

/* ------------------------------------------------------------------------ */
/* Hand-written known plans                                                  */

static void test_known_10_2_to_3(void **state)
{
    (void)state;
    plan_transfer t[MAXT];
    /* old: r0 [0,5) r1 [5,10); new: r0 [0,4) r1 [4,7) r2 [7,10) */
    assert_int_equal(plan_compute(10, 2, 3, t, MAXT), 4);
    assert_transfer(&t[0], 0, 0, 0, 4, 0, 0);
    assert_transfer(&t[1], 0, 1, 4, 1, 4, 0);
    assert_transfer(&t[2], 1, 1, 5, 2, 0, 1);
    assert_transfer(&t[3], 1, 2, 7, 3, 2, 0);

    assert_int_equal(plan_sends_of(10, 2, 3, 1, t, MAXT), 2);
    assert_transfer(&t[0], 1, 1, 5, 2, 0, 1);
    assert_transfer(&t[1], 1, 2, 7, 3, 2, 0);
    assert_int_equal(plan_recvs_of(10, 2, 3, 1, t, MAXT), 2);
    assert_transfer(&t[0], 0, 1, 4, 1, 4, 0);
    assert_transfer(&t[1], 1, 1, 5, 2, 0, 1);
    assert_int_equal(plan_recvs_of(10, 2, 3, 2, t, MAXT), 1);
    assert_transfer(&t[0], 1, 2, 7, 3, 2, 0);

    /* kept: r0 [0,4) = 4, r1 [5,7) = 2 */
    assert_int_equal(plan_moved_elements(10, 2, 3), 4);

    /* Ductile identity mapping, comm size 3 */
    int o2c[] = {0, 1}, n2c[] = {0, 1, 2};
    int64_t sc[3], sd[3], rc[3], rd[3];
    assert_int_equal(plan_alltoallv_arrays(10, 2, 3, 1, 1, o2c, n2c, 3, sc, sd, rc, rd), 0);
    int64_t esc[] = {0, 2, 3}, esd[] = {0, 0, 2}, erc[] = {1, 2, 0}, erd[] = {0, 1, 0};
    assert_memory_equal(sc, esc, sizeof esc);
    assert_memory_equal(sd, esd, sizeof esd);
    assert_memory_equal(rc, erc, sizeof erc);
    assert_memory_equal(rd, erd, sizeof erd);
    /* the spawned drain (comm rank 2) */
    assert_int_equal(plan_alltoallv_arrays(10, 2, 3, -1, 2, o2c, n2c, 3, sc, sd, rc, rd), 0);
    int64_t z[] = {0, 0, 0}, erc2[] = {0, 3, 0}, erd2[] = {0, 0, 0};
    assert_memory_equal(sc, z, sizeof z);
    assert_memory_equal(sd, z, sizeof z);
    assert_memory_equal(rc, erc2, sizeof erc2);
    assert_memory_equal(rd, erd2, sizeof erd2);
}

static void test_known_10_3_to_2(void **state)
{
    (void)state;
    plan_transfer t[MAXT];
    /* old: r0 [0,4) r1 [4,7) r2 [7,10); new: r0 [0,5) r1 [5,10) */
    assert_int_equal(plan_compute(10, 3, 2, t, MAXT), 4);
    assert_transfer(&t[0], 0, 0, 0, 4, 0, 0);
    assert_transfer(&t[1], 1, 0, 4, 1, 0, 4);
    assert_transfer(&t[2], 1, 1, 5, 2, 1, 0);
    assert_transfer(&t[3], 2, 1, 7, 3, 0, 2);

    assert_int_equal(plan_sends_of(10, 3, 2, 1, t, MAXT), 2);
    assert_transfer(&t[0], 1, 0, 4, 1, 0, 4);
    assert_transfer(&t[1], 1, 1, 5, 2, 1, 0);
    assert_int_equal(plan_sends_of(10, 3, 2, 2, t, MAXT), 1);
    assert_transfer(&t[0], 2, 1, 7, 3, 0, 2);
    assert_int_equal(plan_recvs_of(10, 3, 2, 0, t, MAXT), 2);
    assert_transfer(&t[0], 0, 0, 0, 4, 0, 0);
    assert_transfer(&t[1], 1, 0, 4, 1, 0, 4);

    assert_int_equal(plan_moved_elements(10, 3, 2), 4);

    /* the leaving source (old rank 2 = comm rank 2, no new block) */
    int o2c[] = {0, 1, 2}, n2c[] = {0, 1};
    int64_t sc[3], sd[3], rc[3], rd[3];
    assert_int_equal(plan_alltoallv_arrays(10, 3, 2, 2, -1, o2c, n2c, 3, sc, sd, rc, rd), 0);
    int64_t esc[] = {0, 3, 0}, z[] = {0, 0, 0};
    assert_memory_equal(sc, esc, sizeof esc);
    assert_memory_equal(sd, z, sizeof z);
    assert_memory_equal(rc, z, sizeof z);
    assert_memory_equal(rd, z, sizeof z);
    /* new rank 1 receives from comm 1 (offset 0) and comm 2 (offset 2) */
    assert_int_equal(plan_alltoallv_arrays(10, 3, 2, 1, 1, o2c, n2c, 3, sc, sd, rc, rd), 0);
    int64_t esc1[] = {1, 2, 0}, esd1[] = {0, 1, 0}, erc1[] = {0, 2, 3}, erd1[] = {0, 0, 2};
    assert_memory_equal(sc, esc1, sizeof esc1);
    assert_memory_equal(sd, esd1, sizeof esd1);
    assert_memory_equal(rc, erc1, sizeof erc1);
    assert_memory_equal(rd, erd1, sizeof erd1);
}

static void test_known_2_1_to_4(void **state)
{
    (void)state;
    plan_transfer t[MAXT];
    /* old: r0 [0,2); new: r0 [0,1) r1 [1,2) r2, r3 empty */
    assert_int_equal(plan_compute(2, 1, 4, t, MAXT), 2);
    assert_transfer(&t[0], 0, 0, 0, 1, 0, 0);
    assert_transfer(&t[1], 0, 1, 1, 1, 1, 0);
    assert_int_equal(plan_recvs_of(2, 1, 4, 2, t, MAXT), 0);
    assert_int_equal(plan_recvs_of(2, 1, 4, 3, t, MAXT), 0);
    assert_int_equal(plan_sends_of(2, 1, 4, 0, t, MAXT), 2);
    assert_int_equal(plan_moved_elements(2, 1, 4), 1);

    int o2c[] = {0}, n2c[] = {0, 1, 2, 3};
    int64_t sc[4], sd[4], rc[4], rd[4];
    assert_int_equal(plan_alltoallv_arrays(2, 1, 4, 0, 0, o2c, n2c, 4, sc, sd, rc, rd), 0);
    int64_t esc[] = {1, 1, 0, 0}, esd[] = {0, 1, 0, 0}, erc[] = {1, 0, 0, 0}, z[] = {0, 0, 0, 0};
    assert_memory_equal(sc, esc, sizeof esc);
    assert_memory_equal(sd, esd, sizeof esd);
    assert_memory_equal(rc, erc, sizeof erc);
    assert_memory_equal(rd, z, sizeof z);
    /* a drain with an empty block: everything zero */
    memset(sc, 0x55, sizeof sc); memset(sd, 0x55, sizeof sd);
    memset(rc, 0x55, sizeof rc); memset(rd, 0x55, sizeof rd);
    assert_int_equal(plan_alltoallv_arrays(2, 1, 4, -1, 3, o2c, n2c, 4, sc, sd, rc, rd), 0);
    assert_memory_equal(sc, z, sizeof z);
    assert_memory_equal(sd, z, sizeof z);
    assert_memory_equal(rc, z, sizeof z);
    assert_memory_equal(rd, z, sizeof z);
    /* empty-block ranks may be absent from the communicator */
    int n2c_absent[] = {0, 1, -1, -1};
    assert_int_equal(plan_alltoallv_arrays(2, 1, 4, 0, 0, o2c, n2c_absent, 2, sc, sd, rc, rd), 0);
    assert_memory_equal(sc, esc, 2 * sizeof(int64_t));
    assert_memory_equal(sd, esd, 2 * sizeof(int64_t));
}

static void test_known_2_4_to_1(void **state)
{
    (void)state;
    plan_transfer t[MAXT];
    /* old: r0 [0,1) r1 [1,2) r2, r3 empty; new: r0 [0,2) */
    assert_int_equal(plan_compute(2, 4, 1, t, MAXT), 2);
    assert_transfer(&t[0], 0, 0, 0, 1, 0, 0);
    assert_transfer(&t[1], 1, 0, 1, 1, 0, 1);
    assert_int_equal(plan_sends_of(2, 4, 1, 2, t, MAXT), 0);
    assert_int_equal(plan_sends_of(2, 4, 1, 3, t, MAXT), 0);
    assert_int_equal(plan_moved_elements(2, 4, 1), 1);
}

static void test_known_small_misc(void **state)
{
    (void)state;
    plan_transfer t[MAXT];
    /* n = 0: nothing to do for any sizes */
    assert_int_equal(plan_compute(0, 3, 5, t, MAXT), 0);
    assert_int_equal(plan_sends_of(0, 3, 5, 2, t, MAXT), 0);
    assert_int_equal(plan_recvs_of(0, 3, 5, 4, t, MAXT), 0);
    assert_int_equal(plan_moved_elements(0, 3, 5), 0);
    /* same size: identity plan, nothing moves */
    assert_int_equal(plan_compute(10, 3, 3, t, MAXT), 3);
    assert_transfer(&t[0], 0, 0, 0, 4, 0, 0);
    assert_transfer(&t[1], 1, 1, 4, 3, 0, 0);
    assert_transfer(&t[2], 2, 2, 7, 3, 0, 0);
    assert_int_equal(plan_moved_elements(10, 3, 3), 0);
    /* n=7, 3->5: old [0,3)[3,5)[5,7); new [0,2)[2,4)[4,5)[5,6)[6,7) */
    assert_int_equal(plan_compute(7, 3, 5, t, MAXT), 6);
    assert_transfer(&t[0], 0, 0, 0, 2, 0, 0);
    assert_transfer(&t[1], 0, 1, 2, 1, 2, 0);
    assert_transfer(&t[2], 1, 1, 3, 1, 0, 1);
    assert_transfer(&t[3], 1, 2, 4, 1, 1, 0);
    assert_transfer(&t[4], 2, 3, 5, 1, 0, 0);
    assert_transfer(&t[5], 2, 4, 6, 1, 1, 0);
    /* kept: r0 [0,2)=2, r1 [3,4)=1, r2 [5,7) n [4,5)=0 -> moved 4 */
    assert_int_equal(plan_moved_elements(7, 3, 5), 4);
    /* 1 -> 1 */
    assert_int_equal(plan_compute(5, 1, 1, t, 1), 1);
    assert_transfer(&t[0], 0, 0, 0, 5, 0, 0);
    assert_int_equal(plan_moved_elements(5, 1, 1), 0);
    /* 1 -> 2 and 2 -> 1 */
    assert_int_equal(plan_moved_elements(5, 1, 2), 2);
    assert_int_equal(plan_moved_elements(5, 2, 1), 2);
}

/* ------------------------------------------------------------------------ */
/* plan_alltoallv_arrays with non-identity mappings                          */

static void test_alltoallv_custom_mapping(void **state)
{
    (void)state;
    /* n=10, 2->3 over a 5-process transfer communicator:
     * old 0 -> comm 3, old 1 -> comm 1; new 0 -> comm 1, new 1 -> comm 4,
     * new 2 -> comm 0; comm 2 takes no part. */
    int o2c[] = {3, 1}, n2c[] = {1, 4, 0};
    int64_t sc[5], sd[5], rc[5], rd[5];
    /* comm 1: old 1 [5,10) and new 0 [0,4) */
    assert_int_equal(plan_alltoallv_arrays(10, 2, 3, 1, 0, o2c, n2c, 5, sc, sd, rc, rd), 0);
    int64_t esc[] = {3, 0, 0, 0, 2}, esd[] = {2, 0, 0, 0, 0};
    int64_t erc[] = {0, 0, 0, 4, 0}, z[] = {0, 0, 0, 0, 0};
    assert_memory_equal(sc, esc, sizeof esc);
    assert_memory_equal(sd, esd, sizeof esd);
    assert_memory_equal(rc, erc, sizeof erc);
    assert_memory_equal(rd, z, sizeof z);
    /* comm 3: old 0 [0,5), no new block: [0,4) to comm 1, [4,5) to comm 4 */
    assert_int_equal(plan_alltoallv_arrays(10, 2, 3, 0, -1, o2c, n2c, 5, sc, sd, rc, rd), 0);
    int64_t esc3[] = {0, 4, 0, 0, 1}, esd3[] = {0, 0, 0, 0, 4};
    assert_memory_equal(sc, esc3, sizeof esc3);
    assert_memory_equal(sd, esd3, sizeof esd3);
    assert_memory_equal(rc, z, sizeof z);
    assert_memory_equal(rd, z, sizeof z);
    /* comm 4: new 1 [4,7): [4,5) from comm 3, [5,7) from comm 1 at offset 1 */
    assert_int_equal(plan_alltoallv_arrays(10, 2, 3, -1, 1, o2c, n2c, 5, sc, sd, rc, rd), 0);
    int64_t erc4[] = {0, 2, 0, 1, 0}, erd4[] = {0, 1, 0, 0, 0};
    assert_memory_equal(sc, z, sizeof z);
    assert_memory_equal(sd, z, sizeof z);
    assert_memory_equal(rc, erc4, sizeof erc4);
    assert_memory_equal(rd, erd4, sizeof erd4);
    /* comm 2: bystander */
    assert_int_equal(plan_alltoallv_arrays(10, 2, 3, -1, -1, o2c, n2c, 5, sc, sd, rc, rd), 0);
    assert_memory_equal(sc, z, sizeof z);
    assert_memory_equal(rc, z, sizeof z);
    /* a process holding old rank 1 and new rank 1 (different numbers) */
    int o2c_b[] = {0, 1}, n2c_b[] = {2, 1, 0};
    assert_int_equal(plan_alltoallv_arrays(10, 2, 3, 1, 1, o2c_b, n2c_b, 3, sc, sd, rc, rd), 0);
    /* old 1 [5,10): [5,7) to new 1 (comm 1, self), [7,10) to new 2 (comm 0)
     * new 1 [4,7): [4,5) from old 0 (comm 0), [5,7) from self */
    int64_t esc_b[] = {3, 2, 0}, esd_b[] = {2, 0, 0}, erc_b[] = {1, 2, 0}, erd_b[] = {0, 1, 0};
    assert_memory_equal(sc, esc_b, sizeof esc_b);
    assert_memory_equal(sd, esd_b, sizeof esd_b);
    assert_memory_equal(rc, erc_b, sizeof erc_b);
    assert_memory_equal(rd, erd_b, sizeof erd_b);
}

static void test_alltoallv_bad_arguments(void **state)
{
    (void)state;
    int o2c[] = {0, 1}, n2c[] = {0, 1, 2};
    int64_t sc[4], sd[4], rc[4], rd[4];
#define A2A(n, ns, nd, mo, mn, oc, nc, cs) \
    plan_alltoallv_arrays((n), (ns), (nd), (mo), (mn), (oc), (nc), (cs), sc, sd, rc, rd)
    assert_int_equal(A2A(10, 2, 3, 0, 0, o2c, n2c, 3), 0);
    assert_int_equal(A2A(-1, 2, 3, 0, 0, o2c, n2c, 3), -1);
    assert_int_equal(A2A(10, 0, 3, 0, 0, o2c, n2c, 3), -1);
    assert_int_equal(A2A(10, 2, 0, 0, 0, o2c, n2c, 3), -1);
    assert_int_equal(A2A(10, 2, 3, 0, 0, o2c, n2c, 0), -1);
    assert_int_equal(A2A(10, 2, 3, 2, 0, o2c, n2c, 3), -1);  /* my_old out of range */
    assert_int_equal(A2A(10, 2, 3, -2, 0, o2c, n2c, 3), -1);
    assert_int_equal(A2A(10, 2, 3, 0, 3, o2c, n2c, 3), -1);  /* my_new out of range */
    assert_int_equal(A2A(10, 2, 3, 0, -2, o2c, n2c, 3), -1);
    assert_int_equal(A2A(10, 2, 3, 0, 1, o2c, n2c, 3), -1);  /* old 0 and new 1 are different processes */
    assert_int_equal(A2A(10, 2, 3, 0, 0, NULL, n2c, 3), -1);
    assert_int_equal(A2A(10, 2, 3, 0, 0, o2c, NULL, 3), -1);
    assert_int_equal(plan_alltoallv_arrays(10, 2, 3, 0, 0, o2c, n2c, 3, NULL, sd, rc, rd), -1);
    assert_int_equal(plan_alltoallv_arrays(10, 2, 3, 0, 0, o2c, n2c, 3, sc, NULL, rc, rd), -1);
    assert_int_equal(plan_alltoallv_arrays(10, 2, 3, 0, 0, o2c, n2c, 3, sc, sd, NULL, rd), -1);
    assert_int_equal(plan_alltoallv_arrays(10, 2, 3, 0, 0, o2c, n2c, 3, sc, sd, rc, NULL), -1);
    {
        /* new 2 -> comm 2 >= comm_size: arrays of exactly comm_size, zeroed, so
         * an off-by-one is neither masked by stale scratch nor unnoticed by ASan */
        int64_t sc2[2] = {0, 0}, sd2[2] = {0, 0}, rc2[2] = {0, 0}, rd2[2] = {0, 0};
        assert_int_equal(plan_alltoallv_arrays(10, 2, 3, 0, 0, o2c, n2c, 2, sc2, sd2, rc2, rd2), -1);
        /* n=2, 2->3: new 2 is empty and absent, so comm_size 2 suffices ... */
        int o2c_ok[] = {0, 1}, n2c_ok[] = {0, 1, -1};
        assert_int_equal(plan_alltoallv_arrays(2, 2, 3, 0, 0, o2c_ok, n2c_ok, 2, sc2, sd2, rc2, rd2), 0);
        assert_int_equal(sc2[0], 1);
        assert_int_equal(sc2[1], 0);
        /* ... but not with old 1 mapped to comm 2 */
        int o2c_hi[] = {0, 2};
        assert_int_equal(plan_alltoallv_arrays(2, 2, 3, 0, 0, o2c_hi, n2c_ok, 2, sc2, sd2, rc2, rd2), -1);
    }
    {
        int bad[] = {0, -2};
        assert_int_equal(A2A(10, 2, 3, 0, 0, bad, n2c, 3), -1);
    }
    {
        int dup[] = {1, 1};
        assert_int_equal(A2A(10, 2, 3, -1, -1, dup, n2c, 3), -1);
    }
    {
        int dup[] = {0, 2, 2};
        assert_int_equal(A2A(10, 2, 3, -1, -1, o2c, dup, 3), -1);
    }
    {
        int missing[] = {0, -1}; /* old 1 owns [5,10) but is absent */
        assert_int_equal(A2A(10, 2, 3, 0, 0, missing, n2c, 3), -1);
    }
    {
        int missing[] = {0, 1, -1}; /* new 2 owns [7,10) but is absent */
        assert_int_equal(A2A(10, 2, 3, 0, 0, o2c, missing, 3), -1);
    }
    {
        /* n=2, 1->4: new 3 is empty, may be absent, but then no process can be it */
        int o1[] = {0}, n4[] = {0, 1, 2, -1};
        assert_int_equal(A2A(2, 1, 4, -1, 2, o1, n4, 4), 0);
        assert_int_equal(A2A(2, 1, 4, -1, 3, o1, n4, 4), -1);
        /* n=2, 4->1: same for an empty old rank */
        int o4[] = {0, 1, 2, -1}, n1[] = {0};
        assert_int_equal(A2A(2, 4, 1, 2, -1, o4, n1, 4), 0);
        assert_int_equal(A2A(2, 4, 1, 3, -1, o4, n1, 4), -1);
    }
#undef A2A
}

/* Assemble the full send/recv matrices of a transfer communicator from one
 * plan_alltoallv_arrays() call per process, and check them against each other
 * and against the block layout.  holds_old[c] / holds_new[c] is the old / new
 * rank held by comm rank c, or -1. */
static void check_alltoallv_world(int64_t n, int ns, int nd, const int *o2c, const int *n2c,
                                  int cs, const int *holds_old, const int *holds_new,
                                  const plan_transfer *plan, long k)
{
    /* matrices, row = this comm rank */
    static int64_t S[MAXT][MAXT], SD[MAXT][MAXT], R[MAXT][MAXT], RD[MAXT][MAXT];
    static int64_t E[MAXT][MAXT]; /* expected sendcounts from the plan */
    assert_true(cs <= MAXT);
    for (int c = 0; c < cs; c++) {
        assert_int_equal(plan_alltoallv_arrays(n, ns, nd, holds_old[c], holds_new[c], o2c, n2c,
                                               cs, S[c], SD[c], R[c], RD[c]),
                         0);
        for (int d = 0; d < cs; d++)
            E[c][d] = 0;
    }
    for (long i = 0; i < k; i++)
        E[o2c[plan[i].src]][n2c[plan[i].dst]] += plan[i].count;

    for (int p = 0; p < cs; p++) {
        int64_t oc = 0, od = 0, nc = 0, ndp = 0;
        if (holds_old[p] >= 0) {
            plan_block b = plan_block_of(n, ns, holds_old[p]);
            oc = b.count;
            od = b.displ;
        }
        if (holds_new[p] >= 0) {
            plan_block b = plan_block_of(n, nd, holds_new[p]);
            nc = b.count;
            ndp = b.displ;
        }
        int64_t ssum = 0, rsum = 0;
        for (int q = 0; q < cs; q++) {
            if (S[p][q] != E[p][q] || S[p][q] != R[q][p] || S[p][q] < 0)
                fail_msg("n=%lld %d->%d: sendcount %d->%d = %lld, recv side %lld, plan %lld",
                         (long long)n, ns, nd, p, q, (long long)S[p][q], (long long)R[q][p],
                         (long long)E[p][q]);
            if (S[p][q] == 0) {
                assert_int_equal(SD[p][q], 0);
                assert_int_equal(RD[q][p], 0);
                continue;
            }
            /* same global range on both sides, inside both blocks */
            plan_block nb = plan_block_of(n, nd, holds_new[q]);
            assert_int_equal(od + SD[p][q], nb.displ + RD[q][p]);
            assert_true(SD[p][q] >= 0 && SD[p][q] + S[p][q] <= oc);
            assert_true(RD[q][p] >= 0 && RD[q][p] + S[p][q] <= nb.count);
            ssum += S[p][q];
        }
        for (int q = 0; q < cs; q++)
            rsum += R[p][q];
        assert_int_equal(ssum, oc);
        assert_int_equal(rsum, nc);
        (void)ndp;
    }
}

static void test_alltoallv_random_mappings(void **state)
{
    (void)state;
    static const int64_t ns_[] = {0, 1, 5, 64, 65, 1000, BIG_N};
    plan_transfer plan[MAXT];
    uint64_t rng = 12345;
    for (int iter = 0; iter < 400; iter++) {
        int ns = 1 + (int)(lcg(&rng) % MAXP), nd = 1 + (int)(lcg(&rng) % MAXP);
        int64_t n = ns_[lcg(&rng) % (sizeof ns_ / sizeof ns_[0])];
        int cs = ns + nd; /* room for fully disjoint sets too */
        int perm[MAXT], o2c[MAXP], n2c[MAXP], holds_old[MAXT], holds_new[MAXT];
        for (int c = 0; c < cs; c++)
            perm[c] = c;
        for (int c = cs - 1; c > 0; c--) {
            int j = (int)(lcg(&rng) % (uint32_t)(c + 1)), t = perm[c];
            perm[c] = perm[j];
            perm[j] = t;
        }
        /* old ranks get perm[0..ns); new rank j shares old rank j's process with
         * probability 1/2 (else a fresh comm rank), in random order */
        for (int i = 0; i < ns; i++)
            o2c[i] = perm[i];
        int fresh = ns;
        int used[MAXT] = {0};
        for (int j = 0; j < nd; j++) {
            int share = (int)(lcg(&rng) % (uint32_t)ns);
            if ((lcg(&rng) & 1) && !used[share]) {
                n2c[j] = o2c[share];
                used[share] = 1;
            } else {
                n2c[j] = perm[fresh++];
            }
        }
        /* empty-block ranks are sometimes absent */
        for (int i = (int)(n < ns ? n : ns); i < ns; i++)
            if (lcg(&rng) & 1)
                o2c[i] = -1;
        for (int j = (int)(n < nd ? n : nd); j < nd; j++)
            if (lcg(&rng) & 1)
                n2c[j] = -1;
        for (int c = 0; c < cs; c++)
            holds_old[c] = holds_new[c] = -1;
        for (int i = 0; i < ns; i++)
            if (o2c[i] >= 0)
                holds_old[o2c[i]] = i;
        for (int j = 0; j < nd; j++)
            if (n2c[j] >= 0)
                holds_new[n2c[j]] = j;
        long k = plan_compute(n, ns, nd, plan, MAXT);
        assert_true(k >= 0);
        check_alltoallv_world(n, ns, nd, o2c, n2c, cs, holds_old, holds_new, plan, k);
    }
}

/* ------------------------------------------------------------------------ */
/* Huge counts: no overflow (checked by UBSan in the sanitizer build)        */

static void test_huge_n(void **state)
{
    (void)state;
    plan_transfer t[MAXT];
    static const int64_t ns_[] = {INT64_MAX, INT64_MAX - 1, (int64_t)1 << 62};
    for (size_t i = 0; i < sizeof ns_ / sizeof ns_[0]; i++) {
        int64_t n = ns_[i];
        long k = plan_compute(n, 63, 64, t, MAXT);
        assert_true(k > 0);
        int64_t pos = 0;
        for (long j = 0; j < k; j++) {
            assert_int_equal(t[j].global_displ, pos);
            pos += t[j].count;
        }
        assert_int_equal(pos, n);
        /* huge rank counts: only the requested ranges are visited */
        k = plan_sends_of(n, INT_MAX, 3, INT_MAX - 1, t, MAXT);
        assert_int_equal(k, 1);
        assert_int_equal(t[0].dst, 2);
        assert_int_equal(t[0].global_displ + t[0].count, n);
        k = plan_recvs_of(n, 3, INT_MAX, 0, t, MAXT);
        assert_int_equal(k, 1);
        assert_int_equal(t[0].src, 0);
        assert_int_equal(t[0].global_displ, 0);
        assert_true(plan_moved_elements(n, 64, 63) > 0);
        assert_int_equal(plan_moved_elements(n, 64, 64), 0);
    }
}

/* ------------------------------------------------------------------------ */
/* Exhaustive sweep over (ns, nd) in [1, 64]^2                               */

typedef struct {
    int64_t *oldv;  /* oldv[g] = g: the concatenation of the old rank blocks */
    int64_t *newv;  /* the concatenation of the new rank blocks */
    int *own_old, *own_new;
    int64_t cap; /* size of the arrays above */
} sim_buffers;

/* Check everything about the plan for (n, ns, nd).  `simulate` selects the
 * element-by-element simulation (otherwise only the exact interval checks). */
static void check_case(int64_t n, int ns, int nd, int simulate, sim_buffers *sb)
{
    plan_transfer plan[MAXT], part[MAXT];
    int64_t ocount[MAXP], odispl[MAXP], ncount[MAXP], ndispl[MAXP];
    naive_blocks(n, ns, ocount, odispl);
    naive_blocks(n, nd, ncount, ndispl);

    long k = plan_compute(n, ns, nd, plan, MAXT);
    if (k < 0 || (size_t)k > plan_max_transfers(ns, nd))
        fail_msg("n=%lld %d->%d: plan_compute returned %ld", (long long)n, ns, nd, k);
    if (k > 0)
        assert_int_equal(plan_compute(n, ns, nd, part, (size_t)k - 1), -1);

    /* 1. structure: tiles [0,n) in order, each piece inside both blocks,
     *    offsets consistent, sorted strictly by (dst, src). */
    int64_t pos = 0, moved = 0;
    for (long i = 0; i < k; i++) {
        const plan_transfer *t = &plan[i];
        if (t->src < 0 || t->src >= ns || t->dst < 0 || t->dst >= nd || t->count <= 0 ||
            t->global_displ != pos || t->src_offset != pos - odispl[t->src] ||
            t->dst_offset != pos - ndispl[t->dst] || t->src_offset < 0 || t->dst_offset < 0 ||
            t->src_offset + t->count > ocount[t->src] ||
            t->dst_offset + t->count > ncount[t->dst])
            fail_msg("n=%lld %d->%d: bad transfer %ld {src %d dst %d g %lld c %lld so %lld do %lld}",
                     (long long)n, ns, nd, i, t->src, t->dst, (long long)t->global_displ,
                     (long long)t->count, (long long)t->src_offset, (long long)t->dst_offset);
        if (i > 0 && !(plan[i - 1].dst < t->dst ||
                       (plan[i - 1].dst == t->dst && plan[i - 1].src < t->src)))
            fail_msg("n=%lld %d->%d: not sorted by (dst,src) at %ld", (long long)n, ns, nd, i);
        pos += t->count;
        if (t->src != t->dst)
            moved += t->count;
    }
    assert_int_equal(pos, n);

    /* 2. simulation: old rank s's block holds the global indices it owns; apply
     *    every transfer element by element (reading through src/src_offset,
     *    writing through dst/dst_offset) and check every new element. */
    if (simulate) {
        assert_true(n <= sb->cap);
        for (int64_t g = 0; g < n; g++)
            sb->newv[g] = -1;
        int64_t written = 0;
        for (long i = 0; i < k; i++) {
            const plan_transfer *t = &plan[i];
            const int64_t *from = sb->oldv + odispl[t->src] + t->src_offset;
            int64_t *to = sb->newv + ndispl[t->dst] + t->dst_offset;
            memcpy(to, from, (size_t)t->count * sizeof *to);
            written += t->count;
        }
        /* every element holds the right value and exactly n were written:
         * each was written exactly once */
        assert_int_equal(written, n);
        for (int d = 0; d < nd; d++)
            for (int64_t e = 0; e < ncount[d]; e++) {
                int64_t g = ndispl[d] + e;
                if (sb->newv[g] != g)
                    fail_msg("n=%lld %d->%d: new rank %d element %lld holds %lld",
                             (long long)n, ns, nd, d, (long long)e, (long long)sb->newv[g]);
            }
    }

    /* 3. recvs_of / sends_of: concatenated over dst (resp. src) in rank order
     *    they reproduce plan_compute exactly (compute is in global order, and
     *    both src and dst are non-decreasing along it). */
    long at = 0;
    for (int d = 0; d < nd; d++) {
        long m = plan_recvs_of(n, ns, nd, d, part, (size_t)ns);
        assert_true(m >= 0 && at + m <= k);
        if (m > 0)
            assert_int_equal(plan_recvs_of(n, ns, nd, d, part + m, (size_t)m - 1), -1);
        for (long i = 0; i < m; i++) {
            assert_int_equal(part[i].dst, d);
            if (!transfer_equal(&part[i], &plan[at + i]))
                fail_msg("n=%lld %d->%d: recvs_of(%d)[%ld] differs", (long long)n, ns, nd, d, i);
        }
        at += m;
    }
    assert_int_equal(at, k);
    /* sends_of(s) must equal the sub-sequence of plan with src == s */
    for (int s = 0; s < ns; s++) {
        long m = plan_sends_of(n, ns, nd, s, part, (size_t)nd);
        assert_true(m >= 0);
        if (m > 0)
            assert_int_equal(plan_sends_of(n, ns, nd, s, part + m, (size_t)m - 1), -1);
        long j = 0;
        for (long i = 0; i < k; i++) {
            if (plan[i].src != s)
                continue;
            if (j >= m || !transfer_equal(&part[j], &plan[i]))
                fail_msg("n=%lld %d->%d: sends_of(%d)[%ld] differs", (long long)n, ns, nd, s, j);
            j++;
        }
        assert_int_equal(j, m);
    }

    /* 4. alltoallv arrays with Ductile's identity mapping. */
    int cs = ns > nd ? ns : nd;
    int o2c[MAXP], n2c[MAXP], holds_old[MAXP], holds_new[MAXP];
    for (int c = 0; c < cs; c++) {
        if (c < ns)
            o2c[c] = c;
        if (c < nd)
            n2c[c] = c;
        holds_old[c] = c < ns ? c : -1;
        holds_new[c] = c < nd ? c : -1;
    }
    check_alltoallv_world(n, ns, nd, o2c, n2c, cs, holds_old, holds_new, plan, k);

    /* 5. moved elements: against the plan, an O(ns*nd) block brute force, and
     *    (when simulating) a per-element owner comparison. */
    int64_t pm = plan_moved_elements(n, ns, nd);
    assert_int_equal(pm, moved);
    int64_t brute = 0;
    for (int s = 0; s < ns; s++)
        for (int d = 0; d < nd; d++) {
            if (s == d)
                continue;
            int64_t lo = odispl[s] > ndispl[d] ? odispl[s] : ndispl[d];
            int64_t hi1 = odispl[s] + ocount[s], hi2 = ndispl[d] + ncount[d];
            int64_t hi = hi1 < hi2 ? hi1 : hi2;
            if (hi > lo)
                brute += hi - lo;
        }
    assert_int_equal(pm, brute);
    if (simulate && n <= 100000) {
        naive_owners(n, ns, sb->own_old);
        naive_owners(n, nd, sb->own_new);
        int64_t cnt = 0;
        for (int64_t g = 0; g < n; g++)
            cnt += sb->own_old[g] != sb->own_new[g];
        assert_int_equal(pm, cnt);
    }
}

static int in_list(int64_t v, const int64_t *list, int len)
{
    for (int i = 0; i < len; i++)
        if (list[i] == v)
            return 1;
    return 0;
}

/* (ns, nd) pairs on which n = BIG_N is also simulated element by element.
 * The exact interval checks run for all pairs; simulating 1e6 elements for all
 * 4096 pairs costs ~4 s more (memory bound), so by default it is done on 81
 * representative pairs.  Set PLAN_TEST_FULL_SIM=1 to simulate every pair. */
static int big_sim_pair(int ns, int nd, int full)
{
    if (full)
        return 1;
    static const int sel[] = {1, 2, 3, 7, 31, 32, 33, 63, 64};
    int a = 0, b = 0;
    for (size_t i = 0; i < sizeof sel / sizeof sel[0]; i++) {
        a |= sel[i] == ns;
        b |= sel[i] == nd;
    }
    return a && b;
}

static void test_sweep_64x64(void **state)
{
    (void)state;
    static const int64_t fixed[] = {0, 1, 7, 63, 64, 65, 1000, BIG_N};
    const int nfixed = (int)(sizeof fixed / sizeof fixed[0]);
    sim_buffers sb;
    sb.cap = BIG_N;
    sb.oldv = malloc((size_t)sb.cap * sizeof *sb.oldv);
    sb.newv = malloc((size_t)sb.cap * sizeof *sb.newv);
    sb.own_old = malloc(100000 * sizeof *sb.own_old);
    sb.own_new = malloc(100000 * sizeof *sb.own_new);
    assert_non_null(sb.oldv);
    assert_non_null(sb.newv);
    assert_non_null(sb.own_old);
    assert_non_null(sb.own_new);
    for (int64_t g = 0; g < sb.cap; g++)
        sb.oldv[g] = g;

    const char *env = getenv("PLAN_TEST_FULL_SIM");
    int full = env != NULL && env[0] == '1';
    long cases = 0;
    for (int ns = 1; ns <= MAXP; ns++)
        for (int nd = 1; nd <= MAXP; nd++) {
            for (int i = 0; i < nfixed; i++) {
                int sim = fixed[i] != BIG_N || big_sim_pair(ns, nd, full);
                check_case(fixed[i], ns, nd, sim, &sb);
                cases++;
            }
            /* n smaller than the process counts (empty blocks) */
            int64_t extra[] = {nd - 1, nd / 2, ns - 1, ns / 2, (ns < nd ? ns : nd) + 1};
            int64_t done[5];
            int ndone = 0;
            for (int i = 0; i < 5; i++) {
                int64_t n = extra[i];
                if (n < 0 || in_list(n, fixed, nfixed) || in_list(n, done, ndone))
                    continue;
                done[ndone++] = n;
                check_case(n, ns, nd, 1, &sb);
                cases++;
            }
        }
    printf("    sweep: %ld (n, ns, nd) cases checked%s\n", cases,
           full ? " (n=1000003 simulated on all pairs)" : "");
    free(sb.oldv);
    free(sb.newv);
    free(sb.own_old);
    free(sb.own_new);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_of_known),
        cmocka_unit_test(test_block_of_sweep),
        cmocka_unit_test(test_block_of_huge),
        cmocka_unit_test(test_owner_of),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_known_10_2_to_3),
        cmocka_unit_test(test_known_10_3_to_2),
        cmocka_unit_test(test_known_2_1_to_4),
        cmocka_unit_test(test_known_2_4_to_1),
        cmocka_unit_test(test_known_small_misc),
        cmocka_unit_test(test_alltoallv_custom_mapping),
        cmocka_unit_test(test_alltoallv_bad_arguments),
        cmocka_unit_test(test_alltoallv_random_mappings),
        cmocka_unit_test(test_huge_n),
        cmocka_unit_test(test_sweep_64x64),
    };
    return cmocka_run_group_tests_name("redist_plan", tests, NULL, NULL);
}
