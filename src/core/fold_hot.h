/* fold_hot.h -- what the wrappers need from process folding (defined in
 * src/fold/; declared here, at the bottom of the include graph, so that
 * src/wrap does not include src/fold):
 * one relaxed atomic load of ductile_fold_flag per call.  Bit PENDING is set
 * by the application controller thread (a fold or unfold command arrived,
 * rank 0) or by the fold poller (every rank: look for a command from rank 0);
 * the slow path, ductile_fold_point(), runs only then.  Bit YIELD is set while
 * this process shares its cores with others of the job (folded below one core
 * per rank): the blocking point-to-point and completion calls then wait by
 * test-and-yield (src/fold/yield.c) instead of spinning in the MPI. */
#ifndef DUCTILE_FOLD_HOT_H
#define DUCTILE_FOLD_HOT_H

#include <mpi.h>

#define DUCTILE_FOLD_PENDING 1u
#define DUCTILE_FOLD_YIELD 2u

extern __attribute__((visibility("hidden"))) unsigned ductile_fold_flag;

/* Slow path (src/fold/fold.c): a safe point; returns the flag afterwards. */
__attribute__((visibility("hidden"))) unsigned ductile_fold_point(int fn);

static inline unsigned ductile_fold_check(int fn)
{
    unsigned f = __atomic_load_n(&ductile_fold_flag, __ATOMIC_RELAXED);
    if (__builtin_expect(f & DUCTILE_FOLD_PENDING, 0)) f = ductile_fold_point(fn);
    return f;
}

/* Test-and-yield versions of blocking calls (src/fold/yield.c): same
 * arguments, results and errors as PMPI_<name>, used only while YIELD is set
 * (the communicator is already the MPI's, not the program's world). */
#define DUCTILE_YIELD_DECL __attribute__((visibility("hidden")))
DUCTILE_YIELD_DECL int ductile_yield_Wait(MPI_Request *request, MPI_Status *status);
DUCTILE_YIELD_DECL int ductile_yield_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses);
DUCTILE_YIELD_DECL int ductile_yield_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
DUCTILE_YIELD_DECL int ductile_yield_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                                              int array_of_indices[], MPI_Status *array_of_statuses);
DUCTILE_YIELD_DECL int ductile_yield_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                          MPI_Status *status);
DUCTILE_YIELD_DECL int ductile_yield_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                                          MPI_Comm comm);
DUCTILE_YIELD_DECL int ductile_yield_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                                           MPI_Comm comm);
DUCTILE_YIELD_DECL int ductile_yield_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                                           MPI_Comm comm);
DUCTILE_YIELD_DECL int ductile_yield_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                                              int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                              int source, int recvtag, MPI_Comm comm, MPI_Status *status);
DUCTILE_YIELD_DECL int ductile_yield_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
DUCTILE_YIELD_DECL int ductile_yield_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                                            MPI_Status *status);
DUCTILE_YIELD_DECL int ductile_yield_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                                           MPI_Status *status);

#endif
