/* ompi_spawn_merged.c -- reproducer (not built, not run by make check): plain MPI, no
 * Ductile.  With Open MPI 4.1.4, a spawn over a communicator that holds a
 * process of a spawned job, after two earlier spawns, hung in 2 runs of 10:
 *   mpicc -o merged ompi_spawn_merged.c
 *   for i in $(seq 10); do timeout 40 mpiexec --oversubscribe -n 1 ./merged; echo $?; done */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
/* level 0 (-n 1): spawn 3 workers, disconnect; spawn 1 child, merge; the merged
 * pair spawns 3 workers (root: level 0), disconnects them. */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int level = argc > 1 ? atoi(argv[1]) : 0;
    char self[4096]; ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1); self[n] = 0;
    MPI_Comm parent, merged, w, inter; MPI_Comm_get_parent(&parent);
    char *wa[] = {"9", NULL}, *ca[] = {"1", NULL};
    if (level == 9) { MPI_Comm_disconnect(&parent); MPI_Finalize(); return 0; }
    if (level == 0) {
        MPI_Comm_spawn(self, wa, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &w, MPI_ERRCODES_IGNORE);
        MPI_Comm_disconnect(&w);
        MPI_Comm_spawn(self, ca, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, MPI_ERRCODES_IGNORE);
        MPI_Intercomm_merge(inter, 0, &merged);
    } else {
        inter = parent;
        MPI_Intercomm_merge(inter, 1, &merged);
    }
    MPI_Comm_spawn(self, wa, 3, MPI_INFO_NULL, 0, merged, &w, MPI_ERRCODES_IGNORE);
    MPI_Comm_disconnect(&w);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    if (level == 0) printf("done\n");
    MPI_Finalize();
    return 0;
}
