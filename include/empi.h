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
 * allocated it).  A spawned process receives into the buffers it registered,
 * which must be sized for its block (EMPI_Get_wsize).
 */
#ifndef DUCTILE_EMPI_H
#define DUCTILE_EMPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

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

/* Ductile extension flags for EMPI_Register_array. */
#define EMPI_VARIABLE 0 /* data changes every iteration: moves at the control point */
#define EMPI_CONSTANT 1 /* data does not change: may move in the background (DUCTILE_REDIST_CONSTANT=nb) */

/* The block of `dim` rows owned by `rank` of `size`: *count rows from row
 * *desp.  vcounts / displs (may be NULL) receive every rank's count and
 * displacement (size entries each). */
void EMPI_Get_wsize(int rank, int size, int dim, int *desp, int *count, int *vcounts, int *displs);

/* Register a dense dim x dim matrix of `datatype`, distributed by rows
 * (EMPI_DISJOINT: addr holds my count x dim block) or replicated
 * (EMPI_SHARED: addr holds all dim x dim elements). */
void EMPI_Register_dense(char *id, void *addr, MPI_Datatype datatype, int size, int mapping);
/* Register a vector of `size` elements, distributed (EMPI_DISJOINT: addr
 * holds my count elements) or replicated (EMPI_SHARED). */
void EMPI_Register_vector(char *id, void *addr, MPI_Datatype datatype, int size, int mapping);
/* Register a CSR sparse matrix (row pointers, column indices, values).  The
 * registration is accepted and EMPI_Get_addr_sparse returns the arrays, but
 * a resize while sparse data is registered is refused (with a reason in the
 * report): sparse redistribution is not implemented yet. */
void EMPI_Register_sparse(char *id, void *addr_row, void *addr_col, void *addr_val, MPI_Datatype datatype, int size,
                          int nnz);
/* Forget a registered item (its buffer is not freed). */
void EMPI_Deregister_shared(char *id);
/* The current buffer of a registered item (NULL if unknown). */
void *EMPI_Get_addr(char *id);
void EMPI_Get_addr_sparse(char *id, void **addr_row, void **addr_col, void **addr_val);
/* In a spawned process: receive the registered data (call it after
 * registering everything, in the same order as the running processes) and
 * the iteration to continue from.  A no-op (*it untouched) in native ones. */
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
 * bin are accepted for compatibility and unused. */
void EMPI_Monitor_end(int *rank, int *size, int iter, int maxiter, int *count, int *disp, int **vcount, int **vdisp,
                      int *fc, char *argv[], char *bin);

/* EMPI_ACTIVE or EMPI_REMOVED. */
void EMPI_Get_status(int *status);
/* EMPI_NATIVE or EMPI_SPAWNED. */
void EMPI_Get_type(int *type);

/* Seconds this process spent computing (wall time outside MPI) and in MPI
 * communication since MPI_Init. */
void EMPI_Get_aggregated_tcomp(double *tcomp);
void EMPI_Get_aggregated_tcomm(double *tcomm);

/* Memory for registered data: Ductile frees it when it replaces it after a resize. */
void *EMPI_malloc(size_t size);
void *EMPI_calloc(size_t nmemb, size_t size);
/* Free memory and deregister `id` (id may be NULL). */
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
/* A scalar (`count` elements of datatype, replicated; new processes get rank 0's value). */
int EMPI_Register_scalar(const char *id, void *addr, MPI_Datatype datatype, int count);
/* 64-bit EMPI_Get_wsize: my block of n rows. */
void EMPI_Get_wsize64(int rank, int size, int64_t n, int64_t *desp, int64_t *count);

#ifdef __cplusplus
}
#endif

#endif
