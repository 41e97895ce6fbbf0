/* empi.h -- FlexMPI-compatible malleability API, implemented by Ductile.
 *
 * A FlexMPI program ports by recompiling against this header and linking
 * with -lductile (or preloading libductile.so): the names, signatures and
 * meanings below follow FlexMPI's public headers (admire-eurohpc/FlexMPI,
 * include/).  EMPI_COMM_WORLD is Ductile's virtual world, i.e. plain
 * MPI_COMM_WORLD: every MPI call made through Ductile sees the current
 * (possibly resized) world there.
 *
 * Typical use (Algorithm 2 of the CLARISSE/FlexMPI paper; examples/jacobi.c):
 *
 *   MPI_Init(&argc, &argv);
 *   MPI_Comm_rank(EMPI_COMM_WORLD, &rank); MPI_Comm_size(EMPI_COMM_WORLD, &size);
 *   EMPI_Get_wsize(rank, size, dim, &desp, &count, NULL, NULL);   // my rows
 *   A = malloc(count * dim * sizeof(double));
 *   EMPI_Register_dense("matrix", A, MPI_DOUBLE, dim, EMPI_DISJOINT);
 *   EMPI_Register_vector("x", x, MPI_DOUBLE, dim, EMPI_SHARED);
 *   EMPI_Get_type(&type);
 *   if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);  // data + iteration arrive
 *   else initialise(A, x);
 *   for (; it < itmax; it++) {
 *       EMPI_Monitor_init();
 *       compute(); MPI_Allgatherv(..., EMPI_COMM_WORLD);
 *       EMPI_Monitor_end(&rank, &size, it, itmax, &count, &desp, &vcounts, &displs, NULL, argv + 1, argv[0]);
 *       A = EMPI_Get_addr("matrix");        // a resize may have moved the data
 *       EMPI_Get_status(&status);
 *       if (status == EMPI_REMOVED) break;
 *   }
 *   MPI_Finalize();
 *
 * Resizes are requested by DUCTILE_SCHEDULE (e.g. "10:+2,40:-3") or by a
 * controller (ductile_request_resize() in <ductile.h>) and happen inside
 * EMPI_Monitor_end, the control point.  See docs/malleability.md.
 *
 * Data model.  A *distributed* item is an array of `rows` rows, each of
 * `row_elems` elements of an MPI datatype, block-distributed over the world
 * exactly like EMPI_Get_wsize: each process holds its own block of rows,
 * contiguously.  A *replicated* item (EMPI_SHARED) is held whole by every
 * process; new processes receive rank 0's copy.  A *scalar* is a replicated
 * item of one element.  Elements may be of any MPI datatype, derived ones
 * included, as long as element i lies at addr + i * extent (extent from
 * MPI_Type_get_extent).  After a resize, Ductile owns the new buffers of
 * distributed items: get them with EMPI_Get_addr(); the old pointer is no
 * longer the item's buffer (Ductile frees it only if Ductile or EMPI_malloc
 * allocated it).  A spawned process receives into the buffers it registered
 * (also when constant data moves in the background): when EMPI_Get_shared
 * returns they hold its data.  They must be sized for its block
 * (EMPI_Get_wsize); where Ductile knows a buffer's size (EMPI_malloc'ed, or
 * declared with EMPI_Set_buffer_rows) one too small fails the resize before
 * anything moves.  While a resize is pending (ductile_constant_pending() in
 * <ductile.h>) registrations and EMPI_Deregister_shared are refused, and
 * EMPI_free of a registered item waits for its transfer
 * (docs/malleability.md, "The registry while a resize is pending").
 */
#ifndef DUCTILE_EMPI_H
#define DUCTILE_EMPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "ductile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The virtual world (Ductile substitutes its current world for MPI_COMM_WORLD). */
#define EMPI_COMM_WORLD MPI_COMM_WORLD

