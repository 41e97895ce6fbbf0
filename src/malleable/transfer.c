/* transfer.c -- moving the registered items of a resize (distributed
 * arrays by the chosen method, replicated items and scalars by broadcast)
 * into new blocks kept aside until the commit (transaction.c), the new
 * blocks allocated before any transfer starts, and the failure injection of
 * the tests (DUCTILE_TEST_FAIL). */
#include "engine.h"

/* DUCTILE_TEST_FAIL=STEP (for tests only, docs/malleability.md): make one
 * step of a resize fail on purpose -- "spawn" (rank 0's spawn is refused),
 * "alloc" (the last new process cannot allocate its blocks; in a shrink the
 * last staying process), "register" (the last new process registered an
 * item that differs), "transfer" (the blocking transfer reports an error on
 * the transfer communicator's last process), "bgtransfer" (the background
 * transfer of constant data reports an error on the world's last rank). */
int test_fail(const char *step)
{
    const char *f = getenv("DUCTILE_TEST_FAIL");
    return f && strcmp(f, step) == 0;
}

/* 1 when a resize with constant-data strategy nb moves something in the
 * background: some distributed item is registered constant. */
int bg_wanted(int nb)
{
    if (nb == CONST_BLOCKING) return 0;
    for (int i = 0; i < reg_count(); i++)
        if (reg_at(i)->d.kind == REG_DISTRIBUTED && reg_at(i)->d.constant) return 1;
    return 0;
}

/* Move the registered items of `phase` for the layout L.  has_new: processes
 * without an old rank take part (they receive replicated data and scalars).
 * XF_BG: constant distributed items only start moving (strategy nb, see above).
 * Collective over L->comm in registration order. */
