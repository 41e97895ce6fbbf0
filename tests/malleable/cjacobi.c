/* cjacobi.c -- a Jacobi solver whose matrix and right-hand side are
 * registered EMPI_CONSTANT and used in every iteration (tests/malleable/
 * background.sh): with background transfers of constant data (nb, wd,
 * thread) every process must see its block at the size EMPI_Monitor_end
 * reports, so a run with resizes gives the bit-identical checksum of a
 * static run.  Each process also checks every element of its blocks against
 * the generator after every control point.  The checksum sums every
 * iteration's solution (a registered scalar, so it survives resizes).
 * usage: cjacobi DIM ITERATIONS
 * env:   CJACOBI_SLEEP_MS=MS -- every iteration also sleeps MS ms (a computation
 *        that takes wall time, so that a background transfer can complete
 *        within a known number of iterations: tests/malleable/bgcancel.sh)
 *        CJACOBI_LINGER_MS=MS -- every process mpiexec started but rank 0
 *        goes on MS ms after MPI_Finalize (tests/malleable/linger.sh). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <empi.h>
#include <time.h>
#include <unistd.h>

#include "../../examples/jacobi_system.h"

static long check(int dim, int desp, int count, const double *A, const double *b)
{
    long bad = 0;
    for (int i = 0; i < count; i++) {
        int g = desp + i;
        for (int j = 0; j < dim; j++)
            if (A[(size_t)i * dim + j] != (g == j ? (double)dim : 1.0 / (1.0 + abs(g - j)))) bad++;
        if (b[i] != (double)(g % 7 + 1)) bad++;
    }
    return bad;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, size, desp, count, type, status = EMPI_ACTIVE, it = 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    if (argc < 3) {
        if (rank == 0) fprintf(stderr, "usage: %s DIM ITERATIONS\n", argv[0]);
        MPI_Abort(EMPI_COMM_WORLD, 1);
    }
    int dim = atoi(argv[1]), itmax = atoi(argv[2]);
    EMPI_Get_wsize(rank, size, dim, &desp, &count, NULL, NULL);
    double *A = malloc((size_t)(count ? count : 1) * dim * sizeof(double));
    double *b = malloc((size_t)(count ? count : 1) * sizeof(double));
    double *A0 = A, *b0 = b; /* malloc'ed here: the program's to free, even after a resize */
    double *x_old = calloc((size_t)dim, sizeof(double));
    double *x_new = malloc((size_t)dim * sizeof(double));
    EMPI_Register_array("matrix", A, MPI_DOUBLE, dim, dim, EMPI_DISJOINT, EMPI_CONSTANT);
    EMPI_Register_array("b", b, MPI_DOUBLE, dim, 1, EMPI_DISJOINT, EMPI_CONSTANT);
    EMPI_Register_vector("x_old", x_old, MPI_DOUBLE, dim, EMPI_SHARED);
    /* the checksum accumulates every iteration's solution (a transient error shows even after convergence) */
    double acc = 0;
    EMPI_Register_scalar("acc", &acc, MPI_DOUBLE, 1);
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    else jacobi_generate(dim, desp, count, A, b);
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    int *vcounts = malloc((size_t)size * sizeof(int)), *displs = malloc((size_t)size * sizeof(int));
    EMPI_Get_wsize(rank, size, dim, &desp, &count, vcounts, displs);
    long bad = 0;
    const char *sl = getenv("CJACOBI_SLEEP_MS");
    long sleep_ms = sl ? atol(sl) : 0;
    for (; it < itmax; it++) {
        if (sleep_ms > 0) {
            struct timespec ts = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        A = EMPI_Get_addr("matrix");
        b = EMPI_Get_addr("b");
        for (int i = 0; i < count; i++) {
            int g = desp + i;
            double s = b[i];
            const double *row = A + (size_t)i * dim;
            for (int j = 0; j < dim; j++)
                if (j != g) s -= row[j] * x_old[j];
            x_new[g] = s / row[g];
        }
        MPI_Allgatherv(x_new + desp, count, MPI_DOUBLE, x_old, vcounts, displs, MPI_DOUBLE, EMPI_COMM_WORLD);
        for (int j = 0; j < dim; j++) acc += x_old[j] * (j + 1) * (1.0 + it % 7);
        EMPI_Monitor_end(&rank, &size, it, itmax, &count, &desp, &vcounts, &displs, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        bad += check(dim, desp, count, EMPI_Get_addr("matrix"), EMPI_Get_addr("b"));
    }
    if (status != EMPI_REMOVED) {
        double sum = acc;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, EMPI_COMM_WORLD);
        if (rank == 0)
            printf("cjacobi: %d iterations on %d processes, wrong elements %ld, checksum %.17g\n", it, size, bad, sum);
    }
    free(vcounts);
    free(displs);
    free(x_new);
    MPI_Finalize();
    /* CJACOBI_LINGER_MS: every process mpiexec started but rank 0 goes on that long after
     * MPI_Finalize (as a program that writes its output there would): tests/malleable/linger.sh */
    const char *linger = getenv("CJACOBI_LINGER_MS");
    if (linger && rank != 0 && type != EMPI_SPAWNED) usleep((useconds_t)atoi(linger) * 1000);
    free(A0);
    free(b0);
    return bad != 0;
}
