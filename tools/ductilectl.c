/* ductilectl.c -- command-line client of ductiled: list jobs, show and watch
 * their monitoring, expand / shrink / resize them, hold or release their
 * I/O, estimate the cost of a resize.  Human output by default, --json for
 * scripts; exit codes are documented in --help and docs/controller.md. */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/common/rankset.h"
#include "../src/proto/protocol.h"
#include "../src/proto/session.h"
#include "ductilectl.h"

int ductilectl_submit(int argc, char **argv, const char *address, const char *secret, int json_out, int timeout_ms);
#include "ductilectl_fold.h"

enum { EX_OK = 0, EX_REFUSED = 1, EX_USAGE = 2, EX_CONNECT = 3, EX_AUTH = 4, EX_NOJOB = 5 };

static const char *address, *secret_path;
static int json_out, timeout_ms = 15000;
int noheader;
const char *list_format = "job,state,procs,pending,iteration,iter_s,timing,user,start,tag,binary";

struct subcmd {
    const char *name, *args, *help;
};
static const struct subcmd subcmds[] = {
    {"list", "[--noheader] [--format COLS]", "List the jobs ductiled knows and its slots. --noheader: no header line "
                                             "(for scripts); --format: comma-separated columns out of job,state,procs,"
                                             "pending,iteration,iter_s,timing,user,start,tag,binary (default: all). Both may "
                                             "also come before the command."},
    {"status", "JOB [--history N]", "Show a job: size, iteration, hosts, slots, I/O period, recent monitoring samples."},
    {"watch", "[JOB] [--interval S] [--count N]", "Live table of one job's monitoring (or of all jobs), refreshed every S seconds (default 1) until interrupted or N refreshes."},
    {"expand", "JOB N [--at-iteration I] [--hosts H1,H2,...]", "Add N processes at the job's next control point (or at iteration I). The resource manager must grant N free slots; --hosts places the new processes (one host name per process, as `ductilectl slots` lists them; with ductiled --slots also localhost or this machine's short or long name)."},
    {"shrink", "JOB N [--at-iteration I] [--ranks RANKSET]", "Remove N processes at the next control point (or at iteration I); --ranks chooses which N ranks leave: a rank set, items R, A-B or A-B:S (stride S) separated by ',' or ';' (3,5 or 0-511,1024-2047:2)."},
    {"resize", "JOB N [--at-iteration I]", "Resize the job to N processes (expansion or shrink)."},
    {"cancel", "JOB [ID]", "Cancel the job's delayed command ID before it runs (status and events show the ids of queued commands); without ID, every queued command of the job, its I/O hold and its I/O token. The slots reserved for a cancelled expansion are freed."},
    {"io", "hold|release JOB [SECONDS]", "Hold the job's next I/O phase (it waits at ductile_io_gate) or release it. A hold "
                                         "lasts at most SECONDS, and never longer than the job's DUCTILE_IO_HOLD_MAX (300 s)."},
    {"period", "JOB SECONDS", "Set the job's monitoring period (seconds between samples)."},
    {"cost", "JOB --to N", "Dry-run estimate of resizing JOB to N processes: bytes to move (redistribution plan over the registered arrays), transfer time from the measured bandwidth, spawn time, and whether slots are free."},
    {"slots", "", "Show the resource manager's hosts and slots."},
    DUCTILECTL_FOLD_SUBCMDS
    {"events", "JOB [--since EPOCH]", "Show a job's events: registration, resizes, commands, I/O phases and I/O plans, I/O token revocations, exit."},
    {"drain", "[on|off]", "Stop (on, the default) or resume (off) taking new jobs; running jobs go on."},
    {"shutdown", "", "Save the state and stop ductiled (Unix socket only); jobs re-register with the next ductiled."},
    {"submit", "[-n N] [--min M] [--max X] [--sizes SPEC] -- COMMAND...", "Queue a job: ductiled starts COMMAND under ductile-run and its launcher when slots are free (docs/policies.md)."},
    {"queue", "", "Show the job queue: waiting, started, running and finished jobs."},
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
               "                      iteration,iter_s,timing,user,start,tag,binary (default: all)\n"
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
                fprintf(stderr, "ductilectl: --format wants columns out of job,state,procs,pending,iteration,iter_s,timing,user,"
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
    if (!strcmp(cmd, "submit") || !strcmp(cmd, "queue")) /* tools/ductilectl_submit.c */
        return ductilectl_submit(sargc, sargv, address, secret_path, json_out, timeout_ms);
    /* subcommand options */
    static const struct option sopts[] = {{"history", required_argument, 0, 'H'}, {"interval", required_argument, 0, 'i'},
                                          {"count", required_argument, 0, 'n'},   {"at-iteration", required_argument, 0, 'a'},
                                          {"hosts", required_argument, 0, 'o'},   {"ranks", required_argument, 0, 'r'},
                                          {"to", required_argument, 0, 'T'},      {"json", no_argument, 0, 'j'},
                                          {"help", no_argument, 0, 'h'},          {"since", required_argument, 0, 'S'},
                                          {"noheader", no_argument, 0, 'N'},      {"format", required_argument, 0, 'F'},
                                          {0, 0, 0, 0}};
    double since = 0;
    long history = 20, count = 0, at = -1, to = -1;
    double interval = 1.0;
    const char *hosts = NULL, *ranks = NULL;
    /* a negative count ("shrink 2 -1") would reach getopt as an unknown option '-1' */
    for (int i = 1; i < sargc; i++)
        if (sargv[i][0] == '-' && sargv[i][1] >= '0' && sargv[i][1] <= '9') {
            fprintf(stderr, "ductilectl %s: '%s': counts and job ids are positive numbers (%s)\n", cmd, sargv[i],
                    !strcmp(cmd, "shrink") ? "shrink JOB N removes N processes" : !strcmp(cmd, "expand") ? "expand JOB N adds N processes" : "see --help");
            return 2;
        }
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
        case 'N': noheader = 1; break; /* global options list also takes after the command */
        case 'F':
            if (!valid_format(optarg)) {
                fprintf(stderr, "ductilectl %s: --format wants columns out of job,state,procs,pending,iteration,iter_s,"
                        "timing,user,start,tag,binary, not '%s'\n", cmd, optarg);
                return EX_USAGE;
            }
            list_format = optarg;
            break;
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
        /* the table needs only its columns' fields: the daemon sends no more (2,000 jobs: a third of the bytes) */
        if (!strcmp(cmd, "list") && !json_out) json_object_set_new(args, "brief", json_true());
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
            if (json_array_size(h) == 0) {
                fprintf(stderr, "ductilectl %s: --hosts is empty: name one host per new process, or leave --hosts out\n", cmd);
                json_decref(h);
                json_decref(args);
                return EX_USAGE;
            }
            json_object_set_new(args, "hosts", h);
        }
        if (ranks) { /* a rank set: "3,5", "0-511,1024-2047" or "0-1023:4" (src/common/rankset.h) */
            char w[200];
            long nr = rankset_each(ranks, strlen(ranks), PROTO_MAX_PROCS, NULL, NULL, w, sizeof w);
            if (nr == 0) snprintf(w, sizeof w, "empty: name at least one rank, or leave --ranks out");
            if (nr <= 0) {
                fprintf(stderr, "ductilectl %s: --ranks '%.64s': %s\n", cmd, ranks, w);
                json_decref(args);
                return EX_USAGE;
            }
            json_object_set_new(args, "ranks", json_string(ranks));
        }
    } else if (!strcmp(cmd, "cancel")) {
        if (npos < 1 || npos > 2) {
            fprintf(stderr, "ductilectl cancel: expected JOB and an optional command ID, got %d argument(s)\n", npos);
            sub_help(cmd, stderr);
            json_decref(args);
            return EX_USAGE;
        }
        JOBARG(pos[0]);
        long cid;
        if (npos == 2 && parse_int(pos[1], 1, 2147483647L, &cid)) {
            fprintf(stderr, "ductilectl cancel: '%s' is not a command id (ductilectl status %ld lists them)\n", pos[1], job);
            json_decref(args);
            return EX_USAGE;
        }
        if (npos == 2) json_object_set_new(args, "command", json_integer(cid));
    } else if (!strcmp(cmd, "io")) {
        if (npos == 3 && !strcmp(pos[0], "hold")) {
            char *end;
            double sec = strtod(pos[2], &end);
            if (*end || !(sec >= 0.1 && sec <= 86400)) {
                fprintf(stderr, "ductilectl io hold: '%s' is not a number of seconds from 0.1 to 86400\n", pos[2]);
                json_decref(args);
                return EX_USAGE;
            }
            json_object_set_new(args, "seconds", json_real(sec));
            npos = 2;
        }
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
        json_array_foreach(json_object_get(res, "hosts"), i, h) {
            const char *st = proto_get_str(h, "state", "up");
            if (!strcmp(st, "up"))
                printf("  %-30s %lld used of %lld\n", safe(proto_get_str(h, "name", "")), proto_get_int(h, "used", 0),
                       proto_get_int(h, "slots", 0));
            else /* not ours (any more): its slots are not in the totals */
                printf("  %-30s %s (%lld slots)\n", safe(proto_get_str(h, "name", "")),
                       !strcmp(st, "released") ? "given back to the batch system"
                       : !strcmp(st, "lost")   ? "lost (its node went down)"
                       : !strcmp(st, "outside") ? "outside the allocation (can be added by growth)"
                       : !strcmp(st, "releasing") ? "being given back to the batch system"
                                               : "not usable",
                       proto_get_int(h, "slots", 0));
        }
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
        if (json_is_true(json_object_get(res, "io_held")) && proto_get_num(res, "hold_s", 0) > 0)
            printf("job %ld: I/O held (for at most %g s: the job lets itself go then)\n", job, proto_get_num(res, "hold_s", 0));
        else
            printf("job %ld: I/O %s\n", job, json_is_true(json_object_get(res, "io_held")) ? "held" : "released");
    } else if (!strcmp(cmd, "period")) {
        printf("job %ld: monitoring period set\n", job);
    } else if (!strcmp(cmd, "cancel")) {
        json_t *c = json_object_get(res, "cancelled");
        printf("job %ld: %zu queued command(s) cancelled", job, json_array_size(c));
        size_t i;
        json_t *e;
        json_array_foreach(c, i, e) printf("%s %lld", i ? "," : ":", proto_get_int(e, "id", 0));
        printf("; %lld slot(s) still pending; I/O %s\n", proto_get_int(res, "pending_slots", 0),
               json_is_true(json_object_get(res, "io_held")) ? "held" : "free");
    } else if (ductilectl_fold_is(cmd)) {
        ductilectl_fold_print(cmd, job, res); /* not a queued command: no id to cancel */
    } else if (json_object_get(res, "note")) {
        printf("job %ld: %s\n", job, proto_get_str(res, "note", ""));
    } else if (proto_get_int(res, "id", 0) > 0) {
        long long ati = proto_get_int(res, "at_iteration", -1);
        printf("job %ld: %s queued as command %lld; it takes effect at %s (ductilectl cancel %ld %lld cancels it)\n",
               job, cmd, proto_get_int(res, "id", 0), ati >= 0 ? "the requested iteration" : "the next control point",
               job, proto_get_int(res, "id", 0));
    } else { /* every hint printed is a command that works: without an id there is nothing to cancel by id */
        printf("job %ld: %s queued; it takes effect at %s\n", job, cmd,
               proto_get_int(res, "at_iteration", -1) >= 0 ? "the requested iteration" : "the next control point");
    }
    json_decref(res);
    return EX_OK;
}
