/* jobs.c -- ductiled's job table, monitoring history, I/O period view and
 * resize cost estimate; see jobs.h (where the processes are and their
 * slots: jobs_place.c; the commands sent: jobs_queue.c; the state file:
 * jobs_state.c). */
#include "jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../redist/plan.h"
#include "iopredict.h"
#include "../proto/protocol.h"

#define JOBS_MAX_EVENTS 256
#define JOBS_MAX_FINISHED 64
#define ASSUMED_BANDWIDTH 1.0e9 /* bytes/s when nothing was measured */
#define ASSUMED_SPAWN_S 0.35     /* per expansion, when no resize was measured */

const char *job_state_name(enum job_state s)
{
    switch (s) {
    case JOB_RUNNING: return "running";
    case JOB_DISCONNECTED: return "disconnected";
    case JOB_EXITED: return "exited";
    case JOB_CRASHED: return "crashed";
    case JOB_LOST: return "lost";
    }
    return "?";
}

void jobs_init(struct jobs *t, struct rm *rm)
{
    memset(t, 0, sizeof *t);
    t->next_id = 1;
    t->rm = rm;
}

static void job_free(struct job *j)
{
    if (!j) return;
    json_decref(j->arrays);
    hist_free(&j->hist);
    json_decref(j->events);
    json_decref(j->pmix);
    jobs_cmds_clear(j);
    free(j->rank_host);
    free(j->parked_on);
    free(j->shrunk_on);
    free(j->standby_host);
    free(j->alloc);
    free(j);
}

void jobs_destroy(struct jobs *t)
{
    for (int i = 0; i < t->n; i++) job_free(t->v[i]);
    free(t->v);
    memset(t, 0, sizeof *t);
}

struct job *jobs_get(struct jobs *t, int id)
{
    /* the table is in the order of the ids (jobs_new_job inserts there, pruning keeps the order):
     * a binary search, for every message of 2,000 jobs; a linear one should the order ever not hold */
    int lo = 0, hi = t->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (t->v[mid]->id == id) return t->v[mid];
        if (t->v[mid]->id < id) lo = mid + 1;
        else hi = mid - 1;
    }
    for (int i = 0; i < t->n; i++)
        if (t->v[i]->id == id) return t->v[i];
    return NULL;
}

static int finished(const struct job *j) { return j->state == JOB_EXITED || j->state == JOB_CRASHED || j->state == JOB_LOST; }

/* Keep at most JOBS_MAX_FINISHED finished jobs (drop the oldest), never
 * `keep`: the caller still holds that job (it was just finished). */
static void prune(struct jobs *t, const struct job *keep)
{
    int nf = 0;
    for (int i = 0; i < t->n; i++) nf += finished(t->v[i]);
    for (int i = 0; i < t->n && nf > JOBS_MAX_FINISHED;) {
        if (finished(t->v[i]) && t->v[i] != keep) {
            job_free(t->v[i]);
            memmove(&t->v[i], &t->v[i + 1], (size_t)(t->n - i - 1) * sizeof t->v[0]);
            t->n--;
            nf--;
        } else {
            i++;
        }
    }
}

struct job *jobs_new_job(struct jobs *t, int id)
{
    struct job *j = calloc(1, sizeof *j);
    struct job **nv = realloc(t->v, (size_t)(t->n + 1) * sizeof *nv);
    if (!j || !nv) {
        free(j);
        if (nv) t->v = nv;
        return NULL;
    }
    t->v = nv;
    j->id = id;
    j->conn = -1;
    j->alloc = rm_alloc_new(t->rm);
    j->parked_on = rm_alloc_new(t->rm);
    j->shrunk_on = rm_alloc_new(t->rm);
    j->events = json_array();
    j->arrays = json_array();
    j->period = 0;
    if (!j->alloc || !j->parked_on || !j->shrunk_on || hist_init(&j->hist, JOBS_HISTORY) != 0 || !j->events || !j->arrays) {
        job_free(j);
        return NULL;
    }
    int at = t->n; /* kept in the order of the ids (jobs_get's binary search) */
    while (at > 0 && t->v[at - 1]->id > id) at--;
    memmove(&t->v[at + 1], &t->v[at], (size_t)(t->n - at) * sizeof *t->v);
    t->v[at] = j;
    t->n++;
    if (id >= t->next_id) t->next_id = id + 1;
    return j;
}

