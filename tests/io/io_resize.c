/* io_resize.c -- files across a resize (docs/virtual-world.md, "Open files":
 * the file stays open; with the baseline method or DUCTILE_PERSISTENT=1 the
 * resize waits until it is closed).  A malleable (EMPI) program
 * that opens FILE on EMPI_COMM_WORLD after iteration OPEN, writes one record
 * per iteration into it (every rank its block of a DIM-element vector) and
 * closes it after iteration CLOSE; run it with a DUCTILE_SCHEDULE resize
 * between OPEN and CLOSE.  After the loop it writes the final vector to
 * FILE.final on the (resized) world, reads both files back on every rank
 * and checks every element; the registered data is checked too.
 *
 * usage: io_resize DIM ITERATIONS OPEN CLOSE FILE
 * Prints "iter I SIZE" per iteration (rank 0), "open I" and "close I", and
 * "io_resize: ok ..." or "io_resize: FAIL ..." at the end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <empi.h>

static double value(int it, int g) { return it * 1000.0 + g; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, desp, count, type, status = EMPI_ACTIVE, it = 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    if (argc < 6) {
        if (rank == 0) fprintf(stderr, "usage: %s DIM ITERATIONS OPEN CLOSE FILE\n", argv[0]);
        MPI_Abort(EMPI_COMM_WORLD, 1);
    }
    int dim = atoi(argv[1]), itmax = atoi(argv[2]), iopen = atoi(argv[3]), iclose = atoi(argv[4]);
    const char *file = argv[5];
    char final[4096];
    snprintf(final, sizeof final, "%s.final", file);

    EMPI_Get_wsize(rank, size, dim, &desp, &count, NULL, NULL);
    double *v = EMPI_malloc((size_t)(count ? count : 1) * sizeof(double));
    EMPI_Register_vector("v", v, MPI_DOUBLE, dim, EMPI_DISJOINT);
    EMPI_Get_type(&type);
    MPI_File fh = MPI_FILE_NULL;
    if (type == EMPI_SPAWNED) {
        EMPI_Get_shared(&it);
        /* joined while the world had the file open: take it (docs/virtual-world.md, "Open files") */
        if (it > iopen && it <= iclose)
            MPI_File_open(EMPI_COMM_WORLD, file, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    } else
        for (int i = 0; i < count; i++) v[i] = value(0, desp + i);
    int *vcounts = malloc((size_t)size * sizeof(int)), *displs = malloc((size_t)size * sizeof(int));
    EMPI_Get_wsize(rank, size, dim, &desp, &count, vcounts, displs);
    int bad = 0;
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        v = EMPI_Get_addr("v");
        for (int i = 0; i < count; i++) v[i] += 1000.0; /* v = value(it + 1, g) */
        if (it == iopen) {
            MPI_File_open(EMPI_COMM_WORLD, file, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
            MPI_File_set_size(fh, 0);
            if (rank == 0) printf("open %d\n", it);
        }
        if (fh != MPI_FILE_NULL) {
            /* record r = it - iopen: the whole vector after iteration it */
            MPI_Offset off = ((MPI_Offset)(it - iopen) * dim + desp) * (MPI_Offset)sizeof(double);
            MPI_File_write_at_all(fh, off, v, count, MPI_DOUBLE, MPI_STATUS_IGNORE);
        }
        if (it == iclose && fh != MPI_FILE_NULL) {
            MPI_File_close(&fh);
            if (rank == 0) printf("close %d\n", it);
        }
        if (rank == 0) printf("iter %d %d\n", it, size);
        fflush(stdout);
        EMPI_Monitor_end(&rank, &size, it, itmax, &count, &desp, &vcounts, &displs, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
    }
    if (status != EMPI_REMOVED) {
        v = EMPI_Get_addr("v");
        for (int i = 0; i < count; i++)
            if (v[i] != value(itmax, desp + i)) bad++;
        /* the final vector, written by the world as it is now */
        MPI_File_open(EMPI_COMM_WORLD, final, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        MPI_File_write_at_all(fh, (MPI_Offset)desp * (MPI_Offset)sizeof(double), v, count, MPI_DOUBLE,
                              MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
        /* read both files back */
        int nrec = iclose - iopen + 1;
        double *all = malloc((size_t)nrec * dim * sizeof(double));
        MPI_File_open(EMPI_COMM_WORLD, file, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        MPI_Offset fsize;
        MPI_File_get_size(fh, &fsize);
        if (fsize != (MPI_Offset)nrec * dim * (MPI_Offset)sizeof(double)) bad++;
        MPI_File_read_at_all(fh, 0, all, nrec * dim, MPI_DOUBLE, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
        for (int r = 0; r < nrec; r++)
            for (int g = 0; g < dim; g++)
                if (all[(size_t)r * dim + g] != value(iopen + r + 1, g)) bad++;
        MPI_File_open(EMPI_COMM_WORLD, final, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        MPI_File_read_at_all(fh, 0, all, dim, MPI_DOUBLE, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
        for (int g = 0; g < dim; g++)
            if (all[g] != value(itmax, g)) bad++;
        free(all);
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, EMPI_COMM_WORLD);
        if (rank == 0)
            printf("io_resize: %s: %d iterations on %d processes, %d records of %d elements, %d wrong values\n",
                   bad ? "FAIL" : "ok", it, size, nrec, dim, bad);
    }
    free(vcounts);
    free(displs);
    MPI_Finalize();
    return 0;
}
