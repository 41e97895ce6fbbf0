/* policyd.c -- ductiled's global performance controller (docs/policies.md):
 * a performance model per job (model.c) fed by its monitoring samples, and
 * once a second the policy (policy.c) over a snapshot of the running jobs,
 * the free slots and the slots the first waiting job needs; its resizes go
 * to the jobs like ductilectl's (slots from the resource manager first) and
 * each is recorded with its reason as a "policy" event of the job. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

#define GP_TICK 1.0        /* seconds between two policy rounds */
#define GP_BUSY_MAX 60.0   /* a resize that never reported back stops blocking the job after this */
#define GP_MAX_DECISIONS 256

int gpolicy;
struct pol_params gprm = {.threshold = 0.6, .band = 0.1, .margin = 0.2, .cooldown = 5.0, .horizon = 60.0, .io_weight = 1.0};

struct gpjob {
    int id, min, max;
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

int gpolicy_option(const char *text, char *err, size_t errlen)
{
    if (policy_parse(text, &gpolicy, err, errlen) != 0) return -1;
    /* io: with the interference controller that acts only where it predicts a gain */
    if ((gpolicy & POL_IO) && io_policy == IOPOL_NONE) io_policy = IOPOL_AUTO;
    return 0;
}

int gpolicy_params_option(const char *text, char *err, size_t errlen)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '='), *end;
        double v = eq ? strtod(eq + 1, &end) : NAN;
        if (!eq || *end || !(v >= 0 && v <= 1e6)) {
            snprintf(err, errlen, "--policy-params: '%s' is not KEY=NUMBER (threshold, band, margin, cooldown, horizon, io-weight)", kv);
            return -1;
        }
        *eq = '\0';
        if (!strcmp(kv, "threshold") && v <= 1) gprm.threshold = v;
        else if (!strcmp(kv, "band") && v <= 1) gprm.band = v;
        else if (!strcmp(kv, "margin")) gprm.margin = v;
        else if (!strcmp(kv, "cooldown")) gprm.cooldown = v;
        else if (!strcmp(kv, "horizon") && v > 0) gprm.horizon = v;
        else if (!strcmp(kv, "io-weight")) gprm.io_weight = v;
        else {
            snprintf(err, errlen, "--policy-params: unknown key or bad value '%s' (threshold and band in [0,1])", kv);
            return -1;
        }
    }
    return 0;
}

static struct gpjob *gp_get(int id, int create)
{
    for (int i = 0; i < ngp; i++)
        if (gp[i]->id == id) return gp[i];
    if (!create) return NULL;
    struct gpjob *g = calloc(1, sizeof *g);
    struct gpjob **nv = realloc(gp, (size_t)(ngp + 1) * sizeof *nv);
    if (!g || !nv) {
        free(g);
        if (nv) gp = nv;
        return NULL;
    }
    gp = nv;
    g->id = id;
    model_init(&g->m);
    gp[ngp++] = g;
    return g;
}

void gpolicy_forget(int jid)
{
    for (int i = 0; i < ngp; i++)
        if (gp[i]->id == jid) {
            free(gp[i]);
            gp[i] = gp[--ngp];
            return;
        }
}

int gpolicy_may_resize(const struct job *j, int procs, char *why, size_t wl)
{
    struct gpjob *g = gp_get(j->id, 0);
    if (!j->malleable || (g && !g->control_point)) {
        snprintf(why, wl, "job %d is not malleable (no control points)", j->id);
        return 0;
    }
    if (g && g->max > 0 && procs > g->max) {
        snprintf(why, wl, "job %d: %d processes is above its --max %d", j->id, procs, g->max);
        return 0;
    }
    if (g && procs < (g->min > 0 ? g->min : 1)) {
        snprintf(why, wl, "job %d: %d processes is below its --min %d", j->id, procs, g->min);
        return 0;
    }
    char w[400];
    if (g && g->has_sizes && !sizes_allows(&g->sizes, procs, w, sizeof w)) {
        snprintf(why, wl, "job %d cannot run on %d processes: %s", j->id, procs, w);
        return 0;
    }
    return 1;
}

void gpolicy_registered(struct job *j, const json_t *req)
{
    struct gpjob *g = gp_get(j->id, 1);
    if (!g) return;
    int qmin = 0, qmax = 0;
    intake_bounds(j, &qmin, &qmax);
    g->min = (int)proto_get_int(req, "min_procs", qmin);
    g->max = (int)proto_get_int(req, "max_procs", qmax);
    const char *spec = proto_get_str(req, "sizes", "");
    char why[400];
    memset(&g->sizes, 0, sizeof g->sizes);
    g->has_sizes = 0;
    if (spec[0] && sizes_parse(spec, &g->sizes, why, sizeof why) != 0)
        logmsg("policy: job %d: its size constraints '%s' are not valid (%s): ignored", j->id, spec, why);
    else if (spec[0]) {
        g->has_sizes = 1;
        /* the tighter bounds hold */
        if (g->sizes.min > g->min) g->min = g->sizes.min;
        if (g->sizes.max > 0 && (g->max == 0 || g->sizes.max < g->max)) g->max = g->sizes.max;
    }
    if (g->max > 0 && g->min > g->max) g->min = g->max;
    g->last_resize = j->registered;
}

void gpolicy_sample(struct job *j, const json_t *req)
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

void gpolicy_resized(struct job *j, const json_t *d)
{
    struct gpjob *g = gp_get(j->id, 0);
    if (!g) return;
    g->busy = 0;
    g->last_resize = wall();
    if (!strcmp(proto_get_str(d, "status", "ok"), "ok") && proto_get_num(d, "duration_s", 0) > 0)
        g->measured_cost = proto_get_num(d, "duration_s", 0);
}

void gpolicy_done(struct job *j, int ok, const char *reason)
{
    struct gpjob *g = gp_get(j->id, 0);
    if (!g || ok) return;
    g->busy = 0;
    g->last_resize = wall();
    logmsg("policy: job %d refused the resize: %s", j->id, reason ? reason : "?");
}

/* Send a resize the policy decided: like ductilectl's, nobody waits for the
 * reply (cli -2: finish_forward tells gpolicy_done). */
static int send_resize(struct job *j, int delta, char *why, size_t wl)
{
    return forward_own_resize(j, delta, -1, -2, why, wl);
}

static double resize_cost(struct job *j, const struct gpjob *g)
{
    json_t *c = jobs_cost(&jobs, j, j->procs + 1);
    double est = proto_get_num(c, "estimate_s", 0.5);
    json_decref(c);
    return g->measured_cost > est ? g->measured_cost : est;
}

void gpolicy_tick(double now)
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
        p->min = g->min > 0 ? g->min : 1;
        p->max = g->max > 0 ? g->max : rm_total(&rm);
        if (p->min > p->max) p->min = p->max;
        p->malleable = j->malleable && g->control_point;
        p->busy = g->busy || j->pending > 0;
        p->last_resize = g->last_resize;
        p->cost_s = resize_cost(j, g);
        p->m = &g->m;
        p->sizes = g->has_sizes ? &g->sizes : NULL;
    }
    struct pol_snapshot s = {.jobs = pj, .n = n, .free = rm_free_slots(&rm), .reserve = intake_reserve(), .now = now};
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
