/* metrics.c -- ductiled's part for Prometheus (ductiled --metrics
 * [HOST:]PORT; docs/controller.md, "Metrics").  It keeps counters and
 * histograms from what the core publishes -- the jobs' events (resized,
 * io_request), their registrations -- and from the facts other parts and the
 * core note (core_note: policy decisions, folds, Slurm's commands, I/O
 * grants, connections), and draws the gauges (jobs by state, processes and
 * slots per job, slots per host, connections) from the core's state.  The
 * loop renders the text exposition format at most every METRICS_PERIOD
 * seconds and publishes it; the HTTP thread (metrics_http.c) only serves
 * the published text.  Everything is bounded: label values come from small
 * closed sets (at most LC_MAX per family, the rest counted as "other"),
 * per-job series exist while the job runs and for METRICS_KEEP seconds
 * after it ended. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "metrics_http.h"

#define METRICS_PERIOD 0.5
#define METRICS_KEEP 300.0
#define LC_MAX 32

static char mhost[256];
static int mport;

/* ---- labelled counters: a family of at most LC_MAX label pairs */
struct lc {
    char a[48], b[16];
    double v;
};
struct lfam {
    struct lc e[LC_MAX];
    int n;
};

static void lc_add(struct lfam *f, const char *a, const char *b, double v)
{
    a = a ? a : "", b = b ? b : "";
    int k = 0;
    while (k < f->n && (strcmp(f->e[k].a, a) || strcmp(f->e[k].b, b))) k++;
    if (k == f->n && f->n == LC_MAX) { /* a full family counts the rest together in its last entry */
        k = LC_MAX - 1;
        snprintf(f->e[k].a, sizeof f->e[k].a, "other");
        f->e[k].b[0] = '\0';
    } else if (k == f->n) {
        snprintf(f->e[k].a, sizeof f->e[k].a, "%s", a);
        snprintf(f->e[k].b, sizeof f->e[k].b, "%s", b);
        f->n++;
    }
    f->e[k].v += v;
}

/* ---- histograms */
static const double buckets[] = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};
#define NB (sizeof buckets / sizeof buckets[0])
struct hist {
    unsigned long long b[NB], count;
    double sum;
};

static void bucket_add(struct hist *h, double v)
{
    if (!(v >= 0) || !isfinite(v)) return;
    for (size_t k = 0; k < NB; k++) h->b[k] += v <= buckets[k];
    h->count++;
    h->sum += v;
}

/* ---- what is counted */
static const char *const kinds[] = {"expand", "shrink"};
static const char *const outcomes[] = {"ok", "failed", "refused"};
static double resizes[2][3], bytes_moved[2];
static struct hist resize_s[2], io_wait;
static double registrations, io_requests, io_grants;
static struct lfam decisions, folds, slurm_calls, slurm_fails, conns, refusals;

/* I/O token requests waiting for their grant (per job; a grant may come
 * before the part hears the request: then `early`) */
struct iowait {
    int job, early;
    double since;
};
static struct iowait *iow;
static int niow, capiow;

static struct iowait *iow_get(int jid, int make)
{
    for (int k = 0; k < niow; k++)
        if (iow[k].job == jid) return &iow[k];
    if (!make) return NULL;
    if (niow == capiow) {
        int nc = capiow ? 2 * capiow : 16;
        struct iowait *v = realloc(iow, (size_t)nc * sizeof *v);
        if (!v) return NULL;
        iow = v, capiow = nc;
    }
    iow[niow] = (struct iowait){.job = jid};
    return &iow[niow++];
}

static void iow_drop(int jid)
{
    struct iowait *w = iow_get(jid, 0);
    if (w) *w = iow[--niow];
}

static int index_of(const char *const *names, int n, const char *s)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(names[k], s)) return k;
    return -1;
}

