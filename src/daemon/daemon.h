/* daemon.h -- ductiled's state and the functions its parts share.
 * ductiled (tools/ductiled.c: options, start-up, the poll() loop) is one
 * thread; every socket is non-blocking and every message bounded.
 *   server.c    connections: accept, peer check, input framing, output queues,
 *               the log and the state file
 *   commands.c  requests: authentication, registration, monitoring, views,
 *               resizes, commands forwarded to jobs and their replies
 *   iopolicy.c  the exclusive-I/O token and the I/O interference controller
 *   jobs.c (jobs_state.c: the state file, jobs_queue.c: delayed commands),
 *   rm.c, iotoken.c, iopredict.c: the pure logic underneath. */
#ifndef DUCTILE_DAEMON_H
#define DUCTILE_DAEMON_H

#include <stddef.h>

#include <jansson.h>

#include "../proto/auth.h"
#include "../proto/net.h"
#include "../proto/protocol.h"
#include "../proto/seal.h"
#include "iopredict.h"
#include "iotoken.h"
#include "global.h"
#include "jobs.h"
#include "rm.h"

#define MAX_CONNS 1024
#define MAX_FORWARDS 256
#define OUT_MAX (PROTO_MAX_REPLY + (4 << 20)) /* a peer that does not read is dropped */
#define AUTH_TIMEOUT 5.0
/* Flood limits (no lockout): TCP peers never take the last UNIX_RESERVE
 * slots (local clients always get in); at most MAX_UNAUTH unauthenticated
 * TCP peers at once, twice the listen backlog: a new one is always let in,
 * and the oldest unauthenticated one is dropped to make room. */
#define UNIX_RESERVE 64
#define MAX_UNAUTH (2 * NET_BACKLOG)
/* The state file is written off the loop (state_writer.c): at most once per
 * STATE_PERIOD seconds, after a registration, an exit or a crash at most
 * once per STATE_URGENT_PERIOD, and at exit; the loop's serialisation of
 * the table takes at most a fifth of its time (ductiled.c). */
#define STATE_PERIOD 1.0
#define STATE_URGENT_PERIOD 0.1
/* Input per connection and poll round: a fast sender cannot starve the
 * others or make the daemon buffer without bound (the rest waits in the
 * kernel's socket buffer, which pushes back on the sender). */
#define IN_ROUND_BYTES (2 * PROTO_MAX_LINE)
#define IN_ROUND_MSGS 32
#define IO_LEASE_DEFAULT 60.0
#define FORWARD_TIMEOUT 10.0
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
    size_t outlen;
    int job;           /* job id this connection registered, 0 if none */
    double opened;
    int closing;       /* close once the output is flushed */
    unsigned gen;      /* generation, so that forwards to a reused slot are detected */
};

/* A command sent to a job on behalf of a client (or of ductiled itself:
 * cli = -1), waiting for the job's reply. */
struct forward {
    int used;
    long long job_req;  /* id we used on the job connection */
    int job;
    int cli;            /* connection index of the requester */
    unsigned cli_gen;
    long long cli_req;
    double deadline;
    int reserved;       /* slots taken for an expansion, returned if the job refuses */
    char cmd[16];
};

/* ---- state (server.c) */
extern struct conn conns[MAX_CONNS];
extern struct rm rm;
extern struct jobs jobs;
extern struct auth_secret secret;
extern int have_secret, from_hostfile, verbose;
extern double io_lease;
extern char state_path[4096];
extern int state_dirty, state_urgent;

double wall(void); /* epoch seconds */
void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void save_state(void);     /* a registration, exit or crash: the loop has it written soon (STATE_URGENT_PERIOD) */
void save_state_now(void); /* at exit: the writer's last text, then this state, written before returning */
/* ---- the state file's writer thread (state_writer.c) */
int state_writer_start(const char *path);
void state_writer_submit(char *text); /* jobs_save_text's text, taken */
void state_writer_stop(void);
int add_conn(enum conn_kind k, int fd);
void close_conn(int i, const char *why);
/* Queue a line (malloc'ed, taken) for connection i. */
void queue_out(int i, char *line);
void reply_ok(int i, long long id, json_t *result); /* steals result */
void reply_err(int i, long long id, const char *code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void accept_on(int li);
void handle_input(int ci);
void flush_out(int ci);

/* ---- requests (commands.c) */
extern struct forward fwds[MAX_FORWARDS];
extern long long next_job_req;
extern int draining, shutdown_requested; /* drain: no new jobs; shutdown: leave the loop */
struct forward *new_forward(void);
int forward_own_resize(struct job *j, int delta, long long at, int cli, char *why, size_t wl);
void forward(int ci, long long id, struct job *j, const char *cmd, json_t *args, int reserved);
void finish_forward(struct forward *f, int ok, json_t *result, const char *code, const char *reason);
void handle_request(int ci, struct proto_msg *m);
void handle_reply(int ci, struct proto_msg *m);
/* Take back from job j what ductiled gave it ("command" `command` or all
 * commands when 0, "hold", "token", "all"); the job acknowledges. */
void revoke_job(struct job *j, const char *what, int command, const char *reason);

/* ---- MPI-IO (iopolicy.c) */
enum { IOPOL_NONE, IOPOL_SHIFT, IOPOL_COUPLE, IOPOL_AUTO };
extern int io_policy;
extern struct iop_params io_prm;
extern struct iotoken iotok;
void io_request(int jid, double now); /* the job asks for the I/O token */
void io_grant(int jid);
void io_leave(int jid);    /* gives the token back or leaves the queue (also on exit, revocation) */
/* The job gave it back after its phase (io_release), `kept` seconds after the phase's last I/O
 * call (<0 unknown): the prior learns its tail. */
void io_released(int jid, double kept);
void io_policy_sample(struct job *j, const json_t *req);
void io_policy_phase(struct job *j, const json_t *d, double now);
void io_policy_resized(struct job *j, const json_t *d);
void io_policy_forget(int jid);                                      /* job gone: free its slot */
void io_policy_refused(struct job *j, const char *cmd, const char *reason); /* a planned resize failed */
void io_policy_registered(struct job *j);                            /* send a -P owed from before a restart */
/* Take the token back from a holder that kept it past the lease while others wait. */
void io_check_lease(double now);

#endif
