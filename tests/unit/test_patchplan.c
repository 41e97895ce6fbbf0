/* test_patchplan.c -- CMocka unit tests for src/data/patchplan.{h,c}: the
 * planner places every patch exactly as the earlier patches x ranks loops of
 * patches.c did (a copy of them is the reference here) and finds the same
 * fragments and cost figures, over many small layouts in both block
 * distributions; and at 16,384 and 65,536 ranks its operation count and the
 * bytes it allocates (both counted by the planner, never times) grow no
 * faster than P log P between the two sizes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "patchplan.h"
#include "plan.h"

/* ---- the reference: patches.c's loops before patchplan.c (O(m x ns) and an n x n table) */
static int64_t ref_isect(const pp_box *a, const pp_box *b, pp_box *o)
{
    for (int d = 0; d < 3; d++) {
        o->lo[d] = a->lo[d] > b->lo[d] ? a->lo[d] : b->lo[d];
        o->hi[d] = a->hi[d] < b->hi[d] ? a->hi[d] : b->hi[d];
        if (o->hi[d] < o->lo[d]) o->hi[d] = o->lo[d];
    }
    return pp_vol(o);
}

static int64_t ref_held(const pp_input *in, int r, int id, pp_box *o)
{
    pp_box pb, bb;
    pp_patch_box(in->np, in->p, in->g, id, &pb);
    if (!in->blocks) {
        if (in->owner[id] != r) return 0;
        *o = pb;
        return pp_vol(o);
    }
    int cr[3], x = r;
    for (int d = 2; d >= 0; d--) { cr[d] = x % in->dm[d]; x /= in->dm[d]; }
    for (int d = 0; d < 3; d++) {
        plan_block b = plan_block_of(in->g[d], in->dm[d], cr[d]);
        bb.lo[d] = (int)b.displ;
        bb.hi[d] = (int)(b.displ + b.count);
    }
    return ref_isect(&pb, &bb, o);
}

static void ref_place(const pp_input *in, int *assign)
{
    int ns = in->ns, nd = in->nd, m = in->m, *count = calloc((size_t)nd, sizeof *count);
    const int *same_new = in->same_new;
    pp_box o;
    assert_non_null(count);
    for (int id = 0; id < m; id++) assign[id] = -1;
    if (in->greedy) {
        for (int id = 0; id < m; id++) {
            int64_t best = 0;
            for (int r = 0; r < ns; r++) {
                int64_t v = same_new[r] >= 0 ? ref_held(in, r, id, &o) : 0;
                if (v > best || (v == best && v > 0 && same_new[r] < assign[id])) { best = v; assign[id] = same_new[r]; }
            }
            if (assign[id] < 0) {
                int k = 0;
                for (int j = 1; j < nd; j++) if (count[j] < count[k]) k = j;
                assign[id] = k;
            }
            count[assign[id]]++;
        }
    } else {
        for (int pass = 0; pass < 2; pass++)
            for (int id = 0; id < m; id++) {
                int holders = 0, pick = -1;
                for (int r = 0; r < ns; r++) holders += ref_held(in, r, id, &o) > 0;
                if ((pass == 0) != (holders == 1)) continue;
                for (int r = 0; r < ns; r++) {
                    int k = same_new[r];
                    if (k < 0 || ref_held(in, r, id, &o) == 0) continue;
                    int target = m / nd + (k < m % nd);
                    if (count[k] < target && (pick < 0 || k < pick)) pick = k;
                }
                for (int k = 0; pick < 0 && k < nd; k++)
                    if (count[k] < m / nd + (k < m % nd)) pick = k;
                assign[id] = pick < 0 ? 0 : pick;
                count[assign[id]]++;
            }
    }
    free(count);
}

/* MPI_Dims_create's answer for the sizes used here (balanced, non-increasing) */
static void dims_of(int P, int ndims, int dm[3])
{
    dm[0] = dm[1] = dm[2] = 1;
    for (int f = 2; P > 1;) {
        if (P % f) { f++; continue; }
        int k = 0;
        for (int d = 1; d < ndims; d++) if (dm[d] < dm[k]) k = d;
        dm[k] *= f;
        P /= f;
    }
    /* non-increasing order */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < ndims; j++)
            if (dm[j] > dm[i]) { int t = dm[i]; dm[i] = dm[j]; dm[j] = t; }
}

static void geometry(pp_input *in, int ndims, const int g[3], const int p[3])
{
    in->m = 1;
    for (int d = 0; d < 3; d++) {
        in->g[d] = d < ndims ? g[d] : 1;
        in->p[d] = d < ndims ? p[d] : 1;
        in->np[d] = (in->g[d] + in->p[d] - 1) / in->p[d];
        in->m *= in->np[d];
    }
}

