/* ductilectl_fmt.c -- ductilectl's human output: the job list (its
 * columns chosen by --format), a job's status, events and history, and the
 * one-line timeline of `watch`.  Strings from jobs are printed without
 * control characters (safe()). */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ductilectl.h"
#include "ductilectl_fold.h"

/* Strings from jobs (program names, tags, reasons) are printed without
 * control characters: a name cannot move the cursor or rewrite the screen. */
const char *safe(const char *in)
{
    static char bufs[4][600];
    static int k;
    char *b = bufs[k++ & 3];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)(in ? in : ""); *p && n + 1 < sizeof bufs[0]; p++)
        b[n++] = (*p < 32 || *p == 127) ? '?' : (char)*p;
    b[n] = '\0';
    return b;
}

static void list_cell(FILE *o, const char *col, json_t *j, int header)
{
    char tbuf[32] = "-", ubuf[32] = "-";
    if (!strcmp(col, "job")) header ? fprintf(o, "%-4s", "JOB") : fprintf(o, "%-4lld", proto_get_int(j, "job", 0));
    else if (!strcmp(col, "state")) header ? fprintf(o, "%-12s", "STATE") : fprintf(o, "%-12s", safe(proto_get_str(j, "state", "?")));
    else if (!strcmp(col, "procs")) header ? fprintf(o, "%5s", "PROCS") : fprintf(o, "%5lld", proto_get_int(j, "procs", 0));
    else if (!strcmp(col, "pending")) header ? fprintf(o, "%7s", "PENDING") : fprintf(o, "%7lld", proto_get_int(j, "pending", 0));
    else if (!strcmp(col, "iteration")) header ? fprintf(o, "%10s", "ITERATION") : fprintf(o, "%10lld", proto_get_int(j, "iteration", 0));
    else if (!strcmp(col, "iter_s")) header ? fprintf(o, "%9s", "ITER_S") : fprintf(o, "%9.4f", proto_get_num(j, "iteration_s", 0));
    else if (!strcmp(col, "timing")) { /* exact: every call timed; 1/N: the job's times estimated from 1 call in N */
        long long n = proto_get_int(j, "time_sample", 1);
        if (!header && n > 1) snprintf(tbuf, sizeof tbuf, "1/%lld", n);
        fprintf(o, "%-9s", header ? "TIMING" : n > 1 ? tbuf : "exact");
    } else if (!strcmp(col, "user")) {
        if (!header && json_is_integer(json_object_get(j, "uid"))) {
            /* the last uid's name is kept: 2,000 jobs of a few users read the user database a few times */
            static long long last_uid = -1;
            static char last_name[32];
            long long uid = proto_get_int(j, "uid", -1);
            if (uid != last_uid) {
                struct passwd *pw = getpwuid((uid_t)uid);
                snprintf(last_name, sizeof last_name, "%s", pw ? pw->pw_name : "");
                if (!pw) snprintf(last_name, sizeof last_name, "%lld", uid);
                last_uid = uid;
            }
            snprintf(ubuf, sizeof ubuf, "%s", last_name);
        }
        fprintf(o, "%-10s", header ? "USER" : safe(ubuf));
    } else if (!strcmp(col, "start")) {
        double st = proto_get_num(j, "start", 0);
        if (!header && st > 0) {
            time_t tt = (time_t)st;
            strftime(tbuf, sizeof tbuf, "%m-%d %H:%M:%S", localtime(&tt));
        }
        fprintf(o, "%-14s", header ? "START" : tbuf);
    } else if (!strcmp(col, "tag")) header ? fprintf(o, "%-10s", "TAG") : fprintf(o, "%-10s", safe(proto_get_str(j, "tag", "")));
    else if (!strcmp(col, "binary")) fprintf(o, "%s", header ? "BINARY" : safe(proto_get_str(j, "binary", "")));
}

int valid_format(const char *f)
{
    static const char *const cols[] = {"job", "state", "procs", "pending", "iteration", "iter_s", "timing", "user", "start", "tag", "binary"};
    char copy[256], *save = NULL;
    if (strlen(f) >= sizeof copy || f[0] == ',' || strstr(f, ",,") || (f[0] && f[strlen(f) - 1] == ','))
        return 0; /* an empty column ("job,,state") is a typo, not a column */
    snprintf(copy, sizeof copy, "%s", f);
    int n = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
        int ok = 0;
        for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) ok |= !strcmp(cols[i], t);
        if (!ok) return 0;
    }
    return n > 0;
}

