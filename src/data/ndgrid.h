/* ndgrid.h -- the process grids of N-D blocks (ndgrid.c): one per (ndims,
 * periodicity, grid function, its argument), shared by every block
 * registered on it, with one Cartesian communicator of the current world. */
#ifndef DUCTILE_DATA_NDGRID_H
#define DUCTILE_DATA_NDGRID_H

#include <mpi.h>
#include <stddef.h>

#include "empi.h"

struct nd_grid {
    int ndims, periods[3];
    EMPI_Grid_fn fn;       /* the program's grid for a process count (NULL: MPI_Dims_create) */
    void *arg;
    int refs;              /* the blocks registered on it */
    int nprocs;            /* the world its communicators span (0: none yet) */
    unsigned round;        /* the data_world_changed round that made them */
    MPI_Comm cart, fill;   /* the Cartesian communicator the blocks give, and Ductile's duplicate for halo fills */
    struct nd_grid *next;
};

/* The grid of these parameters (a new one, or one more reference to an existing one); NULL: out of memory. */
struct nd_grid *ndgrid_get(int ndims, const int periods[3], EMPI_Grid_fn fn, void *arg);
/* One reference less; the last frees the grid and its communicators (unless MPI is finalized). */
void ndgrid_put(struct nd_grid *g);
/* The process grid for P processes (unused dimensions: 1).  0, or -1 with why (the program's
 * function refused P or gave a grid whose product is not P). */
int ndgrid_dims(const struct nd_grid *g, int P, int dims[3], char *why, size_t len);
/* A new round of world changes (data_world_changed): grids rebuild their communicators once in it. */
void ndgrid_new_round(void);
/* The grid's communicators for the current world of nprocs processes in the grid dims (collective
 * over the world): made once per round when `stale` (a block on it changed layout), or when it has
 * none.  0, or -1 (MPI_Cart_create failed: a message on stderr). */
int ndgrid_comm(struct nd_grid *g, int nprocs, const int dims[3], int stale, const char *name);
/* Every grid in use can take P processes: 1, or 0 with why (rank 0, before a resize). */
int ndgrid_allows(int P, char *why, size_t len);

#endif
