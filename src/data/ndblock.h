/* ndblock.h -- N-D block data over a process grid (ndblock.c). */
#ifndef DUCTILE_DATA_NDBLOCK_H
#define DUCTILE_DATA_NDBLOCK_H

#include <stddef.h>

#include "empi.h"

/* make_comm: create the Cartesian communicator now (collective over the
 * world); 0 in a spawned process before its data arrived. */
int ndblock_register(const char *id, MPI_Datatype type, int ndims, const int gsizes[], const int halo[],
                     const int periods[], EMPI_Grid_fn grid, void *grid_arg, int make_comm, EMPI_Block *blk,
                     char *err, size_t errlen);
int ndblock_get(const char *id, EMPI_Block *blk);

#endif
