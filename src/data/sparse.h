/* sparse.h -- CSR sparse matrices (sparse.c): registration and state. */
#ifndef DUCTILE_DATA_SPARSE_H
#define DUCTILE_DATA_SPARSE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

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
    } next;
};

int sparse_register(const char *id, void *row, void *col, void *val, MPI_Datatype type, int64_t n, int64_t row0,
                    int64_t rows, int balance, int wide, char *err, size_t errlen);

#endif
