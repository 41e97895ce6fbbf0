/* ndblock.c -- N-D block data (EMPI_Register_block, EMPI_Register_block_grid):
 * an array of 1 to 3 dimensions, C order, decomposed over a process grid
 * (MPI_Dims_create's, or the program's grid function's: ndgrid.c) as
 * MPI_Cart_create (no reorder: rank = row-major grid coordinates) would make
 * it, each block stored with halo cells around its interior.  At a resize
 * every non-empty intersection of an old interior block with a new one moves
 * once, packed, in one MPI_Alltoallv over the transfer communicator, into a
 * new local array kept aside (the old one stays the item's) until the resize
 * commits (ndblock_commit; ndblock_abort drops it); the new local arrays are
 * Ductile's (or the program's, EMPI_Register_block_storage: its callback
 * gives each new array and its strides, its old one goes back to it at the
 * commit, the new one at a rollback).  When the new world is in place (data_world_changed, after the
 * commit) each item whose layout the commit changed gets the Cartesian
 * communicator of its grid (one per grid and resize, shared by the blocks on
 * it) and its halos are filled from the neighbours' interiors (dimension by
 * dimension, over full extents, so edges and corners are filled too; across
 * the boundary of a periodic dimension as well); after a rolled-back resize
 * nothing changes, the communicator included.  A constant block moves in
 * the background instead (ndblock_bg.c): the same boxes, packed at the
 * resize's start, unpacked at the switch (ndblock_commit). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "ndblock.h"
#include "ndblock_int.h"
#include "ndgrid.h"
#include "empi.h"
#include "../core/hotpath.h"
#include "../core/state.h"
#include "../common/txnfault.h"
#include "../redist/chunk.h"
#include "../redist/plan.h"

/* rank's block in the process grid dims (MPI_Dims_create once per grid, not per rank) */
void nd_geom_at(const struct nd_state *s, const int dims[3], int rank, struct nd_geom *o)
{
    for (int d = 0; d < 3; d++) o->dims[d] = dims[d];
    int r = rank;
    for (int d = 2; d >= 0; d--) {
        o->coords[d] = r % o->dims[d];
        r /= o->dims[d];
    }
    for (int d = 0; d < 3; d++) {
        plan_block b = plan_block_of(s->g[d], o->dims[d], o->coords[d]);
        o->start[d] = b.displ;
        o->sub[d] = b.count;
        o->lsz[d] = b.count + 2 * (int64_t)s->halo[d];
    }
}

/* rank's block in the item's current layout */
static void nd_geom_cur(const struct nd_state *s, struct nd_geom *o) { nd_geom_at(s, s->dims, s->rank, o); }

static int64_t box_elems(const int64_t lo[3], const int64_t hi[3])
{
    int64_t n = 1;
    for (int d = 0; d < 3; d++) n *= hi[d] > lo[d] ? hi[d] - lo[d] : 0;
    return n;
}

/* Copy the box [lo, hi) (local coordinates of an array of strides str, in
 * elements of ext bytes) to (unpack = 0) or from (unpack = 1) the packed
 * buffer buf. */
void nd_box_copy(char *arr, const int64_t str[3], const int64_t lo[3], const int64_t hi[3], size_t ext, char *buf,
                     int unpack)
{
    if (box_elems(lo, hi) == 0) return;
    size_t run = (size_t)(hi[2] - lo[2]) * ext;
    for (int64_t i = lo[0]; i < hi[0]; i++)
        for (int64_t j = lo[1]; j < hi[1]; j++) {
            char *p = arr + (size_t)(i * str[0] + j * str[1] + lo[2] * str[2]) * ext;
            if (str[2] == 1) {
                if (unpack) memcpy(p, buf, run);
                else memcpy(buf, p, run);
                buf += run;
                continue;
            }
            for (int64_t k = lo[2]; k < hi[2]; k++, p += (size_t)str[2] * ext, buf += ext) {
                if (unpack) memcpy(p, buf, ext);
                else memcpy(buf, p, ext);
            }
        }
}