static void metrics_event(struct job *j, const char *kind, const json_t *d, double now)
{
    if (!strcmp(kind, "resized")) {
        int k = index_of(kinds, 2, proto_get_str(d, "op", "")), o = index_of(outcomes, 3, proto_get_str(d, "status", ""));
        if (k < 0) k = proto_get_int(d, "to", 0) >= proto_get_int(d, "from", 0) ? 0 : 1;
        if (o < 0) o = 1;
        resizes[k][o] += 1;
        if (o == 0) bucket_add(&resize_s[k], proto_get_num(d, "duration_s", -1));
        double b = proto_get_num(d, "bytes_moved", 0);
        if (b > 0 && isfinite(b)) bytes_moved[k] += b;
    } else if (!strcmp(kind, "io_request")) {
        io_requests += 1;
        struct iowait *w = iow_get(j->id, 1);
        if (!w) return;
        if (w->early) iow_drop(j->id), bucket_add(&io_wait, 0); /* granted at once, before this part heard it */
        else if (!w->since) w->since = now;
    }
}

static void metrics_note(const struct job *j, const char *what, const char *l1, const char *l2, double v)
{
    if (!strcmp(what, "policy_decision")) lc_add(&decisions, l1, l2, 1);
    else if (!strcmp(what, "fold")) lc_add(&folds, l1, l2, 1);
    else if (!strcmp(what, "connection")) lc_add(&conns, l1, l2, 1);
    else if (!strcmp(what, "command_refused")) lc_add(&refusals, l1, l2, 1);
    else if (!strcmp(what, "slurm_call")) {
        lc_add(&slurm_calls, l1, NULL, 1);
        if (v != 0) lc_add(&slurm_fails, l1, NULL, 1);
    } else if (!strcmp(what, "io_grant") && j) {
        io_grants += 1;
        struct iowait *w = iow_get(j->id, 1);
        if (w && w->since > 0) bucket_add(&io_wait, wall() - w->since), iow_drop(j->id);
        else if (w) w->early = 1;
    }
}

static void metrics_registered(struct job *j, const json_t *req)
{
    (void)j, (void)req;
    registrations += 1;
}

static void metrics_left(struct job *j) { iow_drop(j->id); }

/* ---- the text exposition format */
static void head(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* a label value: backslash, double quote and newline escaped; control characters dropped */
static void lval(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"') fputc('\\', f), fputc(*s, f);
        else if (*s == '\n') fputs("\\n", f);
        else if ((unsigned char)*s >= 0x20 && *s != 0x7f) fputc(*s, f);
    }
}

static void lfam_print(FILE *f, const char *name, const struct lfam *fam, const char *la, const char *lb)
{
    for (int k = 0; k < fam->n; k++) {
        fprintf(f, "%s{%s=\"", name, la);
        lval(f, fam->e[k].a);
        if (lb) fprintf(f, "\",%s=\"", lb), lval(f, fam->e[k].b);
        fprintf(f, "\"} %.17g\n", fam->e[k].v);
    }
}

static void hist_print(FILE *f, const char *name, const char *labels, const struct hist *h)
{
    const char *sep = labels[0] ? "," : "";
    for (size_t k = 0; k < NB; k++) fprintf(f, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, sep, buckets[k], h->b[k]);
    fprintf(f, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep, h->count);
    fprintf(f, "%s_sum%s%s%s %.17g\n%s_count%s%s%s %llu\n", name, labels[0] ? "{" : "", labels, labels[0] ? "}" : "",
            h->sum, name, labels[0] ? "{" : "", labels, labels[0] ? "}" : "", h->count);
}

static int shown(const struct job *j, double now)
{
    return j->state == JOB_RUNNING || j->state == JOB_DISCONNECTED || now - j->last_seen < METRICS_KEEP;
}

