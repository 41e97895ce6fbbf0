/* core.h -- ductiled's core: what its parts stand on and register with
 * (docs/ARCHITECTURE.md, "ductiled").  The core is the connections and the
 * requests they carry (server.c, requests.c, jobmsg.c), the job table with
 * the one picture of every job and its slots in the resource manager
 * (jobs*.c, rm.c), the commands sent to jobs (forward.c), the children the
 * loop never waits on (children.c) and the loop (tools/ductiled.c).
 *
 * The parts -- Slurm's resources, the job queue, process folding, the I/O
 * policy, the global policy -- each fill a struct dpart and list it with
 * DUCTILED_PART; the linker gathers them (section "ductiled_parts", as the
 * library's hook table does).  A part declares the options and requests it
 * serves; the core calls its hooks on events (a job registered, sent a
 * sample or an event, left; a command to a job was answered; every turn of
 * the loop) and asks all parts when it needs an answer (room for an
 * expansion, ranks for a shrink, whether a resize is allowed, what waiting
 * work needs, views).  A part calls the core's services below, never another
 * part by name: a new policy is one new file with its DUCTILED_PART. */
#ifndef DUCTILE_DAEMON_CORE_H
#define DUCTILE_DAEMON_CORE_H

#include <stddef.h>

#include <jansson.h>

#include "../proto/protocol.h"
#include "jobs.h"
#include "rm.h"

/* A part's option: --name [ARG]; set() validates and keeps it (0, or -1
 * with a message: ductiled exits 2). */
struct dpart_option {
    const char *name;
    const char *arg;  /* the argument's name in the help ("N", "FILE"), NULL: none */
    const char *help; /* one or more lines, each "\n"-separated, without the option */
    int (*set)(const char *arg, char *err, size_t errlen);
};

/* A request a part serves (ductilectl submit, fold, ...): the reply is its. */
struct dpart_request {
    const char *cmd;
    void (*serve)(int ci, long long id, const char *cmd, const json_t *req);
};

/* The answer to room asked for an expansion, later (Slurm's growth). */
typedef void (*core_room_fn)(void *arg, int ok, const char *reason);

struct dpart {
    const char *name;
    const struct dpart_option *options;   /* ended by a NULL name; may be NULL */
    const struct dpart_request *requests; /* ended by a NULL cmd; may be NULL */
    /* start-up, in link order: the resource manager's hosts when this part's
     * options chose it (1; 0: not chosen; -1 error), then start */
    int (*resources)(struct rm *rm, char *err, size_t errlen);
    int (*start)(char *err, size_t errlen);
    /* ---- events, after the core applied them to the job's picture */
    void (*registered)(struct job *j, const json_t *req);
    void (*sample)(struct job *j, const json_t *req);
    /* an event of the job (resized, io_*, exited, ...), and the core's own
     * "cancelled" ({ids, by_ductiled}: its queued commands were revoked) */
    void (*event)(struct job *j, const char *kind, const json_t *details, double now);
    /* the job left its connection: exited, crashed, lost, or disconnected (it comes back) */
    void (*left)(struct job *j);
    /* a command sent to the job was answered (by whoever sent it); reply:
     * what goes back to the client (may be added to; NULL when refused) */
    void (*answered)(struct job *j, const char *cmd, int ok, json_t *reply, const char *reason);
    /* a resize this part sent (core_resize) was answered */
    void (*resize_done)(struct job *j, int ok, const char *reason);
    void (*tick)(double now);
    /* ---- questions */
    /* an expansion by n does not fit the free slots: 0 no help, 1 asked
     * (cont runs later), -1 refuse with why */
    int (*make_room)(const struct job *j, int n, core_room_fn cont, void *arg, char *why, size_t wl);
    /* a shrink by n names no ranks: choose them (args "ranks") or leave it */
    void (*choose_ranks)(const struct job *j, int n, json_t *args);
    /* may job j go to procs processes?  1, or 0 and why */
    int (*may_resize)(const struct job *j, int procs, char *why, size_t wl);
    /* slots the first waiting work needs (0: none) */
    int (*waiting)(void);
    /* make `need` slots free for queue entry qid (folding): 1 if it acted; give them back when idle */
    int (*admit)(int need, int qid, double now);
    void (*admit_release)(int need, double now);
    /* views: add to a job's status and list entry, to the slots view */
    void (*status)(const struct job *j, json_t *st);
    void (*slots)(json_t *sv);
};

#define DUCTILED_PART(part)                                                                                            \
    __attribute__((used, section("ductiled_parts"))) static const struct dpart *const part##_entry = &part

/* ---- the core's state parts may read */
extern struct jobs jobs;
extern struct rm rm;
extern int verbose, draining, state_dirty;
extern char state_path[4096];
extern char core_socket[4096]; /* ductiled's Unix socket (the jobs it starts are told) */
/* facts a part publishes for the others through the core */
extern int core_hosts_named;   /* expansions tell the job their hosts (hostfile, Slurm) */
extern int core_elastic;       /* a policy resizes the jobs (the queue starts jobs at their --min) */
extern char core_policy[64];   /* its name ("" none) */
extern int core_io_wanted;     /* a policy weighs I/O: the I/O policy defaults to auto */

/* ---- services */
double wall(void); /* epoch seconds */
void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void reply_ok(int ci, long long id, json_t *result); /* steals result */
void reply_err(int ci, long long id, const char *code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int core_peer_local(int ci); /* the client is on the Unix socket (its uid is ours) */
/* Resize job j by delta (its slots granted first) at iteration at (-1 next),
 * for part `by` (its resize_done hears the answer).  0 sent, or -1 and why. */
int core_resize(const struct dpart *by, struct job *j, int delta, long long at, char *why, size_t wl);
/* Send cmd (not a resize) to job j: for client ci's request id (ci < 0:
 * nobody waits; the parts' answered hooks hear the answer).  Takes args. */
void core_send(int ci, long long id, struct job *j, const char *cmd, json_t *args);
/* Tell job j something without waiting for its answer (an I/O grant). Takes args. */
void core_notify(struct job *j, const char *cmd, json_t *args);
/* Take back from job j what ductiled gave it ("command" id or all when 0,
 * "hold", "token", "all"); the job acknowledges. */
void core_revoke(struct job *j, const char *what, int command, const char *reason);
/* Ask every part (what the questions above answer, over all parts). */
int core_may_resize(const struct job *j, int procs, char *why, size_t wl);
int core_waiting(void);
int core_admit(int need, int qid, double now);
void core_admit_release(int need, double now);

/* ---- for the core: the parts, and the hooks over all of them */
const struct dpart *const *core_parts(int *n);
void core_on_registered(struct job *j, const json_t *req);
void core_on_sample(struct job *j, const json_t *req);
void core_on_event(struct job *j, const char *kind, const json_t *details, double now);
void core_on_left(struct job *j);
void core_on_answered(struct job *j, const char *cmd, int ok, json_t *reply, const char *reason);
void core_on_tick(double now);
int core_make_room(const struct job *j, int n, core_room_fn cont, void *arg, char *why, size_t wl);
void core_choose_ranks(const struct job *j, int n, json_t *args);
void core_status(const struct job *j, json_t *st);
void core_slots(json_t *sv);
/* A part's request (1: served), and start-up: its option (1: known, 0: not
 * a part's; -1 with err when invalid), the resources, the starts. */
int core_serve(int ci, long long id, const char *cmd, const json_t *req);
int core_option(const char *name, const char *arg, char *err, size_t errlen);
int core_resources(struct rm *rm, char *err, size_t errlen);
int core_start(char *err, size_t errlen);

#endif
