/* slurm_launch.c -- how a job under ductiled --slurm was started (mpiexec or
 * srun) and what that allows: an Open MPI job started by srun can take no
 * new process (Slurm's PMIx plug-in has neither spawn nor connect/accept);
 * docs/cluster.md, "Direct launch". */
#include "config.h"

#include "slurm_launch.h"

#include <stdio.h>
#include <string.h>

#include "daemon.h"

void slurm_launch_read(struct slurm_launch *l, int job, const char *mpi, const json_t *req, const char *slurm_job)
{
    const char *la = json_string_value(json_object_get(req, "launcher"));
    snprintf(l->launcher, sizeof l->launcher, "%s", la ? la : "mpiexec");
    int srun = strncmp(l->launcher, "srun", 4) == 0, ompi = !strcmp(mpi, "openmpi");
    l->openmpi = ompi && !srun;
    l->nojoin = ompi && srun;
    if (srun)
        logmsg("job %d: started by %s (direct launch): new processes join as new steps of Slurm job %s%s", job,
               l->launcher, slurm_job, l->nojoin ? " -- not with Open MPI, whose expansions are refused" : "");
}

int slurm_launch_refuse(const struct slurm_launch *l, int job, char *reason, size_t rlen)
{
    if (!l->nojoin) return 0;
    snprintf(reason, rlen,
             "job %d is an Open MPI job started by srun (%s): Slurm's PMIx plug-in supports neither MPI_Comm_spawn "
             "nor MPI_Comm_connect/accept, so no process can join it; start it with mpiexec inside the allocation, "
             "where it can grow",
             job, l->launcher);
    return -1;
}
