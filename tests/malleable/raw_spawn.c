/* raw_spawn.c -- an expansion with MPI alone (no Ductile), the two ways
 * Ductile's engine does it (src/malleable/engine.h, SPAWN_COLLECTIVE), to
 * check what an MPI supports (docs/cluster.md, "Open MPI 5"):
 *   raw_spawn collective N   every parent calls MPI_Comm_spawn over
 *                            MPI_COMM_WORLD, one MPI_Intercomm_merge
 *   raw_spawn rank0 N        rank 0 spawns alone over MPI_COMM_SELF and merges
 *                            with its children; all parents meet them by
 *                            MPI_Intercomm_create and a second merge
 * then an MPI_Allreduce over the merged communicator, whose sum must be the
 * new size on every process (exit 1 otherwise).  Under Open MPI 5.0.11 the
 * rank0 way hangs in that MPI_Allreduce (coll/han); run it with timeout. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent, inter = MPI_COMM_NULL, m0 = MPI_COMM_NULL, merged;
    MPI_Comm_get_parent(&parent);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rank0 = argc > 1 && strcmp(argv[1], "rank0") == 0;
    if (argc < 3 || (!rank0 && strcmp(argv[1], "collective") != 0)) {
        if (rank == 0) fprintf(stderr, "usage: raw_spawn collective|rank0 NNEW\n");
        MPI_Finalize();
        return 2;
    }
    double t0 = MPI_Wtime();
    if (parent != MPI_COMM_NULL) {
        if (rank0) {
            MPI_Intercomm_merge(parent, 1, &m0);
            MPI_Intercomm_create(MPI_COMM_WORLD, 0, m0, 0, 7, &inter);
            MPI_Intercomm_merge(inter, 1, &merged);
        } else {
            MPI_Intercomm_merge(parent, 1, &merged);
        }
    } else {
        int nnew = atoi(argv[2]);
        char *cargv[] = {argv[1], argv[2], NULL};
        if (!rank0) {
            MPI_Comm_spawn(argv[0], cargv, nnew, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &parent, MPI_ERRCODES_IGNORE);
            MPI_Intercomm_merge(parent, 0, &merged);
        } else {
            if (rank == 0) {
                MPI_Comm_spawn(argv[0], cargv, nnew, MPI_INFO_NULL, 0, MPI_COMM_SELF, &parent, MPI_ERRCODES_IGNORE);
                MPI_Intercomm_merge(parent, 0, &m0);
            }
            MPI_Intercomm_create(MPI_COMM_WORLD, 0, m0, 1, 7, &inter);
            MPI_Intercomm_merge(inter, 0, &merged);
        }
    }
    int size, mr, one = 1, sum = 0;
    MPI_Comm_size(merged, &size);
    MPI_Comm_rank(merged, &mr);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    printf("raw_spawn %s: merged rank %d of %d: sum %d, %.3f s\n", argv[1], mr, size, sum, MPI_Wtime() - t0);
    MPI_Comm_free(&merged);
    if (m0 != MPI_COMM_NULL) MPI_Comm_free(&m0);
    if (inter != MPI_COMM_NULL) MPI_Comm_disconnect(&inter);
    if (parent != MPI_COMM_NULL) MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return sum == size ? 0 : 1;
}
