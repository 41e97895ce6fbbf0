/* MAM_Configuration.h -- MaM's configuration calls, implemented by Ductile
 * (docs/mam.md says what each setting does there). */
#ifndef MAM_CONFIGURATION_H
#define MAM_CONFIGURATION_H

#include <mpi.h>

#include "MAM_Constants.h"

#define MAM_STRAT_CLEAR_VALUE 0
#define MAM_STRATS_ADDED 1
#define MAM_STRATS_MODIFIED 2

#define MAM_MASK_PTHREAD 0x01
#define MAM_MASK_SPAWN_SINGLE 0x02
#define MAM_MASK_SPAWN_INTERCOMM 0x04
#define MAM_MASK_SPAWN_MULTIPLE 0x08
#define MAM_MASK_SPAWN_PARALLEL 0x10
#define MAM_MASK_RED_WAIT_SOURCES 0x02
#define MAM_MASK_RED_WAIT_TARGETS 0x04

#ifdef __cplusplus
extern "C" {
#endif

/* Whether strategy (an ordinal of mam_spawn_strategies / mam_red_strategies)
 * is set for key (MAM_SPAWN_STRATEGIES or MAM_RED_STRATEGIES). */
int MAM_Contains_strat(int key, unsigned int strategy, int *result);
/* Methods and one strategy each (ordinals; MAM_STRAT_*_CLEAR clears);
 * out-of-range values leave that setting as it is.  Ignored while a
 * reconfiguration is pending. */
void MAM_Set_configuration(int spawn_method, int spawn_strategies, int spawn_dist, int red_method, int red_strategies);
/* One setting (enum mam_key_values); strategies are added to the set.
 * *provided: the value set, MAM_STRATS_ADDED / MAM_STRATS_MODIFIED for
 * strategies, MAM_DENIED when refused. */
void MAM_Set_key_configuration(int key, int required, int *provided);
/* The number of processes the next MAM_Checkpoint resizes to.  Returns the
 * number, or MAM_DENIED (0, or a reconfiguration pending). */
int MAM_Set_target_number(unsigned int numC);
/* Accepted; no effect (the spawned processes run the program directly). */
void MAM_Use_valgrind(int flag);
void MAM_Use_extrae(int flag);

#ifdef __cplusplus
}
#endif

#endif
