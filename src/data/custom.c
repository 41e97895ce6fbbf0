/* custom.c -- custom data (EMPI_Register_custom): structures Ductile cannot
 * describe (linked lists, particles) move through the program's callbacks at
 * the control point.  Every process with an old rank asks size() and pack()
 * for each new rank in order; the packed bytes move in one MPI_Alltoallv over
 * the transfer communicator and are kept aside.  A size or pack error on any
 * process fails the transfer on all of them (agreed before the exchange).
 * Only when every item moved on every process and all agreed does every
 * process with a new rank take a snapshot of its data (size/pack(user, 0, 1):
 * "all of it, for a world of one") and get one unpack() per old rank, in
 * old-rank order (empty ones included: custom_stage), before the commit and
 * a second agreement; if an unpack fails anywhere, every process that
 * unpacked restores the snapshot (unpack(user, 0, 1): custom_unstage) and
 * the resize is rolled back.  A rollback before that (custom_abort) drops
 * the bytes and calls nothing, so the program's data stays as it was --
 * provided its size() and pack() only read it (docs/data.md).
 *
 * Custom data registered constant (EMPI_Set_flags) moves in the background
 * under DUCTILE_REDIST_CONSTANT=nb|wd|thread (custom_bg_start): the size
 * and pack callbacks and the counts' exchange run at the resize's start (the
 * decision), the packed bytes move in the background (src/malleable/
 * transfer.c), and the snapshot and unpacks run at the switch (custom_stage
 * in txn_agree_commit), as after a blocking move. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "custom.h"
#include "../common/txnfault.h"
#include "data.h"
#include "../core/state.h"

#include "../common/leftmpi.h"

int custom_register(const char *id, EMPI_Custom_size_fn size, EMPI_Custom_pack_fn pack, EMPI_Custom_unpack_fn unpack,
                    void *user, char *err, size_t errlen)
{
    if (!size || !pack || !unpack) {
        snprintf(err, errlen, "'%s': the size, pack and unpack callbacks are all needed", id ? id : "");
        return -1;
    }
    struct custom_state *s = malloc(sizeof *s);
    if (!s) { snprintf(err, errlen, "out of memory"); return -1; }
    s->size = size;
    s->pack = pack;
    s->unpack = unpack;
    s->user = user;
    memset(&s->next, 0, sizeof s->next);
    memset(&s->bg, 0, sizeof s->bg);
    if (reg_add(id, user, MPI_BYTE, REG_CUSTOM, 0, 0, 0, 0, err, errlen) != 0) {
        free(s);
        return -1;
    }
    struct reg_item *it = reg_find(id);
    it->ext = s;
    it->owned = 0;
    return 0;
}

/* What a move packs and exchanges: counts and displacements (sc, sd, rc, rd: n each), per old rank the
 * start and length of its bytes, the buffers. */
struct cu_xfer {
    int64_t *a, *ol;
    char *sb, *rb;
};

static void cu_xfer_free(struct cu_xfer *x)
{
    free(x->a);
    free(x->ol);
    free(x->sb);
    free(x->rb);
    memset(x, 0, sizeof *x);
}

/* The first half of a move (collective over L->comm): the checkpoint, the program's size callbacks, the
 * counts' MPI_Alltoall, the buffers, the program's pack callbacks.  MOVE_STOPPED (nothing allocated),
 * else MOVE_OK with *ok 0 when this process cannot go on (a message in err). */
