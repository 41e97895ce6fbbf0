/* patchplan.c -- the pure part of patch repartitioning (patchplan.h).
 *
 * The pieces of every patch are found from the block grid arithmetic (the
 * blocks overlapping a patch, by plan_owner_of in each dimension) or from the
 * owner map, never by asking every rank about every patch.  Placement keeps
 * the rules of seed 003 and of the earlier patches x ranks loops exactly:
 * greedy puts a patch on the staying process holding its largest part (the
 * lowest new rank on ties), else on the least loaded new rank (lowest on
 * ties: a min segment tree over the counts); balanced puts fully-contained
 * patches first, then shared ones, on the lowest staying holder under its
 * target, else on the first process under target (a pointer that only moves
 * forward: counts only grow).  The cost figures count distinct partners by
 * grouping the fragments by sender (a counting sort), not by a P x P table. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "patchplan.h"
#include "../redist/plan.h"

static void *pp_alloc(pp_plan *p, size_t n)
{
    void *q = p->alloc ? p->alloc(n ? n : 1, 1) : calloc(n ? n : 1, 1);
    if (q) {
        p->bytes += n;
        if (p->bytes > p->peak) p->peak = p->bytes;
    }
    return q;
}

static void pp_release(pp_plan *p, void *q, size_t n)
{
    if (!q) return;
    free(q);
    p->bytes -= n;
}

int64_t pp_vol(const pp_box *b)
{
    int64_t v = 1;
    for (int d = 0; d < 3; d++) v *= b->hi[d] > b->lo[d] ? b->hi[d] - b->lo[d] : 0;
    return v;
}

void pp_patch_box(const int np[3], const int p[3], const int g[3], int id, pp_box *b)
{
    int c[3], r = id;
    for (int d = 2; d >= 0; d--) { c[d] = r % np[d]; r /= np[d]; }
    for (int d = 0; d < 3; d++) {
        b->lo[d] = c[d] * p[d];
        b->hi[d] = b->lo[d] + p[d] < g[d] ? b->lo[d] + p[d] : g[d];
    }
}

int pp_same_new(int ns, int nd, int n, const int *o2c, const int *n2c, int *same_new, pp_plan *acct)
{
    int *c2n = pp_alloc(acct, (size_t)n * sizeof *c2n);
    if (!c2n) return -1;
    for (int c = 0; c < n; c++) c2n[c] = -1;
    for (int k = 0; k < nd; k++) {
        acct->ops++;
        if (n2c[k] < 0 || n2c[k] >= n) { pp_release(acct, c2n, (size_t)n * sizeof *c2n); return -1; }
        c2n[n2c[k]] = k;
    }
    for (int r = 0; r < ns; r++) {
        acct->ops++;
        same_new[r] = o2c[r] >= 0 && o2c[r] < n ? c2n[o2c[r]] : -1;
    }
    pp_release(acct, c2n, (size_t)n * sizeof *c2n);
    return 0;
}

/* The pieces of patch `id` held by the old ranks, in rank order: written to f (if given), counted. */
static size_t pieces(const pp_input *in, int id, pp_frag *f, uint64_t *ops)
{
    pp_box pb;
    pp_patch_box(in->np, in->p, in->g, id, &pb);
    if (!in->blocks) {
        int r = in->owner[id];
        ++*ops;
        if (r < 0 || r >= in->ns || pp_vol(&pb) == 0) return 0;
        if (f) *f = (pp_frag){id, r, -1, pb};
        return 1;
    }
    int a[3], b[3];
    for (int d = 0; d < 3; d++) {
        a[d] = plan_owner_of(in->g[d], in->dm[d], pb.lo[d]);
        b[d] = plan_owner_of(in->g[d], in->dm[d], pb.hi[d] - 1);
        if (a[d] < 0 || b[d] < 0) return 0;
    }
    size_t k = 0;
    for (int c0 = a[0]; c0 <= b[0]; c0++)
        for (int c1 = a[1]; c1 <= b[1]; c1++)
            for (int c2 = a[2]; c2 <= b[2]; c2++) {
                int c[3] = {c0, c1, c2};
                pp_box o;
                ++*ops;
                for (int d = 0; d < 3; d++) {
                    plan_block bl = plan_block_of(in->g[d], in->dm[d], c[d]);
                    int lo = (int)bl.displ, hi = (int)(bl.displ + bl.count);
                    o.lo[d] = lo > pb.lo[d] ? lo : pb.lo[d];
                    o.hi[d] = hi < pb.hi[d] ? hi : pb.hi[d];
                    if (o.hi[d] < o.lo[d]) o.hi[d] = o.lo[d];
                }
                if (pp_vol(&o) == 0) continue;
                if (f) f[k] = (pp_frag){id, (c0 * in->dm[1] + c1) * in->dm[2] + c2, -1, o};
                k++;
            }
    return k;
}

