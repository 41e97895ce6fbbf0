/* policy.h -- the pure part of the resize engine's decisions: whether a
 * request can be carried out (sizes, sparse data, host and rank lists) and
 * which constant-data strategy applies to a method.  No MPI, no global
 * state: unit-tested in tests/unit/test_policy.c. */
#ifndef DUCTILE_POLICY_H
#define DUCTILE_POLICY_H

#include <stddef.h>

#include "../common/sizes.h"

/* A due request against the current world. */
struct policy_request {
    int ns, nd;               /* current and requested size */
    int baseline;             /* DUCTILE_RESIZE_METHOD=baseline: every process is replaced */
    int sparse;               /* sparse (EMPI_Register_sparse) data is registered */
    const char *req_list;     /* the request's list: hosts (expansion) or leaving ranks (shrink); "" none */
    const char *spawn_hosts;  /* DUCTILE_SPAWN_HOSTS, or NULL */
    const struct ductile_sizes *sizes; /* the job's size constraints (src/common/sizes.h), or NULL */
};

/* 0: the request can be carried out (nd within the job's size constraints); *list points at the hosts for the new
 * processes or the leaving ranks (r's req_list or spawn_hosts; "" = default).
 * -1: refused; why names the cause, *list is "". */
int policy_check(const struct policy_request *r, const char **list, char *why, size_t whylen);

/* Constant-data strategies (DUCTILE_REDIST_CONSTANT). */
enum { CONST_BLOCKING = 0, CONST_NB = 1, CONST_WD = 2, CONST_THREAD = 3 };

/* The strategy a setting asks for: "nb", "wd", "thread", else blocking. */
int policy_const_strategy(const char *setting);
/* The strategy that applies: nb becomes wd for the one-sided lock methods
 * (*note = 1: the sources cannot tell when the drains' reads are done);
 * thread becomes blocking without MPI_THREAD_MULTIPLE (*note = 2). */
int policy_const_effective(int strategy, int one_sided_lock, int thread_multiple, int *note);

#endif
