/* slurm_launch.h -- how a job under ductiled --slurm was started (its
 * registration's "launcher": mpiexec inside the allocation, or srun: direct
 * launch, docs/cluster.md) and what that allows ductiled to do with it. */
#ifndef DUCTILE_SLURM_LAUNCH_H
#define DUCTILE_SLURM_LAUNCH_H

#include <stddef.h>

#include <jansson.h>

struct slurm_launch {
    char launcher[16]; /* "mpiexec", "srun-pmi2", "srun-pmix", "srun" */
    int openmpi;       /* Open MPI's mpiexec: its daemons die when one of their hosts goes */
    int nojoin;        /* started by srun with an MPI that cannot take new processes there */
};

/* Read the registration `req` (validated by src/proto/schema.c) of job `job`
 * whose MPI family is `mpi`, into `l`; logs a direct launch. */
void slurm_launch_read(struct slurm_launch *l, int job, const char *mpi, const json_t *req, const char *slurm_job);

/* -1 with the reason when the job can take no new process (l->nojoin), else 0. */
int slurm_launch_refuse(const struct slurm_launch *l, int job, char *reason, size_t rlen);

#endif
