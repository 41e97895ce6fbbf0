/* server.c -- ductiled's connections (see daemon.h): the table of
 * listening and peer sockets, accepting (peer-uid check on the Unix socket,
 * the hello with the TCP nonce), non-blocking input cut into messages,
 * bounded output queues, the log and the state file. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "daemon.h"

struct conn conns[MAX_CONNS];
struct rm rm;
struct jobs jobs;
struct auth_secret secret;
int have_secret, from_hostfile, verbose;
char state_path[4096] = "";
int state_dirty, state_urgent, state_samples;
static unsigned conn_gen;

double wall(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

void logmsg(const char *fmt, ...)
{
    char ts[32], msg[2048];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(ts, sizeof ts, "%H:%M:%S", &tm);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* what peers say (program names, reasons, host names) never forges a
     * line or drives the terminal: control characters become '?' */
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 32 || *p == 127) *p = '?';
    fprintf(stderr, "ductiled %s: %s\n", ts, msg);
}

/* The state file is written off the loop (state_writer.c), never in a
 * request's handling: requests only mark it dirty (ductiled.c hands it over). */
void save_state(void) { state_dirty = state_urgent = 1; }

void save_state_now(void)
{
    state_writer_stop();
    if (!state_path[0]) return;
    char err[512];
    if (jobs_save(&jobs, state_path, err, sizeof err) != 0) logmsg("%s", err);
    state_dirty = state_urgent = 0;
}

void core_conn_counts(int *unix_peers, int *tcp_peers)
{
    *unix_peers = *tcp_peers = 0;
    for (int i = 0; i < MAX_CONNS; i++)
        if (conns[i].kind == C_PEER) ++*(conns[i].tcp ? tcp_peers : unix_peers);
}

int add_conn(enum conn_kind k, int fd)
{
    for (int i = 0; i < MAX_CONNS; i++)
        if (conns[i].kind == C_FREE) {
            int touched = conns[i].touched, queued = conns[i].queued; /* still on ioloop.c's lists */
            memset(&conns[i], 0, sizeof conns[i]);
            conns[i].touched = touched;
            conns[i].queued = queued;
            conns[i].kind = k;
            conns[i].fd = fd;
            conns[i].opened = net_now();
            conns[i].gen = ++conn_gen;
            linebuf_init(&conns[i].lb);
            if (ioloop_watch(i) != 0) {
                logmsg("epoll_ctl: %s", strerror(errno));
                memset(&conns[i], 0, sizeof conns[i]);
                conns[i].touched = touched;
                conns[i].queued = queued;
                return -1;
            }
            return i;
        }
    return -1;
}

void close_conn(int i, const char *why)
{
    struct conn *c = &conns[i];
    if (c->kind == C_FREE) return;
    if (verbose || c->job) logmsg("connection %s closed%s%s", c->peer, why ? ": " : "", why ? why : "");
    if (c->job) {
        struct job *j = jobs_get(&jobs, c->job);
        if (j && j->conn == i) job_connection_closed(i, j); /* crashed, or it comes back (jobmsg.c) */
    }
    for (size_t f = 0; f < sizeof fwds / sizeof fwds[0]; f++)
        if (fwds[f].used && fwds[f].cli == i && fwds[f].cli_gen == c->gen) fwds[f].cli = -1;
    ioloop_forget(i);
    close(c->fd);
    linebuf_free(&c->lb);
    free(c->out);
    seal_clear(&c->seal);
    int touched = c->touched, queued = c->queued; /* still on ioloop.c's lists */
    memset(c, 0, sizeof *c);
    c->touched = touched;
    c->queued = queued;
}

