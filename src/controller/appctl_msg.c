/* appctl_msg.c -- what the application controller says and hears (see
 * appctl.h): samples of rank 0's counters, the registered arrays, commands
 * from ductiled (resizes join the job's queue of delayed commands, revoke
 * cancels them or takes back an I/O hold or token; I/O hold and grant,
 * period), events from the engine (resized) and MPI-IO
 * (io_phase, the exclusive-I/O token), and ductile_io_gate(). */
#include "config.h"

#include "appctl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "ductile.h"
#include "../proto/protocol.h"
#include "../monitor/iteration.h"
#include "../monitor/report_build.h"
#include "../malleable/registry.h"
#include "../malleable/schedule.h"
#include "../malleable/steer.h"
#include "../common/sizes.h"
#include "../core/hotpath.h"
#include "../common/sampling.h"
#include "../core/state.h"
#include "../io/iomon.h"
#include "appctl_int.h"
#include "../fold/fold_cmd.h"

static double wall(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* ------------------------------------------------------------ sampling */

void appctl_take_snap(struct snap *s)
{
    memset(s, 0, sizeof *s);
    s->t = ductile_now();
    for (int f = 0; f < DUCTILE_FN_COUNT; f++) {
        uint64_t calls = ductile_fn_calls(f);
        if (!calls) continue;
        uint64_t ticks = ductile_fn_ticks(f); /* estimated under sampled timing */
        uint64_t meas = ductile_stat_load(&ductile_stats[f].ticks); /* what its timed calls took */
        s->bytes += __atomic_load_n(&ductile_stats[f].bytes_sent, __ATOMIC_RELAXED) +
                    __atomic_load_n(&ductile_stats[f].bytes_recv, __ATOMIC_RELAXED);
        if (ductile_fn_category[f] == DUCTILE_CAT_IO) {
            s->io += ticks;
            s->io_m += meas;
            s->io_calls += calls;
        } else if (f != DUCTILE_FN_MPI_Init && f != DUCTILE_FN_MPI_Init_thread) {
            s->comm += ticks;
            s->comm_m += meas;
        }
    }
    if (__atomic_load_n(&appctl.cp_count, __ATOMIC_RELAXED) > 0) {
        s->iteration = __atomic_load_n(&appctl.cp_iteration, __ATOMIC_RELAXED);
    } else {
        s->iteration = (long long)ductile_iteration_count();
    }
}

json_t *appctl_sample_json(const struct snap *a, const struct snap *b)
{
    double iv = b->t - a->t;
    double comm = ductile_ticks_to_sec(b->comm - a->comm), io = ductile_ticks_to_sec(b->io - a->io);
    /* sampled timing (DUCTILE_TIME_SAMPLE): comm and io are estimates; with MPI calls one at a time they
     * cannot exceed the interval: the estimated parts are scaled down until they fit, as in the report
     * (docs/report.md), so that ductiled's policies never read more MPI time than there was */
    uint32_t every = ductile_time_every_load();
    if (every > 1 && !ductile_threaded) {
        double cm = ductile_ticks_to_sec(b->comm_m - a->comm_m), im = ductile_ticks_to_sec(b->io_m - a->io_m);
        double ce = comm > cm ? comm - cm : 0, ie = io > im ? io - im : 0;
        double f = ductile_sample_clamp(iv, cm + im, ce + ie);
        if (f < 1) comm = (comm < cm ? comm : cm) + ce * f, io = (io < im ? io : im) + ie * f;
    }
    double comp = iv - comm - io;
    if (comp < 0) comp = 0;
    long long iters = b->iteration - a->iteration;
    if (iters < 0) iters = 0;
    pthread_mutex_lock(&appctl.lock);
    int held = appctl.io_held;
    json_t *arrays = appctl.arrays;
    appctl.arrays = NULL;
    pthread_mutex_unlock(&appctl.lock);
    json_t *o = json_pack("{s:i, s:f, s:I, s:i, s:I, s:f, s:f, s:f, s:f, s:I, s:I, s:b, s:b}", "job", appctl.job, "t",
                     wall(), "iteration", (json_int_t)b->iteration, "procs",
                     __atomic_load_n(&ductile_rt.size, __ATOMIC_RELAXED), "iters", (json_int_t)iters, "interval_s", iv,
                     "compute_s", comp, "comm_s", comm, "io_s", io, "bytes", (json_int_t)(b->bytes - a->bytes),
                     "io_calls", (json_int_t)(b->io_calls - a->io_calls), "io_held", held, "control_point",
                     __atomic_load_n(&appctl.cp_count, __ATOMIC_RELAXED) > 0);
    if (arrays) json_object_set_new(o, "arrays", arrays);
    if (every > 1) json_object_set_new(o, "time_sample", json_integer(every)); /* the times are estimated: 1 call in N timed */
    long long maxiter = __atomic_load_n(&appctl.cp_maxiter, __ATOMIC_RELAXED);
    if (maxiter > 0) json_object_set_new(o, "maxiter", json_integer(maxiter));
    /* the job's size constraints as they are now (ductile_set_sizes may change them after the
     * registration): ductiled's policies ask for no other count */
    struct ductile_sizes sz;
    char spec[SIZES_ALLOWED_MAX + 144];
    engine_sizes(&sz);
    sizes_format(&sz, spec, sizeof spec);
    json_object_set_new(o, "sizes", json_string(spec));
    return o;
}

/* ------------------------------------------------------------ commands */

#define MOVING "the job's rank 0 left the world: its controller is moving to the new rank 0; try again in a moment"

/* A command's hosts (an array of names, one per new process) or ranks (a
 * rank set string, or an array of ranks), validated by proto_parse, as the
 * queue's ';'-separated list: malloc'ed, any length; NULL when out of memory. */
static char *join_list(const json_t *arr)
{
    if (json_is_string(arr)) return strdup(json_string_value(arr)); /* a shrink's rank set ("0-511,1024-2047") */
    size_t i, len = 1;
    json_t *e;
    json_array_foreach(arr, i, e) len += (json_is_string(e) ? json_string_length(e) : 24) + 1;
    char *out = malloc(len), *o = out;
    if (!out) return NULL;
    *o = '\0';
    json_array_foreach(arr, i, e) {
        /* validated by proto_parse: letters, digits, '-', '.' only, or integers */
        if (json_is_string(e)) o += sprintf(o, "%s%s", i ? ";" : "", json_string_value(e));
        else o += sprintf(o, "%s%lld", i ? ";" : "", (long long)json_integer_value(e));
    }
    return out;
}

/* A queued request as the protocol shows it: {id, op, n | to, at_iteration, list?}. */
static json_t *request_json(const struct resize_request *q)
{
    const char *op = q->kind == RESIZE_TARGET ? "resize" : q->value > 0 ? "expand" : "shrink";
    json_t *o = json_pack("{s:i, s:s, s:i, s:i}", "id", q->id, "op", op, q->kind == RESIZE_TARGET ? "to" : "n",
                          q->value < 0 ? -q->value : q->value, "at_iteration", q->iteration);
    if (o && q->list) json_object_set_new(o, "list", json_string(q->list));
    return o;
}

json_t *appctl_queue_json(unsigned *version)
{
    struct request_queue *q = request_queue_active();
    json_t *a = json_array();
    *version = 0;
    if (!q) return a;
    struct resize_request *l = malloc(REQUEST_QUEUE_MAX * sizeof *l);
    if (!l) return a;
    int n = request_queue_list(q, l, REQUEST_QUEUE_MAX, version);
    for (int k = 0; k < n; k++)
        if (l[k].source == REQUEST_FROM_CONTROLLER) json_array_append_new(a, request_json(&l[k]));
    if (n > 0) resize_request_free(l, n);
    free(l);
    return a;
}

/* "revoke": ductiled takes back what it gave -- queued commands (what
 * "command", one by id or all), the I/O hold ("hold"), the exclusive-I/O
 * token ("token": a phase already writing finishes, the job no longer
 * counts as its holder) or everything ("all").  The reply is the job's
 * acknowledgement: what was revoked. */
static char *handle_revoke(const struct proto_msg *m)
{
    const char *what = proto_get_str(m->root, "what", "all");
    int id = (int)proto_get_int(m->root, "command", 0);
    int all = !strcmp(what, "all");
    json_t *res = json_pack("{s:s}", "revoked", what);
    if (all || !strcmp(what, "command")) {
        pthread_mutex_lock(&appctl.lock);
        int mv = appctl.moving;
        pthread_mutex_unlock(&appctl.lock);
        if (mv) { /* the queue went to the new rank 0 */
            json_decref(res);
            return proto_reply_err(m->id, PERR_BUSY, MOVING);
        }
        json_t *c = json_array();
        struct request_queue *q = request_queue_active();
        struct resize_request *l = malloc(REQUEST_QUEUE_MAX * sizeof *l);
        int n = q && l ? request_queue_cancel(q, id, l, REQUEST_QUEUE_MAX) : 0;
        for (int k = 0; k < n && k < REQUEST_QUEUE_MAX; k++) json_array_append_new(c, request_json(&l[k]));
        if (l) resize_request_free(l, n < REQUEST_QUEUE_MAX ? n : REQUEST_QUEUE_MAX);
        free(l);
        if (n > 0) (void)!write(appctl.wake[1], "q", 1);
        if (!all && id > 0 && n == 0) {
            json_decref(c);
            json_decref(res);
            return proto_reply_err(m->id, PERR_BAD_ARGUMENT, "no queued command with this id (it ran already or never existed)");
        }
        json_object_set_new(res, "cancelled", c);
        if (n > 0) ductile_log(1, "controller: %d queued command(s) cancelled by ductiled", n);
    }
    pthread_mutex_lock(&appctl.lock);
    if (all || !strcmp(what, "hold")) appctl.io_held = 0;
    if (all || !strcmp(what, "token")) appctl.io_granted = 0;
    pthread_cond_broadcast(&appctl.cond);
    json_object_set_new(res, "io_held", json_boolean(appctl.io_held));
    pthread_mutex_unlock(&appctl.lock);
    if (all || strcmp(what, "command") != 0)
        ductile_log(1, "controller: ductiled revoked %s (%s)", what, proto_get_str(m->root, "reason", "no reason given"));
    char *line = proto_reply_ok(m->id, res);
    json_decref(res);
    return line;
}

char *appctl_handle_command(const struct proto_msg *m)
{
    const json_t *r = m->root;
    const char *cmd = m->cmd;
    char err[512] = "";
    if (!strcmp(cmd, "expand") || !strcmp(cmd, "shrink") || !strcmp(cmd, "resize")) {
        int at = (int)proto_get_int(r, "at_iteration", -1);
        if (proto_get_int(r, "at_iteration", -1) > 2147483647LL) at = 2147483647;
        const json_t *l = json_object_get(r, !strcmp(cmd, "shrink") ? "ranks" : "hosts");
        char *list = l ? join_list(l) : NULL; /* any length (the protocol's message size bounds it) */
        if (l && !list) return proto_reply_err(m->id, PERR_BUSY, "resize refused: out of memory for the list");
        int value, target = 0;
        if (!strcmp(cmd, "expand")) value = (int)proto_get_int(r, "n", 0);
        else if (!strcmp(cmd, "shrink")) value = -(int)proto_get_int(r, "n", 0);
        else value = (int)proto_get_int(r, "to", 0), target = 1;
        /* a command of ductiled joins the job's queue of delayed commands
         * (REQUEST_QUEUE_MAX): it runs at its iteration unless cancelled */
        struct request_queue *q = request_queue_active();
        int qid = 0;
        if (!q) {
            free(list);
            return proto_reply_err(m->id, PERR_BUSY, "resize refused: the malleability engine is not active");
        }
        /* a count the job cannot use (its size constraints, src/common/sizes.h): refused now, with the
         * reason (the decision checks again, against the size of then) */
        struct ductile_sizes sz;
        engine_sizes(&sz);
        int size = __atomic_load_n(&ductile_rt.size, __ATOMIC_RELAXED), nd = target ? value : size + value;
        char why[400];
        if (nd != size && !sizes_allows(&sz, nd, why, sizeof why)) {
            snprintf(err, sizeof err, "resize refused: the job cannot run on %d process%s: %s", nd, nd == 1 ? "" : "es", why);
            free(list);
            return proto_reply_err(m->id, PERR_BAD_ARGUMENT, err);
        }
        /* under the lock: a hand-over to a new rank 0 (appctl.c) copies the queue after setting moving */
        pthread_mutex_lock(&appctl.lock);
        int rc = appctl.moving ? 1
                 : request_queue_submit_id(q, value, target ? RESIZE_TARGET : RESIZE_DELTA, at, list, &qid, err,
                                           sizeof err);
        pthread_mutex_unlock(&appctl.lock);
        free(list); /* the queue keeps its own copy */
        if (rc == 1) return proto_reply_err(m->id, PERR_BUSY, MOVING);
        if (rc != 0) return proto_reply_err(m->id, PERR_BUSY, err);
        ductile_log(1, "controller: %s %d queued as command %d for %s", cmd, value < 0 ? -value : value, qid,
                    at >= 0 ? "a later iteration" : "the next control point");
        (void)!write(appctl.wake[1], "q", 1); /* the thread tells ductiled the new queue */
        json_t *res = json_pack("{s:b, s:i, s:i}", "queued", 1, "at_iteration", at, "id", qid);
        char *line = proto_reply_ok(m->id, res);
        json_decref(res);
        return line;
    }
    if (!strcmp(cmd, "revoke")) return handle_revoke(m);
    if (!strcmp(cmd, "io") && !strcmp(proto_get_str(r, "action", ""), "grant")) {
        /* the exclusive-I/O token (src/io/iosched.c) */
        pthread_mutex_lock(&appctl.lock);
        appctl.io_granted = 1;
        pthread_cond_broadcast(&appctl.cond);
        pthread_mutex_unlock(&appctl.lock);
        ductile_log(2, "controller: I/O token granted");
        json_t *res = json_pack("{s:b}", "granted", 1);
        char *line = proto_reply_ok(m->id, res);
        json_decref(res);
        return line;
    }
    if (!strcmp(cmd, "io")) {
        int hold = !strcmp(proto_get_str(r, "action", ""), "hold");
        /* a hold lasts at most DUCTILE_IO_HOLD_MAX seconds, or less when it says so:
         * the job opens its I/O gate itself then (ductile_io_gate) */
        double most = (double)ductile_rt.settings.io_hold_max, lasts = proto_get_num(r, "seconds", most);
        if (!(lasts > 0 && lasts <= most)) lasts = most;
        pthread_mutex_lock(&appctl.lock);
        appctl.io_held = hold;
        appctl.io_hold_until = hold ? ductile_now() + lasts : 0;
        pthread_cond_broadcast(&appctl.cond);
        pthread_mutex_unlock(&appctl.lock);
        ductile_log(1, "controller: I/O %s", hold ? "held" : "released");
        json_t *res = json_pack("{s:b}", "io_held", hold);
        if (hold) json_object_set_new(res, "hold_s", json_real(lasts));
        char *line = proto_reply_ok(m->id, res);
        json_decref(res);
        return line;
    }
    if (!strcmp(cmd, "period")) {
        double s = proto_get_num(r, "seconds", 1.0);
        pthread_mutex_lock(&appctl.lock);
        appctl.period = s;
        pthread_mutex_unlock(&appctl.lock);
        json_t *res = json_pack("{s:f}", "period", s);
        char *line = proto_reply_ok(m->id, res);
        json_decref(res);
        return line;
    }
    if (!strcmp(cmd, "fold") || !strcmp(cmd, "unfold")) return ductile_fold_command(m); /* src/fold/ */
    return proto_reply_err(m->id, PERR_UNKNOWN_COMMAND, "a job does not serve this command");
}


/* The registered distributed arrays as protocol "arrays", queued for the next
 * sample when their number changed since *seen.  Called on the application's
 * thread at control points; before the first control point the controller
 * thread calls it itself (under the registry's lock: the program may be
 * registering meanwhile). */
void appctl_registry_snapshot(int *seen)
{
    reg_lock();
    int nreg = reg_count();
    if (nreg == __atomic_load_n(seen, __ATOMIC_RELAXED)) { /* the thread may reset it */
        reg_unlock();
        return;
    }
    json_t *arr = json_array();
    for (int i = 0; i < nreg; i++) {
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
    reg_unlock();
    pthread_mutex_lock(&appctl.lock);
    json_decref(appctl.arrays);
    appctl.arrays = arr;
    pthread_mutex_unlock(&appctl.lock);
    __atomic_store_n(seen, nreg, __ATOMIC_RELAXED);
}

void ductile_appctl_maxiter(int maxiter)
{
    if (maxiter > 0) __atomic_store_n(&appctl.cp_maxiter, (long long)maxiter, __ATOMIC_RELAXED);
}

void ductile_appctl_control_point(int iteration)
{
    if (!appctl.enabled) return;
    /* the registry is read here, on the application's thread, and only when it changed */
    appctl_registry_snapshot(&appctl.nreg_seen);
    __atomic_store_n(&appctl.cp_iteration, (long long)iteration, __ATOMIC_RELAXED);
    __atomic_fetch_add(&appctl.cp_count, 1, __ATOMIC_RELAXED);
}

void ductile_appctl_resized(const struct report_reconfig *r)
{
    appctl_takeover(); /* the first record of a new rank 0: the controller handed over to it starts */
    if (!appctl.enabled || !r) return;
    json_t *d = json_pack("{s:s, s:{s:i, s:i, s:i, s:s, s:s, s:s, s:f, s:f, s:f, s:I}}", "kind", "resized", "details",
                          "iteration", r->iteration, "from", r->from, "to", r->to, "op", r->kind, "status", r->status,
                          "reason", r->reason, "duration_s", r->total_s, "spawn_s", r->spawn_s, "transfer_s",
                          r->transfer_s, "bytes_moved", (json_int_t)r->bytes_moved);
    if (!d) return;
    if (r->command > 0) json_object_set_new(json_object_get(d, "details"), "command", json_integer(r->command));
    json_object_set_new(json_object_get(d, "details"), "method", json_string(r->method)); /* baseline: every old process left */
    /* DUCTILE_PERSISTENT: processes put on standby (shrink) or taken back (expand) */
    json_t *det = json_object_get(d, "details");
    json_object_set_new(det, "standby", json_integer(r->standby));
    json_object_set_new(det, "exited", json_integer(r->exited)); /* removed processes that ended (the others park) */
    json_object_set_new(det, "parked", json_integer(r->parked)); /* a failed expansion's new processes still alive */
    if (r->persistent[0]) json_object_set_new(det, "persistent", json_string(r->persistent));
    pthread_mutex_lock(&appctl.lock);
    if (appctl.nevents < APPCTL_MAX_EVENTS) appctl.events[appctl.nevents++] = d;
    else json_decref(d);
    pthread_mutex_unlock(&appctl.lock);
}

/* Wait on appctl.cond (appctl.lock held) for at most `ms` milliseconds. */
static void cond_wait_ms(long ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += ms * 1000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&appctl.cond, &appctl.lock, &ts);
}
int ductile_io_gate(void)
{
    if (!ductile_rt.active) return 0;
    int waited = 0;
    if (ductile_rt.rank == 0 && appctl.enabled) {
        double held_for = -1;
        pthread_mutex_lock(&appctl.lock);
        while (appctl.io_held && !__atomic_load_n(&appctl.stop, __ATOMIC_ACQUIRE)) {
            if (ductile_now() >= appctl.io_hold_until) { /* the hold's time is up: the job lets itself go */
                appctl.io_held = 0;
                held_for = (double)ductile_rt.settings.io_hold_max;
                break;
            }
            waited = 1;
            cond_wait_ms(100);
        }
        pthread_mutex_unlock(&appctl.lock);
        if (held_for >= 0)
            ductile_log(0, "controller: I/O hold expired (at most DUCTILE_IO_HOLD_MAX=%.0f s, or the hold's own limit): "
                        "the I/O gate opens", held_for);
    }
    PMPI_Bcast(&waited, 1, MPI_INT, 0, ductile_rt.private_comm);
    return waited;
}

/* ------------------------------------------------------------ MPI-IO (src/io/) */

static void urgent_push(json_t *ev)
{
    if (!ev) return;
    pthread_mutex_lock(&appctl.lock);
    if (appctl.nurgent < APPCTL_MAX_URGENT) appctl.urgent[appctl.nurgent++] = ev;
    else json_decref(ev);
    pthread_mutex_unlock(&appctl.lock);
    (void)!write(appctl.wake[1], "i", 1);
}

void ductile_appctl_io_phase(const struct io_phase *p, double start_epoch)
{
    if (!appctl.enabled || !p) return;
    urgent_push(json_pack("{s:s, s:{s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:i}}", "kind", "io_phase", "details", "start",
                          start_epoch, "duration_s", p->duration_s, "io_s", p->io_s, "delay_s", p->delay_s, "bytes",
                          (json_int_t)(p->bytes_written + p->bytes_read), "calls", (json_int_t)p->calls, "iteration",
                          (json_int_t)p->iteration, "procs", (int)p->procs));
}

long long ductile_appctl_iteration(void)
{
    if (appctl.enabled && __atomic_load_n(&appctl.cp_count, __ATOMIC_RELAXED) > 0)
        return __atomic_load_n(&appctl.cp_iteration, __ATOMIC_RELAXED);
    return (long long)ductile_iteration_count();
}

int ductile_appctl_io_acquire(double *waited)
{
    *waited = 0;
    if (!appctl.enabled) return 0;
    double t0 = ductile_now();
    pthread_mutex_lock(&appctl.lock);
    /* right after MPI_Init the thread may still be registering: give its
     * first attempt a few seconds; once an attempt failed the daemon is
     * taken for gone (the thread retries in the background) and a phase
     * does not wait for it */
    while (!appctl.connected && !appctl.tried && ductile_now() - t0 < 3.0 &&
           !__atomic_load_n(&appctl.stop, __ATOMIC_ACQUIRE)) {
        cond_wait_ms(50);
    }
    int connected = appctl.connected;
    appctl.io_granted = 0;
    pthread_mutex_unlock(&appctl.lock);
    if (!connected) {
        static int told;
        if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
            ductile_log(1, "controller: ductiled is not reachable: I/O phases run without the token until it is back");
        return 0;
    }
    urgent_push(json_pack("{s:s, s:{s:I}}", "kind", "io_request", "details", "iteration",
                          (json_int_t)ductile_appctl_iteration()));
    pthread_mutex_lock(&appctl.lock);
    while (!appctl.io_granted && appctl.connected && !__atomic_load_n(&appctl.stop, __ATOMIC_ACQUIRE)) {
        cond_wait_ms(100);
    }
    int g = appctl.io_granted;
    appctl.io_granted = 0;
    pthread_mutex_unlock(&appctl.lock);
    *waited = ductile_now() - t0;
    return g;
}

void ductile_appctl_io_release(double kept)
{
    if (!appctl.enabled) return;
    urgent_push(json_pack("{s:s, s:{s:f}}", "kind", "io_release", "details", "kept_s", kept));
}
