/* jacobi.c -- Ductile's malleability demo, shaped like Algorithm 2 of the
 * CLARISSE/FlexMPI paper: a Jacobi solver of A x = b (A dense, distributed
 * by rows) with an MPI_Allgatherv per iteration and a periodic collective
 * write of the solution (MPI_File_write_all).  The EMPI calls make it
 * malleable: run it with a schedule, e.g.
 *
 *   DUCTILE_SCHEDULE="20:+2,60:-3" mpiexec -n 2 ./jacobi 400 100 10 out.bin
 *
 * usage: jacobi DIM ITERATIONS IO_EVERY [FILE]   (IO_EVERY 0: no I/O)
 * Prints the solution's checksum, which does not depend on the resizes. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <empi.h>

#include "jacobi_system.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, desp, count, type, status = EMPI_ACTIVE, it = 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0) fprintf(stderr, "usage: %s DIM ITERATIONS IO_EVERY [FILE]\n", argv[0]);
        MPI_Abort(EMPI_COMM_WORLD, 1);
    }
    int dim = atoi(argv[1]), itmax = atoi(argv[2]), io_every = atoi(argv[3]);
    const char *file = argc > 4 ? argv[4] : "jacobi.out";

    /* initialising section: my rows, registration, data (or receive it) */
    EMPI_Get_wsize(rank, size, dim, &desp, &count, NULL, NULL);
    double *A = EMPI_malloc((size_t)(count ? count : 1) * dim * sizeof(double));
    double *b = EMPI_malloc((size_t)(count ? count : 1) * sizeof(double));
    double *x_old = calloc((size_t)dim, sizeof(double));
    double *x_new = malloc((size_t)dim * sizeof(double));
    EMPI_Register_dense("matrix", A, MPI_DOUBLE, dim, EMPI_DISJOINT);
    EMPI_Register_vector("b", b, MPI_DOUBLE, dim, EMPI_DISJOINT);
    EMPI_Register_vector("x_old", x_old, MPI_DOUBLE, dim, EMPI_SHARED);
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    else jacobi_generate(dim, desp, count, A, b);

    int *vcounts = malloc((size_t)size * sizeof(int)), *displs = malloc((size_t)size * sizeof(int));
    EMPI_Get_wsize(rank, size, dim, &desp, &count, vcounts, displs);
    double t0 = MPI_Wtime();
    /* iterative section */
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
        MPI_Allgatherv(x_new + desp, count, MPI_DOUBLE, x_old, vcounts, displs, MPI_DOUBLE, EMPI_COMM_WORLD);
        if (io_every > 0 && it % io_every == 0) {
            MPI_File fh;
            MPI_File_open(EMPI_COMM_WORLD, file, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
            MPI_File_set_view(fh, (MPI_Offset)desp * (MPI_Offset)sizeof(double), MPI_DOUBLE, MPI_DOUBLE, "native",
                              MPI_INFO_NULL);
            MPI_File_write_all(fh, x_old + desp, count, MPI_DOUBLE, MPI_STATUS_IGNORE);
            MPI_File_close(&fh);
        }
        EMPI_Monitor_end(&rank, &size, it, itmax, &count, &desp, &vcounts, &displs, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        EMPI_Get_iteration(&it); /* a process back from standby continues at the others' iteration */
    }
    if (status != EMPI_REMOVED) {
        A = EMPI_Get_addr("matrix");
        b = EMPI_Get_addr("b");
        double res = 0, sum = 0;
        for (int i = 0; i < count; i++) {
            double s = -b[i];
            for (int j = 0; j < dim; j++) s += A[(size_t)i * dim + j] * x_old[j];
            res += s * s;
        }
        MPI_Allreduce(MPI_IN_PLACE, &res, 1, MPI_DOUBLE, MPI_SUM, EMPI_COMM_WORLD);
        for (int j = 0; j < dim; j++) sum += x_old[j] * (j + 1);
        double tcomp, tcomm;
        EMPI_Get_aggregated_tcomp(&tcomp);
        EMPI_Get_aggregated_tcomm(&tcomm);
        if (rank == 0)
            printf("jacobi: %d iterations on %d processes, %.3f s, residual %.3e, checksum %.17g (tcomp %.3f tcomm %.3f)\n",
                   it, size, MPI_Wtime() - t0, sqrt(res), sum, tcomp, tcomm);
    }
    free(vcounts);
    free(displs);
    free(x_new);
    MPI_Finalize();
    return 0;
}
