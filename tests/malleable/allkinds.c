/* allkinds.c -- every kind of registered data in one malleable program, for
 * the transaction tests (tests/malleable/datatxn.sh, inject.sh): a
 * distributed array "v" (rows updated every iteration), a constant
 * distributed array "c" (EMPI_CONSTANT: it may move in the background; its
 * rows are checked against their formula), a replicated vector "r" and a
 * scalar "s", then the four general data kinds: an N-D block "u" (2-D heat
 * stencil, halo exchange on the Cartesian communicator Ductile gives), a CSR
 * matrix "A" (EMPI_Register_csr balanced by non-zeros, its values updated
 * element by element), a particle list "parts" (custom callbacks, particles
 * migrating between slabs) and a patch set "grid" (balanced, auto scheme,
 * repartitioned once, updated element by element), registered in that order.
 * Every computation is independent of the process count, so the final hashes
 * equal a static run's whatever the resizes.
 *
 * Before every control point each process takes a snapshot of every kind:
 * the EMPI_Block (grid, communicator, address), the local array with its
 * halos, the CSR arrays' addresses, range and bytes, the list's nodes and
 * particles, the addresses and bytes of "v", "c", "r" and "s", the patch
 * array, every patch's box, address and bytes, and the
 * patch statistics.  When the control point did not change the size (no
 * resize, or one that was rolled back), everything must be exactly the
 * snapshot, byte for byte ("FAIL: ... changed" otherwise); the program then
 * goes on with the same handles (b.comm included).  ALLKINDS_PACK_FAIL=1:
 * the custom pack callback of the last old rank fails (a failure after "u"
 * and "A" moved, before "grid").  ALLKINDS_SLEEP_MS=MS: each iteration sleeps
 * MS milliseconds (a background transfer then has time to complete).
 * ALLKINDS_UNPACK_FAIL=1: old rank 0's unpack
 * callback fails for the last old rank (every item moved and agreed, some
 * processes unpacked everything, rank 0 half): every process that unpacked
 * gets its snapshot back through the callbacks (docs/data.md), so the list
 * holds the same particles in new nodes -- compared as a set then.
 * ALLKINDS_CP=1: ductile_control_point
 * (<ductile.h>) instead of EMPI_Monitor_end.  After every control point the
 * program reads EMPI_Get_iteration (so DUCTILE_PERSISTENT=1 lets removed
 * processes stand by); a process that comes back from standby skips the
 * comparison with its snapshot (its data moved) and goes on at the others'
 * iteration.
 *
 * usage: allkinds ITERS   (prints "hashes v H c H r H s N u H A H parts N H grid H on P processes") */
#include <mpi.h>
#include <empi.h>
#include <ductile.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { GX = 24, GY = 29, NROWS = 150, NPART = 400, PX = 20, PY = 26, NV = 37, NC = 29, NR = 16 };
static int rank_, size_;

/* ---- "v" (NV rows of 3), "c" (NC rows of 2, constant), "r" (NR, replicated), "s" (scalar) */
static double c_val(int64_t g, int k) { return (double)((g * 13 + k * 7) % 31) / 4.0; }
struct rowkinds {
    double *v, *c, *r;
    int64_t *s;
    int vd, vn, cd, cn;
};
static void rows_get(struct rowkinds *w)
{
    w->v = EMPI_Get_addr("v");
    w->c = EMPI_Get_addr("c");
    w->r = EMPI_Get_addr("r");
    w->s = EMPI_Get_addr("s");
    EMPI_Get_wsize(rank_, size_, NV, &w->vd, &w->vn, NULL, NULL);
    EMPI_Get_wsize(rank_, size_, NC, &w->cd, &w->cn, NULL, NULL);
}
/* the constant rows hold their formula (a wrong or unfilled block shows here) */
static int c_bad(const struct rowkinds *w, int it)
{
    for (int i = 0; i < w->cn; i++)
        for (int k = 0; k < 2; k++)
            if (w->c[i * 2 + k] != c_val(w->cd + i, k)) {
                printf("FAIL: rank %d of %d: 'c' row %d differs at iteration %d\n", rank_, size_, w->cd + i, it);
                return 1;
            }
    return 0;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ULL;
    return h;
}

