/* turns.c -- what ductiled's loop turns cost (issue 25, item 4): each turn
 * (from poll's return to the next poll) is timed by the wall clock and by
 * the loop thread's CPU clock, its phases (input, timers, parts, state
 * file) by the wall clock; the longest turns and a histogram of the CPU
 * times are kept (a few counters, no allocation) and logged at exit, so a
 * run at site scale (bench/daemon-scale) tells the daemon's own work from
 * the waits a loaded machine adds.  See daemon.h. */
#include "config.h"

#include <time.h>

#include "daemon.h"

static struct {
    double t0, c0, tp; /* this turn's start (wall, CPU) and its last phase mark */
    double ph[TURN_PHASES];
    long long n, over50_wall, over50_cpu;
    double max_wall, max_cpu, max_wall_ph[TURN_PHASES];
    long long hist[24]; /* CPU time of a turn: bucket k holds [2^(k-1), 2^k) microseconds */
} T;

static double clk(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void turns_begin(void)
{
    T.t0 = T.tp = clk(CLOCK_MONOTONIC);
    T.c0 = clk(CLOCK_THREAD_CPUTIME_ID);
    for (int k = 0; k < TURN_PHASES; k++) T.ph[k] = 0;
}

void turns_mark(int phase)
{
    double t = clk(CLOCK_MONOTONIC);
    if (phase >= 0 && phase < TURN_PHASES) T.ph[phase] += t - T.tp;
    T.tp = t;
}

void turns_end(void)
{
    double w = clk(CLOCK_MONOTONIC) - T.t0, c = clk(CLOCK_THREAD_CPUTIME_ID) - T.c0;
    T.n++;
    T.over50_wall += w > 0.05;
    T.over50_cpu += c > 0.05;
    if (c > T.max_cpu) T.max_cpu = c;
    if (w > T.max_wall) {
        T.max_wall = w;
        for (int k = 0; k < TURN_PHASES; k++) T.max_wall_ph[k] = T.ph[k];
    }
    int b = 0;
    for (double us = c * 1e6; us >= 1 && b < 23; us /= 2) b++;
    T.hist[b]++;
}

/* the CPU time under which a fraction p of the turns stayed (the top of its bucket) */
static double cpu_pct(double p)
{
    long long seen = 0;
    for (int b = 0; b < 24; b++) {
        seen += T.hist[b];
        if (T.n && (double)seen >= p * (double)T.n) return b ? 1e-6 * (double)(1LL << b) : 1e-6;
    }
    return T.max_cpu;
}

void turns_log(void)
{
    if (!T.n) return;
    logmsg("loop: %lld turns; CPU per turn: 99%% under %.2f ms, 99.9%% under %.2f ms, the longest %.1f ms, %lld over 50 ms; "
           "by the clock the longest %.1f ms (input %.1f, timers %.1f, parts %.1f, state file %.1f ms), %lld over 50 ms",
           T.n, 1e3 * cpu_pct(0.99), 1e3 * cpu_pct(0.999), 1e3 * T.max_cpu, T.over50_cpu, 1e3 * T.max_wall,
           1e3 * T.max_wall_ph[TURN_INPUT], 1e3 * T.max_wall_ph[TURN_TIMERS], 1e3 * T.max_wall_ph[TURN_PARTS],
           1e3 * T.max_wall_ph[TURN_STATE], T.over50_wall);
}
