/* appctl.c -- the application controller thread on rank 0 (see appctl.h):
 * the decision to start it (probe), the thread's loop -- connect and
 * register, reconnect with backoff, read commands, send samples and events
 * with bounded socket I/O -- start/stop in MPI_Init/MPI_Finalize, and its
 * move to a new rank 0 when rank 0 leaves the world (ctl_send/ctl_recv, on
 * the application's thread inside a resize: what moves, appctl_move.c).
 * The thread never calls MPI.  What it sends and receives: appctl_msg.c. */
#include "config.h"

#include "appctl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "../proto/net.h"
#include "../proto/protocol.h"
#include "../proto/session.h"
#include "../common/clock.h"
#include "../world/worldid.h"
#include "../cluster/step.h"
#include "../core/state.h"
#include "../io/iomon.h"
#include "../core/hooks.h"
#include "appctl_int.h"
#include "../malleable/resize.h"
#include "../cluster/pmix.h"
#include "../common/rankset.h"

#define IO_TIMEOUT_MS 2000
#define BACKOFF_MIN 0.2
#define BACKOFF_MAX 5.0
/* ductiled answers every request at once: with a request unanswered this
 * long (and at least 3 sample periods) the connection is taken for dead
 * (a half-open TCP connection, a frozen daemon) */
#define ANSWER_TIMEOUT 10.0

struct appctl_state appctl = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .wake = {-1, -1}};

int ductile_appctl_probe(void)
{
    const char *c = ductile_rt.settings.controller;
    MPI_Comm parent = MPI_COMM_NULL;
    PMPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL || ductile_spawned_by_ductile()) return 0; /* started by a resize: the job is already registered */
    if (c && (!strcmp(c, "off") || !strcmp(c, "none"))) return 0;
    if (c && *c && strcmp(c, "auto") != 0) {
        snprintf(appctl.addr, sizeof appctl.addr, "%s", c);
        return 1;
    }
    /* auto: only when a ductiled answers at the default per-user socket */
    char path[256], err[256];
    struct stat st;
    if (net_default_socket(path, sizeof path, 0, err, sizeof err) != 0) return 0;
    if (stat(path, &st) != 0 || !S_ISSOCK(st.st_mode)) return 0;
    struct net_addr a;
    if (net_parse_addr(path, &a, err, sizeof err) != 0) return 0;
    int fd = net_connect(&a, 200, err, sizeof err);
    if (fd < 0) return 0;
    close(fd);
    snprintf(appctl.addr, sizeof appctl.addr, "unix:%s", path);
    return 1;
}

/* ------------------------------------------------------------ the thread */

static int sleep_or_stop(double sec)
{
    struct pollfd p = {.fd = appctl.wake[0], .events = POLLIN};
    if (poll(&p, 1, (int)(sec * 1000)) > 0) {
        char b[64];
        (void)!read(appctl.wake[0], b, sizeof b); /* also woken for MPI-IO messages */
    }
    return __atomic_load_n(&appctl.stop, __ATOMIC_ACQUIRE);
}

static int send_line(struct session *s, char *line) { return session_send(s, line, IO_TIMEOUT_MS); }

static long long next_id = 1;

