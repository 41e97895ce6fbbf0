/* plan.h -- block-distribution arithmetic and the redistribution plan (pure, no MPI).
 *
 * Part of Ductile.  When a job is resized from `ns` processes ("sources", old
 * world) to `nd` processes ("drains", new world), every registered distributed
 * array of `n` elements is block-distributed over both worlds and must move from
 * the old blocks to the new ones.  This module computes, without any MPI call
 * and without hidden state, which element ranges move from which old rank to
 * which new rank (the block intersection, Algorithm 1 of the MaM RMA paper),
 * and turns that plan into Alltoallv-style count/displacement arrays.
 *
 * Block distribution (FlexMPI EMPI_Get_wsize semantics for dense blocks): rank
 * r of P owns count = n/P + (r < n%P) elements starting at global index
 * displ = r*(n/P) + min(r, n%P).  When P > n, ranks n..P-1 own empty blocks.
 *
 * All element counts, indices and offsets are in element units (int64_t).
 * The plan is expressed in old-rank / new-rank terms; mapping ranks onto the
 * processes of a transfer communicator is done by plan_alltoallv_arrays().
 *
 * Common argument rules: n >= 0, ns >= 1, nd >= 1, nprocs >= 1, ranks in
 * range.  Violations are reported with -1 (or as documented per function).
 * An output pointer may be NULL only when its capacity is 0.
 * Every function runs in O(ns + nd) time or better and is thread-safe.
 */
#ifndef DUCTILE_REDIST_PLAN_H
#define DUCTILE_REDIST_PLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where the n % P extra elements go.  Default (0): to the first ranks, as
 * described above.  1: to the LAST n % P ranks, FlexMPI's EMPI_Get_wsize
 * distribution: rank r owns q + (r >= P - n%P) elements from
 * r*q + max(0, r - (P - n%P)).  Every function below follows the setting.
 * Process-wide state (the only one of this module): set once, before any
 * plan is computed, to the same value in every process of a job
 * (src/malleable/empi.c does it from DUCTILE_WSIZE). */
void plan_set_remainder_last(int on);
int plan_remainder_last(void);

/* The block of one rank: `count` elements starting at global index `displ`. */
typedef struct {
    int64_t count, displ;
} plan_block;

/* Block owned by `rank` when `n` elements are block-distributed over `nprocs`
 * ranks: count = n/nprocs + (rank < n%nprocs),
 * displ = rank*(n/nprocs) + min(rank, n%nprocs).  O(1), never overflows.
 * Bad arguments (n < 0, nprocs < 1, rank outside [0, nprocs)) yield the empty
 * block {count = 0, displ = 0}; a valid empty block may have displ == n. */
plan_block plan_block_of(int64_t n, int nprocs, int rank);

/* Rank that owns global element `index` (0 <= index < n) under the block
 * distribution of plan_block_of().  O(1).  Returns -1 on bad arguments
 * (n < 0, nprocs < 1, index outside [0, n)). */
int plan_owner_of(int64_t n, int nprocs, int64_t index);

/* One transfer: `count` elements starting at global index `global_displ` move
 * from old rank `src` to new rank `dst`.
 * src_offset: index inside src's old block; dst_offset: index inside dst's new
 * block (global_displ = old_block(src).displ + src_offset
 *                     = new_block(dst).displ + dst_offset). */
typedef struct {
    int src, dst;
    int64_t global_displ, count, src_offset, dst_offset;
} plan_transfer;

/* Upper bound on the number of transfers of any plan from ns to nd ranks,
 * whatever n is: ns + nd - 1.  Returns 0 if ns < 1 or nd < 1. */
size_t plan_max_transfers(int ns, int nd);

/* The whole plan for n elements, ns -> nd: every transfer with count > 0,
 * sorted by (dst, src); this is also increasing global_displ order, and the
 * transfers tile [0, n) exactly once.  Writes into out[0..capacity).
 * Returns the number of transfers written (0 when n == 0), or -1 on bad
 * arguments or if capacity is too small (out may then be partially written).
 * capacity >= plan_max_transfers(ns, nd) always suffices.  O(ns + nd). */
long plan_compute(int64_t n, int ns, int nd, plan_transfer *out, size_t capacity);