static int prepare(struct reg_item *it, const struct redist_layout *L, int *ok, struct cu_xfer *x, char *err,
                   size_t errlen)
{
    struct custom_state *s = it->ext;
    int n = L->comm_size, bad = 0;
    memset(x, 0, sizeof *x);
    x->a = *ok ? txn_calloc(4 * (size_t)n, sizeof *x->a) : NULL;
    x->ol = *ok ? txn_malloc(2 * (size_t)(L->ns ? L->ns : 1) * sizeof *x->ol) : NULL; /* per old rank: start, bytes */
    if (*ok && (!x->a || !x->ol)) { snprintf(err, errlen, "'%s': out of memory", it->d.name); *ok = 0; }
    if (!txn_all_ok(L->comm, *ok)) { /* the checkpoint */
        cu_xfer_free(x);
        return MOVE_STOPPED;
    }
    int64_t *sc = x->a, *sd = x->a + n, *rcn = x->a + 2 * n, *rd = x->a + 3 * n, stot = 0, rtot = 0;
    if (L->my_old >= 0)
        for (int k = 0; k < L->nd; k++) {
            int64_t b = s->size(s->user, k, L->nd);
            if (b < 0) { bad = 1; b = 0; }
            if (L->new_to_comm[k] >= 0) sc[L->new_to_comm[k]] = b;
        }
    if (bad) memset(sc, 0, (size_t)n * sizeof *sc); /* take part in the exchanges with nothing */
    if (txn_mpi(PMPI_Alltoall(sc, 1, MPI_INT64_T, rcn, 1, MPI_INT64_T, L->comm)) != MPI_SUCCESS) {
        snprintf(err, errlen, "'%s': MPI_Alltoall of the sizes failed", it->d.name);
        *ok = 0;
    }
    for (int k = 0; k < L->nd; k++) {
        int c = L->new_to_comm[k];
        if (c < 0) continue;
        sd[c] = stot;
        stot += sc[c];
    }
    for (int r = 0; r < L->ns; r++) {
        int c = L->old_to_comm[r];
        if (c < 0) continue;
        rd[c] = rtot;
        rtot += rcn[c];
    }
    if (*ok && !bad) {
        x->sb = txn_malloc(stot ? (size_t)stot : 1);
        x->rb = txn_malloc(rtot ? (size_t)rtot : 1);
        if (!x->sb || !x->rb) { snprintf(err, errlen, "'%s': out of memory", it->d.name); *ok = 0; }
    }
    if (*ok && !bad && L->my_old >= 0)
        for (int k = 0; k < L->nd; k++) {
            int c = L->new_to_comm[k];
            if (c < 0) continue;
            if (s->pack(s->user, k, L->nd, x->sb + sd[c], sc[c]) != 0) bad = 1;
        }
    if (*ok && bad) snprintf(err, errlen, "'%s': a size or pack callback failed", it->d.name);
    if (bad) *ok = 0;
    /* per old rank, where its bytes land (the staging of custom_move and custom_bg_start) */
    for (int r = 0; r < L->ns; r++) {
        int c = L->old_to_comm[r];
        x->ol[r] = c < 0 ? 0 : rd[c];
        x->ol[L->ns + r] = c < 0 ? -1 : rcn[c];
    }
    return MOVE_OK;
}

/* The received bytes (filled now, or at the switch) become the item's staged state. */
static void stage(struct custom_state *s, const struct redist_layout *L, struct cu_xfer *x)
{
    s->next.buf = x->rb;
    s->next.off = x->ol;
    s->next.len = x->ol + L->ns;
    s->next.ns = L->ns;
    s->next.set = 1;
    x->rb = NULL;
    x->ol = NULL;
}

int custom_move(struct reg_item *it, const struct redist_layout *L, int ok, uint64_t *moved, char *err,
                size_t errlen)
{
    struct custom_state *s = it->ext;
    int n = L->comm_size, me = -1;
    PMPI_Comm_rank(L->comm, &me);
    custom_abort(it); /* nothing should be staged; if it were, it is not this resize's */
    struct cu_xfer x;
    if (prepare(it, L, &ok, &x, err, errlen) == MOVE_STOPPED) return MOVE_STOPPED;
    int64_t *sc = x.a;
    /* the exchange's agreement: a failed callback or allocation anywhere stops every process before anything moves */
    int e = data_alltoallv_bytes(x.sb, sc, sc ? sc + n : NULL, x.rb, sc ? sc + 2 * n : NULL, sc ? sc + 3 * n : NULL,
                                 ok, L->comm, err, errlen);
    if (e == MOVE_OK) {
        if (L->my_new >= 0) stage(s, L, &x); /* unpacked at the commit (custom_stage / custom_commit) */
        for (int c = 0; c < n; c++)
            if (c != me) *moved += (uint64_t)sc[c];
    }
    cu_xfer_free(&x);
    return e;
}

int custom_bg_start(struct reg_item *it, const struct redist_layout *L, int ok, struct bytes_xfer *xf, int *nxf,
                    char *err, size_t errlen)
{
    struct custom_state *s = it->ext;
    int n = L->comm_size;
    custom_abort(it); /* nothing should be staged; if it were, it is not this resize's */
    *nxf = 0;
    struct cu_xfer x;
    if (prepare(it, L, &ok, &x, err, errlen) == MOVE_STOPPED) return MOVE_STOPPED;
    *nxf = 1; /* one exchange on every process (on one that failed, its agreement stops all) */
    if (!ok) {
        cu_xfer_free(&x);
        return MOVE_FAILED;
    }
    int64_t *a = x.a;
    xf[0] = (struct bytes_xfer){x.sb, x.rb, a, a + n, a + 2 * n, a + 3 * n};
    /* the bytes arrive in the background; unpacked at the switch (custom_stage), as after a blocking move */
    s->bg.set = 1;
    s->bg.sb = x.sb;
    s->bg.rb = x.rb;
    s->bg.a = a;
    x.sb = NULL;
    x.a = NULL;
    if (L->my_new >= 0) stage(s, L, &x);
    else x.rb = NULL; /* (kept in s->bg) */
    cu_xfer_free(&x);
    return MOVE_OK;
}