static int connect_and_register(struct session *s)
{
    char err[512];
    int authfail = 0;
    if (session_open(s, appctl.addr, appctl.secret[0] ? appctl.secret : NULL, IO_TIMEOUT_MS, &authfail, err, sizeof err) != 0) {
        static int told;
        ductile_log(authfail && !told ? 0 : 2, "controller: %s", err); /* said once, retried quietly */
        if (authfail) told = 1;
        return -1;
    }
    json_t *reg = json_deep_copy(appctl.reg);
    if (appctl.job > 0) json_object_set_new(reg, "job", json_integer(appctl.job));
    if (appctl.job > 0 && appctl.key[0]) json_object_set_new(reg, "key", json_string(appctl.key)); /* proves it is this job */
    int size = __atomic_load_n(&ductile_rt.size, __ATOMIC_RELAXED);
    if (appctl.job > 0 && size != proto_get_int(reg, "procs", 0)) {
        /* the job back after a resize (or on a new rank 0): the hosts of MPI_Init's
         * world are no longer its own; ductiled keeps where its processes run */
        json_object_del(reg, "hosts");
        json_object_del(reg, "rank_hosts");
    }
    json_object_set_new(reg, "procs", json_integer(size));
    json_t *res = NULL;
    char code[64], reason[512];
    int r = session_call(s, "register", reg, IO_TIMEOUT_MS, &res, code, sizeof code, reason, sizeof reason);
    json_decref(reg);
    if (r != 1) {
        ductile_log(0, "controller: registration refused: %s", reason);
        session_close(s);
        return -1;
    }
    double p = proto_get_num(res, "period", 0);
    pthread_mutex_lock(&appctl.lock); /* the application's thread reads them at a hand-over (ductile_appctl_send) */
    appctl.job = (int)proto_get_int(res, "job", 0);
    const char *key = proto_get_str(res, "key", "");
    if (strlen(key) == 64) snprintf(appctl.key, sizeof appctl.key, "%s", key);
    if (p > 0) appctl.period = p;
    pthread_mutex_unlock(&appctl.lock);
    ductile_log(1, "controller: %s as job %d at %s", json_is_true(json_object_get(res, "resumed")) ? "re-registered" : "registered",
                appctl.job, appctl.addr);
    json_decref(res);
    next_id = s->next_id;
    return 0;
}

static int moving(void)
{
    pthread_mutex_lock(&appctl.lock);
    int m = appctl.moving;
    pthread_mutex_unlock(&appctl.lock);
    return m;
}

/* Rank 0 left the world and handed the controller over (ductile_appctl_send):
 * what is still queued goes out, then a "handover" event tells ductiled that
 * the job goes on and its new rank 0 will register (it keeps the job's slots
 * meanwhile); the connection closes without an exit.  Waits at most about
 * 1 s for the acknowledgement. */
static void hand_over(struct session *s)
{
    if (s->fd < 0) return;
    pthread_mutex_lock(&appctl.lock);
    json_t *ev[APPCTL_MAX_URGENT + APPCTL_MAX_EVENTS];
    int n = 0;
    for (int i = 0; i < appctl.nurgent; i++) ev[n++] = appctl.urgent[i];
    for (int i = 0; i < appctl.nevents; i++) ev[n++] = appctl.events[i];
    appctl.nurgent = appctl.nevents = 0;
    pthread_mutex_unlock(&appctl.lock);
    int lost = 0;
    for (int i = 0; i < n; i++) {
        json_object_set_new(ev[i], "job", json_integer(appctl.job));
        if (!lost && send_line(s, proto_request(s->next_id++, "event", ev[i])) != 0) lost = 1;
        json_decref(ev[i]);
    }
    json_t *h = json_pack("{s:i, s:s, s:{s:I, s:s}}", "job", appctl.job, "kind", "handover", "details", "pid",
                          (json_int_t)getpid(), "reason", "rank 0 left the world: the new rank 0 registers");
    long long hid = s->next_id++;
    if (!lost && h && send_line(s, proto_request(hid, "event", h)) == 0) {
        char *l = NULL, err[128];
        double end = net_now() + 1.0;
        while (net_now() < end && net_read_line(s->fd, &s->lb, &l, 500, err, sizeof err) >= 0) {
            struct proto_msg m;
            const char *code;
            char why[128];
            int done = proto_parse(l, strlen(l), &m, &code, why, sizeof why) == PROTO_REPLY && m.id == hid;
            if (m.root) proto_msg_free(&m);
            free(l);
            if (done) break;
        }
    }
    json_decref(h);
    ductile_log(1, "controller: handed over to the new rank 0 (job %d)", appctl.job);
    session_close(s);
    s->fd = -1;
}