/* ---- "u": halo exchange (dimension by dimension, full extents) and a 5-point stencil */
static size_t lidx(const EMPI_Block *b, int i, int j) { return (size_t)i * b->lsizes[1] + j; }

static void exchange(const EMPI_Block *b, double *u)
{
    for (int d = 0; d < 2; d++) {
        int lo, hi, sub[2], st[2], ls[2] = {b->lsizes[0], b->lsizes[1]};
        MPI_Cart_shift(b->comm, d, 1, &lo, &hi);
        for (int dir = 0; dir < 2; dir++) {
            MPI_Datatype s, r;
            sub[0] = ls[0]; sub[1] = ls[1]; st[0] = st[1] = 0;
            sub[d] = b->halo[d];
            st[d] = dir ? b->subsizes[d] : b->halo[d];
            MPI_Type_create_subarray(2, ls, sub, st, MPI_ORDER_C, MPI_DOUBLE, &s);
            st[d] = dir ? 0 : b->halo[d] + b->subsizes[d];
            MPI_Type_create_subarray(2, ls, sub, st, MPI_ORDER_C, MPI_DOUBLE, &r);
            MPI_Type_commit(&s);
            MPI_Type_commit(&r);
            MPI_Sendrecv(u, 1, s, dir ? hi : lo, 20 + d, u, 1, r, dir ? lo : hi, 20 + d, b->comm, MPI_STATUS_IGNORE);
            MPI_Type_free(&s);
            MPI_Type_free(&r);
        }
    }
}

static void stencil(const EMPI_Block *b)
{
    double *u = b->addr;
    size_t len = (size_t)b->lsizes[0] * b->lsizes[1];
    double *v = malloc(len * sizeof *v);
    memcpy(v, u, len * sizeof *v);
    for (int i = 1; i <= b->subsizes[0]; i++)
        for (int j = 1; j <= b->subsizes[1]; j++) {
            double c = u[lidx(b, i, j)];
            v[lidx(b, i, j)] = c + 0.1 * (u[lidx(b, i - 1, j)] + u[lidx(b, i + 1, j)] + u[lidx(b, i, j - 1)] +
                                          u[lidx(b, i, j + 1)] - 4.0 * c);
        }
    memcpy(u, v, len * sizeof *v);
    free(v);
    exchange(b, u);
}

/* ---- "A": row i has 1 + i % 5 entries (columns (i + 3k) % NROWS) */
static int row_len(int i) { return 1 + i % 5; }

