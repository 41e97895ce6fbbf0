/* clock.h -- the cheap timestamp used on the hot path.  On x86-64 the TSC
 * (no system call, ~10 ns); elsewhere CLOCK_MONOTONIC through the vDSO.
 * ticks are converted to seconds with ductile_ticks_per_sec(), calibrated
 * once in MPI_Init and refined over the whole run at MPI_Finalize. */
#ifndef DUCTILE_CLOCK_H
#define DUCTILE_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t ductile_ticks(void) { return __rdtsc(); }
#define DUCTILE_CLOCK_TSC 1
#else
static inline uint64_t ductile_ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
#define DUCTILE_CLOCK_TSC 0
#endif

/* Seconds on CLOCK_MONOTONIC (for calibration and off-hot-path use). */
static inline double ductile_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Calibrate ticks against CLOCK_MONOTONIC (a ~5 ms busy wait). */
void ductile_clock_calibrate(void);
/* Refine the calibration from two (ticks, seconds) pairs far apart. */
void ductile_clock_refine(uint64_t t0_ticks, double t0_sec, uint64_t t1_ticks, double t1_sec);
double ductile_ticks_per_sec(void);
extern double ductile_sec_per_tick;
static inline double ductile_ticks_to_sec(uint64_t ticks) { return (double)ticks * ductile_sec_per_tick; }

#endif
