/* tests/cluster/hosts.c -- which host does each rank run on (tests/cluster).
 *
 *   hosts ranks          every rank sends its host name to rank 0, which
 *                        prints them and fails unless there are >= 2 hosts
 *   hosts spawn HOST     rank 0 spawns one child with the info key "host"
 *                        set to HOST; the child sends its host name back;
 *                        the parent fails unless it is HOST
 *
 * Prints "hosts: ok ..." on success, exits 1 with a reason otherwise. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME_LEN 256

static void my_host(char *name)
{
    memset(name, 0, NAME_LEN);
    if (gethostname(name, NAME_LEN - 1) != 0)
        strcpy(name, "?");
}

static int ranks(void)
{
    int rank, size, distinct = 0, fail = 0;
    char name[NAME_LEN];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_host(name);
    char *all = rank == 0 ? malloc((size_t)size * NAME_LEN) : NULL;
    MPI_Gather(name, NAME_LEN, MPI_CHAR, all, NAME_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            int seen = 0;
            printf("hosts: rank %d on %s\n", r, all + (size_t)r * NAME_LEN);
            for (int q = 0; q < r; q++)
                seen |= strcmp(all + (size_t)q * NAME_LEN, all + (size_t)r * NAME_LEN) == 0;
            distinct += !seen;
        }
        if (distinct < 2) {
            fprintf(stderr, "hosts: FAIL: %d ranks on %d host(s), expected >= 2 hosts\n", size, distinct);
            fail = 1;
        } else {
            printf("hosts: ok %d ranks on %d hosts\n", size, distinct);
        }
        free(all);
    }
    MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return fail;
}

static int spawn(const char *argv0, const char *host)
{
    int rank, fail = 0, err = MPI_SUCCESS;
    char name[NAME_LEN] = "", mine[NAME_LEN];
    MPI_Comm child;
    MPI_Info info;
    char *cargs[] = {"child", NULL};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    my_host(mine);
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", host);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_spawn(argv0, cargs, 1, info, 0, MPI_COMM_WORLD, &child, &err);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS || err != MPI_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "hosts: FAIL: MPI_Comm_spawn with host=%s returned %d (child error %d)\n", host, rc, err);
        return 1;
    }
    if (rank == 0) {
        MPI_Recv(name, NAME_LEN, MPI_CHAR, 0, 0, child, MPI_STATUS_IGNORE);
        if (strcmp(name, host) != 0) {
            fprintf(stderr, "hosts: FAIL: child asked on %s runs on %s (parent on %s)\n", host, name, mine);
            fail = 1;
        } else {
            printf("hosts: ok parent on %s spawned a child on %s\n", mine, name);
        }
    }
    MPI_Comm_disconnect(&child);
    MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return fail;
}

static int child(void)
{
    MPI_Comm parent;
    char name[NAME_LEN];
    int rank;
    MPI_Comm_get_parent(&parent);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    my_host(name);
    if (rank == 0)
        MPI_Send(name, NAME_LEN, MPI_CHAR, 0, 0, parent);
    MPI_Comm_disconnect(&parent);
    return 0;
}

int main(int argc, char **argv)
{
    int fail;
    MPI_Init(&argc, &argv);
    if (argc >= 2 && strcmp(argv[1], "ranks") == 0)
        fail = ranks();
    else if (argc >= 3 && strcmp(argv[1], "spawn") == 0)
        fail = spawn(argv[0], argv[2]);
    else if (argc >= 2 && strcmp(argv[1], "child") == 0)
        fail = child();
    else {
        fprintf(stderr, "usage: hosts ranks | hosts spawn HOST\n");
        fail = 2;
    }
    MPI_Finalize();
    return fail;
}
