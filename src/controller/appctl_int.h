/* appctl_int.h -- shared between the two files of the application
 * controller (src/controller/): appctl.c (the thread, its connection, start
 * and stop) and appctl_msg.c (what the thread sends and receives, and the
 * hooks the engine and MPI-IO call).  Not used outside src/controller/. */
#ifndef DUCTILE_APPCTL_INT_H
#define DUCTILE_APPCTL_INT_H

#include <pthread.h>
#include <stdint.h>

#include <jansson.h>

#include "../proto/protocol.h"

#define APPCTL_MAX_EVENTS 16
#define APPCTL_MAX_URGENT 32

struct appctl_state {
    int enabled;       /* thread started */
    pthread_t th;
    int wake[2];       /* pipe: wakes the thread for stop */
    int stop;          /* atomic */
    char addr[300];
    char secret[4096];
    double period;     /* seconds, atomic via lock */
    json_t *reg;       /* registration fields (built in MPI_Init) */
    int job;           /* daemon's id for us (written by the thread under lock) */
    char key[65];      /* the key ductiled gave at registration (under lock): a re-registration shows it */
    long long cp_iteration, cp_count; /* atomic */
    long long cp_maxiter;              /* atomic: EMPI_Monitor_end's maxiter (0 unknown), for ductiled's model */
    int io_held;       /* under lock */
    double io_hold_until; /* under lock: ductile_now() when the hold ends by itself (DUCTILE_IO_HOLD_MAX) */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    json_t *events[APPCTL_MAX_EVENTS];
    int nevents;
    int exit_sent;
    json_t *arrays;    /* registered distributed arrays, to be sent (under lock) */
    int nreg_seen;     /* registry count last sent (reset to -1 by the thread on reconnect) */
    /* MPI-IO (src/io/): messages sent as soon as possible, token state (under lock) */
    json_t *urgent[APPCTL_MAX_URGENT];
    int nurgent;
    int connected, io_granted;
    /* rank 0 leaves the world: its controller moves to the new rank 0 (appctl.c) */
    int moving;        /* under lock: handed over; the thread says so to ductiled and ends (no exit) */
    json_t *takeover;  /* the new rank 0: the state received, started at its first record */
    int tried;         /* under lock: a connection attempt has ended (io_acquire waits for the first one only) */
};
extern struct appctl_state appctl;

/* Rank 0's counters at one moment (relaxed atomic loads). */
struct snap {
    double t;
    uint64_t comm, io, bytes, io_calls;
    uint64_t comm_m, io_m; /* the part of comm and io measured (the rest estimated under sampled timing) */
    long long iteration;
};
void appctl_take_snap(struct snap *s);
/* The "sample" message for the interval a..b (new reference). */
json_t *appctl_sample_json(const struct snap *a, const struct snap *b);
/* The job's queued controller commands (a new array) and the queue's
 * version (to notice changes). */
json_t *appctl_queue_json(unsigned *version);
/* A request from ductiled: the reply line (malloc'ed). */
char *appctl_handle_command(const struct proto_msg *m);
/* Queue the registered distributed arrays for the next sample when their
 * number changed since *seen. */
void appctl_registry_snapshot(int *seen);
/* The new rank 0: start the controller handed over to it (appctl.c), if any. */
void appctl_takeover(void);

#endif
