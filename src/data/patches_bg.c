/* patches_bg.c -- a constant patch set (EMPI_Register_patches, then
 * EMPI_Set_flags(id, EMPI_CONSTANT)) moving in the background
 * (DUCTILE_REDIST_CONSTANT=nb|wd|thread).  At the resize's start (after
 * old rank 0's broadcast of the owner map, patches.c) every process plans
 * the placement and the fragments as a blocking repartition does
 * (patches_xfer.c, pt_plan), allocates its new patches (staged in s->next,
 * not adopted), copies the fragments it keeps and packs those it sends per
 * rank, in fragment order (the per-rank scheme: the data is constant, so
 * packing now gives the bytes a packing at the switch would).  The engine
 * moves the packed bytes in the background (src/malleable/transfer.c: one
 * MPI_Ialltoallv, or in the Wait Drains / Threading group); until the switch
 * the set keeps its old storage, owners and statistics.  At the switch
 * patches_commit unpacks (pt_bg_end, a local copy that cannot fail) and
 * adopts; patches_abort drops it all on a rollback; pt_bg_forget forgets the
 * buffers the MPI may still use (never freed) when the transfer is
 * abandoned. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "patches_int.h"
#include "../common/txnfault.h"

#include "../common/leftmpi.h"

static void frag_box(const pp_frag *f, int lo[3], int sz[3])
{
    for (int d = 0; d < 3; d++) {
        lo[d] = f->b.lo[d];
        sz[d] = f->b.hi[d] - f->b.lo[d];
    }
}

int pt_bg_start(struct pt_state *s, int layout, const int *owner, const struct xlayout *X, size_t ext, int ok,
                struct bytes_xfer *xf, char *err, size_t errlen)
{
    double t0 = PMPI_Wtime();
    int n = 0, came_ok = ok;
    PMPI_Comm_size(X->comm, &n);
    struct pt_room r;
    memset(&r, 0, sizeof r);
    EMPI_Patch_stats st;
    memset(&st, 0, sizeof st);
    int64_t *a = NULL, stot = 0, rtot = 0;
    int *o2c = NULL;
    char *sbuf = NULL, *rbuf = NULL;
    if (ok) {
        r.same_new = txn_malloc((size_t)X->ns * sizeof *r.same_new);
        ok = r.same_new && pt_plan(s, layout, owner, X, &r, n, ext, &st) >= 0 &&
             pt_storage(s, X, &r, n, ext, EMPI_COMM_PER_PATCH) == 0; /* my new patches (no packing buffers) */
        free(r.rq); /* (the requests of a blocking move: none here) */
        r.rq = NULL;
    }
    if (ok) {
        a = txn_calloc(5 * (size_t)n, sizeof *a);
        o2c = txn_malloc((size_t)(X->ns ? X->ns : 1) * sizeof *o2c);
        ok = a && o2c;
    }
    int64_t *sc = a, *sd = a ? a + n : NULL, *rc = a ? a + 2 * n : NULL, *rd = a ? a + 3 * n : NULL;
    int64_t *pos = a ? a + 4 * n : NULL;
    for (size_t i = 0; ok && i < r.nf; i++) {
        int from = X->o2c[r.f[i].src], to = X->n2c[r.f[i].dst];
        if (from == to) continue;
        if (from == X->me) sc[to] += pt_vol(&r.f[i].b) * (int64_t)ext;
        if (to == X->me) rc[from] += pt_vol(&r.f[i].b) * (int64_t)ext;
    }
    for (int c = 0; ok && c < n; c++) {
        sd[c] = stot;
        stot += sc[c];
        rd[c] = rtot;
        rtot += rc[c];
    }
    if (ok) {
        sbuf = txn_malloc(stot ? (size_t)stot : 1);
        rbuf = txn_malloc(rtot ? (size_t)rtot : 1);
        ok = sbuf && rbuf;
    }
    if (!ok) {
        if (came_ok) snprintf(err, errlen, "out of memory");
        free(a); free(o2c); free(sbuf); free(rbuf);
        pt_room_free(&r, n);
        return MOVE_FAILED;
    }
    int64_t copied = 0;
    int nmsg = 0;
    for (size_t i = 0; i < r.nf; i++) {
        const pp_frag *f = &r.f[i];
        if (f->src != X->my_old) continue;
        int lo[3], sz[3], blo[3], bsz[3], to = X->n2c[f->dst];
        const char *src = pt_src_storage(s, f->id, lo, sz);
        if (to == X->me) { /* kept: into my new patch now (staged, not visible before the switch) */
            EMPI_Patch *q = pt_find_patch(r.nm, r.nnm, f->id);
            if (q) pt_copy_box(q->addr, q->lo, q->size, src, lo, sz, &f->b, ext);
            copied += pt_vol(&f->b) * (int64_t)ext;
            continue;
        }
        frag_box(f, blo, bsz);
        pt_copy_box(sbuf + sd[to] + pos[to], blo, bsz, src, lo, sz, &f->b, ext);
        pos[to] += pt_vol(&f->b) * (int64_t)ext;
    }
    for (int c = 0; c < n; c++) nmsg += c != X->me && sc[c] > 0;
    memcpy(o2c, X->o2c, (size_t)X->ns * sizeof *o2c);
    st.patches = r.nnm;
    for (int i = 0; i < r.nnm; i++) st.elements += (int64_t)r.nm[i].size[0] * r.nm[i].size[1] * r.nm[i].size[2];
    st.bytes_sent = stot;
    st.bytes_copied = copied;
    st.messages = nmsg;
    st.scheme = EMPI_COMM_PER_RANK;
    snprintf(st.reason, sizeof st.reason, "constant: moved in the background (DUCTILE_REDIST_CONSTANT), packed per "
             "rank at the resize's start");
    st.time_s = PMPI_Wtime() - t0; /* the start's share; the rest overlaps the iterations */
    s->next.mine = r.nm;
    s->next.nmine = r.nnm;
    s->next.owner = r.assign;
    s->next.nprocs = X->nd;
    s->next.rank = X->my_new;
    s->next.st = st;
    s->next.set = 1;
    s->bg.set = 1;
    s->bg.n = n;
    s->bg.me = X->me;
    s->bg.my_new = X->my_new;
    s->bg.ext = ext;
    s->bg.o2c = o2c;
    s->bg.f = r.f;
    s->bg.nf = r.nf;
    s->bg.a = a;
    s->bg.sbuf = sbuf;
    s->bg.rbuf = rbuf;
    r.nm = NULL;
    r.assign = NULL;
    r.f = NULL;
    pt_room_free(&r, n);
    xf[0] = (struct bytes_xfer){sbuf, rbuf, sc, sd, rc, rd};
    return MOVE_OK;
}

