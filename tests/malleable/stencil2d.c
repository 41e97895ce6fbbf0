/* stencil2d.c -- a 2-D periodic stencil that keeps its own Cartesian
 * communicator (periodic in both dimensions, which Ductile's is not) and its
 * own halo datatypes, and rebuilds them in a reconfiguration hook
 * (EMPI_Set_reconfig_hook) -- the issue-26 item-2 test.  The grid lives in an
 * N-D block (EMPI_Register_block), which Ductile moves; everything that
 * depends on the world is the program's and is made again in the hook.
 *
 * The hook checks what it is told: the role against the ranks, the sizes
 * against the world (continuing and new processes) and the schedule's target
 * (argv[4], the sizes in order), the kind, the iteration (the control point's,
 * as EMPI_Get_reconfig says right after it), and a communicator over the old
 * and the new processes (EMPI_Reconfig_comm: an allreduce of 1 over it gives
 * old + new processes for Baseline, the larger world for Merge).  The program
 * counts the hooks and the control points that changed the world: they must be
 * equal, and 0 when every resize is rolled back.  At the end it prints an
 * order-independent exact checksum of the grid (bit patterns), which must be
 * the static run's.
 *
 * Its decomposition takes squares or multiples of 3, at most 9 processes
 * (issue 26, item 3): every process sets that (ductile_set_sizes,
 * EMPI_Set_maxprocs), and rank 0 checks that a request for 5 or 12
 * processes is refused at once with the reason (scheduled ones are refused
 * at the control point: tests/malleable/hook.sh reads the reasons).
 *
 * usage: stencil2d NX NY ITERS [SIZES]   SIZES: "9,6" -- the sizes the
 * scheduled resizes go to, in order ("-" or absent: none expected; not "":
 * MPICH's hydra cannot spawn a program with an empty argument) */
#include <mpi.h>
#include <empi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct state {
    EMPI_Block b;
    MPI_Comm cart;
    MPI_Datatype send[4], recv[4]; /* north, south, west, east faces */
    int nbr[4];
    int hooks, failures, expect[16], nexpect, step;
    int removed_hook;
};

#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            st->failures++;                                                                                            \
            fprintf(stdout, "FAIL: " __VA_ARGS__);                                                                     \
            fputc('\n', stdout);                                                                                       \
        }                                                                                                              \
    } while (0)

static void free_world_state(struct state *st)
{
    if (st->cart != MPI_COMM_NULL) MPI_Comm_free(&st->cart);
    for (int k = 0; k < 4; k++) {
        if (st->send[k] != MPI_DATATYPE_NULL) MPI_Type_free(&st->send[k]);
        if (st->recv[k] != MPI_DATATYPE_NULL) MPI_Type_free(&st->recv[k]);
    }
}

/* The program's periodic communicator and halo datatypes for the current block. */
static void build_world_state(struct state *st)
{
    EMPI_Get_block("u", &st->b);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2];
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &st->cart);
    MPI_Cart_coords(st->cart, rank, 2, coords);
    CHECK(dims[0] == st->b.dims[0] && dims[1] == st->b.dims[1] && coords[0] == st->b.coords[0] &&
              coords[1] == st->b.coords[1],
          "rank %d: my grid %dx%d (%d,%d) is not the block's %dx%d (%d,%d)", rank, dims[0], dims[1], coords[0],
          coords[1], st->b.dims[0], st->b.dims[1], st->b.coords[0], st->b.coords[1]);
    MPI_Cart_shift(st->cart, 0, 1, &st->nbr[0], &st->nbr[1]);
    MPI_Cart_shift(st->cart, 1, 1, &st->nbr[2], &st->nbr[3]);
    const int *L = st->b.lsizes, *S = st->b.subsizes;
    /* rows: faces of S[1] interior columns; columns: full height (corners follow) */
    int rsub[2] = {1, S[1]}, csub[2] = {L[0], 1};
    int st_send[4][2] = {{1, 1}, {S[0], 1}, {0, 1}, {0, S[1]}};
    int st_recv[4][2] = {{0, 1}, {S[0] + 1, 1}, {0, 0}, {0, S[1] + 1}};
    for (int k = 0; k < 4; k++) {
        const int *sub = k < 2 ? rsub : csub;
        MPI_Type_create_subarray(2, L, sub, st_send[k], MPI_ORDER_C, MPI_DOUBLE, &st->send[k]);
        MPI_Type_create_subarray(2, L, sub, st_recv[k], MPI_ORDER_C, MPI_DOUBLE, &st->recv[k]);
        MPI_Type_commit(&st->send[k]);
        MPI_Type_commit(&st->recv[k]);
    }
}

