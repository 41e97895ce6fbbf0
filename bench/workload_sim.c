/* workload_sim.c -- bench/workload --simulate: a simulated cluster driven by
 * ductiled's own policy code (src/daemon/policy.c and model.c, linked, not
 * copied).  Simulated time in fixed steps: jobs arrive, wait in a first-come-
 * first-served queue started by the same rule as ductiled's intake (N free
 * slots, or with a policy any number down to --min), run iterations whose
 * time follows their speedup model t(p) = fixed + par/p + clog*log2(p) + io,
 * send monitoring samples (compute/communication/I/O split) to their model
 * once a simulated second, and are resized by the policy once a simulated
 * `tick` (a resize stops the job for its cost; a grow holds its slots from
 * the decision, a shrink frees them at the end).  Prints one JSON line of
 * the same metrics as the real runs.
 *
 * usage: workload_sim --policy static|fair|efficiency|throughput|io[,io]
 *          [--slots N] [--real | --jobs N --seed S | --swf FILE] [--tick S]
 *          [--grow-cost S] [--shrink-cost S] [--gantt FILE]
 *   --real FILE: the jobs of bench/workload, one per line:
 *           arrival kind(0 scale, 1 comm, 2 io) fixed par clog io iterations n min max
 *           (seconds per iteration measured on this machine: fixed + par/p + ...)
 *   --jobs: a synthetic workload of N jobs of the three kinds, Poisson arrivals
 *   --swf:  a Standard Workload Format trace (submit time, run time, processors;
 *           each job gets a kind at random, its run time at its size kept) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "policy.h"

enum { S_FUTURE, S_WAIT, S_RUN, S_DONE };

struct sjob {
    int id, state, n, min, max, procs, to, kind;
    double fixed, par, clog, io;  /* seconds per iteration: fixed + par/p + clog log2 p + io */
    double iters, done, arrival, start, end;
    double busy_until, last_resize;
    double acc_t, acc_it;
    struct model m;
};

static const char *const kind_name[] = {"scale", "comm", "io"};

static double itime(const struct sjob *j, int p)
{
    return j->fixed + j->par / p + j->clog * log2((double)p) + j->io;
}

static void set_kind(struct sjob *j, int kind, double scale)
{
    j->kind = kind;
    /* the kinds of bench/workload (ctl_job sleeps, plus the measured ~15 ms of control point and Allreduce) */
    if (kind == 0) j->fixed = 0.025, j->par = 0.480, j->clog = 0, j->io = 0;
    else if (kind == 1) j->fixed = 0.165, j->par = 0.200, j->clog = 0.01, j->io = 0;
    else j->fixed = 0.035, j->par = 0.300, j->clog = 0, j->io = 0.02;
    j->fixed *= scale, j->par *= scale, j->io *= scale, j->clog *= scale;
}

