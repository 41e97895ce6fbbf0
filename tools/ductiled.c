/* ductiled.c -- Ductile's central controller: accepts application
 * controllers (jobs) and ductilectl clients on a Unix-domain socket in an
 * owner-only directory (peer uid checked) and optionally on TCP
 * (HMAC challenge-response), tracks jobs and their monitoring history, runs
 * the resource manager, forwards commands to jobs, and keeps its state in a
 * file so that a restarted daemon keeps its jobs.  Single-threaded poll()
 * loop; every read and write is non-blocking and every message bounded. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "../src/controller/auth.h"
#include "../src/controller/jobs.h"
#include "../src/controller/net.h"
#include "../src/controller/protocol.h"
#include "../src/controller/rm.h"
#include "../src/io/iotoken.h"
#include "../src/io/iopredict.h"

#define MAX_CONNS 512
#define OUT_MAX (4 << 20)        /* a peer that does not read is dropped */
#define AUTH_TIMEOUT 5.0
#define FORWARD_TIMEOUT 10.0
#define RESTORE_GRACE 120.0

enum conn_kind { C_FREE = 0, C_LISTEN_UNIX, C_LISTEN_TCP, C_PEER };

struct conn {
    enum conn_kind kind;
    int fd;
    int tcp, authed;
    char nonce[AUTH_NONCE_HEX + 1];
    char peer[96];
    struct linebuf lb;
    char *out;
    size_t outlen;
    int job;           /* job id this connection registered, 0 if none */
    double opened;
    int closing;       /* close once the output is flushed */
    unsigned gen;      /* generation, so that forwards to a reused slot are detected */
};

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

static struct conn conns[MAX_CONNS];
static struct forward fwds[256];
static long long next_job_req = 1;
static struct rm rm;
static struct jobs jobs;
static struct auth_secret secret;
static int have_secret, from_hostfile, verbose;
static char state_path[4096] = "";
static int state_dirty;
static volatile sig_atomic_t stop;
static unsigned conn_gen;
static struct iotoken iotok; /* exclusive I/O (src/io/iotoken.c) */
static double wall(void);
static void queue_out(int i, char *line);
static void logmsg(const char *fmt, ...);

/* Tell job jid it holds the I/O token (a request the job acknowledges). */
static void io_grant(int jid)
{
    struct job *j = jobs_get(&jobs, jid);
    if (!j || j->conn < 0) {
        if (jid) {
            int next = iotoken_release(&iotok, jid, wall());
            if (next && next != jid) io_grant(next);
        }
        return;
    }
    json_t *a = json_pack("{s:i, s:s}", "job", jid, "action", "grant");
    queue_out(j->conn, proto_request(next_job_req++, "io", a));
    json_decref(a);
    if (verbose) logmsg("I/O token granted to job %d", jid);
}

static void io_leave(int jid)
{
    int next = iotoken_release(&iotok, jid, wall());
    if (next) io_grant(next);
}

