/* cg.c -- conjugate gradient on a CSR sparse matrix registered with
 * EMPI_Register_sparse (FlexMPI's, int indices: "flex") or EMPI_Register_csr
 * (64-bit, balanced by rows "rows" or by non-zeros "nnz"), the vectors x, r,
 * p replicated (EMPI_SHARED, as FlexMPI's own CG example keeps them) and rho
 * a registered scalar.
 *
 * Bit-identical to a static run whatever the process counts: each process
 * computes q = A p for its rows (each entry by the same loop over its row,
 * whoever owns it) and MPI_Allgatherv assembles q in global row order; every
 * dot product is then computed by every process over the whole replicated
 * vectors, in global index order -- no reduction whose order depends on the
 * number of processes.
 *
 * After every resize it checks its rows: "rows"/"flex" = its EMPI_Get_wsize
 * block; "nnz" = at most ceil(nnz/P) + the longest row's non-zeros.
 * With a fourth argument "const" the matrix is registered constant
 * (EMPI_Set_flags(EMPI_CONSTANT): it moves in the background under
 * DUCTILE_REDIST_CONSTANT=nb|wd|thread).  After every control point that kept
 * the size (no resize, one still pending in the background, or one rolled
 * back) the matrix must be exactly what it was before it: the same arrays,
 * row range and non-zeros.  It also restarts every 16 iterations with a
 * new right-hand side (x accumulates), so that x depends on the matrix in
 * every iteration of a long run, not only until it converged.
 * A fifth argument: microseconds each iteration sleeps (a loop this fast
 * otherwise ends before a background transfer's last step, which needs the
 * spawned processes, asleep between tests, to run).
 * usage: cg N ITERS flex|rows|nnz [const [US]]   (prints "x hash %016llx ... on P processes") */
#include <mpi.h>
#include <empi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int n;

/* the matrix, row by row: symmetric, diagonally dominant, denser in its first quarter */
static int row_entries(int i, int64_t *cols, double *vals)
{
    int k = 0;
    for (int j = i - 28; j <= i + 28; j++) {
        if (j < 0 || j >= n) continue;
        int d = j > i ? j - i : i - j, lo = i < j ? i : j;
        double v = 0;
        if (d == 0) v = 12.0 + (i % 7) * 0.5;
        else if (d == 1 || d == 13) v = -1.0;
        else if ((d == 2 || d == 3) && lo < n / 4) v = -0.5;
        else if (d == 28 && i % 4 == 0) v = -0.25;
        if (v != 0) {
            cols[k] = j;
            vals[k] = v;
            k++;
        }
    }
    return k;
}

static double dot(const double *a, const double *b)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

