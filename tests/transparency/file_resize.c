/* file_resize.c -- files open across resizes (docs/virtual-world.md, "Open
 * files").  Two files are opened on MPI_COMM_WORLD before the loop and
 * closed after it; resizes (DUCTILE_SCHEDULE) happen in between.
 *
 *   A: view with displacement 64 bytes, etype and filetype MPI_INT.  Every
 *      iteration the world writes record `it` (N ints, value it*1000+g)
 *      with MPI_File_write_at_all, block-distributed over the current size;
 *      rank 0 (the same process throughout) also appends one int (it+7) at
 *      its individual file pointer, which it set once, before the loop.
 *   B: default view; every iteration each process appends it*100+rank with
 *      MPI_File_write_ordered (the shared file pointer).
 *
 * A process Ductile spawned takes the files by calling MPI_File_open with
 * the same names.  The program's MPI_File handles are never renewed.  At the
 * end rank 0 reads both files on MPI_COMM_SELF and compares them byte for
 * byte with what they must hold.
 *
 * usage: file_resize ITERATIONS DIR   Rank 0 prints "RESULT size=S failures=F". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <empi.h>

#define N 60
#define DISP 64
#define MAXIT 64

#include "check.h"

static void read_all(const char *path, char **buf, MPI_Offset *len)
{
    MPI_File f;
    *buf = NULL;
    *len = 0;
    if (MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &f) != MPI_SUCCESS) return;
    MPI_File_get_size(f, len);
    *buf = calloc((size_t)*len + 1, 1);
    MPI_File_read_at(f, 0, *buf, (int)*len, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3) return 2;
    int iters = atoi(argv[1]), size, sizes[MAXIT] = {0};
    if (iters > MAXIT) iters = MAXIT;
    char pa[4096], pb[4096];
    snprintf(pa, sizeof pa, "%s/a.dat", argv[2]);
    snprintf(pb, sizeof pb, "%s/b.dat", argv[2]);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long token = 1;
    EMPI_Register_scalar("token", &token, MPI_LONG_LONG, 1);
    int type, it = 0, status = EMPI_ACTIVE;
    EMPI_Get_type(&type);
    MPI_File fa, fb;
    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    if (type == EMPI_SPAWNED) {
        EMPI_Get_shared(&it);
        /* the world's files: the same names give the reopened files */
        CHECK(MPI_File_open(MPI_COMM_WORLD, pa, amode, MPI_INFO_NULL, &fa) == MPI_SUCCESS, "taking %s", pa);
        CHECK(MPI_File_open(MPI_COMM_WORLD, pb, amode, MPI_INFO_NULL, &fb) == MPI_SUCCESS, "taking %s", pb);
    } else {
        MPI_File_open(MPI_COMM_WORLD, pa, amode, MPI_INFO_NULL, &fa);
        MPI_File_open(MPI_COMM_WORLD, pb, amode, MPI_INFO_NULL, &fb);
        MPI_File_set_size(fa, 0);
        MPI_File_set_size(fb, 0);
        MPI_File_set_view(fa, DISP, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
        if (rank == 0) MPI_File_seek(fa, (MPI_Offset)iters * N, MPI_SEEK_SET);
    }
    MPI_File fa0 = fa, fb0 = fb;
    for (; it < iters; it++) {
        EMPI_Monitor_init();
        int desp, count;
        EMPI_Get_wsize(rank, size, N, &desp, &count, NULL, NULL);
        int rec[N];
        for (int i = 0; i < count; i++) rec[i] = it * 1000 + desp + i;
        CHECK(MPI_File_write_at_all(fa, (MPI_Offset)it * N + desp, rec, count, MPI_INT, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS, "write_at_all, iteration %d", it);
        if (rank == 0) {
            int v = it + 7;
            CHECK(MPI_File_write(fa, &v, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS, "write, iteration %d", it);
            sizes[it] = size;
        }
        int w = it * 100 + rank;
        CHECK(MPI_File_write_ordered(fb, &w, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_ordered, it %d", it);
        EMPI_Monitor_end(&rank, &size, it, iters, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        CHECK(fa == fa0 && fb == fb0, "the program's file handles changed");
    }
    if (status == EMPI_REMOVED) {
        MPI_Finalize();
        return 0;
    }
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_File_get_view(fa, &disp, &et, &ft, rep);
    CHECK(disp == DISP && et == MPI_INT && ft == MPI_INT && strcmp(rep, "native") == 0, "view of A after the resizes");
    MPI_File_close(&fa);
    MPI_File_close(&fb);
    CHECK(fa == MPI_FILE_NULL && fb == MPI_FILE_NULL, "closed handles are not MPI_FILE_NULL");
    if (rank == 0) {
        /* what A and B must hold */
        size_t la = DISP + ((size_t)iters * N + (size_t)iters) * sizeof(int), lb = 0;
        for (int i = 0; i < iters; i++) lb += (size_t)sizes[i] * sizeof(int);
        char *ea = calloc(la, 1), *eb = calloc(lb ? lb : 1, 1);
        int *ra = (int *)(ea + DISP), *rb = (int *)eb, k = 0;
        for (int i = 0; i < iters; i++)
            for (int g = 0; g < N; g++) ra[i * N + g] = i * 1000 + g;
        for (int i = 0; i < iters; i++) ra[iters * N + i] = i + 7;
        for (int i = 0; i < iters; i++)
            for (int r = 0; r < sizes[i]; r++) rb[k++] = i * 100 + r;
        char *ga, *gb;
        MPI_Offset na, nb;
        read_all(pa, &ga, &na);
        read_all(pb, &gb, &nb);
        CHECK(ga && (size_t)na == la && memcmp(ga, ea, la) == 0, "A: %lld bytes, expected %zu, contents %s", (long long)na,
              la, ga && (size_t)na == la ? "differ" : "-");
        CHECK(gb && (size_t)nb == lb && memcmp(gb, eb, lb) == 0, "B: %lld bytes, expected %zu, contents %s", (long long)nb,
              lb, gb && (size_t)nb == lb ? "differ" : "-");
        printf("A: %lld bytes, B: %lld bytes; sizes", (long long)na, (long long)nb);
        for (int i = 0; i < iters; i++) printf(" %d", sizes[i]);
        printf("\n");
        free(ea), free(eb), free(ga), free(gb);
    }
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("RESULT size=%d failures=%d\n", size, failures);
    MPI_Finalize();
    return 0;
}
