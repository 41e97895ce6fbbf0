/*
 * coll.c -- blocking collectives on MPI_COMM_WORLD.
 *
 * Bcast, Reduce (+IN_PLACE), Allreduce (+IN_PLACE), Gather/Gatherv (+IN_PLACE),
 * Scatter/Scatterv (+IN_PLACE), Allgather/Allgatherv (+IN_PLACE),
 * Alltoall/Alltoallv (+IN_PLACE), Alltoallw, Reduce_scatter_block (+IN_PLACE),
 * Reduce_scatter, Scan/Exscan (+IN_PLACE), Barrier.
 *
 * Every rank checks its results; rank 0 prints results and a per-rank hash.
 * Byte expectations follow the Ductile rules (see tests/mpi/expect.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NAME "coll"
#include "testlib.h"

int main(int argc, char **argv)
{
    int i, j;

    CALL(MPI_Init, 0, 0, &argc, &argv);
    CALL(MPI_Comm_rank, 0, 0, W, &rank);
    CALL(MPI_Comm_size, 0, 0, W, &size);
    const int P = size, r = rank, last = size - 1;

    int *ibuf = calloc((size_t)(16 * P + 64), sizeof(int));
    int *ibuf2 = calloc((size_t)(16 * P + 64), sizeof(int));
    double *dbuf = calloc((size_t)(16 * P + 64), sizeof(double));
    double *dbuf2 = calloc((size_t)(16 * P + 64), sizeof(double));
    int *counts = calloc((size_t)P, sizeof(int));
    int *displs = calloc((size_t)P, sizeof(int));
    MPI_Datatype *types = calloc((size_t)P, sizeof(MPI_Datatype));
    if (!ibuf || !ibuf2 || !dbuf || !dbuf2 || !counts || !displs || !types)
        abort();

    /* ---- Bcast: 10 ints from 0, then 3 doubles from the last rank ---- */
    for (i = 0; i < 10; i++)
        ibuf[i] = r == 0 ? i * 7 + 1 : -1;
    CALL(MPI_Bcast, r == 0 ? 10 * I : 0, r == 0 ? 0 : 10 * I, ibuf, 10, MPI_INT, 0, W);
    for (i = 0; i < 10; i++) {
        check(ibuf[i] == i * 7 + 1, "bcast int");
        mix(ibuf[i]);
    }
    for (i = 0; i < 3; i++)
        dbuf[i] = r == last ? 0.5 * i : -1.0;
    CALL(MPI_Bcast, r == last ? 3 * D : 0, r == last ? 0 : 3 * D, dbuf, 3, MPI_DOUBLE, last, W);
    for (i = 0; i < 3; i++)
        check(dbuf[i] == 0.5 * i, "bcast double");
    if (r == 0)
        printf("bcast: %d %d %d / %.1f %.1f %.1f\n", ibuf[0], ibuf[5], ibuf[9], dbuf[0], dbuf[1],
               dbuf[2]);

    /* ---- Reduce: 4 ints SUM to the last rank; IN_PLACE MAX at rank 0 ---- */
    for (i = 0; i < 4; i++)
        ibuf[i] = r + i;
    CALL(MPI_Reduce, 4 * I, r == last ? 4 * I : 0, ibuf, r == last ? (void *)ibuf2 : NULL, 4,
         MPI_INT, MPI_SUM, last, W);
    if (r == last)
        for (i = 0; i < 4; i++) {
            check(ibuf2[i] == P * (P - 1) / 2 + P * i, "reduce sum");
            mix(ibuf2[i]);
        }
    for (i = 0; i < 3; i++)
        ibuf[i] = (r * 13 + i * 5) % 17;
    CALL(MPI_Reduce, 3 * I, r == 0 ? 3 * I : 0, r == 0 ? MPI_IN_PLACE : (void *)ibuf, ibuf, 3,
         MPI_INT, MPI_MAX, 0, W);
    if (r == 0) {
        for (i = 0; i < 3; i++) {
            int m = 0;
            for (j = 0; j < P; j++)
                if ((j * 13 + i * 5) % 17 > m)
                    m = (j * 13 + i * 5) % 17;
            check(ibuf[i] == m, "reduce in_place max");
        }
        printf("reduce: in_place max %d %d %d\n", ibuf[0], ibuf[1], ibuf[2]);
    }

    /* ---- Allreduce: 5 doubles SUM; IN_PLACE 3 ints MAX ---- */
    for (i = 0; i < 5; i++)
        dbuf[i] = (double)(r * i);
    CALL(MPI_Allreduce, 5 * D, 5 * D, dbuf, dbuf2, 5, MPI_DOUBLE, MPI_SUM, W);
    for (i = 0; i < 5; i++) {
        check(dbuf2[i] == (double)(i * P * (P - 1) / 2), "allreduce sum");
        mix((long long)dbuf2[i]);
    }
    for (i = 0; i < 3; i++)
        ibuf[i] = r * (i + 1);
    CALL(MPI_Allreduce, 3 * I, 3 * I, MPI_IN_PLACE, ibuf, 3, MPI_INT, MPI_MAX, W);
    for (i = 0; i < 3; i++)
        check(ibuf[i] == last * (i + 1), "allreduce in_place max");
    if (r == 0)
        printf("allreduce: %.0f %.0f / in_place %d %d %d\n", dbuf2[1], dbuf2[4], ibuf[0], ibuf[1],
               ibuf[2]);

    /* ---- Gather: 2 ints per rank to 0; IN_PLACE at root 0 ---- */
    ibuf[0] = r * 10;
    ibuf[1] = r * 10 + 1;
    /* non-roots pass NULL/0/MPI_DATATYPE_NULL: receive arguments are significant only at root */
    CALL(MPI_Gather, 2 * I, r == 0 ? 2 * I * P : 0, ibuf, 2, MPI_INT, r == 0 ? (void *)ibuf2 : NULL,
         r == 0 ? 2 : 0, r == 0 ? MPI_INT : MPI_DATATYPE_NULL, 0, W);
    if (r == 0)
        for (i = 0; i < 2 * P; i++)
            check(ibuf2[i] == (i / 2) * 10 + i % 2, "gather");
    for (i = 0; i < 2 * P; i++)
        ibuf2[i] = r == 0 ? (i < 2 ? i + 100 : -1) : -7;
    ibuf[0] = r + 100;
    ibuf[1] = r + 101;
    CALL(MPI_Gather, 2 * I, r == 0 ? 2 * I * P : 0, r == 0 ? MPI_IN_PLACE : (void *)ibuf, 2,
         MPI_INT, ibuf2, 2, MPI_INT, 0, W);
    if (r == 0) {
        for (i = 0; i < 2 * P; i++)
            check(ibuf2[i] == i / 2 + 100 + i % 2, "gather in_place");
        printf("gather: in_place last=%d %d\n", ibuf2[2 * P - 2], ibuf2[2 * P - 1]);
    }

    /* ---- Gatherv: rank j sends j+1 ints, root = last; IN_PLACE at root 0 ---- */
    {
        long long tot = 0;
        for (j = 0; j < P; j++) {
            counts[j] = j + 1;
            displs[j] = (int)tot;
            tot += j + 1;
        }
        for (i = 0; i <= r; i++)
            ibuf[i] = 1000 * r + i;
        CALL(MPI_Gatherv, (r + 1) * I, r == last ? tot * I : 0, ibuf, r + 1, MPI_INT, ibuf2,
             counts, displs, MPI_INT, last, W);
        if (r == last)
            for (j = 0; j < P; j++)
                for (i = 0; i <= j; i++) {
                    check(ibuf2[displs[j] + i] == 1000 * j + i, "gatherv");
                    mix(ibuf2[displs[j] + i]);
                }
        /* IN_PLACE: root 0's contribution is already at displs[0] */
        for (i = 0; i < tot; i++)
            ibuf2[i] = -1;
        if (r == 0)
            ibuf2[0] = 5000;
        for (i = 0; i <= r; i++)
            ibuf[i] = 5000 + 10 * r + i;
        CALL(MPI_Gatherv, r == 0 ? counts[0] * I : (r + 1) * I, r == 0 ? tot * I : 0,
             r == 0 ? MPI_IN_PLACE : (void *)ibuf, r + 1, MPI_INT, ibuf2, counts, displs, MPI_INT,
             0, W);
        if (r == 0) {
            for (j = 0; j < P; j++)
                for (i = 0; i <= j; i++)
                    check(ibuf2[displs[j] + i] == 5000 + 10 * j + i, "gatherv in_place");
            printf("gatherv: total=%lld last=%d\n", tot, ibuf2[tot - 1]);
        }
    }

    /* ---- Scatter: 3 ints each from 0; IN_PLACE at root = last ---- */
    for (i = 0; i < 3 * P; i++)
        ibuf[i] = r == 0 ? 3 * i + 1 : -1;
    /* non-roots pass NULL/0/MPI_DATATYPE_NULL: send arguments are significant only at root */
    CALL(MPI_Scatter, r == 0 ? 3 * I * P : 0, 3 * I, r == 0 ? (void *)ibuf : NULL, r == 0 ? 3 : 0,
         r == 0 ? MPI_INT : MPI_DATATYPE_NULL, ibuf2, 3, MPI_INT, 0, W);
    for (i = 0; i < 3; i++) {
        check(ibuf2[i] == 3 * (3 * r + i) + 1, "scatter");
        mix(ibuf2[i]);
    }
    for (i = 0; i < 3 * P; i++)
        ibuf[i] = r == last ? 2 * i : -1;
    CALL(MPI_Scatter, r == last ? 3 * I * P : 0, 3 * I, ibuf, 3, MPI_INT,
         r == last ? MPI_IN_PLACE : (void *)ibuf2, 3, MPI_INT, last, W);
    if (r != last)
        for (i = 0; i < 3; i++)
            check(ibuf2[i] == 2 * (3 * r + i), "scatter in_place");
    if (r == 0)
        printf("scatter: %d %d %d\n", ibuf2[0], ibuf2[1], ibuf2[2]);

    /* ---- Scatterv: rank j gets j+1 doubles from 0; IN_PLACE at root 0 ---- */
    {
        long long tot = 0;
        for (j = 0; j < P; j++) {
            counts[j] = j + 1;
            displs[j] = (int)tot;
            tot += j + 1;
        }
        for (i = 0; i < tot; i++)
            dbuf[i] = r == 0 ? 0.25 * i : -1.0;
        CALL(MPI_Scatterv, r == 0 ? tot * D : 0, (r + 1) * D, dbuf, counts, displs, MPI_DOUBLE,
             dbuf2, r + 1, MPI_DOUBLE, 0, W);
        for (i = 0; i <= r; i++) {
            check(dbuf2[i] == 0.25 * (displs[r] + i), "scatterv");
            mix((long long)(dbuf2[i] * 4));
        }
        CALL(MPI_Scatterv, r == 0 ? tot * D : 0, r == 0 ? counts[0] * D : (r + 1) * D, dbuf,
             counts, displs, MPI_DOUBLE, r == 0 ? MPI_IN_PLACE : (void *)dbuf2, r + 1,
             MPI_DOUBLE, 0, W);
        for (i = 0; i <= r; i++)
            check(dbuf2[i] == 0.25 * (displs[r] + i), "scatterv in_place");
        if (r == 0)
            printf("scatterv: total=%lld\n", tot);
    }

    /* ---- Allgather: 1 int; IN_PLACE 2 ints ---- */
    ibuf[0] = r * r;
    CALL(MPI_Allgather, I, P * I, ibuf, 1, MPI_INT, ibuf2, 1, MPI_INT, W);
    for (j = 0; j < P; j++)
        check(ibuf2[j] == j * j, "allgather");
    for (j = 0; j < 2 * P; j++)
        ibuf2[j] = (j / 2 == r) ? 7 * r + j % 2 : -1;
    CALL(MPI_Allgather, 2 * I, 2 * P * I, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ibuf2, 2, MPI_INT,
         W);
    for (j = 0; j < 2 * P; j++) {
        check(ibuf2[j] == 7 * (j / 2) + j % 2, "allgather in_place");
        mix(ibuf2[j]);
    }
    if (r == 0)
        printf("allgather: last=%d %d\n", ibuf2[2 * P - 2], ibuf2[2 * P - 1]);

    /* ---- Allgatherv: rank j contributes j+1 doubles; IN_PLACE as well ---- */
    {
        long long tot = 0;
        for (j = 0; j < P; j++) {
            counts[j] = j + 1;
            displs[j] = (int)tot;
            tot += j + 1;
        }
        for (i = 0; i <= r; i++)
            dbuf[i] = r + 0.5 * i;
        CALL(MPI_Allgatherv, (r + 1) * D, tot * D, dbuf, r + 1, MPI_DOUBLE, dbuf2, counts, displs,
             MPI_DOUBLE, W);
        for (j = 0; j < P; j++)
            for (i = 0; i <= j; i++)
                check(dbuf2[displs[j] + i] == j + 0.5 * i, "allgatherv");
        for (i = 0; i < tot; i++)
            dbuf2[i] = -1;
        for (i = 0; i <= r; i++)
            dbuf2[displs[r] + i] = 3.0 * r + i;
        CALL(MPI_Allgatherv, counts[r] * D, tot * D, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dbuf2,
             counts, displs, MPI_DOUBLE, W);
        for (j = 0; j < P; j++)
            for (i = 0; i <= j; i++) {
                check(dbuf2[displs[j] + i] == 3.0 * j + i, "allgatherv in_place");
                mix((long long)dbuf2[displs[j] + i]);
            }
        if (r == 0)
            printf("allgatherv: total=%lld last=%.0f\n", tot, dbuf2[tot - 1]);
    }

    /* ---- Alltoall: 2 ints per peer; IN_PLACE 1 int per peer ---- */
    for (j = 0; j < P; j++) {
        ibuf[2 * j] = 100 * r + j;
        ibuf[2 * j + 1] = -(100 * r + j);
    }
    CALL(MPI_Alltoall, 2 * I * P, 2 * I * P, ibuf, 2, MPI_INT, ibuf2, 2, MPI_INT, W);
    for (j = 0; j < P; j++) {
        check(ibuf2[2 * j] == 100 * j + r && ibuf2[2 * j + 1] == -(100 * j + r), "alltoall");
        mix(ibuf2[2 * j]);
    }
    for (j = 0; j < P; j++)
        ibuf2[j] = 1000 * r + j;
    CALL(MPI_Alltoall, I * P, I * P, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ibuf2, 1, MPI_INT, W);
    for (j = 0; j < P; j++)
        check(ibuf2[j] == 1000 * j + r, "alltoall in_place");
    if (r == 0)
        printf("alltoall: %d / in_place %d\n", ibuf2[0], ibuf2[last]);

    /* ---- Alltoallv: r sends (r+j)%3+1 ints to j (symmetric); IN_PLACE ---- */
    {
        long long tot = 0;
        for (j = 0; j < P; j++) {
            counts[j] = (r + j) % 3 + 1;
            displs[j] = (int)tot;
            tot += counts[j];
        }
        for (j = 0; j < P; j++)
            for (i = 0; i < counts[j]; i++)
                ibuf[displs[j] + i] = 10000 * r + 100 * j + i;
        CALL(MPI_Alltoallv, tot * I, tot * I, ibuf, counts, displs, MPI_INT, ibuf2, counts, displs,
             MPI_INT, W);
        for (j = 0; j < P; j++)
            for (i = 0; i < counts[j]; i++) {
                check(ibuf2[displs[j] + i] == 10000 * j + 100 * r + i, "alltoallv");
                mix(ibuf2[displs[j] + i]);
            }
        for (j = 0; j < P; j++)
            for (i = 0; i < counts[j]; i++)
                ibuf2[displs[j] + i] = 7 * r + 3 * j + i;
        CALL(MPI_Alltoallv, tot * I, tot * I, MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ibuf2,
             counts, displs, MPI_INT, W);
        for (j = 0; j < P; j++)
            for (i = 0; i < counts[j]; i++)
                check(ibuf2[displs[j] + i] == 7 * j + 3 * r + i, "alltoallv in_place");
        if (r == 0)
            printf("alltoallv: total=%lld\n", tot);
    }

    /* ---- Alltoallw: 2 ints to peers with (r+j) even, 3 doubles otherwise ---- */
    {
        long long tot = 0;
        int off = 0;
        char *sb, *rb;
        for (j = 0; j < P; j++) {
            if ((r + j) % 2 == 0) {
                counts[j] = 2;
                types[j] = MPI_INT;
                tot += 2 * I;
            } else {
                counts[j] = 3;
                types[j] = MPI_DOUBLE;
                tot += 3 * D;
            }
            displs[j] = off; /* byte displacements, 8-aligned */
            off += 24;
        }
        sb = calloc((size_t)off, 1);
        rb = calloc((size_t)off, 1);
        if (!sb || !rb)
            abort();
        for (j = 0; j < P; j++) {
            if (types[j] == MPI_INT) {
                int *p = (int *)(sb + displs[j]);
                p[0] = 10 * r + j;
                p[1] = -(10 * r + j);
            } else {
                double *p = (double *)(sb + displs[j]);
                for (i = 0; i < 3; i++)
                    p[i] = 100.0 * r + j + 0.25 * i;
            }
        }
        CALL(MPI_Alltoallw, tot, tot, sb, counts, displs, types, rb, counts, displs, types, W);
        for (j = 0; j < P; j++) {
            if (types[j] == MPI_INT) {
                int *p = (int *)(rb + displs[j]);
                check(p[0] == 10 * j + r && p[1] == -(10 * j + r), "alltoallw int");
                mix(p[0]);
            } else {
                double *p = (double *)(rb + displs[j]);
                for (i = 0; i < 3; i++)
                    check(p[i] == 100.0 * j + r + 0.25 * i, "alltoallw double");
                mix((long long)p[2]);
            }
        }
        if (r == 0)
            printf("alltoallw: bytes=%lld\n", tot);
        free(sb);
        free(rb);
    }

    /* ---- Reduce_scatter_block: 2 ints per rank; IN_PLACE ---- */
    for (i = 0; i < 2 * P; i++)
        ibuf[i] = r + i;
    CALL(MPI_Reduce_scatter_block, 2 * I * P, 2 * I, ibuf, ibuf2, 2, MPI_INT, MPI_SUM, W);
    for (i = 0; i < 2; i++) {
        check(ibuf2[i] == P * (P - 1) / 2 + P * (2 * r + i), "reduce_scatter_block");
        mix(ibuf2[i]);
    }
    for (i = 0; i < 2 * P; i++)
        ibuf[i] = r * i;
    CALL(MPI_Reduce_scatter_block, 2 * I * P, 2 * I, MPI_IN_PLACE, ibuf, 2, MPI_INT, MPI_SUM, W);
    for (i = 0; i < 2; i++)
        check(ibuf[i] == (2 * r + i) * P * (P - 1) / 2, "reduce_scatter_block in_place");
    if (r == 0)
        printf("reduce_scatter_block: %d %d\n", ibuf[0], ibuf[1]);

    /* ---- Reduce_scatter: rank j gets j%2+1 doubles ---- */
    {
        long long tot = 0;
        for (j = 0; j < P; j++) {
            counts[j] = j % 2 + 1;
            displs[j] = (int)tot;
            tot += counts[j];
        }
        for (i = 0; i < tot; i++)
            dbuf[i] = (double)(r + i);
        CALL(MPI_Reduce_scatter, tot * D, counts[r] * D, dbuf, dbuf2, counts, MPI_DOUBLE, MPI_SUM,
             W);
        for (i = 0; i < counts[r]; i++) {
            check(dbuf2[i] == (double)(P * (P - 1) / 2 + P * (displs[r] + i)), "reduce_scatter");
            mix((long long)dbuf2[i]);
        }
        if (r == 0)
            printf("reduce_scatter: %.0f\n", dbuf2[0]);
    }

    /* ---- Scan / Exscan (+IN_PLACE) ---- */
    {
        int s;
        long long e[2], el;
        double sd[2];
        ibuf[0] = r + 1;
        CALL(MPI_Scan, I, I, ibuf, &s, 1, MPI_INT, MPI_SUM, W);
        check(s == (r + 1) * (r + 2) / 2, "scan");
        mix(s);
        sd[0] = r;
        sd[1] = 2.0 * r;
        CALL(MPI_Scan, 2 * D, 2 * D, MPI_IN_PLACE, sd, 2, MPI_DOUBLE, MPI_MAX, W);
        check(sd[0] == r && sd[1] == 2.0 * r, "scan in_place");
        e[0] = r + 1;
        e[1] = 2;
        el = -1;
        CALL(MPI_Exscan, sizeof(long long), sizeof(long long), &e[0], &el, 1, MPI_LONG_LONG,
             MPI_SUM, W);
        if (r > 0)
            check(el == (long long)r * (r + 1) / 2, "exscan");
        CALL(MPI_Exscan, 2 * (long long)sizeof(long long), 2 * (long long)sizeof(long long),
             MPI_IN_PLACE, e, 2, MPI_LONG_LONG, MPI_SUM, W);
        if (r > 0) {
            check(e[0] == (long long)r * (r + 1) / 2 && e[1] == 2LL * r, "exscan in_place");
            mix(e[0]);
        }
        if (r == 0)
            printf("scan: %d\n", s);
    }

    CALL(MPI_Barrier, 0, 0, W);

    /* ---- results ---- */
    test_results_hash();

    free(ibuf);
    free(ibuf2);
    free(dbuf);
    free(dbuf2);
    free(counts);
    free(displs);
    free(types);

    return test_finish();
}