static void *thread_main(void *arg)
{
    (void)arg;
    struct session s = {.fd = -1};
    double backoff = BACKOFF_MIN;
    struct snap prev, cur;
    appctl_take_snap(&prev);
    double next_sample = ductile_now();
    int thread_reg_seen = 0;
    double unanswered = 0;   /* when the oldest request without an answer was sent (0: none) */
    unsigned queue_version = 0;
    int queue_sent = 0;      /* the queue of delayed commands was sent on this connection */
    while (!__atomic_load_n(&appctl.stop, __ATOMIC_ACQUIRE)) {
        if (moving()) {
            hand_over(&s);
            break;
        }
        if (s.fd < 0) {
            if (connect_and_register(&s) != 0) {
                pthread_mutex_lock(&appctl.lock);
                appctl.tried = 1; /* a phase waiting for the first attempt stops waiting (io_acquire) */
                pthread_cond_broadcast(&appctl.cond);
                pthread_mutex_unlock(&appctl.lock);
                if (sleep_or_stop(backoff)) break;
                backoff = backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : backoff * 2;
                continue;
            }
            backoff = BACKOFF_MIN;
            pthread_mutex_lock(&appctl.lock);
            for (int i = 0; i < appctl.nurgent; i++) json_decref(appctl.urgent[i]);
            appctl.nurgent = 0;
            appctl.connected = 1;
            pthread_mutex_unlock(&appctl.lock);
            thread_reg_seen = -1; /* a (re)started ductiled learns the arrays again */
            __atomic_store_n(&appctl.nreg_seen, -1, __ATOMIC_RELAXED);
            appctl_take_snap(&prev);
            pthread_mutex_lock(&appctl.lock);
            double per = appctl.period;
            pthread_mutex_unlock(&appctl.lock);
            next_sample = ductile_now() + per;
        }
        double wait = next_sample - ductile_now();
        double iow = ductile_io_poll(); /* closes a finished I/O phase (src/io/iomon.c) */
        if (iow < wait) wait = iow;
        if (wait < 0) wait = 0;
        struct pollfd p[2] = {{.fd = s.fd, .events = POLLIN}, {.fd = appctl.wake[0], .events = POLLIN}};
        int pr = poll(p, 2, (int)(wait * 1000));
        if (__atomic_load_n(&appctl.stop, __ATOMIC_ACQUIRE)) break;
        int lost = 0;
        if (pr > 0 && (p[1].revents & POLLIN)) {
            char b[64];
            (void)!read(appctl.wake[0], b, sizeof b);
        }
        if (moving()) continue; /* handed over: said at the top of the loop */
        {   /* MPI-IO messages go out at once */
            pthread_mutex_lock(&appctl.lock);
            json_t *u[APPCTL_MAX_URGENT];
            int nu = appctl.nurgent;
            memcpy(u, appctl.urgent, sizeof u);
            appctl.nurgent = 0;
            pthread_mutex_unlock(&appctl.lock);
            for (int i = 0; i < nu; i++) {
                json_object_set_new(u[i], "job", json_integer(appctl.job));
                if (!lost && send_line(&s, proto_request(s.next_id++, "event", u[i])) != 0) lost = 1;
                json_decref(u[i]);
            }
        }
        if (pr > 0 && (p[0].revents & POLLNVAL)) {
            /* our descriptor is no longer open: never close the number again (it may
             * belong to someone else by now); reconnect on a fresh one */
            ductile_log(1, "controller: the connection's descriptor was closed under us; reconnecting");
            s.fd = -1;
            lost = 1;
        } else if (pr > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            char buf[8192];
            ssize_t n = recv(s.fd, buf, sizeof buf, MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) || (n > 0 && linebuf_append(&s.lb, buf, (size_t)n) != 0))
                lost = 1;
            int answered = 0;
            for (;;) {
                char *line = NULL;
                long len = linebuf_next(&s.lb, &line);
                if (!line) break;
                if (session_unseal(&s, line, &len) != 0) {
                    /* altered or injected on the way (seal.h): nothing more is believed on this connection */
                    ductile_log(0, "controller: a message from ductiled failed its MAC check: connection dropped");
                    free(line);
                    lost = 1;
                    break;
                }
                struct proto_msg m;
                const char *code;
                char reason[300];
                int k = proto_parse(line, (size_t)len, &m, &code, reason, sizeof reason);
                free(line);
                if (k == PROTO_REQUEST) {
                    if (send_line(&s, appctl_handle_command(&m)) != 0) lost = 1;
                } else if (k == PROTO_REPLY && !m.ok) {
                    ductile_log(2, "controller: ductiled: %s", proto_get_str(m.root, "reason", ""));
                } else if (k == PROTO_INVALID && len > 0) {
                    if (send_line(&s, proto_reply_err(m.id, code, reason)) != 0) lost = 1;
                }
                if (k == PROTO_REPLY) answered = 1;
                if (k != PROTO_INVALID) proto_msg_free(&m);
            }
            if (answered) unanswered = 0;
        }
        {   /* the queue of delayed commands, whenever it changed */
            unsigned v;
            json_t *ql = appctl_queue_json(&v);
            if (!lost && (!queue_sent || v != queue_version)) {
                json_t *ev = json_pack("{s:i, s:s, s:{s:o}}", "job", appctl.job, "kind", "queue", "details", "queued", ql);
                ql = NULL;
                if (send_line(&s, proto_request(s.next_id++, "event", ev)) != 0) lost = 1;
                else if (unanswered == 0) unanswered = ductile_now();
                json_decref(ev);
                queue_version = v;
                queue_sent = 1;
            }
            json_decref(ql);
        }
        if (!lost && ductile_now() >= next_sample) {
            if (__atomic_load_n(&appctl.cp_count, __ATOMIC_RELAXED) == 0) appctl_registry_snapshot(&thread_reg_seen);
            appctl_take_snap(&cur);
            json_t *smp = appctl_sample_json(&prev, &cur);
            prev = cur;
            if (send_line(&s, proto_request(s.next_id++, "sample", smp)) != 0) lost = 1;
            else if (unanswered == 0) unanswered = ductile_now();
            json_decref(smp);
            pthread_mutex_lock(&appctl.lock);
            json_t *ev[APPCTL_MAX_EVENTS];
            int nev = appctl.nevents;
            memcpy(ev, appctl.events, sizeof ev);
            appctl.nevents = 0;
            double per = appctl.period;
            pthread_mutex_unlock(&appctl.lock);
            for (int i = 0; i < nev; i++) {
                json_object_set_new(ev[i], "job", json_integer(appctl.job));
                if (!lost && send_line(&s, proto_request(s.next_id++, "event", ev[i])) != 0) lost = 1;
                json_decref(ev[i]);
            }
            next_sample = ductile_now() + per;
        }
        if (!lost && unanswered > 0) {
            pthread_mutex_lock(&appctl.lock);
            double limit = 3 * appctl.period > ANSWER_TIMEOUT ? 3 * appctl.period : ANSWER_TIMEOUT;
            pthread_mutex_unlock(&appctl.lock);
            if (ductile_now() - unanswered > limit) {
                ductile_log(0, "controller: ductiled did not answer for %.0f s: connection taken for dead", limit);
                /* said first: a daemon that was only busy reads it with the close, and keeps the
                 * job's slots for its return instead of taking it for crashed */
                char why[128];
                snprintf(why, sizeof why, "no answer from ductiled for %.0f s: the job reconnects", limit);
                json_t *ev = json_pack("{s:i, s:s, s:{s:s, s:f}}", "job", appctl.job, "kind", "reconnect", "details", "reason",
                                       why, "waited_s", limit);
                if (ev) send_line(&s, proto_request(s.next_id++, "event", ev));
                json_decref(ev);
                lost = 1;
            }
        }
        if (lost) {
            /* what the job waits on from the daemon is released with it: an
             * I/O hold (ductile_io_gate) and a pending I/O token request
             * (io_acquire stops waiting when not connected) */
            pthread_mutex_lock(&appctl.lock);
            appctl.connected = 0;
            int held = appctl.io_held;
            appctl.io_held = 0;
            pthread_cond_broadcast(&appctl.cond);
            pthread_mutex_unlock(&appctl.lock);
            if (held) ductile_log(0, "controller: I/O hold released: the connection to ductiled was lost");
            unanswered = 0;
            queue_sent = 0;
            ductile_log(1, "controller: lost the connection to ductiled; reconnecting");
            session_close(&s);
            s.fd = -1;
        }
    }
    /* a process that left the world (it handed the controller over, and may
     * reach MPI_Finalize before the thread saw it): the hand-over, never an
     * exit for a job that goes on without it */
    if (moving() || !ductile_malleable_active()) hand_over(&s);
    /* stop: say goodbye if connected (bounded) */
    if (s.fd >= 0) {
        appctl_take_snap(&cur);
        json_t *smp = appctl_sample_json(&prev, &cur);
        send_line(&s, proto_request(s.next_id++, "sample", smp));
        json_decref(smp);
        json_t *ex = json_pack("{s:i, s:i}", "job", appctl.job, "status", 0);
        char *line = proto_request(s.next_id++, "exit", ex);
        json_decref(ex);
        if (send_line(&s, line) == 0) {
            /* wait briefly for the ack so the exit is not lost in a reset */
            char *l = NULL, err[128];
            double end = net_now() + 1.0;
            while (net_now() < end && session_read_line(&s, &l, 500, err, sizeof err) >= 0) {
                struct proto_msg m;
                const char *code;
                char why[128];
                int is_ack = proto_parse(l, strlen(l), &m, &code, why, sizeof why) == PROTO_REPLY;
                if (is_ack) proto_msg_free(&m);
                free(l);
                if (is_ack) break;
            }
        }
        session_close(&s);
    }
    return NULL;
}

