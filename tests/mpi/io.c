/*
 * io.c -- MPI-IO on a file opened on MPI_COMM_WORLD.
 *
 * Usage: io [DIR]   (DIR defaults to $TMPDIR, then /tmp)
 * Rank 0 creates a private directory DIR/ductile-io-XXXXXX (mkdtemp) and
 * broadcasts its name, so concurrent runs do not collide; the file is
 * removed with MPI_File_delete and the directory with rmdir at the end.
 *
 * File layout (ints), P ranks:
 *   region A  [0, 16P)          rank r writes 16 ints at 16r       (write_at_all)
 *   region B  [16P, 24P)        interleaved pairs through a view   (write_all)
 *   region C  [24P, 28P)        rank r writes 4 ints at 24P + 4r   (write_at, iwrite_at)
 * Everything is read back (read_at_all, read_all, read_at, iread_at,
 * read_at_all_begin/end) and verified; rank 0 prints a checksum.
 *
 * MPI-IO errors return (the default file error handler is MPI_ERRORS_RETURN),
 * so every return code is checked.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_NAME "io"
#include "testlib.h"

#define PATHLEN 1024

#define RC(what, call)                                                                           \
    do {                                                                                         \
        int rc_ = (call);                                                                        \
        if (rc_ != MPI_SUCCESS) {                                                                \
            fprintf(stderr, "io: rank %d: %s failed (rc=%d)\n", rank, what, rc_);                \
            errors++;                                                                            \
        }                                                                                        \
    } while (0)

static int val_a(int r, int i) { return 1000 * r + i; }
static int val_b(int r, int k) { return 500000 + 100 * r + k; }
static int val_c(int r, int i) { return -(70000 + 10 * r + i); }

int main(int argc, char **argv)
{
    char dir[PATHLEN], path[PATHLEN + 16];
    const char *base;
    MPI_File fh;
    MPI_Datatype pair, ftype;
    MPI_Request rq;
    MPI_Offset fsize = -1;
    int i, k, ok = 1;
    long long checksum = 0;

    CALL(MPI_Init, 0, 0, &argc, &argv);
    CALL(MPI_Comm_rank, 0, 0, W, &rank);
    CALL(MPI_Comm_size, 0, 0, W, &size);
    const int r = rank, P = size;

    base = argc > 1 ? argv[1] : getenv("TMPDIR");
    if (base == NULL || base[0] == '\0')
        base = "/tmp";

    /* ---- private directory, created by rank 0 and broadcast ---- */
    memset(dir, 0, sizeof dir);
    if (r == 0) {
        if (snprintf(dir, sizeof dir, "%s/ductile-io-XXXXXX", base) >= (int)sizeof dir ||
            mkdtemp(dir) == NULL) {
            perror("io: mkdtemp");
            dir[0] = '\0';
        }
    }
    CALL(MPI_Bcast, r == 0 ? PATHLEN : 0, r == 0 ? 0 : PATHLEN, dir, PATHLEN, MPI_CHAR, 0, W);
    if (dir[0] == '\0') {
        if (r == 0)
            fprintf(stderr, "io: cannot create a directory in %s\n", base);
        CALL(MPI_Abort, 0, 0, W, 2);
    }
    snprintf(path, sizeof path, "%s/data", dir);

    fh = MPI_FILE_NULL;
    RC("open",
       CALL(MPI_File_open, 0, 0, W, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    if (fh == MPI_FILE_NULL) {
        fprintf(stderr, "io: rank %d: MPI_File_open failed\n", r);
        CALL(MPI_Abort, 0, 0, W, 3);
    }

    /* ---- region A: write_at_all, 16 ints at byte offset 64r ---- */
    {
        int a[16];
        for (i = 0; i < 16; i++)
            a[i] = val_a(r, i);
        RC("write_at_all",
           CALL(MPI_File_write_at_all, 16 * I, 0, fh, (MPI_Offset)(16 * I * r), a, 16, MPI_INT,
                MPI_STATUS_IGNORE));
    }

    /* ---- region B: view of interleaved int pairs, write_all 8 ints ---- */
    {
        int b[8];
        int disp = r; /* in units of the pair extent */
        MPI_Datatype tmp;
        CALL(MPI_Type_contiguous, 0, 0, 2, MPI_INT, &pair);
        CALL(MPI_Type_create_indexed_block, 0, 0, 1, 1, &disp, pair, &tmp);
        CALL(MPI_Type_create_resized, 0, 0, tmp, 0, (MPI_Aint)(2 * I * P), &ftype);
        CALL(MPI_Type_commit, 0, 0, &ftype);
        CALL(MPI_Type_free, 0, 0, &tmp);
        RC("set_view B",
           CALL(MPI_File_set_view, 0, 0, fh, (MPI_Offset)(16 * I * P), MPI_INT, ftype, "native",
                MPI_INFO_NULL));
        for (k = 0; k < 8; k++)
            b[k] = val_b(r, k);
        RC("write_all", CALL(MPI_File_write_all, 8 * I, 0, fh, b, 8, MPI_INT, MPI_STATUS_IGNORE));
    }

    /* ---- region C: independent write_at (2 ints) + iwrite_at (2 ints) ---- */
    {
        int c[4];
        MPI_Offset off = (MPI_Offset)(24 * I * P + 4 * I * r);
        for (i = 0; i < 4; i++)
            c[i] = val_c(r, i);
        /* back to a plain byte view */
        RC("set_view bytes",
           CALL(MPI_File_set_view, 0, 0, fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
        RC("write_at",
           CALL(MPI_File_write_at, 2 * I, 0, fh, off, c, 2, MPI_INT, MPI_STATUS_IGNORE));
        RC("iwrite_at", CALL(MPI_File_iwrite_at, 2 * I, 0, fh, off + 2 * I, c + 2, 2, MPI_INT, &rq));
        CALL(MPI_Wait, 0, 0, &rq, MPI_STATUS_IGNORE);
    }

    /* make all writes visible to all ranks: sync - barrier - sync */
    RC("sync", CALL(MPI_File_sync, 0, 0, fh));
    CALL(MPI_Barrier, 0, 0, W);
    RC("sync", CALL(MPI_File_sync, 0, 0, fh));

    /* ---- read region A back entirely with read_at_all ---- */
    {
        int *a = malloc((size_t)(16 * P) * sizeof(int));
        MPI_Status st;
        int n = -1;
        if (!a)
            abort();
        RC("read_at_all",
           CALL(MPI_File_read_at_all, 0, 16 * I * P, fh, 0, a, 16 * P, MPI_INT, &st));
        CALL(MPI_Get_count, 0, 0, &st, MPI_INT, &n);
        check(n == 16 * P, "read_at_all count");
        for (k = 0; k < P; k++)
            for (i = 0; i < 16; i++) {
                ok &= a[16 * k + i] == val_a(k, i);
                checksum += a[16 * k + i];
            }
        check(ok, "read_at_all data");
        free(a);
    }

    /* ---- region B through the right neighbour's view: read_all ---- */
    {
        int b[8], disp = (r + 1) % P, nb = (r + 1) % P;
        MPI_Datatype tmp, ftype2;
        CALL(MPI_Type_create_indexed_block, 0, 0, 1, 1, &disp, pair, &tmp);
        CALL(MPI_Type_create_resized, 0, 0, tmp, 0, (MPI_Aint)(2 * I * P), &ftype2);
        CALL(MPI_Type_commit, 0, 0, &ftype2);
        CALL(MPI_Type_free, 0, 0, &tmp);
        RC("set_view B2",
           CALL(MPI_File_set_view, 0, 0, fh, (MPI_Offset)(16 * I * P), MPI_INT, ftype2, "native",
                MPI_INFO_NULL));
        RC("read_all", CALL(MPI_File_read_all, 0, 8 * I, fh, b, 8, MPI_INT, MPI_STATUS_IGNORE));
        for (k = 0; k < 8; k++) {
            check(b[k] == val_b(nb, k), "read_all data");
            checksum += b[k];
        }
        /* split collective read of own elements 4..7 (offset in etypes of the view) */
        for (k = 0; k < 8; k++)
            b[k] = 0;
        RC("read_at_all_begin",
           CALL(MPI_File_read_at_all_begin, 0, 0, fh, (MPI_Offset)4, b, 4, MPI_INT));
        RC("read_at_all_end", CALL(MPI_File_read_at_all_end, 0, 4 * I, fh, b, MPI_STATUS_IGNORE));
        for (k = 0; k < 4; k++)
            check(b[k] == val_b(nb, 4 + k), "read_at_all_begin data");
        CALL(MPI_Type_free, 0, 0, &ftype2);
    }

    /* ---- region C, left neighbour's ints: read_at + iread_at ---- */
    {
        int c[4], nb = (r + P - 1) % P;
        MPI_Offset off = (MPI_Offset)(24 * I * P + 4 * I * nb);
        RC("set_view bytes",
           CALL(MPI_File_set_view, 0, 0, fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
        RC("read_at", CALL(MPI_File_read_at, 0, 3 * I, fh, off, c, 3, MPI_INT, MPI_STATUS_IGNORE));
        RC("iread_at", CALL(MPI_File_iread_at, 0, I, fh, off + 3 * I, c + 3, 1, MPI_INT, &rq));
        CALL(MPI_Wait, 0, 0, &rq, MPI_STATUS_IGNORE);
        for (i = 0; i < 4; i++) {
            check(c[i] == val_c(nb, i), "read_at data");
            checksum += c[i];
        }
    }

    RC("get_size", CALL(MPI_File_get_size, 0, 0, fh, &fsize));
    check(fsize == (MPI_Offset)(28 * I * P), "file size");
    RC("close", CALL(MPI_File_close, 0, 0, &fh));
    CALL(MPI_Type_free, 0, 0, &ftype);
    CALL(MPI_Type_free, 0, 0, &pair);

    CALL(MPI_Barrier, 0, 0, W);
    if (r == 0) {
        RC("delete", CALL(MPI_File_delete, 0, 0, path, MPI_INFO_NULL));
        if (access(path, F_OK) == 0)
            check(0, "file still exists after MPI_File_delete");
        if (rmdir(dir) != 0) {
            perror("io: rmdir");
            errors++;
        }
    }

    /* ---- results ---- */
    {
        long long *sums = calloc((size_t)P, sizeof *sums);
        int tot_err, j;
        if (!sums)
            abort();
        CALL(MPI_Gather, (long long)sizeof checksum, r == 0 ? (long long)sizeof checksum * P : 0,
             &checksum, 1, MPI_LONG_LONG, sums, 1, MPI_LONG_LONG, 0, W);
        tot_err = test_reduce_errors();
        if (r == 0) {
            printf("file size: %lld bytes\n", (long long)fsize);
            for (j = 0; j < P; j++)
                printf("checksum[%d] = %lld\n", j, sums[j]);
        }
        test_summary(tot_err);
        free(sums);
    }

    return test_finish();
}
