/* layout.h -- the types every transfer method shares: the method numbers
 * and the old/new layout of one resize over a transfer communicator.  Below
 * both users (src/malleable/redist.c, persist.c and src/rma/xfer.c), so that
 * neither folder includes the other. */
#ifndef DUCTILE_REDIST_LAYOUT_H
#define DUCTILE_REDIST_LAYOUT_H

#include <mpi.h>

enum { REDIST_COL = 0, REDIST_P2P = 1, REDIST_RMA_LOCK = 2, REDIST_RMA_LOCKALL = 3, REDIST_RMA_FENCE = 4 };

struct redist_layout {
    MPI_Comm comm;           /* transfer communicator */
    int comm_size;
    int ns, nd;
    int my_old, my_new;      /* -1 when this process has no old / new rank */
    const int *old_to_comm;  /* [ns] */
    const int *new_to_comm;  /* [nd] */
};

#endif
