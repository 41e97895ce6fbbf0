/* policy.c -- ductiled's global performance policies (fair, efficiency,
 * throughput, io): target sizes from the jobs' performance models, then the
 * resizes that pay for themselves (Eq. 2) with hysteresis; see policy.h. */
#include "policy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POL_MAX_JOBS 4096

void policy_defaults(struct pol_params *p)
{
    p->threshold = 0.6;
    p->band = 0.1;
    p->margin = 0.2;
    p->cooldown = 5.0;
    p->horizon = 60.0;
    p->io_weight = 1.0;
}

int policy_parse(const char *text, int *flags, char *err, size_t errlen)
{
    int f = 0;
    const char *p = text;
    if (!p || !*p) {
        snprintf(err, errlen, "empty policy: give fair, efficiency, throughput or io (combined with ',')");
        return -1;
    }
    while (*p) {
        size_t n = strcspn(p, ",+");
        int k = 0;
        if (n == 4 && !strncmp(p, "fair", 4)) k = POL_FAIR;
        else if (n == 10 && !strncmp(p, "efficiency", 10)) k = POL_EFFICIENCY;
        else if (n == 10 && !strncmp(p, "throughput", 10)) k = POL_THROUGHPUT;
        else if (n == 2 && !strncmp(p, "io", 2)) k = POL_IO;
        else if (n == 4 && !strncmp(p, "none", 4)) k = 0;
        else {
            snprintf(err, errlen, "unknown policy '%.*s': expected fair, efficiency, throughput or io", (int)(n > 40 ? 40 : n), p);
            return -1;
        }
        f |= k;
        p += n;
        if (*p) p++;
    }
    int main_kinds = !!(f & POL_FAIR) + !!(f & POL_EFFICIENCY) + !!(f & POL_THROUGHPUT);
    if (main_kinds > 1) {
        snprintf(err, errlen, "fair, efficiency and throughput exclude each other (io combines with any of them)");
        return -1;
    }
    *flags = f;
    return 0;
}

const char *policy_name(int flags)
{
    static char b[64];
    snprintf(b, sizeof b, "%s%s%s", flags & POL_FAIR ? "fair" : flags & POL_EFFICIENCY ? "efficiency" : flags & POL_THROUGHPUT ? "throughput" : "",
             (flags & POL_IO) && (flags & ~POL_IO) ? "+" : "", flags & POL_IO ? "io" : "");
    if (!b[0]) snprintf(b, sizeof b, "none");
    return b;
}

static int eligible(const struct pol_params *prm, const struct pol_snapshot *s, const struct pol_job *j)
{
    return j->malleable && !j->busy && j->m && s->now - j->last_resize >= prm->cooldown && j->min >= 1 &&
           j->min <= j->max && model_time(j->m, j->procs) > 0;
}

/* iterations left (the horizon's worth when maxiter is unknown) */
static double remaining(const struct pol_params *prm, const struct pol_job *j)
{
    double r = model_remaining(j->m);
    if (r >= 0) return r;
    double t = model_time(j->m, j->procs);
    return t > 0 ? prm->horizon / t : 0;
}

static double io_div(int flags, const struct pol_params *prm, const struct pol_job *j, int p)
{
    return flags & POL_IO ? 1.0 + prm->io_weight * model_io_ratio(j->m, p) : 1.0;
}

/* progress rate: fraction of the job's work per second at p processes */
static double rate(const struct pol_params *prm, const struct pol_job *j, int p)
{
    double t = model_time(j->m, p);
    if (t <= 0) return 0;
    double work = j->m->maxiter > 0 ? (double)j->m->maxiter : (double)j->m->iter + remaining(prm, j);
    if (work < 1) work = 1;
    return 1.0 / (t * work);
}

/* the value of giving job j its (t+1)-th process; <= 0: none */
static double value(int flags, const struct pol_params *prm, const struct pol_job *j, int t)
{
    int p = t + 1;
    if (flags & POL_EFFICIENCY) {
        double e = model_efficiency(j->m, p);
        double thr = p <= j->procs ? prm->threshold - prm->band : prm->threshold;
        if (e < thr) return 0;
        return e / io_div(flags, prm, j, p);
    }
    double d = rate(prm, j, p) - rate(prm, j, t);
    if (d <= 0) return 0;
    if (p <= j->procs) d *= 1.0 + prm->margin; /* hysteresis: the size it has */
    return d / io_div(flags, prm, j, p);
}

/* efficiency: each job keeps its size while E(p) >= threshold - band (else
 * shrinks until it is, not below --min); the slots a waiting job needs come
 * from the least efficient; the free slots go one by one to the job with the
 * best E(p+1) >= threshold */
