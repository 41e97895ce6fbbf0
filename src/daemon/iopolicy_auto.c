/* iopolicy_auto.c -- ductiled's `--io-policy auto` (also `--policy io`):
 * I/O coordination only where it is predicted to pay (docs/policies.md).
 * After each I/O phase a job reports, every followed job's profile is
 * measured from its phases (period by Eq. 1, phase length alone on the
 * device, bandwidth share, next phase), the best Phase Shift and Period
 * Coupling plans of all pairs are computed (iopredict.c), and the cost
 * predictor (iopolicy_cost.c) gives the total I/O time of all jobs under no
 * coordination, exclusive I/O and each plan.  The cheapest by the margin is
 * applied: the token serialises phases or grants every request at once, and
 * a plan is sent like the fixed policies' plans.  Each change of mode and
 * each plan is an `io_decision` event with the predicted times and why. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "iopolicy_cost.h"
#include "iopolicy_int.h"

/* Until two jobs have a profile the prior holds: first come, first served.  A job gives the
 * token back when it closes the last file it had open on its world (a checkpoint's end), so
 * serialising two phases that overlap costs the second the rest of the first instead of
 * slowing both down: on a device whose bandwidth the phases share, never more I/O time in
 * total, as long as no phase is more than twice as long as the other (docs/policies.md,
 * "The prior").  A job that keeps the token after its phase, or phases of very different
 * lengths, void it: then no coordination until the prediction says otherwise. */
int io_serialise = 1;
static int io_mode = IOC_EXCLUSIVE;
static int io_prior = 1; /* the prior still holds (no prediction made yet) */

static void grant_all_waiting(void) /* no coordination: whoever waits for the token goes now */
{
    while (iotok.n > 0) {
        int q = iotok.queue[0];
        iotoken_release(&iotok, q, wall());
        io_grant(q);
    }
}

void io_auto_reset(void)
{
    io_prior = 1, io_serialise = 1, io_mode = IOC_EXCLUSIVE;
}

/* After a phase, or a release, while fewer than two jobs have a profile. */
static void prior_check(struct job *j)
{
    if (!j) return;
    int id[IOJ_MAX], n = 0;
    double len[IOJ_MAX], tail[IOJ_MAX];
    for (int i = 0; i < IOJ_MAX; i++) {
        if (!ioj[i].used || ioj[i].m.nph < 1) continue;
        id[n] = ioj[i].m.id, len[n] = ioj[i].m.dur[ioj[i].m.nph - 1], tail[n++] = ioj[i].kept > 0 ? ioj[i].kept : 0;
    }
    char why[256] = "";
    if (ioc_prior_holds(id, len, tail, n, why, sizeof why)) {
        if (io_prior == 1) { /* said once */
            io_prior = 2;
            jobs_event(j, "io_decision", json_pack("{s:s, s:b, s:s}", "mode", "exclusive", "prior", 1, "why",
                                                   "prior: first come, first served until two jobs have a profile"),
                       wall());
        }
        return;
    }
    io_prior = 0, io_serialise = 0, io_mode = IOC_NONE;
    grant_all_waiting();
    jobs_event(j, "io_decision", json_pack("{s:s, s:b, s:s}", "mode", "none", "prior", 1, "why", why), wall());
    logmsg("I/O decision (after a phase of job %d): prior voided, no coordination: %s", j->id, why);
}
static const struct ioc_params io_cost_prm = {.horizon = 20, .margin = 0.1, .min_gain = 0.1, .grant = 0.01};

#define PROFILE_PHASES 4 /* recent phases at the current size a profile averages */
#define IO_AUTO_PLANS 16 /* plans evaluated per decision (pairs whose phases interfere) */

