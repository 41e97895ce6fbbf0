/* redist.h -- moving one block-distributed array from the old layout (ns
 * ranks) to the new one (nd ranks) over a transfer communicator that holds
 * every old and new rank: COL (one MPI_Alltoallv, the large-count variant
 * where the MPI has it) or P2P (MPI_Isend/MPI_Irecv, local memcpy for the
 * overlap of a rank's old and new block), RMA-Lock / RMA-Lockall
 * (src/rma/xfer.c), all blocking; and a nonblocking
 * MPI_Ialltoallv started now and completed later.  The plan comes from
 * src/redist/plan.c.  Blocks of any size: the collectives go through
 * src/redist/bigcoll.c, messages and reads are cut below 1 GiB. */
#ifndef DUCTILE_REDIST_H
#define DUCTILE_REDIST_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "../redist/layout.h" /* REDIST_* methods, struct redist_layout */

/* rma-* methods (src/rma/xfer.c): 1 = MPI_Win_create per array and resize
 * (DUCTILE_RMA_WINDOW=create), 0 = the reusable per-world window. */
extern int redist_rma_create;
/* Window set-up seconds spent by redist_move since the last call (rma-*). */
double redist_take_setup_s(void);

/* A started nonblocking transfer (REDIST NB); complete with redist_wait(). */
struct redist_pending;

/* Move nrows rows of rowbytes bytes each: src holds my old block (NULL if
 * none), dst receives my new block (NULL if none).  src == dst is allowed
 * when my old and new blocks are the same rows.  ok = 0: this process has
 * already failed (it takes part in the checkpoint only).  *moved gets the
 * bytes this process sent to other processes.  Returns MOVE_OK,
 * MOVE_FAILED (with a message) or MOVE_STOPPED (src/redist/layout.h). */
int redist_move(const struct redist_layout *L, int method, int64_t nrows, size_t rowbytes, const void *src,
                void *dst, int ok, uint64_t *moved, char *err, size_t errlen);

/* Start the same move as a nonblocking MPI_Ialltoallv (collective: every
 * process of L->comm calls it in the same order); the same returns. */
int redist_start(const struct redist_layout *L, int64_t nrows, size_t rowbytes, const void *src, void *dst, int ok,
                 struct redist_pending **out, uint64_t *moved, char *err, size_t errlen);
/* Start an exchange of bytes with counts of its own (struct bytes_xfer,
 * src/redist/layout.h) as a nonblocking collective over comm in the form
 * `kind` every process agreed on (src/redist/bigcoll.h); its checkpoint
 * first (collective: every process of comm, in the same order; ok = 0:
 * this process cannot take part, every process stops).  The same returns
 * as redist_start. */
int redist_start_bytes(MPI_Comm comm, int kind, const struct bytes_xfer *xf, int ok, struct redist_pending **out,
                       char *err, size_t errlen);
/* Local progress: *done = 1 once complete (p is then freed, also when the
 * result is -1: an injected failure).  0, or -1 on an MPI error. */
int redist_test(struct redist_pending *p, int *done);
int redist_wait(struct redist_pending *p);

#endif
