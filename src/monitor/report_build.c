/* report_build.c -- the JSON report (jansson) and the human summary, built
 * from the counters rank 0 gathered.  Pure logic, no MPI. */
#include "config.h"

#include "report_build.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *report_human_bytes(double bytes, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 5) {
        bytes /= 1000.0;
        u++;
    }
    if (u == 0) snprintf(buf, len, "%.0f B", bytes);
    else snprintf(buf, len, "%.1f %s", bytes, unit[u]);
    return buf;
}

void report_rank_totals(const struct report_input *in, int rank, struct report_rank_totals *out)
{
    report_fn_totals(in->fns + (size_t)rank * DUCTILE_FN_COUNT, in->ranks[rank].wall_s, out);
}

void report_fn_totals(const struct report_fn *f, double wall_s, struct report_rank_totals *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < DUCTILE_FN_COUNT; i++) {
        out->calls += f[i].calls;
        out->bytes_sent += f[i].bytes_sent;
        out->bytes_recv += f[i].bytes_recv;
        out->mpi_s += f[i].time_s;
        if (ductile_fn_category[i] == DUCTILE_CAT_IO) out->io_s += f[i].time_s;
    }
    out->comm_s = out->mpi_s - out->io_s;
    out->compute_s = wall_s - out->mpi_s;
    if (out->compute_s < 0) out->compute_s = 0;
}

static void spread_one(struct report_spread *s, double v, int rank)
{
    s->sum = s->min = s->max = v;
    s->min_rank = s->max_rank = rank;
}

void report_reduce_one(const struct report_fn *fns, double wall_s, int rank, struct report_reduced *out)
{
    struct report_rank_totals t;
    report_fn_totals(fns, wall_s, &t);
    memcpy(out->fn_sum, fns, sizeof out->fn_sum);
    for (int i = 0; i < DUCTILE_FN_COUNT; i++) out->fn_tmax[i] = fns[i].time_s;
    spread_one(&out->wall, wall_s, rank);
    spread_one(&out->mpi, t.mpi_s, rank);
    spread_one(&out->compute, t.compute_s, rank);
    spread_one(&out->io, t.io_s, rank);
}

static void spread_merge(struct report_spread *a, const struct report_spread *b)
{
    a->sum += b->sum;
    if (b->min < a->min || (b->min == a->min && b->min_rank < a->min_rank)) {
        a->min = b->min;
        a->min_rank = b->min_rank;
    }
    if (b->max > a->max || (b->max == a->max && b->max_rank < a->max_rank)) {
        a->max = b->max;
        a->max_rank = b->max_rank;
    }
}

void report_reduce_merge(struct report_reduced *acc, const struct report_reduced *b)
{
    for (int i = 0; i < DUCTILE_FN_COUNT; i++) {
        acc->fn_sum[i].calls += b->fn_sum[i].calls;
        acc->fn_sum[i].time_s += b->fn_sum[i].time_s;
        acc->fn_sum[i].bytes_sent += b->fn_sum[i].bytes_sent;
        acc->fn_sum[i].bytes_recv += b->fn_sum[i].bytes_recv;
        if (b->fn_tmax[i] > acc->fn_tmax[i]) acc->fn_tmax[i] = b->fn_tmax[i];
    }
    spread_merge(&acc->wall, &b->wall);
    spread_merge(&acc->mpi, &b->mpi);
    spread_merge(&acc->compute, &b->compute);
    spread_merge(&acc->io, &b->io);
}

/* in->reduced, or (a new one, to free) computed from the gathered tables */
static struct report_reduced *reduced_of(const struct report_input *in, int *owned)
{
    *owned = 0;
    if (in->reduced) return (struct report_reduced *)in->reduced;
    struct report_reduced *acc = calloc(1, sizeof *acc), *one = calloc(1, sizeof *one);
    if (!acc || !one || !in->ranks || !in->fns || in->nprocs < 1) {
        free(one);
        *owned = acc != NULL;
        return acc;
    }
    for (int r = 0; r < in->nprocs; r++) {
        report_reduce_one(in->fns + (size_t)r * DUCTILE_FN_COUNT, in->ranks[r].wall_s, r, r ? one : acc);
        if (r) report_reduce_merge(acc, one);
    }
    free(one);
    *owned = 1;
    return acc;
}

