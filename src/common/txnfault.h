/* txnfault.h -- the allocations and MPI calls of a resize go through these
 * small wrappers, which count them while a resize runs on this process and
 * fail the k-th one on purpose in tests, and the checkpoint that tells every
 * process of a transfer whether all are still able to move data.  Settings
 * (tests only, docs/malleability.md "Failures"):
 *   DUCTILE_TEST_FAIL=alloc:K@RANK  the K-th counted allocation of each resize
 *                                   returns NULL on RANK
 *   DUCTILE_TEST_FAIL=mpi:K@RANK    the K-th counted MPI call of each resize
 *                                   runs, and then reports an error on RANK
 *   DUCTILE_TEST_FAIL=count@RANK    RANK prints how many of each a resize made
 *   ...@RANK%N                      (alloc, mpi) only in resizes 1, N+1, 2N+1, ... of the job
 *   DUCTILE_TEST_DELAY=STEP:SECONDS@RANK  RANK sleeps before STEP (txn_delay)
 * RANK numbers the processes of the resize: the old ones by their rank, then
 * the new ones after them (their rank in the transfer communicator).
 *
 * Counted MPI calls are the communication of a resize (collectives,
 * point-to-point, one-sided reads and epochs, waits and completed tests); an
 * injected one has done its work (a started request is completed first), so
 * the other processes never wait for it: only the failing process sees an
 * error.  The agreements (txn_all_ok here, the transaction's in
 * src/malleable/transaction.c) and the calls that create communicators,
 * windows or connections are not counted.  Nothing here is on the per-call
 * path. */
#ifndef DUCTILE_TXNFAULT_H
#define DUCTILE_TXNFAULT_H

#include <mpi.h>
#include <stddef.h>

/* Parse DUCTILE_TEST_FAIL's counted forms and DUCTILE_TEST_DELAY (NULL or ""
 * for none).  0, or -1 with a message naming the setting.  The plain step
 * names of DUCTILE_TEST_FAIL (spawn, alloc, ...) are accepted and left to the
 * engine. */
int txn_fault_setup(const char *test_fail, const char *test_delay, char *err, size_t errlen);

/* A resize runs on this process from txn_begin to txn_pause (the program
 * runs in between: a background resize, a spawned process before
 * EMPI_Get_shared) or txn_end.  `id` is the resize's; the counts restart
 * when it changes.  `rank` as RANK above. */
void txn_begin(int id, int rank);
void txn_pause(void);
void txn_end(void);

/* malloc, calloc, realloc, counted. */
void *txn_malloc(size_t size);
void *txn_calloc(size_t n, size_t size);
void *txn_realloc(void *p, size_t size);

/* After a blocking MPI call: its code, or an injected error. */
int txn_mpi(int rc);
/* After a call that started *rq: the same; an injected failure first waits
 * for the request (it completes: the other processes took part) and leaves
 * *rq null. */
int txn_mpi_req(int rc, MPI_Request *rq);
/* After MPI_Test/Testall: counted only when *flag says complete. */
int txn_mpi_test(int rc, const int *flag);

/* Checkpoint (collective over c, not counted): 1 when every process passes
 * ok != 0, else 0 on every process.  Called before the first collective that
 * needs what a process allocated, so that a process that could not allocate
 * is never missing from a collective: all skip it together. */
int txn_all_ok(MPI_Comm c, int ok);

/* MPI_Waitall that sleeps between tests (50 us naps: the cores go to the
 * processes that work, and an oversubscribed node's collectives cost a
 * fraction); MPI_SUCCESS or the error.  The checkpoint waits so. */
int wait_all_asleep(int n, MPI_Request *rq);
/* The same with sched_yield() between tests: no delay where the core is free (bulk transfers) */
int wait_all_yielding(int n, MPI_Request *rq);

/* DUCTILE_TEST_DELAY: sleep here when STEP names this step and this process
 * is RANK of the running resize. */
void txn_delay(const char *step);

#endif
