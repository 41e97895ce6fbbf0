/* overhead.c -- benchmark: the cost Ductile adds to each wrapped MPI call.
 * In ONE run it times tight loops of MPI_Comm_rank and a one-int
 * MPI_Allreduce through the wrappers (MPI_*) and directly (PMPI_*), and
 * prints ns per call, the difference and the ratio; and, as the floor of
 * timing every call, what one read of the time stamp the wrappers use costs
 * in a tight loop (src/common/clock.h: the TSC on x86-64): a timed wrapper
 * reads it twice, so "added ns" is compared with two reads.  Run it preloaded:
 *   tools/ductile-run -q --no-report -- mpiexec -n 2 bench/overhead
 * Without the preload both columns measure the MPI itself. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/common/clock.h"

typedef double (*loop_fn)(long n);
static volatile int sink;

static double rank_wrapped(long n)
{
    int r = 0;
    double t = MPI_Wtime();
    for (long i = 0; i < n; i++) { MPI_Comm_rank(MPI_COMM_WORLD, &r); sink += r; }
    return MPI_Wtime() - t;
}

static double rank_direct(long n)
{
    int r = 0;
    MPI_Comm w = MPI_COMM_WORLD;
    double t = MPI_Wtime();
    for (long i = 0; i < n; i++) { PMPI_Comm_rank(w, &r); sink += r; }
    return MPI_Wtime() - t;
}

static double allreduce_wrapped(long n)
{
    int in = 1, out = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (long i = 0; i < n; i++) MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return MPI_Wtime() - t;
}

static double allreduce_direct(long n)
{
    int in = 1, out = 0;
    PMPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (long i = 0; i < n; i++) PMPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return MPI_Wtime() - t;
}

/* best of `reps` alternating runs (many: the machine may be shared), in ns
 * per call, agreed across ranks (max) */
static void measure(const char *name, loop_fn wrapped, loop_fn direct, long n, int reps, int rank)
{
    double bw = 1e30, bd = 1e30;
    for (int k = 0; k < reps; k++) {
        double w = wrapped(n), d = direct(n);
        if (w < bw) bw = w;
        if (d < bd) bd = d;
    }
    double v[2] = {bw, bd}, m[2];
    PMPI_Allreduce(v, m, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double nw = 1e9 * m[0] / (double)n, nd = 1e9 * m[1] / (double)n;
    if (rank == 0)
        printf("%-28s %10ld %12.1f %12.1f %12.1f %8.2f\n", name, n, nw, nd, nw - nd, nd > 0 ? nw / nd : 0);
}

/* ns per time-stamp read, best of 15 tight loops of n reads */
static double stamp_ns(long n)
{
    double best = 1e30;
    for (int k = 0; k < 15; k++) {
        uint64_t acc = 0;
        double t = MPI_Wtime();
        for (long i = 0; i < n; i++) acc += ductile_ticks();
        t = MPI_Wtime() - t;
        sink += (int)(acc & 1);
        if (t < best) best = t;
    }
    return 1e9 * best / (double)n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long scale = argc > 1 ? atol(argv[1]) : 1;
    if (scale < 1) scale = 1;
    int preloaded = dlsym(RTLD_DEFAULT, "ductile_active") != NULL;
    if (rank == 0) {
        printf("# Ductile wrapper overhead, %d ranks, %s\n", size,
               preloaded ? "libductile.so loaded" : "WITHOUT libductile.so (both columns are the bare MPI)");
        printf("%-28s %10s %12s %12s %12s %8s\n", "call", "calls", "wrapped ns", "direct ns", "added ns",
               "ratio");
    }
    double st = stamp_ns(2000000 * scale), stm;
    PMPI_Allreduce(&st, &stm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    measure("MPI_Comm_rank", rank_wrapped, rank_direct, 2000000 * scale, 15, rank);
    measure("MPI_Allreduce (1 int)", allreduce_wrapped, allreduce_direct, 50000 * scale, 15, rank);
    if (rank == 0)
        printf("# the floor: one time-stamp read (%s) costs %.1f ns here, two reads (a timed call) %.1f ns;\n"
               "# the wrapper's cost beyond the two reads is \"added ns\" minus %.1f\n",
               DUCTILE_CLOCK_TSC ? "rdtsc" : "clock_gettime", stm, 2 * stm, 2 * stm);
    MPI_Finalize();
    return 0;
}
