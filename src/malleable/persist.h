/* persist.h -- persistent redistribution (DUCTILE_PERSISTENT=on; docs/rma.md,
 * "Persistent redistribution").
 *
 * A *prepared transfer* moves one block-distributed array from the layout of
 * ns ranks to the layout of nd ranks over one transfer communicator, split
 * into a one-time set-up and a per-use execution, as in the persistent
 * Alltoallv paper:
 *
 *   method       set-up (once)                         each use
 *   col          MPI_Alltoallv_init (MPIX_ in Open      MPI_Start + MPI_Wait
 *                MPI 4.1), counts kept alive; over
 *                2 GiB MPI_Alltoallv_init_c or
 *                (P)MPIX_Alltoallw_init (bigcoll.h)
 *   p2p          MPI_Send_init / MPI_Recv_init (one     MPI_Startall + MPI_Waitall + local copy
 *                per piece below 1 GiB)
 *   rma-fence    MPI_Win_create over the old block,     fence, MPI_Get..., fence
 *                the drain's read list
 *   rma-lock     same window and list                   lock (shared) per source, gets, unlocks, barrier
 *   rma-lockall  same window and list                   lock_all, gets, unlock_all, barrier
 *   (any rma-*   sources in shared blocks, see below:       barrier, memcpy from the sources' memory, barrier)
 *
 * Prepared transfers are kept per (communicator, ns, nd, slot) and reused
 * when the same pair comes back with the same buffers on every process of
 * the communicator (one MPI_Allreduce decides); otherwise they are prepared
 * again.  Not on the per-call path; not thread-safe. */
#ifndef DUCTILE_PERSIST_H
#define DUCTILE_PERSIST_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "redist.h"

/* How one persist_move went. */
struct persist_outcome {
    int reused;      /* 1: an existing prepared transfer was used */
    double setup_s;  /* seconds spent preparing (0 when reused) */
    uint64_t moved;  /* bytes sent (col, p2p) or read (rma-*) to/from other processes */
    int shared;      /* 1: direct copies from the sources' shared blocks */
};

/* Move nrows rows of rowbytes bytes from my old block (src, NULL if none) to
 * my new block (dst, NULL if none); src and dst must not overlap.  slot tells
 * the arrays of one resize apart (the registration index).  keep = 1: keep
 * the prepared transfer for a later move of the same shape; keep = 0: free
 * it after this move (the one-off form).  ok = 0: this process already
 * failed (it takes part in the checkpoint only).  Collective over L->comm,
 * called in the same order on every process.  Returns MOVE_OK, MOVE_FAILED
 * (with a message) or MOVE_STOPPED (src/redist/layout.h). */
int persist_move(const struct redist_layout *L, int method, int slot, int64_t nrows, size_t rowbytes, const void *src,
                 void *dst, int keep, int ok, struct persist_outcome *out, char *err, size_t errlen);

/* Free every prepared transfer and shared block over comm (collective over
 * comm, because of the windows).  Call before freeing comm, after moving
 * data that must survive out of comm's shared blocks. */
void persist_release(MPI_Comm comm);

/* Shared blocks (DUCTILE_RMA_MEMORY=shared).  My segment, of `bytes` bytes,
 * of the block (comm, nd, slot): the array `slot` laid out over nd
 * processes, every process's part in one MPI_Win_allocate_shared window
 * over comm.  The first call for a block is collective over comm (every
 * process, with its own size, 0 allowed) and creates it; later calls return
 * the same segment without communication.  Returns NULL with *applies = 0
 * when comm spans more than one node (the same answer on every process),
 * NULL with *applies = 1 and a message on failure.  A transfer whose
 * sources all hold their old block in a shared block (any rma-* method)
 * becomes direct copies from the sources' memory between two barriers. */
void *persist_shared_block(MPI_Comm comm, int nd, int slot, size_t bytes, int *applies, char *err, size_t errlen);
/* The communicator whose shared block holds p (my segment starts at p and
 * has *bytes bytes, when bytes is not NULL), or MPI_COMM_NULL. */
MPI_Comm persist_shared_owner(const void *p, size_t *bytes);

/* The method of a transfer prepared over comm for ns -> nd (any array), or
 * -1 when there is none.  Local. */
int persist_prepared_method(MPI_Comm comm, int ns, int nd);

/* Prepared transfers currently kept (all communicators). */
int persist_count(void);

/* 1 when this MPI has a persistent MPI_Alltoallv (MPI 4 or Open MPI's
 * MPIX_Alltoallv_init); without it col falls back to persistent p2p. */
int persist_have_alltoallv_init(void);

#endif
