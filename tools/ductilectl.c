/* ductilectl.c -- command-line client of ductiled: list jobs, show and watch
 * their monitoring, expand / shrink / resize them, hold or release their
 * I/O, estimate the cost of a resize.  Human output by default, --json for
 * scripts; exit codes are documented in --help and docs/controller.md. */
#include "config.h"

#include <getopt.h>
#include <pwd.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/proto/protocol.h"
#include "../src/proto/session.h"
#include "ductilectl_fold.h"

enum { EX_OK = 0, EX_REFUSED = 1, EX_USAGE = 2, EX_CONNECT = 3, EX_AUTH = 4, EX_NOJOB = 5 };

static const char *address, *secret_path;
static int json_out, timeout_ms = 15000, noheader;
static const char *list_format = "job,state,procs,pending,iteration,iter_s,user,start,tag,binary";

/* Strings from jobs (program names, tags, reasons) are printed without
 * control characters: a name cannot move the cursor or rewrite the screen. */
static const char *safe(const char *in)
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

struct subcmd {
    const char *name, *args, *help;
};
static const struct subcmd subcmds[] = {
    {"list", "", "List the jobs ductiled knows and its slots."},
    {"status", "JOB [--history N]", "Show a job: size, iteration, hosts, slots, I/O period, recent monitoring samples."},
    {"watch", "[JOB] [--interval S] [--count N]", "Live table of one job's monitoring (or of all jobs), refreshed every S seconds (default 1) until interrupted or N refreshes."},
    {"expand", "JOB N [--at-iteration I] [--hosts H1,H2,...]", "Add N processes at the job's next control point (or at iteration I). The resource manager must grant N free slots; --hosts places the new processes (one host name per process)."},
    {"shrink", "JOB N [--at-iteration I] [--ranks R1,R2,...]", "Remove N processes at the next control point (or at iteration I); --ranks chooses which ranks leave."},
    {"resize", "JOB N [--at-iteration I]", "Resize the job to N processes (expansion or shrink)."},
    {"io", "hold|release JOB", "Hold the job's next I/O phase (it waits at ductile_io_gate) or release it."},
    {"period", "JOB SECONDS", "Set the job's monitoring period (seconds between samples)."},
    {"cost", "JOB --to N", "Dry-run estimate of resizing JOB to N processes: bytes to move (redistribution plan over the registered arrays), transfer time from the measured bandwidth, spawn time, and whether slots are free."},
    {"slots", "", "Show the resource manager's hosts and slots."},
    DUCTILECTL_FOLD_SUBCMDS
    {"events", "JOB [--since EPOCH]", "Show a job's events: registration, resizes, commands, I/O phases and I/O plans, I/O token revocations, exit."},
    {"drain", "[on|off]", "Stop (on, the default) or resume (off) taking new jobs; running jobs go on."},
    {"shutdown", "", "Save the state and stop ductiled (Unix socket only); jobs re-register with the next ductiled."},
    {NULL, NULL, NULL},
};

static void usage(FILE *f)
{
    fprintf(f, "Usage: ductilectl [GLOBAL OPTIONS] COMMAND [ARGS...]\n\n"
               "Talk to ductiled, Ductile's central controller.\n\nCommands:\n");
    for (const struct subcmd *s = subcmds; s->name; s++) fprintf(f, "  %-8s %s\n", s->name, s->args);
    fprintf(f, "\nGlobal options:\n"
               "  -c, --connect ADDR  ductiled address: unix:PATH or tcp:HOST:PORT (default: $DUCTILE_CONTROLLER,\n"
               "                      else the per-user socket $XDG_RUNTIME_DIR/ductile/ductiled.sock or\n"
               "                      /tmp/ductile-UID/ductiled.sock)\n"
               "  -k, --secret FILE   shared secret for TCP (default: $DUCTILE_CONTROLLER_SECRET)\n"
               "  -j, --json          print the daemon's JSON answer\n"
               "  -t, --timeout S     seconds to wait for an answer (default 15)\n"
               "      --noheader      list: no header line (for scripts)\n"
               "      --format COLS   list: comma-separated columns out of job,state,procs,pending,\n"
               "                      iteration,iter_s,user,start,tag,binary (default: all)\n"
               "  -V, --version       print the version of ductilectl and of the daemon it reaches\n"
               "  -h, --help          this help; 'ductilectl COMMAND --help' describes a command\n"
               "\nExit status: 0 success, 1 the daemon or the job refused the command (the reason is\n"
               "printed), 2 usage error, 3 ductiled unreachable or the connection was lost,\n"
               "4 authentication failed, 5 no such job.\n");
}

