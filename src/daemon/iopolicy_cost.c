/* iopolicy_cost.c -- the I/O coordination cost predictor (see
 * iopolicy_cost.h): a fluid event simulation of periodic I/O phases on one
 * shared device, and the choice of the cheapest coordination. */
#include "iopolicy_cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *ioc_mode_name(int mode)
{
    static const char *n[] = {"none", "exclusive", "phase-shift", "period-coupling"};
    return mode >= 0 && mode < IOC_MODES ? n[mode] : "?";
}

#define IOC_STEPS 200000 /* bound on simulated events */

double ioc_simulate(const struct ioc_job *j, int n, int exclusive, const struct ioc_params *p)
{
    if (n < 0 || n > IOC_MAX_JOBS || !p || p->horizon <= 0) return -1;
    for (int i = 0; i < n; i++)
        if (!(j[i].next >= 0) || !(j[i].compute >= 0) || !(j[i].length > 0) || !(j[i].share > 0) || j[i].share > 1 ||
            !(j[i].tail >= 0))
            return -1;
    /* per job: 0 computing until at[i], 1 waiting for the device (exclusive), 2 in its phase */
    int st[IOC_MAX_JOBS], order = 0, ord[IOC_MAX_JOBS];
    double at[IOC_MAX_JOBS], left[IOC_MAX_JOBS], began[IOC_MAX_JOBS];
    /* the phases counted: those that would start before the horizon (or the job's end) if
     * nothing delayed them -- the same phases in every mode: a phase that waits or shares
     * still comes, even if that pushes it past the horizon */
    long nph[IOC_MAX_JOBS];
    for (int i = 0; i < n; i++) {
        st[i] = 0, at[i] = j[i].next, left[i] = 0, began[i] = 0, ord[i] = 0;
        double lim = j[i].end > 0 && j[i].end < p->horizon ? j[i].end : p->horizon;
        nph[i] = 0;
        for (double t = j[i].next; t < lim && nph[i] < IOC_STEPS; t += j[i].length + j[i].compute) nph[i]++;
    }
    double now = 0, total = 0, free_at = 0; /* exclusive: the token is free again at free_at */
    int holder = -1;
    for (int step = 0; step < IOC_STEPS; step++) {
        /* phases that are due start (or queue) */
        for (int i = 0; i < n; i++)
            if (st[i] == 0 && at[i] <= now + 1e-12 && nph[i] > 0) {
                nph[i]--;
                st[i] = exclusive ? 1 : 2;
                began[i] = now;
                left[i] = j[i].length;
                ord[i] = order++;
            }
        if (exclusive && holder < 0 && now >= free_at - 1e-12) {
            int best = -1; /* first come, first served */
            for (int i = 0; i < n; i++)
                if (st[i] == 1 && (best < 0 || ord[i] < ord[best])) best = i;
            if (best >= 0) {
                holder = best, st[best] = 2;
                /* one that waited is handed the token through ductiled: a round trip more than
                 * asking for a free token, which every job does under --io-policy auto anyway */
                if (now > began[best] + 1e-12) left[best] += p->grant;
            }
        }
        /* rates: alone each phase progresses at 1 (its share of the device); together the
         * shares are scaled down to fit the device */
        double sum = 0;
        for (int i = 0; i < n; i++)
            if (st[i] == 2) sum += j[i].share;
        double scale = sum > 1 ? 1 / sum : 1;
        double dt = INFINITY;
        int busy = 0;
        for (int i = 0; i < n; i++) {
            if (st[i] == 2) {
                double d = left[i] / scale; /* seconds of phase left at the current rate */
                if (d < dt) dt = d;
                busy = 1;
            } else if (st[i] == 1) {
                busy = 1;
                if (holder < 0 && free_at - now < dt) dt = free_at - now;
            } else if (nph[i] > 0 && at[i] - now < dt) {
                dt = at[i] - now;
            }
        }
        if (!busy && !isfinite(dt)) return total; /* nothing left before the horizon */
        if (dt < 0) dt = 0;
        now += dt;
        for (int i = 0; i < n; i++)
            if (st[i] == 2) {
                left[i] -= dt * scale;
                if (left[i] <= 1e-9) {
                    total += now - began[i];
                    st[i] = 0;
                    at[i] = now + j[i].compute;
                    if (holder == i) holder = -1, free_at = now + j[i].tail;
                }
            }
    }
    return -1; /* did not settle (a bug, or an absurd horizon) */
}

double ioc_alone(double s, double e, const double *os, const double *oe, int n)
{
    if (!(e > s)) return 0;
    /* the breakpoints inside (s, e), then the integral piece by piece */
    double pt[2 * IOC_MAX_JOBS * 8 + 2];
    int np = 0, cap = (int)(sizeof pt / sizeof pt[0]);
    pt[np++] = s;
    for (int i = 0; i < n && np < cap - 3; i++) {
        if (os[i] > s && os[i] < e) pt[np++] = os[i];
        if (oe[i] > s && oe[i] < e) pt[np++] = oe[i];
    }
    pt[np++] = e;
    for (int a = 1; a < np; a++) /* insertion sort: few points */
        for (int b = a; b > 0 && pt[b - 1] > pt[b]; b--) {
            double t = pt[b];
            pt[b] = pt[b - 1];
            pt[b - 1] = t;
        }
    double dev = 0;
    for (int k = 0; k + 1 < np; k++) {
        double lo = pt[k], hi = pt[k + 1];
        if (hi <= lo) continue;
        double mid = (lo + hi) / 2;
        int others = 0;
        for (int i = 0; i < n; i++)
            if (os[i] <= mid && mid < oe[i]) others++;
        dev += (hi - lo) / (1 + others);
    }
    return dev;
}

