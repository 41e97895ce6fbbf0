/* io_jacobi.c -- a Jacobi-like malleable (EMPI) job with a periodic
 * checkpoint (MPI_File_write_all), for the I/O-interference tests and
 * bench/io-interference.  Shaped like examples/jacobi.c (Algorithm 2 of the
 * CLARISSE/FlexMPI paper), with two knobs that make its timing predictable
 * on a small, loaded machine:
 *
 *   - the computation of an iteration is ITER_MS milliseconds of work split
 *     over the processes by rows (a rank sleeps ITER_MS * its rows / DIM, on
 *     top of the real Jacobi update), so that k processes make an iteration
 *     k times faster even when the cores are shared;
 *   - the checkpoint is a burst of MPI_File_write_all calls with IO_MS
 *     milliseconds of "slow storage" between them (pauses shorter than the
 *     I/O phase gap, so the whole burst is one I/O phase).
 *   - IOJ_DEVICE=FILE (bench/io-interference): the storage is shared by
 *     the jobs that name the same FILE: rank 0 holds an flock(2) on it
 *     during each pause, so that two jobs checkpointing at the same time
 *     share its "bandwidth" and each phase takes longer (I/O interference,
 *     like two jobs on one parallel file system).
 *   - IOJ_CKPT_BYTES=N (bench/io-interference on a real device): each
 *     checkpoint also writes N bytes (the processes' shares by rows, in
 *     chunks of 512 KiB or, with IO_MS > 0, one chunk per 25 ms of IO_MS),
 *     so that a bandwidth-limited file system, not a sleep, makes it slow;
 *     with IO_MS 0 there is no pause at all.  Every process of the job
 *     (spawned ones too: they inherit the launcher's environment, like
 *     Ductile's own settings) must see the same N.
 *
 * usage: io_jacobi DIM ITERATIONS IO_EVERY ITER_MS IO_MS FILE [GO_FILE]
 *   checkpoint after iterations IO_EVERY-1, 2 IO_EVERY-1, ...; rank 0 of the
 *   original processes waits (up to 120 s) for GO_FILE to exist before the
 *   first iteration, so that a test can start two jobs in step.
 * Prints one "ckpt ITERATION PROCS START END" line per checkpoint (rank 0,
 * epoch seconds) and a final checksum that does not depend on resizes. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <empi.h>

#include "../../examples/jacobi_system.h"

static double epoch(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

static void sleep_ms(double ms)
{
    if (ms <= 0) return;
    struct timespec ts = {(time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, desp, count, type, status = EMPI_ACTIVE, it = 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    if (argc < 7) {
        if (rank == 0) fprintf(stderr, "usage: %s DIM ITERATIONS IO_EVERY ITER_MS IO_MS FILE [GO_FILE]\n", argv[0]);
        MPI_Abort(EMPI_COMM_WORLD, 1);
    }
    int dim = atoi(argv[1]), itmax = atoi(argv[2]), io_every = atoi(argv[3]);
    double iter_ms = atof(argv[4]), io_ms = atof(argv[5]);
    const char *file = argv[6], *go = argc > 7 ? argv[7] : NULL;

    EMPI_Get_wsize(rank, size, dim, &desp, &count, NULL, NULL);
    double *A = EMPI_malloc((size_t)(count ? count : 1) * dim * sizeof(double));
    double *b = EMPI_malloc((size_t)(count ? count : 1) * sizeof(double));
    double *x_old = calloc((size_t)dim, sizeof(double));
    double *x_new = malloc((size_t)dim * sizeof(double));
    EMPI_Register_dense("matrix", A, MPI_DOUBLE, dim, EMPI_DISJOINT);
    EMPI_Register_vector("b", b, MPI_DOUBLE, dim, EMPI_DISJOINT);
    EMPI_Register_vector("x_old", x_old, MPI_DOUBLE, dim, EMPI_SHARED);
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) {
        EMPI_Get_shared(&it);
    } else {
        jacobi_generate(dim, desp, count, A, b);
        if (go && rank == 0)
            for (int k = 0; k < 1200 && access(go, F_OK) != 0; k++) sleep_ms(100);
        MPI_Barrier(EMPI_COMM_WORLD);
    }
    int *vcounts = malloc((size_t)size * sizeof(int)), *displs = malloc((size_t)size * sizeof(int));
    EMPI_Get_wsize(rank, size, dim, &desp, &count, vcounts, displs);
    double t0 = epoch(), io_total = 0;
    int nchunks = io_ms > 0 ? (int)ceil(io_ms / 25.0) : 1, dev = -1;
    const char *devname = getenv("IOJ_DEVICE"), *cbytes = getenv("IOJ_CKPT_BYTES");
    long long ckpt_bytes = cbytes && *cbytes ? atoll(cbytes) : 0;
    if (ckpt_bytes > 0 && io_ms <= 0) nchunks = (int)((ckpt_bytes + 524287) / 524288);
    double *cbuf = NULL;
    if (devname && *devname && rank == 0) dev = open(devname, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
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
        sleep_ms(iter_ms * count / dim);
        MPI_Allgatherv(x_new + desp, count, MPI_DOUBLE, x_old, vcounts, displs, MPI_DOUBLE, EMPI_COMM_WORLD);
        if (io_every > 0 && (it + 1) % io_every == 0) {
            double c0 = epoch();
            MPI_File fh;
            MPI_File_open(EMPI_COMM_WORLD, file, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
            MPI_File_set_view(fh, (MPI_Offset)desp * (MPI_Offset)sizeof(double), MPI_DOUBLE, MPI_DOUBLE, "native",
                              MPI_INFO_NULL);
            for (int c = 0; c < nchunks; c++) {
                MPI_File_write_at_all(fh, 0, x_old + desp, count, MPI_DOUBLE, MPI_STATUS_IGNORE);
                if (ckpt_bytes > 0) { /* after the vector: this process's rows of chunk c, in doubles */
                    MPI_Offset chunk = ckpt_bytes / (MPI_Offset)sizeof(double) / nchunks, lo = chunk * desp / dim,
                               hi = chunk * (desp + count) / dim; /* the view starts at double desp */
                    if (!cbuf) cbuf = calloc((size_t)chunk + 1, sizeof(double));
                    MPI_File_write_at_all(fh, dim - desp + chunk * c + lo, cbuf, (int)(hi - lo), MPI_DOUBLE,
                                          MPI_STATUS_IGNORE);
                }
                if (dev < 0) {
                    sleep_ms(io_ms / nchunks); /* slow storage */
                } else if (rank == 0) {        /* slow storage shared with other jobs */
                    while (flock(dev, LOCK_EX) != 0) {
                    }
                    sleep_ms(io_ms / nchunks);
                    flock(dev, LOCK_UN);
                }
            }
            MPI_File_close(&fh);
            double c1 = epoch();
            io_total += c1 - c0;
            if (rank == 0) {
                printf("ckpt %d %d %.6f %.6f\n", it, size, c0, c1);
                fflush(stdout);
            }
        }
        EMPI_Monitor_end(&rank, &size, it, itmax, &count, &desp, &vcounts, &displs, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
    }
    if (status != EMPI_REMOVED) {
        double sum = 0;
        for (int j = 0; j < dim; j++) sum += x_old[j] * (j + 1);
        if (rank == 0)
            printf("io_jacobi: %d iterations on %d processes, total %.3f s, checkpoint %.3f s, checksum %.17g\n", it,
                   size, epoch() - t0, io_total, sum);
    }
    if (dev >= 0) close(dev);
    free(cbuf);
    free(vcounts);
    free(displs);
    free(x_new);
    MPI_Finalize();
    return 0;
}
