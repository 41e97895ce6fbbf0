/*
 * iter.c -- an iterative solver skeleton: an init phase with its own call
 * sequence, then a main loop with a fixed body, then a short epilogue.
 *
 * Usage: iter [N]      (N iterations, default 50)
 *
 *   init:     Bcast(params), Allgather, Scatter, Barrier
 *   loop x N: (compute) Allreduce(1 double), Sendrecv(2 doubles, ring), Bcast(1 int)
 *   epilogue: Reduce, Gather
 *
 * Ductile's loop detection should report about N iterations (N, or N-1 when
 * the detected period starts in the middle of the body): the driver checks
 * iterations.count with run-mpi-test.sh --iterations MIN MAX.
 */
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "iter"
#include "testlib.h"

int main(int argc, char **argv)
{
    int params[2] = {0, 0}, it, j;

    CALL(MPI_Init, 0, 0, &argc, &argv);
    CALL(MPI_Comm_rank, 0, 0, W, &rank);
    CALL(MPI_Comm_size, 0, 0, W, &size);
    const int r = rank, P = size, right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* ---- init phase ---- */
    if (r == 0) {
        params[0] = argc > 1 ? atoi(argv[1]) : 50;
        params[1] = 3;
    }
    CALL(MPI_Bcast, r == 0 ? 2 * I : 0, r == 0 ? 0 : 2 * I, params, 2, MPI_INT, 0, W);
    const int niter = params[0], scale = params[1];
    if (niter < 1) {
        if (r == 0)
            fprintf(stderr, "iter: bad iteration count\n");
        CALL(MPI_Abort, 0, 0, W, 2);
    }
    int *ranks = malloc((size_t)P * sizeof(int)), *seeds = malloc((size_t)P * sizeof(int));
    int seed = -1;
    if (!ranks || !seeds)
        abort();
    CALL(MPI_Allgather, I, P * I, &r, 1, MPI_INT, ranks, 1, MPI_INT, W);
    for (j = 0; j < P; j++) {
        check(ranks[j] == j, "allgather ranks");
        seeds[j] = r == 0 ? 7 * j + 1 : 0;
    }
    CALL(MPI_Scatter, r == 0 ? P * I : 0, I, seeds, 1, MPI_INT, &seed, 1, MPI_INT, 0, W);
    check(seed == 7 * r + 1, "scatter seed");
    CALL(MPI_Barrier, 0, 0, W);

    /* ---- main loop ---- */
    double x = seed, total = 0, halo[2], recv[2];
    int go = 1;
    for (it = 0; it < niter; it++) {
        double local, global = -1, want;
        int k;
        /* a bit of computation, exactly representable */
        for (k = 0; k < 100; k++)
            x = (double)(((long long)x * 5 + k) % 1024);
        local = (r + 1) * (it % 7) * 0.5;
        CALL(MPI_Allreduce, D, D, &local, &global, 1, MPI_DOUBLE, MPI_SUM, W);
        want = (it % 7) * 0.5 * P * (P + 1) / 2;
        check(global == want, "allreduce");
        total += global;
        halo[0] = x;
        halo[1] = r + it;
        CALL(MPI_Sendrecv, 2 * D, 2 * D, halo, 2, MPI_DOUBLE, right, it % 16, recv, 2, MPI_DOUBLE,
             left, it % 16, W, MPI_STATUS_IGNORE);
        check(recv[1] == left + it, "sendrecv");
        x += recv[0];
        go = r == 0 ? (it + 1 < niter) : -1;
        CALL(MPI_Bcast, r == 0 ? I : 0, r == 0 ? 0 : I, &go, 1, MPI_INT, 0, W);
        check(go == (it + 1 < niter), "bcast continue flag");
    }

    /* ---- epilogue ---- */
    {
        double sumx = -1, *xs = malloc((size_t)P * sizeof(double));
        int tot_err;
        if (!xs)
            abort();
        CALL(MPI_Reduce, D, r == 0 ? D : 0, &x, &sumx, 1, MPI_DOUBLE, MPI_SUM, 0, W);
        CALL(MPI_Gather, D, r == 0 ? P * D : 0, &x, 1, MPI_DOUBLE, xs, 1, MPI_DOUBLE, 0, W);
        tot_err = test_reduce_errors();
        if (r == 0) {
            printf("iterations: %d (scale %d)\n", niter, scale);
            printf("allreduce total: %.1f\n", total);
            for (j = 0; j < P; j++)
                printf("x[%d] = %.1f\n", j, xs[j]);
            printf("sum x = %.1f\n", sumx);
        }
        test_summary(tot_err);
        free(xs);
    }
    free(ranks);
    free(seeds);

    return test_finish();
}