/* The thread for appctl.reg at appctl.addr: 0, or -1 (logged; no controller). */
static int launch(void)
{
    if (pipe2(appctl.wake, O_CLOEXEC) != 0) {
        json_decref(appctl.reg);
        appctl.reg = NULL;
        return -1;
    }
    /* the thread must not take signals meant for the application */
    sigset_t all_sigs, old;
    sigfillset(&all_sigs);
    pthread_sigmask(SIG_BLOCK, &all_sigs, &old);
    int rc = pthread_create(&appctl.th, NULL, thread_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        ductile_log(0, "controller: cannot start the controller thread: %s", strerror(rc));
        close(appctl.wake[0]);
        close(appctl.wake[1]);
        json_decref(appctl.reg);
        appctl.reg = NULL;
        return -1;
    }
    appctl.enabled = 1;
    return 0;
}

void ductile_appctl_start(int enabled)
{
    if (!enabled) return;
    MPI_Comm P = ductile_rt.private_comm;
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    PMPI_Get_processor_name(name, &len);
    char *all = NULL;
    if (ductile_rt.rank == 0) all = calloc((size_t)ductile_rt.size, MPI_MAX_PROCESSOR_NAME);
    PMPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, P);
    if (ductile_rt.rank != 0) return;
    if (!all) return;
    /* hosts [{name, procs}] and rank_hosts {host: rank set} (ductiled's picture of the job,
     * src/daemon/jobs_place.c): O(P) with the names hashed, a few bytes a host at any size */
    int np = ductile_rt.size, nh = 0;
    json_t *hosts = json_array(), *rank_hosts = json_object(), *index = json_object();
    int *hidx = malloc((size_t)np * sizeof *hidx), *cnt = calloc((size_t)np + 1, sizeof *cnt);
    int *first = malloc(((size_t)np + 1) * sizeof *first), *byhost = malloc((size_t)np * sizeof *byhost);
    for (int r = 0; hidx && cnt && first && byhost && r < np; r++) {
        char *h = all + (size_t)r * MPI_MAX_PROCESSOR_NAME;
        h[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
        if (!proto_valid_hostname(h)) snprintf(h, MPI_MAX_PROCESSOR_NAME, "localhost");
        json_t *k = json_object_get(index, h);
        if (!k) {
            json_object_set_new(index, h, json_integer(nh));
            json_array_append_new(hosts, json_pack("{s:s, s:i}", "name", h, "procs", 0));
            hidx[r] = nh++;
        } else {
            hidx[r] = (int)json_integer_value(k);
        }
        cnt[hidx[r]]++;
    }
    if (hidx && cnt && first && byhost) {
        for (int h = 0, at = 0; h < nh; h++) first[h] = at, at += cnt[h];
        for (int r = 0; r < np; r++) byhost[first[hidx[r]]++] = r;
        for (int h = 0, at = 0; h < nh; at += cnt[h], h++) {
            json_t *e = json_array_get(hosts, (size_t)h);
            json_object_set_new(e, "procs", json_integer(cnt[h]));
            char *set = rankset_encode(byhost + at, cnt[h]);
            if (set) json_object_set_new(rank_hosts, json_string_value(json_object_get(e, "name")), json_string(set));
            free(set);
        }
    }
    free(hidx), free(cnt), free(first), free(byhost);
    json_decref(index);
    free(all);
    char tag[64];
    snprintf(tag, sizeof tag, "%s", ductile_rt.job_id);
    if (!proto_valid_tag(tag)) snprintf(tag, sizeof tag, "%ld", ductile_rt.job_pid);
    char exe[1024] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = '\0';
    const char *base = strrchr(exe, '/');
    char binary[1024];
    snprintf(binary, sizeof binary, "%s", base ? base + 1 : exe);
    appctl.reg = json_pack("{s:s, s:I, s:s, s:i, s:o, s:b, s:s, s:f, s:I}", "tag", tag, "pid", (json_int_t)getpid(), "binary",
                      binary, "procs", ductile_rt.size, "hosts", hosts, "malleable", 1, "mpi", DUCTILE_MPI_FAMILY,
                      "start", ductile_rt.start_epoch, "uid", (json_int_t)geteuid());
    if (appctl.reg && ductile_rt.settings.min_procs > 0) json_object_set_new(appctl.reg, "min_procs", json_integer(ductile_rt.settings.min_procs));
    if (appctl.reg && ductile_rt.settings.max_procs > 0) json_object_set_new(appctl.reg, "max_procs", json_integer(ductile_rt.settings.max_procs));
    /* the job's size constraints (DUCTILE_SIZES, validated at the start): ductiled's policies ask for no other count */
    if (appctl.reg && ductile_rt.settings.sizes && *ductile_rt.settings.sizes)
        json_object_set_new(appctl.reg, "sizes", json_string(ductile_rt.settings.sizes));
    /* the host of every rank at any size: {host: rank set}, within PROTO_MAX_MSG for 65,536 ranks in any placement */
    if (appctl.reg && json_object_size(rank_hosts) == json_array_size(hosts)) json_object_set_new(appctl.reg, "rank_hosts", rank_hosts);
    else json_decref(rank_hosts);
    char pwhy[256];
    json_t *pm = ductile_pmix_facts(pwhy, sizeof pwhy); /* src/cluster/pmix.c: NULL without a PMIx server */
    if (pm) json_object_set_new(appctl.reg, "pmix", pm);
    if (appctl.reg) /* mpiexec, or srun (docs/cluster.md, "Direct launch") */
        json_object_set_new(appctl.reg, "launcher", json_string(ductile_launcher_tag(ductile_launcher())));
    else ductile_log(2, "controller: no PMIx facts: %s", pwhy);
    const char *sec = ductile_rt.settings.controller_secret;
    snprintf(appctl.secret, sizeof appctl.secret, "%s", sec ? sec : "");
    appctl.period = ductile_rt.settings.controller_period / 1000.0;
    if (launch() == 0) ductile_log(1, "controller thread started for %s", appctl.addr);
}

