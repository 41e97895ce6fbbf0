/* ductilectl_fold.c -- ductilectl fold / unfold (see ductilectl_fold.h). */
#include "config.h"

#include "ductilectl_fold.h"

#include <stdlib.h>
#include <string.h>

#include "../src/proto/protocol.h"

int ductilectl_fold_is(const char *cmd) { return !strcmp(cmd, "fold") || !strcmp(cmd, "unfold"); }

static int number(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int ductilectl_fold_args(const char *cmd, int npos, char **pos, json_t *args, long *job)
{
    int fold = !strcmp(cmd, "fold");
    if (npos != (fold ? 2 : 1)) {
        fprintf(stderr, "ductilectl %s: expected %s, got %d argument(s)\n", cmd, fold ? "JOB CORES" : "JOB", npos);
        return -1;
    }
    if (number(pos[0], 1, 2147483647L, job)) {
        fprintf(stderr, "ductilectl %s: '%s' is not a job number (see ductilectl list)\n", cmd, pos[0]);
        return -1;
    }
    json_object_set_new(args, "job", json_integer(*job));
    if (fold) {
        long cores;
        if (number(pos[1], 1, PROTO_MAX_PROCS, &cores)) {
            fprintf(stderr, "ductilectl fold: '%s' is not a number of cores per host from 1 to %d\n", pos[1],
                    PROTO_MAX_PROCS);
            return -1;
        }
        json_object_set_new(args, "cores", json_integer(cores));
    }
    return 0;
}

void ductilectl_fold_print(const char *cmd, long job, const json_t *res)
{
    if (!strcmp(cmd, "fold"))
        printf("job %ld: fold to %lld core(s) per host queued (%lld host(s)); it takes effect at the job's next MPI call\n",
               job, proto_get_int(res, "cores", 0), proto_get_int(res, "hosts", 0));
    else
        printf("job %ld: unfold queued; it takes effect at the job's next MPI call\n", job);
}

void ductilectl_fold_status(const json_t *r)
{
    if (!json_object_get(r, "cores")) return;
    long long per = proto_get_int(r, "fold_cores_per_host", 0);
    if (per > 0)
        printf("  cores: %lld (folded to %lld per host)\n", proto_get_int(r, "cores", 0), per);
    else
        printf("  cores: %lld (not folded)\n", proto_get_int(r, "cores", 0));
}
