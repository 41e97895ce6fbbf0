/* launch_step.c -- expansions of a directly launched job: under srun,
 * MPI_Comm_spawn fails (Open MPI: Slurm's PMIx has no spawn) or hangs
 * (MPICH, --mpi=pmi2), so the new processes start as a new step of the
 * Slurm job (src/cluster/step.c: srun forked by rank 0, with the preload and
 * the marker) and join through MPI_Comm_connect / MPI_Comm_accept on a port
 * rank 0 opened (MPICH's port names carry its network addresses: no
 * runtime server needed).  The result is what a collective spawn gives
 * (an intercommunicator to the new processes on every parent), so the rest
 * of the expansion (header, merge, transaction: spawn.c, join.c) is the
 * same.  The join is a transaction: a step that cannot start or a process
 * that never reports ready fails the expansion before any parent calls
 * MPI_Comm_accept, and the job goes on at its old size.  Its waits are the
 * resize's (DUCTILE_RESIZE_TIMEOUT, T): rank 0 waits at most T for the step
 * to report ready, the other parents at most 2 T for rank 0's word (the
 * same decision on every parent, as spawn.c's rank-0 spawn).  Open MPI under srun --mpi=pmix is refused with the cause:
 * Slurm's PMIx plug-in supports neither spawn nor connect/accept. */
#include "engine.h"
#include "launch_step.h"
#include "../cluster/step.h"

#include <sys/wait.h>

/* the steps this process started (srun pids; -1 once ended) */
static pid_t *steps;
static int nsteps, capsteps;
static pid_t newest = -1; /* the step of the newest expansion */

int launch_step_direct(void) { return ductile_launcher() != LAUNCH_MPIEXEC; }

int launch_step_refused(char *why, size_t len)
{
    int l = ductile_launcher();
    if (l == LAUNCH_MPIEXEC) return 0;
#if defined(OMPI_MAJOR_VERSION)
    snprintf(why, len, "this Open MPI job was started by srun (%s): Slurm's PMIx plug-in supports neither "
             "MPI_Comm_spawn nor MPI_Comm_connect/accept (\"Underlying runtime environment does not support "
             "accept/connect functionality\"), so no process can join it; start it with mpiexec inside the "
             "allocation, where it can grow", ductile_launcher_tag(l));
    return -1;
#elif !SPAWN_COLLECTIVE
    snprintf(why, len, "new processes of a job started by srun join by connect/accept, which this build's "
             "expansion path does not use; start the job with mpiexec inside the allocation");
    return -1;
#else
    (void)why;
    (void)len;
    return 0;
#endif
}

static void wait_steps(void);

static void remember(pid_t pid)
{
    static int registered;
    if (!registered) registered = atexit(wait_steps) == 0;
    for (int i = 0; i < nsteps; i++) /* reuse the slot of a step that ended */
        if (steps[i] < 0 || step_reap(steps[i], 0) == 0) {
            steps[i] = pid;
            newest = pid;
            return;
        }
    steps = grow(steps, &capsteps, nsteps + 1, sizeof *steps);
    steps[nsteps++] = pid;
    newest = pid;
}

/* rank 0: port, listener, srun, ready.  1 when the new processes are ready. */
static int start_step(char *port, const char *cmd, char **args, int nnew, const char *hosts, char *why, size_t len)
{
    struct step_run s = {.pid = -1, .lfd = -1};
    /* MPI_Open_port belongs to no communicator: its error goes to the handler of MPI_COMM_SELF
     * (MPI-4) or MPI_COMM_WORLD (MPICH 4.0), fatal by default, and an MPI without dynamic
     * processes fails here (Debian's MPICH 4.0, ch4:ucx: "not supported with ucx netmod"): the
     * resize must fail, not the job.  The application's handlers are put back at once. */
    MPI_Errhandler eh_self = MPI_ERRHANDLER_NULL, eh_world = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(MPI_COMM_SELF, &eh_self);
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh_world);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = PMPI_Open_port(MPI_INFO_NULL, port);
    if (eh_self != MPI_ERRHANDLER_NULL) {
        PMPI_Comm_set_errhandler(MPI_COMM_SELF, eh_self);
        PMPI_Errhandler_free(&eh_self);
    }
    if (eh_world != MPI_ERRHANDLER_NULL) {
        PMPI_Comm_set_errhandler(MPI_COMM_WORLD, eh_world);
        PMPI_Errhandler_free(&eh_world);
    }
    if (rc != MPI_SUCCESS) {
        char m[300];
        ductile_mpi_error_text(rc, m, sizeof m);
        snprintf(why, len, "MPI_Open_port failed: %.200s", m);
        port[0] = '\0';
        return 0;
    }
    char marker[128];
    ductile_spawn_marker(marker, sizeof marker);
    struct step_spec sp = {.cmd = cmd, .args = args, .n = nnew, .hosts = hosts, .port = port,
                           .preload = getenv("LD_PRELOAD"), .helper = ductile_spawn_env_program(), .marker = marker,
                           .fail = test_fail("step")};
    if (step_listen(&s, why, len) != 0 || step_start(&s, &sp, why, len) != 0) {
        step_unlisten(&s);
        return 0;
    }
    const char *job = getenv("SLURM_JOB_ID");
    ductile_log(1, "starting %d process%s of %s as a new step of Slurm job %s (srun --mpi=%s%s)", nnew,
                nnew == 1 ? "" : "es", cmd, job ? job : "?", getenv("SLURM_MPI_TYPE") ? getenv("SLURM_MPI_TYPE") : "?",
                sp.fail ? ", made to fail: DUCTILE_TEST_FAIL=step" : "");
    if (step_wait_ready(&s, nnew, resize_timeout(), why, len) != 0) {
        step_stop(&s); /* its processes never joined: they end with it */
        step_unlisten(&s);
        return 0;
    }
    step_unlisten(&s);
    remember(s.pid);
    return 1;
}

