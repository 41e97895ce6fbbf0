/* departure.c -- MPI_Finalize for the engine: removed processes park
 * (asleep, bounded) until the process responsible for them releases them;
 * the responsible processes release theirs, disconnect the parent/child
 * intercommunicators and free what the engine kept.
 *
 * Processes released on shrink (issue 10, item 6).  MPI_Finalize is
 * collective over all connected processes (MPI 4.1, 11.10.4); processes are
 * independent once every communicator between them is freed or
 * disconnected.  So a spawned group whose every process leaves, in the world
 * it joined (no resize since), disconnects: both sides free the world's
 * communicators and MPI_Comm_disconnect the two intercommunicators of its
 * spawn (all parents <-> group, parents' rank 0 <-> group); the group's
 * processes then end at MPI_Finalize at once, giving back their cores and
 * memory.  (Open MPI 4.1.4 hangs in MPI_Comm_disconnect of an
 * intracommunicator spanning two jobs: intracommunicators are freed, only
 * the intercommunicators disconnected.)  The processes mpiexec started
 * cannot: MPI_COMM_WORLD cannot be disconnected, so their MPI_Finalize waits
 * for the whole job; they park asleep (30 ms naps between MPI_Iprobe), as do
 * spawned processes whose group does not leave whole.  Not under
 * MPI_THREAD_MULTIPLE (old worlds are freed only at MPI_Finalize there) nor
 * with DUCTILE_PERSISTENT (standby).  DUCTILE_DEPARTURE=auto (default) exits
 * with MPICH and parks with Open MPI 4, whose runtime hung in PMIx_Lookup /
 * PMIx_Init at a later spawn after spawned jobs had ended (2 runs of 20+
 * spawn-and-exit cycles, at cycles 8 and 22); exit / park force one.  A communicator the program itself
 * derived from the world keeps the group connected: then the group's
 * MPI_Finalize waits like a parked process. */
#include "engine.h"
#include "launch_step.h"

int departing_exit;
MPI_Comm departure_inter0_pending = MPI_COMM_NULL;

void departure_group_joined(int valid, int ns, int nnew, MPI_Comm inter, MPI_Comm inter0)
{
    M.g_valid = valid;
    M.g_ns = ns;
    M.g_nnew = nnew;
    M.g_inter = inter;
    M.g_inter0 = inter0;
    departure_inter0_pending = MPI_COMM_NULL;
}

void departure_group_forget(void)
{
    M.g_valid = 0;
    departure_inter0_pending = MPI_COMM_NULL;
}

/* Do the leaving processes make up exactly the newest spawned group, in the
 * world it joined?  The same answer on every process (from shared state);
 * forgets the group (any resize changes the world). */
static int exit_allowed(void)
{
    const char *v = getenv("DUCTILE_DEPARTURE"); /* validated by src/common/settings.c */
    if (v && !strcmp(v, "exit")) return 1;
    if (v && !strcmp(v, "park")) return 0;
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
    return 0; /* Open MPI 4.1.4: later spawns hung in PMIx (2 of 2 runs of 20+ spawn-and-exit cycles) */
#else
    return 1;
#endif
}

int departure_group_exits(int ns, const char *leaving, int merge_method, int standby)
{
    int ok = leaving && exit_allowed() && !standby && M.g_valid && merge_method && ns == M.g_ns + M.g_nnew &&
             ductile_rt.thread_level != MPI_THREAD_MULTIPLE; /* no list: this process failed, the shrink rolls back */
    for (int r = 0; r < ns && ok; r++)
        if (!!leaving[r] != (r >= M.g_ns)) ok = 0;
    M.g_valid = 0;
    return ok;
}

static void drop_inter(MPI_Comm *c)
{
    if (*c == MPI_COMM_NULL) return;
    for (int i = 0; i < M.ninters; i++)
        if (M.inters[i] == *c) M.inters[i] = MPI_COMM_NULL;
    PMPI_Comm_disconnect(c);
    *c = MPI_COMM_NULL;
}

void departure_disconnect(MPI_Comm *inter, MPI_Comm *inter0)
{
    drop_inter(inter);
    drop_inter(inter0);
}

/* Collective over the group and the rest (after both freed the old world). */
void departure_group_disconnect(void)
{
    departure_disconnect(&M.g_inter, &M.g_inter0);
    launch_step_group_left(); /* direct launch: the group's step ends before the resize is reported */
}

/* The new processes of an expansion that does not happen (rolled back or
 * cancelled, nothing in flight): do they disconnect and end at once instead
 * of parking?  The same rule as a spawned group that leaves in a shrink
 * (exit_allowed: MPICH and Open MPI 5 yes, Open MPI 4 no, DUCTILE_DEPARTURE
 * forces), but also under MPI_THREAD_MULTIPLE (nothing of theirs ever was
 * the parents' world, and they free their own retired worlds before
 * disconnecting); not with DUCTILE_PERSISTENT (prepared transfers may name
 * the merged communicator).  Both sides decide alike, from the settings. */
