/* world_identity.c -- MPI_COMM_WORLD stays the program's world across
 * resizes: its error handler, name, info hint and cached attributes (two keyvals: one
 * with copy/delete callbacks that count their calls, one with the null
 * functions) are the same after every control point, no callback ran
 * behind the program's back, and the callbacks see MPI_COMM_WORLD.
 *
 * usage: world_identity ITERATIONS  (resizes from DUCTILE_SCHEDULE)
 * Rank 0 prints "RESULT size=S failures=F". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <empi.h>

#include "check.h"

static int value = 17, other = 23, extra_token;
static int ncopy, ndel, nerr, err_not_world, copy_not_world, del_on_world, bad_args;

static int copy_fn(MPI_Comm old, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)kv;
    ncopy++;
    if (old != MPI_COMM_WORLD) copy_not_world++;
    if (extra != &extra_token || in != &value) bad_args++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int del_fn(MPI_Comm comm, int kv, void *val, void *extra)
{
    (void)kv;
    ndel++;
    if (comm == MPI_COMM_WORLD) del_on_world++;
    if (extra != &extra_token || val != &value) bad_args++;
    return MPI_SUCCESS;
}

static void err_fn(MPI_Comm *comm, int *code, ...)
{
    /* the handle is the program's MPI_COMM_WORLD (docs/virtual-world.md, "Callbacks") */
    (void)code;
    if (*comm != MPI_COMM_WORLD) err_not_world++;
    nerr++;
}

static MPI_Errhandler eh;
static int kv, kv_null;

static void check_world(int it)
{
    MPI_Errhandler cur;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &cur);
    CHECK(cur == eh, "iteration %d: the world's error handler is not the program's", it);
    MPI_Errhandler_free(&cur);
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "program-world") == 0, "iteration %d: the world's name is '%s'", it, name);
    void *v = NULL;
    int flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, kv, &v, &flag);
    CHECK(flag && v == &value, "iteration %d: attribute lost (flag %d)", it, flag);
    flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, kv_null, &v, &flag);
    CHECK(flag && v == &other, "iteration %d: attribute of the null-callback keyval lost (flag %d)", it, flag);
    CHECK(ncopy == 0 && ndel == 0, "iteration %d: %d copy and %d delete callbacks behind the program's back", it,
          ncopy, ndel);
    MPI_Info info;
    char hint[64] = "";
    flag = 0;
    MPI_Comm_get_info(MPI_COMM_WORLD, &info);
    MPI_Info_get(info, "ductile_test_hint", (int)sizeof hint - 1, hint, &flag);
    MPI_Info_free(&info);
    CHECK(flag && strcmp(hint, "kept") == 0, "iteration %d: info hint lost (flag %d, '%s')", it, flag, hint);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    CHECK(parent == MPI_COMM_NULL, "iteration %d: a parent", it);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 3, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_create_errhandler(err_fn, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_set_name(MPI_COMM_WORLD, "program-world");
    MPI_Comm_create_keyval(copy_fn, del_fn, &kv, &extra_token);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv_null, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kv, &value);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kv_null, &other);
    MPI_Info hints;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "ductile_test_hint", "kept");
    MPI_Comm_set_info(MPI_COMM_WORLD, hints);
    MPI_Info_free(&hints);
    long long token = 99;
    EMPI_Register_scalar("token", &token, MPI_LONG_LONG, 1);
    int type, it = 0, status = EMPI_ACTIVE;
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    check_world(it - 1);
    for (; it < iters; it++) {
        EMPI_Monitor_init();
        EMPI_Monitor_end(&rank, &size, it, iters, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        check_world(it);
    }
    if (status != EMPI_REMOVED) {
        /* an error on the world goes to the program's handler, which returns */
        int x = 0, rc = MPI_Send(&x, 1, MPI_INT, size + 7, 0, MPI_COMM_WORLD);
        (void)rc; /* what it returns after a user handler differs (MPICH 5: MPI_SUCCESS) */
        CHECK(nerr == 1 && err_not_world == 0, "invalid send: handler called %d times (%d not on the world)", nerr,
              err_not_world);
        /* the program's callbacks run for the program's own operations, on MPI_COMM_WORLD */
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        void *v = NULL;
        int flag = 0;
        MPI_Comm_get_attr(dup, kv, &v, &flag);
        CHECK(flag && v == &value && ncopy == 1 && copy_not_world == 0, "dup: flag %d, %d copies (%d not on the world)",
              flag, ncopy, copy_not_world);
        flag = 1;
        MPI_Comm_get_attr(dup, kv_null, &v, &flag);
        CHECK(!flag, "dup copied the null-copy attribute");
        MPI_Comm_free(&dup);
        CHECK(ndel == 1 && del_on_world == 0, "free of the duplicate: %d deletes (%d on the world)", ndel, del_on_world);
        MPI_Comm_delete_attr(MPI_COMM_WORLD, kv);
        CHECK(ndel == 2 && del_on_world == 1, "delete on the world: %d deletes (%d on the world)", ndel, del_on_world);
        CHECK(bad_args == 0, "%d callbacks with wrong arguments", bad_args);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) printf("RESULT size=%d failures=%d\n", size, failures);
    }
    MPI_Errhandler_free(&eh);
    MPI_Comm_free_keyval(&kv);
    MPI_Comm_free_keyval(&kv_null);
    MPI_Finalize();
    return 0;
}
