/* iopredict.c -- I/O period predictor and interference scheduler
 * (Algorithms 3 and 4 of the CLARISSE/FlexMPI paper; see iopredict.h). */
#include "iopredict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double iop_eq1(const struct iop_terms *t) { return t->t_cpu + t->t_comm + t->t_io; }

double iop_period(const double *start, int first, int last)
{
    /* the mean of the consecutive differences, start[k+1] - start[k] */
    return last > first ? (start[last] - start[first]) / (last - first) : 0;
}

void iop_job_init(struct iop_job *j, int id, int procs)
{
    memset(j, 0, sizeof *j);
    j->id = id;
    j->procs = procs;
}

void iop_add_phase(struct iop_job *j, double start, double duration, long long iteration, int procs)
{
    if (j->nph == IOP_PHASES) {
        memmove(j->start, j->start + 1, (IOP_PHASES - 1) * sizeof j->start[0]);
        memmove(j->dur, j->dur + 1, (IOP_PHASES - 1) * sizeof j->dur[0]);
        memmove(j->iter, j->iter + 1, (IOP_PHASES - 1) * sizeof j->iter[0]);
        memmove(j->procs_at, j->procs_at + 1, (IOP_PHASES - 1) * sizeof j->procs_at[0]);
        j->nph--;
    }
    j->start[j->nph] = start;
    j->dur[j->nph] = duration;
    j->iter[j->nph] = iteration;
    j->procs_at[j->nph] = procs;
    j->nph++;
    j->total_phases++;
    j->procs = procs;
}

void iop_add_iterations(struct iop_job *j, int procs, double seconds, double iterations)
{
    if (procs < 1 || iterations <= 0 || seconds <= 0) return;
    int k;
    for (k = 0; k < j->ncfg; k++)
        if (j->cfg_procs[k] == procs) break;
    if (k == j->ncfg) {
        if (j->ncfg == IOP_CONFIGS) return;
        /* keep the configurations sorted by size */
        while (k > 0 && j->cfg_procs[k - 1] > procs) {
            j->cfg_procs[k] = j->cfg_procs[k - 1];
            j->cfg_sum[k] = j->cfg_sum[k - 1];
            j->cfg_iters[k] = j->cfg_iters[k - 1];
            k--;
        }
        j->cfg_procs[k] = procs;
        j->cfg_sum[k] = j->cfg_iters[k] = 0;
        j->ncfg++;
    }
    j->cfg_sum[k] += seconds;
    j->cfg_iters[k] += iterations;
}

double iop_iter_time(const struct iop_job *j, int procs)
{
    if (j->ncfg == 0 || procs < 1) return -1;
    for (int k = 0; k < j->ncfg; k++) {
        double t = j->cfg_sum[k] / j->cfg_iters[k];
        if (j->cfg_procs[k] == procs) return t;
        if (j->cfg_procs[k] > procs) {
            if (k == 0) return t * j->cfg_procs[k] / procs; /* below the smallest: ideal scaling */
            double t0 = j->cfg_sum[k - 1] / j->cfg_iters[k - 1];
            double f = (double)(procs - j->cfg_procs[k - 1]) / (double)(j->cfg_procs[k] - j->cfg_procs[k - 1]);
            return t0 + f * (t - t0);
        }
    }
    int last = j->ncfg - 1; /* beyond the largest: ideal scaling */
    return j->cfg_sum[last] / j->cfg_iters[last] * j->cfg_procs[last] / procs;
}

int iop_procs_for_speedup(const struct iop_job *j, int from, double speedup, int max)
{
    double t0 = iop_iter_time(j, from);
    if (t0 <= 0) return -1;
    for (int p = from + 1; p <= max; p++) {
        double t = iop_iter_time(j, p);
        if (t > 0 && t0 / t >= speedup - 1e-9) return p;
    }
    return -1;
}

