/*
 * testlib.h -- helpers shared by the C MPI test programs in tests/mpi.
 *
 * Define TEST_NAME (a string literal, the program name used in messages)
 * before including this header:
 *
 *     #define TEST_NAME "coll"
 *     #include "testlib.h"
 *
 * It provides
 *   I, D, W        sizeof(int), sizeof(double) as long long; MPI_COMM_WORLD
 *   rank, size     set by the program after MPI_Init
 *   errors         failed checks on this rank
 *   hash, mix(v)   an FNV-1a style hash of the values a rank computed
 *   check(c, what) count and report (on stderr) a failed check
 *   test_reduce_errors()  Reduce the error counts onto rank 0
 *   test_summary(tot)     rank 0 prints "<name>: <P> ranks, errors=<tot>"
 *   test_results_hash()   Gather the per-rank hashes and reduce the errors;
 *                         rank 0 prints "hash[j] = ..." lines and the summary
 *   test_finish()         record MPI_Finalize, write the expectation file,
 *                         MPI_Finalize; returns the exit status of main
 *
 * Every MPI call goes through CALL() of expect.h, so it is recorded in the
 * expectation file exactly as if the program had made it itself.
 */
#ifndef DUCTILE_TEST_TESTLIB_H
#define DUCTILE_TEST_TESTLIB_H

#ifndef TEST_NAME
#error "define TEST_NAME before including testlib.h"
#endif

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "expect.h"

#define I ((long long)sizeof(int))
#define D ((long long)sizeof(double))
#define W MPI_COMM_WORLD

static int rank, size, errors;
static unsigned long long hash = 14695981039346656037ULL;

static inline void mix(long long v)
{
    hash ^= (unsigned long long)v;
    hash *= 1099511628211ULL;
}

static inline void check(int cond, const char *what)
{
    if (!cond) {
        errors++;
        fprintf(stderr, TEST_NAME ": rank %d: check failed: %s\n", rank, what);
    }
}

/* Reduce the error counts (MPI_SUM) onto rank 0; returns the total on rank 0,
 * 0 on the other ranks. */
static inline int test_reduce_errors(void)
{
    int tot_err = 0;
    CALL(MPI_Reduce, I, rank == 0 ? I : 0, &errors, &tot_err, 1, MPI_INT, MPI_SUM, 0, W);
    return tot_err;
}

/* Rank 0 prints the summary line; every rank's error count becomes tot_err
 * (the total on rank 0, 0 elsewhere), so rank 0 carries the exit status. */
static inline void test_summary(int tot_err)
{
    if (rank == 0)
        printf(TEST_NAME ": %d ranks, errors=%d\n", size, tot_err);
    errors = tot_err;
}

/* Gather every rank's hash on rank 0 and reduce the error counts; rank 0
 * prints one "hash[j] = %016llx" line per rank, then the summary. */
static inline void test_results_hash(void)
{
    unsigned long long *hashes = calloc((size_t)size, sizeof *hashes);
    int tot_err, j;
    if (!hashes)
        abort();
    CALL(MPI_Gather, (long long)sizeof hash, rank == 0 ? (long long)sizeof hash * size : 0,
         &hash, 1, MPI_UNSIGNED_LONG_LONG, hashes, 1, MPI_UNSIGNED_LONG_LONG, 0, W);
    tot_err = test_reduce_errors();
    if (rank == 0)
        for (j = 0; j < size; j++)
            printf("hash[%d] = %016llx\n", j, hashes[j]);
    test_summary(tot_err);
    free(hashes);
}

/* Record MPI_Finalize, write the expectation file, finalize.  Returns the
 * exit status for main: nonzero if errors remain or the file was not written. */
static inline int test_finish(void)
{
    expect_add("MPI_Finalize", 1, 0, 0);
    if (expect_write(rank) != 0)
        errors++;
    MPI_Finalize();
    return errors != 0;
}

#endif /* DUCTILE_TEST_TESTLIB_H */
