/* init_mt.c -- lets tests/malleable/resize_app.c run with
 * MPI_THREAD_MULTIPLE: tests/rma/resize_app_mt is that program compiled with
 * -DMPI_Init=ductile_test_init_mt, and this is the replacement (the
 * Threading strategy, DUCTILE_REDIST_CONSTANT=thread, needs that level).
 * Prints the granted level once (rank 0) so the tests can skip Threading
 * with a stated reason where the MPI does not provide it. */
#include <mpi.h>
#include <stdio.h>

int ductile_test_init_mt(int *argc, char ***argv)
{
    int provided = MPI_THREAD_SINGLE, rank = 0;
    int rc = MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm parent = MPI_COMM_NULL;
    MPI_Comm_get_parent(&parent);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && parent == MPI_COMM_NULL)
        printf("THREAD LEVEL %s\n", provided == MPI_THREAD_MULTIPLE ? "multiple" : "below-multiple");
    return rc;
}
