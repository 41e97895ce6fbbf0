/* patches.c -- patch sets (EMPI_Register_patches), repartitioned as in seed
 * 003 ("Data movement strategies for repartitioned data"): a global index
 * space of 1-3 dimensions is cut by an imposed patch grid; patches are
 * placed on the processes greedily (each on the process holding its largest
 * part: least data movement) or balanced (floor(M/N) or +1 patches each,
 * fully-contained patches first, a shared patch on a holder still under its
 * target, the lowest rank first, else on the first process under target),
 * and moved per patch (MPI_Isend/MPI_Irecv with subarray datatypes, one
 * message per patch fragment) or per rank (one packed buffer per process
 * pair), chosen by the program or by a cost estimate.  Every process holds
 * its patches in separate contiguous blocks.
 *
 * The data starts as one block per process of the MPI_Dims_create grid of
 * the world (what EMPI_Register_block makes, without halos: the seed's
 * initial state); the first repartition (EMPI_Repartition, or a resize)
 * moves it onto patches, later ones move patches to patches.  At a resize
 * the new processes' placement is computed from what the old ones hold
 * (a process that stays keeps what it can); every process computes the same
 * placement from the same global information (old rank 0 broadcasts the
 * old owner map at a resize, for the spawned processes).  The result is kept
 * aside (the old storage stays the item's): EMPI_Repartition adopts it at
 * once, a resize at its commit (patches_commit; patches_abort drops it).
 * The placement, the fragments and the cost estimate's figures are planned
 * by patchplan.c (pure, no MPI) in O((patches + P) log P + fragments) time and
 * O(patches + P + fragments) memory; this file moves the data. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "empi.h"
#include "patches.h"
#include "patchplan.h"
#include "../core/hotpath.h"
#include "../core/state.h"
#include "../redist/plan.h"

enum { LAYOUT_BLOCKS = 1, LAYOUT_PATCHES = 2 };

struct pt_state {
    int ndims, g[3], p[3], np[3], m;  /* global sizes, patch sizes, patch grid, patch count */
    int placement, scheme;
    int layout, nprocs, rank;          /* what this process holds, for which world */
    void *block;                       /* LAYOUT_BLOCKS: my block */
    int *owner;                        /* LAYOUT_PATCHES: owner rank of every patch (m) */
    EMPI_Patch *mine;                  /* LAYOUT_PATCHES: my patches, in id order */
    int nmine;
    EMPI_Patch_stats st;
    struct {                           /* a repartition's result, until its commit */
        int set, nprocs, rank, nmine;
        int *owner;
        EMPI_Patch *mine;
        EMPI_Patch_stats st;
    } next;
};


#define vol pp_vol

static void patch_box(const struct pt_state *s, int id, pp_box *b) { pp_patch_box(s->np, s->p, s->g, id, b); }

static void block_box(const struct pt_state *s, int P, int rank, pp_box *b, int dims[3], int coords[3])
{
    int d3[3] = {0, 0, 0}, dm[3], cr[3], r = rank;
    PMPI_Dims_create(P, s->ndims, d3);
    for (int d = 0; d < 3; d++) dm[d] = d < s->ndims ? d3[d] : 1;
    for (int d = 2; d >= 0; d--) { cr[d] = r % dm[d]; r /= dm[d]; }
    for (int d = 0; d < 3; d++) {
        plan_block pb = plan_block_of(s->g[d], dm[d], cr[d]);
        b->lo[d] = (int)pb.displ;
        b->hi[d] = (int)(pb.displ + pb.count);
        if (dims) dims[d] = dm[d];
        if (coords) coords[d] = cr[d];
    }
}

/* Copy box b between two C-order arrays: (dst with origin dlo, sizes dsz) <- (src, slo, ssz). */
static void copy_box(char *dst, const int dlo[3], const int dsz[3], const char *src, const int slo[3],
                     const int ssz[3], const pp_box *b, size_t ext)
{
    if (vol(b) == 0) return;
    size_t run = (size_t)(b->hi[2] - b->lo[2]) * ext;
    for (int i = b->lo[0]; i < b->hi[0]; i++)
        for (int j = b->lo[1]; j < b->hi[1]; j++) {
            size_t so = (((size_t)(i - slo[0]) * ssz[1] + (size_t)(j - slo[1])) * ssz[2] + (size_t)(b->lo[2] - slo[2])) * ext;
            size_t dof = (((size_t)(i - dlo[0]) * dsz[1] + (size_t)(j - dlo[1])) * dsz[2] + (size_t)(b->lo[2] - dlo[2])) * ext;
            memcpy(dst + dof, src + so, run);
        }
}