static void targets_eff(int flags, const struct pol_params *prm, const struct pol_snapshot *s, const int *el, int pool, int *t)
{
    int left = pool;
    for (int i = 0; i < s->n; i++) {
        const struct pol_job *j = &s->jobs[i];
        if (!el[i]) continue;
        t[i] = j->procs < j->min ? j->min : j->procs > j->max ? j->max : j->procs;
        while (t[i] > j->min && model_efficiency(j->m, t[i]) < prm->threshold - prm->band) t[i]--;
        left -= t[i];
    }
    while (left < 0) {
        int worst = -1;
        double we = 0;
        for (int i = 0; i < s->n; i++) {
            if (!el[i] || t[i] <= s->jobs[i].min) continue;
            double e = model_efficiency(s->jobs[i].m, t[i]) * io_div(flags, prm, &s->jobs[i], t[i]);
            if (worst < 0 || e < we) worst = i, we = e;
        }
        if (worst < 0) break;
        t[worst]--;
        left++;
    }
    while (left > 0) {
        int best = -1;
        double bv = 0;
        for (int i = 0; i < s->n; i++) {
            if (!el[i] || t[i] >= s->jobs[i].max) continue;
            double v = value(flags, prm, &s->jobs[i], t[i]);
            if (v > bv) bv = v, best = i;
        }
        if (best < 0) break;
        t[best]++;
        left--;
    }
}

static void targets(int flags, const struct pol_params *prm, const struct pol_snapshot *s, const int *el, int pool, int *t)
{
    if (flags & POL_EFFICIENCY) {
        targets_eff(flags, prm, s, el, pool, t);
        return;
    }
    int left = pool;
    for (int i = 0; i < s->n; i++)
        if (el[i]) t[i] = s->jobs[i].min, left -= t[i];
    while (left > 0) {
        int best = -1;
        double bv = 0;
        for (int i = 0; i < s->n; i++) {
            const struct pol_job *j = &s->jobs[i];
            if (!el[i] || t[i] >= j->max) continue;
            if (flags & POL_FAIR) {
                /* fewest first; ties: the job that has more now, then the lower id */
                if (best < 0 || t[i] < t[best] || (t[i] == t[best] && j->procs > s->jobs[best].procs)) best = i;
                continue;
            }
            double v = value(flags, prm, j, t[i]);
            if (v > bv) bv = v, best = i;
        }
        if (best < 0) break;
        t[best]++;
        left--;
    }
}

/* The count nearest to the target t that the job can use, between t and its size. */
static int allowed_target(const struct pol_job *j, int t)
{
    if (t == j->procs || sizes_allows(j->sizes, t, NULL, 0)) return t;
    int p = 0;
    if (t > j->procs) p = sizes_nearest(j->sizes, t, -1, t - j->procs - 1);
    else if (j->procs > j->max) p = sizes_nearest(j->sizes, t, -1, t - 1);
    else p = sizes_nearest(j->sizes, t, 1, j->procs - t - 1);
    return p > 0 ? p : j->procs;
}

static int by_gain(const void *a, const void *b)
{
    const struct pol_decision *x = a, *y = b;
    return (x->gain_s < y->gain_s) - (x->gain_s > y->gain_s);
}

static void fill(struct pol_decision *d, const struct pol_params *prm, const struct pol_job *j, int to)
{
    memset(d, 0, sizeof *d);
    d->job = j->id;
    d->from = j->procs;
    d->to = to;
    d->t_from = model_time(j->m, j->procs);
    d->t_to = model_time(j->m, to);
    d->eff_to = model_efficiency(j->m, to);
    d->cost_s = j->cost_s;
    d->remaining = remaining(prm, j);
    d->gain_s = model_gain(j->m, j->procs, to, d->remaining, j->cost_s);
}