/* The intersection of the interiors of a and b, in global coordinates. */
int64_t nd_isect(const struct nd_geom *a, const struct nd_geom *b, int64_t lo[3], int64_t hi[3])
{
    for (int d = 0; d < 3; d++) {
        lo[d] = a->start[d] > b->start[d] ? a->start[d] : b->start[d];
        int64_t ea = a->start[d] + a->sub[d], eb = b->start[d] + b->sub[d];
        hi[d] = ea < eb ? ea : eb;
        if (hi[d] < lo[d]) hi[d] = lo[d];
    }
    return box_elems(lo, hi);
}

/* Global box -> local box of the array of geometry g. */
void nd_to_local(const struct nd_state *s, const struct nd_geom *g, const int64_t glo[3], const int64_t ghi[3],
                     int64_t lo[3], int64_t hi[3])
{
    for (int d = 0; d < 3; d++) {
        lo[d] = glo[d] - g->start[d] + s->halo[d];
        hi[d] = ghi[d] - g->start[d] + s->halo[d];
    }
}

static size_t local_bytes(const struct nd_geom *g, size_t ext)
{
    return (size_t)(g->lsz[0] * g->lsz[1] * g->lsz[2]) * ext;
}

/* The block g as the program sees it (before its communicator exists). */
static void geom_blk(const struct nd_state *s, const struct nd_geom *g, EMPI_Block *b)
{
    memset(b, 0, sizeof *b);
    b->ndims = s->ndims;
    for (int d = 0; d < 3; d++) {
        b->gsizes[d] = s->g[d];
        b->halo[d] = s->halo[d];
        b->dims[d] = g->dims[d];
        b->coords[d] = g->coords[d];
        b->starts[d] = (int)g->start[d];
        b->subsizes[d] = (int)g->sub[d];
        b->lsizes[d] = (int)g->lsz[d];
    }
    b->comm = MPI_COMM_NULL;
}

/* A new local array for the block g, zeroed when Ductile's: Ductile's dense one, or the program's
 * (its allocation callback, strides checked: C order, rows not overlapping).  NULL with why. */
void *nd_new_local(const struct nd_state *s, const struct nd_geom *g, size_t ext, int64_t str[3], char *why,
                       size_t len)
{
    str[2] = 1;
    str[1] = g->lsz[2];
    str[0] = g->lsz[1] * g->lsz[2];
    if (!s->mem.alloc) {
        void *p = txn_calloc(1, local_bytes(g, ext) ? local_bytes(g, ext) : 1);
        if (!p) snprintf(why, len, "out of memory for the local array");
        return p;
    }
    EMPI_Block b;
    geom_blk(s, g, &b);
    int64_t want[3] = {str[0], str[1], str[2]};
    void *p = s->mem.alloc(&b, str, s->mem.arg);
    if (!p) {
        snprintf(why, len, "the program's storage callback gave no array for the block of %d x %d x %d", b.lsizes[0],
                 b.lsizes[1], b.lsizes[2]);
        return NULL;
    }
    if (str[2] < 1 || str[1] < g->lsz[2] * str[2] || str[0] < g->lsz[1] * str[1]) {
        snprintf(why, len, "the program's storage callback gave strides %lld %lld %lld for a block of %d x %d x %d "
                 "(at least %lld %lld %lld)", (long long)str[0], (long long)str[1], (long long)str[2], b.lsizes[0],
                 b.lsizes[1], b.lsizes[2], (long long)want[0], (long long)want[1], (long long)want[2]);
        if (s->mem.release) s->mem.release(p, s->mem.arg);
        return NULL;
    }
    return p;
}

/* Give back a local array nd_new_local made (not the item's current one, unless it is being replaced). */
void nd_free_local(const struct nd_state *s, void *p)
{
    if (!p) return;
    if (!s->mem.alloc) free(p);
    else if (s->mem.release) s->mem.release(p, s->mem.arg);
}

static void fill_blk(const struct reg_item *it, EMPI_Block *b)
{
    const struct nd_state *s = it->ext;
    struct nd_geom g;
    nd_geom_cur(s, &g);
    geom_blk(s, &g, b);
    b->comm = s->grid->cart;
    b->addr = it->addr;
}

