/* cost.c -- the cost model of the automatic redistribution choice (see cost.h). */
#include "cost.h"

#include <math.h>
#include <stdio.h>

const char *cost_version_name(const struct cost_version *v, char *buf, size_t len)
{
    static const char *const m[] = {"col", "p2p", "rma-lock", "rma-lockall"};
    static const char *const s[] = {"", "+nb", "+wd", "+thread"};
    snprintf(buf, len, "%s%s", m[v->method & 3], s[v->strategy & 3]);
    return buf;
}

static double omega_of(int method, int strategy)
{
    if (strategy == COST_NB) return COST_OMEGA_NB;
    if (strategy == COST_WD) return method == COST_COL || method == COST_P2P ? COST_OMEGA_WD_COL : COST_OMEGA_WD_RMA;
    if (strategy == COST_THREAD) return COST_OMEGA_THREAD;
    return 1.0;
}

double cost_steps(const struct cost_input *in, int method)
{
    int np = in->np > 0 ? in->np : (in->ns > in->nd ? in->ns : in->nd);
    double partners = in->partners > 0 ? in->partners : np - 1;
    if (method == COST_P2P) return partners;                /* a message per real partner, all at once */
    if (method == COST_RMA_LOCK) return 2.0 * partners;     /* a lock and an unlock per source */
    if (method == COST_RMA_LOCKALL) return partners + 2.0;  /* the gets between one lock_all and unlock_all */
    if (in->col_alg == COST_A2A_SCATTERED)                  /* MPICH: real partners, rounds of 32 ranks */
        return partners + (double)((np + COST_A2A_THROTTLE - 1) / COST_A2A_THROTTLE - 1);
    return np - 1; /* Open MPI's pairwise exchange: every step waits for its pair, zero bytes or not */
}

int cost_fit(const double *bytes, const double *t, const double *steps, int n, double *bw, double *lat)
{
    double bb = 0, bs = 0, ss = 0, bt = 0, st = 0;
    for (int i = 0; i < n; i++) {
        bb += bytes[i] * bytes[i];
        bs += bytes[i] * steps[i];
        ss += steps[i] * steps[i];
        bt += bytes[i] * t[i];
        st += steps[i] * t[i];
    }
    double det = bb * ss - bs * bs;
    if (n < 2 || !(bb > 0) || !(ss > 0) || det <= 1e-6 * bb * ss) return 0; /* one shape of transfer */
    double a = (bt * ss - bs * st) / det, l = (bb * st - bs * bt) / det; /* t = a x bytes + l x steps */
    /* bounded by what was measured: no negative latency, and no step longer than
     * the transfer with the fewest seconds per step (noise can suggest either) */
    double lmax = -1;
    for (int i = 0; i < n; i++)
        if (steps[i] > 0 && (lmax < 0 || t[i] / steps[i] < lmax)) lmax = t[i] / steps[i];
    if (l < 0 || (lmax >= 0 && l > lmax)) {
        l = l < 0 ? 0 : lmax;
        a = (bt - l * bs) / bb; /* the bandwidth, least squares with that latency */
    }
    if (!(a > 0)) return 0;
    *bw = 1.0 / a;
    *lat = l;
    return 1;
}

