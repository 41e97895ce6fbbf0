/* iteration.c -- feeds the iteration detector (iterdetect.c) from the hot
 * path.  While detecting, every top-level MPI call becomes a symbol: its
 * function id in the top 16 bits and a hash of the return addresses of
 * DUCTILE_ITER_FRAMES frames (libunwind's unw_backtrace, loaded with dlopen
 * when the detector starts: a process that never runs it never loads
 * libunwind) below.  Once the loop is found, the
 * hot-path filter lets only the loop head's function through, so the cost is
 * paid by one function instead of all of them; when the head's call site is
 * unique in the loop ("fast mode") the hot path itself compares the return
 * address with that site and calls in only once per iteration, with no stack
 * walk.  The detector runs only on rank 0, whose result the report and the
 * controller use; other ranks pay nothing.  Timestamps are the end tick of
 * the previous MPI call (no clock read; the observation runs outside the
 * timed region): an iteration runs from the end of the call before one
 * head to the end of the call before the next.  The program's first call
 * counts MPI_Init's end as its previous one (monitor_start sets it), so the
 * first iteration of a loop whose head is the first timed call also holds
 * what the program did since MPI_Init, as after an MPI_Barrier there; before
 * this fix it got the tick counter's origin, and time_min_s near -7.5e9 s. */
#include "config.h"

#include "iteration.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "../core/hotpath.h"
#include "../core/state.h"
#include "../core/hooks.h"

#define MAX_FRAMES 8

void *ductile_iter_site;
__thread uint64_t ductile_last_end __attribute__((tls_model("initial-exec")));

static iterdetect detector;
/* unw_backtrace from libunwind, loaded when the detector starts (NULL: only
 * the call's own return address identifies its site) */
static int (*walk_stack)(void **frames, int size);
/* detector.iterations as published for other threads (the controller) */
static uint64_t published_iterations;
static int frames_wanted = 3;
static double obs_sec_per_tick; /* the calibration the detector's seconds are in */
static int running;
static void *head_site;  /* return address of the loop head's call */
/* Fast mode: the head's return address occurs once per iteration, so after
 * the lock an iteration is recognised by that address alone, no unwinding. */
static int fast_mode;
static void *recent_site[ITERDETECT_WINDOW];
static uint64_t recent_sym[ITERDETECT_WINDOW];
static unsigned recent_pos;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t symbol_of(int fn, void *return_address)
{
    uint64_t h = (uint64_t)(uintptr_t)return_address;
    if (frames_wanted > 1 && walk_stack) {
        void *frames[MAX_FRAMES + 4];
        int n = walk_stack(frames, frames_wanted + 3);
        int k = 0;
        while (k < n && frames[k] != return_address) k++;
        for (int i = k + 1, used = 1; i < n && used < frames_wanted; i++, used++)
            h = mix(h, (uint64_t)(uintptr_t)frames[i]);
    }
    h = mix(h, (uint64_t)fn);
    return ((uint64_t)fn << 48) ^ (h & 0xffffffffffffull);
}

static void set_filter_all(int on)
{
    for (int f = 0; f < DUCTILE_FN_COUNT; f++)
        ductile_iter_filter[f] = (unsigned char)(on && !ductile_fn_iter_skip[f]);
}

void ductile_iteration_start(int enabled, int frames, int repeats, long max_calls)
{
    if (ductile_rt.rank != 0) enabled = 0; /* only rank 0's result is used */
    frames_wanted = frames < 1 ? 1 : frames > MAX_FRAMES ? MAX_FRAMES : frames;
    if (enabled && frames_wanted > 1 && !walk_stack) {
        void *lib = dlopen(DUCTILE_LIBUNWIND, RTLD_NOW | RTLD_LOCAL);
        void *sym = lib ? dlsym(lib, "unw_backtrace") : NULL;
        if (sym) {
            *(void **)&walk_stack = sym;
        } else {
            /* call sites are then told apart by their own return address only */
            ductile_log(1, "iteration detector: cannot load %s (%s); call sites use 1 frame", DUCTILE_LIBUNWIND,
                        dlerror());
        }
    }
    iterdetect_init(&detector, (unsigned)repeats, (uint64_t)(max_calls < 0 ? 0 : max_calls));
    if (!enabled && ductile_rt.rank == 0) iterdetect_disable(&detector); /* the report says "off", not "detecting" */
    head_site = NULL;
    fast_mode = 0;
    recent_pos = 0;
    ductile_iter_site = NULL;
    __atomic_store_n(&published_iterations, 0, __ATOMIC_RELAXED);
    running = enabled;
    obs_sec_per_tick = ductile_sec_per_tick;
    /* MPI_Init's end (this runs at its end, after a spawned process joined its parents) is the
     * previous call of the program's first MPI call: a loop whose head is the first timed call
     * gets a first iteration like any other's, as if the program had called MPI_Barrier here */
    ductile_last_end = ductile_ticks();
    set_filter_all(enabled);
    ductile_log(2, "iteration detector %s (frames %d, repeats %d)", enabled ? "on" : "off", frames_wanted, repeats);
}

void ductile_iteration_stop(void)
{
    running = 0;
    set_filter_all(0);
    ductile_iter_site = NULL;
}