static unsigned long long rng = 88172645463325252ULL;
static double urand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
    const char *policy = "static", *swf = NULL, *gantt = NULL, *real = NULL;
    int slots = 8, njobs = 0;
    double tick = 1.0, grow_cost = 1.5, shrink_cost = 0.5, dt = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && !strcmp(a, "--real")) real = v, i++;
        else if (v && !strcmp(a, "--dt")) dt = atof(v), i++;
        else if (v && !strcmp(a, "--policy")) policy = v, i++;
        else if (v && !strcmp(a, "--slots")) slots = atoi(v), i++;
        else if (v && !strcmp(a, "--jobs")) njobs = atoi(v), i++;
        else if (v && !strcmp(a, "--seed")) rng = 88172645463325252ULL ^ (unsigned long long)atoll(v), i++;
        else if (v && !strcmp(a, "--swf")) swf = v, i++;
        else if (v && !strcmp(a, "--tick")) tick = atof(v), i++;
        else if (v && !strcmp(a, "--grow-cost")) grow_cost = atof(v), i++;
        else if (v && !strcmp(a, "--shrink-cost")) shrink_cost = atof(v), i++;
        else if (v && !strcmp(a, "--gantt")) gantt = v, i++;
        else {
            fprintf(stderr, "workload_sim: bad argument '%s' (see the header of bench/workload_sim.c)\n", a);
            return 2;
        }
    }
    int flags = 0;
    char err[200];
    if (strcmp(policy, "static") != 0 && policy_parse(policy, &flags, err, sizeof err) != 0) {
        fprintf(stderr, "workload_sim: %s\n", err);
        return 2;
    }
    struct pol_params prm;
    policy_defaults(&prm);
    prm.cooldown = 2;
    prm.horizon = 20;
    struct sjob *J = NULL;
    int n = 0;
    if (real) {
        FILE *f = fopen(real, "r");
        if (!f) {
            perror(real);
            return 1;
        }
        struct sjob x;
        memset(&x, 0, sizeof x);
        while (fscanf(f, "%lf %d %lf %lf %lf %lf %lf %d %d %d", &x.arrival, &x.kind, &x.fixed, &x.par, &x.clog, &x.io,
                      &x.iters, &x.n, &x.min, &x.max) == 10) {
            J = realloc(J, (size_t)(n + 1) * sizeof *J);
            if (x.kind < 0 || x.kind > 2) x.kind = 0;
            J[n++] = x;
        }
        fclose(f);
    } else if (swf) {
        FILE *f = fopen(swf, "r");
        if (!f) {
            perror(swf);
            return 1;
        }
        char line[1024];
        int cap = 0;
        while (fgets(line, sizeof line, f)) {
            double fld[18] = {0};
            if (line[0] == ';' || sscanf(line, "%lf %lf %lf %lf %lf", &fld[0], &fld[1], &fld[2], &fld[3], &fld[4]) < 5) continue;
            int procs = (int)fld[4];
            if (fld[3] <= 0 || procs < 1 || procs > slots) continue;
            if (n == cap) J = realloc(J, (size_t)(cap = cap ? 2 * cap : 1024) * sizeof *J);
            struct sjob *j = &J[n++];
            memset(j, 0, sizeof *j);
            set_kind(j, (int)(urand() * 3), 1.0);
            j->arrival = fld[1], j->n = procs, j->min = procs > 1 ? (procs + 1) / 2 : 1, j->max = procs * 2 < slots ? procs * 2 : slots;
            j->iters = fld[3] / itime(j, procs); /* its measured run time at its size */
        }
        fclose(f);
    } else {
        n = njobs > 0 ? njobs : 1000;
        J = calloc((size_t)n, sizeof *J);
        double t = 0, mean_gap = 2000.0 / slots;
        for (int i = 0; i < n; i++) {
            int kind = (int)(urand() * 3), sz = 1 << (int)(urand() * 6);
            set_kind(&J[i], kind, 10.0);
            J[i].arrival = t, J[i].n = sz, J[i].min = sz > 1 ? sz / 2 : 1, J[i].max = sz * 4;
            J[i].iters = 100 + urand() * 400;
            t += -log(1 - urand()) * mean_gap;
        }
    }
    for (int i = 0; i < n; i++) {
        J[i].id = i + 1;
        model_init(&J[i].m);
        if (J[i].max > slots) J[i].max = slots;
        if (J[i].n > slots) J[i].n = slots;
        if (J[i].min > J[i].n) J[i].min = J[i].n;
    }
    FILE *g = gantt ? fopen(gantt, "w") : NULL;
    if (g) fprintf(g, "t,job,kind,procs\n");
    struct pol_job *pj = calloc((size_t)n, sizeof *pj);
    struct pol_decision *dec = calloc((size_t)n + 1, sizeof *dec);
    int *runidx = calloc((size_t)n, sizeof *runidx);
    if (!(dt > 0)) dt = tick < 1 ? tick : 1.0;
    double now = 0, next_tick = 0, used_slot_s = 0;
    int freen = slots, left = n, resizes = 0, decisions = 0, head = 0;
    while (left > 0 && now < 1e9) {
        /* arrivals and the first-come-first-served intake (intake.c's rule) */
        for (int i = head; i < n && J[i].arrival <= now; i++)
            if (J[i].state == S_FUTURE) J[i].state = S_WAIT;
        for (int i = head; i < n && J[i].state != S_FUTURE; i++) {
            if (J[i].state != S_WAIT) continue;
            int size = freen >= J[i].n ? J[i].n : flags && freen >= J[i].min ? freen : 0;
            if (!size) break; /* strictly first come, first served */
            J[i].state = S_RUN, J[i].procs = J[i].to = size, J[i].start = now, J[i].last_resize = now;
            freen -= size;
            if (g) fprintf(g, "%.2f,%d,%s,%d\n", now, J[i].id, kind_name[J[i].kind], size);
        }
        while (head < n && (J[head].state == S_RUN || J[head].state == S_DONE)) head++;
        /* progress */
        for (int i = 0; i < n; i++) {
            struct sjob *j = &J[i];
            if (j->state != S_RUN) continue;
            used_slot_s += dt * (j->procs > j->to ? j->procs : j->to);
            if (now < j->busy_until) continue;
            if (j->to != j->procs) { /* a resize just completed */
                if (j->to < j->procs) freen += j->procs - j->to;
                j->procs = j->to;
                j->last_resize = now;
                if (g) fprintf(g, "%.2f,%d,%s,%d\n", now, j->id, kind_name[j->kind], j->procs);
            }
            double t = itime(j, j->procs), it = dt / t;
            j->done += it, j->acc_t += dt, j->acc_it += it;
            if (j->acc_t >= 1.0 - 1e-9) { /* a monitoring sample */
                double comp = j->acc_it * j->par / j->procs, io = j->acc_it * j->io;
                model_add(&j->m, j->procs, j->acc_it, j->acc_t, comp, j->acc_t - comp - io, io);
                model_progress(&j->m, (long long)j->done, (long long)j->iters);
                j->acc_t = j->acc_it = 0;
            }
            if (j->done >= j->iters) {
                j->state = S_DONE, j->end = now + dt, freen += j->procs, left--;
                if (g) fprintf(g, "%.2f,%d,%s,0\n", now + dt, j->id, kind_name[j->kind]);
            }
        }
        /* the policy, the same code as ductiled's */
        if (flags && now >= next_tick) {
            next_tick = now + tick;
            int k = 0, reserve = 0;
            for (int i = head; i < n; i++)
                if (J[i].state == S_WAIT) {
                    reserve = J[i].min;
                    break;
                }
            for (int i = 0; i < n; i++) {
                struct sjob *j = &J[i];
                if (j->state != S_RUN) continue;
                runidx[k] = i;
                pj[k] = (struct pol_job){.id = j->id, .procs = j->procs, .min = j->min, .max = j->max, .malleable = 1,
                                         .busy = now < j->busy_until || j->to != j->procs, .last_resize = j->last_resize,
                                         .cost_s = grow_cost, .m = &j->m};
                k++;
            }
            struct pol_snapshot s = {.jobs = pj, .n = k, .free = freen, .reserve = reserve, .now = now};
            int nd = k ? policy_decide(flags, &prm, &s, dec, n + 1) : 0;
            for (int d = 0; d < nd; d++) {
                struct sjob *j = &J[dec[d].job - 1];
                j->to = dec[d].to;
                j->busy_until = now + (j->to > j->procs ? grow_cost : shrink_cost);
                if (j->to > j->procs) freen -= j->to - j->procs;
                resizes++, decisions++;
            }
        }
        now += dt;
    }
    double first = J[0].arrival, last = 0, ta = 0, wait = 0;
    for (int i = 0; i < n; i++) {
        if (J[i].arrival < first) first = J[i].arrival;
        if (J[i].end > last) last = J[i].end;
        ta += J[i].end - J[i].arrival;
        wait += J[i].start - J[i].arrival;
    }
    double makespan = last - first;
    printf("{\"mode\": \"%s\", \"jobs\": %d, \"slots\": %d, \"makespan_s\": %.2f, \"mean_turnaround_s\": %.2f, "
           "\"mean_wait_s\": %.2f, \"utilisation\": %.4f, \"resizes\": %d, \"decisions\": %d, \"failed\": 0}\n",
           policy, n, slots, makespan, ta / n, wait / n, makespan > 0 ? used_slot_s / (slots * makespan) : 0, resizes,
           decisions);
    if (g) fclose(g);
    free(J);
    free(pj);
    free(dec);
    free(runidx);
    return 0;
}
