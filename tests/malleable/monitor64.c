/* monitor64.c -- EMPI_Monitor_end64 and the int EMPI_Monitor_end past
 * INT_MAX (tests/malleable/bigcount.sh).
 *
 * usage: monitor64 ROWS ITERS
 * Registers one distributed array of ROWS 1-byte rows (each process mallocs
 * its block and never touches it: past 2 GiB rows this costs address space,
 * not memory; no resize may move it then) and runs ITERS control points,
 * alternating EMPI_Monitor_end64 and the int EMPI_Monitor_end (both with
 * per-rank arrays).  After each it checks, against EMPI_Get_wsize64: the
 * 64-bit form gives every value exactly (its arrays grown to the new size
 * after a resize); the int form gives every value that fits an int exactly
 * and MPI_UNDEFINED for every one that does not (never a truncated value),
 * and so do EMPI_GLOBAL_vcounts / EMPI_GLOBAL_displs.  Prints "M64 ok
 * size=N undefined=U" from rank 0 (U: values the int form gave as
 * MPI_UNDEFINED on rank 0), or CHECK FAIL lines. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <empi.h>

static long bad;

static void expect(const char *what, int k, int64_t want, int got, long *undef)
{
    int w = want >= 0 && want <= INT_MAX ? (int)want : MPI_UNDEFINED;
    if (w == MPI_UNDEFINED) ++*undef;
    if (got != w && bad++ < 10)
        fprintf(stderr, "CHECK FAIL: %s[%d] = %d, expected %d (value %lld)\n", what, k, got, w, (long long)want);
}

static void expect64(const char *what, int k, int64_t want, int64_t got)
{
    if (got != want && bad++ < 10)
        fprintf(stderr, "CHECK FAIL: %s[%d] = %lld, expected %lld\n", what, k, (long long)got, (long long)want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int64_t rows = argc > 1 ? atoll(argv[1]) : 1000;
    int iters = argc > 2 ? atoi(argv[2]) : 4;
    int rank, size, type, status = EMPI_ACTIVE, it = 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    int64_t d, c;
    EMPI_Get_wsize64(rank, size, rows, &d, &c);
    char *a = EMPI_malloc((size_t)(c ? c : 1));
    if (!a || EMPI_Register_array("a", a, MPI_BYTE, rows, 1, EMPI_DISJOINT, EMPI_VARIABLE) != 0) {
        fprintf(stderr, "rank %d: cannot allocate or register %lld rows\n", rank, (long long)c);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    int *vc = malloc(sizeof *vc * (size_t)size), *vd = malloc(sizeof *vd * (size_t)size);
    int64_t *vc64 = malloc(sizeof *vc64 * (size_t)size), *vd64 = malloc(sizeof *vd64 * (size_t)size);
    long undef = 0;
    int cap32 = size, cap64 = size; /* the arrays' sizes: Ductile grows the ones it is given at a resize */
    for (; it < iters; it++) {
        EMPI_Monitor_init();
        if (it % 2 == 0) {
            int64_t c64 = -7, d64 = -7;
            EMPI_Monitor_end64(&rank, &size, it, iters, &c64, &d64, &vc64, &vd64, NULL, argv + 1, argv[0]);
            EMPI_Get_status(&status);
            if (status == EMPI_REMOVED) break;
            cap64 = size;
            if (cap32 != size) { /* the int arrays were not given: the program grows them */
                vc = realloc(vc, sizeof *vc * (size_t)size);
                vd = realloc(vd, sizeof *vd * (size_t)size);
                cap32 = size;
            }
            EMPI_Get_wsize64(rank, size, rows, &d, &c);
            expect64("count64", -1, c, c64);
            expect64("disp64", -1, d, d64);
            for (int k = 0; k < size; k++) {
                EMPI_Get_wsize64(k, size, rows, &d, &c);
                expect64("vcount64", k, c, vc64[k]);
                expect64("vdisp64", k, d, vd64[k]);
            }
        } else {
            int ci = -7, di = -7;
            EMPI_Monitor_end(&rank, &size, it, iters, &ci, &di, &vc, &vd, NULL, argv + 1, argv[0]);
            EMPI_Get_status(&status);
            if (status == EMPI_REMOVED) break;
            cap32 = size;
            if (cap64 != size) {
                vc64 = realloc(vc64, sizeof *vc64 * (size_t)size);
                vd64 = realloc(vd64, sizeof *vd64 * (size_t)size);
                cap64 = size;
            }
            undef = 0;
            EMPI_Get_wsize64(rank, size, rows, &d, &c);
            expect("count", -1, c, ci, &undef);
            expect("disp", -1, d, di, &undef);
            for (int k = 0; k < size; k++) {
                long ignore = 0;
                EMPI_Get_wsize64(k, size, rows, &d, &c);
                expect("vcount", k, c, vc[k], &undef);
                expect("vdisp", k, d, vd[k], &undef);
                expect("EMPI_GLOBAL_vcounts", k, c, EMPI_GLOBAL_vcounts[k], &ignore);
                expect("EMPI_GLOBAL_displs", k, d, EMPI_GLOBAL_displs[k], &ignore);
            }
        }
    }
    long sbad = 0;
    if (status != EMPI_REMOVED) {
        MPI_Allreduce(&bad, &sbad, 1, MPI_LONG, MPI_SUM, EMPI_COMM_WORLD);
        if (rank == 0 && !sbad) printf("M64 ok size=%d undefined=%ld\n", size, undef);
    }
    free(vc);
    free(vd);
    free(vc64);
    free(vd64);
    MPI_Finalize();
    return bad || sbad ? 1 : 0;
}
