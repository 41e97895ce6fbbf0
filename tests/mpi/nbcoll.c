/*
 * nbcoll.c -- nonblocking collectives on MPI_COMM_WORLD (MPI-3), plus, when
 * the MPI library implements MPI 4 or later, persistent collectives
 * (MPI_Allreduce_init / MPI_Bcast_init + MPI_Start + MPI_Wait) and large-count
 * ("_c") variants.  Uses MPI_Init_thread instead of MPI_Init.
 *
 * The output differs between MPI-3 and MPI-4 libraries (extra lines), but is
 * deterministic for one library and one number of ranks.
 */
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "nbcoll"
#include "testlib.h"

int main(int argc, char **argv)
{
    int i, j, provided = -1;
    MPI_Request req[8];

    CALL(MPI_Init_thread, 0, 0, &argc, &argv, MPI_THREAD_FUNNELED, &provided);
    CALL(MPI_Comm_rank, 0, 0, W, &rank);
    CALL(MPI_Comm_size, 0, 0, W, &size);
    const int r = rank, P = size, last = size - 1;
    check(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided");

    int *ib = calloc((size_t)(8 * P + 16), sizeof(int));
    int *ib2 = calloc((size_t)(8 * P + 16), sizeof(int));
    double *db = calloc((size_t)(8 * P + 16), sizeof(double));
    double *db2 = calloc((size_t)(8 * P + 16), sizeof(double));
    int *counts = calloc((size_t)P, sizeof(int));
    int *displs = calloc((size_t)P, sizeof(int));
    if (!ib || !ib2 || !db || !db2 || !counts || !displs)
        abort();

    /* ---- Ibcast (6 ints from the last rank) + Wait ---- */
    for (i = 0; i < 6; i++)
        ib[i] = r == last ? 11 * i : -1;
    CALL(MPI_Ibcast, r == last ? 6 * I : 0, r == last ? 0 : 6 * I, ib, 6, MPI_INT, last, W,
         &req[0]);
    CALL(MPI_Wait, 0, 0, &req[0], MPI_STATUS_IGNORE);
    for (i = 0; i < 6; i++)
        check(ib[i] == 11 * i, "ibcast");
    mix(ib[5]);
    if (r == 0)
        printf("ibcast: %d %d\n", ib[1], ib[5]);

    /* ---- Iallreduce (4 doubles SUM) and Iallreduce IN_PLACE (2 ints MAX),
     *      both outstanding, then Waitall ---- */
    for (i = 0; i < 4; i++)
        db[i] = r + 0.5 * i;
    ib[0] = r;
    ib[1] = -r;
    CALL(MPI_Iallreduce, 4 * D, 4 * D, db, db2, 4, MPI_DOUBLE, MPI_SUM, W, &req[0]);
    CALL(MPI_Iallreduce, 2 * I, 2 * I, MPI_IN_PLACE, ib, 2, MPI_INT, MPI_MAX, W, &req[1]);
    CALL(MPI_Waitall, 0, 0, 2, req, MPI_STATUSES_IGNORE);
    for (i = 0; i < 4; i++)
        check(db2[i] == P * (P - 1) / 2.0 + 0.5 * i * P, "iallreduce");
    check(ib[0] == last && ib[1] == 0, "iallreduce in_place");
    mix((long long)(db2[3] * 2));
    if (r == 0)
        printf("iallreduce: %.1f %.1f / %d %d\n", db2[0], db2[3], ib[0], ib[1]);

    /* ---- Ialltoall (3 ints per peer) + Wait ---- */
    for (j = 0; j < P; j++)
        for (i = 0; i < 3; i++)
            ib[3 * j + i] = 100 * r + 10 * j + i;
    CALL(MPI_Ialltoall, 3 * I * P, 3 * I * P, ib, 3, MPI_INT, ib2, 3, MPI_INT, W, &req[0]);
    CALL(MPI_Wait, 0, 0, &req[0], MPI_STATUS_IGNORE);
    for (j = 0; j < P; j++)
        for (i = 0; i < 3; i++)
            check(ib2[3 * j + i] == 100 * j + 10 * r + i, "ialltoall");
    mix(ib2[3 * P - 1]);
    if (r == 0)
        printf("ialltoall: %d\n", ib2[3 * P - 1]);

    /* ---- Ireduce (1 double to rank 0) + Iallgatherv + Ibarrier, Waitall ---- */
    {
        double s = -1, v = r + 1.0;
        long long tot = 0;
        for (j = 0; j < P; j++) {
            counts[j] = j % 3 + 1;
            displs[j] = (int)tot;
            tot += counts[j];
        }
        for (i = 0; i < counts[r]; i++)
            ib[i] = 50 * r + i;
        CALL(MPI_Ireduce, D, r == 0 ? D : 0, &v, &s, 1, MPI_DOUBLE, MPI_SUM, 0, W, &req[0]);
        CALL(MPI_Iallgatherv, counts[r] * I, tot * I, ib, counts[r], MPI_INT, ib2, counts, displs,
             MPI_INT, W, &req[1]);
        CALL(MPI_Ibarrier, 0, 0, W, &req[2]);
        CALL(MPI_Waitall, 0, 0, 3, req, MPI_STATUSES_IGNORE);
        if (r == 0)
            check(s == P * (P + 1) / 2.0, "ireduce");
        for (j = 0; j < P; j++)
            for (i = 0; i < counts[j]; i++)
                check(ib2[displs[j] + i] == 50 * j + i, "iallgatherv");
        mix(ib2[tot - 1]);
        if (r == 0)
            printf("ireduce: %.0f iallgatherv: %lld %d\n", s, tot, ib2[tot - 1]);
    }

    /* ---- Ibarrier alone + Wait ---- */
    CALL(MPI_Ibarrier, 0, 0, W, &req[0]);
    CALL(MPI_Wait, 0, 0, &req[0], MPI_STATUS_IGNORE);

#if MPI_VERSION >= 4
    /* ---- persistent collectives: Allreduce_init + 3 x (Start, Wait),
     *      Bcast_init + 2 x (Start, Wait), Request_free ---- */
    {
        double in[2], out[2];
        int bc[4];
        MPI_Request pr, pb;
        int it;
        CALL(MPI_Allreduce_init, 0, 0, in, out, 2, MPI_DOUBLE, MPI_SUM, W, MPI_INFO_NULL, &pr);
        for (it = 0; it < 3; it++) {
            in[0] = r + it;
            in[1] = 1.0;
            CALL(MPI_Start, 0, 0, &pr); /* bytes count at completion, to the _init */
            expect_add("MPI_Allreduce_init", 0, 2 * D, 2 * D);
            CALL(MPI_Wait, 0, 0, &pr, MPI_STATUS_IGNORE);
            check(out[0] == P * (P - 1) / 2.0 + (double)P * it && out[1] == P,
                  "allreduce_init");
            mix((long long)out[0]);
        }
        CALL(MPI_Request_free, 0, 0, &pr);
        CALL(MPI_Bcast_init, 0, 0, bc, 4, MPI_INT, 0, W, MPI_INFO_NULL, &pb);
        for (it = 0; it < 2; it++) {
            for (i = 0; i < 4; i++)
                bc[i] = r == 0 ? 7 * it + i : -1;
            CALL(MPI_Start, 0, 0, &pb);
            expect_add("MPI_Bcast_init", 0, r == 0 ? 4 * I : 0, r == 0 ? 0 : 4 * I);
            CALL(MPI_Wait, 0, 0, &pb, MPI_STATUS_IGNORE);
            for (i = 0; i < 4; i++)
                check(bc[i] == 7 * it + i, "bcast_init");
        }
        CALL(MPI_Request_free, 0, 0, &pb);
        if (r == 0)
            printf("persistent collectives: %.0f %.0f / %d\n", out[0], out[1], bc[3]);
    }

    /* ---- large-count variants ---- */
    {
        MPI_Count n = 5, got = -1;
        MPI_Status st;
        double a[2] = {r, 2.0 * r}, b[2];
        int right = (r + 1) % P, left = (r + P - 1) % P;
        MPI_Request rq;
        for (i = 0; i < 5; i++)
            ib[i] = 3 * r + i;
        /* Irecv_c posts 8 ints, Send_c sends 5 (what arrives is counted) */
        CALL(MPI_Irecv_c, 0, n * I, ib2, (MPI_Count)8, MPI_INT, left, 60, W, &rq);
        CALL(MPI_Send_c, n * I, 0, ib, n, MPI_INT, right, 60, W);
        CALL(MPI_Wait, 0, 0, &rq, &st);
        CALL(MPI_Get_count_c, 0, 0, &st, MPI_INT, &got);
        check(got == 5 && ib2[4] == 3 * left + 4, "send_c/irecv_c");
        /* blocking Recv_c into a 6-int buffer */
        CALL(MPI_Isend_c, n * I, 0, ib, n, MPI_INT, left, 61, W, &rq);
        CALL(MPI_Recv_c, 0, n * I, ib2, (MPI_Count)6, MPI_INT, right, 61, W,
             MPI_STATUS_IGNORE);
        CALL(MPI_Wait, 0, 0, &rq, MPI_STATUS_IGNORE);
        check(ib2[0] == 3 * right, "recv_c");
        CALL(MPI_Allreduce_c, 2 * D, 2 * D, a, b, (MPI_Count)2, MPI_DOUBLE, MPI_SUM, W);
        check(b[0] == P * (P - 1) / 2.0 && b[1] == (double)P * (P - 1), "allreduce_c");
        for (i = 0; i < 3; i++)
            ib[i] = r == last ? 9 - i : 0;
        CALL(MPI_Bcast_c, r == last ? 3 * I : 0, r == last ? 0 : 3 * I, ib, (MPI_Count)3,
             MPI_INT, last, W);
        check(ib[0] == 9 && ib[2] == 7, "bcast_c");
        mix((long long)b[1]);
        if (r == 0)
            printf("large count: %lld %d %.0f %.0f %d\n", (long long)got, ib2[0], b[0], b[1],
                   ib[2]);
    }
#else
    if (r == 0)
        printf("MPI_VERSION %d < 4: no persistent collectives or large-count calls\n",
               MPI_VERSION);
#endif

    /* ---- results ---- */
    test_results_hash();

    free(ib);
    free(ib2);
    free(db);
    free(db2);
    free(counts);
    free(displs);

    return test_finish();
}
