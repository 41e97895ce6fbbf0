/* blockcache.c -- the new blocks of distributed items (block_alloc), and
 * the old blocks a commit replaces, kept for the next resize (block_keep):
 * a cycle (4 -> 2 -> 4 -> 2 ...) finds, from its third resize on, a block of
 * the size it needs already resident, with nothing to fault in or zero.
 *
 * The cache holds at most one block per item slot and at most
 * DUCTILE_BLOCK_CACHE_MIB in all, never more than a quarter of the memory
 * the kernel reports available (MemAvailable) when a block is kept; it is
 * emptied when an allocation of a new block fails (then retried), and at
 * MPI_Finalize.  Only blocks Ductile allocated itself are kept (never the
 * program's, never EMPI_malloc'ed ones, which go back through the registry),
 * and only on a process that stays (it has a new block).  Every block is
 * from the C heap: free() releases it, as before. */
#include "engine.h"

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>

#define KEEP_FROM ((size_t)4 << 20) /* smaller blocks are cheap to touch: freed */

struct kept {
    void *p;
    size_t size; /* malloc_usable_size */
    int item;
};
static struct kept *kept;
static int nkept, capkept;
static size_t kept_bytes;

/* A new block that is not kept comes from malloc (txn_malloc: counted, and
 * failed on purpose in tests).  Transparent huge pages (MADV_HUGEPAGE on a
 * 2 MiB-aligned block) were tried and dropped: the first touch alone was
 * faster, the shrinks about twice slower under load (docs/rma.md, "The
 * first touch"). */

static void forget(int k)
{
    kept_bytes -= kept[k].size;
    kept[k] = kept[--nkept];
}

/* DUCTILE_TEST_FAIL=blockcache@RANK (validated in src/common/txnfault.c): on that rank, the first new
 * block asked for while blocks are kept meets "memory pressure" once: no kept block is reused and the
 * first malloc is taken as failed, so the cache is given back and the allocation retried. */
static int pressure_once(void)
{
    static int done;
    if (done || !nkept || !test_fail_here("blockcache")) return 0;
    return done = 1;
}

void *block_alloc(size_t bytes, int item, int *warm)
{
    if (warm) *warm = 0;
    int pressure = pressure_once();
    if (bytes >= KEEP_FROM && !pressure) { /* a kept block that fits, wasting at most half of it: the item's own first */
        int best = -1;
        for (int k = 0; k < nkept; k++)
            if (kept[k].size >= bytes && kept[k].size / 2 <= bytes &&
                (best < 0 || (kept[k].item == item && kept[best].item != item)))
                best = k;
        if (best >= 0) {
            void *p = kept[best].p;
            ductile_log(2, "the new block of item %d (%zu bytes): one kept from an earlier resize (%zu bytes)", item,
                        bytes, kept[best].size);
            forget(best);
            if (warm) *warm = 1;
            return p;
        }
    }
    void *p = pressure ? NULL : txn_malloc(bytes);
    if (!p && nkept) { /* memory pressure: give back what is kept, once */
        ductile_log(2, "the new block of item %d (%zu bytes) could not be allocated with %d blocks kept (%zu bytes): "
                    "given back, the allocation retried", item, bytes, nkept, kept_bytes);
        block_cache_drop();
        p = txn_malloc(bytes);
    }
    return p;
}

static int grow_kept(void)
{
    int nc = capkept ? 2 * capkept : 4;
    struct kept *a = realloc(kept, (size_t)nc * sizeof *a);
    if (!a) return 0;
    kept = a;
    capkept = nc;
    return 1;
}

/* MemAvailable in bytes (0 when unknown: then nothing is kept). */
static size_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
    if (f) fclose(f);
    return (size_t)kib * 1024;
}

void block_keep(void *p, int item)
{
    size_t size = p ? malloc_usable_size(p) : 0, cap = (size_t)ductile_rt.settings.block_cache_mib << 20;
    if (size < KEEP_FROM || size > cap) {
        free(p);
        return;
    }
    for (int k = 0; k < nkept; k++)
        if (kept[k].item == item) { /* never more than one block per item */
            free(kept[k].p);
            forget(k);
            break;
        }
    while (nkept && kept_bytes + size > cap) { /* other items' blocks make room */
        free(kept[0].p);
        forget(0);
    }
    if (kept_bytes + size > mem_available() / 4 || (nkept == capkept && !grow_kept())) {
        free(p);
        return;
    }
    kept[nkept++] = (struct kept){p, size, item};
    kept_bytes += size;
}

void block_cache_drop(void)
{
    for (int k = 0; k < nkept; k++) free(kept[k].p);
    free(kept);
    kept = NULL;
    nkept = capkept = 0;
    kept_bytes = 0;
}
