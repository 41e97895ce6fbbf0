/* bgdata.c -- constant N-D blocks, patch sets and custom data in the
 * background (issue 26, item 4):
 * a 2-D periodic diffusion stencil whose coefficient field "k" is an N-D
 * block registered constant (EMPI_Set_flags(EMPI_CONSTANT): it moves in the
 * background under DUCTILE_REDIST_CONSTANT=nb|wd|thread) and whose field
 * "u" is a variable N-D block on the same grid (MPI_Dims_create's, both
 * dimensions periodic).  Each iteration reads k's interior and halos through
 * the array it registered (b.addr after every EMPI_Get_block), so a wrong
 * coefficient anywhere changes the result.
 *
 * Checks, at every control point on every process, without communicating:
 * every cell of k (interior and halos, across the periodic boundary too)
 * is bit for bit the coefficient of its global cell; after a control point
 * that kept the size (no resize, one still pending in the background, or
 * one rolled back) k and u are the arrays they were, on the same grid
 * position; after one that changed it, k's halos were filled by Ductile (the
 * program never exchanges k's halos after the start).  BGDATA_STORAGE=1: the
 * arrays are the program's (EMPI_Register_block_storage, rows padded by 3
 * cells holding a sentinel that must never change): exactly 2 live when no
 * transfer is pending, at most 3 while one is (k's new array is allocated at
 * the resize's start).
 *
 * Besides them a constant patch set "p" (EMPI_Register_patches, 2-D, the
 * same grid, patches of 7 x 5, balanced, the cost estimate's scheme) holds
 * v(i, j) = i * (N + 7) + j: repartitioned from its blocks once at the start
 * (EMPI_Repartition), then moved only by the resizes.  At every control point
 * every element of every patch this process holds is checked (and the
 * balanced counts); after one that kept the size the patches are the same
 * arrays (the same list, the same addresses); EMPI_Repartition is refused
 * while a transfer is pending.
 *
 * And constant custom data "r" (EMPI_Register_custom): R = 5 N + 3 records
 * {gid, value}, block-distributed by gid (rank order), in an array the
 * callbacks replace (unpack of old rank 0 frees it).  At every control point
 * the records are exactly this process's block, values bit for bit; while a
 * transfer is pending, the same array.  BGDATA_UNPACK_FAIL=1: rank 0's unpack
 * fails for the last old rank of the first resize (at the switch): rolled
 * back, the records restored from the snapshot.
 *
 * At the end rank 0 prints "hash H on P processes" over the global u, k, p
 * and r (the same whatever the sizes), "BAD" when a check
 * failed anywhere, and "pending at N control points" (how many control points
 * it saw with a background transfer pending).
 * usage: bgdata N ITERS [US]   (grid N x (N+7); US: microseconds each iteration sleeps) */
#include <mpi.h>
#include <empi.h>
#include <ductile.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int G[2], rank_, size_, storage, live;
enum { PAD = 3 };
static const double SENTINEL = -7777.25;
static struct { void *addr; int64_t row; } rows_[2]; /* the program's arrays: their row strides */

static void *alloc_fn(const EMPI_Block *b, int64_t strides[3], void *arg)
{
    (void)arg;
    size_t n = (size_t)b->lsizes[0] * (size_t)(b->lsizes[1] + PAD);
    double *p = malloc((n ? n : 1) * sizeof *p);
    for (size_t x = 0; p && x < n; x++) p[x] = SENTINEL;
    strides[0] = b->lsizes[1] + PAD;
    strides[1] = 1;
    strides[2] = 1;
    if (p) live++;
    return p;
}
static void release_fn(void *addr, void *arg)
{
    (void)arg;
    live--;
    free(addr);
}
static void refresh(const char *id, int f, EMPI_Block *b)
{
    int64_t st[3] = {0, 0, 0};
    EMPI_Get_block(id, b);
    rows_[f].addr = b->addr;
    rows_[f].row = EMPI_Get_block_strides(id, st) == 0 ? st[0] : -1;
}
static int64_t row_of(const EMPI_Block *b)
{
    for (int f = 0; f < 2; f++)
        if (rows_[f].addr == b->addr) return rows_[f].row;
    return -1;
}
static size_t at(const EMPI_Block *b, int i, int j) { return (size_t)i * (size_t)row_of(b) + (size_t)j; }

