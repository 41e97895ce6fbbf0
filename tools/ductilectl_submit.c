/* ductilectl_submit.c -- ductilectl's job-queue commands (docs/policies.md):
 *   submit [-n N] [--min M] [--max X] [--sizes SPEC] -- COMMAND...   queue a job for ductiled to start
 *   queue                                             show the queue (waiting, started, running, done)
 * Called from ductilectl.c's main with the subcommand's arguments. */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/proto/protocol.h"
#include "../src/proto/session.h"

int ductilectl_submit(int argc, char **argv, const char *address, const char *secret, int json_out, int timeout_ms);

static void help(FILE *f)
{
    fprintf(f, "Usage: ductilectl submit [-n N] [--min M] [--max X] [--sizes SPEC] -- COMMAND [ARGS...]\n"
               "       ductilectl queue\n\n"
               "submit queues COMMAND (the MPI program and its arguments, without mpiexec) for ductiled to\n"
               "start when N slots are free (default N 1), as 'ductile-run --min M --max X -- LAUNCHER -n SIZE\n"
               "COMMAND' in the current directory, output to a log file.  With a global policy (ductiled\n"
               "--policy) it starts at fewer processes, down to M (default N), when that lets it start\n"
               "earlier, and the policy never takes it below M or above X (default: the slots).\n"
               "--sizes SPEC: the counts the job can use (ductile-run --sizes, DUCTILE_SIZES: min=N,max=N,\n"
               "step=K,allowed=squares|pow2|multiples:K|N...,preferred=N): it starts and is resized only to those.\n"
               "queue lists the queue's jobs: waiting, started, running (with their ductiled job), done.\n");
}

static long num(const char *s, long lo, long hi)
{
    char *e;
    long v = strtol(s, &e, 10);
    return *s && !*e && v >= lo && v <= hi ? v : -1;
}

int ductilectl_submit(int argc, char **argv, const char *address, const char *secret, int json_out, int timeout_ms)
{
    const char *cmd = argv[0];
    static const struct option o[] = {{"min", required_argument, 0, 'm'}, {"max", required_argument, 0, 'x'},
                                      {"sizes", required_argument, 0, 's'}, {"help", no_argument, 0, 'h'},
                                      {"json", no_argument, 0, 'j'}, {0, 0, 0, 0}};
    const char *sizes = NULL;
    long n = 1, min = -1, max = -1;
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "+n:jh", o, NULL)) != -1) {
        long *dst = c == 'n' ? &n : c == 'm' ? &min : c == 'x' ? &max : NULL;
        if (dst) {
            if ((*dst = num(optarg, 1, PROTO_MAX_PROCS)) < 0) {
                fprintf(stderr, "ductilectl %s: -%s wants a number of processes from 1 to %d, not '%s'\n", cmd,
                        c == 'n' ? "n" : c == 'm' ? "-min" : "-max", PROTO_MAX_PROCS, optarg);
                return 2;
            }
        } else if (c == 's') {
            sizes = optarg;
        } else if (c == 'j') {
            json_out = 1;
        } else if (c == 'h') {
            help(stdout);
            return 0;
        } else {
            help(stderr);
            return 2;
        }
    }
    json_t *args = json_object();
    if (!strcmp(cmd, "submit")) {
        if (optind >= argc) {
            fprintf(stderr, "ductilectl submit: no command given (ductilectl submit -n 4 -- ./app args)\n");
            json_decref(args);
            return 2;
        }
        if (min > n || (max > 0 && max < n)) {
            fprintf(stderr, "ductilectl submit: need --min <= -n <= --max\n");
            json_decref(args);
            return 2;
        }
        json_t *av = json_array();
        for (int i = optind; i < argc; i++) json_array_append_new(av, json_string(argv[i]));
        json_object_set_new(args, "argv", av);
        json_object_set_new(args, "n", json_integer(n));
        if (min > 0) json_object_set_new(args, "min", json_integer(min));
        if (max > 0) json_object_set_new(args, "max", json_integer(max));
        if (sizes) json_object_set_new(args, "sizes", json_string(sizes)); /* checked by ductiled (src/common/sizes.c) */
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd)) json_object_set_new(args, "cwd", json_string(cwd));
    } else if (optind < argc) {
        fprintf(stderr, "ductilectl queue: no arguments expected\n");
        json_decref(args);
        return 2;
    }
    struct session s;
    char err[512], code[64], reason[600];
    int af = 0;
    if (session_open(&s, address, secret, timeout_ms < 5000 ? timeout_ms : 5000, &af, err, sizeof err) != 0) {
        fprintf(stderr, "ductilectl: %s\n", err);
        json_decref(args);
        return af ? 4 : 3;
    }
    json_t *res = NULL;
    int r = session_call(&s, cmd, args, timeout_ms, &res, code, sizeof code, reason, sizeof reason);
    json_decref(args);
    session_close(&s);
    if (r != 1) {
        fprintf(stderr, "ductilectl: %s %s: %s\n", cmd, r < 0 ? "failed" : "refused", reason);
        return r < 0 ? 3 : 1;
    }
    if (json_out) {
        json_dumpf(res, stdout, JSON_INDENT(2));
        putchar('\n');
    } else if (!strcmp(cmd, "submit")) {
        printf("queued as q%lld (%lld waiting ahead); output in %s\n", proto_get_int(res, "queue_id", 0),
               proto_get_int(res, "ahead", 0), proto_get_str(res, "log", "?"));
    } else {
        printf("policy %s, %lld free slots\n", proto_get_str(res, "policy", "none"), proto_get_int(res, "free", 0));
        printf("%-5s %-8s %4s %4s %4s %4s %5s %8s %8s %s\n", "QUEUE", "STATE", "N", "MIN", "MAX", "SIZE", "JOB", "WAIT_S",
               "RUN_S", "COMMAND");
        size_t i;
        json_t *e;
        double now = (double)time(NULL);
        json_array_foreach(json_object_get(res, "queue"), i, e) {
            double sub = proto_get_num(e, "submitted", 0), st = proto_get_num(e, "started", 0), en = proto_get_num(e, "ended", 0);
            char cmdline[200] = "";
            size_t k, used = 0;
            json_t *a;
            json_array_foreach(json_object_get(e, "argv"), k, a) {
                int w = snprintf(cmdline + used, sizeof cmdline - used, "%s%s", k ? " " : "", json_string_value(a));
                if (w < 0 || (size_t)w >= sizeof cmdline - used) break;
                used += (size_t)w;
            }
            for (char *p = cmdline; *p; p++)
                if ((unsigned char)*p < 32 || *p == 127) *p = '?';
            printf("q%-4lld %-8s %4lld %4lld %4lld %4lld %5lld %8.1f %8.1f %s\n", proto_get_int(e, "queue_id", 0),
                   proto_get_str(e, "state", "?"), proto_get_int(e, "n", 0), proto_get_int(e, "min", 0),
                   proto_get_int(e, "max", 0), proto_get_int(e, "size", 0), proto_get_int(e, "job", 0),
                   (st > 0 ? st : now) - sub, st > 0 ? (en > 0 ? en : now) - st : 0.0, cmdline);
        }
    }
    json_decref(res);
    return 0;
}
