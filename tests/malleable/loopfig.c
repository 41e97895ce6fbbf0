/* loopfig.c -- a loop whose head is the program's first timed MPI call, for
 * the report's loop figures (tests/malleable/loopfig.sh): each iteration
 * sleeps SLEEP_MS (the computation) and makes CALLS MPI calls (1: one
 * MPI_Allreduce; more: MPI_Allreduce, MPI_Sendrecv around a ring,
 * MPI_Bcast, repeated).  Nothing timed comes before the loop (MPI_Comm_rank
 * and MPI_Comm_size are untimed queries).
 *
 * usage: loopfig ITERS CALLS SLEEP_MS
 * env:   LOOPFIG_EMPI=1 -- FlexMPI style: a constant distributed array and a
 *        scalar are registered and EMPI_Monitor_end ends every iteration, so
 *        that DUCTILE_SCHEDULE resizes the job (spawned processes join with
 *        EMPI_Get_shared and start their loop there).
 *
 * The process that is rank 0 at the end (the one that writes the report)
 * prints "loopfig: loop I iterations S seconds on P processes": the
 * iterations it ran and the time from the end of its previous MPI call,
 * MPI_Init (the registrations, and a spawned process's EMPI_Get_shared,
 * its part of the resize that started it, come before the first
 * iteration's computation), to the end of its last iteration
 * (CLOCK_MONOTONIC, no MPI call), which the report's iteration figures must
 * agree with (tests/check_report.py --loop; docs/report.md: an iteration
 * runs from the end of the MPI call before the head). */
#include <mpi.h>
#include <empi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nap(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int body(int calls, int rank, int size, double *acc)
{
    int bad = 0;
    for (int c = 0; c < calls; c++) {
        double v = rank + 1.0, s = 0;
        if (c % 3 == 0) {
            MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            if (s != size * (size + 1) / 2.0) bad++;
            *acc += s;
        } else if (c % 3 == 1) {
            double r = -1;
            int right = (rank + 1) % size, left = (rank + size - 1) % size;
            MPI_Sendrecv(&v, 1, MPI_DOUBLE, right, 7, &r, 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (r != left + 1.0) bad++;
        } else {
            int k = rank == 0 ? 42 : 0;
            MPI_Bcast(&k, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (k != 42) bad++;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = now();
    if (argc < 4) {
        fprintf(stderr, "usage: %s ITERS CALLS SLEEP_MS\n", argv[0]);
        return 2;
    }
    int iters = atoi(argv[1]), calls = atoi(argv[2]), ms = atoi(argv[3]);
    const char *e = getenv("LOOPFIG_EMPI");
    int empi = e && *e == '1';
    int rank, size, it = 0, bad = 0, status = EMPI_ACTIVE;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double acc = 0, *a = NULL; /* malloc'ed here: the program's to free, even after a resize */
    if (empi) {
        int desp, count, type;
        EMPI_Get_wsize(rank, size, 1000, &desp, &count, NULL, NULL);
        a = malloc((size_t)(count ? count : 1) * sizeof(double));
        for (int i = 0; i < count; i++) a[i] = desp + i;
        EMPI_Register_array("a", a, MPI_DOUBLE, 1000, 1, EMPI_DISJOINT, EMPI_CONSTANT);
        EMPI_Register_scalar("acc", &acc, MPI_DOUBLE, 1);
        EMPI_Get_type(&type);
        if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    }
    int it0 = it;
    for (; it < iters; it++) {
        nap(ms);
        bad += body(calls, rank, size, &acc);
        if (!empi) continue;
        int count = 0, desp = 0;
        EMPI_Monitor_end(&rank, &size, it, iters, &count, &desp, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        const double *cur = EMPI_Get_addr("a");
        for (int i = 0; i < count; i++)
            if (cur[i] != desp + i) bad++;
    }
    double t1 = now();
    if (status != EMPI_REMOVED) {
        if (bad) printf("loopfig: FAIL: rank %d: %d wrong values\n", rank, bad);
        if (rank == 0)
            printf("loopfig: loop %d iterations %.6f seconds on %d processes\n", it - it0, t1 - t0, size);
    }
    MPI_Finalize();
    free(a);
    return 0;
}