/* ---- "parts": particles on [0, 1) in P slabs, moved by callbacks at a resize (as tests/malleable/particles.c) */
struct particle { int64_t id; double x, v; };
struct node { struct particle p; struct node *next; };
struct list { struct node *head; int64_t n; };

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
    while (l->head) { struct node *nx = l->head->next; free(l->head); l->head = nx; }
    l->n = 0;
}
static int64_t cb_size(void *user, int k, int nsize)
{
    int64_t c = 0;
    for (struct node *nd = ((struct list *)user)->head; nd; nd = nd->next) c += owner(nd->p.x, nsize) == k;
    return c * (int64_t)sizeof(struct particle);
}
static int cb_pack(void *user, int k, int nsize, void *buf, int64_t bytes)
{
    if (getenv("ALLKINDS_PACK_FAIL") && rank_ == size_ - 1) return -1; /* the test's failure */
    struct particle *out = buf;
    int64_t c = 0;
    for (struct node *nd = ((struct list *)user)->head; nd; nd = nd->next)
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
    if (getenv("ALLKINDS_UNPACK_FAIL") && rank_ == 0 && r > 0 && r == osize - 1) return -1; /* the test's failure */
    if (r == 0) clear(l); /* everything I had was packed already */
    const struct particle *in = buf;
    for (int64_t i = 0; i < bytes / (int64_t)sizeof *in; i++) push(l, &in[i]);
    return 0;
}
static void migrate(struct list *l)
{
    size_t n = size_ > 0 ? (size_t)size_ : 1;
    int *a = calloc(4 * n, sizeof *a), *sc = a, *rc = a + size_, *sd = a + 2 * size_, *rd = a + 3 * size_;
    for (struct node *nd = l->head; nd; nd = nd->next) sc[owner(nd->p.x, size_)]++;
    sc[rank_] = 0;
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, EMPI_COMM_WORLD);
    int st = 0, rt = 0;
    for (int k = 0; k < size_; k++) { sd[k] = st; st += sc[k]; rd[k] = rt; rt += rc[k]; }
    struct particle *sb = malloc((size_t)(st + 1) * sizeof *sb), *rb = malloc((size_t)(rt + 1) * sizeof *rb);
    int *fill = calloc(n, sizeof *fill);
    struct list keep = {NULL, 0};
    for (struct node *nd = l->head; nd; nd = nd->next) {
        int k = owner(nd->p.x, size_);
        if (k == rank_) push(&keep, &nd->p);
        else sb[sd[k] + fill[k]++] = nd->p;
    }
    clear(l);
    *l = keep;
    int B = (int)sizeof(struct particle);
    for (int k = 0; k < size_; k++) { sc[k] *= B; sd[k] *= B; rc[k] *= B; rd[k] *= B; }
    MPI_Alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, EMPI_COMM_WORLD);
    for (int i = 0; i < rt; i++) push(l, &rb[i]);
    free(sb); free(rb); free(fill); free(a);
}

/* ---- the snapshot of every kind, and its comparison */
struct snap {
    struct rowkinds w;
    char *rowbytes; /* v, c, r, s */
    EMPI_Block b;
    char *u;
    int64_t *rp, *ci, row0, rows, nnz;
    void *va;
    char *csr;
    int64_t n;
    struct node **nodes;
    struct particle *parts;
    int np;
    EMPI_Patch *pa, *pcopy;
    char **pdata;
    EMPI_Patch_stats st;
};

static size_t patch_bytes(const EMPI_Patch *p) { return (size_t)p->size[0] * p->size[1] * sizeof(double); }

static size_t rows_bytes(const struct rowkinds *w) { return ((size_t)w->vn * 3 + (size_t)w->cn * 2 + NR) * 8 + 8; }
static void rows_copy(const struct rowkinds *w, char *o)
{
    memcpy(o, w->v, (size_t)w->vn * 24);
    o += (size_t)w->vn * 24;
    memcpy(o, w->c, (size_t)w->cn * 16);
    o += (size_t)w->cn * 16;
    memcpy(o, w->r, NR * 8);
    memcpy(o + NR * 8, w->s, 8);
}

