/* policyd.c -- ductiled's global performance controller (docs/policies.md):
 * a performance model per job (model.c) fed by its monitoring samples, and
 * once a second the policy (policy.c) over a snapshot of the running jobs,
 * the free slots and the slots the first waiting job needs; its resizes go
 * to the jobs like ductilectl's (slots from the resource manager first) and
 * each is recorded with its reason as a "policy" event of the job.  It also
 * answers whether a job may be resized to a size (malleable, within its
 * --min/--max, a count its size constraints allow), for every part that
 * resizes jobs.  A part of ductiled
 * (core.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/sizes.h"
#include "core.h"
#include "model.h"
#include "policy.h"

#define GP_TICK 1.0        /* seconds between two policy rounds */
#define GP_BUSY_MAX 60.0   /* a resize that never reported back stops blocking the job after this */
#define GP_MAX_DECISIONS 256

static int gpolicy; /* POL_* flags; 0: no global policy */
#define GP_DEFAULTS {.threshold = 0.6, .band = 0.1, .margin = 0.2, .cooldown = 5.0, .horizon = 60.0, .io_weight = 1.0}
static struct pol_params gprm = GP_DEFAULTS;

struct gpjob {
    int id;
    struct ductile_sizes sizes; /* the job's size constraints (src/common/sizes.h): registration, samples */
    int has_sizes;
    char sizes_text[404];       /* as the latest sample said them */
    int control_point;      /* the job reaches control points (EMPI_Monitor_end): it can be resized */
    int busy;
    double busy_since, last_resize, measured_cost;
    struct model m;
};
static struct gpjob **gp;
static int ngp;

static int gpolicy_option(const char *text, char *err, size_t errlen)
{
    if (!text) gpolicy = 0; /* the default (a reload) */
    else if (policy_parse(text, &gpolicy, err, errlen) != 0) return -1;
    /* io: with the interference controller that acts only where it predicts a gain (iopolicy.c) */
    core_io_wanted = (gpolicy & POL_IO) != 0;
    return 0;
}

/* The parameters: the keys named, the others at their defaults (a reload
 * gives the whole set); nothing changes when one is wrong. */
static int gpolicy_params_option(const char *text, char *err, size_t errlen)
{
    struct pol_params p = GP_DEFAULTS;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text ? text : "");
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '='), *end;
        double v = eq ? strtod(eq + 1, &end) : NAN;
        if (!eq || *end || end == eq + 1 || !(v >= 0 && v <= 1e6)) {
            snprintf(err, errlen, "--policy-params: '%s' is not KEY=NUMBER (threshold, band, margin, cooldown, horizon, io-weight)", kv);
            return -1;
        }
        *eq = '\0';
        if (!strcmp(kv, "threshold") && v <= 1) p.threshold = v;
        else if (!strcmp(kv, "band") && v <= 1) p.band = v;
        else if (!strcmp(kv, "margin")) p.margin = v;
        else if (!strcmp(kv, "cooldown")) p.cooldown = v;
        else if (!strcmp(kv, "horizon") && v > 0) p.horizon = v;
        else if (!strcmp(kv, "io-weight")) p.io_weight = v;
        else {
            snprintf(err, errlen, "--policy-params: unknown key or bad value '%s' (threshold and band in [0,1])", kv);
            return -1;
        }
    }
    gprm = p;
    return 0;
}

/* the jobs' records in the order of their ids: a binary search for every sample of 2,000 jobs
 * (issue 25, item 4); *at: where id is or would go */
static struct gpjob *gp_find(int id, int *at)
{
    int lo = 0, hi = ngp;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (gp[mid]->id < id) lo = mid + 1;
        else hi = mid;
    }
    *at = lo;
    return lo < ngp && gp[lo]->id == id ? gp[lo] : NULL;
}

static struct gpjob *gp_get(int id, int create)
{
    static int cap;
    int at;
    struct gpjob *f = gp_find(id, &at);
    if (f || !create) return f;
    if (ngp == cap) {
        int nc = cap ? 2 * cap : 64;
        struct gpjob **nv = realloc(gp, (size_t)nc * sizeof *nv);
        if (!nv) return NULL;
        gp = nv;
        cap = nc;
    }
    struct gpjob *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->id = id;
    model_init(&g->m);
    memmove(gp + at + 1, gp + at, (size_t)(ngp - at) * sizeof *gp);
    gp[at] = g;
    ngp++;
    return g;
}

static void gpolicy_forget(int jid)
{
    int at;
    struct gpjob *g = gp_find(jid, &at);
    if (!g) return;
    free(g);
    memmove(gp + at, gp + at + 1, (size_t)(ngp - at - 1) * sizeof *gp);
    ngp--;
}

/* the job's --min/--max (its registration, or the queue that started it), and its size
 * constraints' min and max (g may be NULL): the tighter bounds hold */