int ndblock_get(const char *id, EMPI_Block *blk, int64_t strides[3])
{
    struct reg_item *it = reg_find(id);
    if (!it || it->d.kind != REG_NDBLOCK || !it->ext) return -1;
    if (blk) fill_blk(it, blk);
    const struct nd_state *s = it->ext;
    for (int d = 0; d < 3 && strides; d++) strides[d] = s->str[d];
    return 0;
}

int ndblock_register(const char *id, MPI_Datatype type, int ndims, const int gsizes[], const int halo[],
                     const int periods[], EMPI_Grid_fn grid, void *grid_arg, const struct nd_storage *mem,
                     int make_comm, EMPI_Block *blk, char *err, size_t errlen)
{
    if (ndims < 1 || ndims > 3 || !gsizes) {
        snprintf(err, errlen, "'%s': ndims must be 1, 2 or 3 (got %d) and gsizes given", id ? id : "", ndims);
        return -1;
    }
    struct nd_state st;
    memset(&st, 0, sizeof st);
    st.ndims = ndims;
    for (int d = 0; d < 3; d++) {
        st.g[d] = d < ndims ? gsizes[d] : 1;
        st.halo[d] = d < ndims && halo ? halo[d] : 0;
        if (st.g[d] < 0 || st.halo[d] < 0) {
            snprintf(err, errlen, "'%s': negative size or halo in dimension %d", id ? id : "", d);
            return -1;
        }
    }
    st.nprocs = ductile_rt.size > 0 ? ductile_rt.size : 1;
    st.rank = ductile_rt.rank;
    st.stale = 1;
    if (mem) st.mem = *mem;
    int per[3] = {0, 0, 0};
    for (int d = 0; d < ndims && periods; d++) per[d] = periods[d] != 0;
    MPI_Aint lb, ext;
    if (PMPI_Type_get_extent(type, &lb, &ext) != MPI_SUCCESS || ext <= 0) {
        snprintf(err, errlen, "'%s': not a valid MPI datatype", id ? id : "");
        return -1;
    }
    st.grid = ndgrid_get(ndims, per, grid, grid_arg);
    if (!st.grid) {
        snprintf(err, errlen, "'%s': out of memory", id ? id : "");
        return -1;
    }
    char why[200];
    if (ndgrid_dims(st.grid, st.nprocs, st.dims, why, sizeof why) != 0) {
        snprintf(err, errlen, "'%s': %s", id ? id : "", why);
        ndgrid_put(st.grid);
        return -1;
    }
    struct nd_geom g;
    nd_geom_cur(&st, &g);
    void *a = nd_new_local(&st, &g, (size_t)ext, st.str, why, sizeof why);
    struct nd_state *s = malloc(sizeof *s);
    if (!a || !s) {
        nd_free_local(&st, a);
        free(s);
        ndgrid_put(st.grid);
        snprintf(err, errlen, "'%s': %s", id ? id : "", a ? "out of memory" : why);
        return -1;
    }
    *s = st;
    /* what every process must agree on: the global sizes and the periodicity (halos are this process's
     * business; the grid function is the program's, the same code everywhere) */
    int64_t shape = ((int64_t)st.g[2] * 4 + (ndims - 1)) * 8 + per[0] * 4 + per[1] * 2 + per[2];
    if (reg_add(id, a, type, REG_NDBLOCK, 0, st.g[0], st.g[1], shape, err, errlen) != 0) {
        nd_free_local(&st, a);
        ndgrid_put(s->grid);
        free(s);
        return -1;
    }
    struct reg_item *it = reg_find(id);
    it->ext = s;
    it->owned = !s->mem.alloc; /* the program's storage is never freed by the registry */
    if (make_comm) ndblock_world_changed(it);
    if (blk) fill_blk(it, blk);
    return 0;
}