/* Transfers in which old rank `src` (0 <= src < ns) sends, sorted by dst:
 * exactly the entries of plan_compute() with this src, in the same order.
 * Only the overlapping range is visited: O(k) for k transfers (at most nd).
 * Returns the number written (0 for an empty old block), or -1 on bad
 * arguments or insufficient capacity (out may then be partially written). */
long plan_sends_of(int64_t n, int ns, int nd, int src, plan_transfer *out, size_t capacity);

/* Transfers in which new rank `dst` (0 <= dst < nd) receives, sorted by src
 * (drain-side intersection, Algorithm 1): exactly the entries of
 * plan_compute() with this dst, in the same order.  O(k) for k transfers
 * (at most ns).  Returns the number written (0 for an empty new block), or -1
 * on bad arguments or insufficient capacity (out may be partially written). */
long plan_recvs_of(int64_t n, int ns, int nd, int dst, plan_transfer *out, size_t capacity);

/* Alltoallv arrays (element units) for one process of a transfer
 * communicator of size comm_size.
 *   my_old_rank / my_new_rank: this process's old / new rank, or -1 if it holds
 *     no old / new rank.  If both are >= 0 they must map to the same comm
 *     rank (they are the same process).
 *   old_to_comm[ns], new_to_comm[nd]: comm rank of each old / new rank, or -1
 *     if that rank is not present in the communicator.  Each map must be
 *     injective on its non-negative entries, all entries must lie in
 *     [-1, comm_size), and every rank with a non-empty block must be present
 *     (so all processes given the same maps agree on success or failure).
 *   sendcounts[c] / sdispls[c]: elements this process sends to comm rank c,
 *     and their offset inside MY OLD block.
 *   recvcounts[c] / rdispls[c]: elements received from comm rank c, and their
 *     offset inside MY NEW block.
 * Entries with a zero count have displacement 0.  Self-transfers (my old and
 * new block overlap) appear like any other, at my own comm rank; the caller
 * may turn them into a local copy.  Counts are int64_t: the caller converts
 * them to int / MPI_Count and scales by the element size as needed.
 * All four arrays are comm_size long and fully written on success.
 * Returns 0, or -1 on bad arguments (the arrays are used as scratch and their
 * contents are then unspecified).  O(ns + nd + comm_size). */
int plan_alltoallv_arrays(int64_t n, int ns, int nd, int my_old_rank, int my_new_rank,
                          const int *old_to_comm, const int *new_to_comm, int comm_size,
                          int64_t *sendcounts, int64_t *sdispls,
                          int64_t *recvcounts, int64_t *rdispls);

/* Number of elements that change owner in Ductile's rank numbering, where old
 * rank r and new rank r (r < min(ns, nd)) are the same process: n minus the
 * overlap of old block r with new block r, summed over r.  Useful for cost
 * estimates.  O(min(ns, nd)).  Returns -1 on bad arguments. */
int64_t plan_moved_elements(int64_t n, int ns, int nd);

/* The most other processes any one process exchanges elements with (sends to
 * or receives from, each counted once) in the redistribution of n elements
 * from ns to nd blocks: the message count of a point-to-point transfer, for
 * the cost model (src/rma/cost.c).  same_process: old rank r and new rank r
 * are one process (Merge); else the ns old and nd new ranks are ns + nd
 * processes (Baseline).  O(ns + nd) in total, no table.  -1 on bad arguments. */
int plan_max_partners(int64_t n, int ns, int nd, int same_process);

#ifdef __cplusplus
}
#endif

/* The distinct communicator ranks the transfers tr[0..ntr) come from: each
 * tr[k].src (an old rank) is rewritten to o2c[tr[k].src], and the distinct ones
 * other than `me` are written to out in first-seen order.  seen: comm_size
 * bytes of zeroed scratch, zeroed again on return.  O(ntr) steps (counted in
 * *ops when given), no P x partners scan.  Returns how many, or -1 on a rank
 * outside [0, comm_size). */
long plan_recv_sources(plan_transfer *tr, long ntr, const int *o2c, int comm_size, int me, unsigned char *seen,
                       int *out, uint64_t *ops);

#endif /* DUCTILE_REDIST_PLAN_H */
