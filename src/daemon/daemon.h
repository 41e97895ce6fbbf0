/* daemon.h -- ductiled's core inside (the parts see core.h only): the
 * connections, the commands in flight to jobs, and the entry points of the
 * core's files.  ductiled (tools/ductiled.c: options, start-up, the loop;
 * ioloop.c: its epoll set) is one thread; every socket is non-blocking and every message
 * bounded.
 *   server.c    connections: accept, peer check, input framing, output queues,
 *               the log and the state file
 *   ioloop.c    the connections' epoll set: what is ready, left over, to flush
 *   requests.c  clients' requests: authentication, views, resizes, cancel,
 *               commands forwarded to jobs; a part's requests go to the part
 *   jobmsg.c    jobs' messages: registration, samples, events, hand-over, exit
 *   forward.c   commands to jobs (resizes with their reservations), answers
 *   core.c      the parts and the core's calls over all of them
 *   jobs.c (jobs_place.c: the job's picture and slots, jobs_queue.c: the
 *   commands sent, jobs_state.c: the state file), rm.c, children.c: underneath. */
#ifndef DUCTILE_DAEMON_H
#define DUCTILE_DAEMON_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../proto/auth.h"
#include "../proto/net.h"
#include "../proto/protocol.h"
#include "../proto/seal.h"
#include "core.h"

/* connections at once: a site's jobs hold one each (issue 25, item 4); ductiled raises its
 * file limit to hold them (tools/ductiled.c) */
#define MAX_CONNS 8192
#define MAX_FORWARDS 256
#define OUT_MAX (PROTO_MAX_REPLY + (4 << 20)) /* a peer that does not read is dropped */
#define AUTH_TIMEOUT 5.0
/* Flood limits (no lockout): TCP peers never take the last UNIX_RESERVE
 * slots (local clients always get in); at most MAX_UNAUTH unauthenticated
 * TCP peers at once, twice the listen backlog: a new one is always let in,
 * and the oldest unauthenticated one is dropped to make room. */
#define UNIX_RESERVE 64
#define MAX_UNAUTH (2 * NET_BACKLOG)
/* The state file is written off the loop (state_writer.c: a forked child):
 * at most once per STATE_PERIOD seconds, after a registration, an exit or a
 * crash at most once per STATE_URGENT_PERIOD, and at exit; one writer at a
 * time, and the fork takes at most a fifth of the loop's time (ductiled.c). */
#define STATE_PERIOD 1.0
#define STATE_URGENT_PERIOD 0.1
/* samples alone (a job's history) are saved at most this often: 2,000 jobs sending one a
 * second would keep the table dirty (issue 25, item 4) */
#define STATE_SAMPLES_PERIOD 10.0
/* Input per connection and poll round: a fast sender cannot starve the
 * others or make the daemon buffer without bound (the rest waits in the
 * kernel's socket buffer, which pushes back on the sender). */
#define IN_ROUND_BYTES (2 * PROTO_MAX_LINE)
#define IN_ROUND_MSGS 32
#define FORWARD_TIMEOUT 10.0
/* disconnected jobs' grace and commands' --pending-ttl are checked this often (a pass over every
 * job: at each turn it was a tenth of the daemon's time with 2,000 jobs sending samples) */
#define EXPIRE_PERIOD 0.25
#define RESTORE_GRACE 120.0

enum conn_kind { C_FREE = 0, C_LISTEN_UNIX, C_LISTEN_TCP, C_PEER };

struct conn {
    enum conn_kind kind;
    int fd;
    int tcp, authed;
    char nonce[AUTH_NONCE_HEX + 1];
    char peer[96];
    char addr[64];     /* TCP: numeric peer address */
    long long uid;     /* Unix socket: the peer's uid (SO_PEERCRED); TCP: -1 */
    struct seal seal;  /* MACs after an HMAC handshake (seal.h) */
    struct linebuf lb;
    int backlog;       /* complete messages left for the next round */
    int eof;           /* the peer closed: close once the backlog is handled */
    char eofwhy[64];
    char *out;
    size_t outlen, outoff; /* what is still to send: out[outoff .. outoff + outlen) */
    int job;           /* job id this connection registered, 0 if none */
    int handed;        /* the job this connection handed over to a new rank 0 (event "handover"): it acts on nothing */
    double opened;
    int closing;       /* close once the output is flushed */
    int parting;       /* the job said it leaves this connection and comes back (event "reconnect"): no crash */
    unsigned gen;      /* generation, so that forwards to a reused slot are detected */
    uint32_t evmask;   /* what epoll watches for on it (ioloop.c) */
    int touched, queued; /* on ioloop.c's lists: to flush this round, to handle next round */
    unsigned round;    /* the round its input was last handled in */
};

