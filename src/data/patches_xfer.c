/* patches_xfer.c -- a patch set's repartition (patches.c): the placement of
 * the patches on the new processes (greedy or balanced, seed 003) and the
 * fragments every process computes alike (planned by patchplan.c in
 * O((patches + P) log P + fragments), no P x P table, its allocations
 * counted through txn_calloc), and their movement per patch or per rank.  Everything a process needs is allocated before the checkpoint,
 * so that a process that cannot allocate stops every process before any
 * message is posted; after the messages one agreement says whether all
 * arrived. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "patches_int.h"
#include "../common/txnfault.h"
#include "../redist/plan.h"

static void patch_box(const struct pt_state *s, int id, pp_box *b) { pp_patch_box(s->np, s->p, s->g, id, b); }

void pt_block_box(const struct pt_state *s, int P, int rank, pp_box *b, int dims[3], int coords[3])
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
void pt_copy_box(char *dst, const int dlo[3], const int dsz[3], const char *src, const int slo[3],
                     const int ssz[3], const pp_box *b, size_t ext)
{
    if (pt_vol(b) == 0) return;
    size_t run = (size_t)(b->hi[2] - b->lo[2]) * ext;
    for (int i = b->lo[0]; i < b->hi[0]; i++)
        for (int j = b->lo[1]; j < b->hi[1]; j++) {
            size_t so = (((size_t)(i - slo[0]) * ssz[1] + (size_t)(j - slo[1])) * ssz[2] + (size_t)(b->lo[2] - slo[2])) * ext;
            size_t dof = (((size_t)(i - dlo[0]) * dsz[1] + (size_t)(j - dlo[1])) * dsz[2] + (size_t)(b->lo[2] - dlo[2])) * ext;
            memcpy(dst + dof, src + so, run);
        }
}

/* A process's patch `id` (its patches are in id order): O(log patches). */
EMPI_Patch *pt_find_patch(EMPI_Patch *v, int n, int id)
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
const char *pt_src_storage(const struct pt_state *s, int id, int lo[3], int sz[3])
{
    if (s->layout == LAYOUT_BLOCKS) {
        pp_box bb;
        pt_block_box(s, s->nprocs, s->rank, &bb, NULL, NULL);
        for (int d = 0; d < 3; d++) { lo[d] = bb.lo[d]; sz[d] = bb.hi[d] - bb.lo[d]; }
        return s->block;
    }
    const EMPI_Patch *q = pt_find_patch(s->mine, s->nmine, id);
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

void pt_room_free(struct pt_room *r, int n)
{
    if (r->nm)
        for (int i = 0; i < r->nnm; i++) free(r->nm[i].addr);
    free(r->nm);
    if (r->bufs)
        for (int c = 0; c < 2 * n; c++) free(r->bufs[c]);
    free(r->bufs);
    free(r->rq);
    free(r->f);
    free(r->same_new);
    free(r->assign);
    free(r->sb);
    free(r->pos);
}

/* The placement, the fragments in (patch, old rank) order and the scheme (the program's, or the cost
 * estimate's): the same on every process (global information only), planned by patchplan.c.
 * The scheme, or -1 (out of memory). */
int pt_plan(const struct pt_state *s, int layout, const int *owner, const struct xlayout *X, struct pt_room *r,
                int n, size_t ext, EMPI_Patch_stats *st)
{
    pp_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.alloc = txn_calloc;
    pp_input in = {.m = s->m, .blocks = layout == LAYOUT_BLOCKS, .owner = owner, .ns = X->ns, .nd = X->nd,
                   .same_new = r->same_new, .greedy = s->placement == EMPI_PLACE_GREEDY};
    memcpy(in.g, s->g, sizeof in.g);
    memcpy(in.p, s->p, sizeof in.p);
    memcpy(in.np, s->np, sizeof in.np);
    if (in.blocks) {
        int d3[3] = {0, 0, 0};
        PMPI_Dims_create(X->ns, s->ndims, d3);
        for (int d = 0; d < 3; d++) in.dm[d] = d < s->ndims ? d3[d] : 1;
    }
    if (pp_same_new(X->ns, X->nd, n, X->o2c, X->n2c, r->same_new, &pl) != 0 || pp_place(&in, &pl) != 0) return -1;
    r->assign = pl.assign; /* the room owns them now */
    r->f = pl.f;
    r->nf = pl.nf;
    int64_t maxm = 0, maxp = 0, maxb = 0;
    if (pp_cost(&pl, n, X->o2c, X->n2c, (int64_t)ext, &maxm, &maxp, &maxb) != 0) return -1;
    /* per patch: alpha * messages; per rank: alpha * pairs + packing and unpacking at memory speed */
    const double alpha = 3e-6, gamma = 4e9;
    double c_patch = alpha * (double)maxm, c_rank = alpha * (double)maxp + 2.0 * (double)maxb / gamma;
    int scheme = s->scheme;
    if (scheme != EMPI_COMM_PER_PATCH && scheme != EMPI_COMM_PER_RANK) {
        scheme = c_rank < c_patch ? EMPI_COMM_PER_RANK : EMPI_COMM_PER_PATCH;
        snprintf(st->reason, sizeof st->reason,
                 "cost estimate: per-patch %.3g s (%lld messages), per-rank %.3g s (%lld buffers, %lld bytes packed)",
                 c_patch, (long long)maxm, c_rank, (long long)maxp, (long long)maxb);
    }
    return scheme;
}

/* My new patches' storage, the requests and (per rank) the packing buffers. */
int pt_storage(const struct pt_state *s, const struct xlayout *X, struct pt_room *r, int n, size_t ext, int scheme)
{
    for (int id = 0; id < s->m; id++) r->nnm += X->my_new >= 0 && r->assign[id] == X->my_new;
    r->nm = txn_calloc((size_t)(r->nnm ? r->nnm : 1), sizeof *r->nm);
    r->rq = txn_malloc((2 * r->nf + 2 * (size_t)n + 1) * sizeof *r->rq);
    r->bufs = txn_calloc(2 * (size_t)n + 1, sizeof *r->bufs);
    if (!r->nm || !r->rq || !r->bufs) { r->nnm = 0; return -1; }
    int k = 0;
    for (int id = 0; X->my_new >= 0 && id < s->m; id++) {
        if (r->assign[id] != X->my_new) continue;
        pp_box pb;
        patch_box(s, id, &pb);
        EMPI_Patch *q = &r->nm[k++];
        q->id = id;
        for (int d = 0; d < 3; d++) { q->lo[d] = pb.lo[d]; q->size[d] = pb.hi[d] - pb.lo[d]; }
        size_t pbytes = (size_t)pt_vol(&pb) * ext;
        q->addr = txn_malloc(pbytes ? pbytes : 1);
        if (!q->addr) return -1;
    }
    if (scheme != EMPI_COMM_PER_RANK) return 0;
    r->sb = txn_calloc(2 * (size_t)n, sizeof *r->sb);
    r->pos = txn_calloc((size_t)n, sizeof *r->pos);
    if (!r->sb || !r->pos) return -1;
    r->rb = r->sb + n;
    for (size_t i = 0; i < r->nf; i++) {
        int a = X->o2c[r->f[i].src], b = X->n2c[r->f[i].dst];
        if (a == b) continue;
        if (a == X->me) r->sb[b] += pt_vol(&r->f[i].b) * (int64_t)ext;
        if (b == X->me) r->rb[a] += pt_vol(&r->f[i].b) * (int64_t)ext;
    }
    size_t need = 1; /* messages: pieces below an int count (data_post_bytes) */
    for (int c = 0; c < n; c++) need += (size_t)(data_pieces(r->sb[c]) + data_pieces(r->rb[c]));
    if (need > 2 * r->nf + 2 * (size_t)n + 1) {
        MPI_Request *grown = txn_realloc(r->rq, need * sizeof *r->rq);
        if (!grown) return -1;
        r->rq = grown;
    }
    for (int c = 0; c < 2 * n; c++) {
        int64_t b = c < n ? r->sb[c] : r->rb[c - n];
        if (b && !(r->bufs[c] = txn_malloc((size_t)b))) return -1;
    }
    return 0;
}

/* Post one message (every one is posted, also after a failed one: its peer waits for it). */
static void post(int recv, void *buf, int count, MPI_Datatype t, int peer, MPI_Comm comm, MPI_Request *rq, int *ok)
{
    int r = recv ? PMPI_Irecv(buf, count, t, peer, 0, comm, rq) : PMPI_Isend(buf, count, t, peer, 0, comm, rq);
    if (r != MPI_SUCCESS) *rq = MPI_REQUEST_NULL;
    if (txn_mpi_req(r, rq) != MPI_SUCCESS) *ok = 0;
}

/* where a fragment lands on this process */
static EMPI_Patch *dest_of(const struct pt_room *r, const pp_frag *fr)
{
    return pt_find_patch(r->nm, r->nnm, fr->id);
}

int pt_repartition(struct pt_state *s, int layout, const int *owner, const struct xlayout *X, size_t ext, int ok,
                   char *err, size_t errlen)
{
    double t0 = PMPI_Wtime();
    int n = 0, came_ok = ok, scheme = 0, rc = MOVE_FAILED;
    PMPI_Comm_size(X->comm, &n);
    struct pt_room r;
    memset(&r, 0, sizeof r);
    EMPI_Patch_stats st;
    memset(&st, 0, sizeof st);
    if (ok) {
        r.same_new = txn_malloc((size_t)X->ns * sizeof *r.same_new);
        ok = r.same_new && (scheme = pt_plan(s, layout, owner, X, &r, n, ext, &st)) >= 0 &&
             pt_storage(s, X, &r, n, ext, scheme) == 0;
    }
    if (came_ok && !ok) snprintf(err, errlen, "out of memory");
    if (!txn_all_ok(X->comm, ok)) { /* the checkpoint: nothing is posted anywhere */
        pt_room_free(&r, n);
        return MOVE_STOPPED;
    }
    MPI_Datatype elem;
    PMPI_Type_contiguous((int)ext, MPI_BYTE, &elem);
    PMPI_Type_commit(&elem);
    int nrq = 0, nmsg = 0;
    int64_t sent = 0, copied = 0;
    pp_frag *f = r.f;
    for (size_t i = 0; scheme == EMPI_COMM_PER_PATCH && i < r.nf; i++) { /* per patch: receives, then sends */
        if (f[i].dst != X->my_new || X->o2c[f[i].src] == X->me) continue;
        EMPI_Patch *q = dest_of(&r, &f[i]);
        if (!q) { ok = 0; continue; } /* cannot happen: a fragment landing here is of my patch */
        MPI_Datatype t = subarray(q->size, &f[i].b, q->lo, elem);
        post(1, q->addr, 1, t, X->o2c[f[i].src], X->comm, &r.rq[nrq++], &ok);
        PMPI_Type_free(&t);
    }
    for (int c = 0; scheme == EMPI_COMM_PER_RANK && c < n; c++)
        if (r.rb[c] && data_post_bytes(r.bufs[n + c], r.rb[c], c, 0, 0, X->comm, r.rq, &nrq) != MPI_SUCCESS) ok = 0;
    for (size_t i = 0; i < r.nf; i++) {
        if (f[i].src != X->my_old) continue;
        int lo[3], sz[3], b = X->n2c[f[i].dst];
        const char *a = pt_src_storage(s, f[i].id, lo, sz);
        if (b == X->me) {
            EMPI_Patch *q = dest_of(&r, &f[i]);
            if (!q) { ok = 0; continue; } /* cannot happen: a fragment landing here is of my patch */
            pt_copy_box(q->addr, q->lo, q->size, a, lo, sz, &f[i].b, ext);
            copied += pt_vol(&f[i].b) * (int64_t)ext;
        } else if (scheme == EMPI_COMM_PER_PATCH) {
            MPI_Datatype t = subarray(sz, &f[i].b, lo, elem);
            post(0, (void *)(uintptr_t)a, 1, t, b, X->comm, &r.rq[nrq++], &ok);
            PMPI_Type_free(&t);
            sent += pt_vol(&f[i].b) * (int64_t)ext;
            nmsg++;
        } else { /* per rank: packed in fragment order */
            int blo[3], bsz[3];
            for (int d = 0; d < 3; d++) { blo[d] = f[i].b.lo[d]; bsz[d] = f[i].b.hi[d] - f[i].b.lo[d]; }
            pt_copy_box(r.bufs[b] + r.pos[b], blo, bsz, a, lo, sz, &f[i].b, ext);
            r.pos[b] += pt_vol(&f[i].b) * (int64_t)ext;
        }
    }
    for (int c = 0; scheme == EMPI_COMM_PER_RANK && c < n; c++)
        if (r.sb[c]) {
            if (data_post_bytes(r.bufs[c], r.sb[c], c, 0, 1, X->comm, r.rq, &nrq) != MPI_SUCCESS) ok = 0;
            sent += r.sb[c];
            nmsg++;
        }
    if (txn_mpi(PMPI_Waitall(nrq, r.rq, MPI_STATUSES_IGNORE)) != MPI_SUCCESS) ok = 0;
    if (ok && scheme == EMPI_COMM_PER_RANK) {
        memset(r.pos, 0, (size_t)n * sizeof *r.pos);
        for (size_t i = 0; i < r.nf; i++) {
            int a = X->o2c[f[i].src];
            if (f[i].dst != X->my_new || a == X->me) continue;
            EMPI_Patch *q = dest_of(&r, &f[i]);
            if (!q) { ok = 0; continue; } /* cannot happen: a fragment landing here is of my patch */
            int blo[3], bsz[3];
            for (int d = 0; d < 3; d++) { blo[d] = f[i].b.lo[d]; bsz[d] = f[i].b.hi[d] - f[i].b.lo[d]; }
            pt_copy_box(q->addr, q->lo, q->size, r.bufs[n + a] + r.pos[a], blo, bsz, &f[i].b, ext);
            r.pos[a] += pt_vol(&f[i].b) * (int64_t)ext;
        }
    }
    PMPI_Type_free(&elem);
    if (!ok) snprintf(err, errlen, "patch transfer failed here");
    if (!txn_all_ok(X->comm, ok)) { /* the agreement: every process knows */
        rc = MOVE_STOPPED;
        goto out;
    }
    /* staged: adopted by patches_commit (the old storage stays the item's until then) */
    st.patches = r.nnm;
    for (int i = 0; i < r.nnm; i++) st.elements += (int64_t)r.nm[i].size[0] * r.nm[i].size[1] * r.nm[i].size[2];
    st.bytes_sent = sent;
    st.bytes_copied = copied;
    st.messages = nmsg;
    st.scheme = scheme;
    st.time_s = PMPI_Wtime() - t0;
    s->next.mine = r.nm;
    s->next.nmine = r.nnm;
    s->next.owner = r.assign;
    s->next.nprocs = X->nd;
    s->next.rank = X->my_new;
    s->next.st = st;
    s->next.set = 1;
    r.nm = NULL;
    r.assign = NULL;
    rc = MOVE_OK;
out:
    pt_room_free(&r, n);
    return rc;
}
