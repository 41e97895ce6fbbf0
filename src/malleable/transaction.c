/* transaction.c -- a resize as a transaction: prepare (new blocks allocated
 * aside, registrations checked), spawn or connect, transfer into the new
 * blocks, agree (every process of the transfer communicator says whether its
 * part succeeded), then commit (the new blocks are adopted everywhere) or
 * roll back (they are dropped: every process keeps its old size, buffers and
 * data; the first failing process's reason goes to all, for the record).
 * Until the commit nothing the program sees has changed.  The general data
 * kinds (src/data: N-D blocks, sparse, custom, patches) stage their new state
 * in their own item state during the transfer; they adopt or drop it here,
 * through the hook table (data_commit, data_abort), after the row blocks. */
#include "engine.h"

#include <time.h>

struct stage_list STAGE;

/* Waits for a request asleep instead of spinning in MPI's progress loop: in
 * an agreement or while rank 0 spawns, most processes wait for a few that
 * still work (the staying ranks touching their new blocks, the slowest
 * transfer, the spawn and the new processes' start), and on a node with
 * more processes than cores a spinning waiter takes the core from them.
 * Polls every 50 us (a few rounds of a collective: well under a
 * millisecond of added latency). */
int polite_wait(MPI_Request *rq)
{
    struct timespec nap = {0, 50 * 1000};
    for (;;) {
        int done = 0;
        int rc = PMPI_Test(rq, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done) return rc;
        nanosleep(&nap, NULL);
    }
}

/* An allreduce (MIN of one int) whose early arrivals wait asleep. */
static int polite_allreduce_min(int *v, MPI_Comm c)
{
    MPI_Request rq;
    int rc = PMPI_Iallreduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_MIN, c, &rq);
    return rc != MPI_SUCCESS ? rc : polite_wait(&rq);
}

int txn_agree(MPI_Comm c, int ok, char *why, size_t len)
{
    int me = 0, all = ok ? 1 : 0;
    PMPI_Comm_rank(c, &me);
    /* one allreduce in the common case: MIN of the flag; MIN of the failing ranks only when needed */
    if (polite_allreduce_min(&all, c) != MPI_SUCCESS) {
        snprintf(why, len, "rank %d: the agreement on the transfer's outcome failed (an MPI error)", ductile_rt.rank);
        return 0;
    }
    if (all) return 1;
    /* the reason of the first process that failed on its own (a non-empty why), else of the first that failed */
    int v[2] = {!ok && why[0] ? me : INT_MAX, ok ? INT_MAX : me};
    PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, c);
    int first = v[0] != INT_MAX ? v[0] : v[1];
    char msg[TXN_WHY_MAX];
    snprintf(msg, sizeof msg, "%s", me == first ? why : "");
    if (first != INT_MAX) PMPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, c);
    snprintf(why, len, "%s", msg[0] ? msg : "a process of the resize failed");
    return 0;
}

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
