/* chunk.c -- large-count arithmetic for transfers over 2 GiB (see chunk.h). */
#include "chunk.h"

#include <limits.h>

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
    int64_t rb = rowbytes ? (int64_t)rowbytes : 1;
    if (rowbytes > (size_t)INT_MAX) {
        for (int i = 0; i < n; i++)
            if (counts[i]) return 0;
        return 1;
    }
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0 || displs[i] < 0) return 0;
        if (counts[i] > INT_MAX / rb || displs[i] > INT_MAX / rb) return 0;
        if ((counts[i] + displs[i]) > INT_MAX / rb) return 0;
    }
    return 1;
}
