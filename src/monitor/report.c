/* report.c -- end-of-run collection: every rank converts its counters to
 * seconds; reductions on the private communicator combine them on rank 0
 * (per-function sums and maxima, per-rank figures as sum, MINLOC, MAXLOC),
 * so rank 0's memory and time do not grow with a table per rank.  Only for
 * jobs of at most DUCTILE_REPORT_RANKS ranks are the per-rank tables gathered
 * too (the report's "ranks" array).  Rank 0 builds the JSON report and the
 * summary (report_build.c) and writes them. */
#include "config.h"

#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iteration.h"
#include "report_build.h"
#include "../core/hotpath.h"
#include "../core/state.h"
#include "../core/hooks.h"
#include "../io/iomon.h"

static const char *state_name(iterdetect_state s)
{
    switch (s) {
    case ITERDETECT_LOCKED: return "locked";
    case ITERDETECT_DETECTING: return "detecting";
    case ITERDETECT_GAVE_UP: return "gave-up";
    default: return "off";
    }
}

void ductile_report_snapshot(int rank, uint64_t t_end, struct report_rank *me, struct report_fn *fns)
{
    memset(me, 0, sizeof *me);
    me->rank = rank;
    me->pid = (int32_t)getpid();
    gethostname(me->host, sizeof me->host - 1);
    me->wall_s = ductile_ticks_to_sec(t_end - ductile_rt.start_ticks);
    for (int i = 0; i < DUCTILE_FN_COUNT; i++) {
        fns[i].calls = ductile_fn_calls(i);
        fns[i].time_s = ductile_ticks_to_sec(ductile_fn_ticks(i)); /* estimated under sampled timing */
        fns[i].bytes_sent = ductile_stat_load(&ductile_stats[i].bytes_sent);
        fns[i].bytes_recv = ductile_stat_load(&ductile_stats[i].bytes_recv);
    }
    /* sampled timing: a few timed calls of a rare, slow function can be multiplied past the run
     * itself (1 in 1000 timed, one slow MPI_Allreduce of ten).  A process whose MPI calls run one
     * at a time cannot spend more than its wall time in them: the estimated parts are scaled down
     * until the sum fits; the measured parts stay as measured (docs/report.md). */
    if (!ductile_threaded) {
        double measured = 0, estimated = 0;
        for (int i = 0; i < DUCTILE_FN_COUNT; i++) {
            double m = ductile_ticks_to_sec(ductile_stat_load(&ductile_stats[i].ticks));
            measured += m;
            estimated += fns[i].time_s > m ? fns[i].time_s - m : 0;
        }
        double f = ductile_sample_clamp(me->wall_s, measured, estimated);
        if (f < 1) {
            for (int i = 0; i < DUCTILE_FN_COUNT; i++) {
                double m = ductile_ticks_to_sec(ductile_stat_load(&ductile_stats[i].ticks));
                if (fns[i].time_s > m) fns[i].time_s = m + (fns[i].time_s - m) * f;
            }
        }
    }
}

/* Up to this many ranks the report lists each rank's functions ("ranks"):
 * DUCTILE_REPORT_RANKS (validated with the other settings at MPI_Init). */
static long report_ranks_max(void)
{
    const char *v = getenv("DUCTILE_REPORT_RANKS");
    return v && *v ? strtol(v, NULL, 10) : 256;
}

struct loc { double v; int rank; }; /* MPI_DOUBLE_INT */