int nd_plan(const struct nd_state *s, size_t ext, const struct redist_layout *L, const int dold[3],
            const int dnew[3], int64_t *sc, int64_t *sd, int64_t *rc, int64_t *rd, int64_t *stot, int64_t *rtot)
{
    struct nd_geom og, ng, x;
    int64_t lo[3], hi[3];
    int n = L->comm_size;
    for (int c = 0; c < n; c++) sc[c] = rc[c] = 0;
    if (L->my_old >= 0) {
        nd_geom_at(s, dold, L->my_old, &og);
        for (int d = 0; d < L->nd; d++) {
            int c = L->new_to_comm[d];
            if (c < 0) continue;
            nd_geom_at(s, dnew, d, &x);
            sc[c] = nd_isect(&og, &x, lo, hi) * (int64_t)ext;
        }
    }
    if (L->my_new >= 0) {
        nd_geom_at(s, dnew, L->my_new, &ng);
        for (int r = 0; r < L->ns; r++) {
            int c = L->old_to_comm[r];
            if (c < 0) continue;
            nd_geom_at(s, dold, r, &x);
            rc[c] = nd_isect(&x, &ng, lo, hi) * (int64_t)ext;
        }
    }
    *stot = *rtot = 0;
    for (int c = 0; c < n; c++) {
        sd[c] = *stot;
        *stot += sc[c];
        rd[c] = *rtot;
        *rtot += rc[c];
    }
    return 0;
}

void nd_pack(const struct reg_item *it, const struct redist_layout *L, const int dold[3], const int dnew[3],
             const int64_t *sc, const int64_t *sd, char *sb)
{
    const struct nd_state *s = it->ext;
    struct nd_geom og, x;
    int64_t lo[3], hi[3], llo[3], lhi[3];
    if (L->my_old < 0) return;
    nd_geom_at(s, dold, L->my_old, &og);
    for (int d = 0; d < L->nd; d++) {
        int c = L->new_to_comm[d];
        if (c < 0 || !sc[c]) continue;
        nd_geom_at(s, dnew, d, &x);
        nd_isect(&og, &x, lo, hi);
        nd_to_local(s, &og, lo, hi, llo, lhi);
        nd_box_copy(it->addr, s->str, llo, lhi, (size_t)it->d.extent, sb + sd[c], 0);
    }
}

void nd_unpack(const struct nd_state *s, size_t ext, int ns, const int *o2c, const int dold[3], const int dnew[3],
               int my_new, char *na, const int64_t nstr[3], const int64_t *rc, const int64_t *rd, const char *rb)
{
    struct nd_geom ng, x;
    int64_t lo[3], hi[3], llo[3], lhi[3];
    nd_geom_at(s, dnew, my_new, &ng);
    for (int r = 0; r < ns; r++) {
        int c = o2c[r];
        if (c < 0 || !rc[c]) continue;
        nd_geom_at(s, dold, r, &x);
        nd_isect(&x, &ng, lo, hi);
        nd_to_local(s, &ng, lo, hi, llo, lhi);
        nd_box_copy(na, nstr, llo, lhi, ext, (char *)(uintptr_t)(rb + rd[c]), 1);
    }
}

int nd_grids(const struct reg_item *it, const struct redist_layout *L, int dold[3], int dnew[3], char *err,
             size_t errlen)
{
    const struct nd_state *s = it->ext;
    char why[200];
    if (ndgrid_dims(s->grid, L->ns, dold, why, sizeof why) == 0 && ndgrid_dims(s->grid, L->nd, dnew, why, sizeof why) == 0)
        return 0;
    snprintf(err, errlen, "'%s': %s", it->d.name, why); /* refused at the decision: not reached */
    return -1;
}