/* Constants, with FlexMPI's values. */
enum {
    EMPI_DISJOINT = 674782, /* distributed: each process holds its block */
    EMPI_SHARED = 617828,   /* replicated: every process holds all of it */
    EMPI_ACTIVE = 776765,   /* EMPI_Get_status: this process takes part */
    EMPI_REMOVED = 787634,  /* EMPI_Get_status: this process left the world; leave the loop */
    EMPI_SPAWNED = 938594,  /* EMPI_Get_type: started by a resize */
    EMPI_NATIVE = 941490    /* EMPI_Get_type: started by mpiexec */
};

/* More FlexMPI constants (same values as FlexMPI's vars.h / defs.h), for
 * programs that pass or compare them; see docs/malleability.md for what
 * Ductile does with each. */
enum {
    EMPI_TRUE = 674321, EMPI_FALSE = 684312, EMPI_ERROR = 939199, EMPI_NULL = 949998, EMPI_END = 921028,
    EMPI_CBAL = 182919, EMPI_CUSER = 192018, EMPI_STRUCT_DENSE = 534321, EMPI_STRUCT_SPARSE = 544312,
    EMPI_STATIC = 324542, EMPI_DYNAMIC = 325765, EMPI_TO_REMOVE = 792214, EMPI_SPAWNED_SYNC = 938593,
    EMPI_LBMFLOPS = 854392, EMPI_LBCOUNTS = 829010, EMPI_LBSTATIC = 829099, EMPI_ROWS = 748838, EMPI_NNZ = 782891,
    EMPI_FCOST = 728191, EMPI_BALANCED = 189312, EMPI_UNBALANCED = 135894,
    /* EMPI_Set_policy */
    EMPI_EFFICIENCY = 312341, EMPI_EFFICIENCY_IRR = 312910, EMPI_COST = 391021, EMPI_COST_IRR = 310494,
    EMPI_LBALANCE = 357831, EMPI_MALLEABILITY = 341219, EMPI_MALLEABILITY_COND = 391000,
    EMPI_MALLEABILITY_TRIG = 391050, EMPI_MONITORDBG = 303891,
    /* data kinds */
    EMPI_SPARSE = 434589, EMPI_VECTOR = 458910, EMPI_DENSE = 464890, EMPI_VAR = 457682
};
#define EMPI_root 0

/* FlexMPI globals that its programs read (vars.h).  Ductile keeps these up
 * to date: tover = seconds spent in EMPI_Monitor_end (control points);
 * overhead_processes = seconds of the control points that resized
 * (processes and data together: the per-phase split is in the report);
 * overhead_rpolicy = seconds of the other control points; overhead_rdata,
 * overhead_lbalance, cum_cost = 0 (no separate figure / no load balancing
 * / no cost model); iteration = the last control point's; status / type as
 * EMPI_Get_status / EMPI_Get_type; vcounts / displs = every rank's block of
 * the first distributed item (size entries); tcomp / tcomm as the
 * EMPI_Get_aggregated_* calls last returned. */
extern double EMPI_GLOBAL_tover, EMPI_GLOBAL_overhead_lbalance, EMPI_GLOBAL_overhead_rdata,
    EMPI_GLOBAL_overhead_processes, EMPI_GLOBAL_overhead_rpolicy, EMPI_GLOBAL_lastoverhead_rdata,
    EMPI_GLOBAL_lastoverhead_processes, EMPI_GLOBAL_cum_cost, EMPI_GLOBAL_cum_time, EMPI_GLOBAL_tcomp,
    EMPI_GLOBAL_tcomm, EMPI_GLOBAL_obj_texec;
extern int EMPI_GLOBAL_niter, EMPI_GLOBAL_iteration, EMPI_GLOBAL_maxprocs, EMPI_GLOBAL_minprocs, EMPI_GLOBAL_nhosts,
    EMPI_GLOBAL_wpolicy, EMPI_GLOBAL_lbpolicy, EMPI_GLOBAL_mpolicy, EMPI_GLOBAL_lbalance_disabled,
    EMPI_GLOBAL_status, EMPI_GLOBAL_type;
extern int *EMPI_GLOBAL_vcounts, *EMPI_GLOBAL_displs;

