/* sparse_bg.c -- a constant CSR sparse matrix (EMPI_Register_sparse or
 * EMPI_Register_csr, then EMPI_Set_flags(id, EMPI_CONSTANT)) moving in the
 * background (DUCTILE_REDIST_CONSTANT=nb|wd|thread).  At the resize's start
 * the matrix's metadata moves blocking as in sparse_move (ranges, non-zeros,
 * new row counts, counts: sparse.c, sp_plan_make) and so do the row lengths
 * (8 bytes a row), from which every new process builds its row pointers;
 * its new arrays are staged in the item (s->next, not adopted).  The column
 * indices and values then move in the background: two exchanges of bytes
 * the engine starts (src/malleable/transfer.c: an MPI_Ialltoallv each, or
 * in the Wait Drains / Threading group), read straight from the old arrays
 * (my rows go out in order) into the staged new ones.  Until the switch the
 * item keeps its old arrays, range and distribution, which the sources read
 * and the program iterates on; at the switch sparse_commit adopts the new
 * state, on a rollback sparse_abort drops it, and sp_bg_forget forgets it
 * without freeing (the MPI may still write into it). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "sparse.h"
#include "../common/txnfault.h"

#include "../common/leftmpi.h"

static char no_rows; /* the source and target of a process without rows: nothing is read or written */

void sp_bg_plan_free(struct sp_state *s)
{
    if (!s->next.plan) return;
    sp_plan_free(s->next.plan);
    free(s->next.plan);
    s->next.plan = NULL;
}

int sparse_bg_start(struct reg_item *it, const struct redist_layout *L, int ok, struct bytes_xfer *xf, int *nxf,
                    char *err, size_t errlen)
{
    struct sp_state *s = it->ext;
    *nxf = 0;
    sparse_abort(it); /* nothing should be staged; if it were, it is not this resize's */
    struct sp_plan *p = ok ? txn_calloc(1, sizeof *p) : NULL;
    struct sp_plan none;
    if (ok && !p) {
        snprintf(err, errlen, "'%s': out of memory", it->d.name);
        ok = 0;
    }
    int rc = sp_plan_make(it, L, &ok, p ? p : &none, err, errlen);
    if (rc == MOVE_STOPPED) {
        sp_plan_free(p ? p : &none);
        free(p);
        return MOVE_STOPPED;
    }
    /* the row lengths, blocking */
    char *sb = ok ? txn_malloc(p->stot[0] ? (size_t)p->stot[0] : 1) : NULL;
    char *rb = ok ? txn_malloc(p->rtot[0] ? (size_t)p->rtot[0] : 1) : NULL;
    if (ok && (!sb || !rb)) {
        snprintf(err, errlen, "'%s': out of memory", it->d.name);
        ok = 0;
    }
    if (ok && L->my_old >= 0) sp_pack_lengths(it, (int64_t *)(void *)sb);
    struct sp_plan *q = p ? p : &none;
    int e = data_alltoallv_bytes(sb, q->sc[0], q->sd[0], rb, q->rc[0], q->rd[0], ok, L->comm, err, errlen);
    rc = e == MOVE_STOPPED ? MOVE_STOPPED : MOVE_OK;
    if (e != MOVE_OK) ok = 0;
    if (ok && L->my_new >= 0 && sp_stage_new(it, L, p, (const int64_t *)(const void *)rb, err, errlen) != 0) ok = 0;
    free(sb);
    free(rb);
    if (rc == MOVE_STOPPED) {
        sp_plan_free(q);
        free(p);
        return MOVE_STOPPED;
    }
    /* two exchanges on every process (empty on one that failed: their agreement stops every process) */
    *nxf = 2;
    if (!ok) {
        sp_plan_free(q);
        free(p);
        sparse_abort(it);
        return MOVE_FAILED;
    }
    for (int k = 0; k < 2; k++) {
        const void *src = sp_first(it, k);
        void *dst = s->next.set ? (k ? s->next.val : s->next.col) : NULL;
        xf[k] = (struct bytes_xfer){src ? src : &no_rows, dst ? dst : &no_rows, p->sc[k + 1], p->sd[k + 1],
                                    p->rc[k + 1], p->rd[k + 1]};
    }
    s->next.plan = p; /* the counts live until the switch or the rollback */
    return MOVE_OK;
}

void sparse_bg_forget(struct reg_item *it)
{
    struct sp_state *s = it->ext;
    if (!s) return;
    sp_bg_plan_free(s);
    if (!s->next.set) return;
    left_to_mpi(s->next.col); /* left to the MPI on purpose: not a leak to report */
    left_to_mpi(s->next.val);
    s->next.col = s->next.val = NULL; /* never freed */
    sparse_abort(it);                 /* the rest (row pointers, row counts) is this process's own */
}
