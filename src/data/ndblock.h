/* ndblock.h -- N-D block data over a process grid (ndblock.c). */
#ifndef DUCTILE_DATA_NDBLOCK_H
#define DUCTILE_DATA_NDBLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "empi.h"

/* The program's storage for a block's local arrays (EMPI_Register_block_storage). */
struct nd_storage {
    EMPI_Block_alloc_fn alloc;
    EMPI_Block_free_fn release;
    void *arg;
};

/* make_comm: create the Cartesian communicator now (collective over the
 * world); 0 in a spawned process before its data arrived.  mem NULL:
 * Ductile's dense arrays. */
int ndblock_register(const char *id, MPI_Datatype type, int ndims, const int gsizes[], const int halo[],
                     const int periods[], EMPI_Grid_fn grid, void *grid_arg, const struct nd_storage *mem,
                     int make_comm, EMPI_Block *blk, char *err, size_t errlen);
/* The block and (strides non-NULL) its local array's strides in elements. */
int ndblock_get(const char *id, EMPI_Block *blk, int64_t strides[3]);

#endif
