/* hotpath.h -- what every wrapped MPI call runs, kept inline and lean:
 * substitution of the virtual world for MPI_COMM_WORLD, the thread-local
 * re-entry guard, tick-counter timing and the per-function counters.
 * No allocation, no locks, no system calls. */
#ifndef DUCTILE_HOTPATH_H
#define DUCTILE_HOTPATH_H

#include <mpi.h>
#include <stdint.h>

#include "functions.gen.h"
#include "../common/clock.h"

/* Per-function counters of this process (rank). */
struct ductile_fn_stats {
    uint64_t calls, ticks, bytes_sent, bytes_recv;
};
extern struct ductile_fn_stats ductile_stats[DUCTILE_FN_COUNT];

/* The communicator that stands for MPI_COMM_WORLD: MPI_COMM_WORLD itself
 * before MPI_Init, after MPI_Finalize and when Ductile is disabled; otherwise
 * Ductile's current world (a duplicate of the real one, or the resized set). */
extern MPI_Comm ductile_world;
/* 1 while monitoring (between MPI_Init and MPI_Finalize, DUCTILE_MONITOR=1). */
extern int ductile_monitoring;
/* 1 when the MPI granted MPI_THREAD_MULTIPLE: counters are updated atomically. */
extern int ductile_threaded;
/* Nonzero for the functions the iteration detector wants to see now. */
extern unsigned char ductile_iter_filter[DUCTILE_FN_COUNT];
/* Depth of nested MPI calls on this thread (Ductile's or the MPI library's). */
extern __thread int ductile_depth __attribute__((tls_model("initial-exec")));

/* Slow path of the iteration detector (src/monitor/iteration.c). */
void ductile_iter_observe(int fn, void *return_address, uint64_t ticks);

#define DUCTILE_COMM_IN(c) ((c) == MPI_COMM_WORLD ? ductile_world : (c))
#define DUCTILE_SHOULD_MONITOR() __builtin_expect(ductile_monitoring && ductile_depth == 0, 1)
#define DUCTILE_BEGIN(fn) uint64_t ductile_t0_ = ductile_enter((fn), __builtin_return_address(0))
#define DUCTILE_END(fn, s, r) ductile_leave((fn), ductile_t0_, (s), (r))

static inline uint64_t ductile_enter(int fn, void *return_address)
{
    ductile_depth++;
    uint64_t t = ductile_ticks();
    if (__builtin_expect(ductile_iter_filter[fn], 0)) ductile_iter_observe(fn, return_address, t);
    return t;
}

static inline void ductile_count(int fn, uint64_t ticks, uint64_t sent, uint64_t recv)
{
    struct ductile_fn_stats *st = &ductile_stats[fn];
    if (__builtin_expect(ductile_threaded, 0)) {
        __atomic_fetch_add(&st->calls, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&st->ticks, ticks, __ATOMIC_RELAXED);
        if (sent) __atomic_fetch_add(&st->bytes_sent, sent, __ATOMIC_RELAXED);
        if (recv) __atomic_fetch_add(&st->bytes_recv, recv, __ATOMIC_RELAXED);
    } else {
        st->calls++;
        st->ticks += ticks;
        st->bytes_sent += sent;
        st->bytes_recv += recv;
    }
}

/* Untimed local queries: one counter, no clock. */
static inline void ductile_count_call(int fn)
{
    if (__builtin_expect(ductile_threaded, 0)) __atomic_fetch_add(&ductile_stats[fn].calls, 1, __ATOMIC_RELAXED);
    else ductile_stats[fn].calls++;
}

static inline void ductile_leave(int fn, uint64_t t0, uint64_t sent, uint64_t recv)
{
    ductile_count(fn, ductile_ticks() - t0, sent, recv);
    ductile_depth--;
}

#endif
