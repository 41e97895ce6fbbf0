/* slurm_launch.h -- how a job under ductiled --slurm was started (its
 * registration's "launcher", kept in the job's picture: mpiexec inside the
 * allocation, or srun: direct launch, docs/cluster.md) and what that allows
 * ductiled to do with it.  Pure functions of the job, for the Slurm part. */
#ifndef DUCTILE_SLURM_LAUNCH_H
#define DUCTILE_SLURM_LAUNCH_H

#include <stddef.h>

#include "jobs.h"

/* started by srun (direct launch) */
int slurm_launch_direct(const struct job *j);
/* Open MPI's mpiexec runs the job: its daemons die when one of their hosts goes */
int slurm_launch_ompi_mpiexec(const struct job *j);
/* Log a direct launch at registration (slurm_job: the allocation's id). */
void slurm_launch_log(const struct job *j, const char *slurm_job);
/* -1 with the reason when the job can take no new process (Open MPI under srun), else 0. */
int slurm_launch_refuse(const struct job *j, char *reason, size_t rlen);

#endif
