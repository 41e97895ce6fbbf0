/*
 * comms.c -- communicator management around MPI_COMM_WORLD.
 *
 * Comm_compare (WORLD vs WORLD: IDENT, vs its dup: CONGRUENT), Comm_dup,
 * Comm_get_name / Comm_set_name, predefined attributes (MPI_TAG_UB,
 * MPI_UNIVERSE_SIZE), user attributes on MPI_COMM_WORLD with copy and delete
 * callbacks, Comm_split, Comm_create from a group, Cart_create + Cart_shift +
 * Sendrecv, neighbourhood collectives on the Cartesian communicator, a
 * non-periodic line with MPI_PROC_NULL peers, an intercommunicator (Intercomm_create + Allgather/Allreduce, byte
 * counts use the remote group size), error handler MPI_ERRORS_RETURN on
 * MPI_COMM_WORLD with an erroneous MPI_Send, Comm_free of everything derived.
 * Needs at least 2 ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NAME "comms"
#include "testlib.h"

static int deletes;

static const char *cmp_name(int res)
{
    switch (res) {
    case MPI_IDENT:
        return "MPI_IDENT";
    case MPI_CONGRUENT:
        return "MPI_CONGRUENT";
    case MPI_SIMILAR:
        return "MPI_SIMILAR";
    case MPI_UNEQUAL:
        return "MPI_UNEQUAL";
    default:
        return "?";
    }
}

/* attribute delete callback: counts invocations (makes no MPI calls) */
static int count_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)attr;
    (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int res, flag, len, i;
    MPI_Comm dup, split, ec = MPI_COMM_NULL, cart, half, inter;
    char name[MPI_MAX_OBJECT_NAME];
    void *ptr;

    CALL(MPI_Init, 0, 0, &argc, &argv);
    CALL(MPI_Comm_rank, 0, 0, W, &rank);
    CALL(MPI_Comm_size, 0, 0, W, &size);
    const int r = rank, P = size;
    if (P < 2) {
        fprintf(stderr, "comms: needs at least 2 ranks\n");
        CALL(MPI_Abort, 0, 0, W, 2);
    }

    /* ---- compare / dup ---- */
    CALL(MPI_Comm_compare, 0, 0, W, W, &res);
    check(res == MPI_IDENT, "compare world world");
    if (r == 0)
        printf("compare(WORLD, WORLD) = %s\n", cmp_name(res));
    CALL(MPI_Comm_dup, 0, 0, W, &dup);
    CALL(MPI_Comm_compare, 0, 0, W, dup, &res);
    check(res == MPI_CONGRUENT, "compare world dup");
    if (r == 0)
        printf("compare(WORLD, dup) = %s\n", cmp_name(res));
    CALL(MPI_Comm_compare, 0, 0, MPI_COMM_SELF, W, &res);
    check(res == MPI_UNEQUAL, "compare self world");
    if (r == 0)
        printf("compare(SELF, WORLD) = %s\n", cmp_name(res));

    /* ---- names ---- */
    memset(name, 0, sizeof name);
    CALL(MPI_Comm_get_name, 0, 0, W, name, &len);
    check(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name");
    if (r == 0)
        printf("name of MPI_COMM_WORLD: \"%s\" (len %d)\n", name, len);
    CALL(MPI_Comm_set_name, 0, 0, dup, "ductile-dup");
    CALL(MPI_Comm_get_name, 0, 0, dup, name, &len);
    check(strcmp(name, "ductile-dup") == 0, "dup name");
    if (r == 0)
        printf("name of dup: \"%s\"\n", name);

    /* ---- predefined attributes ---- */
    flag = 0;
    CALL(MPI_Comm_get_attr, 0, 0, W, MPI_TAG_UB, &ptr, &flag);
    check(flag && *(int *)ptr >= 32767, "tag_ub");
    if (r == 0)
        printf("MPI_TAG_UB: flag=%d at least 32767: %d\n", flag, flag && *(int *)ptr >= 32767);
    flag = -1;
    res = CALL(MPI_Comm_get_attr, 0, 0, W, MPI_UNIVERSE_SIZE, &ptr, &flag);
    check(res == MPI_SUCCESS && (flag == 0 || flag == 1), "universe_size answered");
    if (flag == 1)
        check(*(int *)ptr >= 1, "universe_size value");
    if (r == 0)
        printf("MPI_UNIVERSE_SIZE: rc=%d flag=%d\n", res, flag);

    /* ---- user attributes on MPI_COMM_WORLD ---- */
    {
        int key = MPI_KEYVAL_INVALID, val = 4242;
        MPI_Comm dup2;
        CALL(MPI_Comm_create_keyval, 0, 0, MPI_COMM_DUP_FN, count_delete, &key, NULL);
        CALL(MPI_Comm_set_attr, 0, 0, W, key, &val);
        flag = 0;
        CALL(MPI_Comm_get_attr, 0, 0, W, key, &ptr, &flag);
        check(flag && ptr == &val && *(int *)ptr == 4242, "user attr world");
        /* MPI_COMM_DUP_FN copies the attribute to the duplicate */
        CALL(MPI_Comm_dup, 0, 0, W, &dup2);
        flag = 0;
        CALL(MPI_Comm_get_attr, 0, 0, dup2, key, &ptr, &flag);
        check(flag && ptr == &val, "user attr copied to dup");
        CALL(MPI_Comm_free, 0, 0, &dup2);
        check(dup2 == MPI_COMM_NULL, "free dup2");
        check(deletes == 1, "delete callback on free");
        CALL(MPI_Comm_delete_attr, 0, 0, W, key);
        check(deletes == 2, "delete callback on delete_attr");
        flag = 1;
        CALL(MPI_Comm_get_attr, 0, 0, W, key, &ptr, &flag);
        check(flag == 0, "user attr gone");
        CALL(MPI_Comm_free_keyval, 0, 0, &key);
        check(key == MPI_KEYVAL_INVALID, "free_keyval");
        if (r == 0)
            printf("user attribute: value %d, delete callbacks %d\n", val, deletes);
    }

    /* ---- split: colour r%2, key -r (reverse order) ---- */
    {
        int srank, ssize, sum = -1, want = 0;
        CALL(MPI_Comm_split, 0, 0, W, r % 2, -r, &split);
        CALL(MPI_Comm_rank, 0, 0, split, &srank);
        CALL(MPI_Comm_size, 0, 0, split, &ssize);
        check(ssize == (P + 1 - r % 2) / 2, "split size");
        /* reverse order: the highest world rank of the colour is rank 0 */
        check(srank == ssize - 1 - r / 2, "split rank order");
        CALL(MPI_Allreduce, I, I, &r, &sum, 1, MPI_INT, MPI_SUM, split);
        for (i = r % 2; i < P; i += 2)
            want += i;
        check(sum == want, "split allreduce");
        if (r == 0)
            printf("split: colour 0 size %d, rank of world 0 = %d, sum %d\n", ssize, srank, sum);
    }

    /* ---- Comm_create with the group of even ranks ---- */
    {
        MPI_Group wg, eg;
        int *evens = malloc((size_t)P * sizeof(int)), ne = 0, gsz = -1;
        if (!evens)
            abort();
        for (i = 0; i < P; i += 2)
            evens[ne++] = i;
        CALL(MPI_Comm_group, 0, 0, W, &wg);
        CALL(MPI_Group_size, 0, 0, wg, &gsz);
        check(gsz == P, "world group size");
        CALL(MPI_Group_incl, 0, 0, wg, ne, evens, &eg);
        CALL(MPI_Comm_create, 0, 0, W, eg, &ec);
        if (r % 2 == 0) {
            int erank = -1, v = r == 0 ? 77 : -1;
            check(ec != MPI_COMM_NULL, "comm_create member");
            CALL(MPI_Comm_rank, 0, 0, ec, &erank);
            check(erank == r / 2, "comm_create rank");
            CALL(MPI_Bcast, erank == 0 ? I : 0, erank == 0 ? 0 : I, &v, 1, MPI_INT, 0, ec);
            check(v == 77, "comm_create bcast");
            CALL(MPI_Comm_free, 0, 0, &ec);
        } else {
            check(ec == MPI_COMM_NULL, "comm_create non-member");
        }
        CALL(MPI_Group_free, 0, 0, &eg);
        CALL(MPI_Group_free, 0, 0, &wg);
        check(wg == MPI_GROUP_NULL && eg == MPI_GROUP_NULL, "group_free");
        free(evens);
        if (r == 0)
            printf("comm_create: %d even ranks\n", ne);
    }

    /* ---- Cartesian 2-D periodic grid, shifts in both dimensions ---- */
    {
        int dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2], crank, d;
        CALL(MPI_Dims_create, 0, 0, P, 2, dims);
        check(dims[0] * dims[1] == P, "dims_create");
        CALL(MPI_Cart_create, 0, 0, W, 2, dims, periods, 0, &cart);
        CALL(MPI_Comm_rank, 0, 0, cart, &crank);
        check(crank == r, "cart rank (no reorder)");
        CALL(MPI_Cart_coords, 0, 0, cart, crank, 2, coords);
        for (d = 0; d < 2; d++) {
            int src, dst, got = -1, mine = 100 * r + d;
            CALL(MPI_Cart_shift, 0, 0, cart, d, 1, &src, &dst);
            CALL(MPI_Sendrecv, I, I, &mine, 1, MPI_INT, dst, 5, &got, 1, MPI_INT, src, 5, cart,
                 MPI_STATUS_IGNORE);
            check(got == 100 * src + d, "cart sendrecv");
            if (r == 0)
                printf("cart %dx%d: dim %d source %d dest %d got %d\n", dims[0], dims[1], d, src,
                       dst, got);
        }
        if (r == 0)
            printf("cart coords of rank 0: %d %d\n", coords[0], coords[1]);

        /* neighbourhood collectives: a Cartesian topology has 2*ndims = 4
         * in- and out-neighbours (sources/destinations of Cart_shift in dims
         * 0 and 1), counted per neighbour even where they coincide.
         * Neighbor_allgather counts like Allgather: sent = the own
         * contribution (sendcount x size, once), received = the whole receive
         * buffer (recvcount x size x indegree).  Neighbor_alltoall: the whole
         * send and receive buffers (count x size x out-/indegree). */
        {
            int nb_src[2], nb_dst[2], nbr[4], out[4], in[4], k;
            CALL(MPI_Cart_shift, 0, 0, cart, 0, 1, &nb_src[0], &nb_dst[0]);
            CALL(MPI_Cart_shift, 0, 0, cart, 1, 1, &nb_src[1], &nb_dst[1]);
            nbr[0] = nb_src[0];
            nbr[1] = nb_dst[0];
            nbr[2] = nb_src[1];
            nbr[3] = nb_dst[1];
            CALL(MPI_Neighbor_allgather, I, 4 * I, &r, 1, MPI_INT, in, 1, MPI_INT, cart);
            for (k = 0; k < 4; k++)
                check(in[k] == nbr[k], "neighbor_allgather");
            /* block k goes to neighbour k; it arrives at that neighbour in the
             * slot of the opposite direction */
            for (k = 0; k < 4; k++)
                out[k] = 1000 * r + k;
            CALL(MPI_Neighbor_alltoall, 4 * I, 4 * I, out, 1, MPI_INT, in, 1, MPI_INT, cart);
            for (k = 0; k < 4; k++) {
                int slot = k ^ 1;
#ifdef I_MPI_VERSION
                /* Intel MPI 2021 (without Ductile too, measured with 2021.19)
                 * keeps the slot when both neighbours in a dimension are the
                 * same process, as here (periodic, size 2): block k arrives in
                 * slot k.  Open MPI and MPICH 5 follow the standard. */
                if (nbr[k] == nbr[k ^ 1]) slot = k;
#endif
                check(in[k] == 1000 * nbr[k] + slot, "neighbor_alltoall");
            }
            if (r == 0)
                printf("neighbours of 0: %d %d %d %d, alltoall %d %d %d %d\n", nbr[0], nbr[1],
                       nbr[2], nbr[3], in[0], in[1], in[2], in[3]);
        }
        CALL(MPI_Comm_free, 0, 0, &cart);
    }

    /* ---- non-periodic line: MPI_PROC_NULL peers move no bytes ---- */
    {
        int dims1 = P, period = 0, src, dst, got = -1, mine = 10 * r + 1;
        MPI_Comm line;
        CALL(MPI_Cart_create, 0, 0, W, 1, &dims1, &period, 0, &line);
        CALL(MPI_Cart_shift, 0, 0, line, 0, 1, &src, &dst);
        check((r == 0) == (src == MPI_PROC_NULL) && (r == P - 1) == (dst == MPI_PROC_NULL),
              "line shift");
        CALL(MPI_Sendrecv, dst == MPI_PROC_NULL ? 0 : I, src == MPI_PROC_NULL ? 0 : I, &mine, 1,
             MPI_INT, dst, 6, &got, 1, MPI_INT, src, 6, line, MPI_STATUS_IGNORE);
        check(r == 0 ? got == -1 : got == 10 * (r - 1) + 1, "line sendrecv");
        CALL(MPI_Send, 0, 0, &mine, 1, MPI_INT, MPI_PROC_NULL, 7, W);
        CALL(MPI_Recv, 0, 0, &got, 1, MPI_INT, MPI_PROC_NULL, 7, W, MPI_STATUS_IGNORE);
        {
            /* neighbourhood collectives: the MPI_PROC_NULL neighbour at
             * each end of the line moves nothing */
            int nb[2] = {-1, -1}, sb[2] = {100 * r, 100 * r + 1}, rb[2] = {-1, -1};
            long long real = (src != MPI_PROC_NULL) + (dst != MPI_PROC_NULL);
            CALL(MPI_Neighbor_allgather, real ? I : 0, real * I, &mine, 1, MPI_INT, nb, 1, MPI_INT, line);
            check(nb[0] == (src == MPI_PROC_NULL ? -1 : 10 * src + 1) &&
                      nb[1] == (dst == MPI_PROC_NULL ? -1 : 10 * dst + 1), "line neighbor_allgather");
            CALL(MPI_Neighbor_alltoall, real * I, real * I, sb, 1, MPI_INT, rb, 1, MPI_INT, line);
            /* from below: its "up" entry; from above: its "down" entry */
            check(rb[0] == (src == MPI_PROC_NULL ? -1 : 100 * src + 1) &&
                      rb[1] == (dst == MPI_PROC_NULL ? -1 : 100 * dst), "line neighbor_alltoall");
            mix(nb[0] + nb[1] + rb[0] + rb[1]);
        }
        if (r == 0)
            printf("line: rank 0 source is MPI_PROC_NULL %d, got %d\n", src == MPI_PROC_NULL,
                   got);
        CALL(MPI_Comm_free, 0, 0, &line);
    }

    /* ---- intercommunicator between even and odd world ranks ---- */
    {
        int rsize = -1, isinter = 0, lsize, *all, sum = -1, want = 0;
        CALL(MPI_Comm_split, 0, 0, W, r % 2, r, &half);
        /* local leaders: world 0 (even group) and world 1 (odd group) */
        CALL(MPI_Intercomm_create, 0, 0, half, 0, W, r % 2 == 0 ? 1 : 0, 99, &inter);
        CALL(MPI_Comm_test_inter, 0, 0, inter, &isinter);
        CALL(MPI_Comm_remote_size, 0, 0, inter, &rsize);
        lsize = (P + 1 - r % 2) / 2;
        check(isinter && rsize == P - lsize, "intercomm");
        all = malloc((size_t)rsize * sizeof(int));
        if (!all)
            abort();
        /* Allgather on an intercommunicator receives from the remote group */
        CALL(MPI_Allgather, I, rsize * I, &r, 1, MPI_INT, all, 1, MPI_INT, inter);
        for (i = 0; i < rsize; i++)
            check(all[i] == 2 * i + (1 - r % 2), "intercomm allgather");
        CALL(MPI_Allreduce, I, I, &r, &sum, 1, MPI_INT, MPI_SUM, inter);
        for (i = 1 - r % 2; i < P; i += 2)
            want += i;
        check(sum == want, "intercomm allreduce");
        if (r == 0)
            printf("intercomm: remote size %d, remote sum %d, remote first %d\n", rsize, sum,
                   all[0]);
        free(all);
        CALL(MPI_Comm_free, 0, 0, &inter);
        CALL(MPI_Comm_free, 0, 0, &half);
    }

    /* ---- error handler on MPI_COMM_WORLD: erroneous send returns ---- */
    {
        MPI_Errhandler eh;
        int x = 1, cls = -1, rc;
        CALL(MPI_Comm_set_errhandler, 0, 0, W, MPI_ERRORS_RETURN);
        CALL(MPI_Comm_get_errhandler, 0, 0, W, &eh);
        check(eh == MPI_ERRORS_RETURN, "get_errhandler");
        CALL(MPI_Errhandler_free, 0, 0, &eh);
        /* docs/report.md: bytes are counted only when the call returns
         * MPI_SUCCESS, so this failing send counts 1 call and 0 bytes */
        rc = CALL(MPI_Send, 0, 0, &x, 1, MPI_INT, P + 5, 0, W);
        check(rc != MPI_SUCCESS, "invalid send returns an error");
        CALL(MPI_Error_class, 0, 0, rc, &cls);
        check(cls == MPI_ERR_RANK, "error class MPI_ERR_RANK");
        if (r == 0)
            printf("send to rank %d: error returned %d, class MPI_ERR_RANK %d\n", P + 5,
                   rc != MPI_SUCCESS, cls == MPI_ERR_RANK);
        CALL(MPI_Comm_set_errhandler, 0, 0, W, MPI_ERRORS_ARE_FATAL);
    }

    CALL(MPI_Comm_free, 0, 0, &split);
    CALL(MPI_Comm_free, 0, 0, &dup);
    check(split == MPI_COMM_NULL && dup == MPI_COMM_NULL, "comm_free");

    /* ---- results ---- */
    test_summary(test_reduce_errors());

    return test_finish();
}