struct job *jobs_register(struct jobs *t, const json_t *req, double now, char *reason, size_t rlen)
{
    const char *tag = proto_get_str(req, "tag", "");
    long pid = (long)proto_get_int(req, "pid", 0);
    int want = (int)proto_get_int(req, "job", 0);
    struct job *j = NULL;
    if (want > 0) {
        j = jobs_get(t, want);
        if (j && (strcmp(j->tag, tag) != 0 || j->pid != pid)) {
            /* that id belongs to another job: give this one a new id */
            j = NULL;
            want = 0;
        }
        /* a job still connected (half-open TCP: the job's end is gone but no
         * FIN came) is taken over by its new connection; the caller closes
         * the old one */
    }
    int resumed = j != NULL && !finished(j) && j->rank_host;
    if (!j) {
        j = jobs_new_job(t, want > 0 ? want : t->next_id);
        if (!j) {
            snprintf(reason, rlen, "out of memory");
            return NULL;
        }
        j->registered = now;
    }
    snprintf(j->tag, sizeof j->tag, "%s", tag);
    j->pid = pid;
    j->uid = proto_get_int(req, "uid", -1);
    j->start = proto_get_num(req, "start", j->registered);
    snprintf(j->binary, sizeof j->binary, "%s", proto_get_str(req, "binary", ""));
    snprintf(j->mpi, sizeof j->mpi, "%s", proto_get_str(req, "mpi", ""));
    snprintf(j->launcher, sizeof j->launcher, "%s", proto_get_str(req, "launcher", "mpiexec"));
    int procs = (int)proto_get_int(req, "procs", 1);
    j->reg_procs = procs;
    j->min_procs = (int)proto_get_int(req, "min_procs", 0);
    j->max_procs = (int)proto_get_int(req, "max_procs", 0);
    j->malleable = json_is_true(json_object_get(req, "malleable"));
    if (json_object_get(req, "pmix")) {
        json_decref(j->pmix);
        j->pmix = json_deep_copy(json_object_get(req, "pmix"));
    }
    if (!resumed) {
        /* a new job: its processes are where it says; finished or unknown before: from scratch */
        if (finished(j)) {
            memset(j->parked_on, 0, (size_t)t->rm->nhosts * sizeof(int));
            j->nstandby = j->exited = 0;
            jobs_cmds_clear(j);
        }
        j->procs = procs;
        jobs_place_registered(t, j, req);
    } else {
        /* the same job back (a new connection, a restarted ductiled, a new rank 0): ductiled's
         * picture stands; a size it did not know comes with the job's events (or its samples) */
        jobs_size_seen(t, j, procs, now);
    }
    json_t *a = json_object_get(req, "arrays");
    if (a) {
        json_decref(j->arrays);
        j->arrays = json_deep_copy(a);
    }
    j->state = JOB_RUNNING;
    j->last_seen = now;
    jobs_place(t, j);
    jobs_event(j, "registered", json_pack("{s:i, s:b}", "procs", procs, "resumed", resumed), now);
    return j;
}

void jobs_event(struct job *j, const char *kind, json_t *details, double now)
{
    json_t *e = json_is_object(details) ? details : json_object();
    if (details && e != details) json_decref(details);
    json_object_set_new(e, "t", json_real(now));
    json_object_set_new(e, "kind", json_string(kind));
    json_array_append_new(j->events, e);
    /* I/O phases are many: they go first, so that resizes, commands and
     * plans of the whole run stay (ductilectl events, tools/plot-timeline) */
    while (json_array_size(j->events) > JOBS_MAX_EVENTS) {
        size_t drop = 0, n = json_array_size(j->events);
        for (size_t k = 0; k + 1 < n; k++)
            if (!strcmp(proto_get_str(json_array_get(j->events, k), "kind", ""), "io_phase")) {
                drop = k;
                break;
            }
        json_array_remove(j->events, drop);
    }
}

void jobs_sample(struct jobs *t, struct job *j, const json_t *req, double now)
{
    hist_add(&j->hist, req, now); /* history.c: a ring of plain structs, older halves merged when full */
    jobs_size_seen(t, j, (int)proto_get_int(req, "procs", j->procs), now); /* resizes come as events (jobs_resized) */
    j->iteration = proto_get_int(req, "iteration", j->iteration);
    j->maxiter = proto_get_int(req, "maxiter", j->maxiter);
    if (j->maxiter < 0) j->maxiter = 0;
    j->time_sample = (int)proto_get_int(req, "time_sample", 1); /* 1 .. 10^6, checked at the edge (schema.c) */
    json_t *arrays = json_object_get(req, "arrays");
    if (arrays) {
        json_decref(j->arrays);
        j->arrays = json_deep_copy(arrays);
    }
    json_t *held = json_object_get(req, "io_held");
    if (held) j->io_held = json_is_true(held);
    if (json_is_true(json_object_get(req, "control_point"))) j->cp_seen = 1;
    j->samples++;
    j->last_seen = now;
}