/* Job x's measured profile; 0 while its prediction is not valid. */
static int profile(const struct ioj *x, const struct job *o, double now, struct ioc_job *c, double *share,
                   double *period)
{
    struct iop_pred p;
    iop_predict(&x->m, &p);
    if (!p.valid || !(p.period > 0)) return 0;
    int last = x->m.nph - 1, first = last;
    while (first > 0 && x->m.procs_at[first - 1] == x->m.procs_at[last] && last - first < PROFILE_PHASES - 1) first--;
    double alone = 0, io = 0, dur = 0, wait = 0;
    for (int k = first; k <= last; k++) {
        /* the device time of this phase, sharing with the others' phases (reported phases
         * start after the token wait: delay_s is the wait before) */
        double s = x->m.start[k], e = x->m.start[k] + x->m.dur[k]; /* a phase starts after its token wait */
        double os[IOC_MAX_JOBS * 4], oe[IOC_MAX_JOBS * 4];
        int no = 0;
        for (int i = 0; i < IOJ_MAX && no < IOC_MAX_JOBS * 4; i++) {
            if (!ioj[i].used || &ioj[i] == x) continue;
            for (int q = 0; q < ioj[i].m.nph && no < IOC_MAX_JOBS * 4; q++) {
                double a = ioj[i].m.start[q], b = ioj[i].m.start[q] + ioj[i].m.dur[q];
                if (b > s && a < e) os[no] = a, oe[no++] = b;
            }
        }
        alone += ioc_alone(s, e, os, oe, no);
        io += e > s ? e - s : 0;
        dur += x->m.dur[k];
        wait += x->delay[k];
    }
    int np = last - first + 1;
    c->length = alone / np > 0.001 ? alone / np : 0.001;
    /* phase starts are after the waits: between two starts are the phase, the compute and the
     * next phase's wait */
    double cmp = p.period - (dur + wait) / np;
    c->compute = cmp > 0 ? cmp : 0;
    c->tail = x->kept > 0 ? x->kept : 0;
    /* a phase alone is taken to use the whole device (the emulated device, a saturated disk);
     * the share it got is reported */
    c->share = 1;
    *share = io > 0 ? alone / io : 1;
    *period = p.period;
    /* relative to now, at most a period in the past: a phase running now is reported only a
     * phase gap after its end, so the predicted one may have begun already */
    double next = p.next_start - now;
    if (next < -100 * p.period) return 0; /* a stale profile: the job has not reported phases for long */
    while (next < -p.period) next += p.period;
    c->next = next;
    /* its end, from the control point's iteration and maxiter: phases after it are not counted
     * (a serialisation that pays over ten phases may not pay over the two left) */
    c->end = 0;
    double it = iop_iter_time(&x->m, x->m.procs);
    if (o->maxiter > 0 && o->iteration >= 0 && it > 0) {
        double end = (double)(o->maxiter - o->iteration) * it;
        if (end <= next) return 0; /* no phase left: nothing to coordinate with it */
        c->end = end;
    }
    return 1;
}

void io_auto_released(struct job *j)
{
    if (io_prior) prior_check(j); /* a job's phase is reported before its release: its tail is known only now */
}

static void decision_event(struct job *j, const struct ioc_choice *c, const struct ioc_params *prm, struct job **js,
                           const struct ioc_job *cj, const double *share, const double *period, int n, const char *plan)
{
    json_t *pred = json_object(), *ja = json_array();
    for (int m = 0; m < IOC_MODES; m++)
        if (c->valid[m]) json_object_set_new(pred, ioc_mode_name(m), json_real(c->t[m]));
    for (int i = 0; i < n; i++)
        json_array_append_new(ja, json_pack("{s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:f}", "job", js[i]->id, "procs",
                                            js[i]->procs, "period_s", period[i], "length_s", cj[i].length, "compute_s",
                                            cj[i].compute, "share", share[i], "token_tail_s", cj[i].tail, "next_s",
                                            cj[i].next));
    for (int i = 0; i < n; i++)
        if (cj[i].end > 0) json_object_set_new(json_array_get(ja, (size_t)i), "end_s", json_real(cj[i].end));
    jobs_event(j, "io_decision", json_pack("{s:s, s:o, s:f, s:f, s:o, s:s, s:s}", "mode", ioc_mode_name(c->mode),
                                           "predicted_s", pred, "horizon_s", prm->horizon, "margin", prm->margin,
                                           "jobs", ja, "plan", plan ? plan : "", "why", c->why),
               wall());
    logmsg("I/O decision (after a phase of job %d): %s%s%s", j->id, c->why, plan ? "; " : "", plan ? plan : "");
}

