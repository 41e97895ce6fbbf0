/* model.c -- ductiled's per-job performance model: measured iteration times
 * per size, the fitted model for other sizes, efficiency, remaining work and
 * the resize's gain (Eq. 2); see model.h. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void model_init(struct model *m)
{
    memset(m, 0, sizeof *m);
}

static struct model_size *find(struct model *m, int procs, int create)
{
    for (int i = 0; i < m->n; i++)
        if (m->s[i].procs == procs) return &m->s[i];
    if (!create || m->n >= MODEL_SIZES) return NULL;
    struct model_size *s = &m->s[m->n++];
    memset(s, 0, sizeof *s);
    s->procs = procs;
    return s;
}

static const struct model_size *cfind(const struct model *m, int procs)
{
    for (int i = 0; i < m->n; i++)
        if (m->s[i].procs == procs && m->s[i].iters >= MODEL_MIN_ITERS) return &m->s[i];
    return NULL;
}

void model_add(struct model *m, int procs, double iters, double secs, double compute, double comm, double io)
{
    int first = procs != m->last_procs;
    m->last_procs = procs;
    if (first || procs < 1 || !(secs > 0) || !isfinite(secs) || !isfinite(iters) || iters < 0) {
        memset(m->pend, 0, sizeof m->pend);
        return;
    }
    if (!(iters > 0)) { /* no iteration ended: its time goes with the next one that does */
        m->pend[0] += secs, m->pend[1] += compute > 0 ? compute : 0, m->pend[2] += comm > 0 ? comm : 0, m->pend[3] += io > 0 ? io : 0;
        return;
    }
    secs += m->pend[0], compute += m->pend[1], comm += m->pend[2], io += m->pend[3];
    memset(m->pend, 0, sizeof m->pend);
    struct model_size *s = find(m, procs, 1);
    if (!s) return;
    s->iters += iters;
    s->secs += secs;
    s->compute += compute > 0 ? compute : 0;
    s->comm += comm > 0 ? comm : 0;
    s->io += io > 0 ? io : 0;
    model_fit(m);
}

void model_progress(struct model *m, long long iter, long long maxiter)
{
    if (iter >= 0) m->iter = iter;
    if (maxiter > 0) m->maxiter = maxiter;
}

const char *model_kind_name(enum model_kind k)
{
    switch (k) {
    case MODEL_NONE: return "none";
    case MODEL_SPLIT: return "split";
    case MODEL_AMDAHL: return "a+b/p";
    case MODEL_LOG: return "a+b/p+c*log2(p)";
    }
    return "?";
}

/* Solve the k x k system A x = y (k <= 3) by Gaussian elimination with
 * partial pivoting; 0 on success. */
static int solve(int k, double A[3][3], double y[3], double x[3])
{
    for (int c = 0; c < k; c++) {
        int p = c;
        for (int r = c + 1; r < k; r++)
            if (fabs(A[r][c]) > fabs(A[p][c])) p = r;
        if (fabs(A[p][c]) < 1e-15) return -1;
        if (p != c) {
            for (int q = 0; q < k; q++) {
                double t = A[c][q];
                A[c][q] = A[p][q];
                A[p][q] = t;
            }
            double t = y[c];
            y[c] = y[p];
            y[p] = t;
        }
        for (int r = c + 1; r < k; r++) {
            double f = A[r][c] / A[c][c];
            for (int q = c; q < k; q++) A[r][q] -= f * A[c][q];
            y[r] -= f * y[c];
        }
    }
    for (int c = k - 1; c >= 0; c--) {
        double s = y[c];
        for (int q = c + 1; q < k; q++) s -= A[c][q] * x[q];
        x[c] = s / A[c][c];
    }
    return 0;
}

