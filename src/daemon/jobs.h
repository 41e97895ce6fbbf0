/* jobs.h -- ductiled's job table (pure C, no sockets): registration,
 * monitoring history (the performance modeler's per-application records),
 * the I/O period of the CLARISSE/FlexMPI paper (Eq. 1: P_IO = T_cpu + T_comm
 * + T_IO between two I/O phases), the dry-run cost of a resize, and the
 * state file that lets a restarted ductiled keep its jobs.
 *
 * One truth about every job (jobs_place.c): the host of each rank, the
 * processes that left the world but still run (parked, per host), those on
 * standby, the commands ductiled sent it with the slots they reserve
 * (jobs_queue.c), and its fold; the job's slots in the resource manager are
 * always exactly what this says (jobs_place), and every view (status, list,
 * slots, the state file) is drawn from it.  It changes with the job's
 * registration, its "resized" events (the resize names its command, so a
 * shrink knows its ranks and an expansion its reserved hosts), the queue it
 * reports, cancels, folds and its end. */
#ifndef DUCTILE_JOBS_H
#define DUCTILE_JOBS_H

#include <jansson.h>

#include "history.h"
#include "rm.h"

#define JOBS_HISTORY 512      /* samples kept per job */
#define JOBS_SAVED_HISTORY 64 /* samples kept in the state file */
/* Seconds a command may stay sent-but-unanswered or running-but-unreported
 * before its reservation is given back (a queued command keeps it as long
 * as it is queued); ductiled --pending-ttl. */
#define JOBS_PENDING_TTL 120.0
#define JOBS_MAX_QUEUED 16    /* the job's REQUEST_QUEUE_MAX */

enum job_state { JOB_RUNNING, JOB_DISCONNECTED, JOB_EXITED, JOB_CRASHED, JOB_LOST };

/* A resize ductiled sent a job: sent (no answer yet), queued (in the job's
 * queue of delayed commands), taken (left the queue: running until the job
 * reports its "resized" event).  An expansion reserves its slots (res[k]:
 * the rm host of each) until then. */
enum cmd_state { CMD_SENT, CMD_QUEUED, CMD_TAKEN };
struct jcmd {
    int id;              /* the job's command id (0 while sent) */
    long long fwd;       /* the request id ductiled sent it with */
    enum cmd_state state;
    char op[8];          /* expand, shrink, resize */
    int n;               /* expand / shrink: processes; resize: the target */
    long long at;        /* at_iteration (-1: the next control point) */
    int nres, *res;      /* reserved slots and their hosts */
    char *list;          /* ranks that leave (shrink: a rank set, src/common/rankset.h) or hosts (expand, ';'-separated); malloc'ed, never NULL */
    double since;        /* sent, or taken */
    int by_daemon;       /* ductiled's own (the I/O policy) */
};

struct job {
    int id;
    char tag[64];
    long pid;
    long long uid;    /* the job's owner: the Unix socket's peer uid, over TCP the uid it registered with (-1 unknown) */
    double start;     /* the job's start time, epoch seconds (0 unknown) */
    char binary[512];
    char mpi[65];
    char launcher[16]; /* how it was started: mpiexec, srun-pmi2, srun-pmix, srun (registration's "launcher") */
    int procs, malleable; /* malleable: its libductile can resize it */
    int cp_seen;      /* a sample said it reached a control point: only then can it be resized */
    enum job_state state;
    int exit_status;
    double registered, last_seen, disconnected_at; /* epoch seconds */
    json_t *arrays;   /* [{name, elements, elem_size}] */
    struct history hist; /* samples, oldest first (history.c: compact, allocated once) */
    json_t *events;   /* resize and command events, oldest first (bounded) */
    /* where its processes are (jobs_place.c) */
    int *rank_host;   /* [procs]: rm host of each rank, -1 a host ductiled does not manage (no slot) */
    int rank_cap;
    int guessed;      /* some ranks' hosts were guessed (a resize nobody placed): Slurm gives no host back */
    int *parked_on;   /* per rm host: removed processes still alive until the job ends (they hold slots) */
    int *standby_host, nstandby, standby_cap; /* DUCTILE_PERSISTENT: removed processes on standby (no slot) */
    int *shrunk_on;   /* per rm host: a shrink took processes from it (cleared by whoever gives hosts back) */
    int fold_cores;   /* folded to this many cores per host (0: not folded): its running processes hold fewer slots */
    struct jcmd *cmds; /* commands ductiled sent it (jobs_queue.c) */
    int ncmds;
    int size_seen, size_seen_n; /* samples reporting a size no resize event explained */
    int reg_procs;    /* the size the job stated at its last registration */
    int min_procs, max_procs; /* bounds for the policies (registration, or the queue that started it; 0 none) */
    json_t *pmix;     /* what PMIx told the job at start (registration), or NULL */
    /* drawn from the above by jobs_place */
    int *alloc;       /* slots per rm host */
    int pending;      /* slots reserved for its commands' expansions */
    int parked;       /* removed processes still alive */
    int exited;       /* removed processes that ended at once (their slots were given back) */
    int io_held;
    double period;
    long long iteration, samples;
    long long maxiter; /* the last sample's maxiter (EMPI_Monitor_end's itmax; 0 unknown) */
    int time_sample;  /* the last sample's time_sample: its times estimated from 1 call in N (DUCTILE_TIME_SAMPLE); 1 every call */
    int conn;         /* daemon connection index, -1 when not connected */
    /* I/O policy: the -P of a Phase Shift still to send after its +P
     * (kept in the state file, so that a restarted daemon still sends it) */
    int io_shrink_n, io_shrink_from;
    long long io_shrink_at;
    /* the edge (edge.c): the size the job's registration and resize events
     * left it at (a "resized" event starts there), and the key that a
     * take-over of its registration must show (64 hex digits, "" none) */
    int ev_size;
    char key[65];
};

