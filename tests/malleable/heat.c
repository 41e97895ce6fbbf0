/* heat.c -- a heat stencil on a 2-D or 3-D grid decomposed over a Cartesian
 * process grid (EMPI_Register_block), with halo exchange through MPI
 * subarray datatypes on the Cartesian communicator Ductile gives.  The halos
 * are exchanged at the END of each iteration, so after a resize the program
 * relies on Ductile's halo fill; it also checks that fill: after every
 * resize it compares its local array (halos included) with what its own
 * exchange gives.  At the end rank 0 assembles the global grid (in global
 * order) and prints its checksum and a hash of its bytes: bit-identical to
 * a static run whatever the sizes.
 *
 * usage: heat NDIMS N ITERS   (grid N x (N+5) [x (N+3)], halo 1) */
#include <mpi.h>
#include <empi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nd_;

static size_t lidx(const EMPI_Block *b, int i, int j, int k)
{
    return ((size_t)i * b->lsizes[1] + j) * b->lsizes[2] + k;
}

/* the program's own halo exchange: dimension by dimension, full extents */
static void exchange(const EMPI_Block *b, double *u)
{
    for (int d = 0; d < b->ndims; d++) {
        int lo, hi, sub[3], st[3];
        MPI_Cart_shift(b->comm, d, 1, &lo, &hi);
        for (int dir = 0; dir < 2; dir++) {
            MPI_Datatype s, r;
            for (int e = 0; e < 3; e++) { sub[e] = b->lsizes[e]; st[e] = 0; }
            sub[d] = b->halo[d];
            st[d] = dir ? b->subsizes[d] : b->halo[d];
            MPI_Type_create_subarray(3, b->lsizes, sub, st, MPI_ORDER_C, MPI_DOUBLE, &s);
            st[d] = dir ? 0 : b->halo[d] + b->subsizes[d];
            MPI_Type_create_subarray(3, b->lsizes, sub, st, MPI_ORDER_C, MPI_DOUBLE, &r);
            MPI_Type_commit(&s);
            MPI_Type_commit(&r);
            int to = dir ? hi : lo, from = dir ? lo : hi;
            MPI_Sendrecv(u, 1, s, to, 10 + d, u, 1, r, from, 10 + d, b->comm, MPI_STATUS_IGNORE);
            MPI_Type_free(&s);
            MPI_Type_free(&r);
        }
    }
}

/* After a resize (every process of the new world, spawned ones included:
 * the exchange is collective): Ductile filled the halos, so my own exchange
 * must change nothing; the Cartesian communicator spans the world. */
static int check_halos(EMPI_Block *bp, int rank, int size, int it)
{
    EMPI_Block b = *bp;
    int bad = 0;
    double *u = b.addr;
    size_t len = (size_t)b.lsizes[0] * b.lsizes[1] * b.lsizes[2];
    double *c = malloc(len * sizeof *c);
    memcpy(c, u, len * sizeof *c);
    exchange(&b, c);
    if (memcmp(c, u, len * sizeof *c) != 0) {
        for (size_t x = 0; x < len && getenv("HEAT_DEBUG"); x++)
            if (memcmp(&c[x], &u[x], sizeof *c) != 0)
                printf("rank %d: local %zu: %g vs %g\n", rank, x, u[x], c[x]);
        printf("FAIL: rank %d of %d: halos after the resize at iteration %d differ from an exchange\n", rank, size, it);
        bad = 1;
    }
    int cs;
    MPI_Comm_size(b.comm, &cs);
    if (cs != size) {
        printf("FAIL: the Cartesian communicator has %d processes, not %d\n", cs, size);
        bad = 1;
    }
    free(c);
    return bad;
}

