/* patchplan.h -- the pure part of patch repartitioning (patchplan.c): which
 * old rank holds which piece of every patch, where every patch goes, and the
 * figures of the cost estimate.  No MPI; every process computes the same plan
 * from the same global information.  Time O((m + P) log P + F), memory
 * O(m + P + F) for m patches, P ranks and F fragments (the pieces that
 * move: m in the patches layout, at most the number of cells of the overlay
 * of the patch grid and the block grid in the blocks layout; an output, not a
 * table over ranks).  The planner counts its operations and the bytes it
 * allocates, for the unit test that checks how they grow with P. */
#ifndef DUCTILE_DATA_PATCHPLAN_H
#define DUCTILE_DATA_PATCHPLAN_H

#include <stddef.h>
#include <stdint.h>

typedef struct { int lo[3], hi[3]; } pp_box;
typedef struct {
    int id, src, dst; /* patch, old rank, new rank */
    pp_box b;         /* the piece of the patch old rank src holds */
} pp_frag;

typedef struct {
    int g[3], p[3], np[3], m; /* global sizes, patch sizes, patch grid, patch count (3 dims; unused ones are 1) */
    int blocks;               /* 1: the old data is in blocks over the grid dm; 0: in patches placed by owner[] */
    int dm[3];                /* blocks: the process grid (MPI_Dims_create of ns, C order) */
    const int *owner;         /* patches: old rank of every patch (m) */
    int ns, nd;               /* old and new process counts */
    const int *same_new;      /* ns: the new rank of old rank r's process, or -1 (it leaves) */
    int greedy;               /* 1: EMPI_PLACE_GREEDY, 0: EMPI_PLACE_BALANCED */
} pp_input;

typedef struct {
    int *assign;       /* m: new rank of every patch (malloc'd; the caller may keep it) */
    pp_frag *f;        /* nf fragments in (patch, old rank) order, dst filled */
    size_t nf;
    uint64_t ops;      /* operations counted (loop steps, tree steps) */
    size_t bytes, peak; /* bytes allocated now and at most by the planner */
    void *(*alloc)(size_t n, size_t size); /* calloc-like, set by the caller (txn_calloc in a resize:
                                            * its failures injected); NULL: calloc.  Freed with free. */
} pp_plan;

int64_t pp_vol(const pp_box *b);
void pp_patch_box(const int np[3], const int p[3], const int g[3], int id, pp_box *b);

/* same_new[r] for every old rank: o2c/n2c map old/new ranks onto the ranks of
 * a communicator of n processes.  O(n + ns + nd).  Returns -1 on bad input. */
int pp_same_new(int ns, int nd, int n, const int *o2c, const int *n2c, int *same_new, pp_plan *acct);

/* Placement and fragments (seed 003, section 3.1; the rules in patches.c's
 * header).  Returns 0, or -1 (out of memory, bad input). */
int pp_place(const pp_input *in, pp_plan *out);

/* The cost estimate's figures over the fragments (those that cross processes):
 * the most messages one process sends (per patch), the most distinct partners
 * one process sends to (per rank), the most bytes one process sends. */
int pp_cost(pp_plan *pl, int n, const int *o2c, const int *n2c, int64_t ext, int64_t *maxm, int64_t *maxp,
            int64_t *maxb);

void pp_free(pp_plan *pl);

#endif
