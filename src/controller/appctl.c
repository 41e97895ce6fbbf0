/* appctl.c -- the application controller thread on rank 0 (see appctl.h)
 * and ductile_io_gate().  The thread never calls MPI: it reads rank 0's
 * counters (relaxed atomic loads), talks to ductiled with bounded socket
 * I/O, and queues resize requests for the next control point. */
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

#include "ductile.h"
#include "net.h"
#include "protocol.h"
#include "session.h"
#include "../monitor/iteration.h"
#include "../monitor/report_build.h"
#include "../malleable/registry.h"
#include "../wrap/hotpath.h"
#include "../wrap/runtime.h"
#include "../io/iomon.h"

#define IO_TIMEOUT_MS 2000
#define BACKOFF_MIN 0.2
#define BACKOFF_MAX 5.0
#define MAX_EVENTS 16

static struct {
    int enabled;       /* thread started */
    pthread_t th;
    int wake[2];       /* pipe: wakes the thread for stop */
    int stop;          /* atomic */
    char addr[300];
    char secret[4096];
    double period;     /* seconds, atomic via lock */
    json_t *reg;       /* registration fields (built in MPI_Init) */
    int job;           /* daemon's id for us */
    long long cp_iteration, cp_count; /* atomic */
    int io_held;       /* under lock */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    json_t *events[MAX_EVENTS];
    int nevents;
    int exit_sent;
    json_t *arrays;    /* registered distributed arrays, to be sent (under lock) */
    int nreg_seen;     /* registry count last sent (reset to -1 by the thread on reconnect) */
    /* MPI-IO (src/io/): messages sent as soon as possible, token state (under lock) */
    json_t *urgent[32];
    int nurgent;
    int connected, io_granted;
} A = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .wake = {-1, -1}};

