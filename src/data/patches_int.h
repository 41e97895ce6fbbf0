/* patches_int.h -- internal to the patch sets (patches.c: state and API;
 * patches_xfer.c: placement and the repartition's data movement). */
#ifndef DUCTILE_DATA_PATCHES_INT_H
#define DUCTILE_DATA_PATCHES_INT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "empi.h"
#include "patchplan.h"
#include "../redist/layout.h"

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
    struct {                           /* a move in the background (patches_bg.c), until the switch or rollback */
        int set, n, me, my_new;        /*   n: the transfer's size; me: my rank in it */
        size_t ext;
        int *o2c;                      /*   old rank -> transfer rank (copied) */
        pp_frag *f;                    /*   the fragments, in (patch, old rank) order */
        size_t nf;
        int64_t *a;                    /*   sc, sd, rc, rd, unpacking positions (n each), read by the MPI */
        char *sbuf, *rbuf;             /*   packed at the start (the data is constant) / received */
    } bg;
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
/* What a repartition allocates before its checkpoint. */
struct pt_room {
    int *same_new, *assign;
    pp_frag *f;
    size_t nf;
    EMPI_Patch *nm;
    int nnm;
    MPI_Request *rq;
    char **bufs;        /* per rank: [0, n) send buffers, [n, 2n) receive buffers */
    int64_t *sb, *rb;   /* per rank: bytes sent to / received from each process */
    int64_t *pos;       /* per rank: unpacking positions */
};

void pt_room_free(struct pt_room *r, int n);
/* The placement, the fragments and the scheme (-1: out of memory); see patches_xfer.c. */
int pt_plan(const struct pt_state *s, int layout, const int *owner, const struct xlayout *X, struct pt_room *r,
            int n, size_t ext, EMPI_Patch_stats *st);
/* My new patches' storage, the requests and (per rank) the packing buffers (0, or -1: out of memory). */
int pt_storage(const struct pt_state *s, const struct xlayout *X, struct pt_room *r, int n, size_t ext, int scheme);
/* Copy box b between two C-order arrays: (dst with origin dlo, sizes dsz) <- (src, slo, ssz). */
void pt_copy_box(char *dst, const int dlo[3], const int dsz[3], const char *src, const int slo[3], const int ssz[3],
                 const pp_box *b, size_t ext);
/* A process's patch `id` among v[0..n) (in id order), or NULL. */
EMPI_Patch *pt_find_patch(EMPI_Patch *v, int n, int id);
/* The array holding patch id's data on this process (its block, or its patch), its origin and sizes. */
const char *pt_src_storage(const struct pt_state *s, int id, int lo[3], int sz[3]);

/* Place the patches on X's new ranks and move them (collective over X->comm), from what the old ranks
 * hold (layout, owner); the result is staged in s->next.  ok = 0: this process already failed (the
 * checkpoint only).  MOVE_OK, MOVE_FAILED with a message, or MOVE_STOPPED (src/redist/layout.h). */
int pt_repartition(struct pt_state *s, int layout, const int *owner, const struct xlayout *X, size_t ext, int ok,
                   char *err, size_t errlen);

/* patches_bg.c: the background start of a constant patch set (the placement and fragments as
 * pt_repartition's, my new patches allocated and staged in s->next, the fragments I keep copied, those I
 * send packed per rank): one exchange of bytes in xf[0]; MOVE_OK, or MOVE_FAILED with a message (the
 * exchange's agreement stops every process).  pt_bg_end: unpack into the staged patches (unpack 1: the
 * switch), then free what it held; pt_bg_forget: forget the buffers the MPI may still use. */
int pt_bg_start(struct pt_state *s, int layout, const int *owner, const struct xlayout *X, size_t ext, int ok,
                struct bytes_xfer *xf, char *err, size_t errlen);
void pt_bg_end(struct pt_state *s, int unpack);
void pt_bg_forget(struct pt_state *s);

#endif
