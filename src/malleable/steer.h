/* steer.h -- what the layers above the engine (src/mam) may set or read in
 * it: the methods of the next resize, and, in a spawned process before
 * EMPI_Get_shared, the items the running processes registered. */
#ifndef DUCTILE_STEER_H
#define DUCTILE_STEER_H

#include "registry.h"

/* Methods, as in the engine (engine.h, src/redist/layout.h, policy.h). */
enum { STEER_MERGE = 0, STEER_BASELINE = 1 };

/* The methods the next resize uses: *method STEER_MERGE/BASELINE, *redist a
 * REDIST_* method (src/redist/layout.h), *nb a CONST_* strategy (policy.h);
 * *is_auto 1 under DUCTILE_REDIST=auto.  The values DUCTILE_* set, or the
 * latest engine_set_methods. */
void engine_methods(int *method, int *redist, int *nb, int *is_auto);
/* Set them (every process alike; rank 0's decide).  redist -1 keeps the
 * current one (and auto), nb goes through policy_const_effective: nb with a
 * one-sided lock method becomes wd, thread without MPI_THREAD_MULTIPLE
 * becomes blocking (*note 1 or 2, else 0). */
void engine_set_methods(int method, int redist, int nb, int *note);
/* In a spawned process between MPI_Init and EMPI_Get_shared: the items the
 * running processes registered, in order (n of them); NULL and 0 otherwise. */
const struct reg_desc *engine_join_items(int *n);

/* The job's size constraints (src/common/sizes.h; ductile_set_sizes in
 * include/ductile.h): a copy, safe from any thread. */
struct ductile_sizes;
void engine_sizes(struct ductile_sizes *out);
/* DUCTILE_MIN_PROCS, DUCTILE_MAX_PROCS and DUCTILE_SIZES as constraints:
 * 0, or -1 with err naming the bad setting.  store: make them the job's. */
int engine_sizes_from_settings(int store, char *err, size_t errlen);

#endif
