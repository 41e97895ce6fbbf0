/* rankpick.h -- which ranks leave a shrink that should empty hosts (ductiled
 * --slurm, slurm.c): the host with the fewest of the job's processes first
 * (ties: the later host), never rank 0, within a host the highest ranks.
 * Pure C: O(P + H log H) time and O(P + H) memory for P ranks on H hosts
 * (a counting sort of the ranks by host and one sort of the hosts), counted
 * in `ops` and `bytes` so that tests/unit/test_rankpick.c checks the growth
 * at 65,536 ranks without timing anything. */
#ifndef DUCTILE_RANKPICK_H
#define DUCTILE_RANKPICK_H

#include <stddef.h>

struct rankpick_cost {
    unsigned long long ops; /* loop steps */
    size_t bytes;           /* memory allocated */
};

/* rank_host[0..procs): the host (0..nhosts-1) of each rank, -1 unknown (never
 * chosen).  Writes the n leaving ranks to leave[] (in the order chosen) and
 * returns n; 0 when n ranks cannot be found (or n < 1, n >= procs); -1 out
 * of memory.  cost may be NULL. */
int rankpick_empty_hosts(const int *rank_host, int procs, int nhosts, int n, int *leave, struct rankpick_cost *cost);

#endif
