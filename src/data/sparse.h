/* sparse.h -- CSR sparse matrices (sparse.c): registration, state and the
 * steps of a move shared with the background start (sparse_bg.c). */
#ifndef DUCTILE_DATA_SPARSE_H
#define DUCTILE_DATA_SPARSE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "../malleable/registry.h"
#include "../redist/layout.h"

struct sp_state {
    int64_t n;                /* global rows */
    int64_t row0, rows, nnz;  /* my rows [row0, row0 + rows) and their non-zeros */
    int balance;              /* EMPI_ROWS or EMPI_NNZ */
    int wide;                 /* 1: int64_t row pointers and column indices; 0: int (FlexMPI) */
    int64_t *vcounts;         /* after a resize: every new rank's row count (nv entries) */
    int nv;
    struct {                  /* a resize's new arrays and rows, until its commit (sparse_commit) */
        int set;
        void *row, *col, *val;  /* EMPI_malloc'ed (tracked) */
        int64_t row0, rows, nnz;
        int64_t *vcounts;
        int nv;
        struct sp_plan *plan; /* in the background (sparse_bg.c): the counts its exchanges were started with */
    } next;
};

/* What a move needs to know (sparse.c, sp_plan_make): the metadata
 * (O(processes)) and, per exchange k (0 row lengths as int64, 1 column
 * indices, 2 values), counts and displacements in bytes per comm rank. */
struct sp_meta {
    int64_t *all, *newrows, *cnt, *byold, *nz, *sp, *rp, *arr;
};
struct sp_plan {
    struct sp_meta m;
    int64_t *sc[3], *sd[3], *rc[3], *rd[3];
    int64_t stot[3], rtot[3];
    size_t iw, ext; /* bytes of an index, of a value */
    int me;         /* my comm rank */
};
/* The checkpoint (allocation), then the collectives that gather the ranges
 * and non-zeros and exchange the counts: MOVE_OK (*ok = 0 if this process
 * failed after the checkpoint: it sends nothing, and the next exchange's
 * agreement stops every process) or MOVE_STOPPED. */
int sp_plan_make(struct reg_item *it, const struct redist_layout *L, int *ok, struct sp_plan *p, char *err,
                 size_t errlen);
void sp_plan_free(struct sp_plan *p);
void sp_pack_lengths(const struct reg_item *it, int64_t *lens);
/* The first of my column indices (val = 0) or values (1), NULL without rows. */
const void *sp_first(const struct reg_item *it, int val);
/* My new arrays (EMPI_malloc'ed) staged in s->next, row pointers from the
 * received lengths; the column indices and values still to fill.  0, or -1
 * with a message. */
int sp_stage_new(struct reg_item *it, const struct redist_layout *L, struct sp_plan *p, const int64_t *lens,
                 char *err, size_t errlen);

/* sparse_bg.c: the plan a background start keeps (s->next.plan), freed. */
void sp_bg_plan_free(struct sp_state *s);

int sparse_register(const char *id, void *row, void *col, void *val, MPI_Datatype type, int64_t n, int64_t row0,
                    int64_t rows, int balance, int wide, char *err, size_t errlen);

#endif
