/* reconf.h -- the reconfiguration hooks' side in the engine: the commit
 * paths say what changed (reconf_committed), the control point and
 * EMPI_Get_shared run the program's callbacks once (reconf_end).  The
 * program's side is ductile_on_reconfigure / EMPI_Set_reconfig_hook
 * (include/ductile.h, include/empi.h). */
#ifndef DUCTILE_RECONF_H
#define DUCTILE_RECONF_H

#include <mpi.h>

/* Where EMPI_Reconfig_comm takes its communicator over the old and the new
 * processes from. */
enum {
    RECONF_SPAN_NONE = 0,  /* none (the removed processes stand by: they do not run the hooks now) */
    RECONF_SPAN_WORLD = 1, /* the new world's private communicator (Merge expansion: old ranks first) */
    RECONF_SPAN_COMM = 2   /* the communicator given (shrink: the old world; Baseline: the merged one) */
};

/* A control point starts: EMPI_Get_reconfig forgets the previous one. */
void reconf_begin(void);
/* A resize committed on this process (every commit path calls it once, with
 * the world already switched or about to be): old and new size, this
 * process's ranks (-1: not in that world), the control point's iteration and
 * where the span comes from.  base must stay valid until reconf_end (see
 * reconf_defer_free). */
void reconf_committed(int id, int ns, int nd, int baseline, int old_rank, int new_rank, int iteration, int span,
                      MPI_Comm base);
/* Free *c after the hooks have run (at reconf_end) instead of now; *c becomes MPI_COMM_NULL. */
void reconf_defer_free(MPI_Comm *c);
/* The control point (or EMPI_Get_shared) ends: if a resize committed, N-D
 * blocks get their new communicators and the callbacks run, once; then the
 * deferred communicators are freed. */
void reconf_end(void);

#endif