/* A min segment tree over the new ranks' counts: the least loaded, lowest rank on ties. */
struct mintree { int sz, n, *t; const int *count; };

static int better(const struct mintree *m, int i, int j)
{
    if (j < 0 || j >= m->n) return i;
    if (i < 0 || i >= m->n) return j;
    return m->count[j] < m->count[i] || (m->count[j] == m->count[i] && j < i) ? j : i;
}

static void mt_update(struct mintree *m, int k, uint64_t *ops)
{
    for (int i = (k + m->sz) / 2; i >= 1; i /= 2) {
        ++*ops;
        m->t[i] = better(m, m->t[2 * i], m->t[2 * i + 1]);
    }
}

int pp_place(const pp_input *in, pp_plan *out)
{
    int m = in->m, nd = in->nd, ok = 0;
    if (m < 1 || nd < 1 || in->ns < 1 || (in->blocks && (in->dm[0] * in->dm[1] * in->dm[2] != in->ns))) return -1;
    int *count = NULL;
    size_t *start = NULL;
    struct mintree mt = {1, nd, NULL, NULL};
    size_t nf = 0, tsz = 0;
    for (int id = 0; id < m; id++) nf += pieces(in, id, NULL, &out->ops);
    out->assign = pp_alloc(out, (size_t)m * sizeof *out->assign);
    out->f = pp_alloc(out, nf * sizeof *out->f);
    count = pp_alloc(out, (size_t)nd * sizeof *count);
    start = pp_alloc(out, ((size_t)m + 1) * sizeof *start); /* patch id's fragments: f[start[id]..start[id+1]) */
    if (!out->assign || !out->f || !count || !start) goto out;
    out->nf = nf;
    nf = 0;
    for (int id = 0; id < m; id++) {
        start[id] = nf;
        nf += pieces(in, id, out->f + nf, &out->ops);
        out->assign[id] = -1;
    }
    start[m] = nf;
    if (in->greedy) {
        while (mt.sz < nd) mt.sz *= 2;
        tsz = 2 * (size_t)mt.sz * sizeof *mt.t;
        mt.count = count;
        if (!(mt.t = pp_alloc(out, tsz))) goto out;
        for (int i = 0; i < mt.sz; i++) mt.t[mt.sz + i] = i < nd ? i : -1;
        for (int i = mt.sz - 1; i >= 1; i--) { out->ops++; mt.t[i] = better(&mt, mt.t[2 * i], mt.t[2 * i + 1]); }
        for (int id = 0; id < m; id++) {
            int64_t best = 0;
            int pick = -1;
            for (size_t i = start[id]; i < start[id + 1]; i++) {
                int k = in->same_new[out->f[i].src];
                int64_t v = k >= 0 ? pp_vol(&out->f[i].b) : 0;
                out->ops++;
                if (v > best || (v == best && v > 0 && k < pick)) { best = v; pick = k; }
            }
            if (pick < 0) pick = mt.t[1]; /* no holder stays (a shrink): the least loaded new rank */
            out->assign[id] = pick;
            count[pick]++;
            mt_update(&mt, pick, &out->ops);
        }
    } else {
        int first = 0; /* no process before it is under its target */
        for (int pass = 0; pass < 2; pass++) /* fully-contained patches first, then shared ones */
            for (int id = 0; id < m; id++) {
                int pick = -1;
                out->ops++;
                if ((pass == 0) != (start[id + 1] - start[id] == 1)) continue;
                for (size_t i = start[id]; i < start[id + 1]; i++) {
                    int k = in->same_new[out->f[i].src];
                    out->ops++;
                    if (k < 0) continue;
                    if (count[k] < m / nd + (k < m % nd) && (pick < 0 || k < pick)) pick = k;
                }
                while (first < nd && count[first] >= m / nd + (first < m % nd)) { first++; out->ops++; }
                if (pick < 0) pick = first < nd ? first : 0;
                out->assign[id] = pick;
                count[pick]++;
            }
    }
    for (size_t i = 0; i < out->nf; i++) { out->ops++; out->f[i].dst = out->assign[out->f[i].id]; }
    ok = 1;
out:
    pp_release(out, mt.t, tsz);
    pp_release(out, count, (size_t)nd * sizeof *count);
    pp_release(out, start, ((size_t)m + 1) * sizeof *start);
    if (!ok) {
        pp_release(out, out->assign, (size_t)m * sizeof *out->assign);
        pp_release(out, out->f, out->nf * sizeof *out->f);
        out->assign = NULL;
        out->f = NULL;
        out->nf = 0;
        return -1;
    }
    return 0;
}