void iop_predict(const struct iop_job *j, struct iop_pred *p)
{
    memset(p, 0, sizeof *p);
    p->next_iter = -1;
    if (j->nph == 0) return;
    int last = j->nph - 1, first = last;
    /* the recent phases at the current size (a resize changes the period) */
    while (first > 0 && j->procs_at[first - 1] == j->procs_at[last]) first--;
    double dsum = 0;
    for (int k = first; k <= last; k++) dsum += j->dur[k];
    p->duration = dsum / (last - first + 1);
    if (last - first < 1) return;
    p->period = iop_period(j->start, first, last); /* Eq. 1, averaged */
    if (j->iter[first] >= 0 && j->iter[last] > j->iter[first])
        p->iters_per_period = (double)(j->iter[last] - j->iter[first]) / (last - first);
    p->next_start = j->start[last] + p->period;
    if (p->iters_per_period > 0) p->next_iter = j->iter[last] + (long long)llround(p->iters_per_period);
    /* the job was resized since its last phase: the period at the old size says nothing about the
     * next one (planning from it resized a job twice); wait for two phases at the new size */
    p->valid = p->period > 0 && j->procs_at[last] == j->procs;
}

static double isect(double a0, double a1, double b0, double b1)
{
    double lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi - lo;
}

int iop_interfere(const struct iop_pred *a, const struct iop_pred *b, double u, double *overlap)
{
    *overlap = 0;
    if (!a->valid || !b->valid) return 0;
    /* a's next phase against b's occurrences around it */
    double a0 = a->next_start, a1 = a->next_start + a->duration + u;
    double k = floor((a0 - b->next_start) / b->period);
    if (k < 0) k = 0;
    for (int i = -1; i <= 1; i++) {
        double kk = k + i;
        if (kk < 0) continue;
        double b0 = b->next_start + kk * b->period, b1 = b0 + b->duration + u;
        double o = isect(a0, a1, b0, b1);
        if (o > 0) {
            *overlap = o;
            return 1;
        }
    }
    return 0;
}

int iop_phase_shift(const struct iop_job *a, long long cur_iter_a, const struct iop_job *b, long long cur_iter_b,
                    const struct iop_params *prm, struct iop_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    struct iop_pred pa, pb;
    iop_predict(a, &pa);
    iop_predict(b, &pb);
    double ov;
    if (!iop_interfere(&pa, &pb, prm->uncertainty, &ov)) {
        snprintf(plan->why, sizeof plan->why, "no interference predicted");
        return 0;
    }
    /* select_application(): similar but unequal periods -> the shorter period;
     * otherwise the one whose phase comes first */
    double rel = fabs(pa.period - pb.period) / (pa.period > pb.period ? pa.period : pb.period);
    int k_is_a;
    if (rel > 0.01 && rel < prm->similar) k_is_a = pa.period < pb.period;
    else k_is_a = pa.next_start <= pb.next_start;
    const struct iop_job *K = k_is_a ? a : b;
    const struct iop_pred *pk = k_is_a ? &pa : &pb, *po = k_is_a ? &pb : &pa;
    long long cur = k_is_a ? cur_iter_a : cur_iter_b;
    /* the other job's occurrence that k's next phase meets */
    double o0 = po->next_start;
    while (o0 - po->period + po->duration + prm->uncertainty > pk->next_start) o0 -= po->period;
    while (o0 + po->duration + prm->uncertainty < pk->next_start) o0 += po->period;
    /* obtain_shift(): k's phase must end (with the margin) before the other starts */
    double shift = pk->next_start + pk->duration + prm->uncertainty - o0;
    if (shift <= 0) shift = ov;
    /* evaluate_interference(): the shifted phase must not meet the other's previous phase */
    double s0 = pk->next_start - shift, prev_end = o0 - po->period + po->duration + prm->uncertainty;
    plan->job = K->id;
    plan->shift = shift;
    if (s0 < prev_end) {
        snprintf(plan->why, sizeof plan->why, "a shift of %.2f s would meet the other job's previous phase", shift);
        return 0;
    }
    if (pk->next_iter < 0 || cur < 0) {
        snprintf(plan->why, sizeof plan->why, "job %d: iterations of its I/O phases unknown", K->id);
        return 0;
    }
    plan->iter1 = cur + 1;
    plan->iter2 = pk->next_iter - 1;
    double t_it = iop_iter_time(K, K->procs);
    if (t_it <= 0 || plan->iter2 <= plan->iter1) {
        snprintf(plan->why, sizeof plan->why, "job %d: no control points left before its next phase", K->id);
        return 0;
    }
    plan->torig = (double)(plan->iter2 - plan->iter1) * t_it;
    plan->treconf = shift + 2 * prm->overhead + prm->uncertainty;
    if (plan->treconf >= plan->torig) {
        snprintf(plan->why, sizeof plan->why, "job %d: T_reconf %.2f s >= T_orig %.2f s: unreachable", K->id,
                 plan->treconf, plan->torig);
        return 0;
    }
    plan->speedup = plan->torig / (plan->torig - plan->treconf); /* Eq. 2 */
    int p = iop_procs_for_speedup(K, K->procs, plan->speedup, prm->max_procs);
    if (p < 0) {
        snprintf(plan->why, sizeof plan->why, "job %d: speedup %.2f needs more than %d processes", K->id,
                 plan->speedup, prm->max_procs);
        return 0;
    }
    plan->kind = 1;
    plan->new_procs = p;
    plan->delta = p - K->procs;
    snprintf(plan->why, sizeof plan->why, "phase shift of job %d by %.2f s: +%d at iteration %lld, -%d at %lld (speedup %.2f)",
             K->id, shift, plan->delta, plan->iter1, plan->delta, plan->iter2, plan->speedup);
    return 1;
}

