/* transaction.c -- a resize as a transaction: prepare (new blocks allocated
 * aside, registrations checked), spawn or connect, transfer into the new
 * blocks, agree (every process of the transfer communicator says whether its
 * part succeeded), then commit (the new blocks are adopted everywhere) or
 * roll back (they are dropped: every process keeps its old size, buffers and
 * data; the agreement itself, bounded, is agree.c's).
 * Until the commit nothing the program sees has changed.  The general data
 * kinds (src/data: N-D blocks, sparse, custom, patches) stage their new state
 * in their own item state during the transfer; they adopt or drop it here,
 * through the hook table (data_commit, data_abort), after the row blocks. */
#include "engine.h"

struct stage_list STAGE;

int stage_add(int item, void *dst, int from_spare, int shared, int persist, int rma_lock, int ns, int nd, int has_old)
{
    if (STAGE.n == STAGE.cap) {
        int nc = STAGE.cap ? 2 * STAGE.cap : 8;
        struct staged *a = txn_realloc(STAGE.s, (size_t)nc * sizeof *a);
        if (!a) return -1;
        STAGE.s = a;
        STAGE.cap = nc;
    }
    STAGE.s[STAGE.n++] = (struct staged){item, dst, from_spare, shared, persist, rma_lock, ns, nd, has_old};
    return 0;
}

void stage_commit(void)
{
    for (int k = 0; k < STAGE.n; k++) {
        struct staged *e = &STAGE.s[k];
        struct reg_item *it = reg_at(e->item);
        if (!it) continue;
        if (persist_shared_owner(it->addr, NULL) != MPI_COMM_NULL) {
            /* a shared block: freed with its window */
        } else if (it->owned && it->addr) {
            if (e->persist && e->has_old && !e->shared) {
                reg_drop_spare(it); /* at most one spare per item */
                it->spare = it->addr;
                it->spare_size = e->ns;
            } else if (DEFER_RMA_FREE && !e->persist && !redist_rma_create && e->rma_lock) {
                bury(it->addr); /* freed at the next control point (see DEFER_RMA_FREE) */
            } else if (e->dst && !reg_is_tracked(it->addr)) {
                block_keep(it->addr, e->item); /* Ductile's own, on a staying process: for the next resize */
            } else {
                free_block(it->addr);
            }
        }
        it->addr = e->dst;
        it->owned = !e->shared; /* shared blocks are never free()d */
    }
    STAGE.n = 0;
    for (int i = 0; i < reg_count(); i++)
        if (REG_KIND_IS_DATA(reg_at(i)->d.kind)) DUCTILE_HOOK_VOID(data_commit, (reg_at(i)));
}

void stage_abort(void)
{
    for (int k = 0; k < STAGE.n; k++) {
        struct staged *e = &STAGE.s[k];
        struct reg_item *it = reg_at(e->item);
        if (e->shared) continue; /* belongs to its shared window */
        if (it && e->persist) {
            /* persistent mode: the block stays the item's spare for this layout (prepared transfers may name it) */
            reg_drop_spare(it);
            it->spare = e->dst;
            it->spare_size = e->nd;
        } else if (e->rma_lock && DEFER_RMA_FREE) {
            bury(e->dst); /* one-sided reads may still be in flight in the transport */
        } else {
            free(e->dst);
        }
    }
    STAGE.n = 0;
    /* every general data item, not only those that moved: a move that failed half-way drops its part here */
    for (int i = 0; i < reg_count(); i++)
        if (REG_KIND_IS_DATA(reg_at(i)->d.kind)) DUCTILE_HOOK_VOID(data_abort, (reg_at(i)));
}