static double with_alt(const struct ioc_job *j, int n, const struct ioc_alt *a, int couple, const struct ioc_params *p)
{
    if (!a || a->job < 0 || a->job >= n) return -1;
    struct ioc_job v[IOC_MAX_JOBS];
    memcpy(v, j, (size_t)n * sizeof v[0]);
    if (couple) {
        if (!(a->compute >= 0)) return -1;
        v[a->job].compute = a->compute;
    } else {
        v[a->job].next -= a->shift;
        if (v[a->job].next < 0) v[a->job].next = 0;
    }
    double t = ioc_simulate(v, n, 1, p);
    return t < 0 ? -1 : t + a->cost;
}

void ioc_choose(const struct ioc_job *j, int n, const struct ioc_alt *shift, const struct ioc_alt *couple, int current,
                const struct ioc_params *p, struct ioc_choice *c)
{
    memset(c, 0, sizeof *c);
    c->mode = IOC_NONE;
    c->t[IOC_NONE] = ioc_simulate(j, n, 0, p);
    c->t[IOC_EXCLUSIVE] = ioc_simulate(j, n, 1, p);
    c->t[IOC_SHIFT] = with_alt(j, n, shift, 0, p);
    c->t[IOC_COUPLE] = with_alt(j, n, couple, 1, p);
    for (int m = 0; m < IOC_MODES; m++) c->valid[m] = c->t[m] >= 0;
    if (!c->valid[IOC_NONE]) {
        snprintf(c->why, sizeof c->why, "no prediction (bad input): no coordination");
        return;
    }
    /* "better" = cheaper than the reference by the margin and by min_gain seconds */
#define BETTER(m, ref) (c->valid[m] && c->t[m] < c->t[ref] * (1 - p->margin) && c->t[ref] - c->t[m] >= p->min_gain)
    if (BETTER(IOC_EXCLUSIVE, IOC_NONE)) c->mode = IOC_EXCLUSIVE;
    /* a resize must beat the best of what needs none */
    int best = c->mode;
    for (int m = IOC_SHIFT; m <= IOC_COUPLE; m++)
        if (BETTER(m, c->mode) && (best == c->mode || c->t[m] < c->t[best])) best = m;
    /* resizes run under exclusive I/O, which must not be worse than none */
    if (best >= IOC_SHIFT && c->t[IOC_EXCLUSIVE] <= c->t[IOC_NONE]) c->mode = best;
    /* hysteresis: none and exclusive are states; leaving the current one takes the margin */
    int kept = 0;
    if ((current == IOC_NONE || current == IOC_EXCLUSIVE) && c->mode != current && c->valid[current] &&
        !BETTER(c->mode, current))
        c->mode = current, kept = 1;
#undef BETTER
    int n_ = snprintf(c->why, sizeof c->why, "%s: predicted I/O time over %.0f s: none %.2f s, exclusive %.2f s",
                      ioc_mode_name(c->mode), p->horizon, c->t[IOC_NONE], c->t[IOC_EXCLUSIVE]);
    for (int m = IOC_SHIFT; m <= IOC_COUPLE && n_ > 0 && (size_t)n_ < sizeof c->why; m++)
        if (c->valid[m])
            n_ += snprintf(c->why + n_, sizeof c->why - (size_t)n_, ", %s %.2f s (with resize cost)", ioc_mode_name(m),
                           c->t[m]);
    if (n_ > 0 && (size_t)n_ < sizeof c->why)
        snprintf(c->why + n_, sizeof c->why - (size_t)n_, "%s",
                 kept ? "; kept: no other mode gains the margin over it"
                 : c->mode == IOC_NONE && current == IOC_EXCLUSIVE ? "; none beats exclusive by the margin"
                 : c->mode == IOC_NONE ? "; no mode gains the margin" : "; cheapest by the margin");
}

#define PRIOR_TAIL 0.25    /* a tail over this fraction of its phase (+ 50 ms) voids the prior */
#define PRIOR_RATIO 2.0    /* as do phases more than this many times as long as another job's, */
#define PRIOR_MIN_LOSS 0.2 /* the longer one over 0.2 s */

int ioc_prior_holds(const int *id, const double *len, const double *tail, int n, char *why, size_t wl)
{
    double lmin = INFINITY, lmax = 0;
    for (int i = 0; i < n; i++) {
        if (!(len[i] >= 0)) continue;
        if (len[i] > lmax) lmax = len[i];
        if (len[i] < lmin) lmin = len[i];
        if (tail[i] > PRIOR_TAIL * len[i] + 0.05) {
            snprintf(why, wl, "job %d kept the I/O token %.2f s after a %.2f s phase (no file closed at its end)", id[i],
                     tail[i], len[i]);
            return 0;
        }
    }
    /* a short phase serialised after a long one loses at most the long one's length: not for short ones */
    if (lmin > 0 && lmax > PRIOR_RATIO * lmin && lmax > PRIOR_MIN_LOSS) {
        snprintf(why, wl, "phases of %.2f and %.2f s: serialising the short after the long may cost more than sharing",
                 lmin, lmax);
        return 0;
    }
    return 1;
}
