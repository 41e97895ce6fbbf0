/* transfer.c -- moving the registered items of a resize (distributed
 * arrays by the chosen method, replicated items and scalars by broadcast,
 * the general data kinds by theirs) into new blocks kept aside until the
 * commit (transaction.c), and the failure injection of the tests
 * (DUCTILE_TEST_FAIL).
 *
 * One transfer (struct transfer, engine.h) runs in phases: the warm-up, the
 * background start (constant items, XF_BG), one move per item in
 * registration order, the background launch, the times.  A process whose part
 * fails anywhere never skips a collective its peers are in: each item's
 * mover starts with a checkpoint (src/redist/layout.h) in which the process
 * says it failed, and then every process stops together before anything
 * more moves; a failure after a checkpoint is told at the next one, or at
 * the agreement that follows the transfer. */
#include "engine.h"

#include "../redist/bigcoll.h"

/* DUCTILE_TEST_FAIL=STEP (for tests only, docs/malleability.md): make one
 * step of a resize fail on purpose -- "spawn" (rank 0's spawn is refused),
 * "alloc" (the last new process cannot allocate its blocks; in a shrink the
 * last staying process), "register" (the last new process registered an
 * item that differs), "transfer" (the blocking transfer reports an error on
 * the transfer communicator's last process), "bgtransfer" (the background
 * transfer of constant data reports an error on the world's last rank).
 * The counted forms (alloc:K@RANK, mpi:K@RANK) are src/common/txnfault.c's. */
int test_fail(const char *step)
{
    const char *f = getenv("DUCTILE_TEST_FAIL");
    return f && strcmp(f, step) == 0;
}

int test_fail_here(const char *step)
{
    const char *f = getenv("DUCTILE_TEST_FAIL");
    size_t n = strlen(step);
    return f && strncmp(f, step, n) == 0 && f[n] == '@' && atoi(f + n + 1) == ductile_rt.rank;
}

/* 1 for an item that moves in the background when the resize's strategy is
 * nb, wd or thread: a distributed array or an item of a general kind (a
 * sparse matrix, an N-D block, a patch set or custom data: src/data,
 * through the hook table) registered constant.  Replicated items and
 * scalars move blocking at the switch, constant or not (docs/data.md). */
static int moves_in_background(const struct reg_item *it)
{
    int k = it->d.kind;
    return it->d.constant && (k == REG_DISTRIBUTED || REG_KIND_IS_DATA(k));
}

/* 1 when a resize with constant-data strategy nb moves something in the
 * background: some such item is registered. */
int bg_wanted(int nb)
{
    if (nb == CONST_BLOCKING) return 0;
    for (int i = 0; i < reg_count(); i++)
        if (moves_in_background(reg_at(i))) return 1;
    return 0;
}

/* ------------------------------------------------------------------ outcome of a step */

/* This process's part failed (the first reason is kept, naming the process). */
static void fail(struct transfer *x, const char *why)
{
    if (x->ok && why && why[0]) {
        if (strncmp(why, "rank ", 5) == 0) snprintf(x->err, sizeof x->err, "%.220s", why);
        else snprintf(x->err, sizeof x->err, "rank %d%s: %.200s", ductile_rt.rank, M.spawned ? " (new)" : "", why);
    }
    x->ok = 0;
}

/* A mover's outcome (src/redist/layout.h); `why` its message. */
static void note(struct transfer *x, int rc, const char *why)
{
    if (rc == MOVE_FAILED) fail(x, why);
    if (rc == MOVE_STOPPED) {
        fail(x, why); /* the cause's own message (empty on the processes that only stopped) */
        x->stopped = 1;
    }
}

/* A checkpoint of the transfer itself; 0 when every process goes on. */
static int checkpoint(struct transfer *x, MPI_Comm c, int ok_here, const char *why)
{
    if (!ok_here) fail(x, why);
    if (txn_all_ok(c, x->ok)) return 0;
    x->ok = 0;
    x->stopped = 1;
    return -1;
}

/* ------------------------------------------------------------------ phases */

/* DUCTILE_REDIST_PREPARE: one tiny exchange opens the connections between
 * every pair (old and new processes) before the large transfers. */
static void warm_up(struct transfer *x)
{
    const struct redist_layout *L = x->L;
    char *wb = x->ok ? txn_calloc(2 * (size_t)L->comm_size, 1) : NULL;
    if (checkpoint(x, L->comm, !x->ok || wb, "out of memory for the warm-up exchange") == 0 &&
        txn_mpi(PMPI_Alltoall(wb, 1, MPI_BYTE, wb + L->comm_size, 1, MPI_BYTE, L->comm)) != MPI_SUCCESS)
        fail(x, "the warm-up exchange failed");
    free(wb);
}