/* one small layout: the planner against the reference (placement, fragments, cost figures) */
static void compare(pp_input *in, int n, const int *o2c, const int *n2c)
{
    pp_plan pl;
    memset(&pl, 0, sizeof pl);
    int *sn = malloc((size_t)in->ns * sizeof *sn), *ref = malloc((size_t)in->m * sizeof *ref);
    assert_non_null(sn);
    assert_non_null(ref);
    assert_int_equal(pp_same_new(in->ns, in->nd, n, o2c, n2c, sn, &pl), 0);
    for (int r = 0; r < in->ns; r++) {
        int want = -1;
        for (int k = 0; k < in->nd; k++) if (n2c[k] == o2c[r]) want = k;
        assert_int_equal(sn[r], want);
    }
    in->same_new = sn;
    assert_int_equal(pp_place(in, &pl), 0);
    ref_place(in, ref);
    for (int id = 0; id < in->m; id++) assert_int_equal(pl.assign[id], ref[id]);
    /* fragments: every (patch, holder) in (patch, old rank) order */
    size_t k = 0;
    for (int id = 0; id < in->m; id++)
        for (int r = 0; r < in->ns; r++) {
            pp_box o;
            if (ref_held(in, r, id, &o) == 0) continue;
            assert_true(k < pl.nf);
            assert_int_equal(pl.f[k].id, id);
            assert_int_equal(pl.f[k].src, r);
            assert_int_equal(pl.f[k].dst, ref[id]);
            assert_memory_equal(&pl.f[k].b, &o, sizeof o);
            k++;
        }
    assert_true(k == pl.nf);
    /* cost figures against the n x n table */
    int64_t *pair = calloc((size_t)n * n, sizeof *pair), *msgs = calloc((size_t)n, sizeof *msgs),
            *bytes = calloc((size_t)n, sizeof *bytes), wm = 0, wp = 0, wb = 0, gm, gp, gb;
    assert_non_null(pair);
    for (size_t i = 0; i < pl.nf; i++) {
        int a = o2c[pl.f[i].src], b = n2c[pl.f[i].dst];
        if (a == b) continue;
        msgs[a]++;
        bytes[a] += pp_vol(&pl.f[i].b) * 8;
        pair[(size_t)a * n + b] = 1;
    }
    for (int a = 0; a < n; a++) {
        int64_t pr = 0;
        for (int b = 0; b < n; b++) pr += pair[(size_t)a * n + b];
        if (msgs[a] > wm) wm = msgs[a];
        if (pr > wp) wp = pr;
        if (bytes[a] > wb) wb = bytes[a];
    }
    assert_int_equal(pp_cost(&pl, n, o2c, n2c, 8, &gm, &gp, &gb), 0);
    assert_true(gm == wm && gp == wp && gb == wb);
    assert_true(pl.bytes == (size_t)in->m * sizeof(int) + pl.nf * sizeof(pp_frag)); /* only the result is kept */
    free(pair);
    free(msgs);
    free(bytes);
    pp_free(&pl);
    free(sn);
    free(ref);
}

static void small_layouts(int remainder_last)
{
    plan_set_remainder_last(remainder_last);
    srand(25);
    int gs[][3] = {{10, 1, 1}, {7, 1, 1}, {12, 9, 1}, {5, 13, 1}, {9, 8, 7}, {4, 3, 5}, {2, 2, 2}};
    int ps[][3] = {{3, 1, 1}, {8, 1, 1}, {4, 5, 1}, {2, 3, 1}, {3, 4, 2}, {5, 2, 3}, {1, 1, 1}};
    int nd_of[] = {1, 1, 2, 2, 3, 3, 3};
    for (size_t c = 0; c < sizeof gs / sizeof gs[0]; c++)
        for (int ns = 1; ns <= 7; ns++)
            for (int nd = 1; nd <= 7; nd++)
                for (int map = 0; map < 3; map++)
                    for (int greedy = 0; greedy < 2; greedy++)
                        for (int blocks = 0; blocks < 2; blocks++) {
                            int n, o2c[16], n2c[16], owner[1024];
                            pp_input in;
                            memset(&in, 0, sizeof in);
                            geometry(&in, nd_of[c], gs[c], ps[c]);
                            assert_true(in.m <= 1024);
                            in.ns = ns;
                            in.nd = nd;
                            in.greedy = greedy;
                            in.blocks = blocks;
                            dims_of(ns, nd_of[c], in.dm);
                            for (int id = 0; id < in.m; id++) owner[id] = rand() % ns;
                            in.owner = owner;
                            for (int r = 0; r < ns; r++) o2c[r] = r;
                            if (map == 0) { /* merge (expansion) or a shrink: the first ranks stay */
                                n = ns > nd ? ns : nd;
                                for (int k = 0; k < nd; k++) n2c[k] = k;
                            } else if (map == 1) { /* even old ranks stay, the others are new processes */
                                n = ns + nd;
                                for (int k = 0; k < nd; k++) n2c[k] = k % 2 == 0 && k < ns ? k : ns + k;
                            } else { /* reversed */
                                n = ns > nd ? ns : nd;
                                for (int k = 0; k < nd; k++) n2c[k] = n - 1 - k;
                            }
                            compare(&in, n, o2c, n2c);
                        }
    plan_set_remainder_last(0);
}