int transfer_items(const struct redist_layout *L, int has_new, int method, int nb, int phase, int id,
                          int iteration, void **prep, int warm, struct xfer_times *t, char *err, size_t errlen)
{
    double t0 = ductile_now();
    memset(t, 0, sizeof *t);
    if (phase != XF_BG) nb = CONST_BLOCKING;
    if (warm && phase != XF_REST) {
        /* open the connections between every pair (old and new processes) with
         * one tiny exchange before the large transfers (DUCTILE_REDIST_PREPARE) */
        char *wb = calloc(2 * (size_t)L->comm_size, 1);
        if (wb) PMPI_Alltoall(wb, 1, MPI_BYTE, wb + L->comm_size, 1, MPI_BYTE, L->comm);
        free(wb);
    }
    int root = L->old_to_comm[0];
    int any_const = 0;
    if (phase == XF_BG) any_const = bg_wanted(nb);
    struct redist_layout LX = *L;
    if (any_const) {
        if (NB.active) { snprintf(err, errlen, "a background transfer is still pending"); return -1; }
        PMPI_Comm_dup(L->comm, &NB.comm);
        PMPI_Comm_set_errhandler(NB.comm, MPI_ERRORS_RETURN);
        t0 = ductile_now(); /* the dup waited for the slowest process: not transfer time */
        LX.comm = NB.comm;
        NB.active = 1;
        NB.failed = 0;
        NB.why[0] = '\0';
        NB.col_instead = 0;
        NB.id = id;
        NB.start_it = iteration;
        NB.bytes = 0;
        NB.t_start = ductile_now();
        /* Wait Drains / Threading, and every background rma-* transfer: one group (src/rma/xfer.c) */
        int rma = method == REDIST_RMA_LOCK || method == REDIST_RMA_LOCKALL;
        if (nb == CONST_WD || nb == CONST_THREAD || rma) {
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
            NB.bg = bg_begin(&LX, bm, nb == CONST_THREAD ? BG_THREAD : BG_WD, redist_rma_create, err, errlen);
            if (!NB.bg) return -1;
        }
    }
    for (int i = 0; i < reg_count(); i++) {
        struct reg_item *it = reg_at(i);
        int bgitem = it->d.kind == REG_DISTRIBUTED && it->d.constant;
        if (phase == XF_BG && !bgitem) continue;
        if (phase == XF_REST && bgitem) continue; /* moved in the background */
        if (it->d.kind == REG_DISTRIBUTED && any_const && it->d.constant) {
            size_t rowb = reg_unit_bytes(it);
            plan_block nbk = {0, 0};
            if (L->my_new >= 0) nbk = plan_block_of(it->d.nrows, L->nd, L->my_new);
            void *dst = NULL;
            /* a spawned process receives into the buffer it registered (it waits in EMPI_Get_shared
             * until the data is there; a rolled-back one leaves): docs/malleability.md, "Buffers" */
            int in_place = L->my_new >= 0 && L->my_old < 0;
            if (in_place) dst = it->addr;
            else if (L->my_new >= 0) {
                size_t nbytes = (size_t)nbk.count * rowb;
                dst = malloc(nbytes ? nbytes : 1);
                if (!dst) {
                    snprintf(err, errlen, "out of memory for '%s' (%zu bytes)", it->d.name, nbytes);
                    return -1;
                }
            }
            NB.e = grow(NB.e, &NB.cap, NB.n + 1, sizeof *NB.e);
            struct nb_entry *e = &NB.e[NB.n++];
            memset(e, 0, sizeof *e);
            snprintf(e->name, sizeof e->name, "%s", it->d.name);
            e->dst = dst;
            e->has_new = L->my_new >= 0;
            e->in_place = in_place;
            uint64_t moved = 0;
            if (NB.bg) {
                if (bg_add(NB.bg, it->d.nrows, rowb, L->my_old >= 0 ? it->addr : NULL, dst, &moved, err, errlen) != 0)
                    return -1;
            } else if (redist_start(&LX, it->d.nrows, rowb, L->my_old >= 0 ? it->addr : NULL, dst, &e->p, &moved, err,
                                    errlen) != 0)
                return -1;
            t->bytes += moved;
            NB.bytes += moved;
        } else if (it->d.kind == REG_DISTRIBUTED) {
            double tp = ductile_now();
            size_t rowb = reg_unit_bytes(it);
            plan_block ob = {0, 0}, nb = {0, 0};
            if (L->my_old >= 0) ob = plan_block_of(it->d.nrows, L->ns, L->my_old);
            if (L->my_new >= 0) nb = plan_block_of(it->d.nrows, L->nd, L->my_new);
            void *src = L->my_old >= 0 ? it->addr : NULL;
            void *dst = NULL;
            /* persistent mode: the same buffers come back at every +P/-P cycle (the old block
             * becomes the item's spare, and the spare of the right layout is the new block) */
            int persist = M.persistent;
            /* DUCTILE_RMA_MEMORY=shared: every process's new block from the shared block (comm, nd, i),
             * created by the first such transfer (collective) and the same memory at every later one */
            int shared = 0;
            if (persist && M.rma_shared &&
                (method == REDIST_RMA_LOCK || method == REDIST_RMA_LOCKALL || method == REDIST_RMA_FENCE)) {
                int applies = 0;
                double ts = ductile_now();
                void *seg = persist_shared_block(L->comm, L->nd, i, L->my_new >= 0 ? (size_t)nb.count * rowb : 0,
                                                 &applies, err, errlen);
                t->prepare_s += ductile_now() - ts; /* set-up, not planning */
                tp += ductile_now() - ts;
                if (applies && !seg && L->my_new >= 0 && nb.count) return -1;
                if (applies) {
                    shared = 1;
                    dst = L->my_new >= 0 ? seg : NULL;
                }
            }
            if (L->my_new >= 0 && !shared) {
                if (L->my_old < 0) dst = it->addr; /* a spawned (or standby) process receives into its own buffer */
                else if (persist && it->spare && it->spare_size == L->nd) {
                    dst = it->spare;
                    it->spare = NULL;
                } else if (!persist && ob.count == nb.count && ob.displ == nb.displ) dst = it->addr;
                else if (prep && prep[i]) {
                    dst = prep[i]; /* allocated and touched during the spawn */
                    prep[i] = NULL;
                } else {
                    size_t nbytes = (size_t)nb.count * rowb;
                    dst = malloc(nbytes ? nbytes : 1);
                    if (!dst) {
                        snprintf(err, errlen, "out of memory for '%s' (%lld bytes)", it->d.name,
                                 (long long)nb.count * (long long)rowb);
                        return -1;
                    }
                }
                if (!dst && nb.count) {
                    snprintf(err, errlen, "'%s' has no buffer on a spawned process", it->d.name);
                    return -1;
                }
            }
            t->plan_s += ductile_now() - tp;
            uint64_t moved = 0;
            if (persist) {
                struct persist_outcome o;
                if (persist_move(L, method, i, it->d.nrows, rowb, src, dst, 1, &o, err, errlen) != 0) return -1;
                moved = o.moved;
                t->prepare_s += o.setup_s;
                if (o.reused) t->n_reused++;
                else t->n_prepared++;
                t->n_shared += o.shared;
            } else if (redist_move(L, method, it->d.nrows, rowb, src, dst, &moved, err, errlen) != 0) {
                return -1;
            }
            t->bytes += moved;
            /* the new block is adopted only at the commit, after every process agreed (transaction.c) */
            if (L->my_new >= 0 && dst != it->addr)
                stage_add(i, dst, 0, shared, persist, method == REDIST_RMA_LOCK || method == REDIST_RMA_LOCKALL, L->ns,
                          L->nd, L->my_old >= 0);
        } else if (REG_KIND_IS_DATA(it->d.kind)) {
            /* general data (issue 14): N-D blocks, sparse, custom, patches move themselves (src/data/),
             * their new state staged until the commit like the blocks above (transaction.c) */
            uint64_t moved = 0;
            if (DUCTILE_HOOK(data_move, (it, L, method, &moved, err, errlen)) != 0) return -1;
            t->bytes += moved;
        } else if ((it->d.kind == REG_REPLICATED || it->d.kind == REG_SCALAR) && has_new) {
            int64_t bytes = (int64_t)reg_unit_bytes(it);
            for (int64_t o = 0; o < bytes; o += BCAST_CHUNK) {
                int len = (int)(bytes - o < BCAST_CHUNK ? bytes - o : BCAST_CHUNK);
                int rc = PMPI_Bcast((char *)it->addr + o, len, MPI_BYTE, root, L->comm);
                if (rc != MPI_SUCCESS) {
                    char m[256];
                    ductile_mpi_error_text(rc, m, sizeof m);
                    snprintf(err, errlen, "broadcast of '%s' failed: %s", it->d.name, m);
                    return -1;
                }
            }
            int me = -1;
            PMPI_Comm_rank(L->comm, &me);
            if (me == root) t->bytes += (uint64_t)bytes * (uint64_t)(L->comm_size - L->ns);
        }
    }
    if (NB.bg && any_const && bg_launch(NB.bg, err, errlen) != 0) return -1;
    if (any_const) {
        unsigned long long b = NB.bytes;
        PMPI_Allreduce(MPI_IN_PLACE, &b, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, L->comm);
        NB.bytes = b; /* all processes' share, for the record */
    }
    t->window_s = redist_take_setup_s() + (any_const ? bg_setup_s(NB.bg) : 0);
    t->transfer_s = ductile_now() - t0 - t->plan_s - t->window_s - t->prepare_s;
    if (phase != XF_BG && test_fail("transfer")) {
        int me = -1;
        PMPI_Comm_rank(L->comm, &me);
        if (me == L->comm_size - 1) {
            snprintf(err, errlen, "rank %d: the transfer of the registered data failed (injected: "
                     "DUCTILE_TEST_FAIL=transfer)", ductile_rt.rank);
            return -1;
        }
    }
    return 0;
}

