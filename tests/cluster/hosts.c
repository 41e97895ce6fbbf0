/* tests/cluster/hosts.c -- which host does each rank run on (tests/cluster).
 *
 *   hosts ranks          every rank sends its host name to rank 0, which
 *                        prints them and fails unless there are >= 2 hosts
 *   hosts spawn HOST     rank 0 spawns one child with the info key "host"
 *                        set to HOST; the child sends its host name back;
 *                        the parent fails unless it is HOST.  With
 *                        HOSTS_WAIT_FILE=F rank 0 first waits (up to 60 s)
 *                        until F exists (a host Slurm adds to the running
 *                        job); with HOSTS_ADD_HOST=1 the info key "add-host"
 *                        (Open MPI: a host outside mpiexec's allocation)
 *                        with "map_by" slot and "bind_to" none (no
 *                        topology of the new host yet when Open MPI 4.1
 *                        maps the spawned job)
 *   hosts rawspawn LIST  a raw expansion for comparison with Ductile's
 *                        (tests/cluster/expand-bench.sh): all ranks spawn
 *                        one process per host in LIST (comma-separated, info
 *                        keys "host" and "hosts"), merge, barrier; rank 0
 *                        prints the times
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
    const char *wait = getenv("HOSTS_WAIT_FILE");
    if (wait && *wait) {
        int there = 0;
        if (rank == 0)
            for (int i = 0; i < 600 && !(there = access(wait, F_OK) == 0); i++) usleep(100000);
        MPI_Bcast(&there, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!there) {
            if (rank == 0) fprintf(stderr, "hosts: FAIL: %s did not appear within 60 s\n", wait);
            return 1;
        }
    }
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", host);
    if (getenv("HOSTS_ADD_HOST") && atoi(getenv("HOSTS_ADD_HOST"))) {
        MPI_Info_set(info, "add-host", host);
        MPI_Info_set(info, "map_by", "slot"); /* Open MPI 4.1 spells these with _ */
        MPI_Info_set(info, "bind_to", "none");
    }
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

static int rawspawn(const char *argv0, const char *list)
{
    int rank, n = 1, err[64];
    for (const char *p = list; *p; p++) n += *p == ',';
    if (n > 64) return 2;
    char *cargs[] = {"rawchild", NULL};
    MPI_Info info;
    MPI_Comm child, merged;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", list);
    MPI_Info_set(info, "hosts", list);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = MPI_Comm_spawn(argv0, cargs, n, info, 0, MPI_COMM_WORLD, &child, err);
    double t1 = MPI_Wtime();
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        if (rank == 0) fprintf(stderr, "hosts: FAIL: MPI_Comm_spawn of %d onto %s returned %d\n", n, list, rc);
        return 1;
    }
    MPI_Intercomm_merge(child, 0, &merged);
    MPI_Barrier(merged);
    double t2 = MPI_Wtime();
    int size;
    MPI_Comm_size(merged, &size);
    if (rank == 0)
        printf("hosts: rawspawn %d onto %s: spawn %.4f s, merge+barrier %.4f s, total %.4f s (world %d)\n", n, list,
               t1 - t0, t2 - t1, t2 - t0, size);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&child);
    return 0;
}

static int rawchild(void)
{
    MPI_Comm parent, merged;
    MPI_Comm_get_parent(&parent);
    MPI_Intercomm_merge(parent, 1, &merged);
    MPI_Barrier(merged);
    MPI_Comm_free(&merged);
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
    else if (argc >= 3 && strcmp(argv[1], "rawspawn") == 0)
        fail = rawspawn(argv[0], argv[2]);
    else if (argc >= 2 && strcmp(argv[1], "rawchild") == 0)
        fail = rawchild();
    else {
        fprintf(stderr, "usage: hosts ranks | hosts spawn HOST | hosts rawspawn HOST,HOST...\n");
        fail = 2;
    }
    MPI_Finalize();
    return fail;
}