static void list_row(json_t *j, int header)
{
    char copy[256], *save = NULL;
    snprintf(copy, sizeof copy, "%s", list_format);
    int first = 1;
    char *line = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&line, &len);
    if (!o) return;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save), first = 0) {
        if (!first) fputc(' ', o);
        list_cell(o, t, j, header);
    }
    fclose(o);
    while (len > 0 && line[len - 1] == ' ') line[--len] = '\0'; /* no padding after the last column (scripts) */
    printf("%s\n", line);
    free(line);
}

void print_list(json_t *res)
{
    json_t *jobs = json_object_get(res, "jobs");
    if (!noheader) list_row(NULL, 1);
    size_t i;
    json_t *j;
    json_array_foreach(jobs, i, j) list_row(j, 0);
    if (noheader) return;
    if (json_array_size(jobs) == 0) printf("(no jobs)\n");
    json_t *sl = json_object_get(res, "slots");
    if (sl) printf("slots: %lld free of %lld%s\n", proto_get_int(sl, "free", 0), proto_get_int(sl, "total", 0),
                   json_is_true(json_object_get(res, "draining")) ? "; draining (no new jobs)" : "");
}

void print_events(json_t *ev, size_t last)
{
    size_t n = json_array_size(ev);
    for (size_t i = n > last ? n - last : 0; i < n; i++) {
        json_t *e = json_array_get(ev, i);
        time_t tt = (time_t)proto_get_num(e, "t", 0);
        char ts[32];
        strftime(ts, sizeof ts, "%H:%M:%S", localtime(&tt));
        json_t *d = json_deep_copy(e);
        json_object_del(d, "t");
        json_object_del(d, "kind");
        char *txt = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
        printf("  %s %-12s %s\n", ts, safe(proto_get_str(e, "kind", "?")), safe(txt ? txt : ""));
        free(txt);
        json_decref(d);
    }
}

void print_history(json_t *hist)
{
    printf("%10s %5s %7s %9s %9s %9s %9s %12s %s\n", "ITERATION", "PROCS", "ITERS", "ITER_S", "COMPUTE_S", "COMM_S",
           "IO_S", "BYTES", "");
    size_t i;
    json_t *s;
    json_array_foreach(hist, i, s) {
        long long k = proto_get_int(s, "iters", 0);
        double iv = proto_get_num(s, "interval_s", 0);
        printf("%10lld %5lld %7lld %9.4f %9.3f %9.3f %9.3f %12lld %s\n", proto_get_int(s, "iteration", 0),
               proto_get_int(s, "procs", 0), k, k > 0 ? iv / (double)k : 0.0, proto_get_num(s, "compute_s", 0),
               proto_get_num(s, "comm_s", 0), proto_get_num(s, "io_s", 0), proto_get_int(s, "bytes", 0),
               proto_get_num(s, "io_s", 0) > 0 ? "I/O phase" : "");
    }
}