/* Combine every rank's contribution on rank 0 of comm (collective). */
static int reduce_ranks(MPI_Comm comm, int rank, const struct report_reduced *mine, struct report_reduced *out)
{
    enum { N = DUCTILE_FN_COUNT };
    uint64_t *u = malloc(2 * 3 * N * sizeof *u);
    double *d = malloc(2 * 2 * N * sizeof *d);
    int ok = u && d;
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        free(u);
        free(d);
        return -1;
    }
    for (int i = 0; i < N; i++) {
        u[3 * i] = mine->fn_sum[i].calls;
        u[3 * i + 1] = mine->fn_sum[i].bytes_sent;
        u[3 * i + 2] = mine->fn_sum[i].bytes_recv;
        d[i] = mine->fn_sum[i].time_s;
        d[N + i] = mine->fn_tmax[i];
    }
    PMPI_Reduce(u, u + 3 * N, 3 * N, MPI_UINT64_T, MPI_SUM, 0, comm);
    PMPI_Reduce(d, d + 2 * N, N, MPI_DOUBLE, MPI_SUM, 0, comm);
    PMPI_Reduce(d + N, d + 3 * N, N, MPI_DOUBLE, MPI_MAX, 0, comm);
    const struct report_spread *sp[4] = {&mine->wall, &mine->mpi, &mine->compute, &mine->io};
    double sums[4], sums_out[4];
    struct loc mn[4], mx[4], mn_out[4], mx_out[4];
    for (int k = 0; k < 4; k++) {
        sums[k] = sp[k]->sum;
        mn[k] = (struct loc){sp[k]->min, sp[k]->min_rank};
        mx[k] = (struct loc){sp[k]->max, sp[k]->max_rank};
    }
    PMPI_Reduce(sums, sums_out, 4, MPI_DOUBLE, MPI_SUM, 0, comm);
    PMPI_Reduce(mn, mn_out, 4, MPI_DOUBLE_INT, MPI_MINLOC, 0, comm);
    PMPI_Reduce(mx, mx_out, 4, MPI_DOUBLE_INT, MPI_MAXLOC, 0, comm);
    if (rank == 0) {
        for (int i = 0; i < N; i++) {
            out->fn_sum[i].calls = u[3 * N + 3 * i];
            out->fn_sum[i].bytes_sent = u[3 * N + 3 * i + 1];
            out->fn_sum[i].bytes_recv = u[3 * N + 3 * i + 2];
            out->fn_sum[i].time_s = d[2 * N + i];
            out->fn_tmax[i] = d[3 * N + i];
        }
        struct report_spread *o[4] = {&out->wall, &out->mpi, &out->compute, &out->io};
        for (int k = 0; k < 4; k++)
            *o[k] = (struct report_spread){sums_out[k], mn_out[k].v, mx_out[k].v, mn_out[k].rank, mx_out[k].rank};
    }
    free(u);
    free(d);
    return 0;
}