int pp_cost(pp_plan *pl, int n, const int *o2c, const int *n2c, int64_t ext, int64_t *maxm, int64_t *maxp,
            int64_t *maxb)
{
    size_t szn = ((size_t)n + 1) * sizeof(int64_t), szf = (pl->nf ? pl->nf : 1) * sizeof(int);
    int64_t *msgs = pp_alloc(pl, szn), *bytes = pp_alloc(pl, szn), *first = pp_alloc(pl, szn);
    int *order = pp_alloc(pl, szf), *seen = pp_alloc(pl, (size_t)n * sizeof *seen);
    int rc = -1;
    *maxm = *maxp = *maxb = 0;
    if (!msgs || !bytes || !first || !order || !seen) goto out;
    /* group the crossing fragments by sender (counting sort), then count each sender's distinct receivers */
    for (size_t i = 0; i < pl->nf; i++) {
        int a = o2c[pl->f[i].src], b = n2c[pl->f[i].dst];
        pl->ops++;
        if (a == b) continue;
        msgs[a]++;
        bytes[a] += pp_vol(&pl->f[i].b) * ext;
    }
    for (int a = 0; a < n; a++) { pl->ops++; first[a + 1] = first[a] + msgs[a]; seen[a] = -1; }
    for (size_t i = 0; i < pl->nf; i++) {
        int a = o2c[pl->f[i].src], b = n2c[pl->f[i].dst];
        pl->ops++;
        if (a != b) order[first[a]++] = (int)i;
    }
    for (int a = 0, i = 0; a < n; a++) { /* first[a] is now where a's fragments end */
        int64_t pr = 0;
        for (; i < first[a]; i++) {
            int b = n2c[pl->f[order[i]].dst];
            pl->ops++;
            if (seen[b] != a) { seen[b] = a; pr++; }
        }
        pl->ops++;
        if (msgs[a] > *maxm) *maxm = msgs[a];
        if (pr > *maxp) *maxp = pr;
        if (bytes[a] > *maxb) *maxb = bytes[a];
    }
    rc = 0;
out:
    pp_release(pl, msgs, szn);
    pp_release(pl, bytes, szn);
    pp_release(pl, first, szn);
    pp_release(pl, order, szf);
    pp_release(pl, seen, (size_t)n * sizeof *seen);
    return rc;
}

void pp_free(pp_plan *pl)
{
    if (!pl) return;
    free(pl->assign);
    free(pl->f);
    pl->assign = NULL;
    pl->f = NULL;
    pl->nf = 0;
}
