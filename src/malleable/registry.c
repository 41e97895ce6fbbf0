/* registry.c -- the registry of the program's malleable data (see registry.h). */
#include "config.h"

#include "registry.h"

#include "../common/txnfault.h"
#include "../core/hooks.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The items, each allocated on its own (a pointer to one stays valid while it is registered),
 * in an array of pointers that doubles as it fills: no fixed limit.  Slots nitems..nslots-1 hold
 * the items reg_clear forgot, kept (so are the buffers they point to, which stay the program's
 * after MPI_Finalize) and reused by later registrations.  The lock guards the array and the
 * items' descriptions against the controller thread's reads (reg_lock). */
static struct reg_item **items;
static int nitems, nslots, capitems;
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;

void reg_lock(void) { pthread_mutex_lock(&reg_mu); }
void reg_unlock(void) { pthread_mutex_unlock(&reg_mu); }

/* A new, zeroed item at the end, or NULL (out of memory: nothing changed).  Under the lock. */
static struct reg_item *append_item(void)
{
    if (nitems < nslots) { /* a slot reg_clear left */
        memset(items[nitems], 0, sizeof *items[nitems]);
        return items[nitems++];
    }
    if (nslots == capitems) {
        if (capitems > INT_MAX / 2) return NULL;
        int nc = capitems ? 2 * capitems : 16;
        struct reg_item **a = realloc(items, (size_t)nc * sizeof *a);
        if (!a) return NULL;
        items = a;
        capitems = nc;
    }
    struct reg_item *it = calloc(1, sizeof *it);
    if (it) items[nslots++] = items[nitems++] = it;
    return it;
}

/* Blocks handed out by EMPI_malloc (so that registering one transfers ownership), with their
 * sizes (so that a registered buffer's size is known: reg_buffer_bytes). */
struct tracked_block {
    void *p;
    size_t size;
};
static struct tracked_block *tracked;
static size_t ntracked, captracked;

/* While a resize is pending (reg_freeze .. reg_thaw) the slots must not move
 * and the buffers a transfer reads must stay: registrations and removals are
 * refused, and EMPI_free of a registered buffer is deferred (reg_free_later):
 * arrays of the general kinds freed so wait here. */
static int frozen;
struct later_free {
    void *addr;
    int tracked; /* it was an EMPI_malloc'ed block when the program freed it */
};
static struct later_free *later;
static int nlater, caplater;

void *reg_malloc(size_t size, int zero)
{
    void *p = zero ? txn_calloc(1, size) : txn_malloc(size); /* counted while a resize runs here */
    if (!p) return NULL;
    if (ntracked == captracked) {
        size_t nc = captracked ? 2 * captracked : 16;
        struct tracked_block *t = realloc(tracked, nc * sizeof *t);
        if (!t) return p; /* untracked: still usable, only never freed by Ductile */
        tracked = t;
        captracked = nc;
    }
    tracked[ntracked++] = (struct tracked_block){p, size};
    return p;
}

int reg_is_tracked(void *p)
{
    for (size_t i = 0; i < ntracked; i++)
        if (tracked[i].p == p) return 1;
    return 0;
}

int reg_buffer_bytes(const struct reg_item *it, int64_t *bytes, const char **how)
{
    if (!it->addr) return 0;
    if (it->decl_addr == it->addr && it->decl_rows >= 0) {
        *bytes = it->decl_rows * (int64_t)reg_unit_bytes(it);
        if (how) *how = "declared with EMPI_Set_buffer_rows";
        return 1;
    }
    const char *a = it->addr;
    for (size_t i = 0; i < ntracked; i++) {
        const char *b = tracked[i].p;
        if (a >= b && a < b + (tracked[i].size ? tracked[i].size : 1)) {
            *bytes = (int64_t)(tracked[i].size - (size_t)(a - b));
            if (how) *how = "from EMPI_malloc";
            return 1;
        }
    }
    return 0;
}

void reg_untrack_free(void *p)
{
    for (size_t i = 0; i < ntracked; i++)
        if (tracked[i].p == p) {
            tracked[i] = tracked[--ntracked];
            break;
        }
    free(p);
}

