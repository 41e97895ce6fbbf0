/*
 * rma.c -- one-sided communication with windows on MPI_COMM_WORLD.
 *
 * Window 1 (MPI_Win_create, ints): Fence epochs with Put, Get, Accumulate.
 * Window 2 (MPI_Win_allocate, ints): passive target with Lock/Unlock,
 * Fetch_and_op, Compare_and_swap, Lock_all + Get_accumulate + Flush + Rget.
 * Which rank wins the compare-and-swap race varies; only the (deterministic)
 * number of winners and final sums are printed.
 *
 * Window 2 uses 32-bit ints on purpose: Open MPI 4.x (osc/rdma over
 * btl/vader) crashes in MPI_Compare_and_swap on 64-bit types
 * (open-mpi/ompi issue #7967).
 */
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "rma"
#include "testlib.h"

int main(int argc, char **argv)
{
    int i;
    MPI_Win win, win2;

    CALL(MPI_Init, 0, 0, &argc, &argv);
    CALL(MPI_Comm_rank, 0, 0, W, &rank);
    CALL(MPI_Comm_size, 0, 0, W, &size);
    const int r = rank, P = size, right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* ================= window 1: Win_create + fences ================= */
    int *wb = calloc((size_t)P + 4, sizeof(int));
    int got[2] = {-1, -1};
    if (!wb)
        abort();
    CALL(MPI_Win_create, 0, 0, wb, (MPI_Aint)((P + 4) * I), (int)I, MPI_INFO_NULL, W, &win);
    CALL(MPI_Win_fence, 0, 0, 0, win);

    /* Put r+1 into slot r of the right neighbour */
    {
        int v = r + 1;
        CALL(MPI_Put, I, 0, &v, 1, MPI_INT, right, (MPI_Aint)r, 1, MPI_INT, win);
        CALL(MPI_Win_fence, 0, 0, 0, win);
    }
    check(wb[left] == left + 1, "put");
    for (i = 0; i < P; i++)
        if (i != left)
            check(wb[i] == 0, "put untouched");

    /* Get slot r (which holds r+1) and slot P (still 0) from the right neighbour */
    CALL(MPI_Get, 0, I, &got[0], 1, MPI_INT, right, (MPI_Aint)r, 1, MPI_INT, win);
    CALL(MPI_Get, 0, I, &got[1], 1, MPI_INT, right, (MPI_Aint)P, 1, MPI_INT, win);
    CALL(MPI_Win_fence, 0, 0, 0, win);
    check(got[0] == r + 1 && got[1] == 0, "get");

    /* Accumulate {r, 1, 2r} (SUM) into slots P..P+2 of rank 0 */
    {
        int acc[3] = {r, 1, 2 * r};
        CALL(MPI_Accumulate, 3 * I, 0, acc, 3, MPI_INT, 0, (MPI_Aint)P, 3, MPI_INT, MPI_SUM, win);
        CALL(MPI_Win_fence, 0, 0, MPI_MODE_NOSUCCEED, win);
    }
    if (r == 0) {
        check(wb[P] == P * (P - 1) / 2 && wb[P + 1] == P && wb[P + 2] == P * (P - 1),
              "accumulate");
        printf("fence: put %d get %d accumulate %d %d %d\n", wb[left], got[0], wb[P], wb[P + 1],
               wb[P + 2]);
    }
    CALL(MPI_Win_free, 0, 0, &win);
    check(win == MPI_WIN_NULL, "win_free");
    free(wb);

    /* ================= window 2: Win_allocate + passive target ================= */
    int *base = NULL;
    CALL(MPI_Win_allocate, 0, 0, (MPI_Aint)(4 * I), (int)I, MPI_INFO_NULL, W, &base, &win2);
    /* initialise the local part inside a lock epoch on self */
    CALL(MPI_Win_lock, 0, 0, MPI_LOCK_EXCLUSIVE, r, 0, win2);
    for (i = 0; i < 4; i++)
        base[i] = 0;
    CALL(MPI_Win_unlock, 0, 0, r, win2);
    CALL(MPI_Barrier, 0, 0, W);

    int fetched = -1, cas_old = -1;
    /* Fetch_and_op: counter[0] of rank 0 += r+1 */
    {
        int add = r + 1;
        CALL(MPI_Win_lock, 0, 0, MPI_LOCK_EXCLUSIVE, 0, 0, win2);
        CALL(MPI_Fetch_and_op, I, I, &add, &fetched, MPI_INT, 0, 0, MPI_SUM, win2);
        CALL(MPI_Win_unlock, 0, 0, 0, win2);
    }
    /* Compare_and_swap: counter[1] of rank 0: 0 -> r+1, exactly one winner */
    {
        int mine = r + 1, zero = 0;
        CALL(MPI_Win_lock, 0, 0, MPI_LOCK_EXCLUSIVE, 0, 0, win2);
        CALL(MPI_Compare_and_swap, 2 * I, I, &mine, &zero, &cas_old, MPI_INT, 0, 1, win2);
        CALL(MPI_Win_unlock, 0, 0, 0, win2);
    }
    /* Lock_all: Get_accumulate (2 ints, SUM) into counter[2..3] of the
     * right neighbour, Flush, then Rget of counter[0..1] of rank 0 */
    {
        int two[2] = {1, r}, prev[2];
        MPI_Request rq;
        CALL(MPI_Win_lock_all, 0, 0, 0, win2);
        CALL(MPI_Get_accumulate, 2 * I, 2 * I, two, 2, MPI_INT, prev, 2, MPI_INT, right, 2, 2,
             MPI_INT, MPI_SUM, win2);
        CALL(MPI_Win_flush, 0, 0, right, win2);
        check(prev[0] == 0 && prev[1] == 0, "get_accumulate previous value");
        CALL(MPI_Win_unlock_all, 0, 0, win2);
        CALL(MPI_Barrier, 0, 0, W);

        int c[4] = {-1, -1, -1, -1};
        CALL(MPI_Win_lock, 0, 0, MPI_LOCK_SHARED, 0, 0, win2);
        CALL(MPI_Rget, 0, 2 * I, c, 2, MPI_INT, 0, 0, 2, MPI_INT, win2, &rq);
        CALL(MPI_Wait, 0, 0, &rq, MPI_STATUS_IGNORE);
        CALL(MPI_Win_unlock, 0, 0, 0, win2);
        check(c[0] == P * (P + 1) / 2, "fetch_and_op total");
        check(c[1] >= 1 && c[1] <= P, "compare_and_swap value");
        /* the winner saw 0 and wrote its r+1 */
        if (cas_old == 0)
            check(c[1] == r + 1, "compare_and_swap winner");
        check(fetched >= 0 && fetched <= P * (P + 1) / 2 - (r + 1), "fetch_and_op old");

        /* own counters 2..3 were updated by the left neighbour */
        CALL(MPI_Win_lock, 0, 0, MPI_LOCK_SHARED, r, 0, win2);
        check(base[2] == 1 && base[3] == left, "get_accumulate result");
        CALL(MPI_Win_unlock, 0, 0, r, win2);

        int won = cas_old == 0, winners = -1;
        CALL(MPI_Reduce, I, r == 0 ? I : 0, &won, &winners, 1, MPI_INT, MPI_SUM, 0, W);
        if (r == 0) {
            check(winners == 1, "exactly one compare_and_swap winner");
            printf("passive: fetch_and_op total %d, compare_and_swap winners %d\n", c[0],
                   winners);
        }
    }
    CALL(MPI_Win_free, 0, 0, &win2);

    /* ---- results ---- */
    test_summary(test_reduce_errors());

    return test_finish();
}