/* Ductile extension flags for EMPI_Register_array. */
#define EMPI_VARIABLE 0 /* data changes every iteration: moves at the control point */
#define EMPI_CONSTANT 1 /* data does not change: may move in the background (DUCTILE_REDIST_CONSTANT=nb) */

/* The block of `dim` rows owned by `rank` of `size`: *count rows from row
 * *desp.  vcounts / displs (may be NULL) receive every rank's count and
 * displacement (size entries each).  FlexMPI's distribution: the dim % size
 * extra rows go to the LAST ranks (DUCTILE_WSIZE=first gives them to the
 * first ranks instead); every distributed item is laid out the same way.
 * In a removed process *desp = *count = -1 (as FlexMPI). */
void EMPI_Get_wsize(int rank, int size, int dim, int *desp, int *count, int *vcounts, int *displs);
/* Register the global problem size (rows) without data: EMPI_Monitor_end's
 * count / disp then follow it when no distributed item is registered. */
void EMPI_Register_size(int size);

/* Register a dense dim x dim matrix of `datatype`, distributed by rows
 * (EMPI_DISJOINT: addr holds my count x dim block) or replicated
 * (EMPI_SHARED: addr holds all dim x dim elements). */
void EMPI_Register_dense(char *id, void *addr, MPI_Datatype datatype, int size, int mapping);
/* Register a vector of `size` elements, distributed (EMPI_DISJOINT: addr
 * holds my count elements) or replicated (EMPI_SHARED). */
void EMPI_Register_vector(char *id, void *addr, MPI_Datatype datatype, int size, int mapping);
/* Register a CSR sparse matrix (row pointers, column indices, values; int
 * indices as FlexMPI): my EMPI_Get_wsize rows, row pointers count + 1 of
 * them from 0, nnz = my non-zeros (0 in a spawned process).  At a resize the
 * rows move block-distributed; EMPI_Get_addr_sparse then gives the new
 * arrays (Ductile's) and EMPI_Monitor_end's count / disp the new rows. */
void EMPI_Register_sparse(char *id, void *addr_row, void *addr_col, void *addr_val, MPI_Datatype datatype, int size,
                          int nnz);
/* Forget a registered item (its buffer is not freed).  Refused, with a
 * message on stderr, while a resize is pending (the item stays registered). */
void EMPI_Deregister_shared(char *id);
/* The current buffer of a registered item (NULL if unknown). */
void *EMPI_Get_addr(char *id);
void EMPI_Get_addr_sparse(char *id, void **addr_row, void **addr_col, void **addr_val);
/* In a spawned process: receive the registered data (call it after
 * registering everything, in the same order as the running processes) and
 * the iteration to continue from.  It returns when every buffer the process
 * registered holds its data (in every mode, background ones included).  A
 * no-op (*it untouched) in native ones. */
void EMPI_Get_shared(int *it);

/* Start of an iteration (monitoring).  Both FlexMPI forms are accepted:
 * EMPI_Monitor_init() and EMPI_Monitor_init(&rank, procs_hint, excl_nodes_hint). */
void EMPI_Monitor_init(int *rank, int procs_hint, int excl_nodes_hint);
void ductile_empi_monitor_init0(void);
#if defined(__GNUC__) || defined(__clang__)
#define DUCTILE_EMPI_NARG_(...) DUCTILE_EMPI_NARG2_(0, ##__VA_ARGS__, 3, 2, 1, 0)
#define DUCTILE_EMPI_NARG2_(_0, _1, _2, _3, N, ...) N
#define DUCTILE_EMPI_CAT_(a, b) a##b
#define DUCTILE_EMPI_SEL_(n) DUCTILE_EMPI_CAT_(DUCTILE_EMPI_MONINIT_, n)
#define DUCTILE_EMPI_MONINIT_0() ductile_empi_monitor_init0()
/* strict ISO modes keep the comma before an empty __VA_ARGS__: () counts as 1 */
#define DUCTILE_EMPI_MONINIT_1(x) ductile_empi_monitor_init0()
#define DUCTILE_EMPI_MONINIT_3(r, p, e) (EMPI_Monitor_init)((r), (p), (e))
#define EMPI_Monitor_init(...) DUCTILE_EMPI_SEL_(DUCTILE_EMPI_NARG_(__VA_ARGS__))(__VA_ARGS__)
#endif

