/* world.c -- the world swap: the virtual world and the private
 * communicator replaced by a resize, a removed process's world of its own,
 * the world's transfer communicator (DUCTILE_PERSISTENT) and old blocks
 * freed a control point later (one-sided transfers with Open MPI 4.1). */
#include "engine.h"

/* ------------------------------------------------------------------ world switching */

void set_world(MPI_Comm world, MPI_Comm priv)
{
    MPI_Comm old_w = ductile_world, old_p = ductile_rt.private_comm;
    ductile_world_carry(old_w, world); /* world identity hook (src/world/worldid.c): error handler, name, attributes */
    ductile_world = world;
    ductile_rt.private_comm = priv;
    M.world_epoch++; /* also when a standby process's kept world becomes its world again */
    if (old_w != MPI_COMM_WORLD && old_w != MPI_COMM_NULL && old_w != world && !(SB.active && old_w == SB.world))
        ductile_world_retire(old_w); /* world identity hook: freed now, or at MPI_Finalize with threads */
    else if (old_w != world)
        ductile_world_strip(old_w); /* world identity hook: kept world, the program's attributes moved on */
    (void)old_p; /* the caller decides what happens to the old private communicator */
    int was = ductile_rt.rank;
    PMPI_Comm_rank(world, &ductile_rt.rank);
    PMPI_Comm_size(world, &ductile_rt.size);
    /* rank 0 left the world: the main-loop detector (src/monitor/iteration.c, rank 0 only) starts on the
     * new rank 0, from this control point on (the old one's symbols are its own return addresses) */
    if (was != 0 && ductile_rt.rank == 0 && ductile_monitoring && !M.removed)
        DUCTILE_HOOK_VOID(monitor_start, (ductile_rt.settings.iter_detect && !ductile_threaded,
                                          ductile_rt.settings.iter_frames, ductile_rt.settings.iter_repeats,
                                          ductile_rt.settings.iter_max_calls));
}

void new_world_from(MPI_Comm base, MPI_Comm *w, MPI_Comm *p)
{
    PMPI_Comm_dup(base, w);
    PMPI_Comm_set_name(*w, "MPI_COMM_WORLD");
    PMPI_Comm_dup(base, p);
    PMPI_Comm_set_name(*p, "ductile-private");
    PMPI_Comm_set_errhandler(*p, MPI_ERRORS_RETURN);
}

/* The same from a communicator made for the new world alone (the merge of
 * an expansion, the split of a shrink): it becomes the private communicator
 * itself, one duplicate fewer (each costs a collective round across the
 * world). */
void new_world_adopt(MPI_Comm base, MPI_Comm *w, MPI_Comm *p)
{
    MPI_Request rq = MPI_REQUEST_NULL; /* waited for asleep (agree.c) */
    if (PMPI_Comm_idup(base, w, &rq) != MPI_SUCCESS || wait_all_asleep(1, &rq) != MPI_SUCCESS) PMPI_Comm_dup(base, w);
    PMPI_Comm_set_name(*w, "MPI_COMM_WORLD");
    *p = base;
    PMPI_Comm_set_name(*p, "ductile-private");
    PMPI_Comm_set_errhandler(*p, MPI_ERRORS_RETURN);
}

/* A removed process: a world of its own, so that stray calls do not hang. */
void leave_world(void)
{
    MPI_Comm w, p;
    new_world_from(MPI_COMM_SELF, &w, &p);
    M.removed = 1; /* before the switch: rank 0 of its own world is not the job's rank 0 */
    set_world(w, p);
}

/* Persistent mode: the current world's transfer communicator, where its
 * prepared transfers live (collective over the world when first needed). */
MPI_Comm world_xfer(void)
{
    if (M.xfer == MPI_COMM_NULL) {
        PMPI_Comm_dup(ductile_rt.private_comm, &M.xfer);
        PMPI_Comm_set_errhandler(M.xfer, MPI_ERRORS_RETURN);
    }
    return M.xfer;
}

/* Free the prepared transfers and shared blocks over x (collective over x),
 * first copying the registered arrays that live in x's shared blocks
 * (DUCTILE_RMA_MEMORY=shared) into ordinary memory.  When a process cannot
 * allocate a copy, every process of x keeps its shared blocks and prepared
 * transfers (agreed over x): the arrays stay valid, the memory is not given
 * back until MPI_Finalize; nobody aborts. */
void release_transfers(MPI_Comm x)
{
    int n = reg_count(), ok = 1;
    void **copy = calloc((size_t)(n ? n : 1), sizeof *copy);
    if (!copy) ok = 0;
    for (int i = 0; ok && i < n; i++) {
        struct reg_item *it = reg_at(i);
        size_t bytes = 0;
        if (it->d.kind != REG_DISTRIBUTED || persist_shared_owner(it->addr, &bytes) != x) continue;
        copy[i] = malloc(bytes ? bytes : 1);
        if (!copy[i]) {
            fprintf(stderr, "ductile: warning: rank %d: out of memory copying '%s' out of shared memory; the shared "
                    "blocks stay allocated\n", ductile_rt.rank, it->d.name);
            ok = 0;
        }
    }
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, x);
    for (int i = 0; copy && i < n; i++) {
        if (!copy[i]) continue;
        if (ok) {
            struct reg_item *it = reg_at(i);
            size_t bytes = 0;
            persist_shared_owner(it->addr, &bytes);
            memcpy(copy[i], it->addr, bytes);
            it->addr = copy[i];
            it->owned = 1;
        } else {
            free(copy[i]);
        }
    }
    free(copy);
    if (ok) persist_release(x);
}

/* The world ends for this process: its prepared transfers and transfer
 * communicator go (collective over the world), unless the standby pool
 * keeps them. */
void drop_world_xfer(void)
{
    if (M.xfer == MPI_COMM_NULL) return;
    if (!(SB.active && M.xfer == SB.xfer)) {
        release_transfers(M.xfer);
        PMPI_Comm_free(&M.xfer);
    }
    M.xfer = MPI_COMM_NULL;
}

struct grave GRAVE;

void free_block(void *p)
{
    if (reg_is_tracked(p)) reg_untrack_free(p);
    else free(p);
}

void bury(void *p)
{
    GRAVE.p = grow(GRAVE.p, &GRAVE.cap, GRAVE.n + 1, sizeof *GRAVE.p);
    GRAVE.p[GRAVE.n++] = p;
}

void free_buried(void)
{
    for (int i = 0; i < GRAVE.n; i++) free_block(GRAVE.p[i]);
    GRAVE.n = 0;
}