static void bounds(const struct job *j, const struct gpjob *g, int *min, int *max)
{
    *max = j->max_procs > 0 ? j->max_procs : 0;
    *min = j->min_procs > 0 ? j->min_procs : 1;
    if (g && g->has_sizes) {
        if (g->sizes.min > *min) *min = g->sizes.min;
        if (g->sizes.max > 0 && (*max == 0 || g->sizes.max < *max)) *max = g->sizes.max;
    }
    if (*max > 0 && *min > *max) *min = *max;
}

static int gpolicy_may_resize(const struct job *j, int procs, char *why, size_t wl)
{
    struct gpjob *g = gp_get(j->id, 0);
    int min, max;
    bounds(j, g, &min, &max);
    if (!j->malleable || (g && !g->control_point)) {
        snprintf(why, wl, "job %d is not malleable (no control points)", j->id);
        return 0;
    }
    if (max > 0 && procs > max) {
        snprintf(why, wl, "job %d: %d processes is above its --max %d", j->id, procs, max);
        return 0;
    }
    if (procs < min) {
        snprintf(why, wl, "job %d: %d processes is below its --min %d", j->id, procs, min);
        return 0;
    }
    char w[400];
    if (g && g->has_sizes && !sizes_allows(&g->sizes, procs, w, sizeof w)) {
        snprintf(why, wl, "job %d cannot run on %d process%s: %s", j->id, procs, procs == 1 ? "" : "es", w);
        return 0;
    }
    return 1;
}

static void gpolicy_registered(struct job *j, const json_t *req)
{
    struct gpjob *g = gp_get(j->id, 1);
    if (!g) return;
    g->last_resize = j->registered;
    /* the job's size constraints (DUCTILE_SIZES, ductile-run --sizes); checked at the edge (F_SIZES) */
    const char *spec = proto_get_str(req, "sizes", "");
    char why[400];
    memset(&g->sizes, 0, sizeof g->sizes);
    g->has_sizes = 0;
    g->sizes_text[0] = '\0';
    if (spec[0] && sizes_parse(spec, &g->sizes, why, sizeof why) != 0)
        logmsg("policy: job %d: its size constraints '%s' are not valid (%s): ignored", j->id, spec, why);
    else if (spec[0]) {
        g->has_sizes = 1;
        snprintf(g->sizes_text, sizeof g->sizes_text, "%s", spec);
    }
}

static void gpolicy_sample(struct job *j, const json_t *req)
{
    struct gpjob *g = gp_get(j->id, 1);
    if (!g) return;
    g->control_point |= json_is_true(json_object_get(req, "control_point"));
    model_add(&g->m, (int)proto_get_int(req, "procs", j->procs), (double)proto_get_int(req, "iters", 0),
              proto_get_num(req, "interval_s", 0), proto_get_num(req, "compute_s", 0), proto_get_num(req, "comm_s", 0),
              proto_get_num(req, "io_s", 0));
    model_progress(&g->m, proto_get_int(req, "iteration", -1), proto_get_int(req, "maxiter", 0));
    /* the constraints in force in the job (the program may set them after its registration);
     * checked at the edge (F_SIZES) */
    const char *spec = proto_get_str(req, "sizes", NULL);
    if (spec && strcmp(spec, g->sizes_text) != 0) {
        struct ductile_sizes sz;
        char why[400];
        memset(&sz, 0, sizeof sz);
        if (sizes_parse(spec, &sz, why, sizeof why) == 0) {
            g->sizes = sz;
            g->has_sizes = spec[0] != '\0';
            snprintf(g->sizes_text, sizeof g->sizes_text, "%s", spec);
            logmsg("policy: job %d can use %s", j->id, spec[0] ? spec : "any count");
        }
    }
}

static void gpolicy_event(struct job *j, const char *kind, const json_t *d, double now)
{
    (void)now;
    if (strcmp(kind, "resized") != 0) return;
    struct gpjob *g = gp_get(j->id, 0);
    if (!g) return;
    g->busy = 0;
    g->last_resize = wall();
    if (!strcmp(proto_get_str(d, "status", "ok"), "ok") && proto_get_num(d, "duration_s", 0) > 0)
        g->measured_cost = proto_get_num(d, "duration_s", 0);
}

/* a resize the policy sent was answered */
static void gpolicy_done(struct job *j, int ok, const char *reason)
{
    struct gpjob *g = gp_get(j->id, 0);
    if (!g || ok) return;
    g->busy = 0;
    g->last_resize = wall();
    logmsg("policy: job %d refused the resize: %s", j->id, reason ? reason : "?");
}

static const struct dpart gpolicy_part;

/* Send a resize the policy decided: like ductilectl's, nobody waits for the
 * reply (gpolicy_done hears it). */
static int send_resize(struct job *j, int delta, char *why, size_t wl)
{
    return core_resize(&gpolicy_part, j, delta, -1, why, wl);
}

static double resize_cost(struct job *j, const struct gpjob *g)
{
    json_t *c = jobs_cost(&jobs, j, j->procs + 1);
    double est = proto_get_num(c, "estimate_s", 0.5);
    json_decref(c);
    return g->measured_cost > est ? g->measured_cost : est;
}