struct jobs {
    struct job **v;
    int n;
    int next_id;
    struct rm *rm;
    double pending_ttl; /* JOBS_PENDING_TTL unless set */
};

const char *job_state_name(enum job_state s);
void jobs_init(struct jobs *t, struct rm *rm);
void jobs_destroy(struct jobs *t);
struct job *jobs_get(struct jobs *t, int id);

/* Register (or re-register) a job from a validated "register" request.  A
 * request naming a previous id with the same tag and pid resumes that job.
 * Returns the job, or NULL and a reason. */
struct job *jobs_register(struct jobs *t, const json_t *req, double now, char *reason, size_t rlen);
/* Append a validated "sample" (its size is checked against the job's: a
 * size no resize event explains is adopted after three samples). */
void jobs_sample(struct jobs *t, struct job *j, const json_t *req, double now);
void jobs_event(struct job *j, const char *kind, json_t *details, double now); /* steals details */
void jobs_exit(struct jobs *t, struct job *j, int status, double now);
void jobs_lost_connection(struct jobs *t, struct job *j, double now);
/* The job's connection ends but the job goes on and comes back (a new rank 0, a reconnection):
 * disconnected, holding its slots, lost after the restore grace (jobs_expire). */
void jobs_disconnected(struct jobs *t, struct job *j, double now, const char *why);
/* Restored or disconnected jobs that did not come back within `grace`
 * seconds: lost, slots freed, left(j) called for each (NULL: none). */
int jobs_expire(struct jobs *t, double now, double grace, void (*left)(struct job *j));
/* ---- where the job's processes are and the slots they hold (jobs_place.c) */
/* Bring the job's slots in the resource manager to what its model says:
 * per host its running processes (at most fold_cores of them when folded),
 * its parked processes and its commands' reservations; none once it ended. */
void jobs_place(struct jobs *t, struct job *j);
/* The registration's rank_hosts ({host: rank set}, or one host per rank;
 * else its hosts as blocks of ranks) become the ranks' hosts. */
void jobs_place_registered(struct jobs *t, struct job *j, const json_t *req);
/* A validated "resized" event: ranks join on their reserved (or standby)
 * hosts, or leave (the command's ranks, else the highest) and park, exit or
 * stand by; the command is done; a committed resize ends a fold. */
void jobs_resized(struct jobs *t, struct job *j, const json_t *d, double now);
/* A sample's size: one no resize event explained is adopted after three samples. */
void jobs_size_seen(struct jobs *t, struct job *j, int procs, double now);
/* An "exited" event: parked processes ended ({hosts: {HOST: n}}). */
void jobs_parked_exited(struct jobs *t, struct job *j, const json_t *d, double now);
/* Processes the job runs / holds on rm host h. */
int jobs_procs_on(const struct job *j, int h);
int jobs_reserved_on(const struct job *j, int h);
/* The rm host where most of the job's ranks run (the first host up when none). */
int jobs_main_host(const struct jobs *t, const struct job *j);
/* status "hosts": [{name, procs, parked, reserved, slots}]; "rank_hosts" as {host: rank set}. */
json_t *jobs_rank_hosts_json(const struct jobs *t, const struct job *j);
json_t *jobs_hosts_json(const struct jobs *t, const struct job *j);
void jobs_place_save(const struct jobs *t, const struct job *j, json_t *o);
void jobs_place_load(struct jobs *t, struct job *j, const json_t *o);