void io_auto_phase(struct job *j, double now)
{
    (void)now;
    double t = wall(), share[IOC_MAX_JOBS], period[IOC_MAX_JOBS];
    struct ioc_job cj[IOC_MAX_JOBS];
    struct ioj *xs[IOC_MAX_JOBS];
    struct job *js[IOC_MAX_JOBS];
    int n = 0;
    for (int i = 0; i < IOJ_MAX && n < IOC_MAX_JOBS; i++) {
        if (!ioj[i].used) continue;
        struct job *o = jobs_get(&jobs, ioj[i].m.id);
        if (!o || o->state != JOB_RUNNING || o->conn < 0) continue;
        if (ioj[i].busy) return; /* a plan in progress: its effect is not measured yet */
        if (!profile(&ioj[i], o, t, &cj[n], &share[n], &period[n])) continue;
        xs[n] = &ioj[i];
        js[n++] = o;
    }
    if (n < 2) { /* nothing to predict (yet): the mode stays, or the prior is voided */
        if (io_prior) prior_check(j);
        return;
    }
    int first = io_prior != 0; /* the first prediction, after the prior: said even if the mode stays */
    io_prior = 0;
    /* the simulation starts at the earliest next phase */
    double t0 = cj[0].next;
    for (int i = 1; i < n; i++)
        if (cj[i].next < t0) t0 = cj[i].next;
    for (int i = 0; i < n; i++) {
        cj[i].next -= t0;
        if (cj[i].end > 0) cj[i].end -= t0; /* > next >= 0 */
    }
    struct ioc_params prm = io_cost_prm;
    for (int i = 0; i < n; i++)
        if (3 * period[i] > prm.horizon) prm.horizon = 3 * period[i];
    /* the best plan of each kind over all pairs (a job that may not be resized has none) */
    struct ioc_alt alt[2] = {{.job = -1}, {.job = -1}};
    struct iop_plan best[2];
    double bt[2] = {INFINITY, INFINITY};
    struct iop_params ip = io_prm;
    ip.max_procs = rm_total(&rm);
    int evaluated = 0; /* each plan costs three simulations: a bounded number per decision */
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            for (int kind = 0; kind < 2 && evaluated < IO_AUTO_PLANS; kind++) {
                struct iop_plan pl;
                long long ca = io_cur_iter(js[a], xs[a], -1), cb = io_cur_iter(js[b], xs[b], -1);
                int ok = kind == 0 ? iop_phase_shift(&xs[a]->m, ca, &xs[b]->m, cb, &ip, &pl)
                                   : iop_period_coupling(&xs[a]->m, ca, &xs[b]->m, cb, &ip, &pl);
                char why[160];
                int k = pl.job == js[a]->id ? a : b;
                if (!ok || !core_may_resize(js[k], pl.new_procs, why, sizeof why)) continue;
                struct ioc_alt v = {.job = k, .cost = (kind == 0 ? 2 : 1) * io_prm.overhead};
                if (kind == 0) {
                    v.shift = pl.shift;
                } else {
                    double t0 = iop_iter_time(&xs[k]->m, js[k]->procs), t1 = iop_iter_time(&xs[k]->m, pl.new_procs);
                    if (!(t0 > 0 && t1 > 0)) continue;
                    v.compute = cj[k].compute * t1 / t0;
                }
                struct ioc_choice tc;
                evaluated++;
                ioc_choose(cj, n, kind == 0 ? &v : NULL, kind == 1 ? &v : NULL, -1, &prm, &tc);
                double tv = tc.t[kind == 0 ? IOC_SHIFT : IOC_COUPLE];
                if (tv >= 0 && tv < bt[kind]) bt[kind] = tv, alt[kind] = v, best[kind] = pl;
            }
    struct ioc_choice c;
    ioc_choose(cj, n, alt[0].job >= 0 ? &alt[0] : NULL, alt[1].job >= 0 ? &alt[1] : NULL,
               io_mode >= 0 ? io_mode : IOC_NONE, &prm, &c);
    const char *plan = NULL;
    if (c.mode == IOC_SHIFT || c.mode == IOC_COUPLE) {
        struct iop_plan *pl = &best[c.mode == IOC_SHIFT ? 0 : 1];
        int k = alt[c.mode == IOC_SHIFT ? 0 : 1].job;
        char why[256];
        if (io_resize(js[k], pl->delta, pl->iter1, why, sizeof why) != 0) {
            snprintf(pl->why + strlen(pl->why), sizeof pl->why - strlen(pl->why), "; refused: %.80s", why);
            io_plan_event(js[k], pl, "cancelled");
            c.mode = IOC_EXCLUSIVE;
        } else {
            io_plan_sent(js[k], xs[k], pl);
            plan = pl->why;
        }
    }
    io_serialise = c.mode != IOC_NONE;
    if (!io_serialise) grant_all_waiting();
    if (c.mode != io_mode || plan || verbose || first) decision_event(j, &c, &prm, js, cj, share, period, n, plan);
    io_mode = c.mode;
}