static int sub_help(const char *name, FILE *f)
{
    for (const struct subcmd *s = subcmds; s->name; s++)
        if (!strcmp(s->name, name)) {
            fprintf(f, "Usage: ductilectl %s %s\n\n%s\n", s->name, s->args, s->help);
            return 1;
        }
    return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int connect_or_die(struct session *s)
{
    char err[512];
    int authfail = 0;
    if (session_open(s, address, secret_path, timeout_ms < 5000 ? timeout_ms : 5000, &authfail, err, sizeof err) != 0) {
        fprintf(stderr, "ductilectl: %s\n", err);
        if (!authfail && (!address || !*address))
            fprintf(stderr, "ductilectl: is ductiled running? (start it with 'ductiled --slots N &')\n");
        return authfail ? EX_AUTH : EX_CONNECT;
    }
    return 0;
}

/* One call; prints errors; returns an exit code and *res on success. */
static int call(struct session *s, const char *cmd, json_t *args, json_t **res)
{
    char code[64], reason[600];
    int r = session_call(s, cmd, args, timeout_ms, res, code, sizeof code, reason, sizeof reason);
    if (r == 1) return EX_OK;
    if (r < 0) {
        fprintf(stderr, "ductilectl: %s: %s\n", cmd, reason);
        return EX_CONNECT;
    }
    if (json_out) {
        json_t *e = json_pack("{s:b, s:s, s:s}", "ok", 0, "error", code, "reason", reason);
        json_dumpf(e, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(e);
    }
    fprintf(stderr, "ductilectl: %s refused: %s\n", cmd, safe(reason));
    if (!strcmp(code, PERR_UNKNOWN_JOB)) return EX_NOJOB;
    if (!strcmp(code, PERR_AUTH_FAILED) || !strcmp(code, PERR_AUTH_REQUIRED)) return EX_AUTH;
    return EX_REFUSED;
}

static void print_json(json_t *o)
{
    json_dumpf(o, stdout, JSON_INDENT(2));
    putchar('\n');
}

static void list_cell(const char *col, json_t *j, int header)
{
    char tbuf[32] = "-", ubuf[32] = "-";
    if (!strcmp(col, "job")) header ? printf("%-4s", "JOB") : printf("%-4lld", proto_get_int(j, "job", 0));
    else if (!strcmp(col, "state")) header ? printf("%-12s", "STATE") : printf("%-12s", safe(proto_get_str(j, "state", "?")));
    else if (!strcmp(col, "procs")) header ? printf("%5s", "PROCS") : printf("%5lld", proto_get_int(j, "procs", 0));
    else if (!strcmp(col, "pending")) header ? printf("%7s", "PENDING") : printf("%7lld", proto_get_int(j, "pending", 0));
    else if (!strcmp(col, "iteration")) header ? printf("%10s", "ITERATION") : printf("%10lld", proto_get_int(j, "iteration", 0));
    else if (!strcmp(col, "iter_s")) header ? printf("%9s", "ITER_S") : printf("%9.4f", proto_get_num(j, "iteration_s", 0));
    else if (!strcmp(col, "user")) {
        if (!header && json_is_integer(json_object_get(j, "uid"))) {
            long long uid = proto_get_int(j, "uid", -1);
            struct passwd *pw = getpwuid((uid_t)uid);
            snprintf(ubuf, sizeof ubuf, "%s", pw ? pw->pw_name : "");
            if (!pw) snprintf(ubuf, sizeof ubuf, "%lld", uid);
        }
        printf("%-10s", header ? "USER" : safe(ubuf));
    } else if (!strcmp(col, "start")) {
        double st = proto_get_num(j, "start", 0);
        if (!header && st > 0) {
            time_t tt = (time_t)st;
            strftime(tbuf, sizeof tbuf, "%m-%d %H:%M:%S", localtime(&tt));
        }
        printf("%-14s", header ? "START" : tbuf);
    } else if (!strcmp(col, "tag")) header ? printf("%-10s", "TAG") : printf("%-10s", safe(proto_get_str(j, "tag", "")));
    else if (!strcmp(col, "binary")) printf("%s", header ? "BINARY" : safe(proto_get_str(j, "binary", "")));
}

static int valid_format(const char *f)
{
    static const char *const cols[] = {"job", "state", "procs", "pending", "iteration", "iter_s", "user", "start", "tag", "binary"};
    char copy[256], *save = NULL;
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
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save), first = 0) {
        if (!first) putchar(' ');
        list_cell(t, j, header);
    }
    putchar('\n');
}

