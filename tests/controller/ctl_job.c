/* ctl_job.c -- test program for the controllers: a malleable (EMPI) job with
 * a registered distributed vector, a compute phase (sleep), an Allreduce, an
 * I/O phase every IO_EVERY iterations behind ductile_io_gate(), and a control
 * point (EMPI_Monitor_end) per iteration.  The vector is checked on every
 * rank after every control point (so after every resize).  Rank 0 prints a
 * line whenever the world size changes and a FINAL line at the end.
 *
 * usage: ctl_job ITERATIONS [SLEEP_MS] [IO_EVERY] [STOPFILE]
 *   a negative SLEEP_MS -W is work that scales: W/size ms per iteration;
 *   "F,W": F ms that do not scale plus W/size ms (bench/workload)
 *   the job stops early (cleanly) at the first iteration where STOPFILE exists.
 * CTL_JOB_SIZES: size constraints the program sets (ductile_set_sizes) after
 * MPI_Init, on every process (tests/controller/sizes.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ductile.h>
#include <empi.h>

#define N 100000

static int rank, size, failures;

static double val(long g, int it) { return 0.5 * (double)g + (double)it; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 20;
    int sleep_ms = argc > 2 ? atoi(argv[2]) : 20, par_ms = 0;
    if (argc > 2 && strchr(argv[2], ',')) par_ms = atoi(strchr(argv[2], ',') + 1);
    int io_every = argc > 3 ? atoi(argv[3]) : 0;
    const char *stopfile = argc > 4 ? argv[4] : NULL;
    char err[400];
    if (getenv("CTL_JOB_SIZES") && ductile_set_sizes(getenv("CTL_JOB_SIZES"), err, sizeof err) != 0) {
        fprintf(stderr, "CHECK FAIL ductile_set_sizes: %s\n", err);
        failures++;
    }
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    long d, c;
    EMPI_Get_wsize64(rank, size, N, &d, &c);
    double *x = EMPI_malloc((size_t)(c ? c : 1) * sizeof(double));
    EMPI_Register_vector("x", x, MPI_DOUBLE, N, EMPI_DISJOINT);
    int type, it = 0, status = EMPI_ACTIVE;
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) {
        EMPI_Get_shared(&it);
    } else {
        for (long i = 0; i < c; i++) x[i] = val(d + i, -1);
    }
    int last_size = size;
    char iofile[256];
    snprintf(iofile, sizeof iofile, "/tmp/ctl_job_io_%ld.dat", (long)getppid());
    for (; it < iters; it++) {
        EMPI_Monitor_init();
        x = EMPI_Get_addr("x");
        EMPI_Get_wsize64(rank, size, N, &d, &c);
        for (long i = 0; i < c; i++) {
            if (x[i] != val(d + i, it - 1) && failures++ < 5)
                fprintf(stderr, "CHECK FAIL rank %d/%d it %d at %ld\n", rank, size, it, d + i);
            x[i] = val(d + i, it);
        }
        int ms = (sleep_ms >= 0 ? sleep_ms : -sleep_ms / size) + par_ms / size;
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        long mine = c, total = 0;
        MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, EMPI_COMM_WORLD);
        if (total != N && failures++ < 5) fprintf(stderr, "CHECK FAIL blocks sum to %ld\n", total);
        if (io_every > 0 && it % io_every == io_every - 1) {
            int waited = ductile_io_gate();
            if (rank == 0 && waited) printf("iteration %d: I/O waited for release\n", it);
            MPI_File fh;
            if (MPI_File_open(EMPI_COMM_WORLD, iofile, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) ==
                MPI_SUCCESS) {
                MPI_File_write_at_all(fh, (MPI_Offset)(d * (long)sizeof(double)), x, (int)c, MPI_DOUBLE,
                                      MPI_STATUS_IGNORE);
                MPI_File_close(&fh);
            }
        }
        int stop = 0;
        if (rank == 0 && stopfile && access(stopfile, F_OK) == 0) stop = 1;
        MPI_Bcast(&stop, 1, MPI_INT, 0, EMPI_COMM_WORLD);
        EMPI_Monitor_end(&rank, &size, it, iters, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        if (rank == 0 && size != last_size) {
            printf("iteration %d: size %d -> %d\n", it, last_size, size);
            fflush(stdout);
        }
        last_size = size;
        if (stop) {
            it++;
            break;
        }
    }
    if (status != EMPI_REMOVED) {
        int fl = 0;
        MPI_Allreduce(&failures, &fl, 1, MPI_INT, MPI_SUM, EMPI_COMM_WORLD);
        if (rank == 0) {
            printf("FINAL size=%d iterations=%d failures=%d\n", size, it, fl);
            unlink(iofile);
        }
        failures = fl;
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