static void jobs_text(FILE *f, double now)
{
    head(f, "ductile_jobs", "gauge", "Jobs ductiled knows, by state.");
    for (int s = JOB_RUNNING; s <= JOB_LOST; s++) {
        int n = 0;
        for (int k = 0; k < jobs.n; k++) n += (int)jobs.v[k]->state == s;
        fprintf(f, "ductile_jobs{state=\"%s\"} %d\n", job_state_name((enum job_state)s), n);
    }
    head(f, "ductile_job_info", "gauge",
         "1 for every job running, disconnected, or ended less than 5 minutes ago (its tag, program and state).");
    for (int k = 0; k < jobs.n; k++) {
        const struct job *j = jobs.v[k];
        if (!shown(j, now)) continue;
        const char *prog = strrchr(j->binary, '/');
        fprintf(f, "ductile_job_info{job_id=\"%d\",tag=\"", j->id);
        lval(f, j->tag);
        fprintf(f, "\",program=\"");
        lval(f, prog ? prog + 1 : j->binary);
        fprintf(f, "\",state=\"%s\",malleable=\"%d\"} 1\n", job_state_name(j->state), j->malleable && j->cp_seen);
    }
    static const char *const per[][3] = {
        {"ductile_job_processes", "gauge", "Processes in the job's world (running or disconnected jobs)."},
        {"ductile_job_cores", "gauge", "Cores (slots) the job holds: running processes (folded: the cores it is folded to), parked ones and reservations."},
        {"ductile_job_fold_cores", "gauge", "Cores per host the job is folded to (0: not folded)."},
        {"ductile_job_iteration", "gauge", "The job's iteration in its last sample."},
        {"ductile_job_time_sample", "gauge",
         "1 call in N timed by the job (DUCTILE_TIME_SAMPLE): above 1 its compute and communication times are estimates."}};
    for (int m = 0; m < 5; m++) {
        head(f, per[m][0], per[m][1], per[m][2]);
        for (int k = 0; k < jobs.n; k++) {
            const struct job *j = jobs.v[k];
            if (j->state != JOB_RUNNING && j->state != JOB_DISCONNECTED) continue;
            long long v = m == 0 ? j->procs : m == 1 ? rm_alloc_total(&rm, j->alloc) : m == 2 ? j->fold_cores
                        : m == 3 ? j->iteration : j->time_sample > 1 ? j->time_sample : 1;
            fprintf(f, "%s{job_id=\"%d\"} %lld\n", per[m][0], j->id, v);
        }
    }
    head(f, "ductile_job_registrations_total", "counter", "Registrations of jobs (new jobs and jobs coming back).");
    fprintf(f, "ductile_job_registrations_total %.17g\n", registrations);
}

static void hosts_text(FILE *f)
{
    head(f, "ductile_host_slots", "gauge", "Process slots of each host ductiled manages, used and free.");
    for (int i = 0; i < rm.nhosts; i++) {
        int used = rm.hosts[i].used, fr = rm.hosts[i].slots - used;
        fprintf(f, "ductile_host_slots{host=\"");
        lval(f, rm.hosts[i].name);
        fprintf(f, "\",state=\"used\"} %d\nductile_host_slots{host=\"", used);
        lval(f, rm.hosts[i].name);
        fprintf(f, "\",state=\"free\"} %d\n", fr > 0 ? fr : 0);
    }
}