static json_t *fn_json(const struct report_fn *f, int fn)
{
    return json_pack("{s:s, s:I, s:f, s:I, s:I}", "category", ductile_category_name[ductile_fn_category[fn]],
                     "calls", (json_int_t)f->calls, "time_s", f->time_s, "bytes_sent",
                     (json_int_t)f->bytes_sent, "bytes_recv", (json_int_t)f->bytes_recv);
}

/* The functions a process called (those it never called are absent). */
static json_t *fns_json(const struct report_fn *f)
{
    json_t *fns = json_object();
    for (int i = 0; i < DUCTILE_FN_COUNT; i++)
        if (f[i].calls) json_object_set_new(fns, ductile_fn_name[i], fn_json(&f[i], i));
    return fns;
}

/* How the times were taken: every call timed, or a sample (then every
 * time_s is an estimate). */
static json_t *timing_json(const struct report_input *in, uint64_t calls)
{
    int sampled = in->time_sample_every > 1 || in->time_estimated_calls > 0;
    return json_pack("{s:s, s:b, s:I, s:I, s:I, s:s}", "mode", sampled ? "sampled" : "every-call", "estimated",
                     in->time_estimated_calls > 0, "sample_every", (json_int_t)(sampled ? in->time_sample_every : 1),
                     "estimated_calls", (json_int_t)in->time_estimated_calls, "calls", (json_int_t)calls, "note",
                     sampled ? "times are estimated from a random sample of the calls (time x calls / timed calls); "
                               "calls and bytes are exact"
                             : "every call timed; times are measured");
}

static void add_totals(struct report_rank_totals *all, const struct report_rank_totals *t)
{
    all->calls += t->calls;
    all->bytes_sent += t->bytes_sent;
    all->bytes_recv += t->bytes_recv;
    all->mpi_s += t->mpi_s;
    all->io_s += t->io_s;
    all->comm_s += t->comm_s;
    all->compute_s += t->compute_s;
}

/* Function fn summed over the ranks and the processes that left; *tmax: the largest single-process time. */
static struct report_fn fn_sum(const struct report_input *in, const struct report_reduced *red, int fn,
                               double *tmax)
{
    struct report_fn sum = red->fn_sum[fn];
    double mx = red->fn_tmax[fn];
    int nd = in->departed ? in->ndeparted : 0;
    if (in->departed_sum) { /* combined when they left */
        const struct report_fn *f = &in->departed_sum->sum[fn];
        sum.calls += f->calls;
        sum.time_s += f->time_s;
        sum.bytes_sent += f->bytes_sent;
        sum.bytes_recv += f->bytes_recv;
        if (in->departed_sum->tmax[fn] > mx) mx = in->departed_sum->tmax[fn];
        nd = 0;
    }
    for (int k = 0; k < nd && in->departed_fns; k++) {
        const struct report_fn *f = &in->departed_fns[(size_t)k * DUCTILE_FN_COUNT + fn];
        sum.calls += f->calls;
        sum.time_s += f->time_s;
        sum.bytes_sent += f->bytes_sent;
        sum.bytes_recv += f->bytes_recv;
        if (f->time_s > mx) mx = f->time_s;
    }
    if (tmax) *tmax = mx;
    return sum;
}

static json_t *spread_json(const struct report_spread *v, int n)
{
    double mean = n ? v->sum / n : 0;
    return json_pack("{s:f, s:f, s:f, s:f, s:i}", "mean_s", mean, "min_s", n ? v->min : 0.0, "max_s",
                     n ? v->max : 0.0, "max_over_mean", mean > 0 ? v->max / mean : 1.0, "max_rank",
                     n ? (int)v->max_rank : 0);
}

