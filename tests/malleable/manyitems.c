/* manyitems.c -- a program that registers many items (more than the 64 the
 * registry once held): NITEMS arrays of different sizes and kinds, item k
 * being, by k % 4, a distributed array of doubles updated every iteration
 * (EMPI_VARIABLE), a constant distributed array of int64 (EMPI_CONSTANT), a
 * replicated vector updated every iteration, or a scalar counter.  Item k
 * has 5 + (k * 37) % 61 rows of 1 + k % 3 elements (a replicated one 1 + k %
 * 7 elements), so the blocks differ in size and some processes hold none.
 * Every element is a formula of (k, global row, element, iteration): after
 * every control point (and in a spawned process after EMPI_Get_shared) each
 * process checks every element of every item it holds -- "FAIL: ..." at the
 * first wrong one.  Rank 0 ends with "manyitems N ok on P processes" (or
 * BAD when any process saw a wrong element).
 *
 * usage: manyitems NITEMS ITERS */
#include <mpi.h>
#include <empi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int rank_, size_;

static int64_t rows_of(int k) { return 5 + (k * 37) % 61; }
static int64_t width_of(int k) { return k % 4 == 2 ? 1 + k % 7 : 1 + k % 3; }
static double var_val(int k, int64_t g, int64_t e, int it) { return (double)((k * 131 + g * 17 + e * 5 + it) % 997); }
static int64_t const_val(int k, int64_t g, int64_t e) { return k * 1000003LL + g * 101 + e; }

static void name_of(int k, char *s, size_t n) { snprintf(s, n, "item%03d", k); }

/* Fill (fill = 1) or check (0) item k for iteration it: the number of wrong elements. */
static int visit(int k, int it, int fill)
{
    char name[32];
    name_of(k, name, sizeof name);
    void *p = EMPI_Get_addr(name);
    int64_t rows = rows_of(k), w = width_of(k), d = 0, c = 0;
    if (k % 4 == 0 || k % 4 == 1) EMPI_Get_wsize64(rank_, size_, rows, &d, &c);
    if (k % 4 == 2) c = 1;
    if (k % 4 == 3) c = 1, w = 1;
    if (c > 0 && !p) {
        printf("FAIL: rank %d of %d: '%s' has no buffer (iteration %d)\n", rank_, size_, name, it);
        return 1;
    }
    for (int64_t i = 0; i < c; i++)
        for (int64_t e = 0; e < w; e++) {
            int wrong = 0;
            if (k % 4 == 0) {
                double *a = p, x = var_val(k, d + i, e, it);
                if (fill) a[i * w + e] = x;
                else wrong = a[i * w + e] != x;
            } else if (k % 4 == 1) {
                int64_t *a = p, x = const_val(k, d + i, e);
                if (fill) a[i * w + e] = x;
                else wrong = a[i * w + e] != x;
            } else if (k % 4 == 2) {
                double *a = p, x = var_val(k, -1, e, it);
                if (fill) a[e] = x;
                else wrong = a[e] != x;
            } else {
                int *a = p;
                if (fill) *a = it * 3 + k;
                else wrong = *a != it * 3 + k;
            }
            if (wrong) {
                printf("FAIL: rank %d of %d: '%s' row %lld element %lld wrong at iteration %d\n", rank_, size_, name,
                       (long long)(d + i), (long long)e, it);
                return 1;
            }
        }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 200, itmax = argc > 2 ? atoi(argv[2]) : 12;
    int type, status = EMPI_ACTIVE, it = 0, bad = 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank_);
    MPI_Comm_size(EMPI_COMM_WORLD, &size_);
    for (int k = 0; k < n; k++) {
        char name[32];
        name_of(k, name, sizeof name);
        int64_t rows = rows_of(k), w = width_of(k), d = 0, c = 0;
        int rc;
        if (k % 4 == 0 || k % 4 == 1) {
            EMPI_Get_wsize64(rank_, size_, rows, &d, &c);
            size_t bytes = (size_t)(c > 0 ? c : 1) * (size_t)w * 8;
            rc = EMPI_Register_array(name, EMPI_malloc(bytes), k % 4 ? MPI_INT64_T : MPI_DOUBLE, rows, w,
                                     EMPI_DISJOINT, k % 4 ? EMPI_CONSTANT : EMPI_VARIABLE);
        } else if (k % 4 == 2) {
            rc = EMPI_Register_array(name, EMPI_malloc((size_t)w * 8), MPI_DOUBLE, 1, w, EMPI_SHARED, EMPI_VARIABLE);
        } else {
            rc = EMPI_Register_scalar(name, EMPI_malloc(sizeof(int)), MPI_INT, 1);
        }
        if (rc != 0) {
            printf("FAIL: rank %d: registering '%s' (item %d of %d) failed\n", rank_, name, k + 1, n);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) {
        EMPI_Get_shared(&it);
        for (int k = 0; k < n && !bad; k++) bad |= visit(k, it, 0);
    } else {
        for (int k = 0; k < n; k++) visit(k, 0, 1);
    }
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        for (int k = 0; k < n; k++)
            if (k % 4 != 1) visit(k, it + 1, 1); /* the iteration's work: every variable item changes */
        EMPI_Monitor_end(&rank_, &size_, it, itmax, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        for (int k = 0; k < n && !bad; k++) bad |= visit(k, it + 1, 0);
    }
    if (status != EMPI_REMOVED) {
        int anybad = 0;
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, EMPI_COMM_WORLD);
        if (rank_ == 0) printf("manyitems %d %s on %d processes\n", n, anybad ? "BAD" : "ok", size_);
    }
    MPI_Finalize();
    return 0;
}