void queue_out(int i, char *line)
{
    struct conn *c = &conns[i];
    if (!line || c->kind != C_PEER) {
        free(line);
        return;
    }
    line = seal_line(&c->seal, line); /* after an HMAC handshake every message carries a MAC (seal.h) */
    if (!line) return;
    size_t n = strlen(line);
    ioloop_touch(i); /* flushed at the end of the round */
    if (c->outlen + n > OUT_MAX) {
        free(line);
        c->closing = 1;
        c->outlen = 0;
        logmsg("connection %s does not read its messages: dropped", c->peer);
        return;
    }
    if (c->outlen == 0) { /* nothing queued: the line is the buffer (no copy of a large reply) */
        free(c->out);
        c->out = line;
        c->outlen = n;
        c->outoff = 0;
        return;
    }
    if (c->outoff) memmove(c->out, c->out + c->outoff, c->outlen), c->outoff = 0;
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

void reply_ok(int i, long long id, json_t *result)
{
    char *line = proto_reply_ok(id, result);
    json_decref(result);
    if (!line) {
        reply_err(i, id, PERR_TOO_LARGE, "the reply would be larger than %d bytes: ask for less (e.g. a shorter --history)",
                  PROTO_MAX_REPLY);
        return;
    }
    queue_out(i, line);
}

void reply_err(int i, long long id, const char *code, const char *fmt, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    queue_out(i, proto_reply_err(id, code, reason));
}

static int send_hello(int i)
{
    struct conn *c = &conns[i];
    json_t *a = json_pack("{s:s, s:s, s:s}", "server", "ductiled", "version", PACKAGE_VERSION, "auth",
                          c->tcp ? "hmac-sha256" : "peercred");
    /* TCP peers must answer the challenge; Unix-socket peers may (a client
     * given the secret asks the server to prove itself) */
    if (c->tcp || have_secret) {
        if (auth_nonce(c->nonce) != 0) {
            json_decref(a);
            logmsg("no random nonce for %s (getrandom failed): connection closed", c->peer);
            return -1;
        }
        json_object_set_new(a, "nonce", json_string(c->nonce));
    }
    queue_out(i, proto_request(0, "hello", a));
    json_decref(a);
    return 0;
}

/* Before a new TCP peer is added: below MAX_UNAUTH unauthenticated TCP
 * peers and above the local clients' reserve, or else the oldest
 * unauthenticated TCP peer is dropped (logged at most once a second).
 * 0, or -1 when no room can be made (every TCP peer is authenticated). */
static int make_room_for_tcp(void)
{
    static long dropped;
    static double told;
    for (;;) {
        int nfree = 0, nunauth = 0, oldest = -1;
        for (int k = 0; k < MAX_CONNS; k++) {
            if (conns[k].kind == C_FREE) nfree++;
            if (conns[k].kind != C_PEER || !conns[k].tcp || conns[k].authed) continue;
            nunauth++;
            if (oldest < 0 || conns[k].opened < conns[oldest].opened) oldest = k;
        }
        if (nunauth < MAX_UNAUTH && nfree > UNIX_RESERVE) break;
        if (oldest < 0) return -1;
        dropped++;
        if (net_now() - told >= 1.0) {
            logmsg("%ld unauthenticated TCP connection(s) dropped, oldest first, to let new ones in (%s: %d at most at once)",
                   dropped, nunauth >= MAX_UNAUTH ? "too many unauthenticated TCP connections" : "connection table full",
                   MAX_UNAUTH);
            told = net_now();
            dropped = 0;
        }
        close_conn(oldest, NULL);
    }
    return 0;
}

void accept_on(int li)
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
                core_note(NULL, "connection", "unix", "refused", 1);
                continue;
            }
            snprintf(peer, sizeof peer, "unix(uid %u, fd %d)", (unsigned)uid, fd);
        } else {
            char h[64] = "?", p[16] = "?";
            getnameinfo((struct sockaddr *)&ss, sl, h, sizeof h, p, sizeof p, NI_NUMERICHOST | NI_NUMERICSERV);
            snprintf(peer, sizeof peer, "tcp(%s:%s)", h, p);
        }
        int tcp = conns[li].kind == C_LISTEN_TCP;
        char addr[64] = "";
        if (tcp) {
            getnameinfo((struct sockaddr *)&ss, sl, addr, sizeof addr, NULL, 0, NI_NUMERICHOST);
            /* no lockout (docs/controller.md, "Flood limits"): a new TCP peer
             * is always let in; when the unauthenticated ones reach their
             * limit, or the table its reserve for local clients, the oldest
             * unauthenticated one goes */
            if (make_room_for_tcp() != 0) {
                logmsg("refused %s: every connection is taken by authenticated peers and local clients", peer);
                close(fd);
                core_note(NULL, "connection", "tcp", "refused", 1);
                continue;
            }
            /* a peer that vanished without a FIN (half-open) is found by keepalive probes */
            int on = 1, idle = 30, intvl = 5, cnt = 3;
            setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
            setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
            setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
            setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
        }
        int i = add_conn(C_PEER, fd);
        if (i < 0) {
            logmsg("too many connections: refused %s", peer);
            close(fd);
            core_note(NULL, "connection", tcp ? "tcp" : "unix", "refused", 1);
            continue;
        }
        conns[i].tcp = tcp;
        conns[i].authed = !conns[i].tcp;
        if (conns[i].authed) conns[i].lb.max = PROTO_MAX_MSG; /* after authentication: a job's rank lists at 65,536 ranks */
        conns[i].uid = -1;
        if (!tcp) {
            uid_t u;
            if (net_peer_uid(fd, &u) == 0) conns[i].uid = u; /* the job's owner, the operator's identity */
        }
        snprintf(conns[i].addr, sizeof conns[i].addr, "%s", addr);
        snprintf(conns[i].peer, sizeof conns[i].peer, "%s", peer);
        if (verbose) logmsg("connection from %s", peer);
        core_note(NULL, "connection", tcp ? "tcp" : "unix", "accepted", 1);
        if (send_hello(i) != 0) close_conn(i, NULL);
    }
}