/* The control point: end of iteration `iter`.  A resize may happen here
 * (collective over the world).  On return *rank and *size are the current
 * ones, and *count / *disp (and, when non-NULL, *vcount / *vdisp, realloc'ed
 * to the new size) describe the blocks of the first registered distributed
 * item.  maxiter (the iteration count the loop runs to) is sent to ductiled,
 * whose performance model takes the remaining work from it; fc, argv and
 * bin are accepted for compatibility and unused.  Any of count, disp,
 * vcount, vdisp may be NULL.  A value that does not fit an int (an item of
 * more than INT_MAX rows, registered with EMPI_Register_array or
 * EMPI_Register_csr) is never truncated: it comes back as MPI_UNDEFINED
 * (MPI's answer for a count an int cannot hold), with an error on stderr
 * (once per process) naming the value and EMPI_Monitor_end64; so do such
 * entries of EMPI_GLOBAL_vcounts / EMPI_GLOBAL_displs (without a message).
 * In a process this control point removed (EMPI_Get_status gives
 * EMPI_REMOVED) *count = *disp = -1, as EMPI_Get_wsize's, and *rank, *size,
 * *vcount and *vdisp are left as they were (the process's old rank and
 * size: test the status before using them, e.g. before `if (rank == 0)`).
 * With DUCTILE_DISABLE=1 nothing resizes and the outputs are those of a
 * static run: MPI's rank and size, the default distribution's blocks. */
void EMPI_Monitor_end(int *rank, int *size, int iter, int maxiter, int *count, int *disp, int **vcount, int **vdisp,
                      int *fc, char *argv[], char *bin);
/* EMPI_Monitor_end with 64-bit blocks (Ductile; the arguments in the same
 * order): *count / *disp my block, *vcount / *vdisp (int64_t arrays the
 * program allocated with malloc, realloc'ed to the new size, or NULL) every
 * rank's.  For any item size. */
void EMPI_Monitor_end64(int *rank, int *size, int iter, int maxiter, int64_t *count, int64_t *disp, int64_t **vcount,
                        int64_t **vdisp, int *fc, char *argv[], char *bin);

/* EMPI_ACTIVE or EMPI_REMOVED. */
void EMPI_Get_status(int *status);
/* EMPI_NATIVE or EMPI_SPAWNED. */
void EMPI_Get_type(int *type);

/* FlexMPI's policy and tuning calls.  Accepted for source compatibility:
 * Ductile resizes when DUCTILE_SCHEDULE or a controller says so, whatever
 * the policy (an unknown policy stops the job with a message, as in
 * FlexMPI); the values land in the EMPI_GLOBAL_* variables.
 * EMPI_Set_maxprocs is honoured: the job refuses to grow above it (never
 * below the current size, as in FlexMPI; ductile_set_sizes' max), and
 * EMPI_Get_minprocs gives the job's minimum (1 when none is set). */
void EMPI_Set_policy(int policy);
void EMPI_Set_niter(int niter);
void EMPI_Set_maxprocs(int nprocs);
void EMPI_Get_minprocs(int *nprocs);
void EMPI_Set_lbpolicy(int lbpolicy);
void EMPI_Disable_lbalance(void);
void EMPI_Enable_lbalance(void);
void EMPI_Set_type(int type);
void EMPI_Capture_comms(int mpi_op, int *size, MPI_Datatype datatype);
/* Seconds since MPI_Init. */
void EMPI_Get_exec_time(double *extime);

/* Seconds this process spent computing (wall time outside MPI) and in MPI
 * communication since MPI_Init. */
void EMPI_Get_aggregated_tcomp(double *tcomp);
void EMPI_Get_aggregated_tcomm(double *tcomm);

