/* launch_step.h -- expansions of a directly launched job (srun, not
 * mpiexec): the new processes start as a new step of the Slurm job and join
 * by MPI_Comm_connect / MPI_Comm_accept on a port the parents opened
 * (src/cluster/step.c starts the step; launch_step.c is the MPI side).
 * Internal to the resize engine; docs/cluster.md, "Direct launch". */
#ifndef DUCTILE_LAUNCH_STEP_H
#define DUCTILE_LAUNCH_STEP_H

#include <stddef.h>

#include <mpi.h>

/* 1 when srun started this job (the same answer on every process). */
int launch_step_direct(void);
/* rank 0, before anything starts: 0, or -1 with the reason when this MPI
 * cannot take new processes under this launcher (and the launcher that can). */
int launch_step_refused(char *why, size_t len);
/* The parents' side, in place of MPI_Comm_spawn (collective over the
 * private communicator): rank 0 opens a port, starts the step and waits,
 * bounded, until the new processes are ready; then all parents accept.
 * Returns 1 on every parent when they joined (*inter: the intercommunicator
 * to them on every parent), else 0 with why (rank 0). */
int launch_step_group(const char *cmd, char **args, int nnew, const char *hosts, MPI_Comm *inter, double *spawn_s,
                      char *why, size_t len);
/* The new processes' side, in MPI_Init: 1 and *parent when this process was
 * started by launch_step_group (it connected to the parents), else 0. */
int launch_step_join(MPI_Comm *parent);
/* The newest joined group left and disconnected (a shrink): on the rank
 * that started its step, wait (bounded) until that step has ended, so that
 * its hosts are free before the resize is reported.  (Every step this
 * process started is waited for, bounded, when it exits.) */
void launch_step_group_left(void);

#endif
