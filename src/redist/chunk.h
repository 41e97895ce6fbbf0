/* chunk.h -- large-count arithmetic for transfers over 2 GiB (pure, no MPI).
 *
 * MPI's classic calls take int counts and displacements.  A process's block
 * of a registered array can be larger than INT_MAX bytes; the transfer
 * methods then either use the MPI-4 large-count (_c) calls where the library
 * has them, cut a byte range into pieces of at most CHUNK_MAX bytes (one
 * message or one MPI_Get per piece), or describe the range as one derived
 * datatype of q whole pieces plus a remainder (chunk_split).  Everything here
 * is in bytes, int64_t, never overflows for 0 <= bytes <= INT64_MAX - max. */
#ifndef DUCTILE_REDIST_CHUNK_H
#define DUCTILE_REDIST_CHUNK_H

#include <stddef.h>
#include <stdint.h>

/* Default piece size: 1 GiB, well below INT_MAX. */
#define CHUNK_MAX ((int64_t)1 << 30)

/* Number of pieces of at most max bytes (1 <= max <= INT_MAX) covering
 * bytes bytes: 0 for bytes == 0.  -1 on bad arguments. */
int64_t chunk_count(int64_t bytes, int64_t max);

/* Piece k (0 <= k < chunk_count) of a range of bytes: its offset and its
 * length (1..max, fits an int).  Returns 0, or -1 when k is out of range or
 * the arguments are bad. */
int chunk_piece(int64_t bytes, int64_t max, int64_t k, int64_t *off, int *len);

/* bytes = q * unit + r with 0 <= r < unit and q, r both fitting an int:
 * the shape of a datatype covering the range (q pieces of `unit` bytes as one
 * contiguous type, then r single bytes).  Returns 0, or -1 when q would not
 * fit an int or the arguments are bad. */
int chunk_split(int64_t bytes, int64_t unit, int *q, int *r);

/* Do n count/displacement pairs in rows of rowbytes bytes stay within
 * INT_MAX bytes (count * rowbytes and (displ + count) * rowbytes)?
 * 1 yes, 0 no (also on overflow of the products). */
int chunk_fits_int(const int64_t *counts, const int64_t *displs, int n, size_t rowbytes);

#endif
