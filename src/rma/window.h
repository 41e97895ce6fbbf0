/* window.h -- the reusable one-sided window of the rma-* redistribution
 * methods (docs/rma.md).  One dynamic window (MPI_Win_create_dynamic) per
 * world: created collectively at its first use over a transfer communicator,
 * reused by every later redistribution whose transfer communicator has the
 * same group (identical ranks), with the registered arrays attached
 * (MPI_Win_attach) only while they move.  When the world changes the window
 * is retired and freed collectively at a point all its members reach (end of
 * the transfer, or the completion of a background transfer).
 * Not on the per-call path; not thread-safe (one user at a time). */
#ifndef DUCTILE_RMA_WINDOW_H
#define DUCTILE_RMA_WINDOW_H

#include <mpi.h>
#include <stddef.h>

struct rma_win {
    MPI_Win win;
    MPI_Group group;   /* the group of the communicator it was created over */
    MPI_Comm comm;     /* duplicate: address exchanges and completion barriers */
    int busy;          /* background transfers still using it */
    int retired;       /* the world changed: free when no longer busy */
    int uses;          /* redistributions that used it (1 = just created) */
};

/* The window for a transfer over `comm` (collective over comm).  Reuses the
 * cached world window when its group is identical to comm's, else frees the
 * cached one (if idle: collective over its group, whose members all call
 * this at the same point) and creates a new one.  *setup_s gets the seconds
 * spent creating (0 when reused).  Returns NULL on failure: on every
 * process when one could not allocate (a message on that one), or with the
 * MPI's message. */
struct rma_win *rma_win_get(MPI_Comm comm, double *setup_s, char *err, size_t errlen);

/* After a transfer over the window: keep = 1 when the new world has the same
 * group (Merge expansion), 0 otherwise (shrink, Baseline): then the window is
 * retired and freed now if idle (collective over its group). */
void rma_win_transfer_done(int keep);

/* A background transfer takes / gives back the window; giving back the last
 * use of a retired window frees it (collective over its group). */
void rma_win_hold(struct rma_win *w);
void rma_win_unhold(struct rma_win *w);

/* 1 when a window usable over `comm` exists (no set-up needed).  Local. */
int rma_win_ready_for(MPI_Comm comm);

/* Seconds spent creating windows so far in this process (all of them). */
double rma_win_total_setup(void);

/* A background transfer abandoned with operations that may still be pending
 * (a failure that was not agreed quiet everywhere: docs/malleability.md,
 * "Failures"): its window leaves the cache without MPI_Win_free, which would
 * wait for processes that never free it; it stays allocated until the
 * process ends.  A later transfer creates (and caches) a new window.  w
 * NULL: the cached window, whichever it is.  Local. */
void rma_win_abandon(struct rma_win *w);

/* Free the cached window at MPI_Finalize (collective over its group). */
void rma_win_finalize(void);

#endif