/* Memory for registered data: Ductile frees it when it replaces it after a resize. */
void *EMPI_malloc(size_t size);
void *EMPI_calloc(size_t nmemb, size_t size);
/* Free memory and deregister `id` (id may be NULL).  While a resize is
 * pending, an item or buffer its transfer may still use is gone for the
 * program at once but freed (and deregistered) by Ductile only when the
 * resize ends (docs/malleability.md). */
void EMPI_free(void *addr, char *id);

/* ---- Ductile extensions (what MaM has and FlexMPI lacks) ---- */

/* A distributed (EMPI_DISJOINT) or replicated (EMPI_SHARED) array of `rows`
 * rows of `row_elems` elements each, any datatype, 64-bit sizes; flags
 * EMPI_VARIABLE or EMPI_CONSTANT.  Returns 0, or -1 with a message on stderr. */
int EMPI_Register_array(const char *id, void *addr, MPI_Datatype datatype, int64_t rows, int64_t row_elems,
                        int mapping, int flags);
/* The iteration of the latest control point of the world: what the loop
 * counter holds when EMPI_Monitor_end returns.  Call it right after
 * EMPI_Monitor_end, i.e.
 *
 *     EMPI_Monitor_end(&rank, &size, it, itmax, ...);
 *     EMPI_Get_iteration(&it);
 *
 * It changes nothing in a process that took part in every iteration.  With
 * DUCTILE_PERSISTENT=1 a removed process stands by inside EMPI_Monitor_end
 * and may return from it at a later expansion, iterations later: this call
 * gives it the others' iteration.  A program that never calls it keeps the
 * usual behaviour (removed processes leave). */
void EMPI_Get_iteration(int *it);
/* The number of rows the buffer registered for the distributed item `id`
 * holds (its capacity), so that Ductile can refuse a resize that would give
 * this process a larger block than the buffer holds, before anything moves
 * (docs/malleability.md, "Buffers").  Call it after registering; it applies
 * to the buffer registered then (a new registration forgets it).  Ductile
 * knows the size of EMPI_malloc'ed buffers without it.  Returns 0, or -1
 * with a message (unknown or non-distributed item, negative count). */
int EMPI_Set_buffer_rows(const char *id, int64_t rows);
/* The flags of a registered item, as EMPI_Register_array takes them:
 * EMPI_VARIABLE or EMPI_CONSTANT (its data does not change from now on: it
 * may move in the background, DUCTILE_REDIST_CONSTANT=nb|wd|thread).  For
 * the items registered without flags: EMPI_Register_sparse and
 * EMPI_Register_csr matrices, N-D blocks, patch sets, custom data,
 * EMPI_Register_vector / _dense arrays.  Call it after registering, on
 * every process (spawned ones too, before EMPI_Get_shared: the flag must
 * match).  Scalars are refused (they move at the control point).  Returns 0, or
 * -1 with a message on stderr (unknown item, other kind, other flags, a
 * resize pending). */
int EMPI_Set_flags(const char *id, int flags);
/* A scalar (`count` elements of datatype, replicated; new processes get rank 0's value). */
int EMPI_Register_scalar(const char *id, void *addr, MPI_Datatype datatype, int count);
/* 64-bit EMPI_Get_wsize: my block of n rows (EMPI_Monitor_end64 is the
 * 64-bit control point). */
void EMPI_Get_wsize64(int rank, int size, int64_t n, int64_t *desp, int64_t *count);

/* ---- Reconfiguration hooks (docs/malleability.md, "Reconfiguration hooks") ---- */

/* What a committed resize changed for this process (struct ductile_reconfig
 * of <ductile.h>: id, kind, baseline, role, old_size/old_rank,
 * new_size/new_rank, iteration). */
typedef struct ductile_reconfig EMPI_Reconfig;
typedef void (*EMPI_Reconfig_fn)(const EMPI_Reconfig *info, void *arg);
/* ductile_on_reconfigure: fn runs on every process of a committed resize
 * before the control point (or, in a spawned process, EMPI_Get_shared)
 * returns, never after a rolled-back one.  Returns 0 or -1. */
