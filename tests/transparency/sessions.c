/* sessions.c -- an MPI-4 Sessions program, run with and without Ductile by
 * tests/transparency/sessions.sh (through tests/run-mpi-test.sh: the same
 * output, and the report counts exactly the calls recorded here).
 *
 * usage: sessions only|mixed|early
 *   only   the Sessions model alone: no MPI_Init.  A session, the process
 *          sets mpi://WORLD and mpi://SELF, communicators made from their
 *          groups, collectives and a ring on them.
 *   mixed  MPI_Init first, then the same session; the session's world
 *          communicator is congruent with MPI_COMM_WORLD.
 *   early  the session first, then MPI_Init (and the same checks).
 * A second argument N: every process exits with status N at the end.
 * Rank 0 prints what it saw; every rank exits 0 (or N), or 1 after a failed
 * check.  Built against an MPI without Sessions (Open MPI 4.1) it prints
 * "no MPI Sessions" and exits 77. */
#include <mpi.h>
#include <stdio.h>

#ifndef MPI_SESSION_NULL
int main(void)
{
    printf("no MPI Sessions in this MPI\n");
    return 77;
}
#else
#include <stdlib.h>
#include <string.h>

#include "../mpi/expect.h"
#include "check.h"

static const char *tag_world = "org.ductile.tests.sessions.world";
static const char *tag_self = "org.ductile.tests.sessions.self";

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "only";
    int mixed = strcmp(mode, "mixed") == 0, early = strcmp(mode, "early") == 0;
    if (!mixed && !early && strcmp(mode, "only") != 0) {
        fprintf(stderr, "usage: sessions only|mixed|early\n");
        return 2;
    }
    if (mixed) CALL(MPI_Init, 0, 0, &argc, &argv);

    MPI_Session s;
    CHECK(CALL(MPI_Session_init, 0, 0, MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "MPI_Session_init");
    if (early) CALL(MPI_Init, 0, 0, &argc, &argv);

    /* the process sets: mpi://WORLD and mpi://SELF must be there */
    int npsets = 0, seen_world = 0, seen_self = 0;
    CALL(MPI_Session_get_num_psets, 0, 0, s, MPI_INFO_NULL, &npsets);
    for (int i = 0; i < npsets; i++) {
        char name[256];
        int len = 0;
        CALL(MPI_Session_get_nth_pset, 0, 0, s, MPI_INFO_NULL, i, &len, NULL);
        CHECK(len > 0 && len <= (int)sizeof name, "pset %d: length %d", i, len);
        if (len <= 0 || len > (int)sizeof name) continue;
        CALL(MPI_Session_get_nth_pset, 0, 0, s, MPI_INFO_NULL, i, &len, name);
        seen_world |= strcmp(name, "mpi://WORLD") == 0;
        seen_self |= strcmp(name, "mpi://SELF") == 0;
    }
    CHECK(seen_world && seen_self, "psets: mpi://WORLD %d, mpi://SELF %d", seen_world, seen_self);

    MPI_Info pinfo;
    char val[64] = "";
    int flag = 0;
    CALL(MPI_Session_get_pset_info, 0, 0, s, "mpi://WORLD", &pinfo);
    CALL(MPI_Info_get, 0, 0, pinfo, "mpi_size", (int)sizeof val - 1, val, &flag);
    CALL(MPI_Info_free, 0, 0, &pinfo);

    MPI_Group gw, gs;
    MPI_Comm w, self;
    CALL(MPI_Group_from_session_pset, 0, 0, s, "mpi://WORLD", &gw);
    CALL(MPI_Group_from_session_pset, 0, 0, s, "mpi://SELF", &gs);
    CHECK(CALL(MPI_Comm_create_from_group, 0, 0, gw, tag_world, MPI_INFO_NULL, MPI_ERRORS_RETURN, &w) ==
              MPI_SUCCESS,
          "MPI_Comm_create_from_group(mpi://WORLD)");
    CHECK(CALL(MPI_Comm_create_from_group, 0, 0, gs, tag_self, MPI_INFO_NULL, MPI_ERRORS_RETURN, &self) ==
              MPI_SUCCESS,
          "MPI_Comm_create_from_group(mpi://SELF)");
    int size = 0, ssize = 0, srank = -1;
    CALL(MPI_Comm_rank, 0, 0, w, &rank);
    CALL(MPI_Comm_size, 0, 0, w, &size);
    CALL(MPI_Comm_size, 0, 0, self, &ssize);
    CALL(MPI_Comm_rank, 0, 0, self, &srank);
    CHECK(flag && atoi(val) == size, "mpi://WORLD's mpi_size '%s' (flag %d), communicator size %d", val, flag, size);
    CHECK(ssize == 1 && srank == 0, "mpi://SELF: size %d rank %d", ssize, srank);

    /* work on the session's communicators */
    long sum = 0, mine = rank + 1;
    CALL(MPI_Allreduce, sizeof(long), sizeof(long), &mine, &sum, 1, MPI_LONG, MPI_SUM, w);
    CHECK(sum == (long)size * (size + 1) / 2, "allreduce: %ld", sum);
    char msg[32] = "";
    if (rank == 0) snprintf(msg, sizeof msg, "from the session");
    CALL(MPI_Bcast, rank == 0 ? sizeof msg : 0, rank == 0 ? 0 : sizeof msg, msg, (int)sizeof msg, MPI_CHAR, 0, w);
    CHECK(strcmp(msg, "from the session") == 0, "bcast: '%s'", msg);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    CALL(MPI_Sendrecv, sizeof(int), sizeof(int), &rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, w,
         MPI_STATUS_IGNORE);
    CHECK(got == left, "ring: got %d from %d", got, left);
    long one = 0;
    CALL(MPI_Allreduce, sizeof(long), sizeof(long), &mine, &one, 1, MPI_LONG, MPI_SUM, self);
    CHECK(one == mine, "allreduce on mpi://SELF: %ld", one);

    if (mixed || early) {
        /* the same processes in the same order (MPI_Comm_compare across the two models is
         * an error with Open MPI 5: the communicators belong to different instances) */
        int cmp = -1, wsize = 0;
        MPI_Group g1, g2;
        CALL(MPI_Comm_group, 0, 0, w, &g1);
        CALL(MPI_Comm_group, 0, 0, MPI_COMM_WORLD, &g2);
        CALL(MPI_Group_compare, 0, 0, g1, g2, &cmp);
        CALL(MPI_Group_free, 0, 0, &g1);
        CALL(MPI_Group_free, 0, 0, &g2);
        CALL(MPI_Comm_size, 0, 0, MPI_COMM_WORLD, &wsize);
        CHECK(cmp == MPI_IDENT, "the groups of the session's world and MPI_COMM_WORLD: %d", cmp);
        CHECK(wsize == size, "MPI_COMM_WORLD size %d, session world %d", wsize, size);
        int total = 0;
        CALL(MPI_Allreduce, sizeof(int), sizeof(int), &rank, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(total == size * (size - 1) / 2, "allreduce on MPI_COMM_WORLD: %d", total);
    }

    int all = 0;
    CALL(MPI_Allreduce, sizeof(int), sizeof(int), &failures, &all, 1, MPI_INT, MPI_SUM, w);
    if (rank == 0) {
        printf("mode %s: %d processes, psets mpi://WORLD and mpi://SELF, mpi_size %s\n", mode, size, val);
        printf("allreduce %ld, bcast '%s', ring ok, self size %d\n", sum, msg, ssize);
        printf("RESULT size=%d failures=%d\n", size, all);
    }
    CALL(MPI_Comm_free, 0, 0, &w);
    CALL(MPI_Comm_free, 0, 0, &self);
    CALL(MPI_Group_free, 0, 0, &gw);
    CALL(MPI_Group_free, 0, 0, &gs);
    CALL(MPI_Session_finalize, 0, 0, &s);
    if (mixed || early) expect_add("MPI_Finalize", 1, 0, 0);
    expect_write(rank);
    if (mixed || early) MPI_Finalize();
    return failures ? 1 : argc > 2 ? atoi(argv[2]) : 0;
}
#endif