static double wall(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logmsg(const char *fmt, ...)
{
    char ts[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(ts, sizeof ts, "%H:%M:%S", &tm);
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ductiled %s: ", ts);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void save_state(void)
{
    if (!state_path[0]) return;
    char err[512];
    if (jobs_save(&jobs, state_path, err, sizeof err) != 0) logmsg("%s", err);
    state_dirty = 0;
}

static int add_conn(enum conn_kind k, int fd)
{
    for (int i = 0; i < MAX_CONNS; i++)
        if (conns[i].kind == C_FREE) {
            memset(&conns[i], 0, sizeof conns[i]);
            conns[i].kind = k;
            conns[i].fd = fd;
            conns[i].opened = net_now();
            conns[i].gen = ++conn_gen;
            linebuf_init(&conns[i].lb);
            return i;
        }
    return -1;
}

static void close_conn(int i, const char *why)
{
    struct conn *c = &conns[i];
    if (c->kind == C_FREE) return;
    if (verbose || c->job) logmsg("connection %s closed%s%s", c->peer, why ? ": " : "", why ? why : "");
    if (c->job) {
        struct job *j = jobs_get(&jobs, c->job);
        if (j && j->conn == i) {
            io_leave(j->id);
            int was_running = j->state == JOB_RUNNING;
            jobs_lost_connection(&jobs, j, wall());
            if (was_running) logmsg("job %d (%s) lost its connection without an exit message: crashed", j->id, j->tag);
            save_state();
        }
    }
    for (size_t f = 0; f < sizeof fwds / sizeof fwds[0]; f++)
        if (fwds[f].used && fwds[f].cli == i && fwds[f].cli_gen == c->gen) fwds[f].cli = -1;
    close(c->fd);
    linebuf_free(&c->lb);
    free(c->out);
    memset(c, 0, sizeof *c);
}

static void queue_out(int i, char *line)
{
    struct conn *c = &conns[i];
    if (!line || c->kind != C_PEER) {
        free(line);
        return;
    }
    size_t n = strlen(line);
    if (c->outlen + n > OUT_MAX) {
        free(line);
        c->closing = 1;
        c->outlen = 0;
        logmsg("connection %s does not read its messages: dropped", c->peer);
        return;
    }
    char *nb = realloc(c->out, c->outlen + n);
    if (!nb) {
        free(line);
        return;
    }
    memcpy(nb + c->outlen, line, n);
    c->out = nb;
    c->outlen += n;
    free(line);
}

static void reply_ok(int i, long long id, json_t *result)
{
    queue_out(i, proto_reply_ok(id, result));
    json_decref(result);
}

static void reply_err(int i, long long id, const char *code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void reply_err(int i, long long id, const char *code, const char *fmt, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    queue_out(i, proto_reply_err(id, code, reason));
}

static void send_hello(int i)
{
    struct conn *c = &conns[i];
    json_t *a = json_pack("{s:s, s:s, s:s}", "server", "ductiled", "version", PACKAGE_VERSION, "auth",
                          c->tcp ? "hmac-sha256" : "peercred");
    if (c->tcp) {
        auth_nonce(c->nonce);
        json_object_set_new(a, "nonce", json_string(c->nonce));
    }
    queue_out(i, proto_request(0, "hello", a));
    json_decref(a);
}

static void accept_on(int li)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept4(conns[li].fd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;
        char peer[96] = "unix";
        if (conns[li].kind == C_LISTEN_UNIX) {
            uid_t uid;
            if (net_peer_uid(fd, &uid) != 0 || uid != geteuid()) {
                logmsg("refused a Unix-socket connection from uid %d (only uid %u may connect)",
                       net_peer_uid(fd, &uid) == 0 ? (int)uid : -1, (unsigned)geteuid());
                char *l = proto_reply_err(-1, PERR_NOT_ALLOWED, "this ductiled serves only its owner's uid");
                if (l) (void)!send(fd, l, strlen(l), MSG_NOSIGNAL | MSG_DONTWAIT);
                free(l);
                close(fd);
                continue;
            }
            snprintf(peer, sizeof peer, "unix(uid %u, fd %d)", (unsigned)uid, fd);
        } else {
            char h[64] = "?", p[16] = "?";
            getnameinfo((struct sockaddr *)&ss, sl, h, sizeof h, p, sizeof p, NI_NUMERICHOST | NI_NUMERICSERV);
            snprintf(peer, sizeof peer, "tcp(%s:%s)", h, p);
        }
        int i = add_conn(C_PEER, fd);
        if (i < 0) {
            logmsg("too many connections: refused %s", peer);
            close(fd);
            continue;
        }
        conns[i].tcp = conns[li].kind == C_LISTEN_TCP;
        conns[i].authed = !conns[i].tcp;
        snprintf(conns[i].peer, sizeof conns[i].peer, "%s", peer);
        if (verbose) logmsg("connection from %s", peer);
        send_hello(i);
    }
}

static struct forward *new_forward(void)
{
    for (size_t f = 0; f < sizeof fwds / sizeof fwds[0]; f++)
        if (!fwds[f].used) {
            memset(&fwds[f], 0, sizeof fwds[f]);
            fwds[f].used = 1;
            return &fwds[f];
        }
    return NULL;
}

/* Send `cmd` to job j on behalf of connection ci's request id. */
static void forward(int ci, long long id, struct job *j, const char *cmd, json_t *args, int reserved)
{
    struct forward *f = new_forward();
    if (!f) {
        if (reserved) rm_release(&rm, j->alloc, reserved), j->pending -= reserved;
        reply_err(ci, id, PERR_BUSY, "too many commands in flight; try again");
        json_decref(args);
        return;
    }
    f->job_req = next_job_req++;
    f->job = j->id;
    f->cli = ci;
    f->cli_gen = conns[ci].gen;
    f->cli_req = id;
    f->deadline = net_now() + FORWARD_TIMEOUT;
    f->reserved = reserved;
    snprintf(f->cmd, sizeof f->cmd, "%s", cmd);
    json_object_set_new(args, "job", json_integer(j->id));
    queue_out(j->conn, proto_request(f->job_req, cmd, args));
    json_decref(args);
    if (verbose) logmsg("forwarded %s to job %d", cmd, j->id);
}

static void finish_forward(struct forward *f, int ok, json_t *result, const char *code, const char *reason)
{
    struct job *j = jobs_get(&jobs, f->job);
    if (!ok && f->reserved && j) {
        j->pending -= f->reserved;
        if (j->pending < 0) j->pending = 0;
        jobs_reconcile(&jobs, j, wall());
        state_dirty = 1;
    }
    if (j) {
        json_t *d = json_pack("{s:s, s:b}", "command", f->cmd, "ok", ok);
        if (!ok) json_object_set_new(d, "reason", json_string(reason ? reason : ""));
        jobs_event(j, "command", d, wall());
    }
    if (f->cli >= 0 && conns[f->cli].kind == C_PEER && conns[f->cli].gen == f->cli_gen) {
        if (ok) {
            json_t *r = result ? json_deep_copy(result) : json_object();
            json_object_set_new(r, "job", json_integer(f->job));
            if (j) json_object_set_new(r, "pending_slots", json_integer(j->pending));
            reply_ok(f->cli, f->cli_req, r);
        } else {
            reply_err(f->cli, f->cli_req, code ? code : PERR_INTERNAL, "job %d: %s", f->job, reason ? reason : "");
        }
    }
    f->used = 0;
}

static struct job *need_job(int ci, long long id, const json_t *req, int running)
{
    int jid = (int)proto_get_int(req, "job", 0);
    struct job *j = jobs_get(&jobs, jid);
    if (!j) {
        reply_err(ci, id, PERR_UNKNOWN_JOB, "no job %d (ductilectl list shows the jobs)", jid);
        return NULL;
    }
    if (running && (j->state != JOB_RUNNING || j->conn < 0)) {
        reply_err(ci, id, PERR_JOB_UNREACHABLE, "job %d is %s", jid, job_state_name(j->state));
        return NULL;
    }
    return j;
}

/* ------------------------------------------------------------ I/O interference controller (src/io/iopredict.c) */

enum { IOPOL_NONE, IOPOL_SHIFT, IOPOL_COUPLE };
static int io_policy = IOPOL_NONE;
static struct iop_params io_prm = {.uncertainty = 0.2, .overhead = 0.3, .similar = 0.25, .max_procs = 0};
#define IOJ_MAX 64
static struct ioj {
    int used;
    struct iop_job m;
    int shrink_pending, shrink_n; /* phase shift: the -P to send once the +P is done */
    long long shrink_at;
    int busy;                     /* a plan is in progress: no new plan */
} ioj[IOJ_MAX];

static struct ioj *ioj_get(struct job *j)
{
    for (int i = 0; i < IOJ_MAX; i++)
        if (ioj[i].used && ioj[i].m.id == j->id) return &ioj[i];
    for (int i = 0; i < IOJ_MAX; i++)
        if (!ioj[i].used) {
            memset(&ioj[i], 0, sizeof ioj[i]);
            ioj[i].used = 1;
            iop_job_init(&ioj[i].m, j->id, j->procs);
            return &ioj[i];
        }
    return NULL;
}

/* A resize ductiled decides itself: slots from the resource manager, then
 * forwarded like a ductilectl command (nobody waits for the reply). */
static int io_resize(struct job *j, int delta, long long at, char *why, size_t wl)
{
    struct forward *f = new_forward();
    if (!f) {
        snprintf(why, wl, "too many commands in flight");
        return -1;
    }
    json_t *args = json_object();
    if (at >= 0) json_object_set_new(args, "at_iteration", json_integer(at));
    int reserved = 0;
    if (delta > 0) {
        int *where = calloc((size_t)delta, sizeof(int));
        if (!where || rm_grant(&rm, j->alloc, delta, NULL, where, why, wl) != 0) {
            free(where);
            json_decref(args);
            f->used = 0;
            return -1;
        }
        if (from_hostfile) {
            json_t *h = json_array();
            for (int k = 0; k < delta; k++) json_array_append_new(h, json_string(rm.hosts[where[k]].name));
            json_object_set_new(args, "hosts", h);
        }
        free(where);
        reserved = delta;
        j->pending += delta;
        j->pending_since = wall();
    }
    json_object_set_new(args, "n", json_integer(delta > 0 ? delta : -delta));
    json_object_set_new(args, "job", json_integer(j->id));
    f->job_req = next_job_req++;
    f->job = j->id;
    f->cli = -1;
    f->deadline = net_now() + FORWARD_TIMEOUT;
    f->reserved = reserved;
    snprintf(f->cmd, sizeof f->cmd, "%s", delta > 0 ? "expand" : "shrink");
    queue_out(j->conn, proto_request(f->job_req, f->cmd, args));
    json_decref(args);
    state_dirty = 1;
    return 0;
}

static void io_plan_event(struct job *j, const struct iop_plan *pl, const char *status)
{
    jobs_event(j, "io_plan", json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:f, s:f, s:f, s:f, s:s}", "strategy",
                                       pl->kind == 2 ? "period-coupling" : "phase-shift", "status", status, "delta",
                                       pl->delta, "new_procs", pl->new_procs, "iter1", (json_int_t)pl->iter1, "iter2",
                                       (json_int_t)pl->iter2, "shift_s", pl->shift, "treconf_s", pl->treconf, "torig_s",
                                       pl->torig, "speedup", pl->speedup, "why", pl->why),
               wall());
    logmsg("I/O interference: %s: %s", status, pl->why);
}

static void io_policy_sample(struct job *j, const json_t *req)
{
    struct ioj *x = ioj_get(j);
    if (!x) return;
    double iv = proto_get_num(req, "interval_s", 0) - proto_get_num(req, "io_s", 0);
    long long it = proto_get_int(req, "iters", 0);
    int procs = (int)proto_get_int(req, "procs", j->procs);
    /* a sample across a resize mixes two sizes: only steady ones count */
    if (it > 0 && procs == x->m.procs && !j->pending) iop_add_iterations(&x->m, procs, iv, (double)it);
    x->m.procs = procs;
}

/* The iteration job j will have passed when a command sent now reaches it:
 * its last known iteration (samples are up to a controller period old, an
 * I/O phase is reported a phase gap after its end) plus IO_LEAD seconds of
 * iterations.  Planning +P at the iteration after this one makes it happen
 * at the planned iteration instead of at some later control point. */
#define IO_LEAD 1.0
static long long io_cur_iter(const struct job *j, const struct ioj *x, long long known)
{
    long long c = j->iteration > known ? j->iteration : known;
    double t = iop_iter_time(&x->m, x->m.procs);
    if (c >= 0 && t > 0) c += (long long)ceil(IO_LEAD / t);
    return c;
}

static void io_policy_phase(struct job *j, const json_t *d, double now)
{
    (void)now;
    struct ioj *x = ioj_get(j);
    if (!x || !d) return;
    iop_add_phase(&x->m, proto_get_num(d, "start", 0), proto_get_num(d, "duration_s", 0),
                  proto_get_int(d, "iteration", -1), (int)proto_get_int(d, "procs", j->procs));
    if (io_policy == IOPOL_NONE) return;
    /* the decision is taken after a job's I/O phase (the paper's CLARISSE control point) */
    for (int i = 0; i < IOJ_MAX; i++) {
        if (!ioj[i].used || ioj[i].m.id == j->id) continue;
        struct job *o = jobs_get(&jobs, ioj[i].m.id);
        if (!o || o->state != JOB_RUNNING || o->conn < 0 || x->busy || ioj[i].busy) continue;
        struct iop_params prm = io_prm;
        prm.max_procs = rm_total(&rm);
        /* the +P goes to the first control point the command can still reach */
        long long cj = io_cur_iter(j, x, proto_get_int(d, "iteration", -1)), co = io_cur_iter(o, &ioj[i], -1);
        struct iop_plan pl;
        int ok = 0;
        if (io_policy == IOPOL_COUPLE) ok = iop_period_coupling(&x->m, cj, &ioj[i].m, co, &prm, &pl);
        if (!ok && (io_policy == IOPOL_SHIFT || pl.why[0] == 'p'))
            ok = iop_phase_shift(&x->m, cj, &ioj[i].m, co, &prm, &pl);
        if (!ok) {
            if (verbose || pl.job) logmsg("I/O interference check jobs %d/%d: %s", j->id, o->id, pl.why);
            continue;
        }
        struct job *k = jobs_get(&jobs, pl.job);
        struct ioj *xk = pl.job == j->id ? x : &ioj[i];
        char why[256];
        int cap = rm_total(&rm);
        (void)cap;
        if (io_resize(k, pl.delta, pl.iter1, why, sizeof why) != 0) {
            snprintf(pl.why + strlen(pl.why), sizeof pl.why - strlen(pl.why), "; refused: %.80s", why);
            io_plan_event(k, &pl, "cancelled");
            continue;
        }
        xk->busy = 1;
        if (pl.kind == 1) {
            xk->shrink_pending = 1;
            xk->shrink_n = pl.delta;
            xk->shrink_at = pl.iter2;
        }
        io_plan_event(k, &pl, "planned");
        return;
    }
}

/* The job reported a finished (or failed) resize: the second half of a phase shift. */
static void io_policy_resized(struct job *j, const json_t *d)
{
    struct ioj *x = ioj_get(j);
    if (!x || !x->busy) return;
    const char *st = proto_get_str(d, "status", "ok"), *op = proto_get_str(d, "op", "");
    if (strcmp(st, "ok") != 0) {
        logmsg("I/O interference: job %d: the planned %s failed (%s): plan cancelled", j->id, op, st);
        jobs_event(j, "io_plan", json_pack("{s:s, s:s}", "status", "cancelled", "why", proto_get_str(d, "reason", st)), wall());
        x->busy = x->shrink_pending = 0;
        return;
    }
    if (x->shrink_pending && !strcmp(op, "expand")) {
        char why[256];
        x->shrink_pending = 0;
        if (io_resize(j, -x->shrink_n, x->shrink_at, why, sizeof why) != 0) {
            logmsg("I/O interference: job %d: the -%d could not be sent: %s", j->id, x->shrink_n, why);
            x->busy = 0;
        }
        return;
    }
    x->busy = 0;
}

/* expand / shrink / resize: resource manager decision, then forward. */
static void do_resize(int ci, long long id, const char *cmd, const json_t *req)
{
    struct job *j = need_job(ci, id, req, 1);
    if (!j) return;
    if (!j->malleable) {
        reply_err(ci, id, PERR_NOT_SUPPORTED, "job %d cannot be resized: its libductile has no malleability support",
                  j->id);
        return;
    }
    int cur = j->procs + j->pending, delta;
    if (strcmp(cmd, "expand") == 0) delta = (int)proto_get_int(req, "n", 0);
    else if (strcmp(cmd, "shrink") == 0) delta = -(int)proto_get_int(req, "n", 0);
    else delta = (int)proto_get_int(req, "to", cur) - cur;
    if (cur + delta < 1) {
        reply_err(ci, id, PERR_BAD_ARGUMENT, "job %d has %d processes: cannot remove %d", j->id, cur, -delta);
        return;
    }
    if (delta == 0) {
        reply_ok(ci, id, json_pack("{s:i, s:i, s:s}", "job", j->id, "procs", cur, "note", "already at that size"));
        return;
    }
    json_t *args = json_object();
    json_t *at = json_object_get(req, "at_iteration");
    if (at) json_object_set(args, "at_iteration", at);
    int reserved = 0;
    if (delta > 0) {
        json_t *hosts = json_object_get(req, "hosts");
        const char **wanted = NULL;
        if (hosts && json_array_size(hosts) > 0) {
            if ((int)json_array_size(hosts) != delta) {
                reply_err(ci, id, PERR_BAD_ARGUMENT, "%d hosts given for %d new processes: give one per process", (int)json_array_size(hosts), delta);
                json_decref(args);
                return;
            }
            wanted = calloc((size_t)delta, sizeof *wanted);
            for (int k = 0; k < delta; k++) wanted[k] = json_string_value(json_array_get(hosts, (size_t)k));
        }
        int *where = calloc((size_t)delta, sizeof(int));
        char reason[256];
        if (!where || rm_grant(&rm, j->alloc, delta, wanted, where, reason, sizeof reason) != 0) {
            reply_err(ci, id, PERR_NO_SLOTS, "job %d: expansion by %d refused: %s", j->id, delta, where ? reason : "out of memory");
            free(where);
            free(wanted);
            json_decref(args);
            logmsg("refused to expand job %d by %d: %s", j->id, delta, reason);
            return;
        }
        reserved = delta;
        j->pending += delta;
        j->pending_since = wall();
        if (from_hostfile || wanted) {
            json_t *h = json_array();
            for (int k = 0; k < delta; k++) json_array_append_new(h, json_string(rm.hosts[where[k]].name));
            json_object_set_new(args, "hosts", h);
        }
        free(where);
        free(wanted);
        json_object_set_new(args, "n", json_integer(delta));
        forward(ci, id, j, "expand", args, reserved);
    } else {
        json_t *ranks = json_object_get(req, "ranks");
        if (ranks && json_array_size(ranks) > 0) {
            if ((int)json_array_size(ranks) != -delta) {
                reply_err(ci, id, PERR_BAD_ARGUMENT, "%d ranks given for removing %d processes", (int)json_array_size(ranks), -delta);
                json_decref(args);
                return;
            }
            size_t k;
            json_t *r;
            json_array_foreach(ranks, k, r) {
                if (json_integer_value(r) >= j->procs) {
                    reply_err(ci, id, PERR_BAD_ARGUMENT, "job %d has no rank %lld", j->id, json_integer_value(r));
                    json_decref(args);
                    return;
                }
            }
            json_object_set(args, "ranks", ranks);
        }
        json_object_set_new(args, "n", json_integer(-delta));
        forward(ci, id, j, "shrink", args, 0);
    }
    state_dirty = 1;
}

static void handle_request(int ci, struct proto_msg *m)
{
    struct conn *c = &conns[ci];
    const char *cmd = m->cmd;
    long long id = m->id;
    json_t *req = m->root;
    double now = wall();
    if (!c->authed) {
        if (strcmp(cmd, "auth") != 0) {
            reply_err(ci, id, PERR_AUTH_REQUIRED, "authenticate first (TCP connections need the shared secret)");
            logmsg("unauthenticated '%s' from %s: dropped", cmd, c->peer);
            c->closing = 1;
            return;
        }
        const char *nc = proto_get_str(req, "nonce", "");
        if (!have_secret || !auth_verify(&secret, "client", c->nonce, nc, proto_get_str(req, "mac", ""))) {
            reply_err(ci, id, PERR_AUTH_FAILED, "authentication failed");
            logmsg("authentication failed from %s: dropped", c->peer);
            c->closing = 1;
            return;
        }
        char mac[AUTH_MAC_HEX + 1];
        auth_mac(&secret, "server", nc, c->nonce, mac);
        c->authed = 1;
        if (verbose) logmsg("%s authenticated", c->peer);
        reply_ok(ci, id, json_pack("{s:s}", "mac", mac));
        return;
    }
    if (strcmp(cmd, "auth") == 0) {
        reply_ok(ci, id, json_object());
        return;
    }
    if (strcmp(cmd, "hello") == 0) {
        reply_err(ci, id, PERR_BAD_REQUEST, "hello is sent by the server");
        return;
    }
    if (strcmp(cmd, "register") == 0) {
        char reason[256];
        struct job *j = jobs_register(&jobs, req, now, reason, sizeof reason);
        if (!j) {
            reply_err(ci, id, PERR_BAD_REQUEST, "%s", reason);
            return;
        }
        if (c->job && c->job != j->id) {
            struct job *old = jobs_get(&jobs, c->job);
            if (old && old->conn == ci) old->conn = -1;
        }
        j->conn = ci;
        c->job = j->id;
        int resumed = proto_get_int(req, "job", 0) == j->id;
        logmsg("job %d %s: %s (tag %s, pid %ld), %d processes", j->id, resumed ? "re-registered" : "registered",
               j->binary, j->tag, j->pid, j->procs);
        json_t *r = json_pack("{s:i, s:b}", "job", j->id, "resumed", resumed);
        if (j->period > 0) json_object_set_new(r, "period", json_real(j->period));
        if (j->io_held) json_object_set_new(r, "io_held", json_true());
        reply_ok(ci, id, r);
        save_state();
        return;
    }
    if (!strcmp(cmd, "sample") || !strcmp(cmd, "heartbeat") || !strcmp(cmd, "exit") || !strcmp(cmd, "event")) {
        int jid = (int)proto_get_int(req, "job", 0);
        struct job *j = jobs_get(&jobs, jid);
        if (!j || c->job != jid || j->conn != ci) {
            reply_err(ci, id, PERR_UNKNOWN_JOB, "job %d is not registered on this connection", jid);
            return;
        }
        j->last_seen = now;
        if (!strcmp(cmd, "sample")) {
            jobs_sample(&jobs, j, req, now);
            io_policy_sample(j, req);
            state_dirty = 1;
        } else if (!strcmp(cmd, "exit")) {
            int st = (int)proto_get_int(req, "status", 0);
            jobs_exit(&jobs, j, st, now);
            io_leave(jid);
            logmsg("job %d exited (status %d)", jid, st);
            c->job = 0;
            save_state();
        } else if (!strcmp(cmd, "event") && !strncmp(proto_get_str(req, "kind", ""), "io_", 3)) {
            /* MPI-IO (src/io/): the exclusive-I/O token and the I/O phases */
            const char *kind = proto_get_str(req, "kind", "");
            if (!strcmp(kind, "io_request")) {
                int g = iotoken_request(&iotok, jid, now);
                if (g) io_grant(g);
            } else if (!strcmp(kind, "io_release")) {
                io_leave(jid);
            } else if (!strcmp(kind, "io_phase")) {
                json_t *d = json_object_get(req, "details");
                jobs_event(j, "io_phase", d ? json_deep_copy(d) : json_object(), now);
                io_policy_phase(j, d, now);
                state_dirty = 1;
            }
        } else if (!strcmp(cmd, "event")) {
            json_t *d = json_object_get(req, "details");
            d = d ? json_deep_copy(d) : json_object();
            jobs_event(j, proto_get_str(req, "kind", "event"), d, now);
            if (!strcmp(proto_get_str(req, "kind", ""), "resized"))
                io_policy_resized(j, json_object_get(req, "details"));
            if (!strcmp(proto_get_str(req, "kind", ""), "resized") &&
                strcmp(proto_get_str(json_object_get(req, "details"), "status", "ok"), "ok") != 0) {
                j->pending = 0;
                jobs_reconcile(&jobs, j, now);
            }
            state_dirty = 1;
        }
        reply_ok(ci, id, json_object());
        return;
    }
    if (!strcmp(cmd, "list")) {
        json_t *a = json_array();
        for (int k = 0; k < jobs.n; k++) json_array_append_new(a, jobs_summary(&jobs, jobs.v[k], now));
        reply_ok(ci, id, json_pack("{s:o, s:o}", "jobs", a, "slots", jobs_slots(&jobs)));
        return;
    }
    if (!strcmp(cmd, "slots")) {
        reply_ok(ci, id, jobs_slots(&jobs));
        return;
    }
    if (!strcmp(cmd, "status")) {
        struct job *j = need_job(ci, id, req, 0);
        if (j) reply_ok(ci, id, jobs_status(&jobs, j, (int)proto_get_int(req, "history", 20), now));
        return;
    }
    if (!strcmp(cmd, "cost")) {
        struct job *j = need_job(ci, id, req, 0);
        if (j) reply_ok(ci, id, jobs_cost(&jobs, j, (int)proto_get_int(req, "to", 1)));
        return;
    }
    if (!strcmp(cmd, "expand") || !strcmp(cmd, "shrink") || !strcmp(cmd, "resize")) {
        if (!json_object_get(req, "job")) {
            reply_err(ci, id, PERR_BAD_ARGUMENT, "%s: missing 'job'", cmd);
            return;
        }
        do_resize(ci, id, cmd, req);
        return;
    }
    if (!strcmp(cmd, "io") || !strcmp(cmd, "period")) {
        if (!json_object_get(req, "job")) {
            reply_err(ci, id, PERR_BAD_ARGUMENT, "%s: missing 'job'", cmd);
            return;
        }
        struct job *j = need_job(ci, id, req, 1);
        if (!j) return;
        json_t *args = json_deep_copy(req);
        json_object_del(args, "v");
        json_object_del(args, "id");
        json_object_del(args, "cmd");
        if (!strcmp(cmd, "period")) j->period = proto_get_num(req, "seconds", j->period);
        forward(ci, id, j, cmd, args, 0);
        return;
    }
    reply_err(ci, id, PERR_UNKNOWN_COMMAND, "'%s' is not a command ductiled serves", cmd);
}

static void handle_reply(int ci, struct proto_msg *m)
{
    for (size_t f = 0; f < sizeof fwds / sizeof fwds[0]; f++) {
        if (!fwds[f].used || fwds[f].job_req != m->id) continue;
        struct job *j = jobs_get(&jobs, fwds[f].job);
        if (!j || j->conn != ci) continue;
        if (m->ok) {
            if (!strcmp(fwds[f].cmd, "io"))
                j->io_held = json_is_true(json_object_get(json_object_get(m->root, "result"), "io_held"));
            finish_forward(&fwds[f], 1, json_object_get(m->root, "result"), NULL, NULL);
        } else {
            finish_forward(&fwds[f], 0, NULL, proto_get_str(m->root, "error", PERR_INTERNAL),
                           proto_get_str(m->root, "reason", ""));
        }
        return;
    }
    /* acks of nothing we wait for (e.g. hello): ignored */
}

static void handle_input(int ci)
{
    struct conn *c = &conns[ci];
    char buf[16384];
    const char *gone = NULL; /* the peer closed: handle what it sent before (e.g. its exit), then close */
    for (;;) {
        ssize_t r = recv(c->fd, buf, sizeof buf, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (r <= 0) {
            gone = r == 0 ? "end of stream" : strerror(errno);
            break;
        }
        if (linebuf_append(&c->lb, buf, (size_t)r) != 0) break;
        if (c->closing) break;
    }
    for (;;) {
        char *line = NULL;
        long n = linebuf_next(&c->lb, &line);
        if (!line) {
            if (n < 0 || c->lb.overflow) {
                logmsg("message larger than %d bytes from %s: connection dropped", PROTO_MAX_LINE, c->peer);
                reply_err(ci, -1, PERR_TOO_LARGE, "message larger than %d bytes: connection dropped", PROTO_MAX_LINE);
                c->closing = 1;
                c->lb.len = 0;
            }
            break;
        }
        if (c->closing) {
            free(line);
            continue;
        }
        if (n == 0) {
            free(line);
            continue; /* blank lines are ignored */
        }
        struct proto_msg m;
        const char *code;
        char reason[512];
        int k = proto_parse(line, (size_t)n, &m, &code, reason, sizeof reason);
        free(line);
        if (k == PROTO_INVALID) {
            if (verbose) logmsg("bad message from %s: %s", c->peer, reason);
            reply_err(ci, m.id, code, "%s", reason);
            if (!c->authed) {
                logmsg("unauthenticated garbage from %s: dropped", c->peer);
                c->closing = 1;
            }
            continue;
        }
        if (k == PROTO_REQUEST) handle_request(ci, &m);
        else if (c->authed) handle_reply(ci, &m);
        proto_msg_free(&m);
        if (conns[ci].kind != C_PEER) return;
    }
    if (gone) close_conn(ci, gone);
}

static void flush_out(int ci)
{
    struct conn *c = &conns[ci];
    while (c->outlen) {
        ssize_t w = send(c->fd, c->out, c->outlen, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (w <= 0) {
            close_conn(ci, "write failed");
            return;
        }
        memmove(c->out, c->out + w, c->outlen - (size_t)w);
        c->outlen -= (size_t)w;
    }
    if (c->closing) close_conn(ci, "closed by the daemon");
}

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: ductiled [OPTIONS]\n"
            "\n"
            "Ductile's central controller.  MPI jobs run under libductile register with it,\n"
            "stream their monitoring, and receive resize and I/O commands from ductilectl.\n"
            "\n"
            "Options:\n"
            "  --slots N           manage N process slots on this host (default: the number of CPUs)\n"
            "  --hostfile FILE     manage the hosts and slots in FILE ('host slots=N' per line)\n"
            "  --socket PATH       Unix-domain socket (default: $XDG_RUNTIME_DIR/ductile/ductiled.sock,\n"
            "                      or /tmp/ductile-UID/ductiled.sock; the directory must be mode 0700)\n"
            "  --tcp HOST:PORT     also listen on TCP (requires --secret)\n"
            "  --secret FILE       shared secret for TCP challenge-response (owner-only file)\n"
            "  --state FILE        state file (default: next to the default socket, ductiled.state)\n"
            "  --no-state          keep no state file\n"
            "  --io-policy P       I/O interference controller: none (default), phase-shift (Algorithm 3)\n"
            "                      or period-coupling (Algorithm 4, then phase shifts); docs/io.md\n"
            "  --io-uncertainty S  seconds added to each predicted I/O phase (default 0.2)\n"
            "  --io-overhead S     seconds one reconfiguration is assumed to cost (default 0.3)\n"
            "  -v, --verbose       log every connection and message error\n"
            "  -h, --help          this help\n"
            "\n"
            "Exit status: 0 after SIGTERM/SIGINT, 1 on a start-up error, 2 on a usage error.\n");
}

int main(int argc, char **argv)
{
    int slots = 0, no_state = 0;
    const char *hostfile = NULL, *sockpath = NULL, *tcp = NULL, *secret_file = NULL, *statefile = NULL;
    static const struct option opts[] = {{"slots", required_argument, 0, 's'},   {"hostfile", required_argument, 0, 'H'},
                                         {"socket", required_argument, 0, 'S'},  {"tcp", required_argument, 0, 't'},
                                         {"secret", required_argument, 0, 'k'},  {"state", required_argument, 0, 'f'},
                                         {"no-state", no_argument, 0, 'n'},      {"verbose", no_argument, 0, 'v'},
                                         {"help", no_argument, 0, 'h'},          {"io-policy", required_argument, 0, 'P'},
                                         {"io-uncertainty", required_argument, 0, 'U'},
                                         {"io-overhead", required_argument, 0, 'O'}, {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        switch (o) {
        case 's': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1000000) {
                fprintf(stderr, "ductiled: --slots wants a number from 1 to 1000000, not '%s'\n", optarg);
                return 2;
            }
            slots = (int)v;
            break;
        }
        case 'H': hostfile = optarg; break;
        case 'S': sockpath = optarg; break;
        case 't': tcp = optarg; break;
        case 'k': secret_file = optarg; break;
        case 'f': statefile = optarg; break;
        case 'n': no_state = 1; break;
        case 'v': verbose = 1; break;
        case 'P':
            if (!strcmp(optarg, "none")) io_policy = IOPOL_NONE;
            else if (!strcmp(optarg, "phase-shift")) io_policy = IOPOL_SHIFT;
            else if (!strcmp(optarg, "period-coupling")) io_policy = IOPOL_COUPLE;
            else {
                fprintf(stderr, "ductiled: --io-policy wants none, phase-shift or period-coupling, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'U':
        case 'O': {
            char *end;
            double v = strtod(optarg, &end);
            if (*end || !(v >= 0 && v <= 3600)) {
                fprintf(stderr, "ductiled: --io-%s wants seconds from 0 to 3600, not '%s'\n",
                        o == 'U' ? "uncertainty" : "overhead", optarg);
                return 2;
            }
            if (o == 'U') io_prm.uncertainty = v;
            else io_prm.overhead = v;
            break;
        }
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ductiled: unexpected argument '%s' (see ductiled --help)\n", argv[optind]);
        return 2;
    }
    if (slots && hostfile) {
        fprintf(stderr, "ductiled: give --slots or --hostfile, not both\n");
        return 2;
    }
    if (tcp && !secret_file) {
        fprintf(stderr, "ductiled: --tcp requires --secret FILE (TCP connections are authenticated)\n");
        return 2;
    }
    char err[1024];
    if (secret_file) {
        if (auth_load_secret(secret_file, &secret, err, sizeof err) != 0) {
            fprintf(stderr, "ductiled: %s\n", err);
            return 1;
        }
        have_secret = 1;
    }
    if (hostfile) {
        if (rm_init_hostfile(&rm, hostfile, err, sizeof err) != 0) {
            fprintf(stderr, "ductiled: %s\n", err);
            return 1;
        }
        from_hostfile = 1;
    } else {
        char hn[256] = "localhost";
        gethostname(hn, sizeof hn - 1);
        if (!proto_valid_hostname(hn)) snprintf(hn, sizeof hn, "localhost");
        if (!slots) slots = (int)sysconf(_SC_NPROCESSORS_ONLN);
        rm_init_slots(&rm, hn, slots > 0 ? slots : 1);
    }
    jobs_init(&jobs, &rm);
    iotoken_init(&iotok);

    struct net_addr ua;
    char path[256];
    if (sockpath) {
        if (net_parse_addr(sockpath[0] == '/' || strchr(sockpath, '/') || !strncmp(sockpath, "unix:", 5) ? sockpath : "", &ua, err, sizeof err) != 0 || ua.tcp) {
            fprintf(stderr, "ductiled: --socket wants a path: %s\n", sockpath);
            return 2;
        }
    } else {
        if (net_default_socket(path, sizeof path, 1, err, sizeof err) != 0) {
            fprintf(stderr, "ductiled: %s\n", err);
            return 1;
        }
        net_parse_addr(path, &ua, err, sizeof err);
    }
    if (!no_state) {
        if (statefile) {
            snprintf(state_path, sizeof state_path, "%s", statefile);
        } else {
            char dir[256];
            if (sockpath) {
                snprintf(dir, sizeof dir, "%s", ua.path);
                char *slash = strrchr(dir, '/');
                if (slash) *slash = '\0';
                else snprintf(dir, sizeof dir, ".");
            } else if (net_default_dir(dir, sizeof dir, 1, err, sizeof err) != 0) {
                fprintf(stderr, "ductiled: %s\n", err);
                return 1;
            }
            snprintf(state_path, sizeof state_path, "%s/ductiled.state", dir);
        }
        if (jobs_load(&jobs, state_path, wall(), err, sizeof err) != 0) {
            fprintf(stderr, "ductiled: %s\n", err);
            return 1;
        }
    }
    int lfd = net_listen(&ua, err, sizeof err);
    if (lfd < 0) {
        fprintf(stderr, "ductiled: %s\n", err);
        return 1;
    }
    add_conn(C_LISTEN_UNIX, lfd);
    if (tcp) {
        struct net_addr ta;
        char spec[300];
        snprintf(spec, sizeof spec, "tcp:%s", tcp);
        if (net_parse_addr(spec, &ta, err, sizeof err) != 0) {
            fprintf(stderr, "ductiled: --tcp: %s\n", err);
            return 2;
        }
        int tfd = net_listen(&ta, err, sizeof err);
        if (tfd < 0) {
            fprintf(stderr, "ductiled: %s\n", err);
            unlink(ua.path);
            return 1;
        }
        add_conn(C_LISTEN_TCP, tfd);
    }
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    int restored = 0;
    for (int k = 0; k < jobs.n; k++) restored += jobs.v[k]->state == JOB_DISCONNECTED;
    logmsg("listening on unix:%s%s%s; %d slots on %d host(s); %d job(s) restored from %s", ua.path, tcp ? " and tcp:" : "",
           tcp ? tcp : "", rm_total(&rm), rm.nhosts, restored, state_path[0] ? state_path : "(no state file)");
    fflush(stderr);

    double last_save = net_now();
    struct pollfd pfd[MAX_CONNS];
    int idx[MAX_CONNS];
    while (!stop) {
        int n = 0;
        for (int i = 0; i < MAX_CONNS; i++) {
            if (conns[i].kind == C_FREE) continue;
            pfd[n].fd = conns[i].fd;
            pfd[n].events = (short)(conns[i].kind == C_PEER && conns[i].closing ? 0 : POLLIN);
            if (conns[i].outlen || conns[i].closing) pfd[n].events |= POLLOUT;
            pfd[n].revents = 0;
            idx[n++] = i;
        }
        int r = poll(pfd, (nfds_t)n, 250);
        if (r < 0 && errno != EINTR) {
            logmsg("poll: %s", strerror(errno));
            break;
        }
        for (int k = 0; r > 0 && k < n; k++) {
            int i = idx[k];
            if (!pfd[k].revents || conns[i].kind == C_FREE || conns[i].fd != pfd[k].fd) continue;
            if (conns[i].kind == C_LISTEN_UNIX || conns[i].kind == C_LISTEN_TCP) {
                accept_on(i);
                continue;
            }
            if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) handle_input(i);
            if (conns[i].kind == C_PEER && (conns[i].outlen || conns[i].closing)) flush_out(i);
        }
        /* also flush what requests queued for other connections */
        for (int i = 0; i < MAX_CONNS; i++)
            if (conns[i].kind == C_PEER && (conns[i].outlen || conns[i].closing)) flush_out(i);
        double now = net_now();
        for (int i = 0; i < MAX_CONNS; i++)
            if (conns[i].kind == C_PEER && !conns[i].authed && now - conns[i].opened > AUTH_TIMEOUT) {
                logmsg("no authentication from %s within %.0f s: dropped", conns[i].peer, AUTH_TIMEOUT);
                close_conn(i, NULL);
            }
        for (size_t f = 0; f < sizeof fwds / sizeof fwds[0]; f++)
            if (fwds[f].used && now > fwds[f].deadline)
                finish_forward(&fwds[f], 0, NULL, PERR_TIMEOUT, "no answer from the job within 10 s");
        if (jobs_expire(&jobs, wall(), RESTORE_GRACE)) state_dirty = 1;
        if (state_dirty && now - last_save > 1.0) {
            save_state();
            last_save = now;
        }
    }
    logmsg("stopping; state saved to %s", state_path[0] ? state_path : "(none)");
    save_state();
    for (int i = 0; i < MAX_CONNS; i++)
        if (conns[i].kind != C_FREE) {
            close(conns[i].fd);
            linebuf_free(&conns[i].lb);
            free(conns[i].out);
        }
    unlink(ua.path);
    jobs_destroy(&jobs);
    rm_destroy(&rm);
    auth_clear_secret(&secret);
    return 0;
}