int cost_choose(const struct cost_input *in, struct cost_version *all, int *nall, char *reason, size_t reasonlen)
{
    *nall = 0;
    if (!in || in->ns < 1 || in->nd < 1 || in->var_bytes < 0 || in->const_bytes < 0 || !(in->bw_col > 0) ||
        !(in->bw_rma > 0) || in->win_setup_s < 0 || in->t_it < 0 || in->lat_s < 0 || in->bw_p2p < 0 || in->np < 0 ||
        in->partners < 0 || in->nx < 0)
        return -1;
    static const int methods[] = {COST_COL, COST_P2P, COST_RMA_LOCK, COST_RMA_LOCKALL};
    static const int strategies[] = {COST_BLOCKING, COST_NB, COST_WD, COST_THREAD};
    /* per-iteration time with ND processes (strong scaling) */
    double t_nd = in->t_it * (double)in->ns / (double)in->nd;
    double nx = in->nx > 0 ? in->nx : 1;
    for (int mi = 0; mi < 4; mi++) {
        int m = methods[mi];
        int rma = m == COST_RMA_LOCK || m == COST_RMA_LOCKALL;
        if (rma && !in->rma_ok) continue;
        double bw = m == COST_COL ? in->bw_col : m == COST_P2P ? (in->bw_p2p > 0 ? in->bw_p2p : in->bw_col) : in->bw_rma;
        double setup = rma ? in->win_setup_s : 0;
        /* RMA-Lock pays one epoch per source; with many sources a little more than Lockall */
        double epochs = m == COST_RMA_LOCK ? 1.0 + 0.01 * (double)in->ns : 1.0;
        double lat = nx * in->lat_s * cost_steps(in, m);
        /* in the background col and p2p move constant data by the collective (an MPI_Ialltoallv, or the
         * group of wd / thread: src/malleable/transfer.c), the rma-* methods by their own reads */
        double bg_bw = rma ? in->bw_rma : in->bw_col, bg_lat = rma ? lat : nx * in->lat_s * cost_steps(in, COST_COL);
        for (int si = 0; si < 4; si++) {
            int s = strategies[si];
            if (s != COST_BLOCKING && in->const_bytes <= 0) continue; /* nothing could move in the background */
            if (s == COST_NB && rma) continue;                        /* NB does not apply to one-sided methods */
            if (s != COST_BLOCKING && rma && !in->rma_background_ok) continue; /* not safe there */
            if (s == COST_THREAD && !in->thread_multiple) continue;
            struct cost_version *v = &all[(*nall)++];
            v->method = m;
            v->strategy = s;
            if (s == COST_BLOCKING) {
                v->r = setup + epochs * (in->var_bytes + in->const_bytes) / bw + lat;
                v->n_it = 0;
            } else {
                double blocking = setup + (in->var_bytes > 0 ? epochs * in->var_bytes / bw + lat : 0);
                double w = omega_of(rma ? m : COST_COL, s);
                double bg = epochs * in->const_bytes / bg_bw + bg_lat;
                double it_bg = t_nd * w;
                /* completion is only seen at a control point: at least one iteration */
                int n = it_bg > 0 ? (int)ceil(bg / it_bg) : 1;
                if (n < 1) n = 1;
                v->n_it = n;
                v->r = blocking + (it_bg > 0 ? (double)n * it_bg : bg);
            }
        }
    }
    if (*nall == 0) return -1;
    int mx = 0;
    for (int i = 0; i < *nall; i++)
        if (all[i].n_it > mx) mx = all[i].n_it;
    int best = 0, second = -1;
    for (int i = 0; i < *nall; i++) {
        all[i].f = all[i].r + t_nd * (double)(mx - all[i].n_it);
        if (i > 0 && all[i].f < all[best].f - 1e-12) best = i;
    }
    for (int i = 0; i < *nall; i++)
        if (i != best && (second < 0 || all[i].f < all[second].f)) second = i;
    if (reason && reasonlen) {
        char a[32], b[32];
        if (second >= 0)
            snprintf(reason, reasonlen, "%s: f=%.4g s (R %.4g s, N_it %d, M %d) %s %s f=%.4g s; bw col %.3g rma %.3g "
                     "B/s, lat %.2g s x steps col %.0f p2p %.0f, window %.3g s, T_it %.3g s",
                     cost_version_name(&all[best], a, sizeof a), all[best].f, all[best].r, all[best].n_it, mx,
                     all[best].f < all[second].f - 1e-12 ? "<" : "<=", /* a tie: the first in order */
                     cost_version_name(&all[second], b, sizeof b), all[second].f, in->bw_col, in->bw_rma, in->lat_s,
                     nx * cost_steps(in, COST_COL), nx * cost_steps(in, COST_P2P), in->win_setup_s, in->t_it);
        else
            snprintf(reason, reasonlen, "%s: the only applicable version (f=%.4g s)",
                     cost_version_name(&all[best], a, sizeof a), all[best].f);
    }
    return best;
}