json_t *report_build_json(const struct report_input *in)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("ductile-report/1"));
    json_object_set_new(root, "ductile_version", json_string(PACKAGE_VERSION));
    json_object_set_new(root, "job", json_string(in->job ? in->job : ""));
    char stdver[16];
    snprintf(stdver, sizeof stdver, "%d.%d", in->mpi_version, in->mpi_subversion);
    json_object_set_new(root, "mpi",
                        json_pack("{s:s, s:s, s:s}", "family", in->mpi_family ? in->mpi_family : "unknown",
                                  "library", in->mpi_library ? in->mpi_library : "", "standard", stdver));
    json_t *cmd = json_array();
    for (int i = 0; i < in->ncommand; i++) json_array_append_new(cmd, json_string(in->command[i]));
    json_object_set_new(root, "command", cmd);
    char when[64] = "";
    time_t t = (time_t)in->start_epoch;
    struct tm tm;
    if (gmtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_object_set_new(root, "start_time", json_string(when));
    json_object_set_new(root, "nprocs", json_integer(in->nprocs));

    json_t *settings = json_object();
    for (int i = 0; i < in->nsettings; i++)
        json_object_set_new(settings, in->setting_names[i], json_string(in->setting_values[i]));
    json_object_set_new(root, "settings", settings);

    int n = in->nprocs, owned = 0;
    struct report_reduced *red = reduced_of(in, &owned);
    static const struct report_reduced zero;
    if (!red) red = (struct report_reduced *)&zero;
    struct report_rank_totals all = {0};
    for (int i = 0; i < DUCTILE_FN_COUNT; i++) {
        all.calls += red->fn_sum[i].calls;
        all.bytes_sent += red->fn_sum[i].bytes_sent;
        all.bytes_recv += red->fn_sum[i].bytes_recv;
    }
    all.mpi_s = red->mpi.sum;
    all.io_s = red->io.sum;
    all.comm_s = red->mpi.sum - red->io.sum;
    all.compute_s = red->compute.sum;
    double wall_max = n ? red->wall.max : 0;
    json_t *ranks = json_array();
    for (int r = 0; r < n && in->ranks && in->fns; r++) {
        struct report_rank_totals tot;
        report_rank_totals(in, r, &tot);
        json_t *fns = fns_json(in->fns + (size_t)r * DUCTILE_FN_COUNT);
        json_array_append_new(
            ranks, json_pack("{s:i, s:s, s:i, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:o}", "rank",
                             in->ranks[r].rank, "host", in->ranks[r].host, "pid", in->ranks[r].pid,
                             "wall_time_s", in->ranks[r].wall_s, "mpi_time_s", tot.mpi_s, "compute_time_s",
                             tot.compute_s, "comm_time_s", tot.comm_s, "io_time_s", tot.io_s, "calls",
                             (json_int_t)tot.calls, "bytes_sent", (json_int_t)tot.bytes_sent, "bytes_recv",
                             (json_int_t)tot.bytes_recv, "functions", fns));
    }
    /* processes that left the world during the run (docs/malleability.md) */
    json_t *departed = json_array();
    for (int k = 0; k < in->ndeparted && in->departed; k++) {
        const struct report_departed *d = &in->departed[k];
        struct report_rank_totals tot = d->tot;
        add_totals(&all, &tot);
        json_t *dj =
            json_pack("{s:i, s:s, s:i, s:i, s:s, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:I}", "rank", d->who.rank,
                      "host", d->who.host, "pid", d->who.pid, "left_at_iteration", d->left_at_iteration,
                      "end", d->exited ? "exited" : "parked",
                      "wall_time_s", d->who.wall_s, "mpi_time_s", tot.mpi_s, "compute_time_s", tot.compute_s,
                      "comm_time_s", tot.comm_s, "io_time_s", tot.io_s, "calls", (json_int_t)tot.calls,
                      "bytes_sent", (json_int_t)tot.bytes_sent, "bytes_recv", (json_int_t)tot.bytes_recv);
        /* each one's functions only while few left (DUCTILE_REPORT_RANKS); the combined figures count them all */
        if (in->departed_fns)
            json_object_set_new(dj, "functions", fns_json(in->departed_fns + (size_t)k * DUCTILE_FN_COUNT));
        json_array_append_new(departed, dj);
    }
    json_object_set_new(root, "wall_time_s", json_real(wall_max));
    json_object_set_new(
        root, "totals",
        json_pack("{s:I, s:f, s:f, s:f, s:f, s:I, s:I}", "calls", (json_int_t)all.calls, "mpi_time_s", all.mpi_s,
                  "compute_time_s", all.compute_s, "comm_time_s", all.comm_s, "io_time_s", all.io_s,
                  "bytes_sent", (json_int_t)all.bytes_sent, "bytes_recv", (json_int_t)all.bytes_recv));
    json_object_set_new(root, "timing", timing_json(in, all.calls));
    json_object_set_new(root, "imbalance",
                        json_pack("{s:o, s:o, s:o, s:o}", "wall_time", spread_json(&red->wall, n), "mpi_time",
                                  spread_json(&red->mpi, n), "compute_time", spread_json(&red->compute, n),
                                  "io_time", spread_json(&red->io, n)));

    /* functions aggregated over ranks and the processes that left */
    json_t *fns = json_object();
    for (int i = 0; i < DUCTILE_FN_COUNT; i++) {
        double tmax = 0;
        struct report_fn sum = fn_sum(in, red, i, &tmax);
        if (!sum.calls) continue;
        json_t *o = fn_json(&sum, i);
        json_object_set_new(o, "time_max_rank_s", json_real(tmax));
        json_object_set_new(fns, ductile_fn_name[i], o);
    }
    json_object_set_new(root, "functions", fns);
    json_object_set_new(root, "ranks", ranks);
    json_object_set_new(root, "departed", departed);

    const struct report_iter *it = &in->iter;
    json_t *recent = json_array();
    for (size_t i = 0; i < it->nrecent; i++) json_array_append_new(recent, json_real(it->recent_s[i]));
    /* the whole run in buckets: [start_s, first iteration, iterations, mean_s, min_s, max_s] */
    json_t *buckets = json_array();
    for (size_t i = 0; i < it->ntimeline; i++) {
        const iterdetect_bucket *b = &it->timeline[i];
        json_array_append_new(buckets, json_pack("[f, I, I, f, f, f]", b->t_start, (json_int_t)b->first,
                                                 (json_int_t)b->count, b->count ? b->sum / (double)b->count : 0.0,
                                                 b->min, b->max));
    }
    json_t *timeline = json_pack("{s:I, s:[s, s, s, s, s, s], s:o}", "iterations_per_bucket",
                                 (json_int_t)(it->timeline_width ? it->timeline_width : 1), "columns", "start_s",
                                 "first", "count", "mean_s", "min_s", "max_s", "buckets", buckets);
    json_object_set_new(root, "iterations",
                        json_pack("{s:b, s:s, s:s, s:i, s:I, s:f, s:f, s:f, s:f, s:o, s:o}", "detected", it->detected,
                                  "state", it->state ? it->state : "off", "head", it->head ? it->head : "",
                                  "period_calls", (int)it->period_calls, "count", (json_int_t)it->count,
                                  "time_total_s", it->total_s, "time_mean_s", it->mean_s, "time_min_s",
                                  it->min_s, "time_max_s", it->max_s, "recent_times_s", recent, "timeline", timeline));
    json_t *reconf = json_array();
    for (int i = 0; i < in->nreconfigs && in->reconfigs; i++) {
        const struct report_reconfig *r = &in->reconfigs[i];
        json_t *rj = json_pack("{s:i, s:i, s:i, s:i, s:s, s:s, s:s, s:s, s:s, s:f, s:{s:f, s:f, s:f, s:f, s:f}, s:I}",
                               "id", r->id, "iteration", r->iteration, "from", r->from, "to", r->to, "kind",
                               r->kind, "method", r->method, "redistribution", r->redist, "status", r->status,
                               "reason", r->reason, "start_s", r->start_s, "times_s", "spawn", r->spawn_s,
                               "merge", r->merge_s, "plan", r->plan_s, "transfer", r->transfer_s, "total",
                               r->total_s, "bytes_moved", (json_int_t)r->bytes_moved);
        /* one-sided / background redistribution (src/rma/, docs/rma.md) */
        json_object_set_new(json_object_get(rj, "times_s"), "window", json_real(r->window_s));
        json_object_set_new(json_object_get(rj, "times_s"), "background", json_real(r->background_s));
        json_object_set_new(rj, "overlapped_iterations", r->overlap_it >= 0 ? json_integer(r->overlap_it) : json_null());
        json_object_set_new(rj, "choice", json_pack("{s:s, s:s}", "by", r->choice[0] ? r->choice : "setting", "reason",
                                                    r->choice_reason));
        /* persistent redistribution (DUCTILE_PERSISTENT) */
        json_object_set_new(json_object_get(rj, "times_s"), "prepare", json_real(r->prepare_s));
        json_object_set_new(rj, "persistent", r->persistent[0] ? json_string(r->persistent) : json_null());
        json_object_set_new(rj, "standby_processes", json_integer(r->standby));
        json_object_set_new(rj, "exited_processes", json_integer(r->exited));
        json_object_set_new(rj, "parked_processes", json_integer(r->parked));
        json_object_set_new(rj, "spawn_groups", json_integer(r->spawn_groups));
        json_object_set_new(rj, "shared_memory", json_boolean(r->shared_memory));
        json_array_append_new(reconf, rj);
    }
    json_object_set_new(root, "reconfigurations", reconf);
    if (in->io) json_object_set(root, "io", in->io); /* MPI-IO section (src/io/iomon.c) */
    if (owned) free(red);
    return root;
}