int EMPI_Set_reconfig_hook(EMPI_Reconfig_fn fn, void *arg);
/* ductile_last_reconfig: 1 when the latest control point (or EMPI_Get_shared)
 * changed the world, with *info; else 0.  Call it right after
 * EMPI_Monitor_end. */
int EMPI_Get_reconfig(EMPI_Reconfig *info);
/* Only inside a reconfiguration hook, collective over the old and the new
 * processes of the resize (every process that runs the hook must call it):
 * a new communicator over all of them, the old ones first in their old order
 * (ranks 0..old_size-1), then the new ones (Merge expansion: the new world
 * itself; Baseline: the old processes, then the new ones; shrink: the old
 * world).  For moving the program's own data between them.  The program frees
 * it (MPI_Comm_free) before it returns from the hook or later; a removed
 * process that keeps it stays connected to the others.  Returns 0, or -1
 * with *comm = MPI_COMM_NULL and a message (outside a hook, or after a
 * shrink whose removed processes stand by under DUCTILE_PERSISTENT: they do
 * not run the hook then). */
int EMPI_Reconfig_comm(MPI_Comm *comm);

/* ---- General data (docs/data.md) ---- */

/* N-D block data: an array of ndims (1-3) dimensions of gsizes[] elements
 * (C order: the last dimension is contiguous), decomposed over the process
 * grid MPI_Dims_create(size, ndims) gives (or the program's grid function,
 * EMPI_Register_block_grid), ranks in row-major grid order
 * (MPI_Cart_create without reorder), each dimension block-distributed like
 * EMPI_Get_wsize; the local array holds my interior block with halo[d]
 * cells on both sides in each dimension (lsizes = subsizes + 2 * halo; the
 * interior starts at index halo[d]).  Ductile allocates the local array
 * (zeroed) and the Cartesian communicator of the current world (not
 * periodic, unless registered so); both are Ductile's.  Blocks registered
 * with the same ndims, periodicity and grid function (and argument) share
 * one process grid and one communicator (comm is the same handle). */
typedef struct EMPI_Block {
    int ndims;
    int gsizes[3], halo[3];   /* as registered (unused dimensions: 1 and 0) */
    int dims[3], coords[3];   /* the process grid and my place in it */
    int starts[3];            /* global index of my first interior element */
    int subsizes[3];          /* my interior block */
    int lsizes[3];            /* my local array: subsizes + 2 * halo */
    MPI_Comm comm;            /* Cartesian communicator of the current world */
    void *addr;               /* my local array */
} EMPI_Block;
/* Register (collective over the world, like MPI_Cart_create); *blk (may be
 * NULL) receives the block.  After every control point that resized, call
 * EMPI_Get_block: the local array holds the new block with its halos filled
 * from the neighbours, and comm is a new Cartesian communicator (the old one
 * is freed).  Spawned processes register the same way before
 * EMPI_Get_shared.  Returns 0, or -1 with a message on stderr. */
int EMPI_Register_block(const char *id, MPI_Datatype datatype, int ndims, const int gsizes[], const int halo[],
                        EMPI_Block *blk);
int EMPI_Get_block(const char *id, EMPI_Block *blk);
/* The program's process grid for nprocs processes: fill dims[0..ndims-1]
 * (each >= 1, product nprocs) and return 0, or return non-zero when the
 * program cannot run on nprocs processes.  It must give the same answer on
 * every process (it runs on each, spawned ones included) and must not
 * communicate. */
typedef int (*EMPI_Grid_fn)(int nprocs, int ndims, int dims[], void *arg);
/* EMPI_Register_block with periodic dimensions (periods[d] non-zero; NULL:
 * none) and the program's grid (grid NULL: MPI_Dims_create's), called with
 * grid_arg for every world size the block lives on.  Halos of a periodic
 * dimension are filled across its boundary after a resize (from the other
 * end; from the block itself when the dimension has one process).  A resize
 * to a size the grid function refuses (or answers with a wrong grid) is
 * refused before anything starts, with the function's refusal as the
 * reason; the job goes on at its size.  Returns 0, or -1 with a message on
 * stderr (also when the function refuses the current size). */