static void take(struct snap *s, const struct list *l)
{
    memset(s, 0, sizeof *s);
    rows_get(&s->w);
    s->rowbytes = malloc(rows_bytes(&s->w));
    rows_copy(&s->w, s->rowbytes);
    EMPI_Get_block("u", &s->b);
    size_t ub = (size_t)s->b.lsizes[0] * s->b.lsizes[1] * sizeof(double);
    s->u = malloc(ub + 1);
    memcpy(s->u, s->b.addr, ub);
    EMPI_Get_csr("A", &s->rp, &s->ci, &s->va, &s->row0, &s->rows, &s->nnz);
    size_t cb = (size_t)(s->rows + 1 + 2 * s->nnz) * 8;
    s->csr = malloc(cb + 1);
    memcpy(s->csr, s->rp, (size_t)(s->rows + 1) * 8);
    memcpy(s->csr + (s->rows + 1) * 8, s->ci, (size_t)s->nnz * 8);
    memcpy(s->csr + (s->rows + 1 + s->nnz) * 8, s->va, (size_t)s->nnz * 8);
    s->n = l->n;
    s->nodes = malloc((size_t)(l->n + 1) * sizeof *s->nodes);
    s->parts = malloc((size_t)(l->n + 1) * sizeof *s->parts);
    int64_t k = 0;
    for (struct node *nd = l->head; nd; nd = nd->next, k++) { s->nodes[k] = nd; s->parts[k] = nd->p; }
    EMPI_Get_patches("grid", &s->np, &s->pa);
    s->pcopy = malloc((size_t)(s->np + 1) * sizeof *s->pcopy);
    s->pdata = malloc((size_t)(s->np + 1) * sizeof *s->pdata);
    for (int i = 0; i < s->np; i++) {
        s->pcopy[i] = s->pa[i];
        s->pdata[i] = malloc(patch_bytes(&s->pa[i]) + 1);
        memcpy(s->pdata[i], s->pa[i].addr, patch_bytes(&s->pa[i]));
    }
    EMPI_Get_patch_stats("grid", &s->st);
}

static void drop(struct snap *s)
{
    for (int i = 0; i < s->np; i++) free(s->pdata[i]);
    free(s->rowbytes); free(s->u); free(s->csr); free(s->nodes); free(s->parts); free(s->pcopy); free(s->pdata);
}

static int cmp_id(const void *a, const void *b);

/* the same particles, in any order (ALLKINDS_UNPACK_FAIL: restored through the callbacks) */
static int same_particles(const struct snap *a, const struct snap *b)
{
    size_t n = (size_t)a->n, sz = sizeof *a->parts;
    struct particle *x = malloc((n + 1) * sz), *y = malloc((n + 1) * sz);
    memcpy(x, a->parts, n * sz);
    memcpy(y, b->parts, n * sz);
    qsort(x, n, sz, cmp_id);
    qsort(y, n, sz, cmp_id);
    int same = memcmp(x, y, n * sz) == 0;
    free(x);
    free(y);
    return same;
}

/* 0 when everything is exactly as in the snapshot a */
static int compare(const struct snap *a, const struct list *l, int it)
{
    struct snap b;
    take(&b, l);
    const char *what = NULL;
    if (memcmp(&a->w, &b.w, sizeof a->w) || memcmp(a->rowbytes, b.rowbytes, rows_bytes(&a->w)))
        what = "the rows of 'v', 'c', 'r' or 's' (addresses or bytes)";
    else if (memcmp(&a->b, &b.b, sizeof a->b) || memcmp(a->u, b.u, (size_t)a->b.lsizes[0] * a->b.lsizes[1] * 8))
        what = "the N-D block 'u' (grid, communicator, array or halos)";
    else if (a->rp != b.rp || a->ci != b.ci || a->va != b.va || a->row0 != b.row0 || a->rows != b.rows ||
             a->nnz != b.nnz || memcmp(a->csr, b.csr, (size_t)(a->rows + 1 + 2 * a->nnz) * 8))
        what = "the CSR matrix 'A' (arrays, row range or bytes)";
    else if (a->n != b.n ||
             (getenv("ALLKINDS_UNPACK_FAIL") ? !same_particles(a, &b)
                                             : memcmp(a->nodes, b.nodes, (size_t)a->n * sizeof *a->nodes) ||
                                                   memcmp(a->parts, b.parts, (size_t)a->n * sizeof *a->parts)))
        what = "the custom list 'parts' (nodes or particles)";
    else if (a->np != b.np || a->pa != b.pa || memcmp(a->pcopy, b.pcopy, (size_t)a->np * sizeof *a->pcopy) ||
             memcmp(&a->st, &b.st, sizeof a->st))
        what = "the patch set 'grid' (patches, boxes, addresses or statistics)";
    for (int i = 0; !what && i < a->np; i++)
        if (memcmp(a->pdata[i], b.pa[i].addr, patch_bytes(&a->pa[i]))) what = "the patch set 'grid' (a patch's bytes)";
    drop(&b);
    if (what) printf("FAIL: rank %d of %d: %s changed at the control point of iteration %d, size unchanged\n", rank_,
                     size_, what, it);
    return what != NULL;
}

