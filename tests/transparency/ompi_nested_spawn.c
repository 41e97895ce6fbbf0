/* ompi_nested_spawn.c -- reproducer (not built, not run by make check): plain MPI, no
 * Ductile.  Level 0 spawns 3 workers and disconnects them, then spawns 3
 * level-1 processes and merges with them; the level-1 job spawns 3 level-2
 * processes.  With Open MPI 4.1.4 the level-2 processes hung in MPI_Init
 * (PMIx_Init) in 5 runs of 12 here:
 *   mpicc -o nested ompi_nested_spawn.c
 *   for i in $(seq 12); do timeout 40 mpiexec --oversubscribe -n 1 ./nested; echo $?; done */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int level = argc > 1 ? atoi(argv[1]) : 0;
    char self[4096]; ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1); self[n] = 0;
    MPI_Comm parent; MPI_Comm_get_parent(&parent);
    char arg[8]; snprintf(arg, sizeof arg, "%d", level + 1);
    char *a[] = {arg, NULL};
    if (level == 0) {
        MPI_Comm inter, merged, w;
        char *wa[] = {"9", NULL};
        MPI_Comm_spawn(self, wa, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &w, MPI_ERRCODES_IGNORE);
        MPI_Comm_disconnect(&w);
        MPI_Comm_spawn(self, a, 3, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, MPI_ERRCODES_IGNORE);
        MPI_Intercomm_merge(inter, 0, &merged);
        int flag = 0; struct timespec ts = {0, 30000000};
        while (!flag) { MPI_Iprobe(1, 7, merged, &flag, MPI_STATUS_IGNORE); if (!flag) nanosleep(&ts, NULL); }
        int x; MPI_Recv(&x, 1, MPI_INT, 1, 7, merged, MPI_STATUS_IGNORE);
        MPI_Comm_free(&merged); MPI_Comm_disconnect(&inter);
        printf("done\n");
    } else if (level == 1) {
        MPI_Comm merged, inter;
        MPI_Intercomm_merge(parent, 1, &merged);
        MPI_Comm_spawn(self, a, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
        MPI_Comm_disconnect(&inter);
        int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
        if (r == 0) { int x = 1; MPI_Send(&x, 1, MPI_INT, 0, 7, merged); }
        MPI_Comm_free(&merged); MPI_Comm_disconnect(&parent);
    } else {
        MPI_Comm_disconnect(&parent);
    }
    MPI_Finalize();
    return 0;
}