struct xlayout {
    MPI_Comm comm;
    int ns, nd, my_old, my_new, me;
    const int *o2c, *n2c;
};

/* A process's patch `id` (its patches are in id order): O(log patches). */
static EMPI_Patch *find_patch(EMPI_Patch *v, int n, int id)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (v[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && v[lo].id == id ? &v[lo] : NULL;
}

/* A process's storage of a box: the array holding it, its origin and sizes. */
static const char *src_storage(const struct pt_state *s, int id, int lo[3], int sz[3])
{
    if (s->layout == LAYOUT_BLOCKS) {
        pp_box bb;
        block_box(s, s->nprocs, s->rank, &bb, NULL, NULL);
        for (int d = 0; d < 3; d++) { lo[d] = bb.lo[d]; sz[d] = bb.hi[d] - bb.lo[d]; }
        return s->block;
    }
    const EMPI_Patch *q = find_patch(s->mine, s->nmine, id);
    if (!q) return NULL;
    for (int d = 0; d < 3; d++) { lo[d] = q->lo[d]; sz[d] = q->size[d]; }
    return q->addr;
}

static MPI_Datatype subarray(const int sz[3], const pp_box *b, const int lo[3], MPI_Datatype elem)
{
    int sub[3], st[3];
    for (int d = 0; d < 3; d++) { sub[d] = b->hi[d] - b->lo[d]; st[d] = b->lo[d] - lo[d]; }
    MPI_Datatype t;
    PMPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_C, elem, &t);
    PMPI_Type_commit(&t);
    return t;
}

/* A repartition's result (repartition) becomes the state: the old storage is freed. */
static void adopt_next(struct pt_state *s)
{
    if (!s->next.set) return;
    free(s->block); /* the blocks layout's (or a spawned process's empty) block; NULL on patches */
    s->block = NULL;
    for (int i = 0; i < s->nmine; i++) free(s->mine[i].addr);
    free(s->mine);
    free(s->owner);
    s->mine = s->next.mine;
    s->nmine = s->next.nmine;
    s->owner = s->next.owner;
    s->layout = LAYOUT_PATCHES;
    s->nprocs = s->next.nprocs;
    s->rank = s->next.rank;
    s->st = s->next.st;
    memset(&s->next, 0, sizeof s->next);
}

/* A repartition's result is dropped: the state stays as it was. */
static void drop_next(struct pt_state *s)
{
    if (!s->next.set) return;
    for (int i = 0; i < s->next.nmine; i++) free(s->next.mine[i].addr);
    free(s->next.mine);
    free(s->next.owner);
    memset(&s->next, 0, sizeof s->next);
}

