/* empi.c -- the FlexMPI-compatible EMPI API (include/empi.h) on top of the
 * registry (registry.c) and the resize engine (resize.c). */
#include "config.h"

#include "empi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/hooks.h"
#include "hotpath.h"
#include "registry.h"
#include "resize.h"
#include "runtime.h"
#include "../redist/plan.h"

static void reg_or_die(const char *fn, const char *id, void *addr, MPI_Datatype type, int kind, int constant,
                       int64_t nrows, int64_t row_elems, int64_t elems)
{
    char err[512];
    if (reg_add(id, addr, type, kind, constant, nrows, row_elems, elems, err, sizeof err) != 0) {
        fprintf(stderr, "ductile: error: %s: %s\n", fn, err);
        fflush(stderr);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
}

void EMPI_Get_wsize(int rank, int size, int dim, int *desp, int *count, int *vcounts, int *displs)
{
    if (size < 1) size = 1;
    plan_block b = plan_block_of(dim, size, rank);
    if (desp) *desp = (int)b.displ;
    if (count) *count = (int)b.count;
    for (int r = 0; r < size && (vcounts || displs); r++) {
        plan_block x = plan_block_of(dim, size, r);
        if (vcounts) vcounts[r] = (int)x.count;
        if (displs) displs[r] = (int)x.displ;
    }
}

void EMPI_Get_wsize64(int rank, int size, int64_t n, int64_t *desp, int64_t *count)
{
    plan_block b = plan_block_of(n, size < 1 ? 1 : size, rank);
    if (desp) *desp = b.displ;
    if (count) *count = b.count;
}

void EMPI_Register_dense(char *id, void *addr, MPI_Datatype datatype, int size, int mapping)
{
    if (mapping == EMPI_SHARED)
        reg_or_die("EMPI_Register_dense", id, addr, datatype, REG_REPLICATED, 0, 0, 0, (int64_t)size * size);
    else
        reg_or_die("EMPI_Register_dense", id, addr, datatype, REG_DISTRIBUTED, 0, size, size, 0);
}

void EMPI_Register_vector(char *id, void *addr, MPI_Datatype datatype, int size, int mapping)
{
    if (mapping == EMPI_SHARED)
        reg_or_die("EMPI_Register_vector", id, addr, datatype, REG_REPLICATED, 0, 0, 0, size);
    else
        reg_or_die("EMPI_Register_vector", id, addr, datatype, REG_DISTRIBUTED, 0, size, 1, 0);
}

void EMPI_Register_sparse(char *id, void *addr_row, void *addr_col, void *addr_val, MPI_Datatype datatype, int size,
                          int nnz)
{
    reg_or_die("EMPI_Register_sparse", id, addr_val, datatype, REG_SPARSE, 0, size, 0, nnz);
    struct reg_item *it = reg_find(id);
    it->sp_row = addr_row;
    it->sp_col = addr_col;
}

int EMPI_Register_array(const char *id, void *addr, MPI_Datatype datatype, int64_t rows, int64_t row_elems,
                        int mapping, int flags)
{
    char err[512];
    int rc;
    if (mapping == EMPI_SHARED)
        rc = reg_add(id, addr, datatype, REG_REPLICATED, flags == EMPI_CONSTANT, 0, 0, rows * row_elems, err,
                     sizeof err);
    else
        rc = reg_add(id, addr, datatype, REG_DISTRIBUTED, flags == EMPI_CONSTANT, rows, row_elems, 0, err,
                     sizeof err);
    if (rc != 0) fprintf(stderr, "ductile: error: EMPI_Register_array: %s\n", err);
    return rc;
}

int EMPI_Register_scalar(const char *id, void *addr, MPI_Datatype datatype, int count)
{
    char err[512];
    int rc = reg_add(id, addr, datatype, REG_SCALAR, 0, 0, 0, count, err, sizeof err);
    if (rc != 0) fprintf(stderr, "ductile: error: EMPI_Register_scalar: %s\n", err);
    return rc;
}

void EMPI_Deregister_shared(char *id)
{
    struct reg_item *it = reg_find(id);
    if (!it) return;
    it->owned = 0; /* the buffer stays with the program */
    reg_remove(id);
}

void *EMPI_Get_addr(char *id)
{
    struct reg_item *it = reg_find(id);
    return it ? it->addr : NULL;
}

void EMPI_Get_addr_sparse(char *id, void **addr_row, void **addr_col, void **addr_val)
{
    struct reg_item *it = reg_find(id);
    if (addr_row) *addr_row = it ? it->sp_row : NULL;
    if (addr_col) *addr_col = it ? it->sp_col : NULL;
    if (addr_val) *addr_val = it ? it->addr : NULL;
}

void EMPI_Get_shared(int *it)
{
    ductile_malleable_get_shared(it);
}

static double monitor_t0;

void(EMPI_Monitor_init)(int *rank, int procs_hint, int excl_nodes_hint)
{
    (void)rank;
    (void)procs_hint;
    (void)excl_nodes_hint;
    monitor_t0 = PMPI_Wtime();
}

void ductile_empi_monitor_init0(void) { (EMPI_Monitor_init)(NULL, 0, 0); }

/* Blocks of the first registered distributed item. */
static int64_t first_rows(void)
{
    for (int i = 0; i < reg_count(); i++)
        if (reg_at(i)->d.kind == REG_DISTRIBUTED) return reg_at(i)->d.nrows;
    return -1;
}

void EMPI_Monitor_end(int *rank, int *size, int iter, int maxiter, int *count, int *disp, int **vcount, int **vdisp,
                      int *fc, char *argv[], char *bin)
{
    if (ductile_rt.rank == 0) DUCTILE_HOOK_VOID(on_maxiter, (maxiter)); /* remaining work for ductiled's model */
    (void)fc;
    (void)argv;
    (void)bin;
    int changed = ductile_malleable_control_point(iter);
    if (!ductile_malleable_active()) return;
    if (rank) *rank = ductile_rt.rank;
    if (size) *size = ductile_rt.size;
    int64_t n = first_rows();
    if (n < 0) return;
    int r = ductile_rt.rank, p = ductile_rt.size;
    plan_block b = plan_block_of(n, p, r);
    if (count) *count = (int)b.count;
    if (disp) *disp = (int)b.displ;
    if (changed) {
        if (vcount && *vcount) {
            int *v = realloc(*vcount, (size_t)p * sizeof(int));
            if (v) *vcount = v;
        }
        if (vdisp && *vdisp) {
            int *v = realloc(*vdisp, (size_t)p * sizeof(int));
            if (v) *vdisp = v;
        }
    }
    EMPI_Get_wsize(r, p, (int)n, NULL, NULL, vcount ? *vcount : NULL, vdisp ? *vdisp : NULL);
}

void EMPI_Get_status(int *status)
{
    if (status) *status = ductile_malleable_active() ? EMPI_ACTIVE : EMPI_REMOVED;
}

void EMPI_Get_iteration(int *it)
{
    int i = ductile_malleable_iteration();
    if (it) *it = i;
}

void EMPI_Get_type(int *type)
{
    if (type) *type = ductile_malleable_spawned() ? EMPI_SPAWNED : EMPI_NATIVE;
}

static double mpi_seconds(void)
{
    uint64_t t = 0;
    for (int i = 0; i < DUCTILE_FN_COUNT; i++) t += ductile_stats[i].ticks;
    return ductile_ticks_to_sec(t);
}

void EMPI_Get_aggregated_tcomm(double *tcomm)
{
    if (tcomm) *tcomm = mpi_seconds();
}

void EMPI_Get_aggregated_tcomp(double *tcomp)
{
    if (!tcomp) return;
    double c = ductile_elapsed() - mpi_seconds();
    *tcomp = c > 0 ? c : 0;
}

void *EMPI_malloc(size_t size) { return reg_malloc(size, 0); }

void *EMPI_calloc(size_t nmemb, size_t size)
{
    if (size && nmemb > (size_t)-1 / size) return NULL;
    return reg_malloc(nmemb * size, 1);
}

void EMPI_free(void *addr, char *id)
{
    struct reg_item *it = id ? reg_find(id) : NULL;
    if (it && it->addr == addr) {
        it->owned = 0;
        reg_remove(id);
    } else if (it) {
        reg_remove(id);
    }
    if (!addr) return;
    if (reg_is_tracked(addr)) reg_untrack_free(addr);
    else free(addr);
}
