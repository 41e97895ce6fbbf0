/* empi.c -- the FlexMPI-compatible EMPI API (include/empi.h) on top of the
 * registry (registry.c) and the resize engine (resize.c). */
#include "config.h"

#include "empi.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/hooks.h"
#include "../common/sampling.h"
#include "../core/hotpath.h"
#include "registry.h"
#include "resize.h"
#include "steer.h"
#include "../common/sizes.h"
#include "../core/state.h"
#include "empi_int.h"
#include "../core/hooks.h"
#include "../redist/plan.h"

static void reg_or_die(const char *fn, const char *id, void *addr, MPI_Datatype type, int kind, int constant,
                       int64_t nrows, int64_t row_elems, int64_t elems)
{
    char err[512];
    empi_layout_once();
    if (reg_add(id, addr, type, kind, constant, nrows, row_elems, elems, err, sizeof err) != 0) {
        fprintf(stderr, "ductile: error: %s: %s\n", fn, err);
        fflush(stderr);
        if (reg_frozen()) return; /* a resize is pending: refused, nothing changed; the job goes on */
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* ---- FlexMPI globals (vars.h of FlexMPI) that its examples read ---- */
double EMPI_GLOBAL_tover, EMPI_GLOBAL_overhead_lbalance, EMPI_GLOBAL_overhead_rdata, EMPI_GLOBAL_overhead_processes,
    EMPI_GLOBAL_overhead_rpolicy, EMPI_GLOBAL_lastoverhead_rdata, EMPI_GLOBAL_lastoverhead_processes,
    EMPI_GLOBAL_cum_cost, EMPI_GLOBAL_cum_time, EMPI_GLOBAL_tcomp, EMPI_GLOBAL_tcomm, EMPI_GLOBAL_obj_texec;
int EMPI_GLOBAL_niter, EMPI_GLOBAL_iteration, EMPI_GLOBAL_maxprocs, EMPI_GLOBAL_minprocs = 1, EMPI_GLOBAL_nhosts = 1;
int EMPI_GLOBAL_wpolicy = EMPI_STATIC, EMPI_GLOBAL_lbpolicy = EMPI_LBCOUNTS, EMPI_GLOBAL_mpolicy = EMPI_MALLEABILITY;
int EMPI_GLOBAL_lbalance_disabled = 1, EMPI_GLOBAL_status = EMPI_ACTIVE, EMPI_GLOBAL_type = EMPI_NATIVE;
int *EMPI_GLOBAL_vcounts, *EMPI_GLOBAL_displs;

/* Where EMPI_Get_wsize and the distributed items put the remainder rows
 * (DUCTILE_WSIZE, checked with the other settings in MPI_Init): FlexMPI's
 * distribution (the last ranks) by default.  Set at the first EMPI call,
 * before any resize, in every process alike. */
void empi_layout_once(void)
{
    static int done;
    if (done) return;
    done = 1;
    const char *v = ductile_rt.settings.wsize; /* NULL before MPI_Init or with DUCTILE_DISABLE=1 */
    plan_set_remainder_last(!(v && strcmp(v, "first") == 0));
}

void EMPI_Get_wsize(int rank, int size, int dim, int *desp, int *count, int *vcounts, int *displs)
{
    empi_layout_once();
    if (size < 1) size = 1;
    if (!ductile_malleable_active()) {
        /* FlexMPI: a removed process owns nothing */
        if (desp) *desp = -1;
        if (count) *count = -1;
        return;
    }
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
    empi_layout_once();
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

static int got_shared; /* a spawned process received its data (EMPI_Get_shared) */

/* A spawned process before its data arrived: it holds nothing yet (empi_int.h). */
int empi_waiting_for_data(void) { return ductile_malleable_spawned() && !got_shared; }

int EMPI_Register_array(const char *id, void *addr, MPI_Datatype datatype, int64_t rows, int64_t row_elems,
                        int mapping, int flags)
{
    char err[512];
    int rc;
    empi_layout_once();
    if (mapping == EMPI_SHARED)
        rc = reg_add(id, addr, datatype, REG_REPLICATED, flags == EMPI_CONSTANT, 0, 0, rows * row_elems, err,
                     sizeof err);
    else
        rc = reg_add(id, addr, datatype, REG_DISTRIBUTED, flags == EMPI_CONSTANT, rows, row_elems, 0, err,
                     sizeof err);
    if (rc != 0) fprintf(stderr, "ductile: error: EMPI_Register_array: %s\n", err);
    return rc;
}

int EMPI_Set_buffer_rows(const char *id, int64_t rows)
{
    struct reg_item *it = reg_find(id);
    const char *why = !it                             ? "no item of that name is registered"
                      : it->d.kind != REG_DISTRIBUTED ? "not a distributed (EMPI_DISJOINT) item"
                      : rows < 0                      ? "a negative row count"
                                                      : NULL;
    if (why) {
        fprintf(stderr, "ductile: error: EMPI_Set_buffer_rows('%s', %lld): %s\n", id ? id : "", (long long)rows, why);
        return -1;
    }
    it->decl_addr = it->addr;
    it->decl_rows = rows;
    return 0;
}

int EMPI_Set_flags(const char *id, int flags)
{
    struct reg_item *it = reg_find(id);
    int k = it ? it->d.kind : 0;
    const char *why = !it ? "no item of that name is registered"
                      : flags != EMPI_VARIABLE && flags != EMPI_CONSTANT ? "flags must be EMPI_VARIABLE or EMPI_CONSTANT"
                      : reg_frozen() ? "refused while a resize is pending (ductile_constant_pending() returns 1)"
                      : k != REG_DISTRIBUTED && k != REG_REPLICATED && !REG_KIND_IS_DATA(k)
                          ? "scalars cannot be constant (they move at the control point: docs/data.md)"
                          : NULL;
    if (why) {
        fprintf(stderr, "ductile: error: EMPI_Set_flags('%s', %d): %s\n", id ? id : "", flags, why);
        return -1;
    }
    it->d.constant = flags == EMPI_CONSTANT;
    return 0;
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
    if (!it || it->dropping) return;
    if (reg_frozen()) {
        /* the pending resize still moves it (and may be reading its buffer now) */
        fprintf(stderr, "ductile: error: EMPI_Deregister_shared('%s'): refused while a resize is pending "
                        "(ductile_constant_pending() returns 1): the item stays registered and its buffer must stay "
                        "valid; deregister it after the control point that ends the resize, or free it with "
                        "EMPI_free, which waits for the transfer\n", id);
        return;
    }
    it->owned = 0; /* the buffer stays with the program */
    reg_remove(id);
}

/* An item the program can see: registered, and not freed (EMPI_free) while a resize was pending. */
static struct reg_item *visible(const char *id)
{
    struct reg_item *it = reg_find(id);
    return it && !it->dropping ? it : NULL;
}

void *EMPI_Get_addr(char *id)
{
    struct reg_item *it = visible(id);
    return it ? it->addr : NULL;
}

void EMPI_Get_addr_sparse(char *id, void **addr_row, void **addr_col, void **addr_val)
{
    struct reg_item *it = visible(id);
    if (addr_row) *addr_row = it ? it->sp_row : NULL;
    if (addr_col) *addr_col = it ? it->sp_col : NULL;
    if (addr_val) *addr_val = it ? it->addr : NULL;
}

void EMPI_Get_shared(int *it)
{
    empi_layout_once();
    int was = empi_waiting_for_data();
    ductile_malleable_get_shared(it);
    got_shared = 1;
    if (was) {
        EMPI_GLOBAL_type = EMPI_SPAWNED;
        /* N-D blocks (src/data): Cartesian communicators, halos, with the old processes at their control point */
        DUCTILE_HOOK_VOID(data_world_changed, ());
    }
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

static int64_t registered_size = -1; /* EMPI_Register_size */

/* Blocks of the first registered distributed or sparse item (or EMPI_Register_size's). */
static int64_t first_rows(const struct reg_item **sp)
{
    *sp = NULL;
    for (int i = 0; i < reg_count(); i++) {
        if (reg_at(i)->d.kind == REG_DISTRIBUTED) return reg_at(i)->d.nrows;
        if (reg_at(i)->d.kind == REG_SPARSE) {
            *sp = reg_at(i); /* its rows: it->rows (src/data/sparse.c keeps them) */
            return reg_at(i)->d.nrows;
        }
    }
    return registered_size;
}

void EMPI_Register_size(int size)
{
    empi_layout_once();
    registered_size = size < 0 ? 0 : size;
}

/* Where a control point writes the blocks: FlexMPI's int outputs or the
 * 64-bit ones (any may be NULL). */
struct mon_out {
    int *count, *disp, **vcount, **vdisp;
    int64_t *count64, *disp64, **vcount64, **vdisp64;
};

/* A size for an int output: the value, or MPI_UNDEFINED (MPI's own answer
 * for a count an int cannot hold, as MPI_Get_count) with an error on
 * stderr, once per process, when it does not fit: never a truncated value. */
static int int_size(int64_t v, const char *what, int k)
{
    static int told;
    if (v >= 0 && v <= INT_MAX) return (int)v;
    if (what && !told++) {
        fprintf(stderr, "ductile: error: EMPI_Monitor_end: %s", what);
        if (k >= 0) fprintf(stderr, "[%d]", k);
        fprintf(stderr, " = %lld does not fit an int: MPI_UNDEFINED returned instead (for every such value); use "
                        "EMPI_Monitor_end64 (include/empi.h)\n", (long long)v);
        fflush(stderr);
    }
    return MPI_UNDEFINED;
}

/* A per-rank output array the program gave (NULL if none), grown to p
 * entries after a resize (NULL, written nowhere, if that fails). */
#define OUT_ARRAY(v, a, T)                                                                                            \
    do {                                                                                                               \
        v = (a) ? *(a) : NULL;                                                                                         \
        if (v && changed) {                                                                                            \
            T *grown_ = realloc(v, (size_t)p * sizeof(T));                                                             \
            if (grown_) *(a) = grown_;                                                                                 \
            v = grown_;                                                                                                \
        }                                                                                                              \
    } while (0)

/* Every rank's block of the first item after a control point, into the
 * per-rank outputs and FlexMPI's globals (whose entries past INT_MAX are
 * MPI_UNDEFINED, without a message: the program may never read them). */
static void every_block(int64_t n, const struct reg_item *sp, int p, int changed, const struct mon_out *o)
{
    int *vc, *vd;
    int64_t *vc64, *vd64;
    OUT_ARRAY(vc, o->vcount, int);
    OUT_ARRAY(vd, o->vdisp, int);
    OUT_ARRAY(vc64, o->vcount64, int64_t);
    OUT_ARRAY(vd64, o->vdisp64, int64_t);
    int *gc = NULL, *gd = NULL;
    if (changed || !EMPI_GLOBAL_vcounts) {
        gc = realloc(EMPI_GLOBAL_vcounts, (size_t)p * sizeof(int));
        if (gc) EMPI_GLOBAL_vcounts = gc;
        gd = gc ? realloc(EMPI_GLOBAL_displs, (size_t)p * sizeof(int)) : NULL;
        if (gd) EMPI_GLOBAL_displs = gd;
        if (!gd) gc = NULL;
    }
    /* balanced by non-zeros: the blocks are the matrix's */
    int nnz = sp && sp->rows.vrows && sp->rows.nv == p;
    int64_t d = 0;
    for (int k = 0; k < p; k++) {
        plan_block x = plan_block_of(n, p, k);
        if (nnz) {
            x.count = sp->rows.vrows[k];
            x.displ = d;
            d += x.count;
        }
        if (vc) vc[k] = int_size(x.count, "vcount", k);
        if (vd) vd[k] = int_size(x.displ, "vdisp", k);
        if (vc64) vc64[k] = x.count;
        if (vd64) vd64[k] = x.displ;
        if (gc) gc[k] = int_size(x.count, NULL, k);
        if (gd) gd[k] = int_size(x.displ, NULL, k);
    }
}

/* This process's rank and size in the world the program sees: Ductile's
 * (its virtual world), or, with Ductile off (DUCTILE_DISABLE=1, no
 * MPI_Init), MPI's own, as a static FlexMPI program would have them. */
static void world_rank_size(int *r, int *p)
{
    *r = 0;
    *p = 1;
    if (ductile_rt.active) {
        *r = ductile_rt.rank;
        *p = ductile_rt.size;
        return;
    }
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin) return;
    PMPI_Comm_rank(MPI_COMM_WORLD, r);
    PMPI_Comm_size(MPI_COMM_WORLD, p);
}

static void monitor_end(int *rank, int *size, int iter, int maxiter, const struct mon_out *o)
{
    if (ductile_rt.active && ductile_rt.rank == 0)
        DUCTILE_HOOK_VOID(on_maxiter, (maxiter)); /* remaining work for ductiled's model */
    empi_layout_once();
    double t0 = PMPI_Wtime();
    int changed = ductile_malleable_control_point(iter); /* Ductile off: 0, nothing resizes */
    double dt = PMPI_Wtime() - t0;
    EMPI_GLOBAL_iteration = iter;
    EMPI_GLOBAL_tover += dt;
    if (changed) {
        /* the whole reconfiguration as seen by this process: processes + data (FlexMPI splits them;
         * Ductile's per-phase times are in the report's reconfigurations) */
        EMPI_GLOBAL_overhead_processes += dt;
        EMPI_GLOBAL_lastoverhead_processes = dt;
    } else {
        EMPI_GLOBAL_overhead_rpolicy += dt; /* the decision at the control point */
    }
    if (!ductile_malleable_active()) {
        /* FlexMPI: a removed process owns nothing (as EMPI_Get_wsize); rank, size and the
         * per-rank arrays keep what the program had (include/empi.h) */
        EMPI_GLOBAL_status = EMPI_REMOVED;
        if (o->count) *o->count = -1;
        if (o->disp) *o->disp = -1;
        if (o->count64) *o->count64 = -1;
        if (o->disp64) *o->disp64 = -1;
        return;
    }
    int r, p;
    world_rank_size(&r, &p);
    if (rank) *rank = r;
    if (size) *size = p;
    const struct reg_item *sp;
    int64_t n = first_rows(&sp);
    if (n < 0) return;
    plan_block b = plan_block_of(n, p, r);
    if (sp) {
        b.displ = sp->rows.row0;
        b.count = sp->rows.rows;
    }
    if (o->count) *o->count = int_size(b.count, "count", -1);
    if (o->disp) *o->disp = int_size(b.displ, "disp", -1);
    if (o->count64) *o->count64 = b.count;
    if (o->disp64) *o->disp64 = b.displ;
    every_block(n, sp, p, changed, o);
}

void EMPI_Monitor_end(int *rank, int *size, int iter, int maxiter, int *count, int *disp, int **vcount, int **vdisp,
                      int *fc, char *argv[], char *bin)
{
    (void)fc;
    (void)argv;
    (void)bin;
    struct mon_out o = {count, disp, vcount, vdisp, NULL, NULL, NULL, NULL};
    monitor_end(rank, size, iter, maxiter, &o);
}

void EMPI_Monitor_end64(int *rank, int *size, int iter, int maxiter, int64_t *count, int64_t *disp,
                        int64_t **vcount, int64_t **vdisp, int *fc, char *argv[], char *bin)
{
    (void)fc;
    (void)argv;
    (void)bin;
    struct mon_out o = {NULL, NULL, NULL, NULL, count, disp, vcount, vdisp};
    monitor_end(rank, size, iter, maxiter, &o);
}

/* ---- FlexMPI calls without a Ductile counterpart: accepted, documented ---- */

void EMPI_Set_policy(int policy)
{
    switch (policy) {
    case EMPI_LBALANCE: case EMPI_EFFICIENCY: case EMPI_EFFICIENCY_IRR: case EMPI_COST: case EMPI_COST_IRR:
    case EMPI_MALLEABILITY: case EMPI_MALLEABILITY_COND: case EMPI_MALLEABILITY_TRIG: case EMPI_MONITORDBG:
        EMPI_GLOBAL_mpolicy = policy; /* Ductile resizes by DUCTILE_SCHEDULE or a controller whatever the policy */
        return;
    default:
        fprintf(stderr, "ductile: error: EMPI_Set_policy(%d): not a FlexMPI policy (EMPI_LBALANCE, EMPI_EFFICIENCY, "
                        "EMPI_EFFICIENCY_IRR, EMPI_COST, EMPI_COST_IRR, EMPI_MALLEABILITY, EMPI_MALLEABILITY_COND, "
                        "EMPI_MALLEABILITY_TRIG or EMPI_MONITORDBG)\n", policy);
        fflush(stderr);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
}

void EMPI_Set_niter(int niter) { EMPI_GLOBAL_niter = niter; }

void EMPI_Set_maxprocs(int nprocs)
{
    int size = ductile_rt.size > 0 ? ductile_rt.size : 1;
    EMPI_GLOBAL_maxprocs = nprocs < size ? size : nprocs; /* FlexMPI: never below the current size */
    /* honoured: the job's maximum (src/malleable/steer.c); one the other constraints exclude
     * (below the minimum, a preferred size above it) is refused with a message */
    char spec[32], err[400];
    snprintf(spec, sizeof spec, "max=%d", EMPI_GLOBAL_maxprocs);
    if (ductile_set_sizes(spec, err, sizeof err) != 0 && ductile_rt.rank == 0)
        fprintf(stderr, "ductile: EMPI_Set_maxprocs(%d) not applied: %s\n", nprocs, err);
}

void EMPI_Get_minprocs(int *nprocs)
{
    struct ductile_sizes s;
    engine_sizes(&s);
    if (s.min > 0) EMPI_GLOBAL_minprocs = s.min;
    if (nprocs) *nprocs = EMPI_GLOBAL_minprocs;
}

void EMPI_Get_exec_time(double *extime)
{
    if (extime) *extime = ductile_elapsed();
}

void EMPI_Set_lbpolicy(int lbpolicy) { EMPI_GLOBAL_lbpolicy = lbpolicy; }
void EMPI_Disable_lbalance(void) { EMPI_GLOBAL_lbalance_disabled = 1; }
void EMPI_Enable_lbalance(void) { EMPI_GLOBAL_lbalance_disabled = 0; /* no load balancing in Ductile: no effect */ }

void EMPI_Set_type(int type) { EMPI_GLOBAL_type = type; }

void EMPI_Capture_comms(int mpi_op, int *size, MPI_Datatype datatype)
{
    /* Ductile counts every MPI call itself (the report) */
    (void)mpi_op;
    (void)size;
    (void)datatype;
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
    uint64_t t = 0, m = 0;
    for (int i = 0; i < DUCTILE_FN_COUNT; i++) {
        t += ductile_fn_ticks(i); /* estimated under sampled timing */
        m += ductile_stat_load(&ductile_stats[i].ticks);
    }
    double est = ductile_ticks_to_sec(t), meas = ductile_ticks_to_sec(m);
    if (ductile_threaded || est <= meas) return est;
    /* MPI calls one at a time: the estimate is bounded by the run, as in the report (docs/report.md) */
    return meas + (est - meas) * ductile_sample_clamp(ductile_elapsed(), meas, est - meas);
}

void EMPI_Get_aggregated_tcomm(double *tcomm)
{
    EMPI_GLOBAL_tcomm = mpi_seconds();
    if (tcomm) *tcomm = EMPI_GLOBAL_tcomm;
}

void EMPI_Get_aggregated_tcomp(double *tcomp)
{
    double c = ductile_elapsed() - mpi_seconds();
    EMPI_GLOBAL_tcomp = c > 0 ? c : 0;
    if (tcomp) *tcomp = EMPI_GLOBAL_tcomp;
}

void *EMPI_malloc(size_t size) { return reg_malloc(size, 0); }

void *EMPI_calloc(size_t nmemb, size_t size)
{
    if (size && nmemb > (size_t)-1 / size) return NULL;
    return reg_malloc(nmemb * size, 1);
}

void EMPI_free(void *addr, char *id)
{
    /* a resize is pending: its transfers may still read the item's buffers; the item leaves and
     * the memory is freed at the control point that ends it (registry.c, reg_thaw) */
    if (reg_frozen() && reg_free_later(addr, id)) return;
    if (reg_frozen()) id = NULL; /* addr is no registered buffer: freed now; the item (if any) leaves later */
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