void jobs_exit(struct jobs *t, struct job *j, int status, double now)
{
    j->state = JOB_EXITED;
    j->exit_status = status;
    j->last_seen = now;
    jobs_place(t, j); /* its slots, parked processes and delayed commands end with it */
    jobs_event(j, "exit", json_pack("{s:i}", "status", status), now);
    prune(t, j);
}

void jobs_lost_connection(struct jobs *t, struct job *j, double now)
{
    j->conn = -1;
    if (j->state != JOB_RUNNING) return;
    j->state = JOB_CRASHED;
    j->disconnected_at = now;
    jobs_place(t, j);
    jobs_event(j, "crash", json_pack("{s:s}", "reason", "connection lost without an exit message"), now);
    prune(t, j);
}

void jobs_disconnected(struct jobs *t, struct job *j, double now, const char *why)
{
    (void)t;
    j->conn = -1;
    if (j->state != JOB_RUNNING) return;
    j->state = JOB_DISCONNECTED;
    j->disconnected_at = now;
    jobs_event(j, "disconnected", json_pack("{s:s}", "reason", why), now);
}

int jobs_expire(struct jobs *t, double now, double grace, void (*left)(struct job *j))
{
    int n = 0;
    for (int i = 0; i < t->n; i++) {
        struct job *j = t->v[i];
        if (j->state == JOB_DISCONNECTED && now - j->disconnected_at > grace) {
            j->state = JOB_LOST;
            jobs_place(t, j);
            jobs_event(j, "lost", json_pack("{s:s}", "reason", "did not come back in time"), now);
            if (left) left(j);
            n++;
        }
    }
    if (n) prune(t, NULL);
    return n;
}

json_t *jobs_alloc_json(const struct jobs *t, const struct job *j)
{
    json_t *o = json_object();
    for (int i = 0; i < t->rm->nhosts; i++)
        if (j->alloc[i]) json_object_set_new(o, t->rm->hosts[i].name, json_integer(j->alloc[i]));
    return o;
}

double jobs_iter_time(const struct job *j)
{
    const struct hsample *last = hist_last(&j->hist);
    double it_time = 0;
    if (j->state == JOB_RUNNING || j->state == JOB_DISCONNECTED) {
        if (last && last->iters > 0) it_time = last->interval_s / (double)last->iters;
    } else { /* an ended job: its last sample was cut short by the end; the run's mean instead */
        double s = 0;
        long long n = 0;
        for (int k = 0; k < j->hist.n; k++)
            if (j->hist.v[k].iters > 0) s += j->hist.v[k].interval_s, n += j->hist.v[k].iters;
        if (n > 0) it_time = s / (double)n;
    }
    return it_time;
}

/* the same fields as the list's text (jobs_list.c) */
static json_t *summary_base(const struct jobs *t, const struct job *j, double now)
{
    double it_time = jobs_iter_time(j);
    return json_pack("{s:i, s:s, s:I, s:s, s:s, s:i, s:i, s:I, s:f, s:b, s:f, s:o, s:i, s:I}", "job", j->id, "tag", j->tag, "pid",
                     (json_int_t)j->pid, "binary", j->binary, "state", job_state_name(j->state), "procs", j->procs,
                     "pending", j->pending, "iteration", (json_int_t)j->iteration, "iteration_s", it_time, "io_held",
                     j->io_held, "age_s", now - j->last_seen, "slots", jobs_alloc_json(t, j), "exit_status", j->exit_status,
                     "samples", (json_int_t)j->samples);
}

json_t *jobs_summary(const struct jobs *t, const struct job *j, double now)
{
    json_t *o = summary_base(t, j, now);
    if (o) json_object_set_new(o, "parked", json_integer(j->parked)); /* removed processes holding slots */
    if (o) json_object_set_new(o, "exited", json_integer(j->exited)); /* removed processes that ended at once */
    if (o && j->uid >= 0) json_object_set_new(o, "uid", json_integer(j->uid));
    if (o && j->time_sample > 1) json_object_set_new(o, "time_sample", json_integer(j->time_sample)); /* times estimated */
    if (o) json_object_set_new(o, "start", json_real(j->start > 0 ? j->start : j->registered));
    return o;
}