static double coef(int gi, int gj)
{
    gi = (gi % G[0] + G[0]) % G[0];
    gj = (gj % G[1] + G[1]) % G[1];
    return 1.0 + (double)((gi * 7 + gj * 13) % 19) / 16.0;
}

static void exchange(const EMPI_Block *b, double *u)
{
    for (int d = 0; d < 2; d++) {
        int lo, hi, sub[2], st[2], full[2] = {b->lsizes[0], (int)row_of(b)};
        MPI_Cart_shift(b->comm, d, 1, &lo, &hi);
        for (int dir = 0; dir < 2; dir++) {
            MPI_Datatype s, r;
            sub[0] = b->lsizes[0]; sub[1] = b->lsizes[1]; st[0] = st[1] = 0;
            sub[d] = b->halo[d];
            st[d] = dir ? b->subsizes[d] : b->halo[d];
            MPI_Type_create_subarray(2, full, sub, st, MPI_ORDER_C, MPI_DOUBLE, &s);
            st[d] = dir ? 0 : b->halo[d] + b->subsizes[d];
            MPI_Type_create_subarray(2, full, sub, st, MPI_ORDER_C, MPI_DOUBLE, &r);
            MPI_Type_commit(&s);
            MPI_Type_commit(&r);
            MPI_Sendrecv(u, 1, s, dir ? hi : lo, 30 + d, u, 1, r, dir ? lo : hi, 30 + d, b->comm, MPI_STATUS_IGNORE);
            MPI_Type_free(&s);
            MPI_Type_free(&r);
        }
    }
}

/* k everywhere (halos too) and the padding of both arrays; 1 when something is wrong */
static int check(const EMPI_Block *k, const EMPI_Block *u, const char *when, int it)
{
    const double *pk = k->addr;
    for (int i = 0; i < k->lsizes[0]; i++)
        for (int j = 0; j < k->lsizes[1]; j++) {
            double want = coef(k->starts[0] + i - k->halo[0], k->starts[1] + j - k->halo[1]);
            if (memcmp(&pk[at(k, i, j)], &want, sizeof want)) {
                printf("FAIL: rank %d of %d (%s, iteration %d): k local (%d,%d) = %g, want %g\n", rank_, size_, when,
                       it, i, j, pk[at(k, i, j)], want);
                return 1;
            }
        }
    for (int f = 0; storage && f < 2; f++) {
        const EMPI_Block *x = f ? u : k;
        const double *p = x->addr;
        for (int i = 0; i < x->lsizes[0]; i++)
            for (int64_t j = x->lsizes[1]; j < row_of(x); j++)
                if (p[at(x, i, (int)j)] != SENTINEL) {
                    printf("FAIL: rank %d of %d (%s, iteration %d): padding of '%s' written\n", rank_, size_, when, it,
                           f ? "u" : "k");
                    return 1;
                }
    }
    int pending = ductile_constant_pending();
    if (storage && (pending ? live < 2 || live > 3 : live != 2)) {
        printf("FAIL: rank %d of %d (%s, iteration %d): %d arrays of the program live (a transfer %spending)\n", rank_,
               size_, when, it, live, pending ? "" : "not ");
        return 1;
    }
    return 0;
}

static void step(const EMPI_Block *k, const EMPI_Block *b)
{
    const double *c = k->addr;
    double *u = b->addr;
    size_t len = (size_t)b->lsizes[0] * (size_t)row_of(b);
    double *v = malloc((len ? len : 1) * sizeof *v);
    memcpy(v, u, len * sizeof *v);
    static const int di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
    for (int i = 1; i <= b->subsizes[0]; i++)
        for (int j = 1; j <= b->subsizes[1]; j++) {
            double s = 0, me = u[at(b, i, j)], cm = c[at(k, i, j)];
            for (int q = 0; q < 4; q++)
                s += (cm + c[at(k, i + di[q], j + dj[q])]) * (u[at(b, i + di[q], j + dj[q])] - me);
            v[at(b, i, j)] = me + 0.05 * s;
        }
    memcpy(u, v, len * sizeof *v);
    free(v);
    exchange(b, u);
}