static void gpolicy_tick(double now)
{
    static double last;
    if (!gpolicy || now - last < GP_TICK) return;
    last = now;
    struct pol_job *pj = calloc((size_t)(jobs.n ? jobs.n : 1), sizeof *pj);
    struct pol_decision *d = calloc(GP_MAX_DECISIONS, sizeof *d);
    if (!pj || !d) goto out;
    int n = 0;
    for (int i = 0; i < jobs.n; i++) {
        struct job *j = jobs.v[i];
        if (j->state != JOB_RUNNING || j->conn < 0) continue;
        struct gpjob *g = gp_get(j->id, 1);
        if (!g) continue;
        if (g->busy && now - g->busy_since > GP_BUSY_MAX) g->busy = 0;
        struct pol_job *p = &pj[n++];
        p->id = j->id;
        p->procs = j->procs;
        bounds(j, g, &p->min, &p->max);
        if (p->max <= 0) p->max = rm_total(&rm);
        if (p->min > p->max) p->min = p->max;
        p->malleable = j->malleable && g->control_point;
        p->busy = g->busy || j->pending > 0;
        p->last_resize = g->last_resize;
        p->cost_s = resize_cost(j, g);
        p->m = &g->m;
        p->sizes = g->has_sizes ? &g->sizes : NULL;
    }
    struct pol_snapshot s = {.jobs = pj, .n = n, .free = rm_free_slots(&rm), .reserve = core_waiting(), .now = now};
    int nd = n ? policy_decide(gpolicy, &gprm, &s, d, GP_MAX_DECISIONS) : 0;
    for (int k = 0; k < nd; k++) {
        struct job *j = jobs_get(&jobs, d[k].job);
        struct gpjob *g = j ? gp_get(j->id, 0) : NULL;
        if (!j || !g) continue;
        char why[256] = "";
        int rc = send_resize(j, d[k].to - d[k].from, why, sizeof why);
        json_t *e = json_pack("{s:s, s:s, s:i, s:i, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:s}", "policy", policy_name(gpolicy),
                              "status", rc == 0 ? "sent" : "refused", "from", d[k].from, "to", d[k].to, "reason",
                              d[k].reason, "t_from_s", d[k].t_from, "t_to_s", d[k].t_to, "efficiency_to", d[k].eff_to,
                              "gain_s", isfinite(d[k].gain_s) ? d[k].gain_s : -1.0, "cost_s", d[k].cost_s,
                              "remaining_iters", d[k].remaining, "confidence", model_confidence(&g->m), "model",
                              model_kind_name(g->m.kind));
        if (rc != 0) json_object_set_new(e, "refused", json_string(why));
        jobs_event(j, "policy", e, now);
        core_note(j, "policy_decision", policy_name(gpolicy), rc == 0 ? "sent" : "refused", d[k].to - d[k].from);
        logmsg("policy %s: job %d %d -> %d %s: %s%s%s", policy_name(gpolicy), j->id, d[k].from, d[k].to,
               rc == 0 ? "sent" : "refused", d[k].reason, rc ? ": " : "", rc ? why : "");
        if (rc == 0) {
            g->busy = 1;
            g->busy_since = now;
            g->last_resize = now;
        }
    }
out:
    free(pj);
    free(d);
}

static void gpolicy_left(struct job *j)
{
    if (j->state != JOB_RUNNING && j->state != JOB_DISCONNECTED) gpolicy_forget(j->id);
}

static void gpolicy_publish(void)
{
    core_elastic = gpolicy != 0;
    snprintf(core_policy, sizeof core_policy, "%s", gpolicy ? policy_name(gpolicy) : "");
}

static int gpolicy_start(char *err, size_t errlen)
{
    (void)err, (void)errlen;
    gpolicy_publish();
    if (gpolicy) logmsg("global policy %s", policy_name(gpolicy));
    return 0;
}

/* a reload: the policy in force from the next round (its models of the jobs were kept meanwhile) */
static void gpolicy_reconfigured(void) { gpolicy_publish(); }

static const struct dpart_option gpolicy_options[] = {
    {"policy", "P",
     "global policy resizing the jobs: fair, efficiency, throughput, io, or\none of the first three with io (efficiency,io); "
     "docs/policies.md",
     gpolicy_option},
    {"policy-params", "KV", "threshold=0.6,band=0.1,margin=0.2,cooldown=5,horizon=60,io-weight=1\n(the keys not given keep these defaults)", gpolicy_params_option},
    {NULL, NULL, NULL, NULL},
};
static const char *const gpolicy_live[] = {"policy", "policy-params", NULL};
static const struct dpart gpolicy_part = {.name = "policy",
                                          .options = gpolicy_options,
                                          .live = gpolicy_live,
                                          .reconfigured = gpolicy_reconfigured,
                                          .start = gpolicy_start,
                                          .registered = gpolicy_registered,
                                          .sample = gpolicy_sample,
                                          .event = gpolicy_event,
                                          .left = gpolicy_left,
                                          .resize_done = gpolicy_done,
                                          .tick = gpolicy_tick,
                                          .may_resize = gpolicy_may_resize};
DUCTILED_PART(gpolicy_part);