/* ---- the commands ductiled sent a job (jobs_queue.c) */
/* A resize forwarded with request id fwd (res: the nres hosts reserved for
 * an expansion, taken from the rm already; list: ranks or hosts). */
struct jcmd *jobs_cmd_sent(struct job *j, long long fwd, const char *op, int n, const int *res, int nres,
                           const char *list, int by_daemon, double now);
/* The job answered it: queued with an id (result), or refused (ok 0): its
 * reservation goes back.  Returns the command (NULL when refused or unknown). */
struct jcmd *jobs_cmd_answered(struct jobs *t, struct job *j, long long fwd, int ok, const json_t *result, double now);
/* The job's queue as it reports it (validated; 0, or -1 when malformed):
 * commands no longer in it were taken (running). */
int jobs_queue_set(struct jobs *t, struct job *j, const json_t *list, double now);
/* Command id left the queue by cancel: the slots it reserved (given back);
 * *by_daemon set when it was ductiled's own. */
int jobs_queue_cancelled(struct jobs *t, struct job *j, int id, double now, int *by_daemon);
struct jcmd *jobs_cmd_find(struct job *j, int id);
/* Forget command c (its reservation goes back at the next jobs_place). */
void jobs_cmd_drop(struct job *j, struct jcmd *c);
void jobs_cmds_clear(struct job *j);
/* Commands sent or taken longer than t->pending_ttl ago without news: dropped
 * (an event "reservation_expired").  Returns how many. */
int jobs_cmds_expire(struct jobs *t, double now);
/* status "queued": [{id, op, n | to, at_iteration, list?, reserved, by_ductiled?}] */
json_t *jobs_queue_json(const struct job *j);
void jobs_cmds_save(const struct jobs *t, const struct job *j, json_t *o);
void jobs_cmds_load(struct jobs *t, struct job *j, const json_t *o, double now);

/* JSON views. */
json_t *jobs_summary(const struct jobs *t, const struct job *j, double now);
/* the time of an iteration: the last sample's (a running job), the run's mean (an ended one) */
double jobs_iter_time(const struct job *j);
/* jobs_list.c: the `list` result's jobs as text ("[...]"), written directly (2,000 jobs: no tree of
 * objects); brief: only what ductilectl's table shows.  NULL when out of memory. */
char *jobs_list_text(const struct jobs *t, double now, int brief, size_t *len);
json_t *jobs_status(const struct jobs *t, const struct job *j, int history, double now);
json_t *jobs_slots(const struct jobs *t);
/* I/O period analysis over the history (Eq. 1). */
json_t *jobs_io_period(const struct job *j);
/* Dry-run cost of resizing j to `to` processes. */
json_t *jobs_cost(const struct jobs *t, const struct job *j, int to);

/* State file (written atomically through a fresh O_EXCL temporary file,
 * fsync'ed, mode 0600).  jobs_save: 0 / -1 with a message.  jobs_load: 0
 * (also when there is no file), -1 when the file must not be trusted (a
 * link, another owner, writable by others), -2 when it is corrupt (the
 * caller moves it aside and starts empty). */
int jobs_save(const struct jobs *t, const char *path, char *err, size_t errlen);
/* The same in two steps (ductiled's writer, a forked child: state_writer.c): the
 * state as text (malloc'ed, NULL out of memory), and the text written. */
char *jobs_save_text(const struct jobs *t);
/* The same split (jobs_state.c): a snapshot the loop takes (sharing nothing with the table), its text
 * made by any thread (the snapshot freed); NULL out of memory. */
struct jobs_snapshot;
struct jobs_snapshot *jobs_snapshot(const struct jobs *t);
char *jobs_snapshot_text(struct jobs_snapshot *sn);
void jobs_snapshot_free(struct jobs_snapshot *sn);
int jobs_write_text(const char *text, const char *path, char *err, size_t errlen);
int jobs_load(struct jobs *t, const char *path, double now, char *err, size_t errlen);

/* For jobs_state.c: a new, empty job with this id (NULL out of memory);
 * the job's slots as {host: count}. */
struct job *jobs_new_job(struct jobs *t, int id);
json_t *jobs_alloc_json(const struct jobs *t, const struct job *j);

#endif