/* At the lock: find the head's call site among the recent calls and check
 * that no other call of the last period comes from the same address. */
static void choose_mode(void)
{
    uint64_t head = iterdetect_head(&detector);
    unsigned period = iterdetect_period(&detector);
    head_site = NULL;
    fast_mode = 0;
    if (period == 0 || period > ITERDETECT_WINDOW) return;
    for (unsigned k = 1; k <= period; k++) {
        unsigned i = (recent_pos - k) & (ITERDETECT_WINDOW - 1);
        if (recent_sym[i] == head) head_site = recent_site[i];
    }
    if (!head_site) return;
    unsigned same_site = 0;
    for (unsigned k = 1; k <= period; k++)
        if (recent_site[(recent_pos - k) & (ITERDETECT_WINDOW - 1)] == head_site) same_site++;
    fast_mode = same_site == 1;
}

void ductile_iter_observe(int fn, void *return_address, uint64_t ticks)
{
    if (!running || ductile_threaded) return;
    /* another thread's first timed call (ductile_last_end is thread-local and starts at 0): its own
     * start stands for the missing previous end, never the tick counter's origin (issue 22) */
    if (ticks < ductile_rt.start_ticks) ticks = ductile_ticks();
    double now = ductile_ticks_to_sec(ticks - ductile_rt.start_ticks);
    if (fast_mode) {
        if (return_address == head_site && iterdetect_feed(&detector, iterdetect_head(&detector), now))
            __atomic_store_n(&published_iterations, iterdetect_iterations(&detector), __ATOMIC_RELAXED);
        return;
    }
    uint64_t sym = symbol_of(fn, return_address);
    recent_site[recent_pos & (ITERDETECT_WINDOW - 1)] = return_address;
    recent_sym[recent_pos & (ITERDETECT_WINDOW - 1)] = sym;
    recent_pos++;
    iterdetect_state before = iterdetect_get_state(&detector);
    int completed = iterdetect_feed(&detector, sym, now);
    iterdetect_state after = iterdetect_get_state(&detector);
    if (before == ITERDETECT_DETECTING && after == ITERDETECT_LOCKED) {
        int head_fn = (int)(iterdetect_head(&detector) >> 48);
        set_filter_all(0);
        if (head_fn >= 0 && head_fn < DUCTILE_FN_COUNT) ductile_iter_filter[head_fn] = 1;
        choose_mode();
        if (fast_mode && head_fn >= 0 && head_fn < DUCTILE_FN_COUNT) {
            ductile_iter_site = head_site;
            ductile_iter_filter[head_fn] = 2;
        }
        ductile_log(1, "main loop found: %u calls per iteration, head %s, %llu iterations so far (%s)",
                    iterdetect_period(&detector), ductile_fn_name[head_fn],
                    (unsigned long long)iterdetect_iterations(&detector),
                    fast_mode ? "tracked by call site" : "tracked by stack");
    } else if (after == ITERDETECT_GAVE_UP && before != ITERDETECT_GAVE_UP) {
        set_filter_all(0);
        ductile_log(1, "no main loop found in the first %ld MPI calls; detector off",
                    ductile_rt.settings.iter_max_calls);
    }
    if (after == ITERDETECT_LOCKED && sym == iterdetect_head(&detector) && !head_site)
        head_site = return_address;
    if (completed || after != before)
        __atomic_store_n(&published_iterations, iterdetect_iterations(&detector), __ATOMIC_RELAXED);
}

uint64_t ductile_iteration_count(void) { return __atomic_load_n(&published_iterations, __ATOMIC_RELAXED); }

const iterdetect *ductile_iteration_detector(void) { return &detector; }

double ductile_iteration_time_scale(void)
{
    return obs_sec_per_tick > 0 ? ductile_sec_per_tick / obs_sec_per_tick : 1.0;
}

int ductile_iteration_head_fn(void)
{
    if (iterdetect_get_state(&detector) != ITERDETECT_LOCKED) return -1;
    return (int)(iterdetect_head(&detector) >> 48);
}

void ductile_iteration_head_name(char *out, size_t len)
{
    int fn = ductile_iteration_head_fn();
    if (fn < 0 || fn >= DUCTILE_FN_COUNT) {
        if (len) out[0] = '\0';
        return;
    }
    Dl_info info;
    if (head_site && dladdr(head_site, &info) && info.dli_fname) {
        const char *obj = strrchr(info.dli_fname, '/');
        obj = obj ? obj + 1 : info.dli_fname;
        if (info.dli_sname)
            snprintf(out, len, "%s from %s+0x%lx in %s", ductile_fn_name[fn], info.dli_sname,
                     (unsigned long)((char *)head_site - (char *)info.dli_saddr), obj);
        else
            snprintf(out, len, "%s from %s+0x%lx", ductile_fn_name[fn], obj,
                     (unsigned long)((char *)head_site - (char *)info.dli_fbase));
    } else {
        snprintf(out, len, "%s", ductile_fn_name[fn]);
    }
}

/* src/wrap's MPI_Init / MPI_Finalize and ductile_iterations() reach the detector through the hook table. */
DUCTILE_REGISTER(iteration_register)
{
    h->monitor_start = ductile_iteration_start;
    h->monitor_stop = ductile_iteration_stop;
    h->iteration_count = ductile_iteration_count;
}