int policy_decide(int flags, const struct pol_params *prm, const struct pol_snapshot *s, struct pol_decision *out, int max)
{
    if (s->n <= 0 || s->n > POL_MAX_JOBS || max <= 0 || !(flags & ~0)) return 0;
    if (!(flags & (POL_FAIR | POL_EFFICIENCY | POL_THROUGHPUT))) flags |= POL_THROUGHPUT; /* io alone: Algorithm 6 */
    const char *pname = policy_name(flags);
    int *el = calloc((size_t)s->n, sizeof *el), *t = calloc((size_t)s->n, sizeof *t);
    struct pol_decision *grow = calloc((size_t)s->n, sizeof *grow), *shr = calloc((size_t)s->n, sizeof *shr);
    int nd = 0, ng = 0, ns = 0;
    if (!el || !t || !grow || !shr) goto done;
    int pool = s->free, spare = s->free; /* spare: slots all eligible jobs could give up down to their min */
    for (int i = 0; i < s->n; i++) {
        el[i] = eligible(prm, s, &s->jobs[i]);
        if (el[i]) pool += s->jobs[i].procs, spare += s->jobs[i].procs - s->jobs[i].min;
    }
    int reserve = s->reserve > 0 && spare >= s->reserve ? s->reserve : 0; /* no use freeing slots for a job that cannot start */
    pool -= reserve;
    targets(flags, prm, s, el, pool, t);
    /* a job with size constraints gets only a count it can use: growth rounds down, a shrink
     * rounds up (a forced one, above --max, down), else it keeps its size */
    for (int i = 0; i < s->n; i++) {
        const struct pol_job *j = &s->jobs[i];
        if (el[i] && j->sizes) t[i] = allowed_target(j, t[i]);
    }

    /* expansions that pay for themselves (Eq. 2) */
    int want = 0;
    for (int i = 0; i < s->n; i++) {
        const struct pol_job *j = &s->jobs[i];
        if (!el[i] || t[i] <= j->procs) continue;
        struct pol_decision *d = &grow[ng];
        fill(d, prm, j, t[i]);
        double torig = d->remaining * d->t_from;
        double need = model_eq2_speedup(torig, j->cost_s * (1.0 + prm->margin)), got = d->t_to > 0 ? d->t_from / d->t_to : 0;
        if (!(got >= need) || !(d->gain_s > prm->margin * j->cost_s)) continue; /* does not pay: keeps its size */
        snprintf(d->reason, sizeof d->reason,
                 "%s: %d -> %d; predicted %.4g -> %.4g s/iteration (speedup %.3f, efficiency %.2f at %d); "
                 "Eq. 2 needs %.3f for a %.3g s resize over %.0f iterations (%.3g s): gains %.3g s",
                 pname, j->procs, t[i], d->t_from, d->t_to, got, d->eff_to, t[i], need, j->cost_s, d->remaining, torig,
                 d->gain_s);
        want += t[i] - j->procs;
        ng++;
    }
    /* slots to free: for the expansions beyond the free slots and for the waiting job */
    int needed = want + reserve - s->free;
    for (int i = 0; i < s->n; i++) {
        const struct pol_job *j = &s->jobs[i];
        if (!el[i] || t[i] >= j->procs) continue;
        struct pol_decision *d = &shr[ns];
        fill(d, prm, j, t[i]);
        double e = model_efficiency(j->m, j->procs);
        int forced = j->procs > j->max;
        int inefficient = (flags & POL_EFFICIENCY) && e >= 0 && e < prm->threshold - prm->band;
        int ending = d->remaining * d->t_from < 2 * j->cost_s; /* it ends before a shrink pays */
        if (!forced && (ending || (!inefficient && needed <= 0))) continue;
        if (forced) snprintf(d->reason, sizeof d->reason, "%s: %d -> %d: above its --max %d", pname, j->procs, t[i], j->max);
        else if (inefficient)
            snprintf(d->reason, sizeof d->reason, "%s: %d -> %d: efficiency %.2f at %d is below %.2f (threshold %.2f - band %.2f)",
                     pname, j->procs, t[i], e, j->procs, prm->threshold - prm->band, prm->threshold, prm->band);
        else
            snprintf(d->reason, sizeof d->reason,
                     "%s: %d -> %d: %d slot(s) needed elsewhere (%d for expansions, %d for a waiting job); "
                     "predicted %.4g -> %.4g s/iteration, loses %.3g s",
                     pname, j->procs, t[i], needed, want, reserve, d->t_from, d->t_to, -d->gain_s);
        needed -= j->procs - t[i];
        ns++;
    }
    for (int k = 0; k < ns && nd < max; k++) out[nd++] = shr[k];
    /* expansions now within the free slots (the waiting job's first), best gain first; the rest next round */
    qsort(grow, (size_t)ng, sizeof *grow, by_gain);
    int avail = s->free - reserve;
    for (int k = 0; k < ng && nd < max && avail > 0; k++) {
        int n = grow[k].to - grow[k].from;
        if (n > avail) {
            /* the rest of its slots are still being freed: as many as there are now, if that pays too */
            const struct pol_job *j = NULL;
            for (int i = 0; i < s->n; i++)
                if (s->jobs[i].id == grow[k].job) j = &s->jobs[i];
            char why[sizeof grow[k].reason];
            snprintf(why, sizeof why, "%s", grow[k].reason);
            int to = j->sizes ? allowed_target(j, j->procs + avail) : j->procs + avail;
            if (to <= j->procs) continue; /* no count it can use within the free slots */
            fill(&grow[k], prm, j, to);
            double need = model_eq2_speedup(grow[k].remaining * grow[k].t_from, j->cost_s * (1.0 + prm->margin));
            if (!(grow[k].t_to > 0 && grow[k].t_from / grow[k].t_to >= need && grow[k].gain_s > prm->margin * j->cost_s))
                continue;
            n = to - j->procs;
            snprintf(grow[k].reason, sizeof grow[k].reason, "%d now (the rest once freed); %.200s", n, why);
        }
        avail -= n;
        out[nd++] = grow[k];
    }
done:
    free(el);
    free(t);
    free(grow);
    free(shr);
    return nd;
}
