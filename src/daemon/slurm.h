/* slurm.h -- ductiled's resources from a Slurm allocation (ductiled --slurm):
 * the job's hosts and CPUs from Slurm's environment and scontrol, where each
 * process of each ductile job runs (rank -> host, from registration, grants
 * and the shrinks ductiled orders), hosts given back to Slurm when a shrink
 * empties them (scontrol update JobId=J NodeList=...), and a periodic check
 * that ductiled's view matches Slurm's (hosts lost, the job ended).
 * After start-up every Slurm command runs without blocking the loop
 * (children.h), killed after SLURM_WAIT seconds.  See docs/cluster.md. */
#ifndef DUCTILE_SLURM_H
#define DUCTILE_SLURM_H

#include <stddef.h>

#include <jansson.h>

#include "jobs.h"
#include "rm.h"
#include "slurm_grow.h"

/* Build rm from the Slurm job `jobid` (NULL: $SLURM_JOB_ID): hosts and CPUs
 * from scontrol show job (falling back to SLURM_JOB_NODELIST and
 * SLURM_JOB_CPUS_PER_NODE).  0, or -1 with a message. */
int slurm_init(struct rm *rm, const char *jobid, double sync_period, char *err, size_t errlen);
int slurm_enabled(void);
/* --slurm-grow (after slurm_init): expansions the allocation cannot hold
 * ask Slurm for more hosts (slurm_grow.h).  0, or -1 with a message. */
int slurm_enable_grow(char *err, size_t errlen);
/* Before an expansion by n (no hosts named) is granted: under --slurm-grow,
 * when the free slots do not suffice, grow the Slurm job.  0: go on to
 * rm_grant; 1: Slurm was asked (without waiting), cont(arg, ok, reason)
 * runs when it answered; -1: refuse, with the reason. */
int slurm_make_room(const struct job *j, int n, slurm_grown_fn cont, void *arg, char *reason, size_t rlen);
/* Periodic check against Slurm (called from the poll loop at most every
 * sync_period seconds; its commands run without waiting, one check at a time). */
void slurm_tick(double now);

/* Hooks from the requests (commands.c). */
void slurm_registered(const struct job *j, const json_t *req);
/* A shrink by n ductiled forwards: when the request names no ranks, choose
 * ranks that empty hosts (least-used host first) and put them in args. */
void slurm_choose_ranks(const struct job *j, int n, json_t *args);
void slurm_event(struct job *j, const char *kind, const json_t *details);
void slurm_job_ended(const struct job *j);
/* {job, hosts: [{name, cpus, state, procs, parked, why}]} or NULL when off. */
json_t *slurm_view(void);

#endif
