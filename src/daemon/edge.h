/* edge.h -- ductiled's checks of what a peer says against what the daemon
 * knows, after the schema (src/proto/schema.c) and before any other part
 * sees it (docs/protocol.md, "Authority" and "Limits"):
 *   registrations: one job per connection, the job's owner (the Unix
 *     socket's peer uid), the job's key for taking over a registration,
 *     hosts the resource manager owns within their capacity;
 *   expansions: the hosts named are the resource manager's (their names);
 *   events: a resize starts at the size the job's events left it at,
 *     departed processes are bounded by the job's counts; what is kept of
 *     an event is bounded;
 *   authority: a job's connection acts only on its own job; an operator on
 *     the jobs it owns, an administrator (root, the daemon's uid) on all;
 *     over TCP the operator's commands name the user. */
#ifndef DUCTILE_EDGE_H
#define DUCTILE_EDGE_H

#include <stddef.h>

#include <jansson.h>

#include "jobs.h"

/* The largest event details kept in a job's events (bytes of JSON); larger
 * ones are kept as {"truncated": bytes}. */
#define EDGE_EVENT_BYTES 2048

/* A "register" on connection ci: NULL when it may proceed (req may have
 * been changed: a take-over without the job's key or owner loses its "job"
 * and becomes a new job), else an error code (PERR_*) and the reason. */
const char *edge_register(int ci, json_t *req, char *why, size_t wl);
/* After jobs_register: the job's owner, key (a new one at the first
 * registration), the size its events start from, and its program name and
 * MPI without control characters. */
void edge_registered(int ci, struct job *j, const json_t *req);

/* An event or a sample (`cmd`) of job j, validated by its schema: NULL when
 * it may go on, or an error code and the reason.  A "resized" event moves
 * the job's known size; no size beyond the resource manager's capacity. */
const char *edge_event(struct job *j, const char *cmd, const json_t *req, char *why, size_t wl);
/* What is kept of an event's details (a new reference, bounded). */
json_t *edge_kept_details(const json_t *d);

/* An operator's expand or resize: each name of its "hosts" must be a host
 * of the resource manager's and becomes that host's name (under --slots:
 * "localhost" and this machine's short or long name, as for registrations).
 * NULL, or an error code (PERR_BAD_ARGUMENT) and the reason naming the
 * managed hosts (the first few). */
const char *edge_resize(const char *cmd, json_t *req, char *why, size_t wl);

/* May connection ci run request `cmd` (with `req`)?  NULL, or an error code
 * (PERR_NOT_ALLOWED) and the reason. */
const char *edge_authority(int ci, const char *cmd, const json_t *req, char *why, size_t wl);

#endif