/* ------------------------------------------------------------ rank 0 moves */

void appctl_takeover(void)
{
    json_t *st = appctl.takeover;
    if (!st || appctl.enabled) return;
    appctl.takeover = NULL;
    appctl.reg = json_deep_copy(json_object_get(st, "reg"));
    appctl.job = (int)proto_get_int(st, "job", 0);
    appctl.period = proto_get_num(st, "period", ductile_rt.settings.controller_period / 1000.0);
    appctl.io_held = json_is_true(json_object_get(st, "io_held"));
    __atomic_store_n(&appctl.cp_iteration, proto_get_int(st, "cp_iteration", 0), __ATOMIC_RELAXED);
    __atomic_store_n(&appctl.cp_count, proto_get_int(st, "cp_count", 0), __ATOMIC_RELAXED);
    __atomic_store_n(&appctl.cp_maxiter, proto_get_int(st, "cp_maxiter", 0), __ATOMIC_RELAXED);
    snprintf(appctl.addr, sizeof appctl.addr, "%s", proto_get_str(st, "addr", ""));
    snprintf(appctl.secret, sizeof appctl.secret, "%s", proto_get_str(st, "secret", ""));
    const char *key = proto_get_str(st, "key", "");
    if (strlen(key) == 64) snprintf(appctl.key, sizeof appctl.key, "%s", key); /* the job's own credentials */
    long long from = proto_get_int(st, "from_pid", 0);
    json_decref(st);
    if (!appctl.reg || !appctl.addr[0]) {
        json_decref(appctl.reg);
        appctl.reg = NULL;
        return;
    }
    if (launch() == 0)
        ductile_log(1, "controller: moved here from the old rank 0 (pid %lld): job %d goes on at %s", from, appctl.job,
                    appctl.addr);
}