int launch_step_group(const char *cmd, char **args, int nnew, const char *hosts, MPI_Comm *inter, double *spawn_s,
                      char *why, size_t len)
{
    MPI_Comm P = ductile_rt.private_comm;
    int me = ductile_rt.rank, ok = 1;
    char port[MPI_MAX_PORT_NAME] = "";
    *inter = MPI_COMM_NULL;
    double ts = ductile_now();
    if (me == 0) ok = start_step(port, cmd, args, nnew, hosts, why, len);
    /* the other parents wait asleep while rank 0 starts the step, bounded: rank 0 waits at most T
     * for the step (start_step), the others give up at 2 T -- by then rank 0 gave up too */
    double T = resize_timeout();
    int *b = malloc(sizeof *b), got = -1;
    MPI_Request rq = MPI_REQUEST_NULL;
    if (b) {
        *b = ok;
        got = PMPI_Ibcast(b, 1, MPI_INT, 0, P, &rq) == MPI_SUCCESS ? wait_for(&rq, me == 0 ? T : 2 * T) : -1;
        if (got == 1) ok = *b;
        settle(b, &rq, &P, 1); /* rank 0's word arriving later: b kept until then */
    }
    if (got != 1) {
        ok = 0;
        if (me != 0) snprintf(why, len, "rank %d: no word of rank 0's new step within %.0f s (DUCTILE_RESIZE_TIMEOUT)", me, 2 * T);
    }
    if (ok) {
        /* every new process reported ready: they are connecting (root 0 of both sides) */
        int rc = PMPI_Comm_accept(port, MPI_INFO_NULL, 0, P, inter);
        if (rc != MPI_SUCCESS) join_failed("MPI_Comm_accept", rc);
        PMPI_Comm_set_errhandler(*inter, MPI_ERRORS_RETURN);
    }
    if (me == 0 && port[0]) PMPI_Close_port(port);
    *spawn_s = ductile_now() - ts;
    if (ok && me == 0 && test_fail("spawn")) {
        /* injected after the join: the new processes run and are sent away (spawn.c, spawn_cancel) */
        ok = 0;
        snprintf(why, len, "the new step's processes were refused (injected: DUCTILE_TEST_FAIL=spawn, after they joined)");
    }
    int v = ok;
    PMPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, P);
    if (!v && !why[0]) snprintf(why, len, "starting %d process%s as a new step failed on rank 0", nnew, nnew == 1 ? "" : "es");
    return v;
}

int launch_step_join(MPI_Comm *parent)
{
#if SPAWN_COLLECTIVE
    char port[MPI_MAX_PORT_NAME], ready[320], why[300] = "";
    if (!step_join_info(port, sizeof port, ready, sizeof ready)) return 0;
    int me = 0, n = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &n);
    if (me == n - 1 && test_fail("connect")) {
        /* for tests: a process that never gets as far as connecting (hung in its start-up): the
         * parents' rank 0 gives up after DUCTILE_RESIZE_TIMEOUT and ends the step, which ends this */
        ductile_log(1, "never connecting (injected: DUCTILE_TEST_FAIL=connect)");
        struct timespec nap = {600, 0};
        nanosleep(&nap, NULL);
        _exit(3);
    }
    PMPI_Barrier(MPI_COMM_WORLD); /* every process of the step is in MPI */
    int ok = me != 0 || step_send_ready(ready, n, why, sizeof why) == 0;
    PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        /* the parents cannot be told: they end the step when their time is up; leave now */
        if (me == 0) fprintf(stderr, "ductile: error: a new process of the job: %s; leaving\n", why);
        PMPI_Finalize();
        exit(3);
    }
    int rc = PMPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, parent);
    if (rc != MPI_SUCCESS) join_failed("MPI_Comm_connect", rc);
    return 1;
#else
    (void)parent;
    return 0;
#endif
}

void launch_step_group_left(void)
{
    if (newest <= 0) return;
    double t0 = ductile_now();
    if (step_reap(newest, 10.0) != 0)
        fprintf(stderr, "ductile: warning: the step of the processes that left (srun pid %ld) has not ended after 10 s\n",
                (long)newest);
    else
        ductile_log(1, "the step of the processes that left ended (%.3f s after they disconnected)", ductile_now() - t0);
    for (int i = 0; i < nsteps; i++)
        if (steps[i] == newest) steps[i] = -1;
    newest = -1;
}

/* At this process's exit (after its MPI_Finalize, when the new processes
 * finalize too): a step still running is waited for (bounded), so that
 * Slurm does not end it with the step of this process. */
static void wait_steps(void)
{
    for (int i = 0; i < nsteps; i++) {
        if (steps[i] > 0 && step_reap(steps[i], 30.0) != 0) {
            fprintf(stderr, "ductile: warning: a step this process started (srun pid %ld) has not ended 30 s after "
                            "its MPI_Finalize; ending it\n", (long)steps[i]);
            struct step_run s = {.pid = steps[i], .lfd = -1};
            step_stop(&s);
        }
        steps[i] = -1;
    }
    newest = -1;
}
