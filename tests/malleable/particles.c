/* particles.c -- custom data (EMPI_Register_custom): a linked list of
 * particles on the periodic segment [0, 1), each process owning those in its
 * slab (P equal slabs).  Particles move every iteration and migrate between
 * processes (MPI_Alltoallv); at a resize Ductile calls the program's
 * size/pack/unpack callbacks, which send each particle to the process that
 * owns its slab in the new world.  After every resize each process checks it
 * holds exactly the particles of its slab and that none was lost; at the end
 * rank 0 gathers them, sorts them by id and prints a hash of their bytes:
 * bit-identical to a static run.
 *
 * usage: particles NPART ITERS */
#include <mpi.h>
#include <empi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct particle {
    int64_t id;
    double x, v;
};
struct node {
    struct particle p;
    struct node *next;
};
struct list {
    struct node *head;
    int64_t n;
};

static int owner(double x, int size)
{
    int k = (int)(x * size);
    return k < 0 ? 0 : k >= size ? size - 1 : k;
}

static void push(struct list *l, const struct particle *p)
{
    struct node *nd = malloc(sizeof *nd);
    nd->p = *p;
    nd->next = l->head;
    l->head = nd;
    l->n++;
}

static void clear(struct list *l)
{
    while (l->head) {
        struct node *nx = l->head->next;
        free(l->head);
        l->head = nx;
    }
    l->n = 0;
}

/* ---- the callbacks ---- */
static int64_t cb_size(void *user, int k, int nsize)
{
    struct list *l = user;
    int64_t c = 0;
    for (struct node *nd = l->head; nd; nd = nd->next) c += owner(nd->p.x, nsize) == k;
    return c * (int64_t)sizeof(struct particle);
}

static int cb_pack(void *user, int k, int nsize, void *buf, int64_t bytes)
{
    struct list *l = user;
    struct particle *out = buf;
    int64_t c = 0;
    for (struct node *nd = l->head; nd; nd = nd->next)
        if (owner(nd->p.x, nsize) == k) {
            if ((c + 1) * (int64_t)sizeof *out > bytes) return -1;
            out[c++] = nd->p;
        }
    return c * (int64_t)sizeof *out == bytes ? 0 : -1;
}