static int has_line(const struct linebuf *lb) { return linebuf_has_line(lb); }

void handle_input(int ci)
{
    struct conn *c = &conns[ci];
    char buf[16384];
    /* bounded reading: at most 8 reads per round, and none while IN_ROUND_BYTES
     * with a complete message are buffered (a long message is read on) */
    for (int reads = 0; !c->eof && !c->closing && reads < 8 && (c->lb.len < IN_ROUND_BYTES || !has_line(&c->lb)); reads++) {
        ssize_t r = recv(c->fd, buf, sizeof buf, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (r <= 0) {
            /* the peer closed: handle what it sent before (e.g. its exit), then close */
            c->eof = 1;
            snprintf(c->eofwhy, sizeof c->eofwhy, "%s", r == 0 ? "end of stream" : strerror(errno));
            break;
        }
        if (linebuf_append(&c->lb, buf, (size_t)r) != 0) break;
    }
    for (int k = 0; k < IN_ROUND_MSGS; k++) {
        char *line = NULL;
        long n = linebuf_next(&c->lb, &line);
        if (!line) {
            if (n < 0 || c->lb.overflow) {
                size_t max = c->lb.max ? c->lb.max : PROTO_MAX_LINE;
                logmsg("message larger than %zu bytes from %s: connection dropped", max, c->peer);
                reply_err(ci, -1, PERR_TOO_LARGE, "message larger than %zu bytes: connection dropped", max);
                c->closing = 1;
                c->lb.len = 0;
            }
            break;
        }
        if (c->closing) {
            free(line);
            continue;
        }
        size_t len = (size_t)n;
        if (seal_open(&c->seal, line, &len) != 0) {
            /* after the handshake every message carries a MAC (seal.h): this
             * one was injected or altered on the way */
            free(line);
            logmsg("a message from %s failed its MAC check (injected or altered on the way): connection dropped", c->peer);
            reply_err(ci, -1, PERR_AUTH_FAILED, "a message failed its MAC check: connection dropped");
            c->closing = 1;
            continue;
        }
        if (len == 0 && !c->authed) {
            free(line);
            logmsg("unauthenticated blank line from %s: dropped", c->peer);
            c->closing = 1;
            continue;
        }
        if (len == 0) {
            free(line);
            continue; /* blank lines are ignored */
        }
        struct proto_msg m;
        const char *code;
        char reason[512];
        int kind = proto_parse(line, len, &m, &code, reason, sizeof reason);
        free(line);
        if (kind == PROTO_REPLY && !c->authed) {
            /* before authentication only `auth` is read (docs/protocol.md) */
            logmsg("unauthenticated reply from %s: dropped", c->peer);
            proto_msg_free(&m);
            c->closing = 1;
            continue;
        }
        if (kind == PROTO_INVALID) {
            if (verbose) logmsg("bad message from %s: %s", c->peer, reason);
            reply_err(ci, m.id, code, "%s", reason);
            if (!c->authed) {
                logmsg("unauthenticated garbage from %s: dropped", c->peer);
                c->closing = 1;
            }
            continue;
        }
        if (kind == PROTO_REQUEST) handle_request(ci, &m);
        else handle_reply(ci, &m);
        proto_msg_free(&m);
        if (conns[ci].kind != C_PEER) return;
    }
    if (c->closing) c->lb.len = 0;
    c->backlog = !c->closing && has_line(&c->lb);
    if (c->eof && !c->backlog) close_conn(ci, c->eofwhy);
}

void flush_out(int ci)
{
    struct conn *c = &conns[ci];
    while (c->outlen) {
        ssize_t w = send(c->fd, c->out + c->outoff, c->outlen, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (w <= 0) {
            close_conn(ci, "write failed");
            return;
        }
        c->outoff += (size_t)w; /* no copy of the rest: it is sent from where it is */
        c->outlen -= (size_t)w;
    }
    c->outoff = 0;
    free(c->out); /* all sent: no buffer kept per connection (a list's answer, a backlog of replies) */
    c->out = NULL;
    if (c->closing) close_conn(ci, "closed by the daemon");
}