int iop_period_coupling(const struct iop_job *a, long long cur_iter_a, const struct iop_job *b, long long cur_iter_b,
                        const struct iop_params *prm, struct iop_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    struct iop_pred pa, pb;
    iop_predict(a, &pa);
    iop_predict(b, &pb);
    if (!pa.valid || !pb.valid) {
        snprintf(plan->why, sizeof plan->why, "periods not known yet");
        return 0;
    }
    /* only jobs whose next phases interfere are reconfigured */
    double ov;
    if (!iop_interfere(&pa, &pb, prm->uncertainty, &ov)) {
        snprintf(plan->why, sizeof plan->why, "no interference predicted");
        return 0;
    }
    /* select_largest_period(), obtain_period(): the nearest multiple of the
     * other's period that a speedup can reach (not above the current one) */
    int k_is_a = pa.period >= pb.period;
    const struct iop_job *K = k_is_a ? a : b;
    double pk = k_is_a ? pa.period : pb.period, ps = k_is_a ? pb.period : pa.period;
    double m = floor(pk / ps + 1e-9);
    if (m < 1) m = 1;
    double target = m * ps;
    plan->job = K->id;
    plan->speedup = pk / target;
    plan->iter1 = (k_is_a ? cur_iter_a : cur_iter_b) + 1;
    if (plan->speedup < 1.02) {
        snprintf(plan->why, sizeof plan->why, "periods already coupled (%.2f s and %.2f s)", pk, ps);
        plan->fallback = 1;
        return 0;
    }
    int p = iop_procs_for_speedup(K, K->procs, plan->speedup, prm->max_procs);
    if (p < 0) {
        snprintf(plan->why, sizeof plan->why, "job %d: speedup %.2f needs more than %d processes", K->id,
                 plan->speedup, prm->max_procs);
        return 0;
    }
    plan->kind = 2;
    plan->new_procs = p;
    plan->delta = p - K->procs;
    snprintf(plan->why, sizeof plan->why, "period coupling of job %d: %.2f s -> %.2f s (x%.0f of %.2f s), %d -> %d processes",
             K->id, pk, target, m, ps, K->procs, p);
    return 1;
}
