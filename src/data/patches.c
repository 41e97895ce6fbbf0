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
 * O(patches + P + fragments) memory; patches_xfer.c moves the data, and
 * patches_bg.c a constant set's in the background (EMPI_Set_flags). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "empi.h"
#include "patches.h"
#include "patches_int.h"
#include "../common/txnfault.h"
#include "../core/hotpath.h"
#include "../core/state.h"

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
    pt_block_box(s, s->nprocs, s->rank, &bb, NULL, NULL);
    size_t bytes = holds_data ? (size_t)pt_vol(&bb) * (size_t)ext : 0;
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
    if (s->bg.set) { /* its resize's fragments are packed, its new patches staged: they would be lost */
        snprintf(err, errlen, "'%s' is moving in the background: refused while its resize is pending "
                 "(ductile_constant_pending() returns 1)", id);
        return -1;
    }
    int P = ductile_rt.size, *map = malloc((size_t)P * sizeof *map);
    if (!map) { snprintf(err, errlen, "out of memory"); return -1; }
    for (int r = 0; r < P; r++) map[r] = r;
    MPI_Comm c;
    PMPI_Comm_dup(ductile_world, &c);
    struct xlayout X = {c, P, P, ductile_rt.rank, ductile_rt.rank, ductile_rt.rank, map, map};
    drop_next(s);
    int rc = pt_repartition(s, s->layout, s->owner, &X, ext, 1, err, errlen);
    if (rc == MOVE_OK) adopt_next(s); /* not a resize: the repartition's own agreement decided */
    else if (!err[0]) snprintf(err, errlen, "the repartition failed on another process");
    PMPI_Comm_free(&c);
    free(map);
    return rc == MOVE_OK ? 0 : -1;
}

/* The old layout (lay[0]) and patch owners (lay[1..m]) from the first old
 * process, for processes that do not know it (spawned ones), after the
 * transaction's checkpoint: NULL when the checkpoint stopped every process;
 * else the array (the caller frees it), *ok 0 if the broadcast failed here. */
static int *share_layout(const struct reg_item *it, const struct redist_layout *L, int *ok, char *err, size_t errlen)
{
    const struct pt_state *s = it->ext;
    int *lay = *ok ? txn_malloc(((size_t)s->m + 1) * sizeof *lay) : NULL;
    if (*ok && !lay) { snprintf(err, errlen, "'%s': out of memory", it->d.name); *ok = 0; }
    if (!txn_all_ok(L->comm, *ok)) { /* the checkpoint */
        free(lay);
        return NULL;
    }
    lay[0] = s->layout;
    for (int i = 0; i < s->m; i++) lay[i + 1] = s->owner ? s->owner[i] : -1;
    if (txn_mpi(PMPI_Bcast(lay, s->m + 1, MPI_INT, L->old_to_comm[0], L->comm)) != MPI_SUCCESS) {
        snprintf(err, errlen, "'%s': broadcast of the patch owners failed", it->d.name);
        *ok = 0;
    }
    return lay;
}

int patches_move(struct reg_item *it, const struct redist_layout *L, int ok, uint64_t *moved, char *err,
                 size_t errlen)
{
    struct pt_state *s = it->ext;
    int me = -1;
    PMPI_Comm_rank(L->comm, &me);
    drop_next(s); /* nothing should be staged; if it were, it is not this resize's */
    int *lay = share_layout(it, L, &ok, err, errlen); /* ok 0 now: the repartition's checkpoint stops all */
    if (!lay) return MOVE_STOPPED;
    struct xlayout X = {L->comm, L->ns, L->nd, L->my_old, L->my_new, me, L->old_to_comm, L->new_to_comm};
    int rc = pt_repartition(s, lay[0], lay + 1, &X, (size_t)it->d.extent, ok, err, errlen);
    free(lay);
    if (rc == MOVE_OK) *moved = (uint64_t)s->next.st.bytes_sent;
    return rc;
}

int patches_bg_start(struct reg_item *it, const struct redist_layout *L, int ok, struct bytes_xfer *xf, int *nxf,
                     char *err, size_t errlen)
{
    struct pt_state *s = it->ext;
    int me = -1;
    PMPI_Comm_rank(L->comm, &me);
    patches_abort(it); /* nothing should be staged; if it were, it is not this resize's */
    *nxf = 0;
    int *lay = share_layout(it, L, &ok, err, errlen); /* ok 0 now: the exchange's agreement stops all */
    if (!lay) return MOVE_STOPPED;
    *nxf = 1; /* one exchange on every process (on one that failed, its agreement stops all) */
    struct xlayout X = {L->comm, L->ns, L->nd, L->my_old, L->my_new, me, L->old_to_comm, L->new_to_comm};
    char why[200] = "";
    int rc = ok ? pt_bg_start(s, lay[0], lay + 1, &X, (size_t)it->d.extent, ok, xf, why, sizeof why) : MOVE_FAILED;
    if (rc != MOVE_OK && why[0]) snprintf(err, errlen, "'%s': %s", it->d.name, why);
    free(lay);
    return rc;
}

void patches_bg_forget(struct reg_item *it)
{
    if (!it->ext) return;
    pt_bg_forget(it->ext);
    drop_next(it->ext); /* the new patches are this process's own: the MPI never writes into them */
}

void patches_commit(struct reg_item *it)
{
    struct pt_state *s = it->ext;
    if (!s) return;
    if (s->bg.set) pt_bg_end(s, 1); /* moved in the background: the fragments go into place now */
    adopt_next(s);
}

void patches_abort(struct reg_item *it)
{
    struct pt_state *s = it->ext;
    if (!s) return;
    if (s->bg.set) pt_bg_end(s, 0);
    drop_next(s);
}

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
    pt_block_box(s, s->nprocs, s->rank, &bb, b->dims, b->coords);
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
    if (s->bg.set) pt_bg_end(s, 0);
    drop_next(s);
    free(s->block);
    for (int i = 0; i < s->nmine; i++) free(s->mine[i].addr);
    free(s->mine);
    free(s->owner);
    free(s);
}