static int repartition(struct pt_state *s, int layout, const int *owner, const struct xlayout *X, size_t ext,
                       char *err, size_t errlen)
{
    double t0 = PMPI_Wtime();
    int n = 0;
    PMPI_Comm_size(X->comm, &n);
    int *same_new = malloc((size_t)X->ns * sizeof *same_new), *assign = NULL;
    pp_frag *f = NULL;
    size_t nf = 0;
    EMPI_Patch *nm = NULL;
    int nnm = 0, rc = -1;
    MPI_Request *rq = NULL;
    char **bufs = NULL;
    pp_plan pl;
    memset(&pl, 0, sizeof pl);
    /* the placement, the fragments in (patch, old rank) order and the cost figures: the same on every
     * process (global information only), in O((m + P) log P + fragments) (patchplan.c) */
    pp_input in = {.m = s->m, .blocks = layout == LAYOUT_BLOCKS, .owner = owner, .ns = X->ns, .nd = X->nd,
                   .same_new = same_new, .greedy = s->placement == EMPI_PLACE_GREEDY};
    memcpy(in.g, s->g, sizeof in.g);
    memcpy(in.p, s->p, sizeof in.p);
    memcpy(in.np, s->np, sizeof in.np);
    if (in.blocks) {
        int d3[3] = {0, 0, 0};
        PMPI_Dims_create(X->ns, s->ndims, d3);
        for (int d = 0; d < 3; d++) in.dm[d] = d < s->ndims ? d3[d] : 1;
    }
    int64_t maxm = 0, maxp = 0, maxb = 0;
    if (!same_new || pp_same_new(X->ns, X->nd, n, X->o2c, X->n2c, same_new, &pl) != 0 || pp_place(&in, &pl) != 0) {
        snprintf(err, errlen, "out of memory (or a bad layout) planning the patches");
        goto out;
    }
    assign = pl.assign;
    f = pl.f;
    nf = pl.nf;
    if (pp_cost(&pl, n, X->o2c, X->n2c, (int64_t)ext, &maxm, &maxp, &maxb) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* per patch: alpha * messages; per rank: alpha * pairs + packing and unpacking at memory speed */
    const double alpha = 3e-6, gamma = 4e9;
    double c_patch = alpha * (double)maxm, c_rank = alpha * (double)maxp + 2.0 * (double)maxb / gamma;
    int scheme = s->scheme;
    EMPI_Patch_stats st;
    memset(&st, 0, sizeof st);
    if (scheme != EMPI_COMM_PER_PATCH && scheme != EMPI_COMM_PER_RANK) {
        scheme = c_rank < c_patch ? EMPI_COMM_PER_RANK : EMPI_COMM_PER_PATCH;
        snprintf(st.reason, sizeof st.reason,
                 "cost estimate: per-patch %.3g s (%lld messages), per-rank %.3g s (%lld buffers, %lld bytes packed)",
                 c_patch, (long long)maxm, c_rank, (long long)maxp, (long long)maxb);
    }
    /* my new patches */
    for (int id = 0; id < s->m; id++) nnm += X->my_new >= 0 && assign[id] == X->my_new;
    nm = calloc((size_t)(nnm ? nnm : 1), sizeof *nm);
    if (!nm) { snprintf(err, errlen, "out of memory"); goto out; }
    nnm = 0;
    for (int id = 0; X->my_new >= 0 && id < s->m; id++) {
        if (assign[id] != X->my_new) continue;
        pp_box pb;
        patch_box(s, id, &pb);
        EMPI_Patch *q = &nm[nnm++];
        q->id = id;
        for (int d = 0; d < 3; d++) { q->lo[d] = pb.lo[d]; q->size[d] = pb.hi[d] - pb.lo[d]; }
        size_t pbytes = (size_t)vol(&pb) * ext;
        q->addr = malloc(pbytes ? pbytes : 1);
        if (!q->addr) { snprintf(err, errlen, "out of memory for patch %d", id); goto out; }
    }
    MPI_Datatype elem;
    PMPI_Type_contiguous((int)ext, MPI_BYTE, &elem);
    PMPI_Type_commit(&elem);
    int nrq = 0;
    int64_t sent = 0, copied = 0;
    int nmsg = 0;
    rq = malloc((2 * nf + 2 * (size_t)n + 1) * sizeof *rq);
    bufs = calloc(2 * (size_t)n + 1, sizeof *bufs);
    if (!rq || !bufs) { PMPI_Type_free(&elem); snprintf(err, errlen, "out of memory"); goto out; }
    int ok = 1;
    if (scheme == EMPI_COMM_PER_PATCH) {
        for (size_t i = 0; i < nf; i++) {
            EMPI_Patch *q;
            if (f[i].dst != X->my_new || X->o2c[f[i].src] == X->me) continue;
            q = find_patch(nm, nnm, f[i].id);
            if (!q) { ok = 0; continue; } /* cannot happen: a fragment landing here is of my patch */
            MPI_Datatype t = subarray(q->size, &f[i].b, q->lo, elem);
            ok &= PMPI_Irecv(q->addr, 1, t, X->o2c[f[i].src], 0, X->comm, &rq[nrq++]) == MPI_SUCCESS;
            PMPI_Type_free(&t);
        }
        for (size_t i = 0; i < nf; i++) {
            if (f[i].src != X->my_old) continue;
            int lo[3], sz[3];
            const char *a = src_storage(s, f[i].id, lo, sz);
            if (X->n2c[f[i].dst] == X->me) {
                EMPI_Patch *q;
                q = find_patch(nm, nnm, f[i].id);
                if (!q) { ok = 0; continue; } /* cannot happen: a fragment landing here is of my patch */
                copy_box(q->addr, q->lo, q->size, a, lo, sz, &f[i].b, ext);
                copied += vol(&f[i].b) * (int64_t)ext;
                continue;
            }
            MPI_Datatype t = subarray(sz, &f[i].b, lo, elem);
            ok &= PMPI_Isend(a, 1, t, X->n2c[f[i].dst], 0, X->comm, &rq[nrq++]) == MPI_SUCCESS;
            PMPI_Type_free(&t);
            sent += vol(&f[i].b) * (int64_t)ext;
            nmsg++;
        }
    } else {
        int64_t *sb = calloc(2 * (size_t)n, sizeof *sb), *rb = sb ? sb + n : NULL;
        if (!sb) { PMPI_Type_free(&elem); snprintf(err, errlen, "out of memory"); goto out; }
        for (size_t i = 0; i < nf; i++) {
            int a = X->o2c[f[i].src], b = X->n2c[f[i].dst];
            if (a == b) continue;
            if (a == X->me) sb[b] += vol(&f[i].b) * (int64_t)ext;
            if (b == X->me) rb[a] += vol(&f[i].b) * (int64_t)ext;
        }
        size_t need = 1; /* messages: pieces below an int count (data_post_bytes) */
        for (int c = 0; c < n; c++) need += (size_t)(data_pieces(sb[c]) + data_pieces(rb[c]));
        MPI_Request *grown = need > 2 * nf + 2 * (size_t)n + 1 ? realloc(rq, need * sizeof *rq) : rq;
        if (grown) rq = grown;
        ok &= grown != NULL;
        for (int c = 0; c < n && ok; c++) {
            if (rb[c]) {
                bufs[n + c] = malloc((size_t)rb[c]);
                ok &= bufs[n + c] && data_post_bytes(bufs[n + c], rb[c], c, 0, 0, X->comm, rq, &nrq) == MPI_SUCCESS;
            }
        }
        int64_t *fill = calloc(n > 0 ? (size_t)n : 1, sizeof *fill);
        for (int c = 0; c < n && ok; c++) if (sb[c]) ok &= (bufs[c] = malloc((size_t)sb[c])) != NULL;
        for (size_t i = 0; ok && fill && i < nf; i++) {
            if (f[i].src != X->my_old) continue;
            int lo[3], sz[3], b = X->n2c[f[i].dst], bsz[3], blo[3];
            const char *a = src_storage(s, f[i].id, lo, sz);
            if (b == X->me) {
                EMPI_Patch *q;
                q = find_patch(nm, nnm, f[i].id);
                if (!q) { ok = 0; continue; } /* cannot happen: a fragment landing here is of my patch */
                copy_box(q->addr, q->lo, q->size, a, lo, sz, &f[i].b, ext);
                copied += vol(&f[i].b) * (int64_t)ext;
                continue;
            }
            for (int d = 0; d < 3; d++) { blo[d] = f[i].b.lo[d]; bsz[d] = f[i].b.hi[d] - f[i].b.lo[d]; }
            copy_box(bufs[b] + fill[b], blo, bsz, a, lo, sz, &f[i].b, ext);
            fill[b] += vol(&f[i].b) * (int64_t)ext;
        }
        for (int c = 0; c < n && ok; c++)
            if (sb[c]) {
                ok &= data_post_bytes(bufs[c], sb[c], c, 0, 1, X->comm, rq, &nrq) == MPI_SUCCESS;
                sent += sb[c];
                nmsg++;
            }
        free(fill);
        free(sb);
    }
    if (PMPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE) != MPI_SUCCESS) ok = 0;
    if (ok && scheme == EMPI_COMM_PER_RANK) {
        int64_t *pos = calloc((size_t)n, sizeof *pos);
        for (size_t i = 0; pos && i < nf; i++) {
            int a = X->o2c[f[i].src];
            if (f[i].dst != X->my_new || a == X->me) continue;
            EMPI_Patch *q;
            q = find_patch(nm, nnm, f[i].id);
            if (!q) { ok = 0; continue; } /* cannot happen: a fragment landing here is of my patch */
            int blo[3], bsz[3];
            for (int d = 0; d < 3; d++) { blo[d] = f[i].b.lo[d]; bsz[d] = f[i].b.hi[d] - f[i].b.lo[d]; }
            copy_box(q->addr, q->lo, q->size, bufs[n + a] + pos[a], blo, bsz, &f[i].b, ext);
            pos[a] += vol(&f[i].b) * (int64_t)ext;
        }
        free(pos);
    }
    PMPI_Type_free(&elem);
    int anybad = !ok;
    PMPI_Allreduce(MPI_IN_PLACE, &anybad, 1, MPI_INT, MPI_MAX, X->comm);
    if (anybad) { snprintf(err, errlen, "patch transfer failed (%s)", ok ? "on another process" : "here"); goto out; }
    /* staged: adopted by patches_commit (the old storage stays the item's until then) */
    st.patches = nnm;
    for (int i = 0; i < nnm; i++) st.elements += (int64_t)nm[i].size[0] * nm[i].size[1] * nm[i].size[2];
    st.bytes_sent = sent;
    st.bytes_copied = copied;
    st.messages = nmsg;
    st.scheme = scheme;
    st.time_s = PMPI_Wtime() - t0;
    s->next.mine = nm;
    s->next.nmine = nnm;
    s->next.owner = assign;
    s->next.nprocs = X->nd;
    s->next.rank = X->my_new;
    s->next.st = st;
    s->next.set = 1;
    nm = NULL;
    assign = NULL;
    rc = 0;
out:
    if (nm) {
        for (int i = 0; i < nnm; i++) free(nm[i].addr);
        free(nm);
    }
    if (bufs) for (int c = 0; c < 2 * n; c++) free(bufs[c]);
    free(bufs);
    free(rq);
    free(f);
    free(same_new);
    free(assign);
    return rc;
}