void ductile_appctl_stop(void)
{
    if (!appctl.enabled) return;
    __atomic_store_n(&appctl.stop, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&appctl.lock);
    pthread_cond_broadcast(&appctl.cond);
    pthread_mutex_unlock(&appctl.lock);
    (void)!write(appctl.wake[1], "x", 1);
    pthread_join(appctl.th, NULL);
    close(appctl.wake[0]);
    close(appctl.wake[1]);
    json_decref(appctl.reg);
    appctl.reg = NULL;
    for (int i = 0; i < appctl.nevents; i++) json_decref(appctl.events[i]);
    appctl.nevents = 0;
    for (int i = 0; i < appctl.nurgent; i++) json_decref(appctl.urgent[i]);
    appctl.nurgent = 0;
    appctl.enabled = 0;
}

/* The controller sits on top of the include graph: the modules below reach
 * it only through the hook table (src/core/hooks.h). */
DUCTILE_REGISTER(appctl_register)
{
    h->ctl_probe = ductile_appctl_probe;
    h->ctl_start = ductile_appctl_start;
    h->ctl_stop = ductile_appctl_stop;
    h->on_control_point = ductile_appctl_control_point;
    h->on_maxiter = ductile_appctl_maxiter;
    h->on_resize_recorded = ductile_appctl_resized;
    h->ctl_send = ductile_appctl_send;
    h->ctl_recv = ductile_appctl_recv;
    h->io_phase = ductile_appctl_io_phase;
    h->ctl_iteration = ductile_appctl_iteration;
    h->io_acquire = ductile_appctl_io_acquire;
    h->io_release = ductile_appctl_io_release;
}
