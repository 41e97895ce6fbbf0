/* slurm_launch.c -- how a job under ductiled --slurm was started (mpiexec or
 * srun) and what that allows: an Open MPI job started by srun can take no
 * new process (Slurm's PMIx plug-in has neither spawn nor connect/accept);
 * docs/cluster.md, "Direct launch". */
#include "config.h"

#include "slurm_launch.h"

#include <stdio.h>
#include <string.h>

#include "core.h"

int slurm_launch_direct(const struct job *j) { return strncmp(j->launcher, "srun", 4) == 0; }

static int nojoin(const struct job *j) { return !strcmp(j->mpi, "openmpi") && slurm_launch_direct(j); }

int slurm_launch_ompi_mpiexec(const struct job *j) { return !strcmp(j->mpi, "openmpi") && !slurm_launch_direct(j); }

void slurm_launch_log(const struct job *j, const char *slurm_job)
{
    if (slurm_launch_direct(j))
        logmsg("job %d: started by %s (direct launch): new processes join as new steps of Slurm job %s%s", j->id,
               j->launcher, slurm_job, nojoin(j) ? " -- not with Open MPI, whose expansions are refused" : "");
}

int slurm_launch_refuse(const struct job *j, char *reason, size_t rlen)
{
    if (!nojoin(j)) return 0;
    snprintf(reason, rlen,
             "job %d is an Open MPI job started by srun (%s): Slurm's PMIx plug-in supports neither MPI_Comm_spawn "
             "nor MPI_Comm_connect/accept, so no process can join it; start it with mpiexec inside the allocation, "
             "where it can grow",
             j->id, j->launcher);
    return -1;
}