int patches_register(const char *id, MPI_Datatype type, int ndims, const int gsizes[], const int psizes[],
                     int placement, int scheme, int holds_data, char *err, size_t errlen)
{
    if (ndims < 1 || ndims > 3 || !gsizes || !psizes) {
        snprintf(err, errlen, "'%s': ndims must be 1, 2 or 3 and gsizes, psizes given", id ? id : "");
        return -1;
    }
    if (placement != EMPI_PLACE_GREEDY && placement != EMPI_PLACE_BALANCED) {
        snprintf(err, errlen, "'%s': placement must be EMPI_PLACE_GREEDY or EMPI_PLACE_BALANCED", id ? id : "");
        return -1;
    }
    struct pt_state *s = calloc(1, sizeof *s);
    if (!s) { snprintf(err, errlen, "out of memory"); return -1; }
    s->ndims = ndims;
    s->placement = placement;
    s->scheme = scheme;
    s->m = 1;
    for (int d = 0; d < 3; d++) {
        s->g[d] = d < ndims ? gsizes[d] : 1;
        s->p[d] = d < ndims ? psizes[d] : 1;
        if (s->g[d] < 1 || s->p[d] < 1) {
            free(s);
            snprintf(err, errlen, "'%s': sizes and patch sizes must be >= 1 (dimension %d)", id ? id : "", d);
            return -1;
        }
        s->np[d] = (s->g[d] + s->p[d] - 1) / s->p[d];
        s->m *= s->np[d];
    }
    s->layout = LAYOUT_BLOCKS;
    s->nprocs = ductile_rt.size > 0 ? ductile_rt.size : 1;
    s->rank = ductile_rt.rank;
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(type, &lb, &ext);
    pp_box bb;
    block_box(s, s->nprocs, s->rank, &bb, NULL, NULL);
    size_t bytes = holds_data ? (size_t)vol(&bb) * (size_t)ext : 0;
    s->block = calloc(1, bytes ? bytes : 1);
    if (!s->block) { free(s); snprintf(err, errlen, "out of memory"); return -1; }
    if (reg_add(id, NULL, type, REG_PATCHES, 0, s->g[0], s->g[1], (int64_t)s->g[2] * 1000000 + s->m, err, errlen) != 0) {
        free(s->block);
        free(s);
        return -1;
    }
    struct reg_item *it = reg_find(id);
    it->ext = s;
    it->owned = 0;
    return 0;
}