void custom_bg_forget(struct reg_item *it)
{
    struct custom_state *s = it->ext;
    if (!s || !s->bg.set) return;
    left_to_mpi(s->bg.sb); /* left to the MPI on purpose: not a leak to report */
    left_to_mpi(s->bg.rb);
    left_to_mpi(s->bg.a);
    if (s->next.buf == s->bg.rb) s->next.buf = NULL; /* never freed */
    memset(&s->bg, 0, sizeof s->bg);
    custom_abort(it); /* the rest (offsets, a snapshot) is this process's own */
}

/* The unpacks, old rank by old rank; 0, or -1 with why at the first that fails. */
static int unpack_all(struct reg_item *it, char *why, size_t len)
{
    struct custom_state *s = it->ext;
    s->next.unpacked = 1;
    for (int r = 0; r < s->next.ns; r++) {
        if (s->next.len[r] < 0) continue;
        if (s->unpack(s->user, r, s->next.ns, s->next.buf + s->next.off[r], s->next.len[r]) != 0) {
            snprintf(why, len, "rank %d: '%s': the unpack callback failed for old rank %d of %d", ductile_rt.rank,
                     it->d.name, r, s->next.ns);
            return -1;
        }
    }
    return 0;
}

int custom_stage(struct reg_item *it, char *why, size_t len)
{
    struct custom_state *s = it->ext;
    if (!s || !s->next.set || s->next.unpacked) return 0;
    /* the snapshot that custom_unstage restores if the resize is rolled back after the unpacks
     * (every process that unpacks; a new one's is its data before the first resize: usually none) */
    int64_t b = s->size(s->user, 0, 1);
    s->next.snap = b >= 0 ? malloc(b ? (size_t)b : 1) : NULL;
    if (!s->next.snap || s->pack(s->user, 0, 1, s->next.snap, b) != 0) {
        snprintf(why, len, "rank %d: '%s': %s before the unpacks", ductile_rt.rank, it->d.name,
                 b < 0 ? "the size callback failed for the snapshot of its data"
                 : s->next.snap ? "the pack callback failed for the snapshot of its data"
                                : "out of memory for the snapshot of its data");
        free(s->next.snap);
        s->next.snap = NULL;
        return -1;
    }
    s->next.snap_len = b;
    return unpack_all(it, why, len);
}

void custom_unstage(struct reg_item *it)
{
    struct custom_state *s = it->ext;
    if (!s || !s->next.set || !s->next.unpacked || !s->next.snap) return;
    /* unpack of a world of one: r = 0 drops what the unpacks left, then the snapshot comes back */
    if (s->unpack(s->user, 0, 1, s->next.snap, s->next.snap_len) != 0)
        fprintf(stderr, "ductile: error: rank %d: '%s': the resize was rolled back after its unpack callbacks ran, "
                        "and the unpack of this process's snapshot (old rank 0 of 1) failed: what the callbacks left "
                        "is the program's\n", ductile_rt.rank, it->d.name);
    s->next.unpacked = 0;
}

void custom_commit(struct reg_item *it)
{
    struct custom_state *s = it->ext;
    if (!s) return;
    char why[256];
    /* staged and agreed already (txn_agree_commit); else, the unpacks now, past the point of return */
    if (s->next.set && !s->next.unpacked && unpack_all(it, why, sizeof why) != 0)
        fprintf(stderr, "ductile: error: %s at the commit of a resize; the remaining old ranks are not unpacked on "
                        "this process\n", why);
    custom_abort(it); /* frees the bytes and the snapshot */
}

void custom_abort(struct reg_item *it)
{
    struct custom_state *s = it->ext;
    if (!s) return;
    if (s->bg.set) { /* a move in the background: its buffers (the received one may be the staged one) */
        if (s->next.buf == s->bg.rb) s->next.buf = NULL;
        free(s->bg.sb);
        free(s->bg.rb);
        free(s->bg.a);
        memset(&s->bg, 0, sizeof s->bg);
    }
    if (!s->next.set) return;
    free(s->next.buf);
    free(s->next.off);
    free(s->next.snap);
    memset(&s->next, 0, sizeof s->next);
}

void custom_free(struct reg_item *it)
{
    custom_abort(it);
    free(it->ext);
}