int main(int argc, char **argv)
{
    /* "const": with MPI_THREAD_MULTIPLE, for DUCTILE_REDIST_CONSTANT=thread (Threading needs it) */
    int provided = 0;
    if (argc > 4 && strcmp(argv[4], "const") == 0) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else MPI_Init(&argc, &argv);
    n = argc > 1 ? atoi(argv[1]) : 500;
    int itmax = argc > 2 ? atoi(argv[2]) : 30;
    const char *mode = argc > 3 ? argv[3] : "rows";
    int flex = strcmp(mode, "flex") == 0, bal = strcmp(mode, "nnz") == 0 ? EMPI_NNZ : EMPI_ROWS;
    int constant = argc > 4 && strcmp(argv[4], "const") == 0;
    long nap_us = argc > 5 ? atol(argv[5]) : 0;
    int rank, size, type, status = EMPI_ACTIVE, it = 0, bad = 0, desp, count;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    double *x = calloc((size_t)n, sizeof *x), *r = calloc((size_t)n, sizeof *r), *p = calloc((size_t)n, sizeof *p);
    double *q = calloc((size_t)n, sizeof *q), rho = 0;
    int64_t cols[64];
    double vals[64];
    EMPI_Get_type(&type);
    EMPI_Get_wsize(rank, size, n, &desp, &count, NULL, NULL);
    /* my rows of the matrix (native processes) */
    int64_t *rp64 = NULL, *ci64 = NULL;
    int *rp32 = NULL, *ci32 = NULL;
    double *va = NULL;
    if (type == EMPI_NATIVE) {
        int64_t nnz = 0;
        for (int i = desp; i < desp + count; i++) nnz += row_entries(i, cols, vals);
        va = EMPI_malloc((size_t)(nnz + 1) * sizeof *va);
        if (flex) { rp32 = EMPI_malloc((size_t)(count + 1) * sizeof *rp32); ci32 = EMPI_malloc((size_t)(nnz + 1) * sizeof *ci32); }
        else { rp64 = EMPI_malloc((size_t)(count + 1) * sizeof *rp64); ci64 = EMPI_malloc((size_t)(nnz + 1) * sizeof *ci64); }
        int64_t k = 0;
        for (int i = 0; i < count; i++) {
            if (flex) rp32[i] = (int)k; else rp64[i] = k;
            int m = row_entries(desp + i, cols, vals);
            for (int e = 0; e < m; e++, k++) {
                if (flex) ci32[k] = (int)cols[e]; else ci64[k] = cols[e];
                va[k] = vals[e];
            }
        }
        if (flex) rp32[count] = (int)k; else rp64[count] = k;
        if (flex) EMPI_Register_sparse("A", rp32, ci32, va, MPI_DOUBLE, n, (int)nnz);
        else EMPI_Register_csr("A", rp64, ci64, va, MPI_DOUBLE, n, desp, count, bal);
    } else {
        if (flex) EMPI_Register_sparse("A", NULL, NULL, NULL, MPI_DOUBLE, n, 0);
        else EMPI_Register_csr("A", NULL, NULL, NULL, MPI_DOUBLE, n, 0, 0, bal);
    }
    if (constant && EMPI_Set_flags("A", EMPI_CONSTANT) != 0) { printf("FAIL: EMPI_Set_flags\n"); bad = 1; }
    if (flex) { /* FlexMPI's int arrays are not handed out as int64_t ones (EMPI_Get_csr: -1 with a message) */
        int64_t *p64 = NULL, *c64 = NULL;
        if (EMPI_Get_csr("A", &p64, &c64, NULL, NULL, NULL, NULL) != -1 || p64 || c64) { printf("FAIL: EMPI_Get_csr on EMPI_Register_sparse\n"); bad = 1; }
    }
    EMPI_Register_vector("x", x, MPI_DOUBLE, n, EMPI_SHARED);
    EMPI_Register_vector("r", r, MPI_DOUBLE, n, EMPI_SHARED);
    EMPI_Register_vector("p", p, MPI_DOUBLE, n, EMPI_SHARED);
    EMPI_Register_scalar("rho", &rho, MPI_DOUBLE, 1);
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    else {
        for (int i = 0; i < n; i++) r[i] = p[i] = 1.0 + i % 3;
        rho = dot(r, r);
    }
    int *vc = malloc((size_t)size * sizeof *vc), *vd = malloc((size_t)size * sizeof *vd);
    int resized = type == EMPI_SPAWNED;
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        if (nap_us > 0) {
            struct timespec ts = {nap_us / 1000000, (nap_us % 1000000) * 1000};
            nanosleep(&ts, NULL);
        }
        if (constant && it > 0 && it % 16 == 0) { /* restart (see the header) */
            for (int i = 0; i < n; i++) r[i] = p[i] = 1.0 + (i + it / 16) % 3;
            rho = dot(r, r);
        }
        int64_t row0, rows, nnz;
        EMPI_Get_sparse_rows("A", &row0, &rows, &nnz);
        if (flex) EMPI_Get_addr_sparse("A", (void **)&rp32, (void **)&ci32, (void **)&va);
        else EMPI_Get_csr("A", &rp64, &ci64, (void **)&va, NULL, NULL, NULL);
        if (resized) {
            /* check the distribution */
            int64_t tot = 0, mx = 0;
            MPI_Allreduce(&nnz, &tot, 1, MPI_INT64_T, MPI_SUM, EMPI_COMM_WORLD);
            for (int i = 0; i < n; i++) { int m = row_entries(i, cols, vals); if (m > mx) mx = m; }
            if (bal == EMPI_NNZ && !flex) {
                if (nnz > (tot + size - 1) / size + mx) { printf("FAIL: rank %d of %d holds %lld non-zeros of %lld\n", rank, size, (long long)nnz, (long long)tot); bad = 1; }
            } else {
                EMPI_Get_wsize(rank, size, n, &desp, &count, NULL, NULL);
                if (row0 != desp || rows != count) { printf("FAIL: rank %d of %d holds rows %lld+%lld, not its EMPI_Get_wsize block %d+%d\n", rank, size, (long long)row0, (long long)rows, desp, count); bad = 1; }
            }
            resized = 0;
        }
        int myrows = (int)rows;
        MPI_Allgather(&myrows, 1, MPI_INT, vc, 1, MPI_INT, EMPI_COMM_WORLD);
        vd[0] = 0;
        for (int k = 1; k < size; k++) vd[k] = vd[k - 1] + vc[k - 1];
        if (vd[rank] != row0) { printf("FAIL: rank %d: rows not in rank order\n", rank); bad = 1; }
        for (int64_t i = 0; i < rows; i++) {
            double s = 0;
            int64_t b0 = flex ? rp32[i] : rp64[i], b1 = flex ? rp32[i + 1] : rp64[i + 1];
            for (int64_t e = b0; e < b1; e++) s += va[e] * p[flex ? ci32[e] : ci64[e]];
            q[row0 + i] = s;
        }
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, q, vc, vd, MPI_DOUBLE, EMPI_COMM_WORLD);
        double alpha = rho / dot(p, q);
        for (int i = 0; i < n; i++) { x[i] += alpha * p[i]; r[i] -= alpha * q[i]; }
        double rn = dot(r, r), beta = rn / rho;
        for (int i = 0; i < n; i++) p[i] = r[i] + beta * p[i];
        rho = rn;
        int oldsize = size;
        EMPI_Monitor_end(&rank, &size, it, itmax, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        if (size == oldsize) { /* no resize here: the matrix is the one before the control point */
            int64_t r0b, rowsb, nnzb;
            void *rpb, *cib, *vab;
            EMPI_Get_sparse_rows("A", &r0b, &rowsb, &nnzb);
            EMPI_Get_addr_sparse("A", &rpb, &cib, &vab);
            if (r0b != row0 || rowsb != rows || nnzb != nnz || rpb != (flex ? (void *)rp32 : (void *)rp64) ||
                cib != (flex ? (void *)ci32 : (void *)ci64) || vab != (void *)va) {
                printf("FAIL: rank %d: the matrix changed at iteration %d without a resize\n", rank, it);
                bad = 1;
            }
        }
        if (size != oldsize) {
            resized = 1;
            vc = realloc(vc, (size_t)size * sizeof *vc);
            vd = realloc(vd, (size_t)size * sizeof *vd);
        }
    }
    if (status != EMPI_REMOVED) {
        int anybad = 0;
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, EMPI_COMM_WORLD);
        uint64_t h = 1469598103934665603ULL;
        const unsigned char *c = (const unsigned char *)x;
        for (size_t y = 0; y < (size_t)n * sizeof *x; y++) h = (h ^ c[y]) * 1099511628211ULL;
        if (rank == 0) printf("x hash %016llx residual %a on %d processes%s\n", (unsigned long long)h, rho, size, anybad ? " BAD" : "");
    }
    free(vc); free(vd); free(x); free(r); free(p); free(q);
    MPI_Finalize();
    return 0;
}