/* rank 0: a hash of a 2-D GX x GY (or PX x PY) array assembled from every process's boxes
 * (n boxes: lo0 lo1 s0 s1, then the elements) */
static uint64_t boxes_hash(const double *mine, int len, int gx, int gy)
{
    int *cnt = calloc((size_t)size_, sizeof *cnt), *dsp = calloc((size_t)size_, sizeof *dsp), tot = 0;
    MPI_Gather(&len, 1, MPI_INT, cnt, 1, MPI_INT, 0, EMPI_COMM_WORLD);
    for (int r = 0; r < size_; r++) { dsp[r] = tot; tot += cnt[r]; }
    double *all = malloc((size_t)(tot + 1) * sizeof *all), *g = calloc((size_t)gx * gy, sizeof *g);
    MPI_Gatherv(mine, len, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE, 0, EMPI_COMM_WORLD);
    uint64_t h = 1469598103934665603ULL;
    for (int p = 0; rank_ == 0 && p < tot;) {
        int lo0 = (int)all[p], lo1 = (int)all[p + 1], s0 = (int)all[p + 2], s1 = (int)all[p + 3];
        p += 4;
        for (int i = 0; i < s0; i++)
            for (int j = 0; j < s1; j++) g[(size_t)(lo0 + i) * gy + lo1 + j] = all[p++];
    }
    if (rank_ == 0) h = fnv(h, g, (size_t)gx * gy * sizeof *g);
    free(cnt); free(dsp); free(all); free(g);
    return h;
}

/* rank 0: a hash of every process's bytes in rank order */
static uint64_t concat_hash(const void *mine, int bytes)
{
    int *cnt = calloc((size_t)size_, sizeof *cnt), *dsp = calloc((size_t)size_, sizeof *dsp), tot = 0;
    MPI_Gather(&bytes, 1, MPI_INT, cnt, 1, MPI_INT, 0, EMPI_COMM_WORLD);
    for (int r = 0; r < size_; r++) { dsp[r] = tot; tot += cnt[r]; }
    char *all = malloc((size_t)tot + 1);
    MPI_Gatherv(mine, bytes, MPI_BYTE, all, cnt, dsp, MPI_BYTE, 0, EMPI_COMM_WORLD);
    uint64_t h = fnv(1469598103934665603ULL, all, (size_t)tot);
    free(cnt); free(dsp); free(all);
    return h;
}

