/* bytes.h -- helpers the generated wrappers use to count the bytes a call
 * moves (rules in docs/report.md), and the table that remembers the bytes of
 * persistent requests until each MPI_Start. */
#ifndef DUCTILE_BYTES_H
#define DUCTILE_BYTES_H

#include <mpi.h>
#include <stdint.h>

/* Size in bytes of one element of `t`; 0 for MPI_DATATYPE_NULL. */
uint64_t ductile_type_size(MPI_Datatype t);

int ductile_group_size(MPI_Comm c);  /* remote size for intercommunicators */
int ductile_local_size(MPI_Comm c);
int ductile_rank(MPI_Comm c);

/* Role of this process in a rooted collective. */
enum { DUCTILE_NO_ROLE = -1, DUCTILE_NONROOT = 0, DUCTILE_ROOT_INTRA = 1, DUCTILE_ROOT_INTER = 2 };
int ductile_root_role(int root, MPI_Comm c);

/* In- and out-degree of a process topology (0 when the comm has none). */
void ductile_neighbor_degrees(MPI_Comm c, int *in, int *out);

uint64_t ductile_sum_i(const int *counts, int n);
uint64_t ductile_sum_c(const MPI_Count *counts, int n);
uint64_t ductile_sumw_i(const int *counts, const MPI_Datatype *types, int n);
uint64_t ductile_sumw_c(const MPI_Count *counts, const MPI_Datatype *types, int n);

/* Persistent requests: bytes recorded at *_init, counted at each start. */
void ductile_persist_add(MPI_Request req, uint64_t sent, uint64_t recv);
int ductile_persist_lookup(MPI_Request req, uint64_t *sent, uint64_t *recv);
void ductile_persist_remove(MPI_Request req);

#endif
