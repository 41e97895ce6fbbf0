/*
 * dtype.c -- derived datatypes in point-to-point and collective calls on
 * MPI_COMM_WORLD: Type_contiguous, Type_vector, Type_indexed,
 * Type_create_struct (with MPI_Get_address), Type_create_resized,
 * Type_commit, Type_size, Type_get_extent, Type_free.
 *
 * Byte counts are count * MPI_Type_size(type): for a vector only the data,
 * not the gaps; for a struct only the fields, not the padding.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "dtype"
#include "testlib.h"

struct particle {
    int id;
    double pos[2];
    char tag;
};

/* user reduction on the contiguous type of 3 ints: element-wise sum */
static void triple_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = inout, k;
    (void)dt;
    for (k = 0; k < 3 * *len; k++)
        b[k] += a[k];
}

int main(int argc, char **argv)
{
    int i, j, sz;
    MPI_Datatype t3, tvec, tidx, tstruct, tpart;
    MPI_Status st;

    CALL(MPI_Init, 0, 0, &argc, &argv);
    CALL(MPI_Comm_rank, 0, 0, W, &rank);
    CALL(MPI_Comm_size, 0, 0, W, &size);
    const int r = rank, P = size, right = (rank + 1) % size, left = (rank + size - 1) % size;
    if (P < 2) {
        fprintf(stderr, "dtype: needs at least 2 ranks\n");
        CALL(MPI_Abort, 0, 0, W, 2);
    }

    /* ---- contiguous: 3 ints; Send 4 of them, receive into room for 5 ---- */
    {
        int sb[15], rb[15];
        long long s3;
        CALL(MPI_Type_contiguous, 0, 0, 3, MPI_INT, &t3);
        CALL(MPI_Type_commit, 0, 0, &t3);
        CALL(MPI_Type_size, 0, 0, t3, &sz);
        check(sz == 3 * I, "contiguous size");
        s3 = sz;
        for (i = 0; i < 12; i++)
            sb[i] = 100 * r + i;
        for (i = 0; i < 15; i++)
            rb[i] = -1;
        if (r % 2 == 0) {
            CALL(MPI_Send, 4 * s3, 0, sb, 4, t3, right, 1, W);
            CALL(MPI_Recv, 0, 4 * s3, rb, 5, t3, left, 1, W, &st);
        } else {
            CALL(MPI_Recv, 0, 4 * s3, rb, 5, t3, left, 1, W, &st);
            CALL(MPI_Send, 4 * s3, 0, sb, 4, t3, right, 1, W);
        }
        CALL(MPI_Get_count, 0, 0, &st, t3, &j);
        check(j == 4, "contiguous get_count");
        for (i = 0; i < 12; i++)
            check(rb[i] == 100 * left + i, "contiguous recv");
        check(rb[12] == -1, "contiguous untouched");
        mix(rb[11]);
        if (r == 0)
            printf("contiguous: size=%d count=%d %d..%d\n", sz, j, rb[0], rb[11]);
    }

    /* ---- vector: 4 blocks of 2 doubles, stride 3; Bcast 2 of them from
     *      rank 1, then Sendrecv 2 vectors against 16 plain doubles ---- */
    {
        double buf[32], plain[16];
        long long sv;
        CALL(MPI_Type_vector, 0, 0, 4, 2, 3, MPI_DOUBLE, &tvec);
        CALL(MPI_Type_commit, 0, 0, &tvec);
        CALL(MPI_Type_size, 0, 0, tvec, &sz);
        check(sz == 8 * D, "vector size");
        sv = sz;
        {
            MPI_Aint lb, ext;
            CALL(MPI_Type_get_extent, 0, 0, tvec, &lb, &ext);
            check(lb == 0 && ext == (MPI_Aint)(11 * D), "vector extent");
        }
        /* two vectors with extent 11 doubles each: elements 0..21 */
        for (i = 0; i < 32; i++)
            buf[i] = r == 1 ? i : -1.0;
        CALL(MPI_Bcast, r == 1 ? 2 * sv : 0, r == 1 ? 0 : 2 * sv, buf, 2, tvec, 1, W);
        for (i = 0; i < 22; i++) {
            int in_block = (i % 11) % 3 < 2;
            if (in_block)
                check(buf[i] == i, "vector bcast data");
            else if (r != 1)
                check(buf[i] == -1.0, "vector bcast gap");
        }
        for (i = 0; i < 32; i++)
            buf[i] = 1000.0 * r + i;
        CALL(MPI_Sendrecv, 2 * sv, 16 * D, buf, 2, tvec, right, 2, plain, 16, MPI_DOUBLE, left, 2,
             W, MPI_STATUS_IGNORE);
        /* the k-th double of the packed vector pair */
        j = 0;
        for (i = 0; i < 22 && j < 16; i++)
            if ((i % 11) % 3 < 2) {
                check(plain[j] == 1000.0 * left + i, "vector sendrecv");
                j++;
            }
        check(j == 16, "vector element count");
        mix((long long)plain[15]);
        if (r == 0)
            printf("vector: size=%d %.0f %.0f %.0f\n", sz, plain[0], plain[2], plain[15]);
    }

    /* ---- indexed: blocks {2 at 0, 1 at 4, 3 at 7} of ints; Ssend/Recv ---- */
    {
        int bl[3] = {2, 1, 3}, dp[3] = {0, 4, 7}, src[10], dst[6];
        CALL(MPI_Type_indexed, 0, 0, 3, bl, dp, MPI_INT, &tidx);
        CALL(MPI_Type_commit, 0, 0, &tidx);
        CALL(MPI_Type_size, 0, 0, tidx, &sz);
        check(sz == 6 * I, "indexed size");
        for (i = 0; i < 10; i++)
            src[i] = 10 * r + i;
        if (r % 2 == 0) {
            CALL(MPI_Send, sz, 0, src, 1, tidx, right, 3, W);
            CALL(MPI_Recv, 0, 6 * I, dst, 6, MPI_INT, left, 3, W, MPI_STATUS_IGNORE);
        } else {
            CALL(MPI_Recv, 0, 6 * I, dst, 6, MPI_INT, left, 3, W, MPI_STATUS_IGNORE);
            CALL(MPI_Send, sz, 0, src, 1, tidx, right, 3, W);
        }
        {
            const int want[6] = {0, 1, 4, 7, 8, 9};
            for (i = 0; i < 6; i++)
                check(dst[i] == 10 * left + want[i], "indexed");
        }
        mix(dst[5]);
        if (r == 0)
            printf("indexed: size=%d %d %d %d\n", sz, dst[0], dst[2], dst[5]);
    }

    /* ---- struct (int, 2 doubles, char) via Get_address, resized to
     *      sizeof(struct particle); Send/Recv 5 particles and Bcast 3 ---- */
    {
        struct particle ps[5], pr[6];
        MPI_Aint base, a_pos, a_tag, lb, ext;
        int bl[3] = {1, 2, 1};
        MPI_Aint disp[3];
        MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
        long long sp;
        CALL(MPI_Get_address, 0, 0, &ps[0], &base);
        CALL(MPI_Get_address, 0, 0, &ps[0].pos[0], &a_pos);
        CALL(MPI_Get_address, 0, 0, &ps[0].tag, &a_tag);
        disp[0] = 0;
        disp[1] = a_pos - base;
        disp[2] = a_tag - base;
        check(disp[1] == (MPI_Aint)offsetof(struct particle, pos) &&
                  disp[2] == (MPI_Aint)offsetof(struct particle, tag),
              "get_address");
        CALL(MPI_Type_create_struct, 0, 0, 3, bl, disp, ty, &tstruct);
        CALL(MPI_Type_create_resized, 0, 0, tstruct, 0, (MPI_Aint)sizeof(struct particle), &tpart);
        CALL(MPI_Type_commit, 0, 0, &tpart);
        CALL(MPI_Type_size, 0, 0, tpart, &sz);
        check(sz == (int)(sizeof(int) + 2 * sizeof(double) + 1), "struct size");
        CALL(MPI_Type_get_extent, 0, 0, tpart, &lb, &ext);
        check(lb == 0 && ext == (MPI_Aint)sizeof(struct particle), "resized extent");
        sp = sz;
        for (i = 0; i < 5; i++) {
            ps[i].id = 10 * r + i;
            ps[i].pos[0] = r + 0.5 * i;
            ps[i].pos[1] = -(r + 0.25 * i);
            ps[i].tag = (char)('a' + (r + i) % 26);
        }
        for (i = 0; i < 6; i++)
            pr[i].id = -1;
        if (r % 2 == 0) {
            CALL(MPI_Send, 5 * sp, 0, ps, 5, tpart, right, 4, W);
            CALL(MPI_Recv, 0, 5 * sp, pr, 6, tpart, left, 4, W, &st);
        } else {
            CALL(MPI_Recv, 0, 5 * sp, pr, 6, tpart, left, 4, W, &st);
            CALL(MPI_Send, 5 * sp, 0, ps, 5, tpart, right, 4, W);
        }
        CALL(MPI_Get_count, 0, 0, &st, tpart, &j);
        check(j == 5, "struct get_count");
        for (i = 0; i < 5; i++) {
            check(pr[i].id == 10 * left + i && pr[i].pos[0] == left + 0.5 * i &&
                      pr[i].pos[1] == -(left + 0.25 * i) && pr[i].tag == 'a' + (left + i) % 26,
                  "struct recv");
            mix(pr[i].id);
            mix(pr[i].tag);
        }
        check(pr[5].id == -1, "struct untouched");
        if (r == 0)
            printf("struct: size=%d extent=%ld count=%d id=%d pos=%.2f,%.2f tag=%c\n", sz,
                   (long)ext, j, pr[4].id, pr[4].pos[0], pr[4].pos[1], pr[4].tag);
        for (i = 0; i < 3; i++)
            if (r == 0)
                ps[i].id = 500 + i;
        CALL(MPI_Bcast, r == 0 ? 3 * sp : 0, r == 0 ? 0 : 3 * sp, ps, 3, tpart, 0, W);
        for (i = 0; i < 3; i++)
            check(ps[i].id == 500 + i && ps[i].pos[0] == 0.5 * i && ps[i].tag == 'a' + i,
                  "struct bcast");
        if (r == 0)
            printf("struct bcast: %d %d %d\n", ps[0].id, ps[1].id, ps[2].id);
    }

    /* ---- Allreduce on the contiguous type with a user-defined op
     *      (predefined ops are only defined on predefined types) ---- */
    {
        int in[6], out[6];
        MPI_Op op;
        CALL(MPI_Op_create, 0, 0, triple_sum, 1, &op);
        for (i = 0; i < 6; i++)
            in[i] = r * (i + 1);
        CALL(MPI_Allreduce, 2 * 3 * I, 2 * 3 * I, in, out, 2, t3, op, W);
        for (i = 0; i < 6; i++)
            check(out[i] == (i + 1) * P * (P - 1) / 2, "allreduce user op");
        CALL(MPI_Op_free, 0, 0, &op);
        check(op == MPI_OP_NULL, "op_free");
        if (r == 0)
            printf("allreduce contiguous, user op: %d %d\n", out[0], out[5]);
    }

    CALL(MPI_Type_free, 0, 0, &t3);
    CALL(MPI_Type_free, 0, 0, &tvec);
    CALL(MPI_Type_free, 0, 0, &tidx);
    CALL(MPI_Type_free, 0, 0, &tstruct);
    CALL(MPI_Type_free, 0, 0, &tpart);
    check(t3 == MPI_DATATYPE_NULL && tpart == MPI_DATATYPE_NULL, "type_free");

    /* ---- results ---- */
    test_results_hash();

    return test_finish();
}