static void print_list(json_t *res)
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

static void print_events(json_t *ev, size_t last)
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

static void print_history(json_t *hist)
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

static void print_status(json_t *r)
{
    printf("job %lld: %s, %lld processes (%lld pending), iteration %lld\n", proto_get_int(r, "job", 0),
           proto_get_str(r, "state", "?"), proto_get_int(r, "procs", 0), proto_get_int(r, "pending", 0),
           proto_get_int(r, "iteration", 0));
    printf("  binary %s, tag %s, pid %lld, MPI %s, malleable %s, I/O %s\n", safe(proto_get_str(r, "binary", "")),
           safe(proto_get_str(r, "tag", "")), proto_get_int(r, "pid", 0), safe(proto_get_str(r, "mpi", "?")),
           json_is_true(json_object_get(r, "malleable")) ? "yes" : "no",
           json_is_true(json_object_get(r, "io_held")) ? "held" : "free");
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
static void print_timeline(json_t *hist, int width)
{
    size_t n = json_array_size(hist);
    if (n < 2) return;
    static const char *const lv[] = {"_", ".", "-", "~", "=", "*", "#", "@"};
    double v[200] = {0}, mx = 0;
    char mark[201];
    int cols = n < (size_t)width ? (int)n : width;
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
        if (v[c] > mx) mx = v[c];
    }
    mark[cols] = '\0';
    printf("  whole run, iteration time (max %.4f s), iterations %lld..%lld:\n  ", mx,
           proto_get_int(json_array_get(hist, 0), "iteration", 0), proto_get_int(json_array_get(hist, n - 1), "iteration", 0));
    for (int c = 0; c < cols; c++) fputs(mx > 0 ? lv[(int)(v[c] / mx * 7.999)] : "_", stdout);
    printf("\n  %s\n  (R: resize, I: I/O phase)\n", mark);
}

static volatile sig_atomic_t interrupted;
static void on_int(int s)
{
    (void)s;
    interrupted = 1;
}

