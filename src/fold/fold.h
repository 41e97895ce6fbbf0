/* fold.h -- process folding, the in-process part (docs/folding.md): a job
 * gives cores back and takes them again without changing its process count.
 * The controller thread (rank 0) queues a command with ductile_fold_request;
 * at the next safe point rank 0 sends it to every rank over Ductile's private
 * communicator, and each rank pins all its threads to its host's folded core
 * set (or back to its own affinity from MPI_Init). */
#ifndef DUCTILE_FOLD_H
#define DUCTILE_FOLD_H

#include <stddef.h>

/* In MPI_Init, right after Ductile's private communicator exists and before
 * a spawned process joins its parents (collective over it): host grouping
 * (MPI_Comm_split_type SHARED), the host's cores, the receive for commands
 * and the poller thread.  Does nothing unless `wanted` (a controller runs). */
void ductile_fold_init(int wanted);
/* In MPI_Finalize, before Ductile's worlds end: original affinity back,
 * poller stopped, requests completed or cancelled. */
void ductile_fold_finalize(void);

/* Controller thread (rank 0): fold the job to `cores` cores per host (0:
 * unfold).  No MPI call.  0, or -1 and a reason. */
int ductile_fold_request(int cores, char *err, size_t len);

/* What the job knows of its fold (any thread): cores per host now applied
 * (0: not folded), the command's number and the job's number of hosts and
 * rank 0's host's ranks. */
struct ductile_fold_info {
    int ready, cores, hosts, host_ranks, host_cpus;
    unsigned applied_gen, requested_gen;
};
void ductile_fold_get_info(struct ductile_fold_info *out);

#endif