void print_status(json_t *r)
{
    printf("job %lld: %s, %lld processes (%lld pending), iteration %lld\n", proto_get_int(r, "job", 0),
           proto_get_str(r, "state", "?"), proto_get_int(r, "procs", 0), proto_get_int(r, "pending", 0),
           proto_get_int(r, "iteration", 0));
    if (proto_get_int(r, "parked", 0) || proto_get_int(r, "exited", 0))
        printf("  removed processes: %lld parked (holding their slots until the job ends), %lld exited\n",
               proto_get_int(r, "parked", 0), proto_get_int(r, "exited", 0));
    printf("  binary %s, tag %s, pid %lld, MPI %s, malleable %s, I/O %s\n", safe(proto_get_str(r, "binary", "")),
           safe(proto_get_str(r, "tag", "")), proto_get_int(r, "pid", 0), safe(proto_get_str(r, "mpi", "?")),
           json_is_true(json_object_get(r, "malleable")) ? "yes" : "no",
           json_is_true(json_object_get(r, "io_held")) ? "held" : "free");
    if (proto_get_int(r, "time_sample", 1) > 1)
        printf("  times ESTIMATED: 1 call in %lld timed (DUCTILE_TIME_SAMPLE); compute and communication times are "
               "estimates, calls and bytes exact\n", proto_get_int(r, "time_sample", 1));
    printf("  slots:");
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(r, "slots"), k, v) printf(" %s=%lld", k, json_integer_value(v));
    printf("\n");
    ductilectl_fold_status(r);
    json_t *iop = json_object_get(r, "io_period");
    if (proto_get_int(iop, "periods", 0) > 0)
        printf("  I/O period (Eq. 1): %.3f s = cpu %.3f + comm %.3f + I/O %.3f; %lld phases\n",
               proto_get_num(iop, "last_period_s", 0), proto_get_num(iop, "t_cpu_s", 0), proto_get_num(iop, "t_comm_s", 0),
               proto_get_num(iop, "t_io_s", 0), proto_get_int(iop, "phases", 0));
    else
        printf("  I/O phases seen: %lld\n", proto_get_int(iop, "phases", 0));
    json_t *q = json_object_get(r, "queued");
    if (json_array_size(q)) {
        printf("  queued commands (ductilectl cancel %lld ID):\n", proto_get_int(r, "job", 0));
        size_t i;
        json_t *e;
        json_array_foreach(q, i, e) {
            long long at = proto_get_int(e, "at_iteration", -1);
            const char *op = proto_get_str(e, "op", "?");
            printf("    %3lld %-7s %s%lld %s", proto_get_int(e, "id", 0), safe(op), !strcmp(op, "resize") ? "to " : "",
                   proto_get_int(e, !strcmp(op, "resize") ? "to" : "n", 0), at >= 0 ? "at iteration" : "at the next control point");
            if (at >= 0) printf(" %lld", at);
            if (proto_get_int(e, "reserved", 0) > 0) printf(", %lld slot(s) reserved", proto_get_int(e, "reserved", 0));
            printf("\n");
        }
    }
    print_history(json_object_get(r, "history"));
    json_t *ev = json_object_get(r, "events");
    if (json_array_size(ev)) {
        printf("  recent events (resizes, commands, I/O plans):\n");
        print_events(ev, 10);
    }
}

/* The whole run in one line (ductilectl watch JOB): the history (older
 * samples merged by ductiled) in `width` columns; a column's height is its
 * mean iteration time, the line below marks resizes (R: the size changed)
 * and I/O phases (I), the same view as tools/plot-timeline. */
void print_timeline(json_t *hist, int width)
{
    size_t n = json_array_size(hist);
    if (n < 2) return;
    static const char *const lv[] = {"_", ".", "-", "~", "=", "*", "#", "@"};
    double v[200] = {0}, mx = 0;
    char mark[201];
    int cols = n < (size_t)width ? (int)n : width;
    if (cols > 200) cols = 200;
    if (cols < 1) return;
    for (int c = 0; c < cols; c++) {
        size_t a = (size_t)c * n / (size_t)cols, b = (size_t)(c + 1) * n / (size_t)cols;
        double iv = 0, it = 0;
        mark[c] = ' ';
        for (size_t k = a; k < b; k++) {
            json_t *x = json_array_get(hist, k);
            iv += proto_get_num(x, "interval_s", 0) - proto_get_num(x, "io_s", 0);
            it += (double)proto_get_int(x, "iters", 0);
            if (proto_get_num(x, "io_s", 0) > 0 && mark[c] == ' ') mark[c] = 'I';
            if (k > 0 && proto_get_int(x, "procs", 0) != proto_get_int(json_array_get(hist, k - 1), "procs", 0)) mark[c] = 'R';
        }
        v[c] = it > 0 ? iv / it : 0;
        if (!(v[c] > 0)) v[c] = 0; /* a sample whose I/O time exceeds its interval, or NaN from the daemon */
        if (v[c] > mx) mx = v[c];
    }
    mark[cols] = '\0';
    printf("  whole run, iteration time (max %.4f s), iterations %lld..%lld:\n  ", mx,
           proto_get_int(json_array_get(hist, 0), "iteration", 0), proto_get_int(json_array_get(hist, n - 1), "iteration", 0));
    for (int c = 0; c < cols; c++) {
        double r = mx > 0 ? v[c] / mx : 0;
        fputs(lv[r >= 1 ? 7 : r > 0 ? (int)(r * 7.999) : 0], stdout);
    }
    printf("\n  %s\n  (R: resize, I: I/O phase)\n", mark);
}