static int do_watch(struct session *s, long job, double interval, long count)
{
    signal(SIGINT, on_int);
    int tty = isatty(1);
    for (long n = 0; !interrupted && (count <= 0 || n < count); n++) {
        json_t *res = NULL, *args = job > 0 ? json_pack("{s:I, s:i}", "job", (json_int_t)job, "history", 4096) : NULL;
        int rc = call(s, job > 0 ? "status" : "list", args, &res);
        json_decref(args);
        if (rc == EX_CONNECT) {
            /* the daemon went away (restart): reconnect, bounded, then go on */
            session_close(s);
            int back = 0;
            for (int k = 0; k < 60 && !interrupted && !back; k++) {
                struct timespec d = {0, 500000000L};
                nanosleep(&d, NULL);
                char err[512];
                int af = 0;
                back = session_open(s, address, secret_path, 2000, &af, err, sizeof err) == 0;
            }
            if (!back) {
                fprintf(stderr, "ductilectl watch: ductiled did not come back within 30 s\n");
                return EX_CONNECT;
            }
            fprintf(stderr, "ductilectl watch: reconnected\n");
            n--;
            continue;
        }
        if (rc) return rc;
        if (tty) printf("\033[H\033[2J");
        time_t now = time(NULL);
        char ts[32];
        strftime(ts, sizeof ts, "%H:%M:%S", localtime(&now));
        if (json_out) {
            json_dumpf(res, stdout, JSON_COMPACT);
            putchar('\n');
        } else {
            printf("ductilectl watch %s -- every %.1f s -- %s\n\n", job > 0 ? "" : "(all jobs)", interval, ts);
            if (job > 0) {
                /* the table shows the last samples, the timeline the whole run */
                json_t *h = json_object_get(res, "history");
                json_t *all = json_copy(h); /* shallow: the samples are shared */
                while (json_array_size(h) > 15) json_array_remove(h, 0);
                print_status(res);
                print_timeline(all, 72);
                json_decref(all);
            } else {
                print_list(res);
            }
            if (!tty) printf("\n");
        }
        fflush(stdout);
        json_decref(res);
        if (count > 0 && n + 1 >= count) break;
        struct timespec d = {(time_t)interval, (long)((interval - floor(interval)) * 1e9)};
        nanosleep(&d, NULL);
    }
    return EX_OK;
}