static struct pt_state *state_of(const char *id, size_t *ext)
{
    struct reg_item *it = reg_find(id);
    if (!it || it->d.kind != REG_PATCHES || !it->ext) return NULL;
    if (ext) *ext = (size_t)it->d.extent;
    return it->ext;
}

int patches_repartition_now(const char *id, char *err, size_t errlen)
{
    size_t ext;
    struct pt_state *s = state_of(id, &ext);
    if (!s) { snprintf(err, errlen, "'%s' is not a registered patch set", id ? id : ""); return -1; }
    int P = ductile_rt.size, *map = malloc((size_t)P * sizeof *map);
    if (!map) { snprintf(err, errlen, "out of memory"); return -1; }
    for (int r = 0; r < P; r++) map[r] = r;
    MPI_Comm c;
    PMPI_Comm_dup(ductile_world, &c);
    struct xlayout X = {c, P, P, ductile_rt.rank, ductile_rt.rank, ductile_rt.rank, map, map};
    drop_next(s);
    int rc = repartition(s, s->layout, s->owner, &X, ext, err, errlen);
    if (rc == 0) adopt_next(s); /* not a resize: the repartition's own agreement decided */
    PMPI_Comm_free(&c);
    free(map);
    return rc;
}

int patches_move(struct reg_item *it, const struct redist_layout *L, uint64_t *moved, char *err, size_t errlen)
{
    struct pt_state *s = it->ext;
    int me = -1, root = L->old_to_comm[0];
    PMPI_Comm_rank(L->comm, &me);
    /* the old layout, for processes that do not know it (spawned ones) */
    int *lay = malloc(((size_t)s->m + 1) * sizeof *lay);
    if (!lay) { snprintf(err, errlen, "out of memory"); return -1; }
    lay[0] = s->layout;
    for (int i = 0; i < s->m; i++) lay[i + 1] = s->owner ? s->owner[i] : -1;
    if (PMPI_Bcast(lay, s->m + 1, MPI_INT, root, L->comm) != MPI_SUCCESS) {
        free(lay);
        snprintf(err, errlen, "'%s': broadcast of the patch owners failed", it->d.name);
        return -1;
    }
    struct xlayout X = {L->comm, L->ns, L->nd, L->my_old, L->my_new, me, L->old_to_comm, L->new_to_comm};
    drop_next(s); /* nothing should be staged; if it were, it is not this resize's */
    int rc = repartition(s, lay[0], lay + 1, &X, (size_t)it->d.extent, err, errlen);
    free(lay);
    if (rc == 0) *moved = (uint64_t)s->next.st.bytes_sent;
    return rc;
}