int EMPI_Register_block_grid(const char *id, MPI_Datatype datatype, int ndims, const int gsizes[], const int halo[],
                             const int periods[], EMPI_Grid_fn grid, void *grid_arg, EMPI_Block *blk);
/* Program-owned storage: EMPI_Register_block_grid whose local arrays the
 * program allocates.  alloc(blk, strides, arg) is called for every local
 * array this process needs (at the registration, and for the new block of
 * every resize, inside the control point; blk->comm is MPI_COMM_NULL and
 * blk->addr NULL then): it returns the array and fills strides[0..2], in
 * elements, with the array's layout -- local element (i, j, k) (halo cells
 * included, unused dimensions 0) is at index i * strides[0] + j * strides[1]
 * + k * strides[2]; on entry they hold the dense C-order layout; any padding
 * is allowed as long as rows do not overlap (strides[2] >= 1, strides[1] >=
 * lsizes[2] * strides[2], strides[0] >= lsizes[1] * strides[1]).  Returning
 * NULL (or smaller strides) makes the resize fail and roll back cleanly.
 * release(addr, arg) (may be NULL) gets back an array Ductile no longer
 * uses: the old one when a resize commits, a new one when it is rolled back.
 * Ductile never zeroes or frees the program's arrays; the current one is the
 * program's to free after EMPI_free(NULL, id) (which deregisters without
 * freeing) or at the end.  The callbacks must
 * not communicate.  Read the strides with EMPI_Get_block_strides after every
 * EMPI_Get_block. */
typedef void *(*EMPI_Block_alloc_fn)(const EMPI_Block *blk, int64_t strides[3], void *arg);
typedef void (*EMPI_Block_free_fn)(void *addr, void *arg);
int EMPI_Register_block_storage(const char *id, MPI_Datatype datatype, int ndims, const int gsizes[],
                                const int halo[], const int periods[], EMPI_Grid_fn grid, void *grid_arg,
                                EMPI_Block_alloc_fn alloc, EMPI_Block_free_fn release, void *arg, EMPI_Block *blk);
int EMPI_Get_block_strides(const char *id, int64_t strides[3]);

/* A CSR sparse matrix with 64-bit row pointers and column indices: my rows
 * [row0, row0 + rows) of nrows, rowptr[0..rows] from 0, col / val of
 * rowptr[rows] entries.  At a resize the rows move to the new processes
 * block-distributed (balance EMPI_ROWS, the rows of EMPI_Get_wsize) or
 * balanced by non-zeros (EMPI_NNZ).  The new arrays are Ductile's
 * (EMPI_malloc'ed); get them and the new range with EMPI_Get_csr.  Spawned
 * processes register with rows = 0 (NULL arrays).  EMPI_Register_sparse
 * (FlexMPI's, int indices) is the same with balance EMPI_ROWS and my
 * EMPI_Get_wsize rows.  Returns 0, or -1 with a message on stderr. */
int EMPI_Register_csr(const char *id, int64_t *rowptr, int64_t *col, void *val, MPI_Datatype datatype, int64_t nrows,
                      int64_t row0, int64_t rows, int balance);
/* (EMPI_Register_csr items only: one registered with EMPI_Register_sparse has int arrays, get them
 * with EMPI_Get_addr_sparse; -1 with a message) */
int EMPI_Get_csr(const char *id, int64_t **rowptr, int64_t **col, void **val, int64_t *row0, int64_t *rows,
                 int64_t *nnz);
/* The row range of any sparse item (EMPI_Register_sparse or _csr). */
int EMPI_Get_sparse_rows(const char *id, int64_t *row0, int64_t *rows, int64_t *nnz);

