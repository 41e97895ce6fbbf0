/* appctl.h -- the application controller: a thread on the world's rank 0
 * (started in MPI_Init only when DUCTILE_CONTROLLER names a ductiled or one
 * answers at the default per-user socket) that registers the job with
 * ductiled, streams monitoring samples, and receives commands.  It makes no
 * MPI calls: resizes are queued with ductile_request_resize() and happen at
 * the next control point, where rank 0 broadcasts them.  Socket I/O is
 * bounded; when ductiled goes away the thread reconnects with backoff and
 * the job keeps running. */
#ifndef DUCTILE_APPCTL_H
#define DUCTILE_APPCTL_H

#include <mpi.h>

struct report_reconfig;

/* MPI_Init, world rank 0, main thread: is a controller wanted?  Returns 1
 * when DUCTILE_CONTROLLER names one, or (DUCTILE_CONTROLLER unset/"auto")
 * when a ductiled answers at the default socket; 0 for "off", for processes
 * started by a resize, and when nobody answers.  One stat() when no daemon. */
int ductile_appctl_probe(void);

/* MPI_Init, every rank, after the decision was broadcast: when enabled,
 * gathers the host names on the private communicator and starts the thread
 * on rank 0.  Does nothing when enabled is 0. */
void ductile_appctl_start(int enabled);

/* MPI_Finalize (every rank; only rank 0 has work): send the exit message
 * (bounded) and join the thread. */
void ductile_appctl_stop(void);

/* Hooks for the malleability engine, rank 0: a control point at `iteration`
 * (cheap: two atomic stores), and the record of a finished or refused
 * reconfiguration (copied; sent as an event). */
void ductile_appctl_control_point(int iteration);
void ductile_appctl_maxiter(int maxiter); /* EMPI_Monitor_end's maxiter (remaining work, docs/policies.md) */
void ductile_appctl_resized(const struct report_reconfig *r);
/* Rank 0 leaves the world: its controller moves to the new rank 0 (appctl.c). */
void ductile_appctl_send(int to, MPI_Comm comm, int tag);
void ductile_appctl_recv(int from, MPI_Comm comm, int tag);

/* MPI-IO (src/io/), rank 0.  A closed I/O phase, sent as an "io_phase"
 * event right away; the job's current iteration (control point, else the
 * iteration detector); the exclusive-I/O token: ask ductiled and wait for
 * the grant (returns 1 granted, 0 when no controller is connected, with
 * the seconds waited), and give it back. */
struct io_phase;
void ductile_appctl_io_phase(const struct io_phase *p, double start_epoch);
long long ductile_appctl_iteration(void);
int ductile_appctl_io_acquire(double *waited);
void ductile_appctl_io_release(double kept);

#endif
