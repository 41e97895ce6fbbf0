/* finalize.c -- benchmark: what MPI_Finalize costs with Ductile's end-of-run
 * report, and rank 0's peak memory.  Every rank makes a few hundred calls of
 * a dozen MPI functions (so every rank has a populated counter table), then
 * rank 0 prints the time MPI_Finalize took (the slowest rank's) and its own
 * peak resident set size after it.  Run it preloaded, e.g. through
 * bench/finalize-scale.sh, which also runs it without the preload. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int a[16] = {0}, b[16] = {0}, *g = calloc((size_t)size, sizeof *g);
    MPI_Request q[2];
    for (int k = 0; k < rounds; k++) {
        MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(a, 4, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Irecv(b, 16, MPI_INT, left, k, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(a, 8, MPI_INT, right, k, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        MPI_Sendrecv(a, 2, MPI_INT, right, k, b, 2, MPI_INT, left, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allgather(a, 1, MPI_INT, g, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Reduce(a, b, 2, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    MPI_Finalize();
    double dt = now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (rank == 0) printf("finalize_s %.4f rank0_maxrss_kb %ld ranks %d\n", dt, ru.ru_maxrss, size);
    free(g);
    return 0;
}