static void test_same_as_before(void **state)
{
    (void)state;
    small_layouts(0);
}

static void test_same_as_before_remainder_last(void **state)
{
    (void)state;
    small_layouts(1);
}

/* ---- scale: the counts at P and 4P */
struct cost { double ops, peak; size_t m, nf; };

/* kind 0: 2D blocks -> patches on the same P ranks (EMPI_Repartition); 1: patches P -> P/2 (shrink);
 * 2: patches P/2 -> P (expansion); 3: 3D blocks on P/2 -> patches on P (a resize's first repartition) */
static struct cost run_at(int P, int kind, int greedy)
{
    int ndims = kind == 3 ? 3 : 2, ns = kind == 0 || kind == 1 ? P : P / 2, nd = kind == 1 ? P / 2 : P;
    int dmP[3], g[3], p[3], n = ns > nd ? ns : nd;
    dims_of(kind == 3 ? ns : P, ndims, dmP);
    for (int d = 0; d < 3; d++) { g[d] = (ndims == 3 ? 16 : 32) * dmP[d]; p[d] = ndims == 3 ? 12 : 24; }
    pp_input in;
    pp_plan pl;
    memset(&in, 0, sizeof in);
    memset(&pl, 0, sizeof pl);
    geometry(&in, ndims, g, p);
    in.ns = ns;
    in.nd = nd;
    in.greedy = greedy;
    in.blocks = kind == 0 || kind == 3;
    dims_of(ns, ndims, in.dm);
    int *owner = malloc((size_t)in.m * sizeof *owner), *o2c = malloc((size_t)n * sizeof *o2c),
        *n2c = malloc((size_t)n * sizeof *n2c), *sn = malloc((size_t)ns * sizeof *sn);
    assert_true(owner && o2c && n2c && sn);
    for (int id = 0; id < in.m; id++) owner[id] = (int)((int64_t)id * ns / in.m); /* contiguous runs, as placed */
    for (int r = 0; r < n; r++) o2c[r] = n2c[r] = r;
    in.owner = owner;
    assert_int_equal(pp_same_new(ns, nd, n, o2c, n2c, sn, &pl), 0);
    in.same_new = sn;
    assert_int_equal(pp_place(&in, &pl), 0);
    int64_t mm, mp, mb;
    assert_int_equal(pp_cost(&pl, n, o2c, n2c, 8, &mm, &mp, &mb), 0);
    /* every patch placed on a new rank, balanced placement within its targets */
    int *count = calloc((size_t)nd, sizeof *count);
    assert_non_null(count);
    for (int id = 0; id < in.m; id++) {
        assert_true(pl.assign[id] >= 0 && pl.assign[id] < nd);
        count[pl.assign[id]]++;
    }
    for (int k = 0; !greedy && k < nd; k++) assert_true(count[k] <= in.m / nd + 1);
    struct cost c = {(double)pl.ops, (double)pl.peak, (size_t)in.m, pl.nf};
    free(count);
    pp_free(&pl);
    free(owner);
    free(o2c);
    free(n2c);
    free(sn);
    return c;
}

static void test_scale(void **state)
{
    (void)state;
    const int P1 = 16384, P2 = 65536;
    /* P log P from P1 to P2: 4 x 16/14 = 4.571; a P^2 term would give 16, m x P 16 */
    const double bound = (double)P2 * log2((double)P2) / ((double)P1 * log2((double)P1));
    const char *names[] = {"2D blocks -> patches, P -> P", "patches P -> P/2", "patches P/2 -> P",
                           "3D blocks P/2 -> patches P"};
    for (int kind = 0; kind < 4; kind++)
        for (int greedy = 0; greedy < 2; greedy++) {
            struct cost a = run_at(P1, kind, greedy), b = run_at(P2, kind, greedy);
            double ro = b.ops / a.ops, rm = b.peak / a.peak;
            printf("patchplan %-30s %-8s P=%d: %zu patches %zu fragments %.0f ops %.0f bytes; P=%d: %zu patches "
                   "%zu fragments %.0f ops %.0f bytes; ratios ops %.3f bytes %.3f (P log P: %.3f)\n",
                   names[kind], greedy ? "greedy" : "balanced", P1, a.m, a.nf, a.ops, a.peak, P2, b.m, b.nf, b.ops,
                   b.peak, ro, rm, bound);
            assert_true(ro <= bound + 1e-9);
            assert_true(rm <= bound + 1e-9);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_before),
        cmocka_unit_test(test_same_as_before_remainder_last),
        cmocka_unit_test(test_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
