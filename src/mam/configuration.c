/* configuration.c -- MaM's configuration (include/MAM_Configuration.h) and
 * what it means for Ductile's engine: the spawn method (Merge, Baseline), the
 * redistribution method (col, p2p, rma-lock, rma-lockall) and, for a
 * checkpoint under MAM_CHECK_COMPLETION, the background strategy of constant
 * data (MaM's pthread: Threading; wait targets: Wait Drains; otherwise NB).
 * Settings the program (or a MAM_* variable) did not give are Ductile's
 * (DUCTILE_RESIZE_METHOD, DUCTILE_REDIST, DUCTILE_REDIST_CONSTANT).  Spawn
 * strategies and the physical distribution are kept and reported
 * (MAM_Contains_strat) but change nothing: Ductile spawns its own way. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ductile.h"
#include "mam_int.h"
#include "../core/state.h"
#include "../malleable/policy.h"
#include "../malleable/steer.h"
#include "../redist/layout.h"

static const unsigned spawn_masks[MAM_STRATS_SPAWN_LEN] = {MAM_STRAT_CLEAR_VALUE, MAM_MASK_PTHREAD,
                                                          MAM_MASK_SPAWN_SINGLE, MAM_MASK_SPAWN_INTERCOMM,
                                                          MAM_MASK_SPAWN_MULTIPLE, MAM_MASK_SPAWN_PARALLEL};
static const unsigned red_masks[MAM_STRATS_RED_LEN] = {MAM_STRAT_CLEAR_VALUE, MAM_MASK_PTHREAD,
                                                      MAM_MASK_RED_WAIT_SOURCES, MAM_MASK_RED_WAIT_TARGETS};

/* Add mask to *set, removing the strategies it excludes: MAM_OK (already
 * there), MAM_STRATS_ADDED, or MAM_STRATS_MODIFIED (others removed). */
static int add_strategy(unsigned *set, unsigned mask, unsigned excludes)
{
    if (*set & mask) return MAM_OK;
    int removed = (*set & excludes) != 0;
    *set = (*set | mask) & ~excludes;
    return removed ? MAM_STRATS_MODIFIED : MAM_STRATS_ADDED;
}

static int set_spawn_strategy(unsigned s)
{
    switch (s) {
    case MAM_STRAT_SPAWN_CLEAR: MS.spawn_strats = MAM_STRAT_CLEAR_VALUE; return MAM_STRATS_MODIFIED;
    case MAM_STRAT_SPAWN_PTHREAD: return add_strategy(&MS.spawn_strats, MAM_MASK_PTHREAD, 0);
    case MAM_STRAT_SPAWN_SINGLE: return add_strategy(&MS.spawn_strats, MAM_MASK_SPAWN_SINGLE, MAM_MASK_SPAWN_PARALLEL);
    case MAM_STRAT_SPAWN_INTERCOMM: return add_strategy(&MS.spawn_strats, MAM_MASK_SPAWN_INTERCOMM, 0);
    case MAM_STRAT_SPAWN_MULTIPLE:
        return add_strategy(&MS.spawn_strats, MAM_MASK_SPAWN_MULTIPLE, MAM_MASK_SPAWN_PARALLEL);
    case MAM_STRAT_SPAWN_PARALLEL:
        return add_strategy(&MS.spawn_strats, MAM_MASK_SPAWN_PARALLEL, MAM_MASK_SPAWN_MULTIPLE | MAM_MASK_SPAWN_SINGLE);
    default: return MAM_DENIED;
    }
}

static int set_red_strategy(unsigned s)
{
    MS.red_strats_set = 1;
    switch (s) {
    case MAM_STRAT_RED_CLEAR: MS.red_strats = MAM_STRAT_CLEAR_VALUE; return MAM_STRATS_MODIFIED;
    case MAM_STRAT_RED_PTHREAD:
        return add_strategy(&MS.red_strats, MAM_MASK_PTHREAD, MAM_MASK_RED_WAIT_SOURCES | MAM_MASK_RED_WAIT_TARGETS);
    case MAM_STRAT_RED_WAIT_SOURCES:
        return add_strategy(&MS.red_strats, MAM_MASK_RED_WAIT_SOURCES, MAM_MASK_RED_WAIT_TARGETS | MAM_MASK_PTHREAD);
    case MAM_STRAT_RED_WAIT_TARGETS:
        return add_strategy(&MS.red_strats, MAM_MASK_RED_WAIT_TARGETS, MAM_MASK_RED_WAIT_SOURCES | MAM_MASK_PTHREAD);
    default: return MAM_DENIED;
    }
}

/* One key: the value set (strategies: MAM_OK / MAM_STRATS_ADDED / _MODIFIED), or MAM_DENIED. */
static int set_key(int key, int v)
{
    static const int len[MAM_KEY_COUNT] = {MAM_METHODS_SPAWN_LEN, MAM_STRATS_SPAWN_LEN,
                                           MAM_METHODS_PHYSICAL_DISTRIBUTION_LEN, MAM_METHODS_RED_LEN,
                                           MAM_STRATS_RED_LEN, 0};
    if (v < 0) return MAM_DENIED;
    switch (key) {
    case MAM_NUM_TARGETS: return MAM_Set_target_number((unsigned)v);
    case MAM_SPAWN_METHOD:
    case MAM_PHYSICAL_DISTRIBUTION:
    case MAM_RED_METHOD: {
        unsigned *p = key == MAM_SPAWN_METHOD ? &MS.spawn_method : key == MAM_RED_METHOD ? &MS.red_method
                                                                                         : &MS.spawn_dist;
        if (v >= len[key]) return (int)*p; /* out of range: unchanged, the current value */
        *p = (unsigned)v;
        if (key == MAM_SPAWN_METHOD) MS.spawn_method_set = 1;
        if (key == MAM_RED_METHOD) MS.red_method_set = 1;
        return v;
    }
    case MAM_SPAWN_STRATEGIES: return v < len[key] ? set_spawn_strategy((unsigned)v) : (int)MS.spawn_strats;
    case MAM_RED_STRATEGIES: return v < len[key] ? set_red_strategy((unsigned)v) : (int)MS.red_strats;
    default: return MAM_DENIED;
    }
}