static double init_value(int i, int j, int k) { return (double)((i * 31 + j * 17 + k * 7) % 23) / 7.0; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    nd_ = argc > 1 ? atoi(argv[1]) : 2;
    int n = argc > 2 ? atoi(argv[2]) : 40, itmax = argc > 3 ? atoi(argv[3]) : 30;
    int g[3] = {n, n + 5, n + 3}, halo[3] = {1, 1, 1}, rank, size, type, status = EMPI_ACTIVE, it = 0, bad = 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    EMPI_Block b;
    if (EMPI_Register_block("u", MPI_DOUBLE, nd_, g, halo, &b) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) {
        EMPI_Get_shared(&it);
        EMPI_Get_block("u", &b);
        bad |= check_halos(&b, rank, size, it);
    } else {
        double *u = b.addr;
        for (int i = 0; i < b.subsizes[0]; i++)
            for (int j = 0; j < b.subsizes[1]; j++)
                for (int k = 0; k < b.subsizes[2]; k++)
                    u[lidx(&b, i + b.halo[0], j + b.halo[1], k + b.halo[2])] =
                        init_value(b.starts[0] + i, b.starts[1] + j, b.starts[2] + k);
        exchange(&b, u);
    }
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        double *u = b.addr;
        size_t len = (size_t)b.lsizes[0] * b.lsizes[1] * b.lsizes[2];
        double *v = malloc(len * sizeof *v);
        memcpy(v, u, len * sizeof *v);
        for (int i = b.halo[0]; i < b.halo[0] + b.subsizes[0]; i++)
            for (int j = b.halo[1]; j < b.halo[1] + b.subsizes[1]; j++)
                for (int k = b.halo[2]; k < b.halo[2] + b.subsizes[2]; k++) {
                    double c = u[lidx(&b, i, j, k)];
                    double s = u[lidx(&b, i - 1, j, k)] + u[lidx(&b, i + 1, j, k)] + u[lidx(&b, i, j - 1, k)] +
                               u[lidx(&b, i, j + 1, k)];
                    if (nd_ == 3) s += u[lidx(&b, i, j, k - 1)] + u[lidx(&b, i, j, k + 1)];
                    v[lidx(&b, i, j, k)] = c + 0.1 * (s - 2.0 * nd_ * c);
                }
        memcpy(u, v, len * sizeof *v);
        free(v);
        exchange(&b, u);
        int oldsize = size;
        EMPI_Monitor_end(&rank, &size, it, itmax, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        EMPI_Get_block("u", &b);
        if (size != oldsize) bad |= check_halos(&b, rank, size, it);
    }
    if (status != EMPI_REMOVED) {
        /* rank 0 assembles the grid in global order */
        double *u = b.addr;
        int hdr[6] = {b.starts[0], b.starts[1], b.starts[2], b.subsizes[0], b.subsizes[1], b.subsizes[2]};
        size_t mine = (size_t)hdr[3] * hdr[4] * hdr[5];
        double *pk = malloc((mine ? mine : 1) * sizeof *pk), *all = NULL;
        size_t q = 0;
        for (int i = 0; i < hdr[3]; i++)
            for (int j = 0; j < hdr[4]; j++)
                for (int k = 0; k < hdr[5]; k++) pk[q++] = u[lidx(&b, i + b.halo[0], j + b.halo[1], k + b.halo[2])];
        int gz = nd_ == 3 ? g[2] : 1;
        size_t total = (size_t)g[0] * g[1] * gz;
        if (rank == 0) all = calloc(total, sizeof *all);
        for (int r = 0; r < size; r++) {
            int h[6];
            double *buf = pk;
            if (r != 0 && rank == r) {
                MPI_Send(hdr, 6, MPI_INT, 0, 1, EMPI_COMM_WORLD);
                MPI_Send(pk, (int)mine, MPI_DOUBLE, 0, 2, EMPI_COMM_WORLD);
            }
            if (rank != 0) continue;
            if (r == 0) memcpy(h, hdr, sizeof h);
            else {
                MPI_Recv(h, 6, MPI_INT, r, 1, EMPI_COMM_WORLD, MPI_STATUS_IGNORE);
                buf = malloc(((size_t)h[3] * h[4] * h[5] + 1) * sizeof *buf);
                MPI_Recv(buf, h[3] * h[4] * h[5], MPI_DOUBLE, r, 2, EMPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            size_t p = 0;
            for (int i = 0; i < h[3]; i++)
                for (int j = 0; j < h[4]; j++)
                    for (int k = 0; k < h[5]; k++)
                        all[((size_t)(h[0] + i) * g[1] + h[1] + j) * gz + h[2] + k] = buf[p++];
            if (buf != pk) free(buf);
        }
        int anybad = 0;
        MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, EMPI_COMM_WORLD);
        if (rank == 0) {
            double sum = 0;
            uint64_t hash = 1469598103934665603ULL;
            for (size_t x = 0; x < total; x++) {
                sum += all[x];
                const unsigned char *c = (const unsigned char *)&all[x];
                for (size_t y = 0; y < sizeof(double); y++) hash = (hash ^ c[y]) * 1099511628211ULL;
            }
            printf("checksum %a hash %016llx on %d processes%s\n", sum, (unsigned long long)hash, size,
                   anybad ? " BADHALO" : "");
        }
        free(all);
        free(pk);
    }
    MPI_Finalize();
    return 0;
}
