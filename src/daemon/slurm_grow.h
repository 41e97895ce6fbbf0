/* slurm_grow.h -- growth of ductiled --slurm's job beyond its allocation
 * (ductiled --slurm-grow, docs/cluster.md): the cluster's other hosts are
 * known up front (state "outside"), and an expansion that does not fit asks
 * Slurm to add hosts and CPUs to the job (job expansion, slurm_run.c). */
#ifndef DUCTILE_SLURM_GROW_H
#define DUCTILE_SLURM_GROW_H

#include <stddef.h>

#include "core.h"
#include "rm.h"

/* Add every node sinfo lists that rm does not hold yet, as away = RM_OUTSIDE
 * with its CPUs (the host table never changes size afterwards: per-job
 * arrays stay valid).  0, or -1 with a message. */
int slurm_grow_hosts(struct rm *rm, char *err, size_t len);

/* Ask Slurm for the CPUs `need` more processes lack in rm and put what it
 * added into rm (outside or given-back hosts come up, hosts of the job get
 * more slots); shrunk[h] is cleared for each host that came (back) into the
 * allocation.  0: rm has room already (nothing asked); 1: asked, without
 * waiting: cont(arg, ok, reason) runs when Slurm has answered (ok 0: the
 * reason to refuse); -1: cannot ask now (one growth at a time), reason set. */
int slurm_grow_room(struct rm *rm, const char *jobid, int need, int *shrunk, core_room_fn cont, void *arg,
                    char *reason, size_t rlen);

/* Slurm has no accounting storage (scontrol show config): Slurm 22.05 then
 * refuses every update of a job after its first resize ("the DB index is
 * being set"), so a grown job cannot give hosts back.  1 / 0. */
int slurm_no_accounting(void);
/* The reason a resized job's node list cannot change again, into buf. */
void slurm_freeze(const char *jobid, char *buf, size_t len);

#endif
