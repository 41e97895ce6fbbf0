/* pspawn.h -- parallel spawning (pspawn.c): with Open MPI 4.1, k running
 * processes each spawn a share of an expansion's new processes over
 * MPI_COMM_SELF, and the groups join pairwise (DUCTILE_SPAWN_PARALLEL). */
#ifndef DUCTILE_PSPAWN_H
#define DUCTILE_PSPAWN_H
#include "engine.h"

/* DUCTILE_SPAWN_PARALLEL=auto: parallel from this many new processes on
 * (bench/scale --spawn, Open MPI 4.1.4, one host: one spawn of 8 took
 * 2.2 s, parallel 0.65 s; of 4 0.58 s against 0.42 s, within the noise of
 * the joins). */
#define PSPAWN_AUTO_MIN 8
/* ... and from 4 running processes: with 2 parents the spawn is at most
 * halved and the joins cost more (a stranger's 2 -> 10: 0.89-0.97 s
 * parallel against 0.69-0.79 s one spawn, 3 of 3 runs; 4 -> 16 1.4-1.6x
 * faster, 8 -> 24 1.9-2.2x). */
#define PSPAWN_AUTO_MIN_PARENTS 4

/* One parent's part of a parallel spawn. */
struct pspawn {
    int k;          /* groups: min(running processes, new ones) */
    int share, off; /* this parent's share of the new processes, and the first one's number among them */
    MPI_Comm inter; /* this parent <-> its group (MPI_COMM_NULL: no share, or it did not start) */
};

/* Is this expansion's spawn parallel?  The same answer on every process. */
int pspawn_wanted(const struct decision *d, int nnew);
/* Every parent spawns its share at once; the outcome agreed (bounded): 1 on
 * every parent when every group started, else 0 (why: the reason). */
int pspawn_start(struct pspawn *ps, const char *cmd, char **args, int nnew, const char *hosts, double *spawn_s,
                 char *why, size_t len);
/* The spawn failed: every group that started is sent away by its parent
 * (spawn_cancel).  Rank 0 learns (bounded) how many ended and parked. */
void pspawn_cancel(struct pspawn *ps, const struct join_header *h, int *exited, int *parked);
/* All started: the header (rank 0's) and the registrations to every group,
 * the groups' readiness agreed, then the join: the merged communicator of
 * all (the parents first by rank, the new processes after them in order)
 * and *inter, the parents <-> the new processes.  MPI_COMM_NULL when a
 * group was not ready in time (it parks; why says so). */
MPI_Comm pspawn_connect(struct pspawn *ps, struct join_header *h, const struct reg_desc *ds, MPI_Comm *inter,
                        int *ok, char *why, size_t len);
/* The new processes' side (join.c), once the parents said go: the join
 * (*merged and *inter as on the parents' side).  An MPI error ends the job
 * (join_failed), as in the port's accept and connect. */
void pspawn_child_join(MPI_Comm parent, const struct join_header *h, MPI_Comm *inter, MPI_Comm *merged);
/* Send a spawned group away (the spawn failed after it started): it ends
 * now where departure_rollback_exits allows, else parks with the duty on
 * this process when root.  Collective over *inter.  1: they end now. */
int spawn_cancel(const struct join_header *h, MPI_Comm *inter, int root);

#endif