struct fn_rank {
    int fn;
    struct report_fn sum;
};

static int by_time_desc(const void *a, const void *b)
{
    double ta = ((const struct fn_rank *)a)->sum.time_s, tb = ((const struct fn_rank *)b)->sum.time_s;
    return ta < tb ? 1 : ta > tb ? -1 : 0;
}

void report_print_summary(FILE *f, const struct report_input *in, const char *report_path)
{
    int n = in->nprocs, owned = 0;
    struct report_reduced *red = reduced_of(in, &owned);
    static const struct report_reduced zero;
    if (!red) red = (struct report_reduced *)&zero;
    double wall_max = n ? red->wall.max : 0, wall_sum = red->wall.sum, mpi_sum = red->mpi.sum;
    double io_sum = red->io.sum, comp_sum = red->compute.sum;
    double mpi_max = red->mpi.max, comp_max = red->compute.max;
    int mpi_max_rank = red->mpi.max_rank, comp_max_rank = red->compute.max_rank;
    fprintf(f, "ductile: job %s: %d rank%s, %.3f s%s%s\n", in->job, n, n == 1 ? "" : "s", wall_max,
            report_path && *report_path ? ", report " : "", report_path ? report_path : "");
    double denom = wall_sum > 0 ? wall_sum : 1;
    fprintf(f, "ductile: time: compute %.1f%%, communication %.1f%%, I/O %.1f%% (all ranks)\n",
            100.0 * comp_sum / denom, 100.0 * (mpi_sum - io_sum) / denom, 100.0 * io_sum / denom);
    if (n > 1) {
        double mpi_mean = mpi_sum / n, comp_mean = comp_sum / n;
        fprintf(f, "ductile: imbalance (max/mean): MPI time %.2f (rank %d), compute %.2f (rank %d)\n",
                mpi_mean > 0 ? mpi_max / mpi_mean : 1.0, mpi_max_rank, comp_mean > 0 ? comp_max / comp_mean : 1.0,
                comp_max_rank);
    }
    /* the top calls include the processes that left */
    int nd = in->departed ? in->ndeparted : 0;
    double mpi_all = mpi_sum;
    for (int k = 0; k < nd; k++) {
        mpi_all += in->departed[k].tot.mpi_s;
    }
    struct fn_rank top[DUCTILE_FN_COUNT];
    int ntop = 0;
    for (int i = 0; i < DUCTILE_FN_COUNT; i++) {
        struct report_fn sum = fn_sum(in, red, i, NULL);
        if (sum.calls) top[ntop++] = (struct fn_rank){i, sum};
    }
    qsort(top, (size_t)ntop, sizeof top[0], by_time_desc);
    fprintf(f, "ductile: %-28s %10s %10s %6s %11s %11s\n", "top MPI calls", "calls", "time (s)", "%MPI", "sent",
            "received");
    for (int i = 0; i < ntop && i < 5; i++) {
        char sb[32], rb[32];
        fprintf(f, "ductile:   %-26s %10llu %10.4f %5.1f%% %11s %11s\n", ductile_fn_name[top[i].fn],
                (unsigned long long)top[i].sum.calls, top[i].sum.time_s,
                mpi_all > 0 ? 100.0 * top[i].sum.time_s / mpi_all : 0.0,
                report_human_bytes((double)top[i].sum.bytes_sent, sb, sizeof sb),
                report_human_bytes((double)top[i].sum.bytes_recv, rb, sizeof rb));
    }
    if (in->time_sample_every > 1 || in->time_estimated_calls > 0)
        fprintf(f, "ductile: times are ESTIMATED: 1 call in %u timed (DUCTILE_TIME_SAMPLE), %llu calls untimed; "
                   "calls and bytes exact\n",
                in->time_sample_every, (unsigned long long)in->time_estimated_calls);
    if (nd > 0)
        fprintf(f, "ductile: %d process%s left during the run (their counters are included)\n", nd,
                nd == 1 ? "" : "es");
    if (in->nreconfigs > 0 && in->reconfigs) {
        int ok = 0, failed = 0, refused = 0;
        for (int i = 0; i < in->nreconfigs; i++) {
            const char *st = in->reconfigs[i].status;
            if (strcmp(st, "ok") == 0) ok++;
            else if (strcmp(st, "failed") == 0) failed++;
            else refused++;
        }
        fprintf(f, "ductile: reconfigurations: %d ok, %d failed, %d refused\n", ok, failed, refused);
        for (int i = 0; i < in->nreconfigs && i < 8; i++) {
            const struct report_reconfig *r = &in->reconfigs[i];
            if (strcmp(r->status, "ok") == 0)
                fprintf(f, "ductile:   #%d it %d %d->%d %s %s: total %.3f s (spawn %.3f, merge %.3f, plan %.4f, "
                           "transfer %.4f), %s moved%s%s%s\n",
                        r->id, r->iteration, r->from, r->to, r->method, r->redist, r->total_s, r->spawn_s,
                        r->merge_s, r->plan_s, r->transfer_s,
                        report_human_bytes((double)r->bytes_moved, (char[32]){0}, 32),
                        r->persistent[0] ? " [persistent: " : "", r->persistent,
                        r->persistent[0] ? (r->shared_memory ? ", shared memory]" : "]") : "");
            else
                fprintf(f, "ductile:   #%d it %d %d->%d %s: %s\n", r->id, r->iteration, r->from, r->to, r->status,
                        r->reason);
        }
        if (in->nreconfigs > 8) fprintf(f, "ductile:   ... (%d more in the report)\n", in->nreconfigs - 8);
    }
    if (owned) free(red);
    const struct report_iter *it = &in->iter;
    if (it->detected)
        fprintf(f, "ductile: main loop: %llu iterations of %u MPI calls, %.3f ms each (min %.3f, max %.3f); head %s\n",
                (unsigned long long)it->count, it->period_calls, 1e3 * it->mean_s, 1e3 * it->min_s, 1e3 * it->max_s,
                it->head ? it->head : "?");
    else
        fprintf(f, "ductile: main loop: %s\n", it->state && strcmp(it->state, "off") == 0
                                                   ? "detection off (DUCTILE_ITER_DETECT=0, or MPI_THREAD_MULTIPLE)"
                                                   : "not found");
}
