/* state.c -- the process-wide state (state.h) and the hot path's globals
 * (hotpath.h): defined here, at the floor, so that every folder reads them
 * without importing the wrappers. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "state.h"
#include "hotpath.h"

struct ductile_fn_stats ductile_stats[DUCTILE_FN_COUNT];
MPI_Comm ductile_world = MPI_COMM_WORLD;
int ductile_monitoring;
int ductile_threaded;
unsigned char ductile_iter_filter[DUCTILE_FN_COUNT];
__thread int ductile_depth __attribute__((tls_model("initial-exec")));
uint32_t ductile_time_every;
__thread uint32_t ductile_sample_left __attribute__((tls_model("initial-exec")));
static __thread uint32_t sample_rng __attribute__((tls_model("initial-exec")));

static uint32_t time_every_max;

uint32_t ductile_time_sample_set(uint32_t every)
{
    uint32_t v = every > 1 ? every : 0;
    uint32_t m = __atomic_load_n(&time_every_max, __ATOMIC_RELAXED);
    while (v > m && !__atomic_compare_exchange_n(&time_every_max, &m, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    return __atomic_exchange_n(&ductile_time_every, v, __ATOMIC_RELAXED);
}

uint32_t ductile_time_every_max(void) { return __atomic_load_n(&time_every_max, __ATOMIC_RELAXED); }

void ductile_sample_reload(void)
{
    /* seeded per thread at its first timed call: the tick and the thread's own address */
    uint32_t seed = sample_rng ? 0 : (uint32_t)ductile_ticks() ^ (uint32_t)(uintptr_t)&sample_rng ^ 0x9e3779b9u;
    ductile_sample_left = ductile_sample_draw(&sample_rng, seed, ductile_time_every_load());
}

struct ductile_runtime ductile_rt = {.private_comm = MPI_COMM_NULL};

void ductile_log(int level, const char *fmt, ...)
{
    if (ductile_rt.settings.verbose < level) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ductile[%d]: %s\n", ductile_rt.rank, buf);
}

double ductile_elapsed(void)
{
    return ductile_ticks_to_sec(ductile_ticks() - ductile_rt.start_ticks);
}
