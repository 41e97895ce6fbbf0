/* test_plan_tail.c -- src/redist/plan.c with the remainder on the last ranks
 * (FlexMPI's EMPI_Get_wsize distribution, plan_set_remainder_last(1)) and
 * on the first ones, checked by brute force: the blocks tile [0, n) in rank
 * order with FlexMPI's counts, plan_owner_of agrees with them element by
 * element, plan_compute's transfers tile [0, n) and match both layouts, and
 * plan_sends_of / plan_recvs_of give the same transfers. */
#include <stdio.h>
#include <stdlib.h>

#include "plan.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; if (fails < 20) { printf("FAIL: " __VA_ARGS__); printf("\n"); } } } while (0)

int main(void)
{
    plan_transfer t[64], u[64];
    for (int last = 0; last <= 1; last++) {
        plan_set_remainder_last(last);
        CHECK(plan_remainder_last() == last, "mode %d not kept", last);
        for (int64_t n = 0; n <= 60; n++)
            for (int p = 1; p <= 9; p++) {
                int64_t next = 0;
                for (int r = 0; r < p; r++) {
                    plan_block b = plan_block_of(n, p, r);
                    int64_t q = n / p, rem = n % p;
                    int64_t want = q + (last ? r >= p - rem : r < rem);
                    CHECK(b.count == want, "n %lld p %d r %d mode %d: count %lld, want %lld", (long long)n, p, r, last,
                          (long long)b.count, (long long)want);
                    CHECK(b.displ == next || b.count == 0, "n %lld p %d r %d: displ %lld, want %lld", (long long)n, p, r,
                          (long long)b.displ, (long long)next);
                    for (int64_t i = b.displ; i < b.displ + b.count; i++)
                        CHECK(plan_owner_of(n, p, i) == r, "n %lld p %d: owner of %lld is %d, want %d", (long long)n, p,
                              (long long)i, plan_owner_of(n, p, i), r);
                    next += b.count;
                }
                CHECK(next == n, "n %lld p %d: blocks cover %lld", (long long)n, p, (long long)next);
                for (int nd = 1; nd <= 9; nd++) {
                    long k = plan_compute(n, p, nd, t, 64);
                    int64_t pos = 0;
                    for (long i = 0; i < k; i++) {
                        plan_block sb = plan_block_of(n, p, t[i].src), db = plan_block_of(n, nd, t[i].dst);
                        CHECK(t[i].global_displ == pos, "tiling");
                        CHECK(t[i].src_offset == pos - sb.displ && t[i].dst_offset == pos - db.displ, "offsets");
                        CHECK(t[i].src_offset + t[i].count <= sb.count && t[i].dst_offset + t[i].count <= db.count,
                              "inside the blocks");
                        pos += t[i].count;
                    }
                    CHECK(pos == n, "n %lld %d->%d: plan covers %lld", (long long)n, p, nd, (long long)pos);
                    long total = 0;
                    for (int s = 0; s < p; s++) {
                        long m = plan_sends_of(n, p, nd, s, u, 64);
                        CHECK(m >= 0, "sends_of");
                        for (long i = 0; i < m; i++) CHECK(u[i].src == s && u[i].count > 0, "sends_of entries");
                        total += m;
                    }
                    CHECK(total == k, "sends_of total %ld, plan %ld", total, k);
                }
            }
    }
    if (fails) printf("%d failures\n", fails);
    else printf("PASS: plan with the remainder on the first and on the last ranks\n");
    return fails ? 1 : 0;
}