/* A command sent to a job on behalf of a client (or of ductiled itself:
 * cli = -1), waiting for the job's reply. */
struct forward {
    int used;
    long long job_req;  /* id we used on the job connection */
    int job;
    const struct dpart *by; /* the part that sent it (its resize_done hears the answer), NULL: a client */
    int cli;            /* connection index of the requester, -1: nobody waits */
    unsigned cli_gen;
    long long cli_req;
    double deadline;
    char cmd[16];
};

/* ---- state (server.c) */
extern struct conn conns[MAX_CONNS];
extern struct auth_secret secret;
extern int have_secret, from_hostfile;
extern int state_urgent;
extern int state_samples; /* only samples came since the last save */

void save_state(void);     /* a registration, exit or crash: the loop has it written soon (STATE_URGENT_PERIOD) */
void save_state_now(void); /* at exit: the running writer waited for, then this state written before returning */
/* ---- the state file's writer, a child forked per save (state_writer.c) */
int state_writer_start(const char *path);
void state_writer_save(const struct jobs *t); /* forks the writer (when none runs: see busy) */
int state_writer_busy(void);                  /* a writer still runs (reaps it when it ended; a failed one marks the state dirty) */
void state_writer_stop(void);                 /* waits for the writer */
/* ---- what the loop's turns cost (turns.c): begin after poll, a mark at each phase's end, end before
 * the next poll; the longest turns and the CPU time's percentiles logged at exit */
enum { TURN_INPUT, TURN_TIMERS, TURN_PARTS, TURN_STATE, TURN_PHASES };
void turns_begin(void);
void turns_mark(int phase);
void turns_end(void);
void turns_log(void);
int add_conn(enum conn_kind k, int fd);
void close_conn(int i, const char *why);
/* Queue a line (malloc'ed, taken) for connection i. */
void queue_out(int i, char *line);
void accept_on(int li);
void handle_input(int ci);
void flush_out(int ci);
/* ioloop.c: the connections' epoll set; a round handles what is ready and
 * what was left, then flushes what was queued (ioloop_flush: also after the
 * loop's timers); busy: something is to do without waiting */
int ioloop_fd(void);
int ioloop_watch(int i);
void ioloop_forget(int i);
void ioloop_touch(int i);
int ioloop_busy(void);
void ioloop_round(void);
void ioloop_flush(void);
void ioloop_close(void);

/* ---- requests (requests.c), jobs' messages (jobmsg.c) */
extern int shutdown_requested; /* leave the loop */
void handle_request(int ci, struct proto_msg *m);
void job_register(int ci, long long id, json_t *req); /* req: edge_register may drop its "job" */
void job_message(int ci, long long id, const char *cmd, const json_t *req);
void job_connection_closed(int ci, struct job *j); /* crashed, or it said it comes back */

/* ---- commands to jobs (forward.c) */
extern struct forward fwds[MAX_FORWARDS];
extern long long next_job_req;
struct forward *new_forward(void);
/* A resize of n processes ("expand" or "shrink") to job j for client ci's
 * request id (ci -1: nobody waits) or part `by`: an expansion's slots
 * granted first (on the `wanted` hosts when given; else a part may make
 * room, without waiting) and reserved for the command until the job reports
 * it; a shrink's ranks given, or chosen by a part.  args (taken):
 * at_iteration, ranks.  0 (sent, or waiting for room: the requester hears
 * later), or -1 and why (nothing changed). */
int forward_resize(int ci, long long id, const struct dpart *by, struct job *j, const char *op, int n, json_t *args,
                   const char *const *wanted, char *why, size_t wl);
void finish_forward(struct forward *f, int ok, json_t *result, const char *code, const char *reason);
void handle_reply(int ci, struct proto_msg *m);

#endif
