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
#define RESIZE_LIST_MAX 1024

enum { REQUEST_FROM_SCHEDULE = 0, REQUEST_FROM_CONTROLLER = 1 };

struct resize_request {
    int kind;       /* RESIZE_DELTA or RESIZE_TARGET */
    int value;      /* the delta (nonzero) or the target (>= 0; 0 is refused later) */
    int iteration;  /* due at the first control point with iteration >= this; -1: the next one */
    int source;     /* REQUEST_FROM_* */
    char list[RESIZE_LIST_MAX]; /* hosts for new processes, or ranks that leave; ';'-separated; "" = default */
};

/* Parse a DUCTILE_SCHEDULE value: comma-separated entries ITER:+N, ITER:-N or
 * ITER:=N, each optionally followed by @LIST (';'-separated hosts when adding,
 * ranks when removing).  Entries must have nondecreasing iterations.  On
 * success *out is a malloc'ed array (NULL if empty) of *n requests and 0 is
 * returned; otherwise -1 and a message naming DUCTILE_SCHEDULE and the value. */
int schedule_parse(const char *text, struct resize_request **out, int *n, char *err, size_t errlen);

/* Check a host list ("a;b" or "a,b"): hostnames of letters, digits, '.', '-',
 * '_' (at most 255 chars each).  Writes the number of hosts to *nhosts.
 * Returns 0 or -1 with a message. */
int schedule_check_hosts(const char *list, int *nhosts, char *err, size_t errlen);

/* Parse a rank list "3;1" into ranks[0..cap); returns how many, or -1 with a
 * message when malformed, negative, duplicated or longer than cap. */
int schedule_parse_ranks(const char *list, int *ranks, int cap, char *err, size_t errlen);

/* The queue: scheduled requests (in order) and at most one pending controller
 * request.  All functions are thread-safe. */
struct request_queue {
    pthread_mutex_t lock;
    struct resize_request *sched;
    int nsched, next;             /* next: index of the first schedule entry not yet taken */
    struct resize_request pending;
    int have_pending;
    int busy;                     /* a reconfiguration is being executed */
};

void request_queue_init(struct request_queue *q, struct resize_request *sched, int nsched);
void request_queue_destroy(struct request_queue *q);

/* Add a controller request.  Refused (-1, message) while another controller
 * request is pending or a reconfiguration is in progress, or when malformed
 * (target < 1, delta 0, bad list). */
int request_queue_submit(struct request_queue *q, int delta_or_target, int kind, int at_iteration,
                         const char *list, char *err, size_t errlen);

/* Take the request due at `iteration` (controller request first, then the
 * schedule).  Returns 1 and fills *out, or 0 when nothing is due. */
int request_queue_take(struct request_queue *q, int iteration, struct resize_request *out);

/* Mark a reconfiguration as running (1) or finished (0). */
void request_queue_set_busy(struct request_queue *q, int busy);

/* Schedule position, so that another process can take over as rank 0. */
int request_queue_position(struct request_queue *q);
void request_queue_set_position(struct request_queue *q, int next);

#endif