/* Custom data moved by callbacks at the control point.  At a resize, every
 * process that held data (an old rank) is asked, for each new rank k =
 * 0..new_size-1 in order, size(user, k, new_size) bytes (>= 0, -1 = error)
 * and pack(user, k, new_size, buf, bytes) (0 = ok): what new rank k gets of
 * my data.  Then every process of the new world gets unpack(user, r,
 * old_size, buf, bytes) for each old rank r = 0..old_size-1 in order (bytes
 * may be 0); the first one (r = 0) is the moment to drop the old data, which
 * was packed already.  size and pack must only read the data: the resize may
 * still be rolled back after them (a failure of another item or process).
 * The unpacks run once every item moved and every process agreed; if the
 * resize is rolled back before (any size/pack failing anywhere included), no
 * unpack happens anywhere and the data stays as it was.  Right before its
 * first unpack a process is asked for all its data, size(user, 0, 1) and
 * pack(user, 0, 1, ...) (a snapshot); an unpack that fails on any process
 * rolls the resize back, and every process that unpacked then gets
 * unpack(user, 0, 1, snapshot) to restore its data (docs/data.md).  The
 * callbacks run inside
 * EMPI_Monitor_end (EMPI_Get_shared in spawned processes) and must not
 * communicate. */
typedef int64_t (*EMPI_Custom_size_fn)(void *user, int new_rank, int new_size);
typedef int (*EMPI_Custom_pack_fn)(void *user, int new_rank, int new_size, void *buf, int64_t bytes);
typedef int (*EMPI_Custom_unpack_fn)(void *user, int old_rank, int old_size, const void *buf, int64_t bytes);
int EMPI_Register_custom(const char *id, EMPI_Custom_size_fn size, EMPI_Custom_pack_fn pack,
                         EMPI_Custom_unpack_fn unpack, void *user);

/* Patch sets, repartitioned as in seed 003 (docs/data.md): a global index
 * space of ndims (1-3) dimensions gsizes[], cut by an imposed grid of patches
 * of psizes[] (the last ones truncated).  The data starts as my block of the
 * MPI_Dims_create grid of the world (EMPI_Get_patch_block: starts, subsizes,
 * addr; no halos); EMPI_Repartition (collective) moves it onto patches over
 * the same processes, and every resize onto patches over the new ones.
 * Placement: greedy (each patch on the process holding most of it: least
 * data movement) or balanced (floor(M/N) or floor(M/N)+1 patches each).
 * Scheme: per patch (one message per patch fragment, subarray datatypes),
 * per rank (one packed buffer per process pair) or auto (a cost estimate
 * picks; the reason is in the stats).  Each of my patches is a separate
 * contiguous C-order array (EMPI_Get_patches: Ductile's array of them). */
enum { EMPI_PLACE_GREEDY = 1, EMPI_PLACE_BALANCED = 2 };
enum { EMPI_COMM_AUTO = 0, EMPI_COMM_PER_PATCH = 1, EMPI_COMM_PER_RANK = 2 };
typedef struct EMPI_Patch {
    int id;               /* row-major index in the patch grid */
    int lo[3], size[3];   /* global box (unused dimensions: 0 and 1) */
    void *addr;           /* size[0] x size[1] x size[2] elements, C order */
} EMPI_Patch;
typedef struct EMPI_Patch_stats {  /* this process, last repartition */
    int patches;                   /* load after it: patches and elements held */
    int64_t elements;
    int64_t bytes_sent, bytes_copied; /* to other processes / kept locally */
    int messages;                  /* sent */
    double time_s;                 /* placement + transfer, this process */
    int scheme;                    /* EMPI_COMM_PER_PATCH or EMPI_COMM_PER_RANK */
    char reason[160];              /* auto: the cost estimate */
} EMPI_Patch_stats;
int EMPI_Register_patches(const char *id, MPI_Datatype datatype, int ndims, const int gsizes[], const int psizes[],
                          int placement, int scheme);
int EMPI_Get_patch_block(const char *id, EMPI_Block *blk);
int EMPI_Repartition(const char *id);
int EMPI_Get_patches(const char *id, int *npatches, EMPI_Patch **patches);
int EMPI_Get_patch_stats(const char *id, EMPI_Patch_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
