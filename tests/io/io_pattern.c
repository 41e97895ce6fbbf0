/* io_pattern.c -- a known MPI-IO pattern for the I/O monitoring tests (a
 * plain MPI program: it knows nothing of Ductile).
 *
 * Usage: io_pattern PHASES COMPUTE_MS DIR [TAG]
 * PHASES times: an I/O phase on DIR/TAG.ckpt opened on MPI_COMM_WORLD
 * (open, set_view, write_all, write_all_begin/end, write_at, iwrite_at +
 * wait, read_at_all, close), then COMPUTE_MS of computation with one
 * MPI_Allreduce every ~10 ms.  Rank r writes K_r = 1024*(r+1) ints with
 * write_all, 64 with the split collective, 256 with write_at and 128 with
 * iwrite_at, and reads K_r back with read_at_all: per phase it writes
 * 4*(K_r+448) bytes and reads 4*K_r.  Rank 0 prints one line per phase:
 * "phase N start S end E" (epoch seconds, earliest start and latest end over
 * the ranks), and "expect written W read R
 * phases N access_min A access_max B" at the end.  With IO_PATTERN_KEEP=1
 * the file is opened once before the first phase and closed after the last
 * (a job whose phases end with no close). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (!rank) fprintf(stderr, "usage: io_pattern PHASES COMPUTE_MS DIR [TAG]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int phases = atoi(argv[1]), compute_ms = atoi(argv[2]);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.ckpt", argv[3], argc > 4 ? argv[4] : "io_pattern");
    const int K = 1024 * (rank + 1), REGION = 16384;
    int *buf = malloc((size_t)(K + 448) * sizeof(int));
    int *rd = malloc((size_t)K * sizeof(int));
    int errors = 0;
    double x = 1.0, *t0s = calloc((size_t)phases + 1, sizeof(double)), *t1s = calloc((size_t)phases + 1, sizeof(double));
    const char *keep_env = getenv("IO_PATTERN_KEEP");
    int keep = keep_env && atoi(keep_env) == 1;
    MPI_File fh = MPI_FILE_NULL;
    for (int ph = 0; ph < phases; ph++) {
        for (int i = 0; i < K + 448; i++) buf[i] = ph * 1000000 + rank * 10000 + i;
        double t0 = now();
        if ((!keep || ph == 0) && MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
            fprintf(stderr, "io_pattern: cannot open %s\n", path);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_File_set_view(fh, (MPI_Offset)rank * REGION * (MPI_Offset)sizeof(int), MPI_INT, MPI_INT, "native",
                          MPI_INFO_NULL);
        MPI_File_write_all(fh, buf, K, MPI_INT, MPI_STATUS_IGNORE);
        MPI_File_write_all_begin(fh, buf + K, 64, MPI_INT);
        MPI_File_write_all_end(fh, buf + K, MPI_STATUS_IGNORE);
        MPI_File_write_at(fh, K + 64, buf + K + 64, 256, MPI_INT, MPI_STATUS_IGNORE);
        MPI_Request rq;
        MPI_File_iwrite_at(fh, K + 320, buf + K + 320, 128, MPI_INT, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MPI_File_read_at_all(fh, 0, rd, K, MPI_INT, MPI_STATUS_IGNORE);
        if (!keep || ph == phases - 1) MPI_File_close(&fh);
        for (int i = 0; i < K; i++) errors += rd[i] != buf[i];
        double t1 = now();
        t0s[ph] = t0, t1s[ph] = t1;
        /* compute phase */
        double end = now() + compute_ms / 1000.0, v[2] = {x, 0};
        while (v[1] == 0) { /* every rank makes the same number of calls: stop when one is done */
            double t = now() + 0.01;
            while (now() < t) x = x * 0.9999999 + 1e-9;
            v[0] = x, v[1] = now() >= end;
            MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* each phase as the job saw it: earliest start, latest end over the ranks */
    MPI_Allreduce(MPI_IN_PLACE, t0s, phases, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, t1s, phases, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int ph = 0; ph < phases && !rank; ph++) printf("phase %d start %.6f end %.6f\n", ph, t0s[ph], t1s[ph]);
    long long w = 0, r = 0;
    for (int q = 0; q < size; q++) w += 4LL * (1024 * (q + 1) + 448), r += 4LL * 1024 * (q + 1);
    if (!rank) {
        printf("expect written %lld read %lld phases %d access_min %d access_max %d errors %d\n", w * phases,
               r * phases, phases, 64 * 4, 4 * 1024 * size, errors);
        fflush(stdout);
    }
    free(buf);
    free(rd);
    free(t0s);
    free(t1s);
    MPI_Finalize();
    return errors ? 1 : 0;
}