/* The background start (XF_BG): a duplicate of the transfer communicator,
 * and, for Wait Drains, Threading and every background rma-* transfer, one
 * group (src/rma/xfer.c). */
static void open_background(struct transfer *x)
{
    const struct redist_layout *L = x->L;
    if (checkpoint(x, L->comm, !NB.active, "a background transfer is still pending") != 0) return;
    PMPI_Comm_dup(L->comm, &NB.comm);
    PMPI_Comm_set_errhandler(NB.comm, MPI_ERRORS_RETURN);
    x->LX.comm = NB.comm;
    NB.active = 1;
    NB.failed = 0;
    NB.why[0] = '\0';
    NB.col_instead = 0;
    NB.id = x->id;
    NB.start_it = x->iteration;
    NB.bytes = 0;
    NB.t_start = ductile_now();
    int method = x->method, nb = x->nb;
    int rma = method == REDIST_RMA_LOCK || method == REDIST_RMA_LOCKALL;
    if (!(nb == CONST_WD || nb == CONST_THREAD || rma)) return; /* nb: one MPI_Ialltoallv per item */
    int bm = method == REDIST_RMA_LOCK ? BG_METHOD_RMA_LOCK : method == REDIST_RMA_LOCKALL ? BG_METHOD_RMA_LOCKALL
                                                                                         : BG_METHOD_COL;
    NB.col_instead = rma && RMA_BACKGROUND_UNSAFE;
    if (NB.col_instead) {
        bm = BG_METHOD_COL;
        static int noted;
        if (!noted++ && ductile_rt.rank == 0)
            fprintf(stderr, "ductile: note: with Open MPI 4 (osc/ucx) background one-sided transfers are not "
                            "safe (docs/rma.md); constant data moves by the collective (col%s) in the "
                            "background, the other data by %s\n",
                    const_label[nb], redist_label[method]);
    }
    char why[TXN_WHY_MAX] = "";
    NB.bg = bg_begin(&x->LX, bm, nb == CONST_THREAD ? BG_THREAD : BG_WD, redist_rma_create, why, sizeof why);
    if (checkpoint(x, L->comm, NB.bg != NULL, why) != 0) return;
    if (bg_window(NB.bg, why, sizeof why) != 0) fail(x, why); /* the items' checkpoints stop every process */
}

/* A constant item in the background: its new block, then its start. */
static int move_constant(struct transfer *x, struct reg_item *it, char *why, size_t len)
{
    const struct redist_layout *L = x->L;
    size_t rowb = reg_unit_bytes(it);
    int ok = x->ok;
    void *dst = NULL;
    /* a spawned process receives into the buffer it registered (it waits in EMPI_Get_shared until the
     * data is there; a rolled-back one leaves): docs/malleability.md, "Buffers" */
    int in_place = L->my_new >= 0 && L->my_old < 0;
    if (in_place) dst = it->addr;
    else if (ok && L->my_new >= 0) {
        size_t nbytes = (size_t)plan_block_of(it->d.nrows, L->nd, L->my_new).count * rowb;
        dst = block_alloc(nbytes, -1, NULL);
        if (!dst) {
            snprintf(why, len, "out of memory for '%s' (%zu bytes)", it->d.name, nbytes);
            ok = 0;
        }
    }
    struct nb_entry *e = ok ? nb_entry_add(it->d.name, dst, L->my_new >= 0) : NULL; /* it owns dst now */
    if (e) e->in_place = in_place;
    if (ok && !e) {
        snprintf(why, len, "out of memory");
        if (!in_place) free(dst);
        dst = NULL;
        ok = 0;
    }
    const void *src = L->my_old >= 0 ? it->addr : NULL;
    struct redist_pending *none = NULL;
    uint64_t moved = 0;
    int rc = NB.bg ? bg_add(NB.bg, it->d.nrows, rowb, src, dst, ok, &moved, why, len)
                   : redist_start(&x->LX, it->d.nrows, rowb, src, dst, ok, e ? &e->p : &none, &moved, why, len);
    if (rc == MOVE_OK) {
        x->t.bytes += moved;
        NB.bytes += moved;
    }
    return rc;
}

/* One exchange of a general data item in the background: its form agreed
 * (with whether every process can take part: collective, also on a process
 * that failed), then added to the collective group (wd, thread with col or
 * p2p) or started as an MPI_Ialltoallv of its own (nb; and wd / thread with
 * a one-sided method, whose group reads block-distributed arrays only). */
