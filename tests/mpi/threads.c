/*
 * threads.c -- MPI_THREAD_MULTIPLE: NT threads per rank make MPI calls at
 * the same time (blocking and nonblocking point-to-point on a ring, short
 * receives, Allreduce on per-thread duplicates of the world), so Ductile's
 * counters and its pending-operation table are updated concurrently.  The
 * ThreadSanitizer build (configure --enable-tsan) runs it; every build
 * checks the report's exact totals.
 *
 * The calls of the threads are recorded on the main thread after they
 * joined (expect.h is not thread-safe; their number is fixed), so the
 * workers call MPI through UNRECORDED() instead of CALL().
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "threads"
#include "testlib.h"

#define NT 2
#define ROUNDS 200

/* a call of a worker thread: recorded by expect_add() in main */
#define UNRECORDED(fn, ...) fn(__VA_ARGS__)

static MPI_Comm comms[NT];
static int left, right, ok[NT];

static void *worker(void *arg)
{
    int t = (int)(long)arg, a[8], b[8] = {0}, sum = 0;
    MPI_Comm c = comms[t];
    MPI_Request q[2];
    for (int k = 0; k < ROUNDS; k++) {
        for (int i = 0; i < 8; i++) a[i] = 1000 * t + k + i;
        /* 3 ints into room for 8, nonblocking, completed by Waitall */
        UNRECORDED(MPI_Irecv, b, 8, MPI_INT, left, k, c, &q[0]);
        UNRECORDED(MPI_Isend, a, 3, MPI_INT, right, k, c, &q[1]);
        UNRECORDED(MPI_Waitall, 2, q, MPI_STATUSES_IGNORE);
        if (b[2] != 1000 * t + k + 2) ok[t] = 0;
        /* 2 ints into room for 8, blocking */
        UNRECORDED(MPI_Sendrecv, a, 2, MPI_INT, right, k, b, 8, MPI_INT, left, k, c, MPI_STATUS_IGNORE);
        UNRECORDED(MPI_Allreduce, &k, &sum, 1, MPI_INT, MPI_SUM, c);
        if (sum != k * size) ok[t] = 0;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, t;
    pthread_t th[NT];

    CALL(MPI_Init_thread, 0, 0, &argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CALL(MPI_Comm_rank, 0, 0, W, &rank);
    CALL(MPI_Comm_size, 0, 0, W, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("threads: MPI_THREAD_MULTIPLE not provided (%d), nothing to test\n", provided);
        return test_finish();
    }
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    for (t = 0; t < NT; t++) {
        CALL(MPI_Comm_dup, 0, 0, W, &comms[t]);
        ok[t] = 1;
    }
    for (t = 0; t < NT; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(long)t) != 0)
            abort();
    for (t = 0; t < NT; t++) {
        pthread_join(th[t], NULL);
        check(ok[t], "thread data");
    }
    expect_add("MPI_Irecv", NT * ROUNDS, 0, NT * ROUNDS * 3 * I);
    expect_add("MPI_Isend", NT * ROUNDS, NT * ROUNDS * 3 * I, 0);
    expect_add("MPI_Waitall", NT * ROUNDS, 0, 0);
    expect_add("MPI_Sendrecv", NT * ROUNDS, NT * ROUNDS * 2 * I, NT * ROUNDS * 2 * I);
    expect_add("MPI_Allreduce", NT * ROUNDS, NT * ROUNDS * I, NT * ROUNDS * I);
    for (t = 0; t < NT; t++)
        CALL(MPI_Comm_free, 0, 0, &comms[t]);
    test_summary(test_reduce_errors());
    return test_finish();
}
