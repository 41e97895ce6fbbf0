/* ndblock_bg.c -- a constant N-D block (EMPI_Register_block*, then
 * EMPI_Set_flags(id, EMPI_CONSTANT)) moving in the background
 * (DUCTILE_REDIST_CONSTANT=nb|wd|thread).  Every process computes the
 * boxes that move from the grid function alone (no metadata to exchange), so
 * at the resize's start each one allocates what it needs -- the packed boxes
 * it sends, those it receives, and its new local array (Ductile's, or the
 * program's storage callback's) -- and packs its old interior's boxes at
 * once: the block does not change, so packing now gives the bytes a packing
 * at the switch would.  The engine then moves the packed bytes in the
 * background (src/malleable/transfer.c: one MPI_Ialltoallv, or in the Wait
 * Drains / Threading group).  Until the switch the item keeps its old array,
 * grid and communicator, which the program iterates on.  At the switch
 * ndblock_commit unpacks the received boxes into the staged array (a local
 * copy, it cannot fail) and adopts it; halos and the communicator follow in
 * data_world_changed, as after a blocking move.  ndblock_abort drops it all
 * on a rollback, ndblock_bg_forget forgets the buffers the MPI may still
 * use (never freed) when the transfer is abandoned. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "ndblock_int.h"
#include "../common/txnfault.h"

#include "../common/leftmpi.h"

int ndblock_bg_start(struct reg_item *it, const struct redist_layout *L, int ok, struct bytes_xfer *xf, int *nxf,
                     char *err, size_t errlen)
{
    struct nd_state *s = it->ext;
    size_t ext = (size_t)it->d.extent;
    int n = L->comm_size;
    ndblock_abort(it); /* nothing should be staged; if it were, it is not this resize's */
    *nxf = 1;          /* one exchange on every process (on one that failed, its agreement stops all) */
    int came_ok = ok, dold[3], dnew[3];
    char why[300] = "";
    if (nd_grids(it, L, dold, dnew, why, sizeof why) != 0) ok = 0;
    int64_t *a = ok ? txn_calloc(4 * (size_t)n, sizeof *a) : NULL;
    int *o2c = ok ? txn_malloc((size_t)(L->ns ? L->ns : 1) * sizeof *o2c) : NULL;
    int64_t *sc = a, *sd = a ? a + n : NULL, *rc = a ? a + 2 * n : NULL, *rd = a ? a + 3 * n : NULL;
    int64_t stot = 0, rtot = 0, nstr[3];
    char *sb = NULL, *rb = NULL, *na = NULL;
    if (ok && (!a || !o2c)) ok = 0;
    if (ok) {
        nd_plan(s, ext, L, dold, dnew, sc, sd, rc, rd, &stot, &rtot);
        sb = txn_malloc(stot ? (size_t)stot : 1);
        rb = txn_malloc(rtot ? (size_t)rtot : 1);
        if (L->my_new >= 0) {
            struct nd_geom ng;
            nd_geom_at(s, dnew, L->my_new, &ng);
            na = nd_new_local(s, &ng, ext, nstr, why, sizeof why);
        }
        if (!sb || !rb || (L->my_new >= 0 && !na)) ok = 0;
    }
    if (!ok) {
        if (came_ok) snprintf(err, errlen, "'%s': %s", it->d.name, why[0] ? why : "out of memory for the transfer");
        free(sb); free(rb); free(a); free(o2c);
        nd_free_local(s, na);
        return MOVE_FAILED;
    }
    nd_pack(it, L, dold, dnew, sc, sd, sb);
    memcpy(o2c, L->old_to_comm, (size_t)L->ns * sizeof *o2c);
    if (L->my_new >= 0) nd_stage(s, L, dnew, na, nstr); /* the array is filled at the switch */
    s->bg.set = 1;
    s->bg.ns = L->ns;
    s->bg.n = n;
    memcpy(s->bg.dold, dold, sizeof dold);
    s->bg.o2c = o2c;
    s->bg.a = a;
    s->bg.sb = sb;
    s->bg.rb = rb;
    xf[0] = (struct bytes_xfer){sb, rb, sc, sd, rc, rd};
    return MOVE_OK;
}

void nd_bg_end(struct reg_item *it, int unpack)
{
    struct nd_state *s = it->ext;
    int64_t *a = s->bg.a;
    if (unpack && s->next.set && a) {
        int n = s->bg.n;
        nd_unpack(s, (size_t)it->d.extent, s->bg.ns, s->bg.o2c, s->bg.dold, s->next.dims, s->next.rank, s->next.addr,
                  s->next.str, a + 2 * n, a + 3 * n, s->bg.rb);
    }
    free(s->bg.sb);
    free(s->bg.rb);
    free(a);
    free(s->bg.o2c);
    memset(&s->bg, 0, sizeof s->bg);
}

void ndblock_bg_forget(struct reg_item *it)
{
    struct nd_state *s = it->ext;
    if (!s || !s->bg.set) return;
    left_to_mpi(s->bg.sb); /* left to the MPI on purpose: not a leak to report */
    left_to_mpi(s->bg.rb);
    left_to_mpi(s->bg.a);
    free(s->bg.o2c); /* ours only */
    memset(&s->bg, 0, sizeof s->bg);
    ndblock_abort(it); /* the staged new array is this process's own: the MPI never writes into it */
}