json_t *jobs_io_period(const struct job *j)
{
    /* an I/O phase is a run of samples with I/O time, starting where its
     * first sample starts; the period (Eq. 1) comes from the one predictor
     * (iop_predict, iopredict.c), over the phases at the job's current size;
     * here only the terms of the last period are summed from the samples */
    struct iop_job m;
    iop_job_init(&m, j->id, j->procs);
    double cpu = 0, comm = 0, io = 0, last_cpu = 0, last_comm = 0, last_io = 0;
    int phases = 0, in_phase = 0;
    for (int i = 0; i < j->hist.n; i++) {
        const struct hsample *s = &j->hist.v[i];
        double ios = s->io_s, t = s->t;
        int is_io = ios > 0;
        if (is_io && !in_phase) {
            if (phases > 0) {
                last_cpu = cpu;
                last_comm = comm;
                last_io = io;
            }
            phases++;
            iop_add_phase(&m, t - s->interval_s, 0, s->iteration, s->procs > 0 ? s->procs : j->procs);
            cpu = comm = io = 0;
        }
        if (is_io) m.dur[m.nph - 1] += ios;
        in_phase = is_io;
        cpu += s->compute_s;
        comm += s->comm_s;
        io += ios;
    }
    m.procs = j->procs;
    struct iop_pred p;
    iop_predict(&m, &p);
    json_t *o = json_pack("{s:i, s:i}", "phases", phases, "periods", phases > 0 ? phases - 1 : 0);
    if (phases > 1) {
        struct iop_terms last = {last_cpu, last_comm, last_io};
        json_object_set_new(o, "last_period_s", json_real(iop_eq1(&last)));
        json_object_set_new(o, "t_cpu_s", json_real(last_cpu));
        json_object_set_new(o, "t_comm_s", json_real(last_comm));
        json_object_set_new(o, "t_io_s", json_real(last_io));
    }
    if (p.period > 0) {
        json_object_set_new(o, "mean_period_s", json_real(p.period));
        json_object_set_new(o, "mean_duration_s", json_real(p.duration));
        json_object_set_new(o, "next_io_t", json_real(p.next_start));
    }
    return o;
}

json_t *jobs_status(const struct jobs *t, const struct job *j, int history, double now)
{
    json_t *o = jobs_summary(t, j, now);
    json_object_set_new(o, "mpi", json_string(j->mpi));
    /* resizable: its library can, and the program reaches control points (an unmodified program never does) */
    json_object_set_new(o, "malleable", json_boolean(j->malleable && j->cp_seen));
    json_object_set_new(o, "hosts", jobs_hosts_json(t, j)); /* where its processes are, and their slots */
    if (j->procs <= 256 && j->rank_host) {
        json_t *rh = json_array();
        for (int r = 0; r < j->procs; r++)
            json_array_append_new(rh, j->rank_host[r] >= 0 ? json_string(t->rm->hosts[j->rank_host[r]].name) : json_null());
        json_object_set_new(o, "rank_hosts", rh);
    }
    json_object_set_new(o, "rank_sets", jobs_rank_hosts_json(t, j)); /* any size: {host: rank set} */
    json_object_set_new(o, "standby", json_integer(j->nstandby));
    json_object_set_new(o, "fold_cores_per_host", json_integer(j->fold_cores));
    json_object_set_new(o, "placement", json_string(j->guessed ? "guessed" : "known"));
    json_object_set_new(o, "arrays", json_deep_copy(j->arrays));
    json_object_set_new(o, "registered", json_real(j->registered));
    json_object_set_new(o, "period_s", json_real(j->period));
    json_object_set_new(o, "io_period", jobs_io_period(j));
    json_object_set_new(o, "history", hist_tail_json(&j->hist, history));
    json_object_set_new(o, "events", json_deep_copy(j->events));
    json_object_set_new(o, "queued", jobs_queue_json(j));
    json_t *running = json_array();
    for (int k = 0; k < j->ncmds; k++)
        if (j->cmds[k].state == CMD_TAKEN) json_array_append_new(running, json_integer(j->cmds[k].id));
    json_object_set_new(o, "running_commands", running);
    return o;
}

