/*
 * p2p.c -- point-to-point communication on MPI_COMM_WORLD.
 *
 * Send/Recv ring, Sendrecv, Sendrecv_replace, Ssend, Probe + Get_count,
 * Mprobe + Mrecv/Imrecv, Isend/Irecv + Waitall/Waitany, persistent
 * Send_init/Recv_init + Start/Startall/Wait + Request_free, Bsend with an
 * attached buffer, Rsend, Issend.
 *
 * Receives deliberately post buffers larger than the incoming message: the
 * Ductile byte rule counts what arrived (from the status).  Nonblocking and
 * persistent operations count their bytes when they complete, to the call
 * that started them (Isend, Irecv, Send_init, Recv_init).
 */
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "p2p"
#include "testlib.h"

int main(int argc, char **argv)
{
    int i, n, it;
    int ib[16], ib2[16];
    double db[16], db2[16];
    MPI_Status st;
    MPI_Request req[4];

    CALL(MPI_Init, 0, 0, &argc, &argv);
    CALL(MPI_Comm_rank, 0, 0, W, &rank);
    CALL(MPI_Comm_size, 0, 0, W, &size);
    const int r = rank, P = size, right = (rank + 1) % size, left = (rank + size - 1) % size;
    if (P < 2) {
        /* the blocking ring would send to self before receiving (unsafe) */
        fprintf(stderr, "p2p: needs at least 2 ranks\n");
        CALL(MPI_Abort, 0, 0, W, 2);
    }

    /* ---- ring: rank 0 sends first, every other rank receives then sends;
     *      the token (5 ints) is incremented at every hop ---- */
    for (i = 0; i < 16; i++)
        ib[i] = -1;
    if (r == 0) {
        for (i = 0; i < 5; i++)
            ib[i] = i;
        CALL(MPI_Send, 5 * I, 0, ib, 5, MPI_INT, right, 1, W);
        CALL(MPI_Recv, 0, 5 * I, ib, 8, MPI_INT, left, 1, W, &st);
    } else {
        CALL(MPI_Recv, 0, 5 * I, ib, 8, MPI_INT, left, 1, W, &st);
        for (i = 0; i < 5; i++)
            ib[i] += 1;
        CALL(MPI_Send, 5 * I, 0, ib, 5, MPI_INT, right, 1, W);
    }
    CALL(MPI_Get_count, 0, 0, &st, MPI_INT, &n);
    check(n == 5, "ring count");
    check(st.MPI_SOURCE == left && st.MPI_TAG == 1, "ring status");
    for (i = 0; i < 5; i++) {
        /* rank k>0 holds i + k after its increment; rank 0 receives i + (P-1) */
        int want = i + (r == 0 ? P - 1 : r);
        check(ib[i] == want, "ring value");
        mix(ib[i]);
    }
    if (r == 0)
        printf("ring: count=%d token=%d %d %d %d %d\n", n, ib[0], ib[1], ib[2], ib[3], ib[4]);

    /* ---- Sendrecv: 3 doubles right, receive into a 4-double buffer ---- */
    for (i = 0; i < 3; i++)
        db[i] = r + 0.5 * i;
    CALL(MPI_Sendrecv, 3 * D, 3 * D, db, 3, MPI_DOUBLE, right, 2, db2, 4, MPI_DOUBLE, left, 2, W,
         &st);
    CALL(MPI_Get_count, 0, 0, &st, MPI_DOUBLE, &n);
    check(n == 3, "sendrecv count");
    for (i = 0; i < 3; i++)
        check(db2[i] == left + 0.5 * i, "sendrecv value");
    mix((long long)(db2[2] * 2));
    if (r == 0)
        printf("sendrecv: count=%d %.1f %.1f %.1f\n", n, db2[0], db2[1], db2[2]);

    /* ---- Sendrecv_replace: 6 ints ---- */
    for (i = 0; i < 6; i++)
        ib[i] = 10 * r + i;
    CALL(MPI_Sendrecv_replace, 6 * I, 6 * I, ib, 6, MPI_INT, right, 3, left, 3, W,
         MPI_STATUS_IGNORE);
    for (i = 0; i < 6; i++) {
        check(ib[i] == 10 * left + i, "sendrecv_replace value");
        mix(ib[i]);
    }
    if (r == 0)
        printf("sendrecv_replace: %d .. %d\n", ib[0], ib[5]);

    /* ---- Ssend: Irecv from left (posted 4 ints), Ssend 2 ints right ---- */
    CALL(MPI_Irecv, 0, 2 * I, ib2, 4, MPI_INT, left, 4, W, &req[0]); /* what arrives */
    ib[0] = r * 3;
    ib[1] = r * 3 + 1;
    CALL(MPI_Ssend, 2 * I, 0, ib, 2, MPI_INT, right, 4, W);
    CALL(MPI_Wait, 0, 0, &req[0], &st);
    CALL(MPI_Get_count, 0, 0, &st, MPI_INT, &n);
    check(n == 2 && ib2[0] == left * 3 && ib2[1] == left * 3 + 1, "ssend");
    mix(ib2[1]);
    if (r == 0)
        printf("ssend: count=%d %d %d\n", n, ib2[0], ib2[1]);

    /* ---- Probe + Get_count: left sends left+1 ints (tag 7) ---- */
    for (i = 0; i <= r; i++)
        ib[i] = 100 * r + i;
    CALL(MPI_Isend, (r + 1) * I, 0, ib, r + 1, MPI_INT, right, 7, W, &req[0]);
    CALL(MPI_Probe, 0, 0, MPI_ANY_SOURCE, 7, W, &st);
    CALL(MPI_Get_count, 0, 0, &st, MPI_INT, &n);
    check(st.MPI_SOURCE == left && n == left + 1, "probe");
    {
        int *pb = malloc((size_t)n * sizeof(int));
        if (!pb)
            abort();
        CALL(MPI_Recv, 0, n * I, pb, n, MPI_INT, st.MPI_SOURCE, 7, W, MPI_STATUS_IGNORE);
        for (i = 0; i < n; i++)
            check(pb[i] == 100 * left + i, "probe value");
        mix(pb[n - 1]);
        free(pb);
    }
    CALL(MPI_Wait, 0, 0, &req[0], MPI_STATUS_IGNORE);
    if (r == 0)
        printf("probe: source=%d count=%d\n", st.MPI_SOURCE, n);

    /* ---- Mprobe + Mrecv (2 doubles into 4), Mprobe + Imrecv (3 ints into 5) ---- */
    {
        MPI_Message msg;
        db[0] = 1.5 * r;
        db[1] = -1.5 * r;
        CALL(MPI_Isend, 2 * D, 0, db, 2, MPI_DOUBLE, left, 8, W, &req[0]);
        CALL(MPI_Mprobe, 0, 0, right, 8, W, &msg, &st);
        CALL(MPI_Get_count, 0, 0, &st, MPI_DOUBLE, &n);
        check(n == 2, "mprobe count");
        CALL(MPI_Mrecv, 0, 2 * D, db2, 4, MPI_DOUBLE, &msg, &st);
        check(db2[0] == 1.5 * right && db2[1] == -1.5 * right, "mrecv");
        CALL(MPI_Wait, 0, 0, &req[0], MPI_STATUS_IGNORE);
        for (i = 0; i < 3; i++)
            ib[i] = 7 * r + i;
        CALL(MPI_Isend, 3 * I, 0, ib, 3, MPI_INT, right, 9, W, &req[0]);
        CALL(MPI_Mprobe, 0, 0, left, 9, W, &msg, MPI_STATUS_IGNORE);
        CALL(MPI_Imrecv, 0, 3 * I, ib2, 5, MPI_INT, &msg, &req[1]);
        CALL(MPI_Waitall, 0, 0, 2, req, MPI_STATUSES_IGNORE);
        for (i = 0; i < 3; i++)
            check(ib2[i] == 7 * left + i, "imrecv");
        mix(ib2[2]);
        if (r == 0)
            printf("mprobe: %.1f %.1f / %d %d %d\n", db2[0], db2[1], ib2[0], ib2[1], ib2[2]);
    }

    /* ---- Isend/Irecv with both neighbours + Waitall ---- */
    {
        int fromleft[4], fromright[4], toright[4], toleft[4];
        for (i = 0; i < 4; i++) {
            toright[i] = 1000 + 10 * r + i;
            toleft[i] = 2000 + 10 * r + i;
        }
        CALL(MPI_Irecv, 0, 4 * I, fromleft, 4, MPI_INT, left, 10, W, &req[0]);
        CALL(MPI_Irecv, 0, 4 * I, fromright, 4, MPI_INT, right, 11, W, &req[1]);
        CALL(MPI_Isend, 4 * I, 0, toright, 4, MPI_INT, right, 10, W, &req[2]);
        CALL(MPI_Isend, 4 * I, 0, toleft, 4, MPI_INT, left, 11, W, &req[3]);
        CALL(MPI_Waitall, 0, 0, 4, req, MPI_STATUSES_IGNORE);
        for (i = 0; i < 4; i++) {
            check(fromleft[i] == 1000 + 10 * left + i, "isend/irecv left");
            check(fromright[i] == 2000 + 10 * right + i, "isend/irecv right");
        }
        mix(fromleft[3]);
        mix(fromright[3]);
        if (r == 0)
            printf("nonblocking: %d %d\n", fromleft[0], fromright[0]);
    }

    /* ---- Waitany: two Irecvs (1 double each), then two Sends ---- */
    {
        double a = -1, b = -1, sa = r + 0.25, sb = r + 0.75;
        int idx, k, seen = 0;
        CALL(MPI_Irecv, 0, D, &a, 1, MPI_DOUBLE, left, 12, W, &req[0]);
        CALL(MPI_Irecv, 0, D, &b, 1, MPI_DOUBLE, right, 13, W, &req[1]);
        CALL(MPI_Send, D, 0, &sa, 1, MPI_DOUBLE, right, 12, W);
        CALL(MPI_Send, D, 0, &sb, 1, MPI_DOUBLE, left, 13, W);
        for (k = 0; k < 2; k++) {
            CALL(MPI_Waitany, 0, 0, 2, req, &idx, MPI_STATUS_IGNORE);
            seen |= 1 << idx;
        }
        check(seen == 3, "waitany indices");
        check(a == left + 0.25 && b == right + 0.75, "waitany values");
        if (r == 0)
            printf("waitany: %.2f %.2f\n", a, b);
    }

    /* ---- persistent requests: 3 x Startall + Waitall, then Start/Wait ---- */
    {
        int sbuf[2], rbuf[3];
        MPI_Request pr[2];
        CALL(MPI_Recv_init, 0, 0, rbuf, 3, MPI_INT, left, 20, W, &pr[0]);
        CALL(MPI_Send_init, 0, 0, sbuf, 2, MPI_INT, right, 20, W, &pr[1]);
        for (it = 0; it < 3; it++) {
            sbuf[0] = 10 * r + it;
            sbuf[1] = -(10 * r + it);
            /* bytes count at completion, to the *_init call; 2 ints arrive */
            CALL(MPI_Startall, 0, 0, 2, pr);
            expect_add("MPI_Send_init", 0, 2 * I, 0);
            expect_add("MPI_Recv_init", 0, 0, 2 * I);
            CALL(MPI_Waitall, 0, 0, 2, pr, MPI_STATUSES_IGNORE);
            check(rbuf[0] == 10 * left + it && rbuf[1] == -(10 * left + it), "startall");
            mix(rbuf[0]);
        }
        sbuf[0] = 99 + r;
        sbuf[1] = 0;
        CALL(MPI_Start, 0, 0, &pr[0]);
        CALL(MPI_Start, 0, 0, &pr[1]);
        expect_add("MPI_Send_init", 0, 2 * I, 0);
        expect_add("MPI_Recv_init", 0, 0, 2 * I);
        CALL(MPI_Wait, 0, 0, &pr[1], MPI_STATUS_IGNORE);
        CALL(MPI_Wait, 0, 0, &pr[0], &st);
        CALL(MPI_Get_count, 0, 0, &st, MPI_INT, &n);
        check(n == 2 && rbuf[0] == 99 + left, "start");
        CALL(MPI_Request_free, 0, 0, &pr[0]);
        CALL(MPI_Request_free, 0, 0, &pr[1]);
        check(pr[0] == MPI_REQUEST_NULL && pr[1] == MPI_REQUEST_NULL, "request_free");
        if (r == 0)
            printf("persistent: %d count=%d\n", rbuf[0], n);
    }

    /* ---- Bsend with an attached buffer ---- */
    {
        static char bsbuf[4096 + MPI_BSEND_OVERHEAD];
        void *det;
        int detsize;
        CALL(MPI_Buffer_attach, 0, 0, bsbuf, (int)sizeof bsbuf);
        for (i = 0; i < 4; i++)
            ib[i] = 40 + r + i;
        CALL(MPI_Bsend, 4 * I, 0, ib, 4, MPI_INT, right, 30, W);
        CALL(MPI_Recv, 0, 4 * I, ib2, 4, MPI_INT, left, 30, W, MPI_STATUS_IGNORE);
        CALL(MPI_Buffer_detach, 0, 0, &det, &detsize);
        check(det == (void *)bsbuf && detsize == (int)sizeof bsbuf, "buffer_detach");
        check(ib2[0] == 40 + left && ib2[3] == 43 + left, "bsend");
        mix(ib2[3]);
        if (r == 0)
            printf("bsend: %d %d\n", ib2[0], ib2[3]);
    }

    /* ---- Rsend: the matching receive is posted before a barrier ---- */
    CALL(MPI_Irecv, 0, 3 * I, ib2, 3, MPI_INT, left, 40, W, &req[0]);
    CALL(MPI_Barrier, 0, 0, W);
    ib[0] = r;
    ib[1] = r * r;
    ib[2] = r * r * r;
    CALL(MPI_Rsend, 3 * I, 0, ib, 3, MPI_INT, right, 40, W);
    CALL(MPI_Wait, 0, 0, &req[0], MPI_STATUS_IGNORE);
    check(ib2[0] == left && ib2[1] == left * left && ib2[2] == left * left * left, "rsend");
    mix(ib2[2]);
    if (r == 0)
        printf("rsend: %d %d %d\n", ib2[0], ib2[1], ib2[2]);

    /* ---- Issend + Recv + Wait ---- */
    db[0] = 2.0 * r;
    CALL(MPI_Issend, D, 0, db, 1, MPI_DOUBLE, right, 50, W, &req[0]);
    CALL(MPI_Recv, 0, D, db2, 2, MPI_DOUBLE, left, 50, W, MPI_STATUS_IGNORE);
    CALL(MPI_Wait, 0, 0, &req[0], MPI_STATUS_IGNORE);
    check(db2[0] == 2.0 * left, "issend");
    if (r == 0)
        printf("issend: %.1f\n", db2[0]);

    /* ---- MPI_PROC_NULL moves nothing; a cancelled receive counts nothing;
     *      a short message into a larger nonblocking receive counts what
     *      arrived, at completion ---- */
    {
        int flag = 0;
        CALL(MPI_Send, 0, 0, ib, 4, MPI_INT, MPI_PROC_NULL, 60, W);
        CALL(MPI_Recv, 0, 0, ib2, 4, MPI_INT, MPI_PROC_NULL, 60, W, &st);
        CALL(MPI_Isend, 0, 0, ib, 4, MPI_INT, MPI_PROC_NULL, 61, W, &req[0]);
        CALL(MPI_Irecv, 0, 0, ib2, 4, MPI_INT, MPI_PROC_NULL, 61, W, &req[1]);
        CALL(MPI_Waitall, 0, 0, 2, req, MPI_STATUSES_IGNORE);
        CALL(MPI_Sendrecv, 0, 0, ib, 2, MPI_INT, MPI_PROC_NULL, 62, ib2, 2, MPI_INT, MPI_PROC_NULL, 62, W,
             MPI_STATUS_IGNORE);
        /* nobody sends tag 63: cancel the receive */
        CALL(MPI_Irecv, 0, 0, ib2, 4, MPI_INT, left, 63, W, &req[0]);
        CALL(MPI_Cancel, 0, 0, &req[0]);
        CALL(MPI_Wait, 0, 0, &req[0], &st);
        CALL(MPI_Test_cancelled, 0, 0, &st, &flag);
        check(flag == 1, "cancelled receive");
        /* 1 int into a 6-int receive, completed by MPI_Waitsome */
        ib[0] = 70 + r;
        CALL(MPI_Irecv, 0, I, ib2, 6, MPI_INT, left, 64, W, &req[0]);
        CALL(MPI_Send, I, 0, ib, 1, MPI_INT, right, 64, W);
        {
            int outcount = 0, idx[1];
            CALL(MPI_Waitsome, 0, 0, 1, req, &outcount, idx, MPI_STATUSES_IGNORE);
            check(outcount == 1 && idx[0] == 0, "waitsome");
        }
        check(ib2[0] == 70 + left, "short nonblocking receive");
    }

    /* ---- results ---- */
    test_results_hash();

    return test_finish();
}
