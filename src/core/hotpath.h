/* hotpath.h -- what every wrapped MPI call runs, kept inline and lean:
 * substitution of the virtual world for MPI_COMM_WORLD, the thread-local
 * re-entry guard, tick-counter timing and the per-function counters.
 * No allocation, no locks, no system calls.
 *
 * Timing: the start tick is read right before the real call and the end tick
 * right after it (DUCTILE_STOP), before any of Ductile's own bookkeeping
 * (byte rules, status look-ups, iteration detector), so MPI time is the real
 * call's time only.  The iteration detector runs before the start tick and
 * uses the previous call's end tick as its timestamp (no clock read).
 *
 * Counters: every access is atomic (relaxed), so the controller thread may
 * read them at any time without a data race.  Single-threaded processes use a
 * relaxed load and store (plain moves on x86-64, no lock prefix); with
 * MPI_THREAD_MULTIPLE a relaxed fetch-add.
 *
 * Sampled timing (DUCTILE_TIME_SAMPLE=N > 1, or ductile_time_sample()):
 * a per-thread countdown with a random gap (src/common/sampling.h) picks
 * 1 call in N to time; the others read no clock (start tick 0 stands for
 * "not timed": the TSC and CLOCK_MONOTONIC are never 0 after boot) and count
 * one `skipped` call and their bytes.  `calls` counts the rest (timed calls
 * and untimed local queries): a function's calls are calls + skipped and its
 * time is estimated from its timed calls (ductile_fn_calls, ductile_fn_ticks).
 * Without sampling, `skipped` stays 0 and the path is the one above plus a
 * test of a global and of the start tick.  MPI-IO calls are always timed
 * (DUCTILE_BEGIN_TIMED): the I/O monitor uses their start tick. */
#ifndef DUCTILE_HOTPATH_H
#define DUCTILE_HOTPATH_H

#include <mpi.h>
#include <stdint.h>

#include "functions.gen.h"
#include "../common/clock.h"
#include "../common/sampling.h"
#include "../core/fold_hot.h"

/* Internal symbols the hot path uses: hidden, so the wrappers reach them
 * directly instead of through the GOT/PLT. */
#define DUCTILE_HOT __attribute__((visibility("hidden")))
/* The hot path's helpers are inlined in every wrapper, whatever the
 * compiler's size heuristics say (with hundreds of wrappers in one file it
 * otherwise calls some of them out of line). */
#define DUCTILE_INLINE static inline __attribute__((always_inline))

/* Per-function counters of this process (rank).  Read them only with
 * ductile_stat_load(). */
struct ductile_fn_stats {
    uint64_t calls, ticks, bytes_sent, bytes_recv;
    uint64_t skipped; /* calls not timed by sampled timing (not part of calls) */
};
extern DUCTILE_HOT struct ductile_fn_stats ductile_stats[DUCTILE_FN_COUNT];

/* The communicator that stands for MPI_COMM_WORLD: MPI_COMM_WORLD itself
 * before MPI_Init, after MPI_Finalize and when Ductile is disabled; otherwise
 * Ductile's current world (a duplicate of the real one, or the resized set). */
extern DUCTILE_HOT MPI_Comm ductile_world;
/* 1 while monitoring (between MPI_Init and MPI_Finalize, DUCTILE_MONITOR=1). */
extern DUCTILE_HOT int ductile_monitoring;
/* 1 when the MPI granted MPI_THREAD_MULTIPLE: counters are updated atomically. */
extern DUCTILE_HOT int ductile_threaded;
/* Iteration detector filter per function: 0 = not observed, 1 = observe
 * every call, 2 = observe only calls from ductile_iter_site (the loop head's
 * call site, once the loop is locked). */
extern DUCTILE_HOT unsigned char ductile_iter_filter[DUCTILE_FN_COUNT];
extern DUCTILE_HOT void *ductile_iter_site;
/* Sampled timing: 0 = time every call, N > 1 = time 1 call in N (read
 * relaxed: ductile_time_sample() may change it while other threads call). */
extern DUCTILE_HOT uint32_t ductile_time_every;
/* This thread's calls left until the next timed one (0 at the thread's start:
 * its first call is timed), and its random generator's state. */
extern __thread uint32_t ductile_sample_left __attribute__((tls_model("initial-exec")));
/* Slow path: a timed call was picked; draw the next gap (src/core/state.c). */
DUCTILE_HOT void ductile_sample_reload(void);
/* Set the rate (1 or 0: every call); returns the one before (0: every call).
 * ductile_time_every_max(): the largest rate this process has used. */
uint32_t ductile_time_sample_set(uint32_t every);
uint32_t ductile_time_every_max(void);
/* Depth of nested MPI calls on this thread (Ductile's or the MPI library's). */
extern __thread int ductile_depth __attribute__((tls_model("initial-exec")));
/* End tick of this thread's previous timed call (the detector's timestamp). */
extern __thread uint64_t ductile_last_end __attribute__((tls_model("initial-exec")));

/* Slow path of the iteration detector (src/monitor/iteration.c). */
DUCTILE_HOT void ductile_iter_observe(int fn, void *return_address, uint64_t ticks);

