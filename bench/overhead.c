/* overhead.c -- benchmark: the cost Ductile adds to each wrapped MPI call.
 * In ONE run, alternating, it times tight loops of three calls directly
 * (PMPI_*, the raw call) and through the wrappers (MPI_*): MPI_Comm_rank
 * (an untimed local query: counted, no clock), MPI_Comm_compare (a short
 * timed local call) and a one-int MPI_Allreduce, the last two both with
 * every call timed (the default) and with sampled timing (1 call in N
 * timed, ductile_time_sample()).  It prints ns per call and the ns added to
 * the raw call; and, as the floor of timing every call, what one read of
 * the time stamp the wrappers use costs in a tight loop (src/common/clock.h:
 * the TSC on x86-64): a timed wrapper reads it twice, so its "added ns" is
 * compared with two reads, and sampled timing's with the untimed query's.
 * Run it preloaded:
 *   tools/ductile-run -q --no-report -- mpiexec -n 2 bench/overhead [SCALE [N]]
 * SCALE multiplies the loop lengths (default 1), N is the sample rate
 * (default 64).  Without the preload every column measures the MPI itself.
 * A warm-up loop of MPI_Barrier comes first: the iteration detector locks
 * onto it as onto a program's main loop, so the measured calls are not loop
 * heads (in a one-call loop every call would be one, and pay the detector's
 * observation: under sampled timing with a time-stamp read of its own). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/common/clock.h"

typedef double (*loop_fn)(long n);
typedef int (*sample_fn)(int every);
static volatile int sink;
static sample_fn time_sample; /* ductile_time_sample, when libductile.so is loaded */

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

static double compare_wrapped(long n)
{
    int r = 0;
    double t = MPI_Wtime();
    for (long i = 0; i < n; i++) { MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_SELF, &r); sink += r; }
    return MPI_Wtime() - t;
}

static double compare_direct(long n)
{
    int r = 0;
    double t = MPI_Wtime();
    for (long i = 0; i < n; i++) { PMPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_SELF, &r); sink += r; }
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

static void row(const char *name, long n, double ns, double direct_ns)
{
    printf("%-34s %10ld %12.1f %12.1f %12.1f %8.2f\n", name, n, ns, direct_ns, ns - direct_ns,
           direct_ns > 0 ? ns / direct_ns : 0);
}

/* Best of `reps` alternating runs (many: the machine may be shared) of the
 * raw call, the wrapped call with every call timed and (sample > 1) with 1
 * call in `sample` timed, in ns per call, agreed across ranks (max).
 * out[0] raw, out[1] timed, out[2] sampled. */
static void measure(const char *name, loop_fn wrapped, loop_fn direct, long n, int reps, int sample, int rank,
                    double out[3])
{
    double best[3] = {1e30, 1e30, 1e30};
    int modes = sample > 1 && time_sample ? 3 : 2;
    for (int k = 0; k < reps; k++) {
        for (int m = 0; m < modes; m++) {
            if (m > 0 && time_sample) time_sample(m == 1 ? 1 : sample);
            double t = m == 0 ? direct(n) : wrapped(n);
            if (t < best[m]) best[m] = t;
        }
    }
    if (time_sample) time_sample(1);
    double m[3];
    PMPI_Allreduce(best, m, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++) out[i] = 1e9 * m[i] / (double)n;
    if (rank == 0) {
        char label[64];
        snprintf(label, sizeof label, "%s%s", name, modes == 3 ? ", every call" : "");
        row(label, n, out[1], out[0]);
        if (modes == 3) {
            snprintf(label, sizeof label, "%s, 1 in %d", name, sample);
            row(label, n, out[2], out[0]);
        }
    }
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
    double scale = argc > 1 ? atof(argv[1]) : 1; /* below 1: a quick run that only checks the benchmark works */
    if (!(scale >= 0.001)) scale = 1;
    int sample = argc > 2 ? atoi(argv[2]) : 64;
    if (sample < 2 || sample > 1000000) sample = 64;
    int preloaded = dlsym(RTLD_DEFAULT, "ductile_active") != NULL;
    time_sample = (sample_fn)dlsym(RTLD_DEFAULT, "ductile_time_sample");
    int before = time_sample ? time_sample(0) : 1;
    if (rank == 0) {
        printf("# Ductile wrapper overhead, %d ranks, %s\n", size,
               preloaded ? "libductile.so loaded" : "WITHOUT libductile.so (both columns are the bare MPI)");
        if (preloaded && !time_sample) printf("# this libductile.so has no ductile_time_sample: no sampled rows\n");
        if (preloaded)
            printf("# the iteration detector locks onto a warm-up loop of MPI_Barrier first, as onto a program's\n"
                   "# main loop: the calls measured are not its loop head (a head pays the detector's observation,\n"
                   "# and under sampled timing one time-stamp read, once per iteration)\n");
        printf("%-34s %10s %12s %12s %12s %8s\n", "call", "calls", "wrapped ns", "direct ns", "added ns", "ratio");
    }
    /* the "main loop" the iteration detector finds (DUCTILE_ITER_REPEATS is at most 64) */
    for (int i = 0; i < 200; i++) MPI_Barrier(MPI_COMM_WORLD);
    double st = stamp_ns((long)(2000000 * scale)), stm;
    PMPI_Allreduce(&st, &stm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double r[3], c[3], a[3];
    measure("MPI_Comm_rank (untimed)", rank_wrapped, rank_direct, (long)(2000000 * scale), 15, 0, rank, r);
    measure("MPI_Comm_compare", compare_wrapped, compare_direct, (long)(2000000 * scale), 15, sample, rank, c);
    measure("MPI_Allreduce (1 int)", allreduce_wrapped, allreduce_direct, (long)(50000 * scale) + 1, 15, sample, rank, a);
    if (time_sample) time_sample(before);
    if (rank == 0) {
        printf("# the floor: one time-stamp read (%s) costs %.1f ns here, two reads (a timed call) %.1f ns;\n"
               "# the wrapper's cost beyond the two reads is \"added ns\" minus %.1f\n",
               DUCTILE_CLOCK_TSC ? "rdtsc" : "clock_gettime", stm, 2 * stm, 2 * stm);
        printf("# against the floor: untimed query +%.1f ns; MPI_Comm_compare every call +%.1f ns (%.1f beyond "
               "two reads)",
               r[1] - r[0], c[1] - c[0], c[1] - c[0] - 2 * stm);
        if (time_sample)
            printf(", 1 in %d +%.1f ns (%.1f beyond the untimed query; goal: at most 5 ns added)", sample,
                   c[2] - c[0], c[2] - c[0] - (r[1] - r[0]));
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