void mam_config_init(void)
{
    int method, redist, nb, is_auto;
    engine_methods(&method, &redist, &nb, &is_auto);
    MS.def_method = method;
    MS.def_redist = redist;
    MS.def_nb = nb;
    MS.def_auto = is_auto;
    MS.spawn_method = method == STEER_BASELINE ? MAM_SPAWN_BASELINE : MAM_SPAWN_MERGE;
    MS.red_method = redist == REDIST_P2P           ? MAM_RED_POINT
                    : redist == REDIST_RMA_LOCK    ? MAM_RED_RMA_LOCK
                    : redist == REDIST_RMA_LOCKALL ? MAM_RED_RMA_LOCKALL
                                                   : MAM_RED_BASELINE;
    MS.spawn_dist = MAM_PHY_DIST_COMPACT;
    static const char *const env[MAM_KEY_COUNT] = {MAM_SPAWN_METHOD_ENV, MAM_SPAWN_STRATS_ENV,
                                                   MAM_PHYSICAL_DISTRIBUTION_METHOD_ENV, MAM_RED_METHOD_ENV,
                                                   MAM_RED_STRATS_ENV, MAM_NUM_TARGETS_ENV};
    for (int k = 0; k < MAM_KEY_COUNT; k++) {
        const char *v = getenv(env[k]);
        if (!v || !*v) continue;
        char *end;
        long x = strtol(v, &end, 10);
        if (*end || x < 0 || x > 1 << 30 || set_key(k, (int)x) == MAM_DENIED)
            if (ductile_rt.rank == 0)
                fprintf(stderr, "ductile: warning: %s='%s' is not a valid value: ignored\n", env[k], v);
    }
}

void mam_config_apply(int wait_completed)
{
    int method = MS.spawn_method_set ? (MS.spawn_method == MAM_SPAWN_BASELINE ? STEER_BASELINE : STEER_MERGE)
                                     : MS.def_method;
    int redist = -1; /* Ductile's own (DUCTILE_REDIST, auto included) */
    if (MS.red_method_set)
        redist = MS.red_method == MAM_RED_POINT         ? REDIST_P2P
                 : MS.red_method == MAM_RED_RMA_LOCK    ? REDIST_RMA_LOCK
                 : MS.red_method == MAM_RED_RMA_LOCKALL ? REDIST_RMA_LOCKALL
                                                        : REDIST_COL;
    int nb = CONST_BLOCKING;
    if (wait_completed == MAM_CHECK_COMPLETION) {
        if (MS.red_strats_set || MS.def_nb == CONST_BLOCKING)
            nb = MS.red_strats & MAM_MASK_PTHREAD             ? CONST_THREAD
                 : MS.red_strats & MAM_MASK_RED_WAIT_TARGETS ? CONST_WD
                                                              : CONST_NB;
        else
            nb = MS.def_nb; /* DUCTILE_REDIST_CONSTANT=nb|wd|thread */
    }
    int note = 0;
    engine_set_methods(method, redist, nb, &note);
    static int warned;
    if (note == 2 && !warned++ && ductile_rt.rank == 0)
        fprintf(stderr, "ductile: note: MaM's pthread redistribution (Threading) needs MPI_THREAD_MULTIPLE: "
                        "constant data moves blocking\n");
}

/* ------------------------------------------------------------------ the public calls */

void MAM_Set_configuration(int spawn_method, int spawn_strategies, int spawn_dist, int red_method, int red_strategies)
{
    if (ductile_constant_pending()) return; /* as MaM: only while no reconfiguration is under way */
    int v[5] = {spawn_method, spawn_strategies, spawn_dist, red_method, red_strategies};
    for (int k = 0; k < 5; k++)
        if (v[k] >= 0) set_key(k, v[k]);
}

void MAM_Set_key_configuration(int key, int required, int *provided)
{
    int dummy;
    if (!provided) provided = &dummy;
    *provided = MAM_DENIED;
    if (required < 0 || ductile_constant_pending()) return;
    if (key < 0 || key >= MAM_KEY_COUNT) {
        fprintf(stderr, "ductile: MAM_Set_key_configuration: key %d does not exist\n", key);
        return;
    }
    *provided = set_key(key, required);
}

int MAM_Contains_strat(int key, unsigned int strategy, int *result)
{
    int r = 0;
    if (key == MAM_SPAWN_STRATEGIES && strategy < MAM_STRATS_SPAWN_LEN) r = (MS.spawn_strats & spawn_masks[strategy]) != 0;
    if (key == MAM_RED_STRATEGIES && strategy < MAM_STRATS_RED_LEN) r = (MS.red_strats & red_masks[strategy]) != 0;
    if (result) *result = r;
    return r;
}

int MAM_Set_target_number(unsigned int numC)
{
    if (numC == 0 || numC > (unsigned)INT32_MAX || ductile_constant_pending()) return MAM_DENIED;
    MS.numC = numC;
    return (int)numC;
}

void MAM_Use_valgrind(int flag) { (void)flag; }
void MAM_Use_extrae(int flag) { (void)flag; }
