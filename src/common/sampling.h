/* sampling.h -- the pure parts of sampled timing (DUCTILE_TIME_SAMPLE=N,
 * docs/report.md): the random gap between two timed calls and the estimate
 * of a function's time from its timed calls.  No MPI, no state: the hot path
 * (src/core/hotpath.h) and the readers of the counters use them, and
 * tests/unit/test_sampling.c checks them. */
#ifndef DUCTILE_SAMPLING_H
#define DUCTILE_SAMPLING_H

#include <stdint.h>

/* Next state of a 32-bit xorshift generator (never 0 from a state other than 0). */
static inline uint32_t ductile_sample_next(uint32_t x)
{
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

/* Calls from one timed call to the next for 1 call in n timed: uniform in
 * 1 .. 2n-1 (mean n) from a random word r, so that a program whose calls
 * repeat with any period is not always timed at the same call of the period.
 * n <= 1: 1 (every call). */
static inline uint32_t ductile_sample_gap(uint32_t r, uint32_t n)
{
    if (n <= 1) return 1;
    uint64_t span = 2 * (uint64_t)n - 1;
    return 1 + (uint32_t)(((uint64_t)r * span) >> 32);
}

/* One call under sampled timing, with this thread's countdown *left (0 at
 * the thread's start): 1 = not timed (one call less to wait), 0 = time it
 * (then draw the next gap with ductile_sample_draw). */
static inline __attribute__((always_inline)) int ductile_sample_skip(uint32_t *left)
{
    if (__builtin_expect(*left > 1, 1)) {
        (*left)--;
        return 1;
    }
    return 0;
}

/* The countdown to the next timed call for 1 call in n, from the generator's
 * state *rng (seeded with `seed` when 0); advances the state. */
static inline uint32_t ductile_sample_draw(uint32_t *rng, uint32_t seed, uint32_t n)
{
    uint32_t x = *rng ? *rng : (seed ? seed : 1);
    x = ductile_sample_next(x);
    *rng = x;
    return ductile_sample_gap(x, n);
}

/* A function's estimated time in ticks: the `ticks` of its `counted` calls
 * that were counted with their time (or untimed local queries, 0 ticks),
 * scaled to those and the `skipped` calls whose time was not read:
 * ticks x (counted + skipped) / counted.  Exact (ticks) when nothing was
 * skipped; 0 when every call was skipped (the function then shows no time).
 * The product is taken in 128 bits (in double where there are none). */
static inline uint64_t ductile_sample_estimate(uint64_t ticks, uint64_t counted, uint64_t skipped)
{
    if (!skipped || !counted) return ticks;
#if defined(__SIZEOF_INT128__)
    unsigned __int128 p = (unsigned __int128)ticks * (counted + skipped) / counted;
    return p > UINT64_MAX ? UINT64_MAX : (uint64_t)p;
#else
    double e = (double)ticks * ((double)(counted + skipped) / (double)counted);
    return e >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)e;
#endif
}

/* The factor for a process's estimated times (their parts beyond what was
 * measured) so that, with its MPI calls one at a time (not
 * MPI_THREAD_MULTIPLE), measured + estimated x factor fits in `wall`
 * seconds: 1 when it fits already, 0 when the measured part alone fills it.
 * The report (src/monitor/report.c), the controller's samples to ductiled
 * (src/controller/appctl_msg.c) and EMPI's tcomm/tcomp use it. */
static inline double ductile_sample_clamp(double wall, double measured, double estimated)
{
    if (!(estimated > 0) || measured + estimated <= wall) return 1.0;
    return wall > measured ? (wall - measured) / estimated : 0.0;
}

#endif