/* The global interior of a field on rank 0 (NULL elsewhere). */
static double *global_of(const EMPI_Block *b)
{
    int hdr[4] = {b->starts[0], b->starts[1], b->subsizes[0], b->subsizes[1]};
    double *pk = malloc(((size_t)hdr[2] * hdr[3] + 1) * sizeof *pk), *all = NULL;
    const double *u = b->addr;
    size_t q = 0;
    for (int i = 0; i < hdr[2]; i++)
        for (int j = 0; j < hdr[3]; j++) pk[q++] = u[at(b, i + b->halo[0], j + b->halo[1])];
    if (rank_) {
        MPI_Send(hdr, 4, MPI_INT, 0, 1, EMPI_COMM_WORLD);
        MPI_Send(pk, hdr[2] * hdr[3], MPI_DOUBLE, 0, 2, EMPI_COMM_WORLD);
        free(pk);
        return NULL;
    }
    all = calloc((size_t)G[0] * G[1], sizeof *all);
    for (int r = 0; r < size_; r++) {
        int h[4];
        double *buf = pk;
        if (!r) memcpy(h, hdr, sizeof h);
        else {
            MPI_Recv(h, 4, MPI_INT, r, 1, EMPI_COMM_WORLD, MPI_STATUS_IGNORE);
            buf = malloc(((size_t)h[2] * h[3] + 1) * sizeof *buf);
            MPI_Recv(buf, h[2] * h[3], MPI_DOUBLE, r, 2, EMPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        size_t p = 0;
        for (int i = 0; i < h[2]; i++)
            for (int j = 0; j < h[3]; j++) all[(size_t)(h[0] + i) * G[1] + h[1] + j] = buf[p++];
        if (buf != pk) free(buf);
    }
    free(pk);
    return all;
}

static double pval(int i, int j) { return (double)i * G[1] + j; }

/* every element of my patches and the balanced counts; 1 when something is wrong */
static int check_patches(const char *when, int it)
{
    int n = 0, bad = 0;
    EMPI_Patch *q = NULL;
    if (EMPI_Get_patches("p", &n, &q) != 0) n = -1;
    for (int x = 0; x < n && !bad; x++) {
        const double *a = q[x].addr;
        for (int i = 0; i < q[x].size[0] && !bad; i++)
            for (int j = 0; j < q[x].size[1] && !bad; j++) {
                double want = pval(q[x].lo[0] + i, q[x].lo[1] + j);
                if (memcmp(&a[(size_t)i * q[x].size[1] + j], &want, sizeof want)) bad = 1;
            }
    }
    int m = (G[0] + 6) / 7 * ((G[1] + 4) / 5);
    if (n < m / size_ || n > m / size_ + 1) bad = 1;
    if (bad) printf("FAIL: rank %d of %d (%s, iteration %d): patches wrong (%d held)\n", rank_, size_, when, it, n);
    return bad;
}

/* The global patch set on rank 0 (NULL elsewhere). */
static double *global_patches(void)
{
    int n = 0;
    EMPI_Patch *q = NULL;
    EMPI_Get_patches("p", &n, &q);
    double *all = rank_ ? NULL : calloc((size_t)G[0] * G[1], sizeof *all);
    for (int r = 0; r < size_; r++) {
        int cnt = rank_ == r ? n : 0;
        if (r && rank_ == r) MPI_Send(&cnt, 1, MPI_INT, 0, 3, EMPI_COMM_WORLD);
        if (r && rank_ == 0) MPI_Recv(&cnt, 1, MPI_INT, r, 3, EMPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank_ != r && rank_ != 0) continue;
        for (int x = 0; x < cnt; x++) {
            int h[4] = {0, 0, 0, 0};
            double *buf = NULL;
            if (rank_ == r) {
                h[0] = q[x].lo[0]; h[1] = q[x].lo[1]; h[2] = q[x].size[0]; h[3] = q[x].size[1];
                buf = q[x].addr;
            }
            if (r) {
                if (rank_ == r) {
                    MPI_Send(h, 4, MPI_INT, 0, 4, EMPI_COMM_WORLD);
                    MPI_Send(buf, h[2] * h[3], MPI_DOUBLE, 0, 5, EMPI_COMM_WORLD);
                    continue;
                }
                MPI_Recv(h, 4, MPI_INT, r, 4, EMPI_COMM_WORLD, MPI_STATUS_IGNORE);
                buf = malloc(((size_t)h[2] * h[3] + 1) * sizeof *buf);
                MPI_Recv(buf, h[2] * h[3], MPI_DOUBLE, r, 5, EMPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            for (int i = 0; i < h[2]; i++)
                for (int j = 0; j < h[3]; j++) all[(size_t)(h[0] + i) * G[1] + h[1] + j] = buf[(size_t)i * h[3] + j];
            if (r) free(buf);
        }
    }
    return all;
}

/* ---- custom data "r": records {gid, value} of R = 5 * N + 3, block-distributed by gid, in a growing array */
struct rec {
    int64_t gid;
    double v;
};
static struct rec *recs;
static int nrecs, nrec_total, unpack_fail, resizes_seen;
static double rval(int64_t gid) { return (double)gid * 0.5 + 1.0; }
static int owner(int64_t gid, int P)
{
    int64_t b = nrec_total / P, rem = nrec_total % P;
    return gid < rem * (b + 1) ? (int)(gid / (b + 1)) : (int)(rem + (gid - rem * (b + 1)) / b);
}
static int64_t r_size(void *user, int nr, int ns)
{
    (void)user;
    int64_t c = 0;
    for (int x = 0; x < nrecs; x++) c += owner(recs[x].gid, ns) == nr;
    return c * (int64_t)sizeof(struct rec);
}
static int r_pack(void *user, int nr, int ns, void *buf, int64_t bytes)
{
    (void)user;
    char *o = buf;
    for (int x = 0; x < nrecs; x++)
        if (owner(recs[x].gid, ns) == nr) {
            memcpy(o, &recs[x], sizeof recs[x]);
            o += sizeof recs[x];
        }
    return o - (char *)buf == bytes ? 0 : -1;
}
static int r_unpack(void *user, int orank, int osize, const void *buf, int64_t bytes)
{
    (void)user;
    if (orank == 0) { /* the first old rank: the old data goes (it is packed already) */
        free(recs);
        recs = NULL;
        nrecs = 0;
        resizes_seen += osize > 1;
    }
    if (unpack_fail && rank_ == 0 && resizes_seen == 1 && osize > 1 && orank == osize - 1) return -1;
    int add = (int)(bytes / (int64_t)sizeof(struct rec));
    struct rec *g = realloc(recs, (size_t)(nrecs + add + 1) * sizeof *g);
    if (!g) return -1;
    recs = g;
    memcpy(recs + nrecs, buf, (size_t)bytes);
    nrecs += add;
    return 0;
}
/* my records: exactly my block's gids in order, each value bit for bit; 1 when something is wrong */
static int check_recs(const char *when, int it)
{
    int64_t b = nrec_total / size_, rem = nrec_total % size_;
    int64_t lo = rank_ * b + (rank_ < rem ? rank_ : rem), cnt = b + (rank_ < rem);
    int bad = nrecs != cnt;
    for (int x = 0; x < nrecs && !bad; x++) {
        double want = rval(lo + x);
        bad = recs[x].gid != lo + x || memcmp(&recs[x].v, &want, sizeof want) != 0;
    }
    if (bad) printf("FAIL: rank %d of %d (%s, iteration %d): custom records wrong (%d held)\n", rank_, size_, when, it,
                    nrecs);
    return bad;
}
/* the record values in gid order on rank 0 (NULL elsewhere) */
static double *global_recs(void)
{
    double *all = rank_ ? NULL : calloc((size_t)nrec_total, sizeof *all);
    for (int r = 0; r < size_; r++) {
        int cnt = nrecs;
        struct rec *buf = recs;
        if (r && rank_ == r) {
            MPI_Send(&cnt, 1, MPI_INT, 0, 6, EMPI_COMM_WORLD);
            MPI_Send(recs, cnt * (int)sizeof *recs, MPI_BYTE, 0, 7, EMPI_COMM_WORLD);
        }
        if (rank_) continue;
        if (r) {
            MPI_Recv(&cnt, 1, MPI_INT, r, 6, EMPI_COMM_WORLD, MPI_STATUS_IGNORE);
            buf = malloc(((size_t)cnt + 1) * sizeof *buf);
            MPI_Recv(buf, cnt * (int)sizeof *buf, MPI_BYTE, r, 7, EMPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        for (int x = 0; x < cnt; x++)
            if (buf[x].gid >= 0 && buf[x].gid < nrec_total) all[buf[x].gid] = buf[x].v;
        if (r) free(buf);
    }
    return all;
}

static int reg(const char *id, int f, EMPI_Block *b)
{
    static const int halo[2] = {1, 1}, periods[2] = {1, 1};
    int rc = storage ? EMPI_Register_block_storage(id, MPI_DOUBLE, 2, G, halo, periods, NULL, NULL, alloc_fn,
                                                   release_fn, NULL, b)
                     : EMPI_Register_block_grid(id, MPI_DOUBLE, 2, G, halo, periods, NULL, NULL, b);
    if (rc == 0) refresh(id, f, b);
    return rc;
}

int main(int argc, char **argv)
{
    int provided = 0; /* DUCTILE_REDIST_CONSTANT=thread needs MPI_THREAD_MULTIPLE */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int n = argc > 1 ? atoi(argv[1]) : 40, itmax = argc > 2 ? atoi(argv[2]) : 100;
    long nap_us = argc > 3 ? atol(argv[3]) : 0;
    int type, status = EMPI_ACTIVE, it = 0, bad = 0, npending = 0;
    G[0] = n;
    G[1] = n + 7;
    storage = getenv("BGDATA_STORAGE") && atoi(getenv("BGDATA_STORAGE"));
    unpack_fail = getenv("BGDATA_UNPACK_FAIL") && atoi(getenv("BGDATA_UNPACK_FAIL"));
    nrec_total = 5 * n + 3;
    MPI_Comm_rank(EMPI_COMM_WORLD, &rank_);
    MPI_Comm_size(EMPI_COMM_WORLD, &size_);
    EMPI_Block k, u;
    static const int psz[2] = {7, 5};
    if (reg("k", 0, &k) || reg("u", 1, &u) ||
        EMPI_Register_patches("p", MPI_DOUBLE, 2, G, psz, EMPI_PLACE_BALANCED, EMPI_COMM_AUTO) != 0 ||
        EMPI_Register_custom("r", r_size, r_pack, r_unpack, NULL) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    EMPI_Get_type(&type);
    if (type != EMPI_SPAWNED) {
        double *pk = k.addr, *pu = u.addr;
        for (int i = 0; i < k.subsizes[0]; i++)
            for (int j = 0; j < k.subsizes[1]; j++) {
                int gi = k.starts[0] + i, gj = k.starts[1] + j;
                pk[at(&k, i + 1, j + 1)] = coef(gi, gj);
                pu[at(&u, i + 1, j + 1)] = (double)((gi * 31 + gj * 17) % 23) / 7.0;
            }
        exchange(&k, pk); /* k's halos: this once; after a resize they are Ductile's */
        exchange(&u, pu);
        EMPI_Block pb;
        if (EMPI_Get_patch_block("p", &pb) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
        double *a = pb.addr;
        for (int i = 0; i < pb.subsizes[0]; i++)
            for (int j = 0; j < pb.subsizes[1]; j++)
                a[(size_t)i * pb.subsizes[1] + j] = pval(pb.starts[0] + i, pb.starts[1] + j);
        if (EMPI_Repartition("p") != 0) MPI_Abort(MPI_COMM_WORLD, 1);
        int64_t b = nrec_total / size_, rem = nrec_total % size_;
        int64_t lo = rank_ * b + (rank_ < rem ? rank_ : rem);
        nrecs = (int)(b + (rank_ < rem));
        recs = malloc(((size_t)nrecs + 1) * sizeof *recs);
        for (int x = 0; x < nrecs; x++) recs[x] = (struct rec){lo + x, rval(lo + x)};
    }
    /* BGDATA_PARTIAL=1: original rank 1 leaves the records variable (a program's mistake): every
     * resize is refused on every process, naming the item, instead of a hang in unmatched collectives */
    int partial = getenv("BGDATA_PARTIAL") && atoi(getenv("BGDATA_PARTIAL")) && type != EMPI_SPAWNED && rank_ == 1;
    if (EMPI_Set_flags("k", EMPI_CONSTANT) != 0 || EMPI_Set_flags("p", EMPI_CONSTANT) != 0 ||
        (!partial && EMPI_Set_flags("r", EMPI_CONSTANT) != 0))
        MPI_Abort(MPI_COMM_WORLD, 1);
    /* BGDATA_EXTRA=1: original rank 1 registers one item more than the others: refused the same way */
    static int extra;
    if (getenv("BGDATA_EXTRA") && atoi(getenv("BGDATA_EXTRA")) && type != EMPI_SPAWNED && rank_ == 1 &&
        EMPI_Register_scalar("extra", &extra, MPI_INT, 1) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (type == EMPI_SPAWNED) {
        EMPI_Get_shared(&it);
        refresh("k", 0, &k);
        refresh("u", 1, &u);
        bad |= check(&k, &u, "spawned", it) | check_patches("spawned", it) | check_recs("spawned", it);
    } else {
        bad |= check(&k, &u, "start", 0) | check_patches("start", 0) | check_recs("start", 0);
    }
    struct timespec nap = {0, nap_us * 1000};
    for (; it < itmax; it++) {
        EMPI_Monitor_init();
        step(&k, &u);
        if (nap_us) nanosleep(&nap, NULL);
        int oldsize = size_;
        EMPI_Block k0 = k, u0 = u;
        int np0 = 0;
        EMPI_Patch *p0 = NULL;
        EMPI_Get_patches("p", &np0, &p0);
        void *a0 = np0 > 0 ? p0[0].addr : NULL;
        struct rec *r0 = recs;
        EMPI_Monitor_end(&rank_, &size_, it, itmax, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
        refresh("k", 0, &k);
        refresh("u", 1, &u);
        if (ductile_constant_pending()) {
            npending++;
            /* a repartition would lose the resize's packed fragments: refused (on every old process alike) */
            if (npending == 1 && EMPI_Repartition("p") != -1) {
                printf("FAIL: rank %d of %d (iteration %d): EMPI_Repartition accepted while pending\n", rank_, size_,
                       it);
                bad = 1;
            }
        }
        if (size_ == oldsize &&
            (k.addr != k0.addr || u.addr != u0.addr || k.starts[0] != k0.starts[0] || k.starts[1] != k0.starts[1] ||
             k.subsizes[0] != k0.subsizes[0] || k.subsizes[1] != k0.subsizes[1] || k.comm != k0.comm)) {
            printf("FAIL: rank %d of %d (iteration %d): the size stayed, the blocks changed\n", rank_, size_, it);
            bad = 1;
        }
        if (size_ != oldsize && (k.comm != u.comm || k.addr == k0.addr)) {
            printf("FAIL: rank %d of %d (iteration %d): resized: k not a new array on u's grid\n", rank_, size_, it);
            bad = 1;
        }
        int np1 = 0;
        EMPI_Patch *p1 = NULL;
        EMPI_Get_patches("p", &np1, &p1);
        if (size_ == oldsize && (np1 != np0 || p1 != p0 || (np1 > 0 && p1[0].addr != a0))) {
            printf("FAIL: rank %d of %d (iteration %d): the size stayed, the patches changed\n", rank_, size_, it);
            bad = 1;
        }
        bad |= check(&k, &u, size_ == oldsize ? "kept" : "resized", it);
        bad |= check_patches(size_ == oldsize ? "kept" : "resized", it);
        bad |= check_recs(size_ == oldsize ? "kept" : "resized", it);
        if (ductile_constant_pending() && recs != r0) { /* (rolled back after its unpacks: restored anew) */
            printf("FAIL: rank %d of %d (iteration %d): pending, the records changed\n", rank_, size_, it);
            bad = 1;
        }
    }
    if (status != EMPI_REMOVED) {
        bad |= check(&k, &u, "end", it) | check_patches("end", it) | check_recs("end", it);
        double *gu = global_of(&u), *gk = global_of(&k), *gp = global_patches(), *gr = global_recs();
        int anybad = 0, maxpending = 0;
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, EMPI_COMM_WORLD);
        MPI_Allreduce(&npending, &maxpending, 1, MPI_INT, MPI_MAX, EMPI_COMM_WORLD);
        if (rank_ == 0) {
            uint64_t h = 1469598103934665603ULL;
            for (size_t x = 0; x < (size_t)G[0] * G[1]; x++)
                for (int f = 0; f < 3; f++) {
                    const unsigned char *p = (const unsigned char *)(f == 2 ? &gp[x] : f ? &gk[x] : &gu[x]);
                    for (size_t y = 0; y < sizeof(double); y++) h = (h ^ p[y]) * 1099511628211ULL;
                }
            for (int x = 0; x < nrec_total; x++) {
                const unsigned char *p = (const unsigned char *)&gr[x];
                for (size_t y = 0; y < sizeof(double); y++) h = (h ^ p[y]) * 1099511628211ULL;
            }
            printf("hash %016llx on %d processes, pending at %d control points%s\n", (unsigned long long)h, size_,
                   maxpending, anybad ? " BAD" : "");
        }
        free(gu);
        free(gk);
        free(gp);
        free(gr);
        if (storage) {
            EMPI_free(NULL, "u"); /* deregistered; the arrays are ours */
            EMPI_free(NULL, "k");
            free(u.addr);
            free(k.addr);
        }
    }
    free(recs);
    MPI_Finalize();
    return 0;
}
