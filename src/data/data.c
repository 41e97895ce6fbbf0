/* data.c -- dispatch of the general data kinds (see data.h) and the helpers
 * they share. */
#include "config.h"

#include "data.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmpi_exports.h"
#include "../common/mpierror.h"
#include "../core/hooks.h"

int data_move(struct reg_item *it, const struct redist_layout *L, uint64_t *moved, char *err, size_t errlen)
{
    *moved = 0;
    switch (it->d.kind) {
    case REG_NDBLOCK: return ndblock_move(it, L, moved, err, errlen);
    case REG_SPARSE: return sparse_move(it, L, moved, err, errlen);
    case REG_CUSTOM: return custom_move(it, L, moved, err, errlen);
    case REG_PATCHES: return patches_move(it, L, moved, err, errlen);
    default: snprintf(err, errlen, "'%s': not a src/data kind", it->d.name); return -1;
    }
}

void data_commit(struct reg_item *it)
{
    if (!it->ext) return;
    switch (it->d.kind) {
    case REG_NDBLOCK: ndblock_commit(it); break;
    case REG_SPARSE: sparse_commit(it); break;
    case REG_CUSTOM: custom_commit(it); break;
    case REG_PATCHES: patches_commit(it); break;
    default: break;
    }
}

void data_abort(struct reg_item *it)
{
    if (!it->ext) return;
    switch (it->d.kind) {
    case REG_NDBLOCK: ndblock_abort(it); break;
    case REG_SPARSE: sparse_abort(it); break;
    case REG_CUSTOM: custom_abort(it); break;
    case REG_PATCHES: patches_abort(it); break;
    default: break;
    }
}

void data_world_changed(void)
{
    for (int i = 0; i < reg_count(); i++)
        if (reg_at(i)->d.kind == REG_NDBLOCK) ndblock_world_changed(reg_at(i));
}

void data_ext_free(struct reg_item *it)
{
    if (!it->ext) return;
    switch (it->d.kind) {
    case REG_NDBLOCK: ndblock_free(it); break;
    case REG_SPARSE: sparse_free(it); break;
    case REG_CUSTOM: custom_free(it); break;
    case REG_PATCHES: patches_free(it); break;
    default: free(it->ext); break;
    }
    it->ext = NULL;
}

/* The engine (src/malleable) reaches this folder through the hook table only. */
static int hook_move(struct reg_item *it, const struct redist_layout *L, uint64_t *moved, char *err, size_t errlen)
{
    return data_move(it, L, moved, err, errlen);
}

DUCTILE_REGISTER(data_register)
{
    h->data_move = hook_move;
    h->data_commit = data_commit;
    h->data_abort = data_abort;
    h->data_world_changed = data_world_changed;
    h->data_ext_free = data_ext_free;
}

int data_int_count(int64_t bytes) { return bytes < 0 || bytes > INT_MAX ? -1 : (int)bytes; }

int data_alltoallv_bytes(const void *sbuf, const int64_t *scounts, const int64_t *sdispls, void *rbuf,
                         const int64_t *rcounts, const int64_t *rdispls, MPI_Comm comm, char *err, size_t errlen)
{
    int n = 0, rc, fits = 1;
    PMPI_Comm_size(comm, &n);
    for (int c = 0; c < n; c++)
        if (data_int_count(scounts[c]) < 0 || data_int_count(sdispls[c]) < 0 || data_int_count(rcounts[c]) < 0 ||
            data_int_count(rdispls[c]) < 0)
            fits = 0;
    if (fits) {
        int *a = malloc(4 * (size_t)n * sizeof(int));
        if (!a) { snprintf(err, errlen, "out of memory"); return MPI_ERR_NO_MEM; }
        for (int c = 0; c < n; c++) {
            a[c] = (int)scounts[c];
            a[n + c] = (int)sdispls[c];
            a[2 * n + c] = (int)rcounts[c];
            a[3 * n + c] = (int)rdispls[c];
        }
        rc = PMPI_Alltoallv(sbuf, a, a + n, MPI_BYTE, rbuf, a + 2 * n, a + 3 * n, MPI_BYTE, comm);
        free(a);
    } else {
#if HAVE_PMPI_Alltoallv_c
        MPI_Count *a = malloc(2 * (size_t)n * sizeof *a);
        MPI_Aint *d = malloc(2 * (size_t)n * sizeof *d);
        if (!a || !d) { free(a); free(d); snprintf(err, errlen, "out of memory"); return MPI_ERR_NO_MEM; }
        for (int c = 0; c < n; c++) {
            a[c] = scounts[c];
            d[c] = (MPI_Aint)sdispls[c];
            a[n + c] = rcounts[c];
            d[n + c] = (MPI_Aint)rdispls[c];
        }
        rc = PMPI_Alltoallv_c(sbuf, a, d, MPI_BYTE, rbuf, a + n, d + n, MPI_BYTE, comm);
        free(a);
        free(d);
#else
        snprintf(err, errlen, "more than 2 GiB between two processes: too large for this MPI (no MPI_Alltoallv_c)");
        return MPI_ERR_COUNT;
#endif
    }
    if (rc != MPI_SUCCESS) {
        char m[256];
        ductile_mpi_error_text(rc, m, sizeof m);
        snprintf(err, errlen, "MPI_Alltoallv failed: %s", m);
    }
    return rc;
}