/* The prepare step of an old process that has a new block (my_new >= 0):
 * new buffers for the distributed items whose block changes (NULL entries
 * elsewhere; constant items that move in the background get theirs when
 * that starts), touched when `touch` (DUCTILE_REDIST_PREPARE).  Allocated
 * before any transfer, so that running out of memory is a reported failure
 * of the resize, agreed by all, instead of a process missing from a
 * collective.  Persistent mode keeps its own buffers (spares, shared blocks):
 * nothing here.  Returns NULL with why set on failure. */
void **prepare_buffers(int ns, int nd, int my_old, int my_new, int nb, int touch, char *why, size_t len)
{
    void **prep = calloc((size_t)(reg_count() ? reg_count() : 1), sizeof *prep);
    if (!prep) {
        snprintf(why, len, "rank %d: out of memory", ductile_rt.rank);
        return NULL;
    }
    if (M.persistent || my_new < 0) return prep;
    /* a shrink: the last staying process (the environment is read only there: an expansion
     * prepares in a thread while the MPI spawns, prep_thread.c) */
    if (nd < ns && my_new == nd - 1 && test_fail("alloc")) {
        snprintf(why, len, "rank %d: out of memory for its new blocks (injected: DUCTILE_TEST_FAIL=alloc)",
                 ductile_rt.rank);
        free(prep);
        return NULL;
    }
    for (int i = 0; i < reg_count(); i++) {
        struct reg_item *it = reg_at(i);
        if (it->d.kind != REG_DISTRIBUTED || (nb && it->d.constant)) continue;
        plan_block ob = plan_block_of(it->d.nrows, ns, my_old), nbk = plan_block_of(it->d.nrows, nd, my_new);
        if (ob.count == nbk.count && ob.displ == nbk.displ) continue;
        size_t bytes = (size_t)nbk.count * reg_unit_bytes(it);
        prep[i] = malloc(bytes ? bytes : 1);
        if (!prep[i]) {
            snprintf(why, len, "rank %d: out of memory for the new block of '%s' (%zu bytes)", ductile_rt.rank,
                     it->d.name, bytes);
            free_prepared(prep);
            return NULL;
        }
        if (touch) memset(prep[i], 0, bytes);
    }
    return prep;
}

void free_prepared(void **prep)
{
    for (int i = 0; prep && i < reg_count(); i++) free(prep[i]);
    free(prep);
}
