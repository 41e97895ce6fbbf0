/* step.h -- direct launch (a job started by srun, not by mpiexec): which
 * launcher started this process, and how new processes are started as a new
 * step of the same Slurm job and tell the job they are ready to connect.
 * No MPI here: the resize engine (src/malleable/launch_step.c) opens the MPI
 * port, accepts and merges.  docs/cluster.md, "Direct launch". */
#ifndef DUCTILE_CLUSTER_STEP_H
#define DUCTILE_CLUSTER_STEP_H

#include <stddef.h>
#include <sys/types.h>

enum { LAUNCH_MPIEXEC = 0, LAUNCH_SRUN_PMI2, LAUNCH_SRUN_PMIX, LAUNCH_SRUN_OTHER };

/* Which launcher started this process, from its environment (cached): srun
 * sets SLURM_MPI_TYPE in the tasks it starts with --mpi (with pmi2 also
 * PMI_JOBID "J.S"; with pmix a namespace "slurm.pmix.J.S"); mpiexec (hydra,
 * Open MPI's orted) sets neither, even when its daemons are srun steps. */
int ductile_launcher(void);
/* "mpiexec", "srun-pmi2", "srun-pmix", "srun" (the registration's "launcher") */
const char *ductile_launcher_tag(int launcher);

/* A step being started by the parents' rank 0. */
struct step_run {
    pid_t pid;          /* srun, or -1 */
    int lfd;            /* listening socket for the ready message, or -1 */
    char ready[320];    /* HOST:PORT:TOKEN the new processes answer to */
    char token[40];
};

/* What to start: n processes of cmd (args NULL-terminated, without argv[0]);
 * hosts "h1;h2,..." (one per process, repeated round-robin; NULL or empty:
 * Slurm places them); port: the MPI port name the new processes connect to;
 * preload: LD_PRELOAD for them (NULL: none); helper: a NAME=VALUE runner
 * (ductile-spawn-env or env) so srun itself runs without the preload; marker:
 * NAME=VALUE put into their environment; fail: test only
 * (DUCTILE_TEST_FAIL=step), a node list naming no node (srun cannot start
 * the step). */
struct step_spec {
    const char *cmd;
    char **args;
    int n;
    const char *hosts, *port, *preload, *helper, *marker;
    int fail;
};

/* Listen on an ephemeral TCP port of this host (s->ready filled, token
 * random).  0, or -1 with why. */
int step_listen(struct step_run *s, char *why, size_t len);
/* fork/exec srun --overlap --mpi=TYPE ... for sp.  0, or -1 with why. */
int step_start(struct step_run *s, const struct step_spec *sp, char *why, size_t len);
/* Wait (bounded by timeout seconds) until the new processes' rank 0 says
 * all n are ready.  0; or -1 with why: the step ended first (srun's exit
 * status), or the time ran out. */
int step_wait_ready(struct step_run *s, int n, double timeout, char *why, size_t len);
/* End the step (SIGTERM to srun, which ends its tasks; SIGKILL after 5 s). */
void step_stop(struct step_run *s);
/* Close the listening socket. */
void step_unlisten(struct step_run *s);
/* Wait (bounded) until srun pid exited; reaps it.  0 done, -1 still running. */
int step_reap(pid_t pid, double timeout);

/* The new processes' side: the port and the ready address from the
 * environment (then removed from it).  1 when this process was started by
 * step_start, else 0. */
int step_join_info(char *port, size_t plen, char *ready, size_t rlen);
/* Tell the parents' rank 0 that n processes are ready (bounded).  0 or -1 with why. */
int step_send_ready(const char *ready, int n, char *why, size_t len);

#endif