static void hook(const EMPI_Reconfig *info, void *arg)
{
    struct state *st = arg;
    st->hooks++;
    int size = -1, rank = -1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (info->role == DUCTILE_ROLE_NEW && st->hooks == 1) /* spawned: the resizes before it are not its own */
        while (st->step < st->nexpect && st->expect[st->step] != info->new_size) st->step++;
    int want = st->step < st->nexpect ? st->expect[st->step] : -1;
    st->step++;
    CHECK(info->new_size == want, "hook: new size %d, the schedule says %d", info->new_size, want);
    CHECK(info->kind == (info->new_size > info->old_size   ? DUCTILE_RECONF_EXPAND
                         : info->new_size < info->old_size ? DUCTILE_RECONF_SHRINK
                                                           : DUCTILE_RECONF_REPLACE),
          "hook: kind %d for %d -> %d", info->kind, info->old_size, info->new_size);
    if (info->role == DUCTILE_ROLE_REMOVED) {
        CHECK(info->new_rank == -1 && info->old_rank >= 0, "hook: removed with ranks %d -> %d", info->old_rank,
              info->new_rank);
        st->removed_hook = 1;
    } else {
        CHECK(info->new_size == size && info->new_rank == rank, "hook: new %d of %d, the world says %d of %d",
              info->new_rank, info->new_size, rank, size);
        CHECK((info->role == DUCTILE_ROLE_NEW) == (info->old_rank < 0), "hook: role %d with old rank %d", info->role,
              info->old_rank);
    }
    /* the communicator over the old and the new processes: everybody calls it */
    MPI_Comm span;
    if (EMPI_Reconfig_comm(&span) == 0) {
        int n = 1, one = 1, sr = -1;
        MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, span);
        MPI_Comm_rank(span, &sr);
        int all = info->baseline ? info->old_size + info->new_size
                                 : (info->old_size > info->new_size ? info->old_size : info->new_size);
        CHECK(n == all, "hook: %d processes in the span, expected %d", n, all);
        if (info->old_rank >= 0) CHECK(sr == info->old_rank, "hook: span rank %d, old rank %d", sr, info->old_rank);
        MPI_Comm_free(&span);
    } else {
        CHECK(0, "hook: EMPI_Reconfig_comm failed");
    }
    if (info->role == DUCTILE_ROLE_REMOVED) return;
    free_world_state(st);
    build_world_state(st);
}