json_t *jobs_slots(const struct jobs *t)
{
    json_t *hosts = json_array();
    for (int i = 0; i < t->rm->nhosts; i++)
        json_array_append_new(hosts, json_pack("{s:s, s:i, s:i, s:s}", "name", t->rm->hosts[i].name, "slots",
                                               t->rm->hosts[i].slots, "used", t->rm->hosts[i].used, "state",
                                               rm_host_state(t->rm, i)));
    return json_pack("{s:i, s:i, s:o}", "total", rm_total(t->rm), "free", rm_free_slots(t->rm), "hosts", hosts);
}

json_t *jobs_cost(const struct jobs *t, const struct job *j, int to)
{
    int from = j->procs;
    json_t *arrays = json_array();
    double bytes = 0;
    long long elements = 0;
    size_t i;
    json_t *a;
    json_array_foreach(j->arrays, i, a) {
        int64_t n = proto_get_int(a, "elements", 0);
        int64_t es = proto_get_int(a, "elem_size", 1);
        int64_t moved = plan_moved_elements(n, from, to);
        if (moved < 0) moved = 0;
        bytes += (double)moved * (double)es;
        elements += moved;
        json_array_append_new(arrays, json_pack("{s:s, s:I, s:I, s:f}", "name", proto_get_str(a, "name", ""),
                                                "elements", (json_int_t)n, "moved_elements", (json_int_t)moved,
                                                "bytes", (double)moved * (double)es));
    }
    /* bandwidth: rank 0's bytes over its communication time, whole history */
    double b = 0, c = 0;
    for (int k = 0; k < j->hist.n; k++) {
        b += (double)j->hist.v[k].bytes;
        c += j->hist.v[k].comm_s;
    }
    int measured = c > 0.01 && b > 1e6;
    double bw = measured ? b / c : ASSUMED_BANDWIDTH;
    /* spawn time: the last measured resize, if any */
    double spawn = to > from ? ASSUMED_SPAWN_S : 0;
    int spawn_measured = 0;
    json_array_foreach(j->events, i, a) {
        if (strcmp(proto_get_str(a, "kind", ""), "resized") == 0 && proto_get_num(a, "spawn_s", 0) > 0 &&
            proto_get_int(a, "to", 0) > proto_get_int(a, "from", 0) && to > from) {
            spawn = proto_get_num(a, "spawn_s", spawn);
            spawn_measured = 1;
        }
    }
    /* DUCTILE_PERSISTENT: back to the size a shrink left standby processes of: no spawn */
    int big = 0, small = 0;
    json_array_foreach(j->events, i, a) {
        if (strcmp(proto_get_str(a, "kind", ""), "resized") != 0 || strcmp(proto_get_str(a, "status", "ok"), "ok") != 0)
            continue;
        int sb = (int)proto_get_int(a, "standby", 0), f = (int)proto_get_int(a, "from", 0), tt = (int)proto_get_int(a, "to", 0);
        big = small = 0;
        if (sb > 0 && tt < f) big = f, small = tt;
    }
    int standby = big > 0 && from == small && to == big;
    if (standby) {
        spawn = 0;
        spawn_measured = 0;
    }
    double transfer = bytes / bw;
    json_t *o = json_pack("{s:i, s:i, s:i, s:I, s:f, s:o, s:f, s:s, s:f, s:s, s:f, s:f}", "job", j->id, "from", from,
                          "to", to, "moved_elements", (json_int_t)elements, "bytes", bytes, "arrays", arrays,
                          "bandwidth_Bps", bw, "bandwidth_source", measured ? "measured" : "assumed", "spawn_s",
                          spawn, "spawn_source", standby ? "standby processes" : spawn_measured ? "measured" : "assumed",
                          "transfer_s", transfer,
                          "estimate_s", transfer + spawn);
    int need = to - from - j->pending;
    int freen = rm_free_slots(t->rm);
    json_object_set_new(o, "slots_free", json_integer(freen));
    json_object_set_new(o, "feasible", json_boolean(need <= freen));
    if (need > freen) {
        char r[160];
        snprintf(r, sizeof r, "not enough free slots: %d more needed, %d free", need, freen);
        json_object_set_new(o, "reason", json_string(r));
    }
    if (json_array_size(j->arrays) == 0)
        json_object_set_new(o, "note", json_string("the job registered no arrays: only the spawn cost is estimated"));
    return o;
}
