/* big_app.c -- a block over 2 GiB moved by a resize (tests/long/big.sh).
 *
 * Registers one distributed array of BIG_ROWS 8-byte rows (uint64_t), the
 * value of global row g being a hash of g; the schedule (DUCTILE_SCHEDULE)
 * resizes the job; after the last iteration (and once no background
 * transfer is pending) every process checks every row of its block and the
 * sum of the block sizes.  Prints "BIG ok size=N rows=R" from rank 0, or
 * CHECK FAIL lines.
 * env: BIG_ROWS (default 2 x 2.5 GiB of rows), BIG_CONST=1: register the
 *      array as constant (EMPI_CONSTANT: background transfers). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <empi.h>

int ductile_constant_pending(void);

static uint64_t val(int64_t g)
{
    uint64_t x = (uint64_t)g * 0x9E3779B97F4A7C15ull;
    return x ^ (x >> 29) ^ 0x5bd1e995ull;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 4;
    int rank, size, type, status = EMPI_ACTIVE, it = 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    const char *r = getenv("BIG_ROWS");
    int64_t rows = r ? atoll(r) : ((int64_t)5 << 30) / 8; /* 5 GiB: 2 x 2.5 GiB blocks of 8-byte rows */
    int cst = getenv("BIG_CONST") && atoi(getenv("BIG_CONST"));
    int64_t d, c;
    EMPI_Get_wsize64(rank, size, rows, &d, &c);
    uint64_t *a = EMPI_malloc((size_t)(c ? c : 1) * sizeof *a);
    if (!a) { fprintf(stderr, "rank %d: cannot allocate %lld rows\n", rank, (long long)c); MPI_Abort(MPI_COMM_WORLD, 2); }
    if (EMPI_Register_array("big", a, MPI_UINT64_T, rows, 1, EMPI_DISJOINT, cst ? EMPI_CONSTANT : EMPI_VARIABLE) != 0)
        return 1;
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    else
        for (int64_t i = 0; i < c; i++) a[i] = val(d + i);
    for (int guard = 0; it < iters || (cst && ductile_constant_pending() && guard < 100000); it++, guard++) {
        EMPI_Monitor_init();
        if (it >= iters) {
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
        EMPI_Monitor_end(&rank, &size, it, iters + 100000, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
    }
    long bad = 0;
    if (status != EMPI_REMOVED) {
        EMPI_Get_wsize64(rank, size, rows, &d, &c);
        a = EMPI_Get_addr("big");
        for (int64_t i = 0; i < c; i++)
            if (a[i] != val(d + i) && bad++ < 5)
                fprintf(stderr, "CHECK FAIL rank %d/%d: row %lld holds %llx\n", rank, size, (long long)(d + i),
                        (unsigned long long)a[i]);
        long long tot = 0, mine = c;
        long sbad = 0;
        MPI_Allreduce(&mine, &tot, 1, MPI_LONG_LONG, MPI_SUM, EMPI_COMM_WORLD);
        MPI_Allreduce(&bad, &sbad, 1, MPI_LONG, MPI_SUM, EMPI_COMM_WORLD);
        if (rank == 0) {
            if (tot != rows) fprintf(stderr, "CHECK FAIL: blocks cover %lld rows of %lld\n", tot, (long long)rows);
            else if (!sbad) printf("BIG ok size=%d rows=%lld block=%.2f GiB\n", size, (long long)rows,
                                   (double)c * 8 / (1 << 30));
        }
        bad += tot != rows;
    }
    MPI_Finalize();
    return bad ? 1 : 0;
}
