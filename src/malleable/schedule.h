/* schedule.h -- resize requests (pure C, no MPI): parsing DUCTILE_SCHEDULE
 * ("10:+2,40:-3"), validating host and rank lists, and the thread-safe queue
 * from which rank 0 takes the next due request at a control point.  A
 * controller thread injects requests into the same queue.  Unit-tested by
 * tests/unit/test_schedule.c. */
#ifndef DUCTILE_SCHEDULE_H
#define DUCTILE_SCHEDULE_H

#include <pthread.h>
#include <stddef.h>

#define RESIZE_DELTA 0  /* value is +N (add) or -N (remove) */
#define RESIZE_TARGET 1 /* value is the new world size */
enum { REQUEST_FROM_SCHEDULE = 0, REQUEST_FROM_CONTROLLER = 1 };

struct resize_request {
    int kind;       /* RESIZE_DELTA or RESIZE_TARGET */
    int value;      /* the delta (nonzero) or the target (>= 0; 0 is refused later) */
    int iteration;  /* due at the first control point with iteration >= this; -1: the next one */
    int source;     /* REQUEST_FROM_* */
    int id;         /* controller requests: the queue's id (1, 2, ...); schedule entries: 0 */
    /* hosts for new processes (';'-separated, one per process) or the ranks
     * that leave (a rank set, "0-511;1024-2047:2", src/common/rankset.h), of
     * any length: malloc'ed and owned by the request; NULL = the default */
    char *list;
};

/* The request's list, "" when it has none. */
static inline const char *request_list(const struct resize_request *r) { return r->list ? r->list : ""; }
/* Free the lists of n requests (the requests themselves stay). */
void resize_request_free(struct resize_request *r, int n);

/* Parse a DUCTILE_SCHEDULE value: comma-separated entries ITER:+N, ITER:-N or
 * ITER:=N, each optionally followed by @LIST (';'-separated hosts when adding,
 * ranks when removing).  Entries must have nondecreasing iterations.  On
 * success *out is a malloc'ed array (NULL if empty) of *n requests (their
 * lists malloc'ed too: the queue that takes it frees them) and 0 is
 * returned; otherwise -1 and a message naming DUCTILE_SCHEDULE and the value. */
int schedule_parse(const char *text, struct resize_request **out, int *n, char *err, size_t errlen);

/* Check a host list ("a;b" or "a,b"): hostnames of letters, digits, '.', '-',
 * '_' (at most 255 chars each).  Writes the number of hosts to *nhosts.
 * Returns 0 or -1 with a message. */
int schedule_check_hosts(const char *list, int *nhosts, char *err, size_t errlen);

/* A host list ("a;a;b", one name per new process) as runs of equal adjacent
 * names, "a:2,b": the form of MPI_Comm_spawn's "host" (Open MPI) and "hosts"
 * (MPICH) info values, N processes on the host, far shorter than one name per
 * process (info values are at most MPI_MAX_INFO_VAL characters).  Writes the
 * number of runs to *nruns (may be NULL).  malloc'ed; NULL when out of memory. */
char *schedule_host_runs(const char *list, long *nruns);

/* The longest of the runs strings (characters, as schedule_host_runs writes
 * them) of the k shares of a list of n names, share i holding the next
 * n/k + (i < n%k) names: what a parallel spawn's parents each pass as their
 * "host" info value.  One pass over the list. */
size_t schedule_share_runs_max(const char *list, long n, long k);

/* Parse a rank list "3;1" (a rank set: also "0-7", "0-15:4") into
 * ranks[0..cap); returns how many, or -1 with a message when malformed,
 * negative, duplicated or longer than cap. */
int schedule_parse_ranks(const char *list, int *ranks, int cap, char *err, size_t errlen);
/* The same without a cap: the ranks marked in mark[0..ns) (zeroed by the
 * caller); -1 with a message when malformed, duplicated or >= ns. */
long schedule_mark_ranks(const char *list, int ns, unsigned char *mark, char *err, size_t errlen);
/* How many ranks a rank list names (each below 2^20); -1 when malformed. */
long schedule_count_ranks(const char *list, char *err, size_t errlen);

/* The queue: scheduled requests (in order) and up to REQUEST_QUEUE_MAX
 * pending controller requests, each with an id (several delayed commands
 * for one job).  All functions are thread-safe. */
#define REQUEST_QUEUE_MAX 16
struct request_queue {
    pthread_mutex_t lock;
    struct resize_request *sched;
    int nsched, next;             /* next: index of the first schedule entry not yet taken */
    struct resize_request pending[REQUEST_QUEUE_MAX]; /* in submission order */
    int npending;
    int next_id;                  /* id of the next controller request */
    unsigned version;             /* changes whenever the pending requests change */
    int busy;                     /* a reconfiguration is being executed */
};

void request_queue_init(struct request_queue *q, struct resize_request *sched, int nsched);
void request_queue_destroy(struct request_queue *q);

/* Add a request of the application (ductile_request_resize): one at a time,
 * refused (-1, message) while another request is pending or a
 * reconfiguration is in progress, or when malformed (target < 1, delta 0,
 * bad list). */
int request_queue_submit(struct request_queue *q, int delta_or_target, int kind, int at_iteration,
                         const char *list, char *err, size_t errlen);

/* Add a controller command (ductiled): queued behind the pending ones, also
 * during a reconfiguration; refused (-1, message) when malformed or when
 * REQUEST_QUEUE_MAX requests are pending.  Writes its id to *id. */
int request_queue_submit_id(struct request_queue *q, int delta_or_target, int kind, int at_iteration,
                            const char *list, int *id, char *err, size_t errlen);

/* Cancel the pending request `id` (0: all of them) before it runs.  Moves
 * the cancelled requests to out[0..cap) (the caller frees their lists with
 * resize_request_free) and returns how many were cancelled
 * (0: no such request, it already ran or was taken). */
int request_queue_cancel(struct request_queue *q, int id, struct resize_request *out, int cap);

/* The pending requests (copied to out[0..cap), oldest first, lists
 * duplicated: the caller frees them with resize_request_free); returns their
 * number (-1 out of memory) and the queue's version in *version. */
int request_queue_list(struct request_queue *q, struct resize_request *out, int cap, unsigned *version);

/* The process's queue (the last one initialised and not destroyed; the
 * malleability engine owns it), for the controller thread; NULL if none. */
struct request_queue *request_queue_active(void);

/* Take the request due at `iteration` (the oldest due controller request
 * first, then the schedule).  Returns 1 and fills *out (its list the
 * caller's: resize_request_free), or 0 when nothing is due. */
int request_queue_take(struct request_queue *q, int iteration, struct resize_request *out);

/* Mark a reconfiguration as running (1) or finished (0). */
void request_queue_set_busy(struct request_queue *q, int busy);

/* A new rank 0 takes over the pending requests (ids kept): the old one
 * exports them (moved to out[0..cap) with their lists, its queue emptied;
 * returns how many and the next id), the new one imports them behind its
 * own (taking over their lists; those beyond REQUEST_QUEUE_MAX are freed). */
int request_queue_export(struct request_queue *q, struct resize_request *out, int cap, int *next_id);
void request_queue_import(struct request_queue *q, struct resize_request *in, int n, int next_id);

/* Schedule position, so that another process can take over as rank 0. */
int request_queue_position(struct request_queue *q);
void request_queue_set_position(struct request_queue *q, int next);

#endif
