/* jobs.h -- ductiled's job table (pure C, no sockets): registration,
 * monitoring history (the performance modeler's per-application records),
 * the I/O period of the CLARISSE/FlexMPI paper (Eq. 1: P_IO = T_cpu + T_comm
 * + T_IO between two I/O phases), slot bookkeeping with the resource
 * manager, the dry-run cost of a resize, and the state file that lets a
 * restarted ductiled keep its jobs. */
#ifndef DUCTILE_JOBS_H
#define DUCTILE_JOBS_H

#include <jansson.h>

#include "rm.h"

#define JOBS_HISTORY 512      /* samples kept per job */
#define JOBS_SAVED_HISTORY 64 /* samples kept in the state file */
#define JOBS_PENDING_TTL 120.0 /* seconds a granted, not yet used expansion holds its slots */

enum job_state { JOB_RUNNING, JOB_DISCONNECTED, JOB_EXITED, JOB_CRASHED, JOB_LOST };

struct job {
    int id;
    char tag[64];
    long pid;
    long long uid;    /* the job's owner: the Unix socket's peer uid, over TCP the uid it registered with (-1 unknown) */
    double start;     /* the job's start time, epoch seconds (0 unknown) */
    char binary[512];
    char mpi[65];
    int procs, malleable;
    enum job_state state;
    int exit_status;
    double registered, last_seen, disconnected_at; /* epoch seconds */
    json_t *hosts;    /* [{name, procs}] as registered */
    json_t *arrays;   /* [{name, elements, elem_size}] */
    json_t *history;  /* samples, oldest first */
    json_t *events;   /* resize and command events, oldest first (bounded) */
    json_t *queued;   /* the job's delayed commands [{id, op, n | to, at_iteration, list?, reserved}]
                       * as it last reported them (reserved: slots ductiled holds for it) */
    int *alloc;       /* slots per rm host */
    int pending;      /* granted slots not yet filled by new processes */
    int parked;       /* removed processes still alive until the job ends (they hold slots; exited ones do not) */
    int exited;       /* removed processes that ended at once (their slots were given back) */
    double pending_since;
    int io_held;
    double period;
    long long iteration, samples;
    long long maxiter; /* the last sample's maxiter (EMPI_Monitor_end's itmax; 0 unknown) */
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
};

const char *job_state_name(enum job_state s);
void jobs_init(struct jobs *t, struct rm *rm);
void jobs_destroy(struct jobs *t);
struct job *jobs_get(struct jobs *t, int id);

/* Register (or re-register) a job from a validated "register" request.  A
 * request naming a previous id with the same tag and pid resumes that job.
 * Returns the job, or NULL and a reason. */
struct job *jobs_register(struct jobs *t, const json_t *req, double now, char *reason, size_t rlen);
/* Append a validated "sample"; reconciles the slots with the job's size. */
void jobs_sample(struct jobs *t, struct job *j, const json_t *req, double now);
void jobs_note_departures(struct job *j, const json_t *d);
void jobs_event(struct job *j, const char *kind, json_t *details, double now); /* steals details */
void jobs_exit(struct jobs *t, struct job *j, int status, double now);
void jobs_lost_connection(struct jobs *t, struct job *j, double now);
/* Restored jobs that did not come back within `grace` seconds: lost, slots freed. */
int jobs_expire(struct jobs *t, double now, double grace);
/* The job's queue of delayed commands: a command it accepted (ductiled
 * holds `reserved` slots for it; by_daemon: ductiled's own, the I/O
 * policy's), the whole queue as the job reports it (validated; 0, or -1
 * when malformed), and a command that left the queue by cancel (returns
 * the slots it held, given back to the resource manager; sets *by_daemon
 * when it was ductiled's own). */
void jobs_queue_add(struct job *j, const json_t *accepted, const char *op, int reserved, int by_daemon);
int jobs_queue_set(struct job *j, const json_t *list);
int jobs_queue_cancelled(struct jobs *t, struct job *j, int id, double now, int *by_daemon);
/* Bring the slots of job j to procs + pending. */
void jobs_reconcile(struct jobs *t, struct job *j, double now);

/* JSON views. */
json_t *jobs_summary(const struct jobs *t, const struct job *j, double now);
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
/* The same in two steps (ductiled writes off its loop, state_writer.c): the
 * state as text (malloc'ed, NULL out of memory), and the text written. */
char *jobs_save_text(const struct jobs *t);
int jobs_write_text(const char *text, const char *path, char *err, size_t errlen);
int jobs_load(struct jobs *t, const char *path, double now, char *err, size_t errlen);

/* For jobs_state.c: a new, empty job with this id (NULL out of memory);
 * the job's slots as {host: count}. */
struct job *jobs_new_job(struct jobs *t, int id);
json_t *jobs_alloc_json(const struct jobs *t, const struct job *j);

#endif