static int cmp_id(const void *a, const void *b)
{
    const struct particle *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int itmax = argc > 1 ? atoi(argv[1]) : 12, type, status = EMPI_ACTIVE, it = 0, bad = 0;
    const char *cpv = getenv("ALLKINDS_CP");
    int use_cp = cpv && *cpv == '1';
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank_);
    MPI_Comm_size(EMPI_COMM_WORLD, &size_);
    EMPI_Get_type(&type);
    int spawned = type == EMPI_SPAWNED;
    const char *ms = getenv("ALLKINDS_SLEEP_MS");
    struct timespec nap = {0, (ms ? atol(ms) % 1000 : 0) * 1000000L};
    /* v, c, r, s: buffers of this process's blocks (a spawned process's too: the new size) */
    struct rowkinds w;
    EMPI_Get_wsize(rank_, size_, NV, &w.vd, &w.vn, NULL, NULL);
    EMPI_Get_wsize(rank_, size_, NC, &w.cd, &w.cn, NULL, NULL);
    double *v0 = malloc((size_t)(w.vn + 1) * 24), *c0 = malloc((size_t)(w.cn + 1) * 16), r0[NR];
    int64_t s0 = 0;
    for (int i = 0; !spawned && i < w.vn; i++)
        for (int k = 0; k < 3; k++) v0[i * 3 + k] = (double)((w.vd + i) * 3 + k) / 8.0;
    for (int i = 0; !spawned && i < w.cn; i++)
        for (int k = 0; k < 2; k++) c0[i * 2 + k] = c_val(w.cd + i, k);
    for (int k = 0; k < NR; k++) r0[k] = spawned ? -1.0 : k;
    if (EMPI_Register_array("v", v0, MPI_DOUBLE, NV, 3, EMPI_DISJOINT, EMPI_VARIABLE) != 0 ||
        EMPI_Register_array("c", c0, MPI_DOUBLE, NC, 2, EMPI_DISJOINT, EMPI_CONSTANT) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    EMPI_Register_vector("r", r0, MPI_DOUBLE, NR, EMPI_SHARED);
    if (EMPI_Register_scalar("s", &s0, MPI_INT64_T, 1) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    /* u */
    int g[2] = {GX, GY}, halo[2] = {1, 1};
    EMPI_Block b;
    if (EMPI_Register_block("u", MPI_DOUBLE, 2, g, halo, &b) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    if (!spawned) {
        double *u = b.addr;
        for (int i = 0; i < b.subsizes[0]; i++)
            for (int j = 0; j < b.subsizes[1]; j++)
                u[lidx(&b, i + 1, j + 1)] = (double)(((b.starts[0] + i) * 31 + (b.starts[1] + j) * 17) % 23) / 7.0;
        exchange(&b, u);
    }
    /* A */
    int64_t *rp = NULL, *ci = NULL;
    double *va = NULL;
    int desp = 0, count = 0;
    if (!spawned) {
        EMPI_Get_wsize(rank_, size_, NROWS, &desp, &count, NULL, NULL);
        int64_t nnz = 0;
        for (int i = desp; i < desp + count; i++) nnz += row_len(i);
        rp = EMPI_malloc((size_t)(count + 1) * sizeof *rp);
        ci = EMPI_malloc((size_t)(nnz + 1) * sizeof *ci);
        va = EMPI_malloc((size_t)(nnz + 1) * sizeof *va);
        int64_t k = 0;
        for (int i = 0; i < count; i++) {
            rp[i] = k;
            for (int e = 0; e < row_len(desp + i); e++, k++) {
                ci[k] = (desp + i + 3 * e) % NROWS;
                va[k] = 1.0 + (double)((desp + i) % 11) / 4.0 + e;
            }
        }
        rp[count] = k;
    }
    if (EMPI_Register_csr("A", rp, ci, va, MPI_DOUBLE, NROWS, desp, count, EMPI_NNZ) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    /* parts */
    struct list l = {NULL, 0};
    if (EMPI_Register_custom("parts", cb_size, cb_pack, cb_unpack, &l) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    if (!spawned)
        for (int64_t i = 0; i < NPART; i++) {
            struct particle p = {i, (double)((i * 7919) % NPART) / NPART, ((double)(i % 13) - 6.0) / 97.0};
            if (owner(p.x, size_) == rank_) push(&l, &p);
        }
    /* grid */
    int pg[2] = {PX, PY}, ps[2] = {6, 7};
    if (EMPI_Register_patches("grid", MPI_DOUBLE, 2, pg, ps, EMPI_PLACE_BALANCED, EMPI_COMM_AUTO) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (spawned) EMPI_Get_shared(&it);
    else {
        EMPI_Block pb;
        EMPI_Get_patch_block("grid", &pb);
        double *a = pb.addr;
        for (int i = 0; i < pb.subsizes[0]; i++)
            for (int j = 0; j < pb.subsizes[1]; j++)
                a[(size_t)i * pb.subsizes[1] + j] = (double)((pb.starts[0] + i) * 100 + pb.starts[1] + j);
        EMPI_Repartition("grid");
    }
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        rows_get(&w);
        for (int i = 0; i < w.vn; i++)
            for (int k = 0; k < 3; k++)
                w.v[i * 3 + k] = w.v[i * 3 + k] * 0.5 + (double)(((w.vd + i) * 3 + k + it) % 5);
        for (int k = 0; k < NR; k++) w.r[k] = w.r[k] * 0.5 + k + it;
        *w.s += it * 3 + 1;
        bad |= c_bad(&w, it);
        EMPI_Get_block("u", &b);
        stencil(&b);
        int64_t row0, rows, nnz;
        EMPI_Get_csr("A", &rp, &ci, (void **)&va, &row0, &rows, &nnz);
        for (int64_t i = 0; i < rows; i++)
            for (int64_t e = rp[i]; e < rp[i + 1]; e++) va[e] = va[e] * 0.5 + (double)((row0 + i) * 7 + ci[e]) * 1e-3;
        for (struct node *nd = l.head; nd; nd = nd->next) {
            double x = nd->p.x + nd->p.v;
            nd->p.x = x - (double)(int64_t)(x + 1.0) + 1.0;
            if (nd->p.x >= 1.0) nd->p.x -= 1.0;
        }
        migrate(&l);
        int np;
        EMPI_Patch *pa;
        EMPI_Get_patches("grid", &np, &pa);
        for (int k = 0; k < np; k++)
            for (int i = 0; i < pa[k].size[0]; i++)
                for (int j = 0; j < pa[k].size[1]; j++) {
                    double *x = (double *)pa[k].addr + (size_t)i * pa[k].size[1] + j;
                    *x = *x * 0.9 + (double)((pa[k].lo[0] + i) * 3 + pa[k].lo[1] + j) / 8.0;
                }
        if (nap.tv_nsec) nanosleep(&nap, NULL);
        struct snap s;
        take(&s, &l);
        int oldsize = size_;
        if (use_cp) {
            ductile_control_point(it);
            MPI_Comm_rank(EMPI_COMM_WORLD, &rank_);
            MPI_Comm_size(EMPI_COMM_WORLD, &size_);
        } else {
            EMPI_Monitor_end(&rank_, &size_, it, itmax, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        }
        EMPI_Get_status(&status);
        int now_it = it;
        EMPI_Get_iteration(&now_it); /* a process back from standby: the others' iteration */
        if (status != EMPI_REMOVED && size_ == oldsize && now_it == it) bad |= compare(&s, &l, it);
        drop(&s);
        if (status == EMPI_REMOVED) break;
        it = now_it;
    }
    if (status != EMPI_REMOVED) {
        /* v: the rows in rank order; c: its formula; r and s: rank 0's, the same everywhere */
        rows_get(&w);
        bad |= c_bad(&w, itmax);
        uint64_t hv = concat_hash(w.v, w.vn * 24), hc = concat_hash(w.c, w.cn * 16);
        double rr[NR];
        int64_t ss = *w.s;
        memcpy(rr, w.r, sizeof rr);
        MPI_Bcast(rr, NR, MPI_DOUBLE, 0, EMPI_COMM_WORLD);
        MPI_Bcast(&ss, 1, MPI_INT64_T, 0, EMPI_COMM_WORLD);
        if (memcmp(rr, w.r, sizeof rr) || ss != *w.s) {
            printf("FAIL: rank %d of %d: the replicated 'r' or the scalar 's' differs from rank 0's\n", rank_, size_);
            bad = 1;
        }
        uint64_t hr = fnv(1469598103934665603ULL, rr, sizeof rr);
        /* u: my interior box */
        EMPI_Get_block("u", &b);
        int ul = 4 + b.subsizes[0] * b.subsizes[1], q = 4;
        double *ub = malloc((size_t)ul * sizeof *ub);
        ub[0] = b.starts[0]; ub[1] = b.starts[1]; ub[2] = b.subsizes[0]; ub[3] = b.subsizes[1];
        for (int i = 0; i < b.subsizes[0]; i++)
            for (int j = 0; j < b.subsizes[1]; j++) ub[q++] = ((double *)b.addr)[lidx(&b, i + 1, j + 1)];
        uint64_t hu = boxes_hash(ub, ul, GX, GY);
        /* A: row lengths, columns and values in row (= rank) order */
        int64_t row0, rows, nnz;
        EMPI_Get_csr("A", &rp, &ci, (void **)&va, &row0, &rows, &nnz);
        int64_t *lens = malloc((size_t)(rows + 1) * sizeof *lens);
        for (int64_t i = 0; i < rows; i++) lens[i] = rp[i + 1] - rp[i];
        uint64_t ha = concat_hash(lens, (int)(rows * 8)) ^ (concat_hash(ci, (int)(nnz * 8)) * 3) ^
                      (concat_hash(va, (int)(nnz * 8)) * 7);
        /* parts: sorted by id */
        struct particle *mine = malloc((size_t)(l.n + 1) * sizeof *mine);
        int k = 0;
        for (struct node *nd = l.head; nd; nd = nd->next) mine[k++] = nd->p;
        int *cnt = calloc((size_t)size_, sizeof *cnt), *dsp = calloc((size_t)size_, sizeof *dsp), nb = k * (int)sizeof *mine, tot = 0;
        MPI_Gather(&nb, 1, MPI_INT, cnt, 1, MPI_INT, 0, EMPI_COMM_WORLD);
        for (int r = 0; r < size_; r++) { dsp[r] = tot; tot += cnt[r]; }
        struct particle *all = malloc((size_t)tot + sizeof *all);
        MPI_Gatherv(mine, nb, MPI_BYTE, all, cnt, dsp, MPI_BYTE, 0, EMPI_COMM_WORLD);
        int m = tot / (int)sizeof *all;
        if (rank_ == 0) qsort(all, (size_t)m, sizeof *all, cmp_id);
        uint64_t hp = fnv(1469598103934665603ULL, all, (size_t)tot);
        /* grid: my patches */
        int np;
        EMPI_Patch *pa;
        EMPI_Get_patches("grid", &np, &pa);
        int gl = 0;
        for (int p = 0; p < np; p++) gl += 4 + pa[p].size[0] * pa[p].size[1];
        double *gb = malloc((size_t)(gl + 1) * sizeof *gb);
        q = 0;
        for (int p = 0; p < np; p++) {
            gb[q++] = pa[p].lo[0]; gb[q++] = pa[p].lo[1]; gb[q++] = pa[p].size[0]; gb[q++] = pa[p].size[1];
            memcpy(gb + q, pa[p].addr, patch_bytes(&pa[p]));
            q += pa[p].size[0] * pa[p].size[1];
        }
        uint64_t hg = boxes_hash(gb, gl, PX, PY);
        int anybad = 0;
        MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, EMPI_COMM_WORLD);
        if (rank_ == 0)
            printf("hashes v %016llx c %016llx r %016llx s %lld u %016llx A %016llx parts %d %016llx grid %016llx on %d "
                   "processes%s\n", (unsigned long long)hv, (unsigned long long)hc, (unsigned long long)hr, (long long)ss,
                   (unsigned long long)hu, (unsigned long long)ha, m, (unsigned long long)hp, (unsigned long long)hg,
                   size_, anybad ? " BAD" : "");
        free(ub); free(lens); free(mine); free(cnt); free(dsp); free(all); free(gb);
    }
    clear(&l);
    MPI_Finalize();
    free(v0); /* the program's first buffers (a resize gives Ductile's, which Ductile frees) */
    free(c0);
    return 0;
}
