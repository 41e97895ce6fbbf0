/* prep_thread.c -- the prepare step's new blocks (prepare_buffers), and
 * their preparation in a thread during the spawn and the merge where that
 * pays (prep_thread.h). */
#include "prep_thread.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* First touch of a new block: its whole pages populated for writing in one
 * call (MADV_POPULATE_WRITE: no fault per page, no pass writing zeros; the
 * same as a write per page at a low load, docs/rma.md, and 13-16 ms against
 * 19-49 ms for 32 MiB in a 4->2 shrink at a load of 20-100), the partial
 * pages at its ends written; memset where the kernel lacks it.  The contents
 * are left undefined: the transfer writes every row of a new block. */
static void touch_block(char *p, size_t bytes)
{
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)p, lo = pg > 0 ? (a + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1) : a,
              hi = pg > 0 ? (a + bytes) & ~((uintptr_t)pg - 1) : a;
    if (pg <= 0 || hi <= lo || hi - lo < 16 * (uintptr_t)pg ||
        madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0) {
        memset(p, 0, bytes);
        return;
    }
    memset(p, 0, lo - a);
    memset((char *)hi, 0, a + bytes - hi);
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
    void **prep = txn_calloc((size_t)(reg_count() ? reg_count() : 1), sizeof *prep);
    if (!prep) {
        snprintf(why, len, "rank %d: out of memory", ductile_rt.rank);
        return NULL;
    }
    if (M.persistent || my_new < 0) return prep;
    /* a shrink: the last staying process (the environment is read only there: an expansion
     * prepares in a thread while the MPI spawns) */
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
        int warm = 0;
        prep[i] = block_alloc(bytes, i, &warm);
        if (!prep[i]) {
            snprintf(why, len, "rank %d: out of memory for the new block of '%s' (%zu bytes)", ductile_rt.rank,
                     it->d.name, bytes);
            free_prepared(prep);
            return NULL;
        }
        if (touch && !warm) touch_block(prep[i], bytes); /* a kept block is resident already */
    }
    return prep;
}

void free_prepared(void **prep)
{
    for (int i = 0; prep && i < reg_count(); i++) free(prep[i]);
    free(prep);
}

static void *prep_run(void *arg)
{
    struct prep_job *j = arg;
    j->prep = prepare_buffers(j->ns, j->nd, j->me, j->my_new, j->nb, j->touch, j->why, sizeof j->why);
    return NULL;
}

void prep_start(struct prep_job *j)
{
    j->threaded = !SPAWN_COLLECTIVE && j->touch && pthread_create(&j->th, NULL, prep_run, j) == 0;
    if (!j->threaded) prep_run(j);
}

void **prep_finish(struct prep_job *j)
{
    if (j->threaded) pthread_join(j->th, NULL);
    j->threaded = 0;
    return j->prep;
}