static void counters_text(FILE *f)
{
    head(f, "ductile_resizes_total", "counter", "Resizes the jobs reported, by kind and outcome.");
    for (int k = 0; k < 2; k++)
        for (int o = 0; o < 3; o++)
            fprintf(f, "ductile_resizes_total{kind=\"%s\",outcome=\"%s\"} %.17g\n", kinds[k], outcomes[o], resizes[k][o]);
    head(f, "ductile_resize_duration_seconds", "histogram", "Duration of the resizes that committed, by kind.");
    for (int k = 0; k < 2; k++) {
        char l[32];
        snprintf(l, sizeof l, "kind=\"%s\"", kinds[k]);
        hist_print(f, "ductile_resize_duration_seconds", l, &resize_s[k]);
    }
    head(f, "ductile_resize_bytes_moved_total", "counter", "Bytes of registered data the resizes moved, by kind.");
    for (int k = 0; k < 2; k++)
        fprintf(f, "ductile_resize_bytes_moved_total{kind=\"%s\"} %.17g\n", kinds[k], bytes_moved[k]);
    head(f, "ductile_io_token_requests_total", "counter", "Requests for the exclusive-I/O token.");
    fprintf(f, "ductile_io_token_requests_total %.17g\n", io_requests);
    head(f, "ductile_io_token_grants_total", "counter", "Grants of the exclusive-I/O token.");
    fprintf(f, "ductile_io_token_grants_total %.17g\n", io_grants);
    head(f, "ductile_io_token_wait_seconds", "histogram", "Time from a job's request for the I/O token to its grant.");
    hist_print(f, "ductile_io_token_wait_seconds", "", &io_wait);
    head(f, "ductile_policy_decisions_total", "counter",
         "Decisions of the global policy (sent or refused) and of the I/O interference controller (planned or cancelled).");
    lfam_print(f, "ductile_policy_decisions_total", &decisions, "policy", "outcome");
    head(f, "ductile_commands_refused_total", "counter",
         "Resize commands (expand, shrink, resize) ductiled refused before they reached the job, by command and cause.");
    lfam_print(f, "ductile_commands_refused_total", &refusals, "command", "code");
    head(f, "ductile_folds_total", "counter", "Folds and unfolds sent to jobs, by whom (client or ductiled: --fold-to-admit).");
    lfam_print(f, "ductile_folds_total", &folds, "action", "by");
    head(f, "ductile_slurm_calls_total", "counter", "Slurm commands ductiled ran, by command.");
    lfam_print(f, "ductile_slurm_calls_total", &slurm_calls, "command", NULL);
    head(f, "ductile_slurm_call_failures_total", "counter", "Slurm commands that failed (non-zero exit, timeout), by command.");
    lfam_print(f, "ductile_slurm_call_failures_total", &slurm_fails, "command", NULL);
    head(f, "ductile_connections_total", "counter", "Connections to ductiled's sockets, by transport and outcome.");
    lfam_print(f, "ductile_connections_total", &conns, "transport", "outcome");
    int nu, nt;
    core_conn_counts(&nu, &nt);
    head(f, "ductile_connections", "gauge", "Connections open now (jobs and clients), by transport.");
    fprintf(f, "ductile_connections{transport=\"unix\"} %d\nductile_connections{transport=\"tcp\"} %d\n", nu, nt);
}

static char *render(double now)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    head(f, "ductile_build_info", "gauge", "Ductile's version.");
    fprintf(f, "ductile_build_info{version=\"%s\"} 1\n", PACKAGE_VERSION);
    head(f, "ductile_draining", "gauge", "1 while ductiled takes no new jobs (ductilectl drain).");
    fprintf(f, "ductile_draining %d\n", draining != 0);
    jobs_text(f, now);
    hosts_text(f);
    counters_text(f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- the part */
static double last_render;

static void metrics_tick(double now)
{
    if (!mport || (now - last_render < METRICS_PERIOD && now >= last_render)) return;
    last_render = now;
    char *t = render(now);
    if (t) mhttp_publish(t);
}

static int metrics_option(const char *arg, char *err, size_t errlen)
{
    return mhttp_parse(arg, mhost, sizeof mhost, &mport, err, errlen);
}

static int metrics_start(char *err, size_t errlen)
{
    if (!mport) return 0;
    mhttp_publish(render(wall()));
    if (mhttp_start(mhost, mport, err, errlen) != 0) return -1;
    atexit(mhttp_stop);
    logmsg("metrics for Prometheus on http://%s%s%s:%d/metrics", strchr(mhost, ':') ? "[" : "", mhost,
           strchr(mhost, ':') ? "]" : "", mport);
    return 0;
}

static const struct dpart_option metrics_options[] = {
    {"metrics", "ADDR",
     "serve Prometheus metrics at http://ADDR/metrics; ADDR is PORT (on\n127.0.0.1, loopback), HOST:PORT or [IPV6]:PORT; "
     "docs/controller.md, \"Metrics\"",
     metrics_option},
    {NULL, NULL, NULL, NULL},
};
static const struct dpart metrics_part = {.name = "metrics",
                                          .options = metrics_options,
                                          .start = metrics_start,
                                          .registered = metrics_registered,
                                          .event = metrics_event,
                                          .left = metrics_left,
                                          .tick = metrics_tick,
                                          .note = metrics_note};
DUCTILED_PART(metrics_part);