int reg_add(const char *name, void *addr, MPI_Datatype type, int kind, int constant, int64_t nrows,
            int64_t row_elems, int64_t elems, char *err, size_t errlen)
{
    if (frozen) {
        snprintf(err, errlen, "'%s': refused while a resize is pending (ductile_constant_pending() returns 1): "
                 "register it after the control point that ends the resize", name ? name : "");
        return -1;
    }
    if (!name || !*name || strlen(name) >= REG_NAME_MAX) {
        snprintf(err, errlen, "the name must have 1 to %d characters", REG_NAME_MAX - 1);
        return -1;
    }
    if (type == MPI_DATATYPE_NULL) {
        snprintf(err, errlen, "'%s': MPI_DATATYPE_NULL", name);
        return -1;
    }
    MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
    if (PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(type, &tlb, &textent) != MPI_SUCCESS) {
        snprintf(err, errlen, "'%s': not a valid MPI datatype", name);
        return -1;
    }
    if (extent <= 0 || tlb < 0 || tlb + textent > extent) {
        snprintf(err, errlen, "'%s': elements of this datatype are not contiguous (extent %ld, true lb %ld, true extent %ld)",
                 name, (long)extent, (long)tlb, (long)textent);
        return -1;
    }
    if (nrows < 0 || row_elems < 0 || elems < 0) {
        snprintf(err, errlen, "'%s': negative size", name);
        return -1;
    }
    struct reg_item *it = reg_find(name);
    if (!it) {
        reg_lock();
        it = append_item();
        reg_unlock();
        if (!it) {
            snprintf(err, errlen, "'%s': out of memory for a registry of %d items", name, nitems + 1);
            return -1;
        }
    } else if (it->owned && it->addr && it->addr != addr) {
        /* re-registration with a new buffer: the old one was ours */
        if (reg_is_tracked(it->addr)) reg_untrack_free(it->addr);
        else free(it->addr);
    }
    reg_drop_spare(it); /* a spare block of the old registration does not fit the new one */
    DUCTILE_HOOK_VOID(data_ext_free, (it)); /* so does the state of a src/data/ kind */
    reg_lock();
    snprintf(it->d.name, sizeof it->d.name, "%s", name);
    it->d.kind = kind;
    it->d.constant = constant;
    it->d.extent = (int64_t)extent;
    it->d.nrows = nrows;
    it->d.row_elems = row_elems;
    it->d.elems = elems;
    reg_unlock();
    it->addr = addr;
    it->type = type;
    it->owned = addr && reg_is_tracked(addr);
    it->decl_addr = NULL; /* a size declared for an earlier buffer (EMPI_Set_buffer_rows) does not apply */
    it->decl_rows = -1;
    return 0;
}

struct reg_item *reg_find(const char *name)
{
    if (!name) return NULL;
    for (int i = 0; i < nitems; i++)
        if (strcmp(items[i]->d.name, name) == 0) return items[i];
    return NULL;
}

int reg_count(void) { return nitems; }
struct reg_item *reg_at(int i) { return i >= 0 && i < nitems ? items[i] : NULL; }

static void free_owned(void *p)
{
    if (!p) return;
    if (reg_is_tracked(p)) reg_untrack_free(p);
    else free(p);
}

void reg_drop_spare(struct reg_item *it)
{
    free_owned(it->spare);
    it->spare = NULL;
    it->spare_size = 0;
}

int reg_remove(const char *name)
{
    struct reg_item *it = reg_find(name);
    if (!it) return 0;
    if (frozen) return -1; /* a pending resize holds the slots (and may still read the buffers) */
    reg_drop_spare(it);
    if (it->owned && it->addr) {
        if (reg_is_tracked(it->addr)) reg_untrack_free(it->addr);
        else free(it->addr);
    }
    DUCTILE_HOOK_VOID(data_ext_free, (it));
    reg_lock();
    int i = 0;
    while (items[i] != it) i++;
    memmove(&items[i], &items[i + 1], (size_t)(nslots - i - 1) * sizeof items[0]);
    nitems--;
    nslots--;
    free(it);
    reg_unlock();
    return 0;
}

/* ------------------------------------------------------------------ frozen while a resize is pending */

void reg_freeze(void) { frozen = 1; }
int reg_frozen(void) { return frozen; }

int reg_free_later(void *addr, const char *id)
{
    struct reg_item *named = id ? reg_find(id) : NULL;
    if (named) named->dropping = 1;
    if (!addr) return 1;
    for (int i = 0; i < nitems; i++)
        if (items[i]->addr == addr) {
            items[i]->owned = 1; /* Ductile's now: freed when replaced at the switch, or when the item goes */
            return 1;
        }
    for (int i = 0; i < nitems; i++)
        if (items[i]->sp_row == addr || items[i]->sp_col == addr) {
            if (nlater == caplater) {
                int nc = caplater ? 2 * caplater : 8;
                struct later_free *l = realloc(later, (size_t)nc * sizeof *l);
                if (!l) return 1; /* kept, not freed: safe */
                later = l;
                caplater = nc;
            }
            later[nlater++] = (struct later_free){addr, reg_is_tracked(addr)};
            return 1;
        }
    return 0;
}