static double wall(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

int ductile_appctl_probe(void)
{
    const char *c = ductile_rt.settings.controller;
    MPI_Comm parent = MPI_COMM_NULL;
    PMPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) return 0; /* started by a resize: the job is already registered */
    if (c && (!strcmp(c, "off") || !strcmp(c, "none"))) return 0;
    if (c && *c && strcmp(c, "auto") != 0) {
        snprintf(A.addr, sizeof A.addr, "%s", c);
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
    snprintf(A.addr, sizeof A.addr, "unix:%s", path);
    return 1;
}

/* ------------------------------------------------------------ sampling */

struct snap {
    double t;
    uint64_t comm, io, bytes, io_calls;
    long long iteration;
};

static void take_snap(struct snap *s)
{
    memset(s, 0, sizeof *s);
    s->t = ductile_now();
    for (int f = 0; f < DUCTILE_FN_COUNT; f++) {
        uint64_t calls = __atomic_load_n(&ductile_stats[f].calls, __ATOMIC_RELAXED);
        if (!calls) continue;
        uint64_t ticks = __atomic_load_n(&ductile_stats[f].ticks, __ATOMIC_RELAXED);
        s->bytes += __atomic_load_n(&ductile_stats[f].bytes_sent, __ATOMIC_RELAXED) +
                    __atomic_load_n(&ductile_stats[f].bytes_recv, __ATOMIC_RELAXED);
        if (ductile_fn_category[f] == DUCTILE_CAT_IO) {
            s->io += ticks;
            s->io_calls += calls;
        } else if (f != DUCTILE_FN_MPI_Init && f != DUCTILE_FN_MPI_Init_thread) {
            s->comm += ticks;
        }
    }
    if (__atomic_load_n(&A.cp_count, __ATOMIC_RELAXED) > 0) {
        s->iteration = __atomic_load_n(&A.cp_iteration, __ATOMIC_RELAXED);
    } else {
        s->iteration = (long long)ductile_iteration_count();
    }
}

static json_t *sample_json(const struct snap *a, const struct snap *b)
{
    double iv = b->t - a->t;
    double comm = ductile_ticks_to_sec(b->comm - a->comm), io = ductile_ticks_to_sec(b->io - a->io);
    double comp = iv - comm - io;
    if (comp < 0) comp = 0;
    long long iters = b->iteration - a->iteration;
    if (iters < 0) iters = 0;
    pthread_mutex_lock(&A.lock);
    int held = A.io_held;
    json_t *arrays = A.arrays;
    A.arrays = NULL;
    pthread_mutex_unlock(&A.lock);
    json_t *o = json_pack("{s:i, s:f, s:I, s:i, s:I, s:f, s:f, s:f, s:f, s:I, s:I, s:b, s:b}", "job", A.job, "t",
                     wall(), "iteration", (json_int_t)b->iteration, "procs",
                     __atomic_load_n(&ductile_rt.size, __ATOMIC_RELAXED), "iters", (json_int_t)iters, "interval_s", iv,
                     "compute_s", comp, "comm_s", comm, "io_s", io, "bytes", (json_int_t)(b->bytes - a->bytes),
                     "io_calls", (json_int_t)(b->io_calls - a->io_calls), "io_held", held, "control_point",
                     __atomic_load_n(&A.cp_count, __ATOMIC_RELAXED) > 0);
    if (arrays) json_object_set_new(o, "arrays", arrays);
    return o;
}

/* ------------------------------------------------------------ commands */

static json_t *join_list(const json_t *arr, char *out, size_t len)
{
    size_t i, o = 0;
    json_t *e;
    out[0] = '\0';
    json_array_foreach(arr, i, e) {
        char item[300];
        if (json_is_string(e)) {
            /* validated by proto_parse: letters, digits, '-', '.' only */
            snprintf(item, sizeof item, "%s", json_string_value(e));
        } else {
            snprintf(item, sizeof item, "%lld", (long long)json_integer_value(e));
        }
        int n = snprintf(out + o, len - o, "%s%s", o ? ";" : "", item);
        if (n < 0 || (size_t)n >= len - o) return NULL;
        o += (size_t)n;
    }
    return (json_t *)arr;
}

static char *handle_command(const struct proto_msg *m)
{
    const json_t *r = m->root;
    const char *cmd = m->cmd;
    char err[512] = "";
    if (!strcmp(cmd, "expand") || !strcmp(cmd, "shrink") || !strcmp(cmd, "resize")) {
        int at = (int)proto_get_int(r, "at_iteration", -1);
        if (proto_get_int(r, "at_iteration", -1) > 2147483647LL) at = 2147483647;
        char list[1024];
        const json_t *l = json_object_get(r, !strcmp(cmd, "shrink") ? "ranks" : "hosts");
        if (l && !join_list(l, list, sizeof list))
            return proto_reply_err(m->id, PERR_BAD_ARGUMENT, "host or rank list too long");
        if (!l) list[0] = '\0';
        int value, target = 0;
        if (!strcmp(cmd, "expand")) value = (int)proto_get_int(r, "n", 0);
        else if (!strcmp(cmd, "shrink")) value = -(int)proto_get_int(r, "n", 0);
        else value = (int)proto_get_int(r, "to", 0), target = 1;
        if (ductile_request_resize(value, target, at, list[0] ? list : NULL, err, sizeof err) != 0)
            return proto_reply_err(m->id, PERR_BUSY, err);
        ductile_log(1, "controller: %s %d queued for %s", cmd, value < 0 ? -value : value,
                    at >= 0 ? "a later iteration" : "the next control point");
        json_t *res = json_pack("{s:b, s:i}", "queued", 1, "at_iteration", at);
        char *line = proto_reply_ok(m->id, res);
        json_decref(res);
        return line;
    }
    if (!strcmp(cmd, "io") && !strcmp(proto_get_str(r, "action", ""), "grant")) {
        /* the exclusive-I/O token (src/io/iosched.c) */
        pthread_mutex_lock(&A.lock);
        A.io_granted = 1;
        pthread_cond_broadcast(&A.cond);
        pthread_mutex_unlock(&A.lock);
        ductile_log(2, "controller: I/O token granted");
        json_t *res = json_pack("{s:b}", "granted", 1);
        char *line = proto_reply_ok(m->id, res);
        json_decref(res);
        return line;
    }
    if (!strcmp(cmd, "io")) {
        int hold = !strcmp(proto_get_str(r, "action", ""), "hold");
        pthread_mutex_lock(&A.lock);
        A.io_held = hold;
        pthread_cond_broadcast(&A.cond);
        pthread_mutex_unlock(&A.lock);
        ductile_log(1, "controller: I/O %s", hold ? "held" : "released");
        json_t *res = json_pack("{s:b}", "io_held", hold);
        char *line = proto_reply_ok(m->id, res);
        json_decref(res);
        return line;
    }
    if (!strcmp(cmd, "period")) {
        double s = proto_get_num(r, "seconds", 1.0);
        pthread_mutex_lock(&A.lock);
        A.period = s;
        pthread_mutex_unlock(&A.lock);
        json_t *res = json_pack("{s:f}", "period", s);
        char *line = proto_reply_ok(m->id, res);
        json_decref(res);
        return line;
    }
    return proto_reply_err(m->id, PERR_UNKNOWN_COMMAND, "a job does not serve this command");
}

static void registry_snapshot(int *seen);

/* ------------------------------------------------------------ the thread */

static int sleep_or_stop(double sec)
{
    struct pollfd p = {.fd = A.wake[0], .events = POLLIN};
    if (poll(&p, 1, (int)(sec * 1000)) > 0) {
        char b[64];
        (void)!read(A.wake[0], b, sizeof b); /* also woken for MPI-IO messages */
    }
    return __atomic_load_n(&A.stop, __ATOMIC_ACQUIRE);
}

static int send_line(struct session *s, char *line)
{
    if (!line) return 0;
    int rc = net_send_all(s->fd, line, strlen(line), IO_TIMEOUT_MS);
    free(line);
    return rc;
}

static long long next_id = 1;

static int connect_and_register(struct session *s)
{
    char err[512];
    int authfail = 0;
    if (session_open(s, A.addr, A.secret[0] ? A.secret : NULL, IO_TIMEOUT_MS, &authfail, err, sizeof err) != 0) {
        static int told;
        ductile_log(authfail && !told ? 0 : 2, "controller: %s", err); /* said once, retried quietly */
        if (authfail) told = 1;
        return -1;
    }
    json_t *reg = json_deep_copy(A.reg);
    if (A.job > 0) json_object_set_new(reg, "job", json_integer(A.job));
    json_object_set_new(reg, "procs", json_integer(__atomic_load_n(&ductile_rt.size, __ATOMIC_RELAXED)));
    json_t *res = NULL;
    char code[64], reason[512];
    int r = session_call(s, "register", reg, IO_TIMEOUT_MS, &res, code, sizeof code, reason, sizeof reason);
    json_decref(reg);
    if (r != 1) {
        ductile_log(0, "controller: registration refused: %s", reason);
        session_close(s);
        return -1;
    }
    A.job = (int)proto_get_int(res, "job", 0);
    double p = proto_get_num(res, "period", 0);
    if (p > 0) {
        pthread_mutex_lock(&A.lock);
        A.period = p;
        pthread_mutex_unlock(&A.lock);
    }
    ductile_log(1, "controller: %s as job %d at %s", json_is_true(json_object_get(res, "resumed")) ? "re-registered" : "registered",
                A.job, A.addr);
    json_decref(res);
    next_id = s->next_id;
    return 0;
}

static void *thread_main(void *arg)
{
    (void)arg;
    struct session s = {.fd = -1};
    double backoff = BACKOFF_MIN;
    struct snap prev, cur;
    take_snap(&prev);
    double next_sample = ductile_now();
    int thread_reg_seen = 0;
    while (!__atomic_load_n(&A.stop, __ATOMIC_ACQUIRE)) {
        if (s.fd < 0) {
            if (connect_and_register(&s) != 0) {
                if (sleep_or_stop(backoff)) break;
                backoff = backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : backoff * 2;
                continue;
            }
            backoff = BACKOFF_MIN;
            pthread_mutex_lock(&A.lock);
            for (int i = 0; i < A.nurgent; i++) json_decref(A.urgent[i]);
            A.nurgent = 0;
            A.connected = 1;
            pthread_mutex_unlock(&A.lock);
            thread_reg_seen = -1; /* a (re)started ductiled learns the arrays again */
            __atomic_store_n(&A.nreg_seen, -1, __ATOMIC_RELAXED);
            take_snap(&prev);
            pthread_mutex_lock(&A.lock);
            double per = A.period;
            pthread_mutex_unlock(&A.lock);
            next_sample = ductile_now() + per;
        }
        double wait = next_sample - ductile_now();
        double iow = ductile_io_poll(); /* closes a finished I/O phase (src/io/iomon.c) */
        if (iow < wait) wait = iow;
        if (wait < 0) wait = 0;
        struct pollfd p[2] = {{.fd = s.fd, .events = POLLIN}, {.fd = A.wake[0], .events = POLLIN}};
        int pr = poll(p, 2, (int)(wait * 1000));
        if (__atomic_load_n(&A.stop, __ATOMIC_ACQUIRE)) break;
        int lost = 0;
        if (pr > 0 && (p[1].revents & POLLIN)) {
            char b[64];
            (void)!read(A.wake[0], b, sizeof b);
        }
        {   /* MPI-IO messages go out at once */
            pthread_mutex_lock(&A.lock);
            json_t *u[32];
            int nu = A.nurgent;
            memcpy(u, A.urgent, sizeof u);
            A.nurgent = 0;
            pthread_mutex_unlock(&A.lock);
            for (int i = 0; i < nu; i++) {
                json_object_set_new(u[i], "job", json_integer(A.job));
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
            for (;;) {
                char *line = NULL;
                long len = linebuf_next(&s.lb, &line);
                if (!line) break;
                struct proto_msg m;
                const char *code;
                char reason[300];
                int k = proto_parse(line, (size_t)len, &m, &code, reason, sizeof reason);
                free(line);
                if (k == PROTO_REQUEST) {
                    if (send_line(&s, handle_command(&m)) != 0) lost = 1;
                } else if (k == PROTO_REPLY && !m.ok) {
                    ductile_log(2, "controller: ductiled: %s", proto_get_str(m.root, "reason", ""));
                } else if (k == PROTO_INVALID && len > 0) {
                    if (send_line(&s, proto_reply_err(m.id, code, reason)) != 0) lost = 1;
                }
                if (k != PROTO_INVALID) proto_msg_free(&m);
            }
        }
        if (!lost && ductile_now() >= next_sample) {
            if (__atomic_load_n(&A.cp_count, __ATOMIC_RELAXED) == 0) registry_snapshot(&thread_reg_seen);
            take_snap(&cur);
            json_t *smp = sample_json(&prev, &cur);
            prev = cur;
            if (send_line(&s, proto_request(s.next_id++, "sample", smp)) != 0) lost = 1;
            json_decref(smp);
            pthread_mutex_lock(&A.lock);
            json_t *ev[MAX_EVENTS];
            int nev = A.nevents;
            memcpy(ev, A.events, sizeof ev);
            A.nevents = 0;
            double per = A.period;
            pthread_mutex_unlock(&A.lock);
            for (int i = 0; i < nev; i++) {
                json_object_set_new(ev[i], "job", json_integer(A.job));
                if (!lost && send_line(&s, proto_request(s.next_id++, "event", ev[i])) != 0) lost = 1;
                json_decref(ev[i]);
            }
            next_sample = ductile_now() + per;
        }
        if (lost) {
            pthread_mutex_lock(&A.lock);
            A.connected = 0;
            pthread_cond_broadcast(&A.cond);
            pthread_mutex_unlock(&A.lock);
            ductile_log(1, "controller: lost the connection to ductiled; reconnecting");
            session_close(&s);
            s.fd = -1;
        }
    }
    /* stop: say goodbye if connected (bounded) */
    if (s.fd >= 0) {
        take_snap(&cur);
        json_t *smp = sample_json(&prev, &cur);
        send_line(&s, proto_request(s.next_id++, "sample", smp));
        json_decref(smp);
        json_t *ex = json_pack("{s:i, s:i}", "job", A.job, "status", 0);
        char *line = proto_request(s.next_id++, "exit", ex);
        json_decref(ex);
        if (send_line(&s, line) == 0) {
            /* wait briefly for the ack so the exit is not lost in a reset */
            char *l = NULL, err[128];
            double end = net_now() + 1.0;
            while (net_now() < end && net_read_line(s.fd, &s.lb, &l, 500, err, sizeof err) >= 0) {
                int is_ack = strstr(l, "\"ok\"") != NULL;
                free(l);
                if (is_ack) break;
            }
        }
        session_close(&s);
    }
    return NULL;
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
    json_t *hosts = json_array();
    for (int r = 0; r < ductile_rt.size; r++) {
        char *h = all + (size_t)r * MPI_MAX_PROCESSOR_NAME;
        h[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
        if (!proto_valid_hostname(h)) snprintf(h, MPI_MAX_PROCESSOR_NAME, "localhost");
        size_t i;
        json_t *e;
        int found = 0;
        json_array_foreach(hosts, i, e) {
            if (!strcmp(json_string_value(json_object_get(e, "name")), h)) {
                json_object_set_new(e, "procs", json_integer(json_integer_value(json_object_get(e, "procs")) + 1));
                found = 1;
                break;
            }
        }
        if (!found) json_array_append_new(hosts, json_pack("{s:s, s:i}", "name", h, "procs", 1));
    }
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
    A.reg = json_pack("{s:s, s:I, s:s, s:i, s:o, s:b, s:s, s:f, s:I}", "tag", tag, "pid", (json_int_t)getpid(), "binary",
                      binary, "procs", ductile_rt.size, "hosts", hosts, "malleable", 1, "mpi", DUCTILE_MPI_FAMILY,
                      "start", ductile_rt.start_epoch, "uid", (json_int_t)geteuid());
    const char *sec = ductile_rt.settings.controller_secret;
    snprintf(A.secret, sizeof A.secret, "%s", sec ? sec : "");
    A.period = ductile_rt.settings.controller_period / 1000.0;
    if (pipe2(A.wake, O_CLOEXEC) != 0) {
        json_decref(A.reg);
        A.reg = NULL;
        return;
    }
    /* the thread must not take signals meant for the application */
    sigset_t all_sigs, old;
    sigfillset(&all_sigs);
    pthread_sigmask(SIG_BLOCK, &all_sigs, &old);
    int rc = pthread_create(&A.th, NULL, thread_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        ductile_log(0, "controller: cannot start the controller thread: %s", strerror(rc));
        close(A.wake[0]);
        close(A.wake[1]);
        json_decref(A.reg);
        A.reg = NULL;
        return;
    }
    A.enabled = 1;
    ductile_log(1, "controller thread started for %s", A.addr);
}

void ductile_appctl_stop(void)
{
    if (!A.enabled) return;
    __atomic_store_n(&A.stop, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&A.lock);
    pthread_cond_broadcast(&A.cond);
    pthread_mutex_unlock(&A.lock);
    (void)!write(A.wake[1], "x", 1);
    pthread_join(A.th, NULL);
    close(A.wake[0]);
    close(A.wake[1]);
    json_decref(A.reg);
    A.reg = NULL;
    for (int i = 0; i < A.nevents; i++) json_decref(A.events[i]);
    A.nevents = 0;
    A.enabled = 0;
}

/* The registered distributed arrays as protocol "arrays", queued for the next
 * sample when their number changed since *seen.  Called on the application's
 * thread at control points; before the first control point the controller
 * thread calls it itself (the registry is a fixed array: a read racing with a
 * registration may be stale, never out of bounds). */
static void registry_snapshot(int *seen)
{
    int nreg = reg_count();
    if (nreg == __atomic_load_n(seen, __ATOMIC_RELAXED)) return; /* the thread may reset it */
    json_t *arr = json_array();
    for (int i = 0; i < nreg && i < REG_MAX_ITEMS; i++) {
        const struct reg_item *it = reg_at(i);
        if (!it || it->d.kind != REG_DISTRIBUTED) continue;
        char name[REG_NAME_MAX];
        size_t k = 0;
        for (; k < sizeof name - 1 && it->d.name[k]; k++) {
            unsigned char ch = (unsigned char)it->d.name[k];
            name[k] = (char)(ch >= 32 && ch < 127 ? ch : '?');
        }
        name[k] = '\0';
        int64_t unit = it->d.row_elems * it->d.extent;
        json_array_append_new(arr, json_pack("{s:s, s:I, s:I}", "name", name, "elements",
                                             (json_int_t)(it->d.nrows > 0 ? it->d.nrows : 0), "elem_size",
                                             (json_int_t)(unit > 0 && unit <= 1048576 ? unit : 1)));
    }
    pthread_mutex_lock(&A.lock);
    json_decref(A.arrays);
    A.arrays = arr;
    pthread_mutex_unlock(&A.lock);
    __atomic_store_n(seen, nreg, __ATOMIC_RELAXED);
}

void ductile_appctl_control_point(int iteration)
{
    if (!A.enabled) return;
    /* the registry is read here, on the application's thread, and only when it changed */
    registry_snapshot(&A.nreg_seen);
    __atomic_store_n(&A.cp_iteration, (long long)iteration, __ATOMIC_RELAXED);
    __atomic_fetch_add(&A.cp_count, 1, __ATOMIC_RELAXED);
}

void ductile_appctl_resized(const struct report_reconfig *r)
{
    if (!A.enabled || !r) return;
    json_t *d = json_pack("{s:s, s:{s:i, s:i, s:i, s:s, s:s, s:s, s:f, s:f, s:f, s:I}}", "kind", "resized", "details",
                          "iteration", r->iteration, "from", r->from, "to", r->to, "op", r->kind, "status", r->status,
                          "reason", r->reason, "duration_s", r->total_s, "spawn_s", r->spawn_s, "transfer_s",
                          r->transfer_s, "bytes_moved", (json_int_t)r->bytes_moved);
    if (!d) return;
    /* DUCTILE_PERSISTENT: processes put on standby (shrink) or taken back (expand) */
    json_t *det = json_object_get(d, "details");
    json_object_set_new(det, "standby", json_integer(r->standby));
    if (r->persistent[0]) json_object_set_new(det, "persistent", json_string(r->persistent));
    pthread_mutex_lock(&A.lock);
    if (A.nevents < MAX_EVENTS) A.events[A.nevents++] = d;
    else json_decref(d);
    pthread_mutex_unlock(&A.lock);
}

/* Wait on A.cond (A.lock held) for at most `ms` milliseconds. */
static void cond_wait_ms(long ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += ms * 1000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&A.cond, &A.lock, &ts);
}
int ductile_io_gate(void)
{
    if (!ductile_rt.active) return 0;
    int waited = 0;
    if (ductile_rt.rank == 0 && A.enabled) {
        pthread_mutex_lock(&A.lock);
        while (A.io_held && !__atomic_load_n(&A.stop, __ATOMIC_ACQUIRE)) {
            waited = 1;
            cond_wait_ms(100);
        }
        pthread_mutex_unlock(&A.lock);
    }
    PMPI_Bcast(&waited, 1, MPI_INT, 0, ductile_rt.private_comm);
    return waited;
}

/* ------------------------------------------------------------ MPI-IO (src/io/) */

static void urgent_push(json_t *ev)
{
    if (!ev) return;
    pthread_mutex_lock(&A.lock);
    if (A.nurgent < 32) A.urgent[A.nurgent++] = ev;
    else json_decref(ev);
    pthread_mutex_unlock(&A.lock);
    (void)!write(A.wake[1], "i", 1);
}

void ductile_appctl_io_phase(const struct io_phase *p, double start_epoch)
{
    if (!A.enabled || !p) return;
    urgent_push(json_pack("{s:s, s:{s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:i}}", "kind", "io_phase", "details", "start",
                          start_epoch, "duration_s", p->duration_s, "io_s", p->io_s, "delay_s", p->delay_s, "bytes",
                          (json_int_t)(p->bytes_written + p->bytes_read), "calls", (json_int_t)p->calls, "iteration",
                          (json_int_t)p->iteration, "procs", (int)p->procs));
}

long long ductile_appctl_iteration(void)
{
    if (A.enabled && __atomic_load_n(&A.cp_count, __ATOMIC_RELAXED) > 0)
        return __atomic_load_n(&A.cp_iteration, __ATOMIC_RELAXED);
    return (long long)ductile_iteration_count();
}

int ductile_appctl_io_acquire(double *waited)
{
    *waited = 0;
    if (!A.enabled) return 0;
    double t0 = ductile_now();
    pthread_mutex_lock(&A.lock);
    /* right after MPI_Init the thread may still be registering: give it a few seconds */
    while (!A.connected && ductile_now() - t0 < 3.0 && !__atomic_load_n(&A.stop, __ATOMIC_ACQUIRE)) {
        cond_wait_ms(50);
    }
    int connected = A.connected;
    A.io_granted = 0;
    pthread_mutex_unlock(&A.lock);
    if (!connected) return 0;
    urgent_push(json_pack("{s:s, s:{s:I}}", "kind", "io_request", "details", "iteration",
                          (json_int_t)ductile_appctl_iteration()));
    pthread_mutex_lock(&A.lock);
    while (!A.io_granted && A.connected && !__atomic_load_n(&A.stop, __ATOMIC_ACQUIRE)) {
        cond_wait_ms(100);
    }
    int g = A.io_granted;
    A.io_granted = 0;
    pthread_mutex_unlock(&A.lock);
    *waited = ductile_now() - t0;
    return g;
}

void ductile_appctl_io_release(void)
{
    if (!A.enabled) return;
    urgent_push(json_pack("{s:s, s:{}}", "kind", "io_release", "details"));
}
