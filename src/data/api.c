/* api.c -- the EMPI calls of the general data kinds (include/empi.h):
 * sparse matrices, N-D blocks, patch sets and custom data; the FlexMPI ones
 * and the rest of the API are in src/malleable/empi.c. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "empi.h"

#include "custom.h"
#include "ndblock.h"
#include "patches.h"
#include "sparse.h"
#include "../core/state.h"
#include "../malleable/empi_int.h"
#include "../malleable/registry.h"
#include "../redist/plan.h"

void EMPI_Register_sparse(char *id, void *addr_row, void *addr_col, void *addr_val, MPI_Datatype datatype, int size,
                          int nnz)
{
    char err[512];
    empi_layout_once();
    (void)nnz; /* the row pointers say it */
    plan_block b = plan_block_of(size, ductile_rt.size > 0 ? ductile_rt.size : 1, ductile_rt.rank);
    if (empi_waiting_for_data()) b.count = 0;
    if (sparse_register(id, addr_row, addr_col, addr_val, datatype, size, b.count ? b.displ : 0, b.count, EMPI_ROWS,
                        0, err, sizeof err) != 0) {
        fprintf(stderr, "ductile: error: EMPI_Register_sparse: %s\n", err);
        fflush(stderr);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
}

int EMPI_Register_csr(const char *id, int64_t *rowptr, int64_t *col, void *val, MPI_Datatype datatype, int64_t nrows,
                      int64_t row0, int64_t rows, int balance)
{
    char err[512];
    empi_layout_once();
    if (empi_waiting_for_data()) row0 = rows = 0;
    int rc = sparse_register(id, rowptr, col, val, datatype, nrows, row0, rows, balance, 1, err, sizeof err);
    if (rc != 0) fprintf(stderr, "ductile: error: EMPI_Register_csr: %s\n", err);
    return rc;
}

int EMPI_Get_sparse_rows(const char *id, int64_t *row0, int64_t *rows, int64_t *nnz)
{
    struct reg_item *it = reg_find(id);
    if (!it || it->d.kind != REG_SPARSE || !it->ext) return -1;
    const struct sp_state *s = it->ext;
    if (row0) *row0 = s->row0;
    if (rows) *rows = s->rows;
    if (nnz) *nnz = s->nnz;
    return 0;
}

int EMPI_Get_csr(const char *id, int64_t **rowptr, int64_t **col, void **val, int64_t *row0, int64_t *rows,
                 int64_t *nnz)
{
    struct reg_item *it = reg_find(id);
    if (!it || it->d.kind != REG_SPARSE || !it->ext) return -1;
    if (!((const struct sp_state *)it->ext)->wide) { /* int indices: int64_t pointers to them would be wrong */
        fprintf(stderr, "ductile: error: EMPI_Get_csr('%s'): registered with EMPI_Register_sparse (int row pointers "
                        "and columns): use EMPI_Get_addr_sparse, and EMPI_Get_sparse_rows for its range\n", id);
        return -1;
    }
    if (rowptr) *rowptr = it->sp_row;
    if (col) *col = it->sp_col;
    if (val) *val = it->addr;
    return EMPI_Get_sparse_rows(id, row0, rows, nnz);
}

int EMPI_Register_block(const char *id, MPI_Datatype datatype, int ndims, const int gsizes[], const int halo[],
                        EMPI_Block *blk)
{
    char err[512];
    empi_layout_once();
    int rc = ndblock_register(id, datatype, ndims, gsizes, halo, NULL, NULL, NULL, NULL, !empi_waiting_for_data(), blk,
                              err, sizeof err);
    if (rc != 0) fprintf(stderr, "ductile: error: EMPI_Register_block: %s\n", err);
    return rc;
}

int EMPI_Register_block_grid(const char *id, MPI_Datatype datatype, int ndims, const int gsizes[], const int halo[],
                             const int periods[], EMPI_Grid_fn grid, void *grid_arg, EMPI_Block *blk)
{
    char err[512];
    empi_layout_once();
    int rc = ndblock_register(id, datatype, ndims, gsizes, halo, periods, grid, grid_arg, NULL,
                              !empi_waiting_for_data(), blk, err, sizeof err);
    if (rc != 0) fprintf(stderr, "ductile: error: EMPI_Register_block_grid: %s\n", err);
    return rc;
}

int EMPI_Register_block_storage(const char *id, MPI_Datatype datatype, int ndims, const int gsizes[],
                                const int halo[], const int periods[], EMPI_Grid_fn grid, void *grid_arg,
                                EMPI_Block_alloc_fn alloc, EMPI_Block_free_fn release, void *arg, EMPI_Block *blk)
{
    char err[512];
    empi_layout_once();
    struct nd_storage mem = {alloc, release, arg};
    int rc = !alloc ? -1
                    : ndblock_register(id, datatype, ndims, gsizes, halo, periods, grid, grid_arg, &mem,
                                       !empi_waiting_for_data(), blk, err, sizeof err);
    if (!alloc) snprintf(err, sizeof err, "'%s': no allocation callback", id ? id : "");
    if (rc != 0) fprintf(stderr, "ductile: error: EMPI_Register_block_storage: %s\n", err);
    return rc;
}

int EMPI_Get_block(const char *id, EMPI_Block *blk) { return ndblock_get(id, blk, NULL); }
int EMPI_Get_block_strides(const char *id, int64_t strides[3]) { return ndblock_get(id, NULL, strides); }

int EMPI_Register_patches(const char *id, MPI_Datatype datatype, int ndims, const int gsizes[], const int psizes[],
                          int placement, int scheme)
{
    char err[512];
    empi_layout_once();
    int rc = patches_register(id, datatype, ndims, gsizes, psizes, placement, scheme, !empi_waiting_for_data(), err,
                              sizeof err);
    if (rc != 0) fprintf(stderr, "ductile: error: EMPI_Register_patches: %s\n", err);
    return rc;
}

int EMPI_Get_patch_block(const char *id, EMPI_Block *blk) { return patches_get_block(id, blk); }
int EMPI_Get_patches(const char *id, int *npatches, EMPI_Patch **patches) { return patches_get(id, npatches, patches); }
int EMPI_Get_patch_stats(const char *id, EMPI_Patch_stats *stats) { return patches_stats(id, stats); }

int EMPI_Repartition(const char *id)
{
    char err[512];
    int rc = patches_repartition_now(id, err, sizeof err);
    if (rc != 0) fprintf(stderr, "ductile: error: EMPI_Repartition: %s\n", err);
    return rc;
}

int EMPI_Register_custom(const char *id, EMPI_Custom_size_fn size, EMPI_Custom_pack_fn pack,
                         EMPI_Custom_unpack_fn unpack, void *user)
{
    char err[512];
    int rc = custom_register(id, size, pack, unpack, user, err, sizeof err);
    if (rc != 0) fprintf(stderr, "ductile: error: EMPI_Register_custom: %s\n", err);
    return rc;
}