void reg_thaw(int release)
{
    frozen = 0;
    for (int i = 0; i < nitems;) {
        if (!items[i]->dropping) { i++; continue; }
        if (!release) items[i]->owned = 0; /* the MPI may still use it: left alone */
        reg_remove(items[i]->d.name);
    }
    for (int k = 0; k < nlater && release; k++) {
        if (!later[k].tracked) free(later[k].addr); /* Ductile never frees untracked arrays of these kinds */
        else if (reg_is_tracked(later[k].addr)) reg_untrack_free(later[k].addr); /* else replaced and freed */
    }
    free(later);
    later = NULL;
    nlater = caplater = 0;
}

size_t reg_unit_bytes(const struct reg_item *it)
{
    if (it->d.kind == REG_DISTRIBUTED) return (size_t)(it->d.row_elems * it->d.extent);
    return (size_t)(it->d.elems * it->d.extent);
}

void reg_clear(void)
{
    /* Buffers stay allocated: the program may still read them after MPI_Finalize.
     * Spare blocks (DUCTILE_PERSISTENT) are Ductile's own: freed. */
    for (int i = 0; i < nitems; i++) {
        reg_drop_spare(items[i]);
        DUCTILE_HOOK_VOID(data_ext_free, (items[i]));
    }
    reg_lock();
    nitems = 0; /* the items stay allocated in their slots, reused by later registrations */
    reg_unlock();
    frozen = 0; /* the pending resize ended with the job (reg_thaw ran, or its memory is left alone) */
    free(later);
    later = NULL;
    nlater = caplater = 0;
}

/* ---- the same registry on every process (reg_agree) */

/* What decides which collectives an item's transfer makes: its name, kind and constant flag
 * (sizes may be each process's own for some kinds). FNV-1a. */
static uint64_t desc_hash(const struct reg_desc *d)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *c = d->name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    h = (h ^ (uint64_t)(uint32_t)d->kind) * 1099511628211ULL;
    return (h ^ (uint64_t)(d->constant != 0)) * 1099511628211ULL;
}

int reg_agree(MPI_Comm comm, char *why, size_t wl)
{
    int n = reg_count(), c[2] = {n, -n};
    uint64_t all = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) all = (all ^ desc_hash(&reg_at(i)->d)) * 1099511628211ULL;
    uint64_t v[2] = {all, ~all}; /* max(v[0]) == ~max(v[1]) only if every process has the same */
    if (PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UINT64_T, MPI_MAX, comm) != MPI_SUCCESS) {
        snprintf(why, wl, "the processes' registries could not be compared (MPI_Allreduce failed)");
        return -1;
    }
    if (v[0] == ~v[1]) return 0;
    /* they differ (an error path: two more collectives, every process takes it) */
    if (PMPI_Allreduce(MPI_IN_PLACE, c, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) c[0] = -1;
    if (c[0] != -c[1] || c[0] < 0) {
        snprintf(why, wl, "the processes registered different numbers of items (from %d to %d): every process "
                          "must register the same items, in the same order", -c[1], c[0]);
        return -1;
    }
    uint64_t *h = malloc(2 * (size_t)(n ? n : 1) * sizeof *h);
    int bad = -1, ok = h != NULL, okall = ok;
    PMPI_Allreduce(&ok, &okall, 1, MPI_INT, MPI_MIN, comm);
    if (okall) {
        for (int i = 0; i < n; i++) h[2 * i] = desc_hash(&reg_at(i)->d), h[2 * i + 1] = ~h[2 * i];
        if (PMPI_Allreduce(MPI_IN_PLACE, h, 2 * n, MPI_UINT64_T, MPI_MAX, comm) == MPI_SUCCESS)
            for (int i = 0; i < n && bad < 0; i++)
                if (h[2 * i] != ~h[2 * i + 1]) bad = i;
    }
    free(h);
    if (bad >= 0)
        snprintf(why, wl, "registered item %d ('%s') is not the same on every process (its name, kind or "
                          "EMPI_CONSTANT flag differs): every process must register it alike", bad, reg_at(bad)->d.name);
    else
        snprintf(why, wl, "the processes' registries differ (names, kinds or EMPI_CONSTANT flags): every process "
                          "must register the same items alike");
    return -1;
}
