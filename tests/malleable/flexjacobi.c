/* flexjacobi.c -- a program written the way FlexMPI's own Jacobi example is
 * (FlexMPI's public API only: EMPI_Set_policy, EMPI_Get_wsize with NULL and
 * with vcounts, EMPI_malloc, EMPI_Register_dense / _vector, EMPI_Get_type,
 * EMPI_Get_shared, EMPI_Monitor_init(), EMPI_Monitor_end, EMPI_Get_addr,
 * EMPI_Get_status, the EMPI_GLOBAL_* overhead variables, EMPI_free),
 * compiled unchanged against Ductile's empi.h.  It also checks, at every
 * control point, that the blocks follow FlexMPI's distribution (the extra
 * rows on the last ranks), and that a removed rank's EMPI_Get_wsize and EMPI_Monitor_end give -1/-1.
 *
 * usage: flexjacobi DIM ITMAX    (prints "checksum %a on N processes") */
#include <mpi.h>
#include <empi.h>
#include <stdio.h>
#include <stdlib.h>

/* FlexMPI's EMPI_Get_wsize, restated from its documentation: the last dim % size ranks get one more row */
static void flex_block(int rank, int size, int dim, int *desp, int *count)
{
    int q = dim / size, rest = dim % size, small = size - rest;
    *count = q + (rank >= small);
    *desp = rank * q + (rank > small ? rank - small : 0);
}

static int check_blocks(const char *where, int rank, int size, int dim, int desp, int count, const int *vc,
                        const int *vd)
{
    int d, c, bad = 0;
    flex_block(rank, size, dim, &d, &c);
    if (d != desp || c != count) bad = 1;
    for (int r = 0; vc && vd && r < size; r++) {
        flex_block(r, size, dim, &d, &c);
        if (vc[r] != c || vd[r] != d) bad = 1;
    }
    if (bad) printf("FAIL: %s: rank %d of %d: block %d+%d is not FlexMPI's\n", where, rank, size, desp, count);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int dim = argc > 1 ? atoi(argv[1]) : 101, itmax = argc > 2 ? atoi(argv[2]) : 40;
    int rank, size, desp, count, type, status = EMPI_ACTIVE, it = 0, bad = 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    EMPI_Set_policy(EMPI_MALLEABILITY);
    EMPI_Get_wsize(rank, size, dim, &desp, &count, NULL, NULL);
    bad |= check_blocks("start", rank, size, dim, desp, count, NULL, NULL);
    double *A = EMPI_malloc((size_t)(count ? count : 1) * dim * sizeof(double));
    double *x_old = EMPI_malloc((size_t)dim * sizeof(double));
    double *x_new = malloc((size_t)dim * sizeof(double));
    EMPI_Register_dense("matrix", A, MPI_DOUBLE, dim, EMPI_DISJOINT);
    EMPI_Register_vector("x_old", x_old, MPI_DOUBLE, dim, EMPI_SHARED);
    EMPI_Get_type(&type);
    if (type == EMPI_NATIVE) {
        for (int i = 0; i < count; i++)
            for (int j = 0; j < dim; j++) {
                int g = desp + i;
                A[(size_t)i * dim + j] = g == j ? 2.0 * dim : 1.0 / (1.0 + ((g * 7 + j * 13) % 17));
            }
        for (int j = 0; j < dim; j++) x_old[j] = 0;
    } else {
        EMPI_Get_shared(&it);
    }
    int *vcounts = malloc((size_t)size * sizeof(int)), *displs = malloc((size_t)size * sizeof(int));
    EMPI_Get_wsize(rank, size, dim, &desp, &count, vcounts, displs);
    bad |= check_blocks("after registration", rank, size, dim, desp, count, vcounts, displs);
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        for (int i = 0; i < count; i++) {
            int g = desp + i;
            double s = g + 1.0;
            for (int j = 0; j < dim; j++)
                if (j != g) s -= A[(size_t)i * dim + j] * x_old[j];
            x_new[g] = s / A[(size_t)i * dim + g];
        }
        MPI_Allgatherv(x_new + desp, count, MPI_DOUBLE, x_old, vcounts, displs, MPI_DOUBLE, EMPI_COMM_WORLD);
        EMPI_Monitor_end(&rank, &size, it, itmax, &count, &desp, &vcounts, &displs, NULL, argv + 1, argv[0]);
        A = EMPI_Get_addr("matrix");
        x_old = EMPI_Get_addr("x_old");
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        bad |= check_blocks("control point", rank, size, dim, desp, count, vcounts, displs);
    }
    if (status == EMPI_REMOVED) {
        int d = 0, c = 0;
        EMPI_Get_wsize(rank, size, dim, &d, &c, NULL, NULL);
        if (d != -1 || c != -1) printf("FAIL: removed rank: EMPI_Get_wsize gives %d+%d, not -1/-1\n", d, c);
        else if (desp != -1 || count != -1)
            printf("FAIL: removed rank: EMPI_Monitor_end gave %d+%d, not -1/-1\n", desp, count);
        else printf("removed: wsize -1 -1\n");
    } else {
        int anybad = 0;
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, EMPI_COMM_WORLD);
        double tcomp, tcomm, sum = 0;
        EMPI_Get_aggregated_tcomp(&tcomp);
        EMPI_Get_aggregated_tcomm(&tcomm);
        for (int j = 0; j < dim; j++) sum += x_old[j] * (j + 1);
        if (rank == 0)
            printf("checksum %a on %d processes%s - overhead %f lbalance %f rdata %f processes %f rpolicy %f cost %f\n",
                   sum, size, anybad ? " BADBLOCKS" : "", EMPI_GLOBAL_tover, EMPI_GLOBAL_overhead_lbalance,
                   EMPI_GLOBAL_overhead_rdata, EMPI_GLOBAL_overhead_processes, EMPI_GLOBAL_overhead_rpolicy,
                   EMPI_GLOBAL_cum_cost);
        EMPI_free(A, "matrix");
        EMPI_free(x_old, "x_old");
    }
    free(x_new);
    free(vcounts);
    free(displs);
    MPI_Finalize();
    return 0;
}