int ndblock_move(struct reg_item *it, const struct redist_layout *L, int ok, uint64_t *moved, char *err,
                 size_t errlen)
{
    struct nd_state *s = it->ext;
    size_t ext = (size_t)it->d.extent;
    int n = L->comm_size, me = -1;
    PMPI_Comm_rank(L->comm, &me);
    ndblock_abort(it); /* nothing should be staged; if it were, it is not this resize's */
    struct nd_geom ng;
    int came_ok = ok;
    int dold[3], dnew[3];
    /* both grids from the grid function (a spawned process's layout is not the old world's) */
    char gwhy[300];
    if (nd_grids(it, L, dold, dnew, gwhy, sizeof gwhy) != 0) {
        if (ok) snprintf(err, errlen, "%s", gwhy);
        ok = came_ok = 0;
    }
    int64_t *a = ok ? txn_calloc(4 * (size_t)n, sizeof *a) : NULL;
    char *sb = NULL, *rb = NULL, *na = NULL;
    int64_t nstr[3];
    char nwhy[300] = "";
    int64_t *sc = a, *sd = a ? a + n : NULL, *rc = a ? a + 2 * n : NULL, *rd = a ? a + 3 * n : NULL;
    int64_t stot = 0, rtot = 0;
    if (ok && !a) ok = 0;
    if (ok) {
        nd_plan(s, ext, L, dold, dnew, sc, sd, rc, rd, &stot, &rtot);
        sb = txn_malloc(stot ? (size_t)stot : 1);
        rb = txn_malloc(rtot ? (size_t)rtot : 1);
        if (L->my_new >= 0) {
            nd_geom_at(s, dnew, L->my_new, &ng);
            na = nd_new_local(s, &ng, ext, nstr, nwhy, sizeof nwhy);
        }
        if (!sb || !rb || (L->my_new >= 0 && !na)) ok = 0;
    }
    if (came_ok && !ok)
        snprintf(err, errlen, "'%s': %s", it->d.name, nwhy[0] ? nwhy : "out of memory for the transfer");
    if (ok) nd_pack(it, L, dold, dnew, sc, sd, sb);
    /* the exchange's agreement is this item's checkpoint (what it needs is allocated above) */
    int rcode = data_alltoallv_bytes(sb, sc, sd, rb, rc, rd, ok, L->comm, err, errlen);
    if (rcode != MOVE_OK) {
        free(sb); free(rb); nd_free_local(s, na); free(a);
        return rcode; /* the old array stays the item's */
    }
    if (L->my_new >= 0) {
        nd_unpack(s, ext, L->ns, L->old_to_comm, dold, dnew, L->my_new, na, nstr, rc, rd, rb);
        nd_stage(s, L, dnew, na, nstr); /* adopted at the commit (ndblock_commit), dropped on a rollback */
    }
    for (int c = 0; c < n; c++)
        if (c != me) *moved += (uint64_t)sc[c];
    free(sb); free(rb); free(a);
    return MOVE_OK;
}

void nd_stage(struct nd_state *s, const struct redist_layout *L, const int dnew[3], void *na, const int64_t nstr[3])
{
    s->next.addr = na;
    s->next.nprocs = L->nd;
    s->next.rank = L->my_new;
    memcpy(s->next.dims, dnew, sizeof s->next.dims);
    memcpy(s->next.str, nstr, sizeof s->next.str);
    s->next.set = 1;
}

/* Exchange the halos of one dimension over s->fill: my low interior face to
 * the lower neighbour's high halo and my high face to the upper's low halo. */
