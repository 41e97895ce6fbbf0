/* patches_int.h -- internal to the patch sets (patches.c: state and API;
 * patches_xfer.c: placement and the repartition's data movement). */
#ifndef DUCTILE_DATA_PATCHES_INT_H
#define DUCTILE_DATA_PATCHES_INT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "empi.h"
#include "patchplan.h"

enum { LAYOUT_BLOCKS = 1, LAYOUT_PATCHES = 2 };

struct pt_state {
    int ndims, g[3], p[3], np[3], m;  /* global sizes, patch sizes, patch grid, patch count */
    int placement, scheme;
    int layout, nprocs, rank;          /* what this process holds, for which world */
    void *block;                       /* LAYOUT_BLOCKS: my block */
    int *owner;                        /* LAYOUT_PATCHES: owner rank of every patch (m) */
    EMPI_Patch *mine;                  /* LAYOUT_PATCHES: my patches, in id order */
    int nmine;
    EMPI_Patch_stats st;
    struct {                           /* a repartition's result, until its commit */
        int set, nprocs, rank, nmine;
        int *owner;
        EMPI_Patch *mine;
        EMPI_Patch_stats st;
    } next;
};

/* The processes of a repartition: old and new ranks over one communicator. */
struct xlayout {
    MPI_Comm comm;
    int ns, nd, my_old, my_new, me;
    const int *o2c, *n2c;
};

static inline int64_t pt_vol(const pp_box *b) { return pp_vol(b); }
/* The block of rank `rank` of the MPI_Dims_create grid of P processes (dims and coords when not NULL). */
void pt_block_box(const struct pt_state *s, int P, int rank, pp_box *b, int dims[3], int coords[3]);
/* Place the patches on X's new ranks and move them (collective over X->comm), from what the old ranks
 * hold (layout, owner); the result is staged in s->next.  ok = 0: this process already failed (the
 * checkpoint only).  MOVE_OK, MOVE_FAILED with a message, or MOVE_STOPPED (src/redist/layout.h). */
int pt_repartition(struct pt_state *s, int layout, const int *owner, const struct xlayout *X, size_t ext, int ok,
                   char *err, size_t errlen);

#endif
