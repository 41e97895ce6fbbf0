/* fold_app.c -- an unmodified MPI program (no Ductile or EMPI call) for the
 * process-folding tests and bench/fold: each iteration computes on a local
 * vector (WORK passes), exchanges MSGS messages around a ring (Sendrecv,
 * Isend/Irecv/Waitall, Send/Recv), and reduces a checksum (Allreduce).  The
 * result depends only on the number of processes and iterations, so a run
 * folded and unfolded while it runs must print the same line as a run left
 * alone.  Rank 0 prints each rank's pid first ("PID rank=R pid=P"), and at the
 * end the time of the whole loop (TIME) and of its second half (HALF).
 *
 * usage: fold_app ITERS [WORK] [MSGS] [STOPFILE]
 *   with STOPFILE, the run ends after the first iteration at which the file
 *   exists (rank 0 looks and tells the others), else after ITERS. */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 4096

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iters = argc > 1 ? atol(argv[1]) : 100;
    int work = argc > 2 ? atoi(argv[2]) : 20;
    int msgs = argc > 3 ? atoi(argv[3]) : 4;
    const char *stopfile = argc > 4 ? argv[4] : NULL;
    int pid = (int)getpid(), *pids = rank == 0 ? malloc(sizeof(int) * (size_t)size) : NULL;
    MPI_Gather(&pid, 1, MPI_INT, pids, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++) printf("PID rank=%d pid=%d\n", r, pids[r]);
        fflush(stdout);
        free(pids);
    }
    static double x[N], in[N], out[N];
    for (int i = 0; i < N; i++) x[i] = (double)(rank + 1) * 1e-3 * (double)(i % 97);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double sum = 0, t0 = MPI_Wtime(), thalf = 0;
    long it;
    for (it = 0; it < iters; it++) {
        if (it == iters / 2) thalf = MPI_Wtime();
        for (int w = 0; w < work; w++)
            for (int i = 0; i < N; i++) x[i] = 0.999 * x[i] + 1e-4 * sin(x[i] + (double)w);
        for (int m = 0; m < msgs; m++) {
            for (int i = 0; i < 64; i++) out[i] = x[(i * 61 + m) % N];
            if (m % 3 == 0) {
                MPI_Sendrecv(out, 64, MPI_DOUBLE, right, m, in, 64, MPI_DOUBLE, left, m, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
            } else if (m % 3 == 1) {
                MPI_Request rq[2];
                MPI_Irecv(in, 64, MPI_DOUBLE, left, m, MPI_COMM_WORLD, &rq[0]);
                MPI_Isend(out, 64, MPI_DOUBLE, right, m, MPI_COMM_WORLD, &rq[1]);
                MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
            } else if (size == 1) { /* a blocking send to oneself may never return */
                MPI_Sendrecv(out, 64, MPI_DOUBLE, right, m, in, 64, MPI_DOUBLE, left, m, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
            } else if (rank % 2 == 0) {
                MPI_Send(out, 64, MPI_DOUBLE, right, m, MPI_COMM_WORLD);
                MPI_Recv(in, 64, MPI_DOUBLE, left, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(in, 64, MPI_DOUBLE, left, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(out, 64, MPI_DOUBLE, right, m, MPI_COMM_WORLD);
            }
            for (int i = 0; i < 64; i++) x[(i * 31 + m) % N] += 1e-3 * in[i];
        }
        double local = 0;
        for (int i = 0; i < N; i++) local += x[i];
        MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (stopfile) {
            int stop = rank == 0 && access(stopfile, F_OK) == 0;
            MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (stop) {
                it++;
                break;
            }
        }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0) printf("RESULT size=%d iters=%ld checksum=%.17g\nTIME %.6f\nHALF %.6f\n", size, it, sum, t,
                          thalf > 0 ? MPI_Wtime() - thalf : 0.0);
    MPI_Finalize();
    return 0;
}