static void fill_dim(struct reg_item *it, const struct nd_geom *g, int d)
{
    struct nd_state *s = it->ext;
    size_t ext = (size_t)it->d.extent;
    int h = s->halo[d], lower, upper;
    PMPI_Cart_shift(s->grid->fill, d, 1, &lower, &upper);
    int64_t slo[3], shi[3], rlo[3], rhi[3];
    for (int e = 0; e < 3; e++) { slo[e] = rlo[e] = 0; shi[e] = rhi[e] = g->lsz[e]; }
    int64_t cnt = 1;
    for (int e = 0; e < 3; e++) cnt *= e == d ? h : g->lsz[e];
    size_t bytes = (size_t)cnt * ext;
    char *sbuf = malloc(bytes ? bytes : 1), *rbuf = malloc(bytes ? bytes : 1);
    if (!sbuf || !rbuf) { free(sbuf); free(rbuf); return; }
    for (int dir = 0; dir < 2; dir++) {
        /* dir 0: send the low face down, receive the high halo from above; dir 1: the reverse */
        int to = dir ? upper : lower, from = dir ? lower : upper;
        slo[d] = dir ? h + g->sub[d] - h : h;
        shi[d] = slo[d] + h;
        rlo[d] = dir ? 0 : h + g->sub[d];
        rhi[d] = rlo[d] + h;
        if (to != MPI_PROC_NULL) nd_box_copy(it->addr, s->str, slo, shi, ext, sbuf, 0);
        /* the neighbours' faces are the same size: both cut them into the same pieces below an int count */
        for (int64_t k = 0, piece = chunk_piece_max(), np = chunk_count((int64_t)bytes, piece); k < np; k++) {
            int64_t o = 0;
            int len = 0;
            chunk_piece((int64_t)bytes, piece, k, &o, &len);
            PMPI_Sendrecv(sbuf + o, to != MPI_PROC_NULL ? len : 0, MPI_BYTE, to, 7400 + d, rbuf + o,
                          from != MPI_PROC_NULL ? len : 0, MPI_BYTE, from, 7400 + d, s->grid->fill, MPI_STATUS_IGNORE);
        }
        if (from != MPI_PROC_NULL) nd_box_copy(it->addr, s->str, rlo, rhi, ext, rbuf, 1);
    }
    free(sbuf);
    free(rbuf);
}

void ndblock_commit(struct reg_item *it)
{
    struct nd_state *s = it->ext;
    if (s && s->bg.set) nd_bg_end(it, s->next.set); /* moved in the background: the boxes go into place now */
    if (!s || !s->next.set) return;
    if (s->mem.alloc) {
        nd_free_local(s, it->addr); /* the program's old array goes back to it */
    } else if (it->owned && it->addr) {
        if (reg_is_tracked(it->addr)) reg_untrack_free(it->addr);
        else free(it->addr);
    }
    it->addr = s->next.addr;
    it->owned = !s->mem.alloc;
    memcpy(s->str, s->next.str, sizeof s->str);
    s->nprocs = s->next.nprocs;
    s->rank = s->next.rank;
    memcpy(s->dims, s->next.dims, sizeof s->dims);
    s->stale = s->moved = 1; /* the communicator and halos follow in data_world_changed, with the new world */
    memset(&s->next, 0, sizeof s->next);
}

void ndblock_abort(struct reg_item *it)
{
    struct nd_state *s = it->ext;
    if (s && s->bg.set) nd_bg_end(it, 0);
    if (!s || !s->next.set) return;
    nd_free_local(s, s->next.addr);
    memset(&s->next, 0, sizeof s->next);
}

void ndblock_world_changed(struct reg_item *it)
{
    struct nd_state *s = it->ext;
    if (!s || !s->stale) return; /* no committed change since its communicator was made */
    s->stale = 0;
    struct nd_geom g;
    nd_geom_cur(s, &g);
    int moved = s->moved;
    s->moved = 0;
    if (ndgrid_comm(s->grid, s->nprocs, s->dims, moved, it->d.name) != 0) return;
    for (int d = 0; d < s->ndims; d++) {
        if (!s->halo[d] || (g.dims[d] == 1 && !s->grid->periods[d])) continue; /* periodic: from itself */
        /* every block of this dimension must be at least as wide as the halo (all processes agree) */
        if (s->g[d] / g.dims[d] < s->halo[d]) {
            if (!s->warned++ && s->rank == 0)
                fprintf(stderr, "ductile: warning: '%s': blocks of %d cells in dimension %d are narrower than the "
                                "halo (%d): that dimension's halos are filled on no process\n", it->d.name, s->g[d] / g.dims[d], d,
                        s->halo[d]);
            continue;
        }
        fill_dim(it, &g, d);
    }
}

void ndblock_free(struct reg_item *it)
{
    struct nd_state *s = it->ext;
    if (s->bg.set) nd_bg_end(it, 0);
    ndgrid_put(s->grid);
    nd_free_local(s, s->next.addr);
    free(s);
}