int departure_rollback_exits(int persistent)
{
    return exit_allowed() && !persistent;
}

int ductile_malleable_finalize_begin(void)
{
    if (!M.ready) return 0;
    if (M.join_pending) {
        /* a spawned process that never called EMPI_Get_shared: the parents wait for it */
        fprintf(stderr, "ductile: warning: rank %d was spawned with registered data but never called "
                        "EMPI_Get_shared; receiving it now\n", ductile_rt.rank);
        ductile_malleable_get_shared(NULL);
    }
    if (PEND.active) pending_cancel("the program ended (MPI_Finalize) before the background transfer completed");
    if (!M.removed && ductile_rt.rank == 0) unrun_requests_note();
    /* standby processes still waiting: they become removed processes (collective over the kept world) */
    if (!M.removed && SB.active && ductile_world != SB.world) pool_release();
    if (!M.removed) return 0;
    if (M.park_comm != MPI_COMM_NULL) {
        double deadline = ductile_now() + (double)ductile_rt.settings.leave_timeout;
        struct timespec nap = {0, 30 * 1000 * 1000};
        for (;;) {
            int flag = 0;
            MPI_Status st;
            if (PMPI_Iprobe(M.park_releaser, TAG_RELEASE, M.park_comm, &flag, &st) != MPI_SUCCESS) break;
            if (flag) {
                int one;
                PMPI_Recv(&one, 1, MPI_INT, M.park_releaser, TAG_RELEASE, M.park_comm, MPI_STATUS_IGNORE);
                break;
            }
            if (ductile_now() > deadline) {
                fprintf(stderr, "ductile: warning: removed process (pid %ld) waited %ld s for the job's end; "
                                "finalizing anyway\n", (long)getpid(), ductile_rt.settings.leave_timeout);
                break;
            }
            nanosleep(&nap, NULL);
        }
    }
    return 1;
}

void ductile_malleable_finalize_end(void)
{
    if (!M.ready) return;
    late_finish(); /* requests of timed-out waits (agree.c) */
    /* release the removed processes this one is responsible for (bounded waits) */
    for (int i = 0; i < M.nduties; i++) {
        struct duty *d = &M.duties[i];
        MPI_Request *reqs = calloc((size_t)(d->n ? d->n : 1), sizeof *reqs);
        static int one = 1;
        int k = 0;
        for (int j = 0; j < d->n && reqs; j++)
            if (PMPI_Isend(&one, 1, MPI_INT, d->ranks[j], TAG_RELEASE, d->comm, &reqs[k]) == MPI_SUCCESS) k++;
        double deadline = ductile_now() + 30.0;
        struct timespec nap = {0, 5 * 1000 * 1000};
        int done = 0;
        while (reqs && k && !done) {
            if (PMPI_Testall(k, reqs, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS) break;
            if (!done) {
                if (ductile_now() > deadline) {
                    fprintf(stderr, "ductile: warning: could not release %d removed process%s\n", d->n,
                            d->n == 1 ? "" : "es");
                    break;
                }
                nanosleep(&nap, NULL);
            }
        }
        free(reqs);
    }
    for (int i = 0; i < M.nduties; i++) {
        int inter = 0; /* an intercommunicator of M.inters (the new processes that never connected): disconnected below */
        for (int j = 0; j < M.ninters; j++) inter |= M.inters[j] == M.duties[i].comm;
        if (M.duties[i].comm != MPI_COMM_NULL && !inter) PMPI_Comm_free(&M.duties[i].comm);
        free(M.duties[i].ranks);
    }
    M.nduties = 0;
    int park_inter = 0;
    if (M.park_comm != MPI_COMM_NULL) PMPI_Comm_test_inter(M.park_comm, &park_inter);
    if (park_inter) PMPI_Comm_disconnect(&M.park_comm); /* a new process parked on its parent (join.c) */
    else if (M.park_comm != MPI_COMM_NULL) PMPI_Comm_free(&M.park_comm);
    for (int i = 0; i < M.nkeep; i++)
        if (M.keep[i] != MPI_COMM_NULL) PMPI_Comm_free(&M.keep[i]);
    M.nkeep = 0;
    for (int i = 0; i < M.ninters; i++)
        if (M.inters[i] != MPI_COMM_NULL) PMPI_Comm_disconnect(&M.inters[i]);
    M.ninters = 0;
    if (M.self != MPI_COMM_NULL) PMPI_Comm_free(&M.self);
    if (!M.removed) {
        SB.active = 0; /* a kept world that is the current one: plain world communicators */
        drop_world_xfer(); /* prepared transfers (collective over the world) */
        rma_win_finalize(); /* the world's one-sided window (collective over the world) */
    }
    free_buried();
    block_cache_drop();
    free(GRAVE.p);
    GRAVE.p = NULL;
    GRAVE.cap = 0;
    reg_clear();
    M.ready = 0;
}
