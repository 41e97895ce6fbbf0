/* registry.c -- the registry of the program's malleable data (see registry.h). */
#include "config.h"

#include "registry.h"

#include "../common/txnfault.h"
#include "../core/hooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct reg_item items[REG_MAX_ITEMS];
static int nitems;

/* Blocks handed out by EMPI_malloc (so that registering one transfers ownership). */
static void **tracked;
static size_t ntracked, captracked;

void *reg_malloc(size_t size, int zero)
{
    void *p = zero ? txn_calloc(1, size) : txn_malloc(size); /* counted while a resize runs here */
    if (!p) return NULL;
    if (ntracked == captracked) {
        size_t nc = captracked ? 2 * captracked : 16;
        void **t = realloc(tracked, nc * sizeof *t);
        if (!t) return p; /* untracked: still usable, only never freed by Ductile */
        tracked = t;
        captracked = nc;
    }
    tracked[ntracked++] = p;
    return p;
}

int reg_is_tracked(void *p)
{
    for (size_t i = 0; i < ntracked; i++)
        if (tracked[i] == p) return 1;
    return 0;
}

void reg_untrack_free(void *p)
{
    for (size_t i = 0; i < ntracked; i++)
        if (tracked[i] == p) {
            tracked[i] = tracked[--ntracked];
            break;
        }
    free(p);
}

int reg_add(const char *name, void *addr, MPI_Datatype type, int kind, int constant, int64_t nrows,
            int64_t row_elems, int64_t elems, char *err, size_t errlen)
{
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
        if (nitems == REG_MAX_ITEMS) {
            snprintf(err, errlen, "'%s': more than %d registered items", name, REG_MAX_ITEMS);
            return -1;
        }
        it = &items[nitems++];
        memset(it, 0, sizeof *it);
    } else if (it->owned && it->addr && it->addr != addr) {
        /* re-registration with a new buffer: the old one was ours */
        if (reg_is_tracked(it->addr)) reg_untrack_free(it->addr);
        else free(it->addr);
    }
    reg_drop_spare(it); /* a spare block of the old registration does not fit the new one */
    DUCTILE_HOOK_VOID(data_ext_free, (it)); /* so does the state of a src/data/ kind */
    snprintf(it->d.name, sizeof it->d.name, "%s", name);
    it->d.kind = kind;
    it->d.constant = constant;
    it->d.extent = (int64_t)extent;
    it->d.nrows = nrows;
    it->d.row_elems = row_elems;
    it->d.elems = elems;
    it->addr = addr;
    it->type = type;
    it->owned = addr && reg_is_tracked(addr);
    return 0;
}

struct reg_item *reg_find(const char *name)
{
    if (!name) return NULL;
    for (int i = 0; i < nitems; i++)
        if (strcmp(items[i].d.name, name) == 0) return &items[i];
    return NULL;
}

int reg_count(void) { return nitems; }
struct reg_item *reg_at(int i) { return i >= 0 && i < nitems ? &items[i] : NULL; }

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

void reg_remove(const char *name)
{
    struct reg_item *it = reg_find(name);
    if (!it) return;
    reg_drop_spare(it);
    if (it->owned && it->addr) {
        if (reg_is_tracked(it->addr)) reg_untrack_free(it->addr);
        else free(it->addr);
    }
    DUCTILE_HOOK_VOID(data_ext_free, (it));
    int i = (int)(it - items);
    memmove(&items[i], &items[i + 1], (size_t)(nitems - i - 1) * sizeof items[0]);
    nitems--;
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
        reg_drop_spare(&items[i]);
        DUCTILE_HOOK_VOID(data_ext_free, (&items[i]));
    }
    nitems = 0;
}
