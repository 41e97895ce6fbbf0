/* bytes.h -- helpers the generated wrappers use to count the bytes a call
 * moves (rules in docs/report.md), and the table of pending nonblocking and
 * persistent operations whose bytes are counted at completion. */
#ifndef DUCTILE_BYTES_H
#define DUCTILE_BYTES_H

#include <mpi.h>
#include <stdint.h>

/* Size in bytes of one element of `t`; 0 for MPI_DATATYPE_NULL. */
__attribute__((visibility("hidden"))) uint64_t ductile_type_size(MPI_Datatype t);

/* The same, without a call into the MPI for the commonest predefined C
 * types (their sizes are the C types' sizes; predefined handles never change). */
static inline uint64_t ductile_type_size_fast(MPI_Datatype t)
{
    if (t == MPI_INT) return sizeof(int);
    if (t == MPI_DOUBLE) return sizeof(double);
    if (t == MPI_BYTE || t == MPI_CHAR) return 1;
    if (t == MPI_FLOAT) return sizeof(float);
    if (t == MPI_LONG) return sizeof(long);
    return ductile_type_size(t);
}

int ductile_group_size(MPI_Comm c);  /* remote size for intercommunicators */
int ductile_local_size(MPI_Comm c);
int ductile_rank(MPI_Comm c);

/* Role of this process in a rooted collective. */
enum { DUCTILE_NO_ROLE = -1, DUCTILE_NONROOT = 0, DUCTILE_ROOT_INTRA = 1, DUCTILE_ROOT_INTER = 2 };
int ductile_root_role(int root, MPI_Comm c);

/* In- and out-degree of a process topology (0 when the comm has none). */
void ductile_neighbor_degrees(MPI_Comm c, int *in, int *out);

/* The same as neighbour slots, with a mask of the slots that are
 * MPI_PROC_NULL (bit k: the k-th neighbour; Cartesian edges), which move
 * nothing; ductile_real_neighbors: slots minus those. */
void ductile_neighbor_slots(MPI_Comm c, int *in, int *out, uint64_t *null_mask);
int ductile_real_neighbors(int slots, uint64_t null_mask);
uint64_t ductile_sum_mask_i(const int *counts, int n, uint64_t null_mask);
uint64_t ductile_sum_mask_c(const MPI_Count *counts, int n, uint64_t null_mask);
uint64_t ductile_sumw_mask_i(const int *counts, const MPI_Datatype *types, int n, uint64_t null_mask);
uint64_t ductile_sumw_mask_c(const MPI_Count *counts, const MPI_Datatype *types, int n, uint64_t null_mask);

uint64_t ductile_sum_i(const int *counts, int n);
uint64_t ductile_sum_c(const MPI_Count *counts, int n);
uint64_t ductile_sumw_i(const int *counts, const MPI_Datatype *types, int n);
uint64_t ductile_sumw_c(const MPI_Count *counts, const MPI_Datatype *types, int n);

/* Bytes that arrived (or were read), from a completion status. */
uint64_t ductile_status_bytes(const MPI_Status *status);

/* Pending operations: a nonblocking or persistent call records its request
 * here (ductile_pending_add, 1 when recorded; 0 when the table is full, then
 * the caller counts the posted bytes at once) and its bytes are counted to
 * the function that started it when a Wait/Test call completes it, unless it
 * was cancelled; with DUCTILE_PEND_RECV_STATUS the received bytes are taken
 * from the completion status. */
enum { DUCTILE_PEND_RECV_STATUS = 1, DUCTILE_PEND_PERSISTENT = 2, DUCTILE_PEND_ACTIVE = 4 };
int ductile_pending_add(MPI_Request req, int fn, uint64_t sent, uint64_t recv, unsigned flags);

/* Completion calls (Wait/Test families): ductile_done_begin before the call
 * keeps the request handles and returns the status (array) to pass, a private
 * one when the caller ignores statuses; ductile_done_end after it counts the
 * ndone completed requests (indices: their positions, NULL for 0..ndone-1;
 * by_position: status j belongs to the j-th completed request). Nothing is
 * copied while no operation is pending. */
#define DUCTILE_DONE_SMALL 8
struct ductile_done {
    int on, heap;
    MPI_Request *reqs;
    MPI_Status *sts;
    MPI_Request rbuf[DUCTILE_DONE_SMALL];
    MPI_Status sbuf[DUCTILE_DONE_SMALL];
};
MPI_Status *ductile_done_begin(struct ductile_done *d, int n, const MPI_Request *reqs, MPI_Status *st, int nst,
                               int many);
void ductile_done_end(struct ductile_done *d, int ndone, const int *indices, int by_position);

/* Persistent requests (hand-written MPI_Start/Startall/Request_free):
 * lookup marks a recorded request started (its bytes are counted when it
 * completes, so *sent = *recv = 0); remove forgets a freed request. */
int ductile_persist_lookup(MPI_Request req, uint64_t *sent, uint64_t *recv);
void ductile_persist_remove(MPI_Request req);

#endif