void patches_commit(struct reg_item *it) { if (it->ext) adopt_next(it->ext); }
void patches_abort(struct reg_item *it) { if (it->ext) drop_next(it->ext); }

int patches_get(const char *id, int *n, EMPI_Patch **patches)
{
    struct pt_state *s = state_of(id, NULL);
    if (!s) return -1;
    if (n) *n = s->layout == LAYOUT_PATCHES ? s->nmine : 0;
    if (patches) *patches = s->layout == LAYOUT_PATCHES ? s->mine : NULL;
    return 0;
}

int patches_get_block(const char *id, EMPI_Block *b)
{
    struct pt_state *s = state_of(id, NULL);
    if (!s || s->layout != LAYOUT_BLOCKS || !b) return -1;
    pp_box bb;
    memset(b, 0, sizeof *b);
    block_box(s, s->nprocs, s->rank, &bb, b->dims, b->coords);
    b->ndims = s->ndims;
    for (int d = 0; d < 3; d++) {
        b->gsizes[d] = s->g[d];
        b->starts[d] = bb.lo[d];
        b->subsizes[d] = b->lsizes[d] = bb.hi[d] - bb.lo[d];
    }
    b->comm = MPI_COMM_NULL;
    b->addr = s->block;
    return 0;
}

int patches_stats(const char *id, EMPI_Patch_stats *st)
{
    struct pt_state *s = state_of(id, NULL);
    if (!s || !st) return -1;
    *st = s->st;
    return 0;
}

void patches_free(struct reg_item *it)
{
    struct pt_state *s = it->ext;
    drop_next(s);
    free(s->block);
    for (int i = 0; i < s->nmine; i++) free(s->mine[i].addr);
    free(s->mine);
    free(s->owner);
    free(s);
}
