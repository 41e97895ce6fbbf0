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
    if (strategy == COST_WD) return method == COST_COL ? COST_OMEGA_WD_COL : COST_OMEGA_WD_RMA;
    if (strategy == COST_THREAD) return COST_OMEGA_THREAD;
    return 1.0;
}

int cost_choose(const struct cost_input *in, struct cost_version *all, int *nall, char *reason, size_t reasonlen)
{
    *nall = 0;
    if (!in || in->ns < 1 || in->nd < 1 || in->var_bytes < 0 || in->const_bytes < 0 || !(in->bw_col > 0) ||
        !(in->bw_rma > 0) || in->win_setup_s < 0 || in->t_it < 0)
        return -1;
    static const int methods[] = {COST_COL, COST_RMA_LOCK, COST_RMA_LOCKALL};
    static const int strategies[] = {COST_BLOCKING, COST_NB, COST_WD, COST_THREAD};
    /* per-iteration time with ND processes (strong scaling) */
    double t_nd = in->t_it * (double)in->ns / (double)in->nd;
    for (int mi = 0; mi < 3; mi++) {
        int m = methods[mi];
        if (m != COST_COL && !in->rma_ok) continue;
        double bw = m == COST_COL ? in->bw_col : in->bw_rma;
        double setup = m == COST_COL ? 0 : in->win_setup_s;
        /* RMA-Lock pays one epoch per source; with many sources a little more than Lockall */
        double epochs = m == COST_RMA_LOCK ? 1.0 + 0.01 * (double)in->ns : 1.0;
        for (int si = 0; si < 4; si++) {
            int s = strategies[si];
            if (s != COST_BLOCKING && in->const_bytes <= 0) continue; /* nothing could move in the background */
            if (s == COST_NB && m != COST_COL) continue;              /* NB does not apply to one-sided methods */
            if (s != COST_BLOCKING && m != COST_COL && !in->rma_background_ok) continue; /* not safe there */
            if (s == COST_THREAD && !in->thread_multiple) continue;
            struct cost_version *v = &all[(*nall)++];
            v->method = m;
            v->strategy = s;
            double blocking = setup + epochs * in->var_bytes / bw;
            if (s == COST_BLOCKING) {
                v->r = blocking + epochs * in->const_bytes / bw;
                v->n_it = 0;
            } else {
                double w = omega_of(m, s);
                double bg = epochs * in->const_bytes / bw;
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
            snprintf(reason, reasonlen, "%s: f=%.4g s (R %.4g s, N_it %d, M %d) < %s f=%.4g s; %d versions, "
                     "bw col %.3g rma %.3g B/s, window %.3g s, T_it %.3g s",
                     cost_version_name(&all[best], a, sizeof a), all[best].f, all[best].r, all[best].n_it, mx,
                     cost_version_name(&all[second], b, sizeof b), all[second].f, *nall, in->bw_col, in->bw_rma,
                     in->win_setup_s, in->t_it);
        else
            snprintf(reason, reasonlen, "%s: the only applicable version (f=%.4g s)",
                     cost_version_name(&all[best], a, sizeof a), all[best].f);
    }
    return best;
}
