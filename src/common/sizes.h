/* sizes.h -- a job's size constraints (issue 26, item 3): the process counts
 * its decomposition can use.  Pure C, no MPI: the job's decision (rank 0,
 * src/malleable/resize.c) refuses a resize to any other count with the
 * reason, ductile-run validates DUCTILE_SIZES before the job starts, and
 * controllers can ask for the nearest allowed count.  Unit-tested in
 * tests/unit/test_sizes.c.
 *
 * A specification is a comma-separated list of KEY=VALUE:
 *   min=N        fewest processes (default 1)
 *   max=N        most processes (default: no limit)
 *   step=K       counts min, min+K, min+2K, ... (default 1)
 *   allowed=A    alternatives separated by '|': squares, pow2, multiples:K,
 *                or a count N (e.g. "squares|multiples:3", "4|6|10")
 *   preferred=N  the count the job runs best at (itself allowed)
 * Keys not given keep their values. */
#ifndef DUCTILE_SIZES_H
#define DUCTILE_SIZES_H

#include <stddef.h>

#define SIZES_ALLOWED_MAX 256 /* bytes of an allowed= text */
#define SIZES_PROCS_MAX 1048576

struct ductile_sizes {
    int min, max;                     /* 0: none */
    int step;                         /* 0 or 1: any count */
    int preferred;                    /* 0: none */
    char allowed[SIZES_ALLOWED_MAX]; /* "" : any count */
};

/* Apply a specification to *s (keys not given keep their values; the result is
 * checked as a whole: min <= max, preferred allowed).  Returns 0, or -1 with
 * *s unchanged and why naming the bad part. */
int sizes_parse(const char *spec, struct ductile_sizes *s, char *why, size_t whylen);

/* 1: the job can run on n processes; 0: it cannot, why (if not NULL) says which
 * constraint excludes n. */
int sizes_allows(const struct ductile_sizes *s, int n, char *why, size_t whylen);

/* The allowed count nearest to n in direction dir (> 0: the smallest >= n,
 * < 0: the largest <= n, 0: either, the closer, ties to the smaller), looking
 * no further than limit counts away; 0 when there is none. */
int sizes_nearest(const struct ductile_sizes *s, int n, int dir, int limit);

/* The constraints as a specification (sizes_parse reads it back); "" when none. */
void sizes_format(const struct ductile_sizes *s, char *out, size_t outlen);

#endif
