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

/* The largest byte count or displacement a classic (int) MPI call is given:
 * INT_MAX, or, for tests only (DUCTILE_TEST_INT_LIMIT), a smaller value, so
 * that small data takes the large-count paths.  Process-wide, set once
 * before any transfer (src/malleable/join.c), the same in every process of
 * a job: every decision below that depends on it is then the same
 * everywhere.  limit outside [1, INT_MAX]: INT_MAX. */
void chunk_set_int_limit(int64_t limit);
int64_t chunk_int_limit(void);
/* The piece size of messages and reads cut below the limit: (limit + 1) / 2,
 * CHUNK_MAX (1 GiB) with the real limit.  Both sides of a message cut it
 * the same way, since both use this value. */
int64_t chunk_piece_max(void);

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
 * chunk_int_limit() bytes (count * rowbytes and (displ + count) * rowbytes)?
 * 1 yes, 0 no (also on overflow of the products). */
int chunk_fits_int(const int64_t *counts, const int64_t *displs, int n, size_t rowbytes);

/* ---- the form of a collective transfer, the same on every process ----
 *
 * An Alltoallv whose processes call different collectives (the int
 * MPI_Alltoallv on one, MPI_Alltoallv_c or MPI_Alltoallw on another) is
 * erroneous, and hangs with Open MPI 4.1.  A process's own counts do not
 * decide the form: in a 1 -> 2 expansion of 3 GiB the old process sends
 * 1.5 GiB at a displacement of 1.5 GiB (past INT_MAX) while the new one
 * receives 1.5 GiB at 0 (fits).  The form is decided from facts every
 * process holds alike. */
enum { CHUNK_FORM_INT = 0, CHUNK_FORM_C = 1, CHUNK_FORM_W = 2 };

/* A block-distributed array of n rows of rowbytes bytes moving from ns to
 * nd ranks (src/redist/plan.h, either remainder placement): 1 when every
 * process's counts and displacements fit chunk_int_limit() bytes, 0 when
 * some process's do not.  Every send lies inside its old block and every
 * receive inside its new one, and the largest block of n rows over p ranks
 * is ceil(n / p) rows, so this holds exactly when the largest old block and
 * the largest new block fit.  A pure function of the resize's layout, which
 * every process of the transfer holds: the agreement costs no message. */
int chunk_layout_fits(int64_t n, int ns, int nd, size_t rowbytes);

/* The form: fits_all (every process's counts fit: agreed, see above),
 * forced (the form the tests force, DUCTILE_TEST_BIGCOLL, or -1) and have_c
 * (the MPI has the large-count calls).  Below the limit the int form unless
 * another is forced; past it the large-count form where the MPI has it,
 * else MPI_Alltoallw with derived datatypes; a forced int form that does not
 * fit, or a forced C form without the calls, falls back the same way on
 * every process. */
int chunk_a2a_form(int fits_all, int forced, int have_c);

#endif
