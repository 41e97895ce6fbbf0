/* data.c -- dispatch of the general data kinds (see data.h). */
#include "config.h"

#include "data.h"
#include "ndgrid.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmpi_exports.h"
#include "../common/mpierror.h"
#include "../common/txnfault.h"
#include "../core/hooks.h"

int data_move(struct reg_item *it, const struct redist_layout *L, int ok, uint64_t *moved, char *err, size_t errlen)
{
    *moved = 0;
    switch (it->d.kind) {
    case REG_NDBLOCK: return ndblock_move(it, L, ok, moved, err, errlen);
    case REG_SPARSE: return sparse_move(it, L, ok, moved, err, errlen);
    case REG_CUSTOM: return custom_move(it, L, ok, moved, err, errlen);
    case REG_PATCHES: return patches_move(it, L, ok, moved, err, errlen);
    default: snprintf(err, errlen, "'%s': not a src/data kind", it->d.name); return MOVE_FAILED;
    }
}

void data_commit(struct reg_item *it)
{
    if (!it->ext) return;
    switch (it->d.kind) {
    case REG_NDBLOCK: ndblock_commit(it); break;
    case REG_SPARSE: sparse_commit(it); break;
    case REG_CUSTOM: custom_commit(it); break;
    case REG_PATCHES: patches_commit(it); break;
    default: break;
    }
}

void data_abort(struct reg_item *it)
{
    if (!it->ext) return;
    switch (it->d.kind) {
    case REG_NDBLOCK: ndblock_abort(it); break;
    case REG_SPARSE: sparse_abort(it); break;
    case REG_CUSTOM: custom_abort(it); break;
    case REG_PATCHES: patches_abort(it); break;
    default: break;
    }
}

int data_stage(struct reg_item *it, char *why, size_t len)
{
    if (!it->ext || it->d.kind != REG_CUSTOM) return 0;
    return custom_stage(it, why, len);
}

void data_unstage(struct reg_item *it)
{
    if (it->ext && it->d.kind == REG_CUSTOM) custom_unstage(it);
}

void data_world_changed(void)
{
    ndgrid_new_round(); /* each grid's communicator is made once in it (ndgrid.c) */
    for (int i = 0; i < reg_count(); i++)
        if (reg_at(i)->d.kind == REG_NDBLOCK) ndblock_world_changed(reg_at(i));
}

void data_ext_free(struct reg_item *it)
{
    if (!it->ext) return;
    switch (it->d.kind) {
    case REG_NDBLOCK: ndblock_free(it); break;
    case REG_SPARSE: sparse_free(it); break;
    case REG_CUSTOM: custom_free(it); break;
    case REG_PATCHES: patches_free(it); break;
    default: free(it->ext); break;
    }
    it->ext = NULL;
}

/* The engine (src/malleable) reaches this folder through the hook table only. */
static int hook_move(struct reg_item *it, const struct redist_layout *L, int method, int ok, uint64_t *moved,
                     char *err, size_t errlen)
{
    data_exchange_method(method); /* the resize's method: collective or point-to-point exchanges (exchange.c) */
    return data_move(it, L, ok, moved, err, errlen);
}

/* A constant item of a general kind in the background: sparse matrices, N-D blocks, patch sets and
 * custom data (transfer.c asks for no other kind). */
static int hook_bg_start(struct reg_item *it, const struct redist_layout *L, int method, int ok, struct bytes_xfer *xf,
                         int *nxf, char *err, size_t errlen)
{
    *nxf = 0;
    data_exchange_method(method); /* the metadata's exchange follows the resize's method */
    if (it->d.kind == REG_SPARSE && it->ext) return sparse_bg_start(it, L, ok, xf, nxf, err, errlen);
    if (it->d.kind == REG_NDBLOCK && it->ext) return ndblock_bg_start(it, L, ok, xf, nxf, err, errlen);
    if (it->d.kind == REG_PATCHES && it->ext) return patches_bg_start(it, L, ok, xf, nxf, err, errlen);
    if (it->d.kind == REG_CUSTOM && it->ext) return custom_bg_start(it, L, ok, xf, nxf, err, errlen);
    snprintf(err, errlen, "'%s': this kind does not move in the background", it->d.name);
    return txn_all_ok(L->comm, 0) ? MOVE_FAILED : MOVE_STOPPED; /* (the checkpoint every mover starts with) */
}

static void hook_bg_forget(struct reg_item *it)
{
    if (it->d.kind == REG_SPARSE) sparse_bg_forget(it);
    if (it->d.kind == REG_NDBLOCK) ndblock_bg_forget(it);
    if (it->d.kind == REG_PATCHES) patches_bg_forget(it);
    if (it->d.kind == REG_CUSTOM) custom_bg_forget(it);
}

DUCTILE_REGISTER(data_register)
{
    h->data_bg_start = hook_bg_start;
    h->data_bg_forget = hook_bg_forget;
    h->data_move = hook_move;
    h->data_commit = data_commit;
    h->data_abort = data_abort;
    h->data_stage = data_stage;
    h->data_unstage = data_unstage;
    h->data_world_changed = data_world_changed;
    h->data_ext_free = data_ext_free;
    h->data_allows = ndgrid_allows;
}
