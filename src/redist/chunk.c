/* chunk.c -- large-count arithmetic for transfers over 2 GiB (see chunk.h). */
#include "chunk.h"

#include <limits.h>

/* The one piece of process-wide state (see chunk.h): set before any transfer */
static int64_t int_limit = INT_MAX;

void chunk_set_int_limit(int64_t limit) { int_limit = limit >= 1 && limit <= INT_MAX ? limit : INT_MAX; }
int64_t chunk_int_limit(void) { return int_limit; }
int64_t chunk_piece_max(void) { return (int_limit + 1) / 2; }

int64_t chunk_count(int64_t bytes, int64_t max)
{
    if (bytes < 0 || max < 1 || max > INT_MAX) return -1;
    return bytes / max + (bytes % max != 0);
}

int chunk_piece(int64_t bytes, int64_t max, int64_t k, int64_t *off, int *len)
{
    int64_t n = chunk_count(bytes, max);
    if (n < 0 || k < 0 || k >= n || !off || !len) return -1;
    *off = k * max;
    int64_t l = bytes - *off;
    *len = (int)(l < max ? l : max);
    return 0;
}

int chunk_split(int64_t bytes, int64_t unit, int *q, int *r)
{
    if (bytes < 0 || unit < 1 || unit > INT_MAX || !q || !r) return -1;
    int64_t qq = bytes / unit;
    if (qq > INT_MAX) return -1;
    *q = (int)qq;
    *r = (int)(bytes % unit);
    return 0;
}

int chunk_fits_int(const int64_t *counts, const int64_t *displs, int n, size_t rowbytes)
{
    int64_t rb = rowbytes ? (int64_t)rowbytes : 1, lim = int_limit;
    if (rowbytes > (size_t)lim) {
        for (int i = 0; i < n; i++)
            if (counts[i]) return 0;
        return 1;
    }
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0 || displs[i] < 0) return 0;
        if (counts[i] > lim / rb || displs[i] > lim / rb) return 0;
        if ((counts[i] + displs[i]) > lim / rb) return 0;
    }
    return 1;
}

/* ceil(n / p) rows of rowbytes within the limit */
static int block_fits(int64_t n, int p, int64_t rb)
{
    int64_t rows = n / p + (n % p != 0);
    return rows <= int_limit / rb;
}

int chunk_layout_fits(int64_t n, int ns, int nd, size_t rowbytes)
{
    if (n < 0 || ns < 1 || nd < 1) return 0;
    if (n == 0 || rowbytes == 0) return 1;
    if (rowbytes > (size_t)int_limit) return 0;
    return block_fits(n, ns, (int64_t)rowbytes) && block_fits(n, nd, (int64_t)rowbytes);
}

int chunk_a2a_form(int fits_all, int forced, int have_c)
{
    int big = have_c ? CHUNK_FORM_C : CHUNK_FORM_W;
    if (forced == CHUNK_FORM_W) return CHUNK_FORM_W;
    if (forced == CHUNK_FORM_C) return big;
    return fits_all ? CHUNK_FORM_INT : big; /* auto, or int forced */
}