static int move_bytes(struct transfer *x, struct reg_item *it, const struct bytes_xfer *xf, int ok, int first,
                      char *why, size_t len)
{
    int n = x->LX.comm_size, me = -1;
    PMPI_Comm_rank(x->LX.comm, &me);
    int v[2] = {ok && chunk_fits_int(xf->sc, xf->sd, n, 1) && chunk_fits_int(xf->rc, xf->rd, n, 1), ok};
    if (txn_mpi(PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, x->LX.comm)) != MPI_SUCCESS && ok) {
        /* it ran (the others have their answer): this process goes the same way, unable to take part */
        snprintf(why, len, "'%s': MPI_Allreduce of the background exchange's form failed", it->d.name);
        ok = 0;
    }
    if (!v[1]) return MOVE_STOPPED;
    /* the item's entry (its first exchange's): adopted or dropped at the switch, forgotten if abandoned */
    struct nb_entry *e = ok ? nb_entry_add(it->d.name, NULL, 0) : NULL;
    if (ok && !e) snprintf(why, len, "out of memory");
    if (e) e->data = first;
    int rc;
    if (NB.bg && bg_collective(NB.bg)) { /* local: the launch's checkpoint stops every process */
        rc = e ? bg_add_bytes(NB.bg, a2a_kind(v[0]), xf, why, len) : MOVE_FAILED;
    } else { /* its own checkpoint first */
        struct redist_pending *none = NULL;
        rc = redist_start_bytes(x->LX.comm, a2a_kind(v[0]), xf, e != NULL, e ? &e->p : &none, why, len);
    }
    if (rc == MOVE_OK)
        for (int c = 0; c < n; c++)
            if (c != me) {
                x->t.bytes += (uint64_t)xf->sc[c];
                NB.bytes += (uint64_t)xf->sc[c];
            }
    return rc;
}

/* A constant sparse matrix or N-D block (a general kind, src/data) in the
 * background: its metadata moves now, blocking (the kind's data_bg_start:
 * a matrix's row lengths; a block has none, it packs its boxes; the new
 * arrays are staged in the item, not adopted), then
 * its exchanges start (move_bytes) into the staged arrays.  Until the switch
 * the item keeps its old arrays, range and distribution everywhere. */
static int move_constant_data(struct transfer *x, struct reg_item *it, char *why, size_t len)
{
    struct bytes_xfer xf[BYTES_XFER_MAX];
    int nxf = 0, ok = x->ok;
    memset(xf, 0, sizeof xf);
    int rc = DUCTILE_HOOK(data_bg_start, (it, &x->LX, x->method, ok, xf, &nxf, why, len));
    if (rc == MOVE_STOPPED) return rc;
    if (rc != MOVE_OK) ok = 0; /* it still takes part in every exchange's agreement, which stops all */
    for (int k = 0; k < nxf && k < BYTES_XFER_MAX; k++) {
        char w[TXN_WHY_MAX] = "";
        int r = move_bytes(x, it, &xf[k], ok, k == 0, w, sizeof w);
        if (r != MOVE_OK && rc == MOVE_OK) snprintf(why, len, "%s", w); /* the first cause (this process's) */
        if (r == MOVE_STOPPED) return MOVE_STOPPED; /* every process, together */
        if (r != MOVE_OK) rc = r;
        if (r != MOVE_OK) ok = 0;
    }
    return rc;
}

/* A distributed item's new block: the process's own buffer, the spare of
 * the layout (persistent mode), the old block when the rows stay, the block
 * the prepare step allocated, or a new one.  *kind says which, for
 * give_back.  NULL only where there is no new block or no memory. */
enum { DST_NONE, DST_OWN, DST_SPARE, DST_PREP, DST_NEW };
static void *new_block(struct transfer *x, int i, struct reg_item *it, plan_block ob, plan_block nb, int *kind)
{
    const struct redist_layout *L = x->L;
    *kind = DST_NONE;
    if (L->my_new < 0) return NULL;
    if (L->my_old < 0) { /* a spawned (or standby) process receives into its own buffer */
        *kind = DST_OWN;
        return it->addr;
    }
    if (M.persistent && it->spare && it->spare_size == L->nd) {
        *kind = DST_SPARE;
        void *dst = it->spare;
        it->spare = NULL;
        return dst;
    }
    if (!M.persistent && ob.count == nb.count && ob.displ == nb.displ) {
        *kind = DST_OWN;
        return it->addr;
    }
    if (x->prep && x->prep[i]) { /* allocated (and touched) at the prepare step */
        *kind = DST_PREP;
        void *dst = x->prep[i];
        x->prep[i] = NULL;
        return dst;
    }
    *kind = DST_NEW;
    return block_alloc((size_t)nb.count * reg_unit_bytes(it), i, NULL);
}