static void exchange(struct state *st, double *u)
{
    /* north/south first over the interior columns, then west/east over full height */
    MPI_Sendrecv(u, 1, st->send[1], st->nbr[1], 1, u, 1, st->recv[0], st->nbr[0], 1, st->cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(u, 1, st->send[0], st->nbr[0], 2, u, 1, st->recv[1], st->nbr[1], 2, st->cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(u, 1, st->send[3], st->nbr[3], 3, u, 1, st->recv[2], st->nbr[2], 3, st->cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(u, 1, st->send[2], st->nbr[2], 4, u, 1, st->recv[3], st->nbr[3], 4, st->cart, MPI_STATUS_IGNORE);
}

static uint64_t mix(double v, uint64_t pos)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t h = (bits ^ (pos * 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 29);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 4) {
        fprintf(stderr, "usage: stencil2d NX NY ITERS [SIZES]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int g[2] = {atoi(argv[1]), atoi(argv[2])}, halo[2] = {1, 1}, iters = atoi(argv[3]);
    static struct state S;
    struct state *st = &S;
    st->cart = MPI_COMM_NULL;
    for (int k = 0; k < 4; k++) st->send[k] = st->recv[k] = MPI_DATATYPE_NULL;
    for (char *p = argc > 4 ? argv[4] : "-"; *p && *p != '-' && st->nexpect < 16;) {
        char *q = p;
        st->expect[st->nexpect++] = (int)strtol(q, &p, 10);
        if (p == q) break;
        if (*p == ',') p++;
    }
    EMPI_Set_reconfig_hook(hook, st);
    EMPI_Register_block("u", MPI_DOUBLE, 2, g, halo, &st->b);
    int type, it = 0, changes = 0;
    EMPI_Get_type(&type);
    /* the counts the decomposition takes: squares or multiples of 3, at most 9 */
    char err[400], spec[400];
    CHECK(ductile_set_sizes("allowed=squares|multiples:3", err, sizeof err) == 0, "ductile_set_sizes: %s", err);
    EMPI_Set_maxprocs(9);
    ductile_get_sizes(spec, sizeof spec);
    CHECK(strstr(spec, "max=9") && strstr(spec, "allowed=squares|multiples:3"), "constraints in force: '%s'", spec);
    CHECK(ductile_set_sizes("allowed=cubes", err, sizeof err) == -1 && strstr(err, "'cubes'"), "allowed=cubes: '%s'",
          err);
    int r0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r0);
    if (type != EMPI_SPAWNED && r0 == 0) {
        CHECK(ductile_request_resize(5, 1, -1, NULL, err, sizeof err) == -1 &&
                  strstr(err, "5 processes is not among the job's allowed counts (squares|multiples:3)"),
              "a request for 5 processes: '%s'", err);
        CHECK(ductile_request_resize(8, 0, -1, NULL, err, sizeof err) == -1 && strstr(err, "above the job's maximum of 9"),
              "a request for 4+8 processes: '%s'", err);
    }
    if (type == EMPI_SPAWNED) {
        /* the hook runs inside, with the data here: it built the communicator */
        EMPI_Reconfig info;
        EMPI_Get_shared(&it);
        CHECK(EMPI_Get_reconfig(&info) == 1 && info.role == DUCTILE_ROLE_NEW, "spawned: EMPI_Get_reconfig");
        changes = 1;
        CHECK(st->hooks == 1 && st->cart != MPI_COMM_NULL, "spawned: %d hooks before the loop", st->hooks);
    } else {
        EMPI_Block *b = &st->b;
        double *u = b->addr;
        for (int i = 0; i < b->subsizes[0]; i++)
            for (int j = 0; j < b->subsizes[1]; j++) {
                int gi = b->starts[0] + i, gj = b->starts[1] + j;
                u[(size_t)(i + 1) * b->lsizes[1] + (j + 1)] = sin(0.3 * gi) + cos(0.17 * gj) + 0.01 * ((gi * 7 + gj * 3) % 11);
            }
        build_world_state(st);
    }
    int rank, size, status = EMPI_ACTIVE;
    for (; it < iters; it++) {
        EMPI_Monitor_init();
        double *u = st->b.addr;
        const int *L = st->b.lsizes, *Sz = st->b.subsizes;
        exchange(st, u);
        double *v = malloc((size_t)Sz[0] * Sz[1] * sizeof *v);
        for (int i = 1; i <= Sz[0]; i++)
            for (int j = 1; j <= Sz[1]; j++) {
                size_t c = (size_t)i * L[1] + j;
                v[(size_t)(i - 1) * Sz[1] + (j - 1)] =
                    u[c] + 0.2 * (u[c - L[1]] + u[c + L[1]] + u[c - 1] + u[c + 1] - 4.0 * u[c]);
            }
        for (int i = 1; i <= Sz[0]; i++)
            memcpy(&u[(size_t)i * L[1] + 1], &v[(size_t)(i - 1) * Sz[1]], (size_t)Sz[1] * sizeof *v);
        free(v);
        int before = st->hooks;
        EMPI_Monitor_end(&rank, &size, it, iters, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Reconfig info;
        int changed = EMPI_Get_reconfig(&info);
        changes += changed;
        CHECK(st->hooks == before + changed, "iteration %d: %d hooks for %d changes", it, st->hooks - before, changed);
        if (changed) CHECK(info.iteration == it, "iteration %d: EMPI_Get_reconfig says %d", it, info.iteration);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
    }
    if (status == EMPI_REMOVED) {
        CHECK(st->removed_hook == 1, "a removed process without its hook");
        printf("removed process: hooks %d, failures %d\n", st->hooks, st->failures);
        MPI_Finalize();
        return 0;
    }
    CHECK(st->hooks == changes, "%d hooks, %d control points changed the world", st->hooks, changes);
    uint64_t sum = 0;
    const EMPI_Block *b = &st->b;
    const double *u = b->addr;
    for (int i = 0; i < b->subsizes[0]; i++)
        for (int j = 0; j < b->subsizes[1]; j++)
            sum += mix(u[(size_t)(i + 1) * b->lsizes[1] + j + 1], (uint64_t)(b->starts[0] + i) * g[1] + b->starts[1] + j);
    uint64_t tot = 0;
    int fails = st->failures, allfails = 0, maxhooks = 0;
    MPI_Allreduce(&sum, &tot, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&fails, &allfails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&st->hooks, &maxhooks, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("checksum %016llx on %d processes, hooks %d, failures %d\n", (unsigned long long)tot, size, maxhooks,
               allfails);
    free_world_state(st);
    MPI_Finalize();
    return 0;
}
