/* spawn_own.c -- a master/worker program that spawns its own processes, and
 * is malleable through empi.h at the same time.
 *
 * usage: spawn_own ITERATIONS   (0: no loop, no control point)
 *
 * Every process of the world (rank 0 first, before the loop; then, after
 * the loop and so after any resize Ductile made, every process of the
 * resized world) spawns NW workers with MPI_Comm_spawn over MPI_COMM_WORLD.
 * A worker (argv[1] == "worker", MPI_Comm_get_parent != MPI_COMM_NULL) checks
 * its own world, answers its parents' rank 0 on the intercommunicator, merges
 * with its parents, takes part in an Allreduce over the merged communicator
 * (reporting its failures there), frees it and disconnects.  A process
 * Ductile spawned into the world must see no parent.  Rank 0 prints
 * "RESULT size=S failures=F" at the end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <empi.h>

#define NW 3

#include "check.h"

static int worker(MPI_Comm parent)
{
    int wsize, nparents, inter;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(wsize == NW, "worker world has %d processes, expected %d", wsize, NW);
    MPI_Comm_test_inter(parent, &inter);
    CHECK(inter, "the parent communicator is not an intercommunicator");
    MPI_Comm_remote_size(parent, &nparents);
    int msg[2] = {-1, -1};
    MPI_Recv(msg, 2, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
    CHECK(msg[1] == nparents, "parents say they are %d, the intercommunicator has %d", msg[1], nparents);
    int reply = msg[0] * 100 + rank;
    MPI_Send(&reply, 1, MPI_INT, 0, 2, parent);
    MPI_Comm merged;
    MPI_Intercomm_merge(parent, 1, &merged);
    int msize, mrank;
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    CHECK(msize == nparents + NW && mrank == nparents + rank, "merged: rank %d of %d", mrank, msize);
    int one = 1, count = 0;
    MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, merged);
    CHECK(count == msize, "Allreduce over the merged communicator: %d, expected %d", count, msize);
    int f = failures;
    MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_INT, MPI_SUM, merged);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&parent);
    MPI_Comm_get_parent(&parent);
    CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent after disconnect is not MPI_COMM_NULL");
    int ws = 0;
    MPI_Allreduce(&one, &ws, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(ws == NW, "Allreduce over the worker world: %d", ws);
    MPI_Finalize();
    return 0;
}

/* Collective over MPI_COMM_WORLD: spawn NW workers, talk to them, merge. */
static void spawn_round(int round, const char *self)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm inter;
    int errs[NW];
    char *wargv[] = {"worker", NULL};
    int rc = MPI_Comm_spawn(self, wargv, NW, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
    CHECK(rc == MPI_SUCCESS, "MPI_Comm_spawn failed (%d)", rc);
    if (rc != MPI_SUCCESS) return;
    int rs;
    MPI_Comm_remote_size(inter, &rs);
    CHECK(rs == NW, "round %d: %d workers, expected %d", round, rs, NW);
    if (rank == 0)
        for (int w = 0; w < NW; w++) {
            int msg[2] = {round, size}, reply = -1;
            MPI_Send(msg, 2, MPI_INT, w, 1, inter);
            MPI_Recv(&reply, 1, MPI_INT, w, 2, inter, MPI_STATUS_IGNORE);
            CHECK(reply == round * 100 + w, "round %d: worker %d answered %d", round, w, reply);
        }
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, 0, &merged);
    int msize, mrank;
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    CHECK(msize == size + NW && mrank == rank, "round %d: merged rank %d of %d", round, mrank, msize);
    int one = 1, count = 0;
    MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, merged);
    CHECK(count == msize, "round %d: Allreduce over merged: %d", round, count);
    int f = 0;
    MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_INT, MPI_SUM, merged);
    if (rank == 0) failures += f; /* the workers' failures */
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    if (rank == 0) printf("round %d: %d parent%s spawned %d workers\n", round, size, size == 1 ? "" : "s", NW);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        CHECK(argc > 1 && strcmp(argv[1], "worker") == 0, "a process with a parent has no 'worker' argument");
        return worker(parent);
    }
    CHECK(argc < 2 || strcmp(argv[1], "worker") != 0, "a worker without a parent");
    int iters = argc > 1 ? atoi(argv[1]) : 0, size;
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 2;
    self[n] = '\0';
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long token = 4242;
    EMPI_Register_scalar("token", &token, MPI_LONG_LONG, 1);
    int type, it = 0, status = EMPI_ACTIVE;
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) {
        EMPI_Get_shared(&it);
        CHECK(token == 4242, "the registered scalar did not arrive");
    } else {
        spawn_round(0, self); /* before any resize */
    }
    for (; it < iters; it++) {
        EMPI_Monitor_init();
        EMPI_Monitor_end(&rank, &size, it, iters, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
    }
    if (status != EMPI_REMOVED) {
        if (iters > 0) spawn_round(1, self); /* after the resizes: the whole current world spawns */
        MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) printf("RESULT size=%d failures=%d\n", size, failures);
    }
    MPI_Finalize();
    return 0;
}
