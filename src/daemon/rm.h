/* rm.h -- ductiled's resource manager (pure C, no sockets): the slots of the
 * hosts it owns (--slots N on this host, or a hostfile), per-job allocations,
 * grants and refusals of expansions with a reason (preferring the hosts a job
 * already uses), and taking slots back when a job shrinks or ends. */
#ifndef DUCTILE_RM_H
#define DUCTILE_RM_H

#include <stddef.h>

#define RM_MAX_HOSTS 1024

/* Host states kept in rm_host.away: managed, given back to the batch system,
 * lost (its node went down), a node of the cluster outside the job (known
 * under --slurm-grow), or being given back (the batch system has not
 * answered yet: nothing is granted there). */
enum { RM_UP = 0, RM_RELEASED = 1, RM_LOST = 2, RM_OUTSIDE = 3, RM_RELEASING = 4 };

struct rm_host {
    char name[256];
    int slots, used;
    int away; /* RM_UP, or why the host is not granted (any more) */
};

struct rm {
    struct rm_host *hosts;
    int nhosts;
    char source[96]; /* where the slots come from ("Slurm job 12"), for refusals; may be empty */
};

/* One host (this machine's name) with n slots. */
int rm_init_slots(struct rm *rm, const char *hostname, int n);
/* Hostfile lines: "host", "host slots=N" or "host:N"; '#' starts a comment.
 * Host names must pass proto_valid_hostname.  0 / -1 with a message. */
int rm_init_hostfile(struct rm *rm, const char *path, char *err, size_t errlen);
/* A host with `slots` slots (added to its slots when rm has it already).
 * Its index, or -1 (RM_MAX_HOSTS reached, out of memory). */
int rm_add_host(struct rm *rm, const char *name, int slots);
void rm_destroy(struct rm *rm);

int rm_total(const struct rm *rm);
int rm_free_slots(const struct rm *rm);
int rm_find(const struct rm *rm, const char *name);
/* The first few hosts' names, comma-separated, in out (", ... (N hosts)" when more). */
void rm_names(const struct rm *rm, char *out, size_t len);
/* "up", "released", "lost", "outside" or "releasing" (host i's away state). */
const char *rm_host_state(const struct rm *rm, int i);

/* A job's allocation: alloc[i] processes on host i (array of rm->nhosts). */
int *rm_alloc_new(const struct rm *rm);

/* Record processes a job already runs on `name` (at registration).  Hosts the
 * manager does not own are mapped to the first host when it is the only one
 * ("localhost" jobs under --slots), else ignored (returns 0 then).  May
 * exceed the slots (the job was started without asking): returns the count
 * recorded. */
int rm_adopt(struct rm *rm, int *alloc, const char *name, int procs);

/* Grant n more processes to a job.  With `wanted` (n host names, may repeat)
 * exactly those hosts are used; else hosts the job already uses come first
 * (most-used first), then the others in order.  On success the slots are
 * taken, out[0..n) receives the host index of each new process and 0 is
 * returned; otherwise -1 and the reason (nothing taken). */
int rm_grant(struct rm *rm, int *alloc, int n, const char *const *wanted, int *out, char *reason, size_t rlen);

/* Give back n of a job's slots (hosts the job uses least first, so that it
 * stays on its main hosts).  Returns how many were released. */
int rm_release(struct rm *rm, int *alloc, int n);
/* Give back all of a job's slots. */
void rm_release_all(struct rm *rm, int *alloc);
int rm_alloc_total(const struct rm *rm, const int *alloc);
/* Set a job's slots on host i to n (process folding: cores, not processes). */
void rm_set_host(struct rm *rm, int *alloc, int i, int n);

#endif
