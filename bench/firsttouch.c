/* firsttouch.c -- the first touch of a resize's new block, alone (issue 25,
 * item 7; docs/rma.md, "The first touch"): fresh anonymous memory of MIB
 * MiB populated for writing (MADV_POPULATE_WRITE) in 4 KiB pages, the same
 * 2 MiB-aligned and advised huge (MADV_HUGEPAGE, what blockcache.c does for
 * blocks of 4 MiB and more), and written a byte per 4 KiB page; each freed
 * (munmap) after.  Milliseconds, REPS rounds.
 * usage: bench/firsttouch [MIB [REPS]] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

static double ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static char *fresh(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 32, b = mib << 20, H = (size_t)2 << 20;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (mib < 1 || reps < 1) {
        fprintf(stderr, "usage: %s [MIB [REPS]]\n", argv[0]);
        return 2;
    }
    printf("%6s %14s %10s %14s %10s %14s\n", "MiB", "4K populate", "4K unmap", "2M populate", "2M unmap",
           "4K write/page");
    for (int r = 0; r < reps; r++) {
        double t0 = ms();
        char *p = fresh(b);
        if (!p || madvise(p, b, MADV_POPULATE_WRITE) != 0) { perror("4 KiB pages"); return 1; }
        double t1 = ms();
        munmap(p, b);
        double t2 = ms();
        char *m = fresh(b + H); /* room for a 2 MiB boundary */
        if (!m) { perror("mmap"); return 1; }
        char *q = (char *)(((uintptr_t)m + H - 1) & ~(uintptr_t)(H - 1));
        if (madvise(q, b & ~(H - 1), MADV_HUGEPAGE) != 0) perror("MADV_HUGEPAGE (left with 4 KiB pages)");
        if (madvise(q, b, MADV_POPULATE_WRITE) != 0) { perror("2 MiB pages"); return 1; }
        double t3 = ms();
        munmap(m, b + H);
        double t4 = ms();
        char *w = fresh(b);
        if (!w) { perror("mmap"); return 1; }
        for (size_t i = 0; i < b; i += 4096) w[i] = 1;
        double t5 = ms();
        munmap(w, b);
        printf("%6zu %14.2f %10.2f %14.2f %10.2f %14.2f\n", mib, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4);
    }
    return 0;
}