int main(int argc, char **argv)
{
    address = getenv("DUCTILE_CONTROLLER");
    secret_path = getenv("DUCTILE_CONTROLLER_SECRET");
    if (address && (!strcmp(address, "off") || !strcmp(address, "auto"))) address = NULL;
    static const struct option gopts[] = {{"connect", required_argument, 0, 'c'}, {"secret", required_argument, 0, 'k'},
                                          {"json", no_argument, 0, 'j'},          {"timeout", required_argument, 0, 't'},
                                          {"help", no_argument, 0, 'h'},          {"version", no_argument, 0, 'V'},
                                          {"noheader", no_argument, 0, 'N'},      {"format", required_argument, 0, 'F'},
                                          {0, 0, 0, 0}};
    int o, want_version = 0;
    while ((o = getopt_long(argc, argv, "+c:k:jt:hV", gopts, NULL)) != -1) {
        switch (o) {
        case 'c': address = optarg; break;
        case 'k': secret_path = optarg; break;
        case 'j': json_out = 1; break;
        case 't': {
            long v;
            if (parse_int(optarg, 1, 3600, &v)) {
                fprintf(stderr, "ductilectl: --timeout wants seconds from 1 to 3600\n");
                return EX_USAGE;
            }
            timeout_ms = (int)v * 1000;
            break;
        }
        case 'h': usage(stdout); return 0;
        case 'V': want_version = 1; break;
        case 'N': noheader = 1; break;
        case 'F':
            if (!valid_format(optarg)) {
                fprintf(stderr, "ductilectl: --format wants columns out of job,state,procs,pending,iteration,iter_s,user,"
                        "start,tag,binary, not '%s'\n", optarg);
                return EX_USAGE;
            }
            list_format = optarg;
            break;
        default: usage(stderr); return EX_USAGE;
        }
    }
    if (want_version) {
        printf("ductilectl (Ductile) %s, protocol %d\n", PACKAGE_VERSION, PROTO_VERSION);
        struct session vs;
        char err[512];
        int af = 0;
        if (session_open(&vs, address, secret_path, 2000, &af, err, sizeof err) == 0) {
            printf("ductiled %s\n", safe(vs.server_version));
            session_close(&vs);
        } else {
            printf("ductiled: not reachable (%s)\n", safe(err));
        }
        return 0;
    }
    if (optind >= argc) {
        usage(stderr);
        return EX_USAGE;
    }
    const char *cmd = argv[optind];
    int sargc = argc - optind;
    char **sargv = argv + optind;
    int known = 0;
    for (const struct subcmd *s = subcmds; s->name; s++) known |= !strcmp(s->name, cmd);
    if (!known) {
        fprintf(stderr, "ductilectl: unknown command '%s' (see ductilectl --help)\n", cmd);
        return EX_USAGE;
    }
    /* subcommand options */
    static const struct option sopts[] = {{"history", required_argument, 0, 'H'}, {"interval", required_argument, 0, 'i'},
                                          {"count", required_argument, 0, 'n'},   {"at-iteration", required_argument, 0, 'a'},
                                          {"hosts", required_argument, 0, 'o'},   {"ranks", required_argument, 0, 'r'},
                                          {"to", required_argument, 0, 'T'},      {"json", no_argument, 0, 'j'},
                                          {"help", no_argument, 0, 'h'},          {"since", required_argument, 0, 'S'},
                                          {0, 0, 0, 0}};
    double since = 0;
    long history = 20, count = 0, at = -1, to = -1;
    double interval = 1.0;
    const char *hosts = NULL, *ranks = NULL;
    optind = 0; /* glibc: full re-initialisation, so that options may follow the arguments */
    while ((o = getopt_long(sargc, sargv, "jh", sopts, NULL)) != -1) {
        long v;
        switch (o) {
        case 'H': if (parse_int(optarg, 0, 4096, &history)) goto badopt; break;
        case 'n': if (parse_int(optarg, 1, 1000000000, &count)) goto badopt; break;
        case 'a': if (parse_int(optarg, 0, 2000000000000000000L, &at)) goto badopt; break;
        case 'T': if (parse_int(optarg, 1, PROTO_MAX_PROCS, &to)) goto badopt; break;
        case 'i': {
            char *end;
            interval = strtod(optarg, &end);
            if (*end || !(interval >= 0.05 && interval <= 3600)) goto badopt;
            break;
        }
        case 'S': {
            char *end;
            since = strtod(optarg, &end);
            if (*end || !(since >= 0 && since < 1e12)) goto badopt;
            break;
        }
        case 'o': hosts = optarg; break;
        case 'r': ranks = optarg; break;
        case 'j': json_out = 1; break;
        case 'h': sub_help(cmd, stdout); return 0;
        default: sub_help(cmd, stderr); return EX_USAGE;
        }
        (void)v;
        continue;
    badopt:
        fprintf(stderr, "ductilectl %s: bad value '%s' for an option (see ductilectl %s --help)\n", cmd, optarg, cmd);
        return EX_USAGE;
    }
    char **pos = sargv + optind;
    int npos = sargc - optind;
    json_t *args = json_object();
    const char *wire = cmd;
    long job = -1, n = -1;
#define NEED(k) do { if (npos != (k)) { fprintf(stderr, "ductilectl %s: expected %d argument(s), got %d\n", cmd, (k), npos); sub_help(cmd, stderr); json_decref(args); return EX_USAGE; } } while (0)
#define JOBARG(s) do { if (parse_int((s), 1, 2147483647L, &job)) { fprintf(stderr, "ductilectl %s: '%s' is not a job number (see ductilectl list)\n", cmd, (s)); json_decref(args); return EX_USAGE; } json_object_set_new(args, "job", json_integer(job)); } while (0)
    if (!strcmp(cmd, "list") || !strcmp(cmd, "slots") || !strcmp(cmd, "shutdown")) {
        NEED(0);
    } else if (!strcmp(cmd, "events")) {
        NEED(1);
        JOBARG(pos[0]);
        if (since > 0) json_object_set_new(args, "since", json_real(since));
    } else if (!strcmp(cmd, "drain")) {
        if (npos > 1) NEED(1);
        if (npos == 1 && strcmp(pos[0], "on") && strcmp(pos[0], "off")) {
            fprintf(stderr, "ductilectl drain: expected 'on' or 'off', not '%s'\n", pos[0]);
            json_decref(args);
            return EX_USAGE;
        }
        json_object_set_new(args, "on", json_boolean(npos == 0 || !strcmp(pos[0], "on")));
    } else if (!strcmp(cmd, "status")) {
        NEED(1);
        JOBARG(pos[0]);
        json_object_set_new(args, "history", json_integer(history));
    } else if (!strcmp(cmd, "watch")) {
        if (npos > 1) NEED(1);
        if (npos == 1) JOBARG(pos[0]);
    } else if (!strcmp(cmd, "expand") || !strcmp(cmd, "shrink") || !strcmp(cmd, "resize")) {
        NEED(2);
        JOBARG(pos[0]);
        if (parse_int(pos[1], 1, PROTO_MAX_PROCS, &n)) {
            fprintf(stderr, "ductilectl %s: '%s' is not a process count from 1 to %d\n", cmd, pos[1], PROTO_MAX_PROCS);
            json_decref(args);
            return EX_USAGE;
        }
        json_object_set_new(args, !strcmp(cmd, "resize") ? "to" : "n", json_integer(n));
        if (at >= 0) json_object_set_new(args, "at_iteration", json_integer(at));
        if (hosts) {
            json_t *h = json_array();
            char *copy = strdup(hosts), *save = NULL;
            for (char *t = strtok_r(copy, ",;", &save); t; t = strtok_r(NULL, ",;", &save)) {
                if (!proto_valid_hostname(t)) {
                    fprintf(stderr, "ductilectl %s: '%s' is not a valid host name (letters, digits, '-', '.')\n", cmd, t);
                    free(copy);
                    json_decref(h);
                    json_decref(args);
                    return EX_USAGE;
                }
                json_array_append_new(h, json_string(t));
            }
            free(copy);
            json_object_set_new(args, "hosts", h);
        }
        if (ranks) {
            json_t *rk = json_array();
            char *copy = strdup(ranks), *save = NULL;
            for (char *t = strtok_r(copy, ",;", &save); t; t = strtok_r(NULL, ",;", &save)) {
                long r;
                if (parse_int(t, 0, PROTO_MAX_PROCS - 1, &r)) {
                    fprintf(stderr, "ductilectl %s: '%s' is not a rank\n", cmd, t);
                    free(copy);
                    json_decref(rk);
                    json_decref(args);
                    return EX_USAGE;
                }
                json_array_append_new(rk, json_integer(r));
            }
            free(copy);
            json_object_set_new(args, "ranks", rk);
        }
    } else if (!strcmp(cmd, "io")) {
        NEED(2);
        if (strcmp(pos[0], "hold") && strcmp(pos[0], "release")) {
            fprintf(stderr, "ductilectl io: expected 'hold' or 'release', not '%s'\n", pos[0]);
            json_decref(args);
            return EX_USAGE;
        }
        json_object_set_new(args, "action", json_string(pos[0]));
        JOBARG(pos[1]);
    } else if (!strcmp(cmd, "period")) {
        NEED(2);
        JOBARG(pos[0]);
        char *end;
        double sec = strtod(pos[1], &end);
        if (*end || !(sec >= 0.01 && sec <= 3600)) {
            fprintf(stderr, "ductilectl period: '%s' is not a number of seconds from 0.01 to 3600\n", pos[1]);
            json_decref(args);
            return EX_USAGE;
        }
        json_object_set_new(args, "seconds", json_real(sec));
    } else if (ductilectl_fold_is(cmd)) {
        if (ductilectl_fold_args(cmd, npos, pos, args, &job)) {
            sub_help(cmd, stderr);
            json_decref(args);
            return EX_USAGE;
        }
    } else if (!strcmp(cmd, "cost")) {
        NEED(1);
        JOBARG(pos[0]);
        if (to < 1) {
            fprintf(stderr, "ductilectl cost: give the target size with --to N\n");
            json_decref(args);
            return EX_USAGE;
        }
        json_object_set_new(args, "to", json_integer(to));
    }
    struct session s;
    int rc = connect_or_die(&s);
    if (rc) {
        json_decref(args);
        return rc;
    }
    if (!strcmp(cmd, "watch")) {
        rc = do_watch(&s, job, interval, count);
        json_decref(args);
        session_close(&s);
        return rc;
    }
    json_t *res = NULL;
    rc = call(&s, wire, args, &res);
    json_decref(args);
    session_close(&s);
    if (rc) return rc;
    if (json_out) print_json(res);
    else if (!strcmp(cmd, "list")) print_list(res);
    else if (!strcmp(cmd, "status")) print_status(res);
    else if (!strcmp(cmd, "events")) {
        if (!json_array_size(json_object_get(res, "events"))) printf("job %ld: no events\n", job);
        print_events(json_object_get(res, "events"), (size_t)-1);
    } else if (!strcmp(cmd, "drain")) {
        printf("ductiled %s\n", json_is_true(json_object_get(res, "draining")) ? "is draining: no new jobs" : "takes new jobs");
    } else if (!strcmp(cmd, "shutdown")) {
        printf("ductiled is stopping (%lld running job(s) will re-register with the next one)\n",
               proto_get_int(res, "running_jobs", 0));
    }
    else if (!strcmp(cmd, "slots")) {
        printf("%lld free of %lld slots\n", proto_get_int(res, "free", 0), proto_get_int(res, "total", 0));
        size_t i;
        json_t *h;
        json_array_foreach(json_object_get(res, "hosts"), i, h)
            printf("  %-30s %lld used of %lld\n", safe(proto_get_str(h, "name", "")), proto_get_int(h, "used", 0), proto_get_int(h, "slots", 0));
    } else if (!strcmp(cmd, "cost")) {
        printf("job %lld: %lld -> %lld processes: move %.0f bytes (%lld elements) at %.3g B/s (%s) = %.4f s, "
               "spawn %.3f s (%s); estimate %.4f s; %s\n",
               proto_get_int(res, "job", 0), proto_get_int(res, "from", 0), proto_get_int(res, "to", 0),
               proto_get_num(res, "bytes", 0), proto_get_int(res, "moved_elements", 0), proto_get_num(res, "bandwidth_Bps", 0),
               proto_get_str(res, "bandwidth_source", ""), proto_get_num(res, "transfer_s", 0), proto_get_num(res, "spawn_s", 0),
               proto_get_str(res, "spawn_source", ""), proto_get_num(res, "estimate_s", 0),
               json_is_true(json_object_get(res, "feasible")) ? "slots available" : proto_get_str(res, "reason", "not feasible"));
        if (json_object_get(res, "note")) printf("note: %s\n", proto_get_str(res, "note", ""));
    } else if (!strcmp(cmd, "io")) {
        printf("job %ld: I/O %s\n", job, json_is_true(json_object_get(res, "io_held")) ? "held" : "released");
    } else if (!strcmp(cmd, "period")) {
        printf("job %ld: monitoring period set\n", job);
    } else if (ductilectl_fold_is(cmd)) {
        ductilectl_fold_print(cmd, job, res);
    } else if (json_object_get(res, "note")) {
        printf("job %ld: %s\n", job, proto_get_str(res, "note", ""));
    } else {
        long long ati = proto_get_int(res, "at_iteration", -1);
        printf("job %ld: %s queued; it takes effect at %s\n", job, cmd,
               ati >= 0 ? "the requested iteration" : "the next control point");
    }
    json_decref(res);
    return EX_OK;
}