static int cb_unpack(void *user, int r, int osize, const void *buf, int64_t bytes)
{
    (void)osize;
    struct list *l = user;
    if (r == 0) clear(l); /* everything I had was packed already */
    const struct particle *in = buf;
    for (int64_t i = 0; i < bytes / (int64_t)sizeof *in; i++) push(l, &in[i]);
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    const struct particle *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Move the particles that left my slab to their owners. */
static void migrate(struct list *l, int rank, int size)
{
    int *sc = calloc((size_t)size, sizeof *sc), *rc = calloc((size_t)size, sizeof *rc);
    int *sd = calloc((size_t)size, sizeof *sd), *rd = calloc((size_t)size, sizeof *rd);
    for (struct node *nd = l->head; nd; nd = nd->next) sc[owner(nd->p.x, size)]++;
    sc[rank] = 0;
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, EMPI_COMM_WORLD);
    int st = 0, rt = 0;
    for (int k = 0; k < size; k++) {
        sd[k] = st; st += sc[k];
        rd[k] = rt; rt += rc[k];
    }
    struct particle *sb = malloc((size_t)(st + 1) * sizeof *sb), *rb = malloc((size_t)(rt + 1) * sizeof *rb);
    int *fill = calloc((size_t)size, sizeof *fill);
    struct list keep = {NULL, 0};
    for (struct node *nd = l->head; nd; nd = nd->next) {
        int k = owner(nd->p.x, size);
        if (k == rank) push(&keep, &nd->p);
        else sb[sd[k] + fill[k]++] = nd->p;
    }
    clear(l);
    *l = keep;
    MPI_Datatype t;
    MPI_Type_contiguous((int)sizeof(struct particle), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    MPI_Alltoallv(sb, sc, sd, t, rb, rc, rd, t, EMPI_COMM_WORLD);
    MPI_Type_free(&t);
    for (int i = 0; i < rt; i++) push(l, &rb[i]);
    free(sb); free(rb); free(sc); free(rc); free(sd); free(rd); free(fill);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int np = argc > 1 ? atoi(argv[1]) : 2000, itmax = argc > 2 ? atoi(argv[2]) : 20;
    int rank, size, type, status = EMPI_ACTIVE, it = 0, bad = 0;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank);
    MPI_Comm_size(EMPI_COMM_WORLD, &size);
    struct list l = {NULL, 0};
    EMPI_Register_custom("particles", cb_size, cb_pack, cb_unpack, &l);
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    else
        for (int64_t i = 0; i < np; i++) {
            struct particle p = {i, (double)((i * 7919) % np) / np, ((double)(i % 13) - 6.0) / 97.0};
            if (owner(p.x, size) == rank) push(&l, &p);
        }
    int check = type == EMPI_SPAWNED;
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        if (check) {
            int64_t mine = l.n, total = 0;
            for (struct node *nd = l.head; nd; nd = nd->next)
                if (owner(nd->p.x, size) != rank) bad = 1;
            MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, EMPI_COMM_WORLD);
            if (bad || total != np) {
                printf("FAIL: rank %d of %d after a resize: %lld particles of %lld in all, %s\n", rank, size,
                       (long long)mine, (long long)total, bad ? "some outside my slab" : "all in my slab");
                bad = 1;
            }
            check = 0;
        }
        for (struct node *nd = l.head; nd; nd = nd->next) {
            double x = nd->p.x + nd->p.v;
            nd->p.x = x - (double)(int64_t)(x + 1.0) + 1.0; /* wrap into [0, 1) */
            if (nd->p.x >= 1.0) nd->p.x -= 1.0;
        }
        migrate(&l, rank, size);
        int oldsize = size;
        EMPI_Monitor_end(&rank, &size, it, itmax, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        if (size != oldsize) check = 1;
    }
    if (status != EMPI_REMOVED) {
        int n = (int)l.n, *cnt = NULL, *dsp = NULL, anybad = 0;
        struct particle *mine = malloc((size_t)(n + 1) * sizeof *mine), *all = NULL;
        int k = 0;
        for (struct node *nd = l.head; nd; nd = nd->next) mine[k++] = nd->p;
        if (rank == 0) {
            cnt = malloc((size_t)size * sizeof *cnt);
            dsp = malloc((size_t)size * sizeof *dsp);
        }
        int nb = n * (int)sizeof *mine;
        MPI_Gather(&nb, 1, MPI_INT, cnt, 1, MPI_INT, 0, EMPI_COMM_WORLD);
        int tot = 0;
        if (rank == 0)
            for (int r = 0; r < size; r++) { dsp[r] = tot; tot += cnt[r]; }
        if (rank == 0) all = malloc((size_t)tot + 1);
        MPI_Gatherv(mine, nb, MPI_BYTE, all, cnt, dsp, MPI_BYTE, 0, EMPI_COMM_WORLD);
        MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, EMPI_COMM_WORLD);
        if (rank == 0) {
            int m = tot / (int)sizeof *all;
            qsort(all, (size_t)m, sizeof *all, cmp_id);
            uint64_t h = 1469598103934665603ULL;
            const unsigned char *c = (const unsigned char *)all;
            for (size_t y = 0; y < (size_t)tot; y++) h = (h ^ c[y]) * 1099511628211ULL;
            printf("particles %d hash %016llx on %d processes%s\n", m, (unsigned long long)h, size,
                   anybad ? " BAD" : "");
        }
        free(all); free(cnt); free(dsp); free(mine);
    }
    clear(&l);
    MPI_Finalize();
    return 0;
}
