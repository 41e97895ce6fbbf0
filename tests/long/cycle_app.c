/* cycle_app.c -- many resizes in a row (tests/long/cycles.sh,
 * tests/malleable/release.sh): one distributed array of CYC_ROWS doubles,
 * rewritten every iteration and checked on every rank after every control
 * point; rank 0 prints its open file descriptors and resident memory
 * ("STAT it=I fds=F rss_kb=R") at the iterations in CYC_STAT (comma list);
 * a process that leaves prints "LEFT pid=P type=native|spawned" before it
 * calls MPI_Finalize; rank 0 prints "PIDS it=I p0 p1 ..." (every process of
 * the world) at the first iteration and at each one after the size changed; the end:
 * "FINAL size=S iterations=I failures=F".
 * usage: cycle_app ITERATIONS [SLEEP_MS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <empi.h>

#include "procstat.h"

static int64_t rows = 100000;
static int rank, size, failures;

static double val(int64_t g, int it) { return (double)g * 3.0 + (double)it * 0.5; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 10, sleep_ms = argc > 2 ? atoi(argv[2]) : 0;
    if (getenv("CYC_ROWS")) rows = atoll(getenv("CYC_ROWS"));
    const char *stat = getenv("CYC_STAT");
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    int64_t d, c;
    EMPI_Get_wsize64(rank, size, rows, &d, &c);
    double *a = EMPI_malloc((size_t)(c ? c : 1) * sizeof *a);
    if (EMPI_Register_array("a", a, MPI_DOUBLE, rows, 1, EMPI_DISJOINT, EMPI_VARIABLE) != 0) return 1;
    int type, it = 0, status = EMPI_ACTIVE, printed = -1;
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    for (; it < iters; it++) {
        EMPI_Monitor_init();
        EMPI_Get_wsize64(rank, size, rows, &d, &c);
        a = EMPI_Get_addr("a");
        for (int64_t i = 0; i < c; i++) a[i] = val(d + i, it);
        if (sleep_ms) {
            struct timespec ts = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (rank == 0 && procstat_listed(stat, it)) printf("STAT it=%d fds=%d rss_kb=%ld\n", it, procstat_fds(), procstat_rss_kb());
        { /* every process of the world, by pid, every iteration; printed when the size changed */
            int pid = (int)getpid(), *pids = malloc((size_t)size * sizeof *pids);
            MPI_Gather(&pid, 1, MPI_INT, pids, 1, MPI_INT, 0, EMPI_COMM_WORLD);
            if (rank == 0 && size != printed) {
                printf("PIDS it=%d", it);
                for (int i = 0; i < size; i++) printf(" %d", pids[i]);
                printf("\n");
                fflush(stdout);
            }
            free(pids);
            printed = size;
        }
        EMPI_Monitor_end(&rank, &size, it, iters, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        EMPI_Get_iteration(&it); /* a standby process comes back later (DUCTILE_PERSISTENT) */
        EMPI_Get_wsize64(rank, size, rows, &d, &c);
        a = EMPI_Get_addr("a");
        for (int64_t i = 0; i < c; i++)
            if (a[i] != val(d + i, it) && failures++ < 5)
                fprintf(stderr, "CHECK FAIL rank %d/%d it %d: row %lld\n", rank, size, it, (long long)(d + i));
    }
    if (status == EMPI_REMOVED) {
        printf("LEFT pid=%d type=%s\n", (int)getpid(), type == EMPI_SPAWNED ? "spawned" : "native");
        fflush(stdout);
    } else {
        procstat_final(EMPI_COMM_WORLD, failures, it);
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