#define DUCTILE_COMM_IN(c) ((c) == MPI_COMM_WORLD ? ductile_world : (c))
#define DUCTILE_SHOULD_MONITOR() __builtin_expect(ductile_monitoring && ductile_depth == 0, 1)
#define DUCTILE_BEGIN(fn) uint64_t ductile_t0_ = ductile_enter((fn), __builtin_return_address(0))
/* The same, always timed, also under sampled timing (MPI-IO: the I/O monitor needs the start tick). */
#define DUCTILE_BEGIN_TIMED(fn) uint64_t ductile_t0_ = ductile_enter_timed((fn), __builtin_return_address(0))
/* Read the end tick (if the call is timed): call right after the real call. */
#define DUCTILE_STOP() uint64_t ductile_t1_ = __builtin_expect(ductile_t0_ != 0, 1) ? ductile_ticks() : 0
#define DUCTILE_FINISH(fn, s, r) ductile_finish((fn), ductile_t0_, ductile_t1_, (s), (r))
/* Both at once, for calls with no bookkeeping after the real call. */
#define DUCTILE_END(fn, s, r) ductile_leave((fn), ductile_t0_, (s), (r))

DUCTILE_INLINE uint64_t ductile_stat_load(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

DUCTILE_INLINE void ductile_stat_add(uint64_t *p, uint64_t v)
{
    if (__builtin_expect(ductile_threaded, 0)) __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    else __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

DUCTILE_INLINE uint32_t ductile_time_every_load(void) { return __atomic_load_n(&ductile_time_every, __ATOMIC_RELAXED); }

DUCTILE_INLINE uint64_t ductile_enter_timed(int fn, void *return_address)
{
    ductile_depth++;
    unsigned char f = ductile_iter_filter[fn];
    /* the detector's timestamp: the previous call's end tick, or (sampled
     * timing: the previous call may not have read the clock) a fresh one */
    if (__builtin_expect(f != 0, 0) && (f == 1 || return_address == ductile_iter_site))
        ductile_iter_observe(fn, return_address, ductile_time_every_load() ? ductile_ticks() : ductile_last_end);
    return ductile_ticks();
}

/* Start tick of a wrapped call, or 0 when sampled timing leaves it untimed. */
DUCTILE_INLINE uint64_t ductile_enter(int fn, void *return_address)
{
    if (__builtin_expect(ductile_time_every_load() != 0, 0)) {
        if (ductile_sample_skip(&ductile_sample_left)) {
            ductile_depth++;
            unsigned char f = ductile_iter_filter[fn];
            if (__builtin_expect(f != 0, 0) && (f == 1 || return_address == ductile_iter_site))
                ductile_iter_observe(fn, return_address, ductile_ticks());
            return 0;
        }
        ductile_sample_reload();
    }
    return ductile_enter_timed(fn, return_address);
}

DUCTILE_INLINE void ductile_count(int fn, uint64_t ticks, uint64_t sent, uint64_t recv)
{
    struct ductile_fn_stats *st = &ductile_stats[fn];
    ductile_stat_add(&st->calls, 1);
    ductile_stat_add(&st->ticks, ticks);
    if (sent) ductile_stat_add(&st->bytes_sent, sent);
    if (recv) ductile_stat_add(&st->bytes_recv, recv);
}

/* Bytes only (an operation completed after the call that started it). */
DUCTILE_INLINE void ductile_count_bytes(int fn, uint64_t sent, uint64_t recv)
{
    if (sent) ductile_stat_add(&ductile_stats[fn].bytes_sent, sent);
    if (recv) ductile_stat_add(&ductile_stats[fn].bytes_recv, recv);
}

/* Untimed local queries: one counter, no clock. */
DUCTILE_INLINE void ductile_count_call(int fn) { ductile_stat_add(&ductile_stats[fn].calls, 1); }

DUCTILE_INLINE void ductile_finish(int fn, uint64_t t0, uint64_t t1, uint64_t sent, uint64_t recv)
{
    if (__builtin_expect(t0 != 0, 1)) {
        ductile_last_end = t1;
        ductile_count(fn, t1 - t0, sent, recv);
    } else {
        ductile_stat_add(&ductile_stats[fn].skipped, 1);
        ductile_count_bytes(fn, sent, recv);
    }
    ductile_depth--;
}

DUCTILE_INLINE void ductile_leave(int fn, uint64_t t0, uint64_t sent, uint64_t recv)
{
    ductile_finish(fn, t0, __builtin_expect(t0 != 0, 1) ? ductile_ticks() : 0, sent, recv);
}

/* A function's calls (exact) and time in ticks (estimated under sampled
 * timing), for the readers of the counters (report, controller, EMPI). */
static inline uint64_t ductile_fn_calls(int fn)
{
    return ductile_stat_load(&ductile_stats[fn].calls) + ductile_stat_load(&ductile_stats[fn].skipped);
}
static inline uint64_t ductile_fn_ticks(int fn)
{
    return ductile_sample_estimate(ductile_stat_load(&ductile_stats[fn].ticks), ductile_stat_load(&ductile_stats[fn].calls),
                                   ductile_stat_load(&ductile_stats[fn].skipped));
}

#endif