/* A new block that was not staged goes back where it came from. */
static void give_back(struct transfer *x, int i, struct reg_item *it, void *dst, int kind)
{
    if (kind == DST_SPARE) it->spare = dst;
    else if (kind == DST_PREP) x->prep[i] = dst;
    else if (kind == DST_NEW) free(dst);
}

/* DUCTILE_PERSISTENT with DUCTILE_RMA_MEMORY=shared and an rma-* method:
 * every process's new block from the shared block (comm, nd, i), created by
 * the first such transfer (collective: every process, also one that
 * failed).  1 when it applies (*dst: my segment; *ok = 0 when it could not
 * be made). */
static int shared_block(struct transfer *x, int i, size_t bytes, void **dst, int *ok, char *why, size_t len)
{
    const struct redist_layout *L = x->L;
    int m = x->method;
    if (!M.persistent || !M.rma_shared || !(m == REDIST_RMA_LOCK || m == REDIST_RMA_LOCKALL || m == REDIST_RMA_FENCE))
        return 0;
    int applies = 0;
    double ts = ductile_now();
    void *seg = persist_shared_block(L->comm, L->nd, i, L->my_new >= 0 ? bytes : 0, &applies, why, len);
    x->t.prepare_s += ductile_now() - ts;
    if (applies && !seg && L->my_new >= 0 && bytes) *ok = 0;
    if (applies) *dst = L->my_new >= 0 ? seg : NULL;
    return applies;
}

/* A distributed item (blocking): its new block, the move, the staging. */
static int move_rows(struct transfer *x, int i, struct reg_item *it, char *why, size_t len)
{
    const struct redist_layout *L = x->L;
    struct xfer_times *t = &x->t;
    double tp = ductile_now();
    int method = x->method, ok = x->ok, kind = DST_NONE;
    size_t rowb = reg_unit_bytes(it);
    plan_block ob = {0, 0}, nb = {0, 0};
    if (L->my_old >= 0) ob = plan_block_of(it->d.nrows, L->ns, L->my_old);
    if (L->my_new >= 0) nb = plan_block_of(it->d.nrows, L->nd, L->my_new);
    const void *src = L->my_old >= 0 ? it->addr : NULL;
    void *dst = NULL;
    /* persistent mode: the same buffers come back at every +P/-P cycle (the old block
     * becomes the item's spare, and the spare of the right layout is the new block) */
    int persist = M.persistent;
    double ts = ductile_now();
    int shared = shared_block(x, i, (size_t)nb.count * rowb, &dst, &ok, why, len);
    tp += ductile_now() - ts; /* set-up (prepare_s), not planning */
    if (ok && !shared) {
        dst = new_block(x, i, it, ob, nb, &kind);
        if (!dst && nb.count) {
            if (kind == DST_NEW) snprintf(why, len, "out of memory for '%s' (%lld bytes)", it->d.name,
                                          (long long)nb.count * (long long)rowb);
            else snprintf(why, len, "'%s' has no buffer on a spawned process", it->d.name);
            ok = 0;
        }
    }
    t->plan_s += ductile_now() - tp;
    uint64_t moved = 0;
    int rc;
    if (persist) {
        struct persist_outcome o;
        rc = persist_move(L, method, i, it->d.nrows, rowb, src, dst, 1, ok, &o, why, len);
        moved = o.moved;
        t->prepare_s += o.setup_s;
        if (rc == MOVE_OK) {
            if (o.reused) t->n_reused++;
            else t->n_prepared++;
            t->n_shared += o.shared;
        }
    } else {
        rc = redist_move(L, method, it->d.nrows, rowb, src, dst, ok, &moved, why, len);
    }
    if (rc == MOVE_OK) t->bytes += moved;
    /* the new block is adopted only at the commit, after every process agreed (transaction.c) */
    int staged = rc == MOVE_OK && L->my_new >= 0 && dst != it->addr &&
                 stage_add(i, dst, 0, shared, persist, method == REDIST_RMA_LOCK || method == REDIST_RMA_LOCKALL,
                           L->ns, L->nd, L->my_old >= 0) == 0;
    if (rc == MOVE_OK && L->my_new >= 0 && dst != it->addr && !staged) {
        snprintf(why, len, "out of memory");
        rc = MOVE_FAILED;
    }
    if (!staged && dst != it->addr && !shared) give_back(x, i, it, dst, kind);
    return rc;
}

/* A replicated item or a scalar: broadcast from the first old process, in
 * pieces below 1 GiB; every piece, also after a failed one. */
