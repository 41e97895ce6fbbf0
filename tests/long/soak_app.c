/* soak_app.c -- one job through many resizes (tests/long/soak.sh, issue 22
 * item 9): a variable array rewritten every iteration and a constant array
 * written once (it may move in the background), both checked on every rank
 * after every control point; each iteration also duplicates, uses and frees
 * a communicator of its own.  At the iterations in SOAK_STAT (comma list)
 * rank 0 prints what the job holds:
 *   STAT it=I size=S fds=F threads=T rss_kb=R comms=C
 * (C: how many more communicators the MPI can still create, counted by
 * duplicating one until it refuses, at most SOAK_COMM_CAP, then freeing
 * them: a leak of communicators or context ids lowers it).  The end:
 * "FINAL size=S iterations=I failures=F".  SOAK_SLEEP_MS: a nap per
 * iteration (a background transfer completes after wall time, not iterations).
 * usage: soak_app ITERATIONS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <empi.h>

#include "procstat.h"

static int64_t rows = 20000;
static int rank, size, failures;

static double var_val(int64_t g, int it) { return (double)g * 3.0 + (double)it * 0.5; }
static double const_val(int64_t g) { return (double)g * 7.0 + 1.0; }

/* Communicators the MPI can still create (collective over the world). */
static int comms_left(int cap)
{
    MPI_Comm base, *dups = malloc((size_t)cap * sizeof *dups);
    MPI_Comm_dup(EMPI_COMM_WORLD, &base);
    MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN);
    int n = 0;
    while (n < cap && MPI_Comm_dup(base, &dups[n]) == MPI_SUCCESS) n++;
    for (int i = 0; i < n; i++) MPI_Comm_free(&dups[i]);
    MPI_Comm_free(&base);
    free(dups);
    return n;
}

static void check(const double *v, const double *c, int64_t d, int64_t cnt, int it)
{
    for (int64_t i = 0; i < cnt; i++) {
        if (v[i] != var_val(d + i, it) && failures++ < 5)
            fprintf(stderr, "CHECK FAIL variable rank %d/%d it %d: row %lld\n", rank, size, it, (long long)(d + i));
        if (c[i] != const_val(d + i) && failures++ < 5)
            fprintf(stderr, "CHECK FAIL constant rank %d/%d it %d: row %lld\n", rank, size, it, (long long)(d + i));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 10;
    const char *stat = getenv("SOAK_STAT");
    int cap = getenv("SOAK_COMM_CAP") ? atoi(getenv("SOAK_COMM_CAP")) : 2200;
    int nap_ms = getenv("SOAK_SLEEP_MS") ? atoi(getenv("SOAK_SLEEP_MS")) : 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    int64_t d, cnt;
    EMPI_Get_wsize64(rank, size, rows, &d, &cnt);
    double *v = EMPI_malloc((size_t)(cnt ? cnt : 1) * sizeof *v), *c = EMPI_malloc((size_t)(cnt ? cnt : 1) * sizeof *c);
    if (EMPI_Register_array("v", v, MPI_DOUBLE, rows, 1, EMPI_DISJOINT, EMPI_VARIABLE) != 0) return 1;
    if (EMPI_Register_array("c", c, MPI_DOUBLE, rows, 1, EMPI_DISJOINT, EMPI_CONSTANT) != 0) return 1;
    int type, it = 0, status = EMPI_ACTIVE;
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED)
        EMPI_Get_shared(&it);
    else
        for (int64_t i = 0; i < cnt; i++) c[i] = const_val(d + i);
    for (; it < iters; it++) {
        EMPI_Monitor_init();
        EMPI_Get_wsize64(rank, size, rows, &d, &cnt);
        v = EMPI_Get_addr("v");
        c = EMPI_Get_addr("c");
        for (int64_t i = 0; i < cnt; i++) v[i] = var_val(d + i, it);
        { /* a communicator of the program's own, used and freed */
            MPI_Comm mine;
            long long s = cnt, tot = 0;
            MPI_Comm_dup(EMPI_COMM_WORLD, &mine);
            MPI_Allreduce(&s, &tot, 1, MPI_LONG_LONG, MPI_SUM, mine);
            if (tot != rows && failures++ < 5) fprintf(stderr, "CHECK FAIL rows %lld it %d\n", tot, it);
            MPI_Comm_free(&mine);
        }
        if (nap_ms > 0) {
            struct timespec ts = {nap_ms / 1000, (nap_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (procstat_listed(stat, it)) {
            int left = comms_left(cap);
            if (rank == 0)
                printf("STAT it=%d size=%d fds=%d threads=%d rss_kb=%ld comms=%d\n", it, size, procstat_fds(),
                       procstat_entries("/proc/self/task"), procstat_rss_kb(), left);
            fflush(stdout);
        }
        EMPI_Monitor_end(&rank, &size, it, iters, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        EMPI_Get_iteration(&it); /* a standby process comes back later (DUCTILE_PERSISTENT) */
        EMPI_Get_wsize64(rank, size, rows, &d, &cnt);
        check(EMPI_Get_addr("v"), EMPI_Get_addr("c"), d, cnt, it);
    }
    if (status != EMPI_REMOVED) {
        EMPI_Get_wsize64(rank, size, rows, &d, &cnt);
        check(EMPI_Get_addr("v"), EMPI_Get_addr("c"), d, cnt, it - 1);
        procstat_final(EMPI_COMM_WORLD, failures, it);
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