void ductile_report_write(uint64_t t_end)
{
    MPI_Comm comm = ductile_rt.private_comm;
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);

    struct report_rank me;
    struct report_fn *mine = calloc(DUCTILE_FN_COUNT, sizeof *mine);
    struct report_reduced *red = calloc(2, sizeof *red); /* [0] this rank's part, [1] the result */
    int ok = mine && red, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        if (rank == 0) fprintf(stderr, "ductile: warning: out of memory, no report\n");
        free(mine);
        free(red);
        return;
    }
    ductile_report_snapshot(rank, t_end, &me, mine);
    report_reduce_one(mine, me.wall_s, rank, &red[0]);
    if (reduce_ranks(comm, rank, &red[0], &red[1]) != 0) {
        if (rank == 0) fprintf(stderr, "ductile: warning: out of memory, no report\n");
        free(mine);
        free(red);
        return;
    }
    /* the per-rank tables, for small jobs only */
    struct report_rank *ranks = NULL;
    struct report_fn *fns = NULL;
    int detail = size <= report_ranks_max();
    if (detail) {
        if (rank == 0) {
            ranks = calloc((size_t)size, sizeof *ranks);
            fns = calloc((size_t)size * DUCTILE_FN_COUNT, sizeof *fns);
        }
        ok = rank != 0 || (ranks && fns);
        PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
        if (ok) {
            PMPI_Gather(&me, (int)sizeof me, MPI_BYTE, ranks, (int)sizeof me, MPI_BYTE, 0, comm);
            PMPI_Gather(mine, (int)(DUCTILE_FN_COUNT * sizeof *mine), MPI_BYTE, fns,
                        (int)(DUCTILE_FN_COUNT * sizeof *mine), MPI_BYTE, 0, comm);
        } else {
            free(ranks);
            free(fns);
            ranks = NULL;
            fns = NULL;
        }
    }
    free(mine);
    /* sampled timing: the largest rate used and the calls whose time was estimated, over the ranks */
    uint64_t skipped = 0, skipped_all = 0, every = ductile_time_every_max(), every_all = 0;
    for (int i = 0; i < DUCTILE_FN_COUNT; i++) skipped += ductile_stat_load(&ductile_stats[i].skipped);
    PMPI_Reduce(&skipped, &skipped_all, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
    PMPI_Reduce(&every, &every_all, 1, MPI_UINT64_T, MPI_MAX, 0, comm);
    json_t *io = ductile_io_report(comm); /* collective; the "io" section on rank 0 (src/io/iomon.c) */
    if (rank != 0) {
        free(red);
        return;
    }

    /* command line */
    const char *argv_buf[256];
    int nargs = 0;
    for (int off = 0; ductile_rt.cmdline && off < ductile_rt.cmdline_len && nargs < 256;) {
        argv_buf[nargs++] = ductile_rt.cmdline + off;
        off += (int)strlen(ductile_rt.cmdline + off) + 1;
    }
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int liblen = 0;
    PMPI_Get_library_version(lib, &liblen);
    char *nl = strchr(lib, '\n');
    if (nl) *nl = '\0';
    int ver = 0, sub = 0;
    PMPI_Get_version(&ver, &sub);

    const iterdetect *d = ductile_iteration_detector();
    iterdetect_stats st;
    iterdetect_get_stats(d, &st);
    static double recent[ITERDETECT_TIMES];
    char head[256];
    ductile_iteration_head_name(head, sizeof head);
    iterdetect_state s = ductile_rt.settings.iter_detect ? iterdetect_get_state(d) : ITERDETECT_OFF;
    size_t nrecent = s == ITERDETECT_LOCKED ? iterdetect_recent_times(d, recent, ITERDETECT_TIMES) : 0;
    /* in seconds of the calibration refined over the run, like wall_time_s (iteration.h) */
    double k = ductile_iteration_time_scale();
    st.total *= k, st.mean *= k, st.min *= k, st.max *= k;
    for (size_t i = 0; i < nrecent; i++) recent[i] *= k;
    struct report_iter it = {
        .detected = s == ITERDETECT_LOCKED,
        .state = state_name(s),
        .head = head,
        .period_calls = s == ITERDETECT_LOCKED ? iterdetect_period(d) : 0,
        .count = s == ITERDETECT_LOCKED ? iterdetect_iterations(d) : 0,
        .total_s = st.total, .mean_s = st.mean, .min_s = st.min, .max_s = st.max,
        .recent_s = recent,
        .nrecent = nrecent,
    };
    if (s == ITERDETECT_LOCKED) it.ntimeline = iterdetect_timeline(d, &it.timeline, &it.timeline_width);
    if (!it.detected) it.total_s = it.mean_s = it.min_s = it.max_s = 0;

    const char *names[64], *values[64];
    int nset = 0;
    for (const struct setting_def *def = ductile_setting_defs; def->name && nset < 64; def++) {
        const char *v = getenv(def->name);
        names[nset] = def->name;
        values[nset++] = v ? v : def->default_value;
    }
    struct report_input in = {
        .job = ductile_rt.job_id, .mpi_family = DUCTILE_MPI_FAMILY, .mpi_library = lib,
        .mpi_version = ver, .mpi_subversion = sub, .command = argv_buf, .ncommand = nargs,
        .start_epoch = ductile_rt.start_epoch, .nprocs = size, .ranks = ranks, .fns = fns, .reduced = &red[1], .iter = it,
        .setting_names = names, .setting_values = values, .nsettings = nset,
    };
    /* the engine's section (src/malleable, through the hook table) */
    in.reconfigs = ductile_hooks.reconfig_history ? ductile_hooks.reconfig_history(&in.nreconfigs) : NULL;
    in.departed = ductile_hooks.departed ? ductile_hooks.departed(&in.ndeparted, &in.departed_fns, &in.departed_sum)
                                         : NULL;
    in.io = io;
    in.time_sample_every = (uint32_t)every_all;
    in.time_estimated_calls = skipped_all;
    char path[4096] = "";
    if (ductile_rt.settings.report && *ductile_rt.settings.report) {
        if (settings_expand_path(ductile_rt.settings.report, ductile_rt.job_id, ductile_rt.job_pid, path,
                                 sizeof path) != 0) {
            fprintf(stderr, "ductile: warning: DUCTILE_REPORT path too long, no report written\n");
            path[0] = '\0';
        } else {
            json_t *j = report_build_json(&in);
            if (json_dump_file(j, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0) {
                fprintf(stderr, "ductile: warning: cannot write report %s\n", path);
                path[0] = '\0';
            }
            json_decref(j);
        }
    }
    if (ductile_rt.settings.summary) report_print_summary(stderr, &in, path);
    free(ranks);
    free(fns);
    free(red);
    json_decref(io);
}

/* MPI_Finalize (src/wrap/runtime.c) writes the report through the hook table. */
DUCTILE_REGISTER(report_register) { h->report_write = ductile_report_write; }
