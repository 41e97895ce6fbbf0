/* flexbg.c -- a Jacobi written the way a FlexMPI user writes one, with its
 * matrix and right-hand side registered EMPI_CONSTANT (so they may move in
 * the background, DUCTILE_REDIST_CONSTANT=nb|wd|thread): every process,
 * spawned ones included, allocates and registers its OWN buffers for its
 * EMPI_Get_wsize block; a spawned process calls EMPI_Get_shared(&it) and
 * then iterates on the buffers it registered, without EMPI_Get_addr
 * (docs/malleability.md: "Spawned processes receive into the buffers they
 * registered").  After every control point it takes the addresses again, as
 * FlexMPI's examples do.  The checksum sums every iteration's solution (a
 * registered scalar), so an iteration on an unfilled buffer shows.
 * usage: flexbg DIM ITERATIONS [emalloc|malloc]
 *   emalloc (default): the buffers come from EMPI_malloc; malloc: from malloc
 * env:   FLEXBG_SMALL=1 -- a spawned process allocates its matrix one row short
 *        (EMPI_malloc'ed: Ductile must refuse the resize, the job goes on)
 *        FLEXBG_ROWS=1 -- declare the buffers' rows with EMPI_Set_buffer_rows
 *        (with malloc: what makes a short buffer visible to Ductile)
 *        FLEXBG_SLEEP_MS=MS -- sleep MS ms per iteration (time for a background
 *        transfer to complete while the loop goes on, on a loaded machine)
 *        FLEXBG_REGISTRY=1 -- the registry while a resize is pending: a constant
 *        item "scratch" (EMPI_malloc'ed) is freed with EMPI_free at iteration 6,
 *        the first one after a resize decided at 5 (its background transfer is
 *        then still reading it: Ductile frees it once the transfer is over); at
 *        that point an EMPI_Deregister_shared and a new registration must be
 *        refused.  Spawned processes check the scratch rows they received, then
 *        free it too.  Prints "registry: ..." lines (rank 0) and "FAIL" ones.
 *        FLEXBG_REQUEST=1 -- at iteration 2 every rank asks for one more process
 *        at iteration 10 with ductile_request_resize: rank 0's is queued, the
 *        others' refused ("request: rank R: ..." lines). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <empi.h>
#include <ductile.h>

#include "../../examples/jacobi_system.h"

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided); /* DUCTILE_REDIST_CONSTANT=thread needs it */
    int rank, size, desp, count, type, status = EMPI_ACTIVE, it = 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    int dim = argc > 1 ? atoi(argv[1]) : 200, itmax = argc > 2 ? atoi(argv[2]) : 100;
    int use_emalloc = !(argc > 3 && strcmp(argv[3], "malloc") == 0);
    EMPI_Get_type(&type);
    EMPI_Get_wsize(rank, size, dim, &desp, &count, NULL, NULL);
    int rows = count;
    if (type == EMPI_SPAWNED && getenv("FLEXBG_SMALL") && rows > 0) rows--; /* one row short */
    size_t abytes = (size_t)(rows ? rows : 1) * dim * sizeof(double), bbytes = (size_t)(rows ? rows : 1) * sizeof(double);
    double *A = use_emalloc ? EMPI_malloc(abytes) : malloc(abytes);
    double *b = use_emalloc ? EMPI_malloc(bbytes) : malloc(bbytes);
    double *A0 = A, *b0 = b;
    double *x_old = calloc((size_t)dim, sizeof(double)), *x_new = malloc((size_t)dim * sizeof(double));
    double acc = 0;
    EMPI_Register_array("matrix", A, MPI_DOUBLE, dim, dim, EMPI_DISJOINT, EMPI_CONSTANT);
    EMPI_Register_array("b", b, MPI_DOUBLE, dim, 1, EMPI_DISJOINT, EMPI_CONSTANT);
    EMPI_Register_vector("x_old", x_old, MPI_DOUBLE, dim, EMPI_SHARED);
    EMPI_Register_scalar("acc", &acc, MPI_DOUBLE, 1);
    /* FLEXBG_REGISTRY: a constant item the program frees while a resize moves it */
    int registry = getenv("FLEXBG_REGISTRY") != NULL, bad = 0;
    if (registry) {
        double *S = EMPI_malloc((size_t)(count ? count : 1) * 4 * sizeof(double));
        for (int i = 0; i < count * 4; i++) S[i] = (double)desp * 4 + i;
        EMPI_Register_array("scratch", S, MPI_DOUBLE, dim, 4, EMPI_DISJOINT, EMPI_CONSTANT);
    }
    if (getenv("FLEXBG_ROWS")) {
        EMPI_Set_buffer_rows("matrix", rows);
        EMPI_Set_buffer_rows("b", rows);
    }
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it); /* then straight on with A and b as registered */
    else jacobi_generate(dim, desp, count, A, b);
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    int *vcounts = malloc((size_t)size * sizeof(int)), *displs = malloc((size_t)size * sizeof(int));
    EMPI_Get_wsize(rank, size, dim, &desp, &count, vcounts, displs);
    const char *sl = getenv("FLEXBG_SLEEP_MS");
    struct timespec nap = {0, (sl ? atol(sl) : 0) * 1000000L};
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        if (nap.tv_nsec) nanosleep(&nap, NULL);
        if (it == 2 && getenv("FLEXBG_REQUEST")) {
            char err[200] = "";
            int rc = ductile_request_resize(1, 0, 10, NULL, err, sizeof err);
            printf("request: rank %d: %s%s\n", rank, rc == 0 ? "queued" : "refused: ", err);
        }
        double *S = registry && it >= 6 ? EMPI_Get_addr("scratch") : NULL;
        if (S) {
            /* what a spawned process received must be the old processes' rows, read before the free */
            for (int i = 0; type == EMPI_SPAWNED && i < count * 4; i++)
                if (S[i] != (double)desp * 4 + i) bad++;
            int pending = ductile_constant_pending();
            EMPI_free(S, "scratch");
            if (EMPI_Get_addr("scratch")) bad++; /* gone for the program at once */
            if (pending) {
                EMPI_Deregister_shared("b"); /* refused: "b" stays registered */
                double late = 0;
                int rc = EMPI_Register_array("late", &late, MPI_DOUBLE, 1, 1, EMPI_SHARED, EMPI_VARIABLE);
                if (rank == 0)
                    printf("registry: scratch freed while a resize was pending; 'b' %s; registering 'late' %s\n",
                           EMPI_Get_addr("b") == b ? "still registered" : "GONE", rc == -1 ? "refused" : "ACCEPTED");
            }
        }
        for (int i = 0; i < count; i++) {
            int g = desp + i;
            double s = b[i];
            for (int j = 0; j < dim; j++)
                if (j != g) s -= A[(size_t)i * dim + j] * x_old[j];
            x_new[g] = s / A[(size_t)i * dim + g];
        }
        MPI_Allgatherv(x_new + desp, count, MPI_DOUBLE, x_old, vcounts, displs, MPI_DOUBLE, EMPI_COMM_WORLD);
        for (int j = 0; j < dim; j++) acc += x_old[j] * (j + 1) * (1.0 + it % 7);
        EMPI_Monitor_end(&rank, &size, it, itmax, &count, &desp, &vcounts, &displs, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        A = EMPI_Get_addr("matrix");
        b = EMPI_Get_addr("b");
        x_old = EMPI_Get_addr("x_old");
    }
    if (bad) printf("FAIL: rank %d: %d wrong scratch elements or a freed item still visible\n", rank, bad);
    if (status != EMPI_REMOVED && rank == 0) printf("flexbg: %d iterations on %d processes, checksum %a\n", it, size, acc);
    free(vcounts);
    free(displs);
    free(x_new);
    if (use_emalloc) { /* as FlexMPI's examples end (a resize may still be pending: its transfer waits) */
        EMPI_free(A, "matrix");
        EMPI_free(b, "b");
    }
    MPI_Finalize();
    free(x_old);
    /* malloc'ed buffers stay the program's */
    if (!use_emalloc) {
        free(A0);
        free(b0);
    }
    return 0;
}
