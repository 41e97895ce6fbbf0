/* ndblock_int.h -- the state of an N-D block item (reg_item.ext) and the
 * geometry shared by its blocking move (ndblock.c) and its move in the
 * background (ndblock_bg.c): who holds which interior box, packing the
 * boxes a process sends and unpacking those it receives. */
#ifndef DUCTILE_DATA_NDBLOCK_INT_H
#define DUCTILE_DATA_NDBLOCK_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ndblock.h"
#include "../redist/layout.h"
#include "../malleable/registry.h"

struct nd_geom {
    int dims[3], coords[3];
    int64_t start[3], sub[3], lsz[3];
};

struct nd_state {
    int ndims, g[3], halo[3];
    int nprocs, rank;      /* the layout the local array has */
    int dims[3];           /*   and its process grid */
    int64_t str[3];        /*   and its strides (elements; dense C order unless the program's storage says) */
    struct nd_storage mem; /* the program's storage (EMPI_Register_block_storage); alloc NULL: Ductile's */
    struct nd_grid *grid;  /* the grid (and communicator) it shares with the blocks registered alike */
    int warned;
    int stale;             /* no communicator or halos for the layout yet: data_world_changed makes them */
    int moved;             /* a commit changed the layout: the grid's communicator is made anew */
    struct {               /* a resize's new array and layout, until its commit */
        int set, nprocs, rank, dims[3];
        int64_t str[3];
        void *addr;
    } next;
    struct {               /* a move in the background (ndblock_bg.c), until the switch or the rollback */
        int set, n, ns, dold[3]; /* n: the transfer's size */
        int *o2c;          /*   old rank -> transfer rank (the layout's old_to_comm, copied) */
        int64_t *a;        /*   counts and displacements: sc, sd, rc, rd (n each), read by the MPI */
        char *sb, *rb;     /*   the packed boxes I send (packed at the start: the block is constant) and receive */
    } bg;
};

/* rank's block in the process grid dims */
void nd_geom_at(const struct nd_state *s, const int dims[3], int rank, struct nd_geom *o);
/* Copy the box [lo, hi) of an array of strides str to (unpack 0) or from (1) the packed buffer buf. */
void nd_box_copy(char *arr, const int64_t str[3], const int64_t lo[3], const int64_t hi[3], size_t ext, char *buf,
                 int unpack);
int64_t nd_isect(const struct nd_geom *a, const struct nd_geom *b, int64_t lo[3], int64_t hi[3]);
void nd_to_local(const struct nd_state *s, const struct nd_geom *g, const int64_t glo[3], const int64_t ghi[3],
                 int64_t lo[3], int64_t hi[3]);
/* A new local array for the block g (Ductile's, zeroed, or the program's callback's), its strides in str;
 * NULL with why.  nd_free_local gives one back. */
void *nd_new_local(const struct nd_state *s, const struct nd_geom *g, size_t ext, int64_t str[3], char *why,
                   size_t len);
void nd_free_local(const struct nd_state *s, void *p);

/* The old and new process grids of a resize (0), or -1 with why. */
int nd_grids(const struct reg_item *it, const struct redist_layout *L, int dold[3], int dnew[3], char *err,
             size_t errlen);
/* The bytes I send to and receive from every transfer rank (sc, sd, rc, rd: n = L->comm_size each) and
 * their sums. */
int nd_plan(const struct nd_state *s, size_t ext, const struct redist_layout *L, const int dold[3],
            const int dnew[3], int64_t *sc, int64_t *sd, int64_t *rc, int64_t *rd, int64_t *stot, int64_t *rtot);
/* Pack my old interior's boxes for every new rank into sb (an old process; nothing otherwise). */
void nd_pack(const struct reg_item *it, const struct redist_layout *L, const int dold[3], const int dnew[3],
             const int64_t *sc, const int64_t *sd, char *sb);
/* Unpack the boxes received from every old rank (o2c: old rank -> transfer rank) into the new array na. */
void nd_unpack(const struct nd_state *s, size_t ext, int ns, const int *o2c, const int dold[3], const int dnew[3],
               int my_new, char *na, const int64_t nstr[3], const int64_t *rc, const int64_t *rd, const char *rb);
/* Stage the new array and layout (adopted by ndblock_commit, dropped by ndblock_abort). */
void nd_stage(struct nd_state *s, const struct redist_layout *L, const int dnew[3], void *na, const int64_t nstr[3]);
/* The end of a move in the background: unpack (into the staged array) when it is adopted, then free what
 * it held (ndblock_bg.c). */
void nd_bg_end(struct reg_item *it, int unpack);

#endif