/* Least squares over the measured sizes with basis 1, 1/p and (k = 3) log2 p. */
static int lsq(const struct model *m, int k, double x[3])
{
    double A[3][3] = {{0}}, y[3] = {0};
    int used = 0;
    for (int i = 0; i < m->n; i++) {
        const struct model_size *s = &m->s[i];
        if (s->iters < MODEL_MIN_ITERS) continue;
        double p = s->procs, t = s->secs / s->iters;
        double f[3] = {1.0, 1.0 / p, log2(p)};
        for (int r = 0; r < k; r++) {
            for (int c = 0; c < k; c++) A[r][c] += f[r] * f[c];
            y[r] += f[r] * t;
        }
        used++;
    }
    x[0] = x[1] = x[2] = 0;
    if (used < k) return -1;
    return solve(k, A, y, x);
}

enum model_kind model_fit(struct model *m)
{
    int sizes = model_confidence(m);
    double x[3];
    m->kind = MODEL_NONE;
    m->a = m->b = m->c = 0;
    if (sizes >= 3 && lsq(m, 3, x) == 0 && x[0] >= 0 && x[1] > 0 && x[2] >= 0) {
        m->kind = MODEL_LOG;
        m->a = x[0], m->b = x[1], m->c = x[2];
        return m->kind;
    }
    if (sizes >= 2 && lsq(m, 2, x) == 0 && x[1] > 0) {
        m->kind = MODEL_AMDAHL;
        if (x[0] < 0) {
            /* no serial part: b alone, least squares through the origin of 1/p */
            double num = 0, den = 0;
            for (int i = 0; i < m->n; i++) {
                if (m->s[i].iters < MODEL_MIN_ITERS) continue;
                double p = m->s[i].procs;
                num += (m->s[i].secs / m->s[i].iters) / p;
                den += 1.0 / (p * p);
            }
            x[0] = 0;
            x[1] = num / den;
        }
        m->a = x[0], m->b = x[1];
        return m->kind;
    }
    if (sizes >= 1) {
        /* the largest sample set: its compute part scales, the rest does not */
        const struct model_size *best = NULL;
        for (int i = 0; i < m->n; i++)
            if (m->s[i].iters >= MODEL_MIN_ITERS && (!best || m->s[i].iters > best->iters)) best = &m->s[i];
        double t = best->secs / best->iters, comp = best->compute / best->iters;
        if (comp > t) comp = t;
        m->kind = MODEL_SPLIT;
        m->a = t - comp;
        m->b = comp * best->procs;
        return m->kind;
    }
    return m->kind;
}

int model_measured(const struct model *m, int p) { return cfind(m, p) != NULL; }

static double fitted(const struct model *m, int p)
{
    if (m->kind == MODEL_NONE || p < 1) return -1;
    double t = m->a + m->b / p + (m->kind == MODEL_LOG ? m->c * log2((double)p) : 0);
    return t > 0 ? t : -1;
}

double model_time(const struct model *m, int p)
{
    const struct model_size *s = cfind(m, p);
    if (s) return s->secs / s->iters;
    return fitted(m, p);
}

double model_efficiency(const struct model *m, int p)
{
    double t1 = model_time(m, 1), tp = model_time(m, p);
    if (t1 <= 0 || tp <= 0) return -1;
    return t1 / (p * tp);
}

double model_io_ratio(const struct model *m, int p)
{
    const struct model_size *best = NULL;
    for (int i = 0; i < m->n; i++)
        if (m->s[i].iters >= MODEL_MIN_ITERS && (!best || abs(m->s[i].procs - p) < abs(best->procs - p))) best = &m->s[i];
    return best && best->secs > 0 ? best->io / best->secs : 0;
}

double model_remaining(const struct model *m)
{
    if (m->maxiter <= 0) return -1;
    double r = (double)(m->maxiter - m->iter);
    return r > 0 ? r : 0;
}

int model_confidence(const struct model *m)
{
    int k = 0;
    for (int i = 0; i < m->n; i++) k += m->s[i].iters >= MODEL_MIN_ITERS;
    return k;
}

double model_eq2_speedup(double t_orig, double t_reconf)
{
    if (!(t_orig > t_reconf)) return INFINITY;
    return t_orig / (t_orig - t_reconf);
}

double model_gain(const struct model *m, int from, int to, double iters, double cost)
{
    double a = model_time(m, from), b = model_time(m, to);
    if (a <= 0 || b <= 0 || !(iters >= 0)) return -INFINITY;
    return iters * (a - b) - cost;
}