static void broadcast(struct transfer *x, struct reg_item *it)
{
    const struct redist_layout *L = x->L;
    int root = L->old_to_comm[0], me = -1;
    int64_t bytes = (int64_t)reg_unit_bytes(it);
    for (int64_t o = 0; o < bytes; o += BCAST_CHUNK) {
        int n = (int)(bytes - o < BCAST_CHUNK ? bytes - o : BCAST_CHUNK);
        int rc = txn_mpi(PMPI_Bcast((char *)it->addr + o, n, MPI_BYTE, root, L->comm));
        if (rc != MPI_SUCCESS) {
            char m[TXN_WHY_MAX], why[TXN_WHY_MAX];
            ductile_mpi_error_text(rc, m, sizeof m);
            snprintf(why, sizeof why, "broadcast of '%.60s' failed: %.150s", it->d.name, m);
            fail(x, why);
        }
    }
    PMPI_Comm_rank(L->comm, &me);
    if (me == root) x->t.bytes += (uint64_t)bytes * (uint64_t)(L->comm_size - L->ns);
}

/* One item of this phase. */
static void move_item(struct transfer *x, int i)
{
    struct reg_item *it = reg_at(i);
    int bgitem = moves_in_background(it);
    if (x->phase == XF_BG && (!bgitem || !x->bg)) return; /* the background start: constant items only */
    if (x->phase == XF_REST && bgitem) return;            /* moved in the background */
    char why[TXN_WHY_MAX] = "";
    if (x->phase == XF_BG) {
        note(x, it->d.kind == REG_DISTRIBUTED ? move_constant(x, it, why, sizeof why)
                                              : move_constant_data(x, it, why, sizeof why), why);
    } else if (it->d.kind == REG_DISTRIBUTED) {
        note(x, move_rows(x, i, it, why, sizeof why), why);
    } else if (REG_KIND_IS_DATA(it->d.kind)) {
        /* general data (issue 14): N-D blocks, sparse, custom, patches move themselves (src/data/),
         * their new state staged until the commit like the blocks above (transaction.c) */
        uint64_t moved = 0;
        int rc = DUCTILE_HOOK(data_move, (it, x->L, x->method, x->ok, &moved, why, sizeof why));
        if (rc == MOVE_OK) x->t.bytes += moved;
        note(x, rc, why);
    } else if ((it->d.kind == REG_REPLICATED || it->d.kind == REG_SCALAR) && x->has_new) {
        broadcast(x, it);
    }
}

/* The background launch (groups: one checkpoint, then the nonblocking
 * collectives, reads or the thread) and the bytes of every process. */
static void launch_background(struct transfer *x)
{
    char why[TXN_WHY_MAX] = "";
    if (NB.bg) note(x, bg_launch(NB.bg, x->ok, why, sizeof why), why);
    if (x->stopped) return;
    unsigned long long b = NB.bytes;
    if (txn_mpi(PMPI_Allreduce(MPI_IN_PLACE, &b, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, x->L->comm)) != MPI_SUCCESS)
        fail(x, "the sum of the background transfer's bytes failed");
    NB.bytes = b; /* all processes' share, for the record */
}

int transfer_run(struct transfer *x)
{
    double t0 = ductile_now();
    memset(&x->t, 0, sizeof x->t);
    x->stopped = 0;
    x->LX = *x->L;
    if (x->phase != XF_BG) x->nb = CONST_BLOCKING;
    if (x->warm && x->phase != XF_REST) warm_up(x);
    x->bg = x->phase == XF_BG && bg_wanted(x->nb);
    if (x->bg && !x->stopped) {
        open_background(x);
        t0 = ductile_now(); /* the duplicate waited for the slowest process: not transfer time */
    }
    for (int i = 0; i < reg_count() && !x->stopped; i++) move_item(x, i);
    if (x->bg && !x->stopped) launch_background(x);
    struct xfer_times *t = &x->t;
    t->window_s = redist_take_setup_s() + (x->bg ? bg_setup_s(NB.bg) : 0);
    t->transfer_s = ductile_now() - t0 - t->plan_s - t->window_s - t->prepare_s;
    if (x->phase != XF_BG && x->ok && test_fail("transfer")) {
        int me = -1;
        PMPI_Comm_rank(x->L->comm, &me);
        if (me == x->L->comm_size - 1) {
            char why[TXN_WHY_MAX];
            snprintf(why, sizeof why, "rank %d: the transfer of the registered data failed (injected: "
                     "DUCTILE_TEST_FAIL=transfer)", ductile_rt.rank);
            fail(x, why);
        }
    }
    return x->ok ? 0 : -1;
}
