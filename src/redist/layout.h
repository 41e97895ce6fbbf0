/* layout.h -- the types every transfer method shares: the method numbers
 * and the old/new layout of one resize over a transfer communicator.  Below
 * both users (src/malleable/redist.c, persist.c and src/rma/xfer.c), so that
 * neither folder includes the other. */
#ifndef DUCTILE_REDIST_LAYOUT_H
#define DUCTILE_REDIST_LAYOUT_H

#include <mpi.h>
#include <stdint.h>

/* How one mover's part of a transfer went.  Every mover (an array's move in
 * src/malleable/redist.c and persist.c, src/rma/xfer.c, a data kind's in
 * src/data/) takes `ok`, 0 when this process already failed: its first
 * collective call is then a checkpoint (txn_all_ok, src/common/txnfault.h)
 * that tells every process whether all can move, before anything moves and
 * before any collective that needs what a process allocated.
 *   MOVE_OK       moved;
 *   MOVE_FAILED   failed on this process after the checkpoint (it still took
 *                 part in every collective; the others learn it at the next
 *                 checkpoint or the agreement);
 *   MOVE_STOPPED  every process knows that some process failed: nothing of
 *                 this item moved anywhere, and nobody moves anything more. */
enum { MOVE_OK = 0, MOVE_FAILED = -1, MOVE_STOPPED = -2 };

enum { REDIST_COL = 0, REDIST_P2P = 1, REDIST_RMA_LOCK = 2, REDIST_RMA_LOCKALL = 3, REDIST_RMA_FENCE = 4 };

struct redist_layout {
    MPI_Comm comm;           /* transfer communicator */
    int comm_size;
    int ns, nd;
    int my_old, my_new;      /* -1 when this process has no old / new rank */
    const int *old_to_comm;  /* [ns] */
    const int *new_to_comm;  /* [nd] */
};

/* One exchange of bytes with counts and displacements of its own (not a
 * block-distributed array's): a general data kind's part of a background
 * transfer (src/data: the column indices or values of a sparse matrix),
 * started by the engine like the arrays' (src/malleable/transfer.c).  Counts
 * and displacements in bytes, [comm_size] each, in the transfer
 * communicator's ranks; src is read and dst written until completion. */
#define BYTES_XFER_MAX 4 /* exchanges one item starts, at most */
struct bytes_xfer {
    const void *src;
    void *dst;
    const int64_t *sc, *sd, *rc, *rd;
};

#endif