void pt_bg_end(struct pt_state *s, int unpack)
{
    int n = s->bg.n;
    int64_t *a = s->bg.a;
    if (unpack && s->next.set && a) {
        int64_t *rd = a + 3 * n, *pos = a + 4 * n;
        memset(pos, 0, (size_t)n * sizeof *pos);
        for (size_t i = 0; i < s->bg.nf; i++) {
            const pp_frag *f = &s->bg.f[i];
            int from = s->bg.o2c[f->src], blo[3], bsz[3];
            if (f->dst != s->bg.my_new || from == s->bg.me) continue;
            EMPI_Patch *q = pt_find_patch(s->next.mine, s->next.nmine, f->id);
            if (!q) continue; /* cannot happen: a fragment landing here is of my patch */
            frag_box(f, blo, bsz);
            pt_copy_box(q->addr, q->lo, q->size, s->bg.rbuf + rd[from] + pos[from], blo, bsz, &f->b, s->bg.ext);
            pos[from] += pt_vol(&f->b) * (int64_t)s->bg.ext;
        }
    }
    free(s->bg.sbuf);
    free(s->bg.rbuf);
    free(a);
    free(s->bg.o2c);
    free(s->bg.f);
    memset(&s->bg, 0, sizeof s->bg);
}

void pt_bg_forget(struct pt_state *s)
{
    if (!s->bg.set) return;
    left_to_mpi(s->bg.sbuf); /* left to the MPI on purpose: not a leak to report */
    left_to_mpi(s->bg.rbuf);
    left_to_mpi(s->bg.a);
    free(s->bg.o2c); /* ours only */
    free(s->bg.f);
    memset(&s->bg, 0, sizeof s->bg);
}
