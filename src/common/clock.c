/* clock.c -- calibration of the hot-path tick counter (see clock.h). */
#include "clock.h"

static double ticks_per_sec = 1e9;
double ductile_sec_per_tick = 1e-9;

void ductile_clock_calibrate(void)
{
#if DUCTILE_CLOCK_TSC
    double s0 = ductile_now();
    uint64_t t0 = ductile_ticks();
    double s1;
    do { s1 = ductile_now(); } while (s1 - s0 < 0.005);
    uint64_t t1 = ductile_ticks();
    ticks_per_sec = (double)(t1 - t0) / (s1 - s0);
    ductile_sec_per_tick = 1.0 / ticks_per_sec;
#endif
}

void ductile_clock_refine(uint64_t t0_ticks, double t0_sec, uint64_t t1_ticks, double t1_sec)
{
#if DUCTILE_CLOCK_TSC
    if (t1_sec - t0_sec > 0.05 && t1_ticks > t0_ticks)
    {
        ticks_per_sec = (double)(t1_ticks - t0_ticks) / (t1_sec - t0_sec);
        ductile_sec_per_tick = 1.0 / ticks_per_sec;
    }
#else
    (void)t0_ticks; (void)t0_sec; (void)t1_ticks; (void)t1_sec;
#endif
}

double ductile_ticks_per_sec(void) { return ticks_per_sec; }
