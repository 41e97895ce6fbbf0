/* schema.c -- the control protocol's schemas (see schema.h): a small
 * declarative table per request, per event kind and per job result, and
 * the one checker that walks a message against it (recursively: arrays,
 * objects, host maps), removing the members it does not name. */
#include "schema.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "../common/rankset.h"
#include "../common/sizes.h"

enum ftype {
    F_END = 0,
    F_INT,    /* integer in [min, max] (not 2.0) */
    F_NUM,    /* finite number in [min, max] */
    F_STR,    /* string of min..max bytes, no NUL */
    F_BOOL,
    F_ENUM,   /* one of the comma-separated `sub` */
    F_HEX64,  /* 64 hex digits */
    F_TAG,    /* proto_valid_tag */
    F_HOST,   /* proto_valid_hostname */
    F_ARGV,   /* 1..256 strings of at most 4096 bytes, the first not empty */
    F_RANKS,  /* distinct ranks below PROTO_MAX_PROCS: a rank set ("0-511,1024-2047:2", src/common/rankset.h)
               * or an array of ranks, which becomes its rank set */
    F_RANKHOSTS, /* the host of each rank: {host: rank set} (at most PROTO_MAX_HOSTS hosts, no rank twice),
                  * or an array of at most PROTO_MAX_PROCS host names (rank r's at [r]) */
    F_ARRAY,  /* min..max elements, each checked against the one field `sub` */
    F_OBJECT, /* the members `sub` (a list ended by F_END); others removed */
    F_HOSTMAP, /* {host name: value}, at most max entries, values checked against `sub` */
    F_SIZES   /* a job's size constraints, at most max bytes (src/common/sizes.h) */
};

struct field {
    const char *name;
    enum ftype type;
    int required;
    double min, max;
    const void *sub;
};

#define PROCS ((double)PROTO_MAX_PROCS)
#define I32 2147483647.0
#define U32 4294967295.0
#define BIG 9.0e18
#define ITER 4.0e18
#define END {NULL, F_END, 0, 0, 0, NULL}
#define JOB {"job", F_INT, 1, 1, I32, NULL}
#define JOB_OPT {"job", F_INT, 0, 1, I32, NULL}
#define AT_ITER {"at_iteration", F_INT, 0, 0, ITER, NULL}
/* the operator's uid: over TCP, commands that act on jobs name it (docs/protocol.md) */
#define USER {"user", F_INT, 0, 0, U32, NULL}

static const struct field host_f = {NULL, F_HOST, 1, 0, 0, NULL};
/* an expansion's hosts: one per new process; given, not empty */
#define HOSTS_F {"hosts", F_ARRAY, 0, 1, PROCS, &host_f}
static const struct field hostcount_m[] = {{"name", F_HOST, 1, 0, 0, NULL}, {"procs", F_INT, 1, 1, PROCS, NULL}, END};
static const struct field hostcount_f = {NULL, F_OBJECT, 1, 0, 0, hostcount_m};
static const struct field array_m[] = {{"name", F_STR, 0, 0, 63, NULL}, {"elements", F_INT, 1, 0, BIG, NULL},
                                       {"elem_size", F_INT, 1, 1, 1048576, NULL}, END};
static const struct field array_f = {NULL, F_OBJECT, 1, 0, 0, array_m};
static const struct field pmix_m[] = {{"nspace", F_STR, 0, 0, 255, NULL}, {"job_size", F_INT, 0, 0, U32, NULL},
                                      {"univ_size", F_INT, 0, 0, U32, NULL}, {"node_list", F_STR, 0, 0, 8191, NULL}, END};
/* a delayed command as the job lists it (its queue, a revoke's acknowledgement) */
static const struct field queued_m[] = {{"id", F_INT, 1, 1, I32, NULL}, {"op", F_ENUM, 1, 0, 0, "expand,shrink,resize"},
                                        {"n", F_INT, 0, 1, PROCS, NULL}, {"to", F_INT, 0, 1, PROCS, NULL},
                                        {"at_iteration", F_INT, 0, -1, ITER, NULL}, {"list", F_STR, 0, 0, PROTO_MAX_MSG, NULL}, END};
static const struct field queued_f = {NULL, F_OBJECT, 1, 0, 0, queued_m};
static const struct field exited_n = {NULL, F_INT, 1, 1, PROCS, NULL};

struct spec {
    const char *name;
    struct field f[24];
};

static const struct spec requests[] = {
    {"hello", {{"server", F_STR, 1, 0, 64, NULL}, {"version", F_STR, 0, 0, 32, NULL},
               {"auth", F_ENUM, 1, 0, 0, "peercred,hmac-sha256"}, {"nonce", F_HEX64, 0, 0, 0, NULL}, END}},
    {"auth", {{"nonce", F_HEX64, 1, 0, 0, NULL}, {"mac", F_HEX64, 1, 0, 0, NULL}, END}},
    {"list", {{"brief", F_BOOL, 0, 0, 0, NULL}, USER, END}},
    {"slots", {USER, END}},
    {"events", {JOB, {"since", F_NUM, 0, 0, 1e12, NULL}, {"max", F_INT, 0, 1, 4096, NULL}, USER, END}},
    {"drain", {{"on", F_BOOL, 0, 0, 0, NULL}, USER, END}},
    {"shutdown", {USER, END}},
    {"status", {JOB, {"history", F_INT, 0, 0, 4096, NULL}, USER, END}},
    {"expand", {JOB_OPT, {"n", F_INT, 1, 1, PROCS, NULL}, AT_ITER, HOSTS_F, USER, END}},
    {"shrink", {JOB_OPT, {"n", F_INT, 1, 1, PROCS, NULL}, AT_ITER, {"ranks", F_RANKS, 0, 0, 0, NULL}, USER, END}},
    {"resize", {JOB_OPT, {"to", F_INT, 1, 1, PROCS, NULL}, AT_ITER, HOSTS_F, USER, END}},
    /* seconds: the longest an I/O hold may last (the job enforces it, docs/controller.md) */
    {"io", {JOB_OPT, {"action", F_ENUM, 1, 0, 0, "hold,release,grant"}, {"seconds", F_NUM, 0, 0.1, 86400, NULL}, USER, END}},
    {"period", {JOB_OPT, {"seconds", F_NUM, 1, 0.01, 3600, NULL}, USER, END}},
    {"cancel", {JOB, {"command", F_INT, 0, 1, I32, NULL}, USER, END}},
    {"revoke", {JOB_OPT, {"what", F_ENUM, 1, 0, 0, "command,hold,token,all"}, {"command", F_INT, 0, 1, I32, NULL},
                {"reason", F_STR, 0, 0, 200, NULL}, END}},
    {"cost", {JOB, {"to", F_INT, 1, 1, PROCS, NULL}, USER, END}},
    {"fold", {JOB_OPT, {"cores", F_INT, 1, 1, PROCS, NULL}, USER, END}},
    {"unfold", {JOB_OPT, USER, END}},
    {"register", {{"tag", F_TAG, 1, 0, 0, NULL}, {"pid", F_INT, 1, 1, I32, NULL}, {"binary", F_STR, 1, 0, 4096, NULL},
                  {"procs", F_INT, 1, 1, PROCS, NULL}, {"hosts", F_ARRAY, 0, 0, PROTO_MAX_HOSTS, &hostcount_f}, JOB_OPT,
                  {"arrays", F_ARRAY, 0, 0, 256, &array_f}, {"malleable", F_BOOL, 0, 0, 0, NULL},
                  {"mpi", F_STR, 0, 0, 64, NULL}, {"launcher", F_ENUM, 0, 0, 0, "mpiexec,srun-pmi2,srun-pmix,srun"},
                  {"start", F_NUM, 0, 0, 1e12, NULL}, {"uid", F_INT, 0, 0, U32, NULL},
                  {"min_procs", F_INT, 0, 1, PROCS, NULL}, {"max_procs", F_INT, 0, 1, PROCS, NULL},
                  {"sizes", F_SIZES, 0, 0, 400, NULL}, {"rank_hosts", F_RANKHOSTS, 0, 0, 0, NULL}, {"pmix", F_OBJECT, 0, 0, 0, pmix_m},
                  {"key", F_HEX64, 0, 0, 0, NULL}, END}},
    {"sample", {JOB, {"t", F_NUM, 1, 0, 1e12, NULL}, {"iteration", F_INT, 1, 0, ITER, NULL},
                {"procs", F_INT, 1, 1, PROCS, NULL}, {"iters", F_INT, 0, 0, ITER, NULL},
                {"interval_s", F_NUM, 0, 0, 1e9, NULL}, {"compute_s", F_NUM, 0, 0, 1e9, NULL},
                {"comm_s", F_NUM, 0, 0, 1e9, NULL}, {"io_s", F_NUM, 0, 0, 1e9, NULL},
                {"bytes", F_INT, 0, 0, BIG, NULL}, {"io_calls", F_INT, 0, 0, BIG, NULL},
                {"io_held", F_BOOL, 0, 0, 0, NULL}, {"dropped", F_INT, 0, 0, BIG, NULL},
                {"control_point", F_BOOL, 0, 0, 0, NULL}, {"arrays", F_ARRAY, 0, 0, 256, &array_f},
                {"maxiter", F_INT, 0, 0, ITER, NULL}, {"sizes", F_SIZES, 0, 0, 400, NULL},
                {"time_sample", F_INT, 0, 1, 1000000, NULL}, END}},
    {"submit", {{"argv", F_ARGV, 1, 0, 0, NULL}, {"n", F_INT, 1, 1, PROCS, NULL}, {"min", F_INT, 0, 1, PROCS, NULL},
                {"max", F_INT, 0, 1, PROCS, NULL}, {"cwd", F_STR, 0, 1, 4096, NULL}, {"sizes", F_SIZES, 0, 0, 400, NULL},
                USER, END}},
    {"queue", {USER, END}},
    {"heartbeat", {JOB, END}},
    {"exit", {JOB, {"status", F_INT, 0, -2147483648.0, I32, NULL}, END}},
    /* details: checked against the kind's schema below */
    {"event", {JOB, {"kind", F_STR, 1, 1, 32, NULL}, {"details", F_OBJECT, 0, 0, 0, NULL}, END}},
    {NULL, {END}},
};

static const struct spec events[] = {
    /* a reconfiguration of the job, finished or refused (src/monitor/report_build.h) */
    {"resized", {{"iteration", F_INT, 0, -I32 - 1, I32, NULL}, {"from", F_INT, 1, 1, PROCS, NULL},
                 {"to", F_INT, 1, 1, PROCS, NULL}, {"op", F_ENUM, 0, 0, 0, "expand,shrink"},
                 {"status", F_ENUM, 1, 0, 0, "ok,failed,refused"}, {"reason", F_STR, 0, 0, 255, NULL},
                 {"duration_s", F_NUM, 0, 0, 1e9, NULL}, {"spawn_s", F_NUM, 0, 0, 1e9, NULL},
                 {"transfer_s", F_NUM, 0, 0, 1e9, NULL}, {"bytes_moved", F_INT, 0, 0, BIG, NULL},
                 {"standby", F_INT, 0, 0, PROCS, NULL}, {"exited", F_INT, 0, 0, PROCS, NULL},
                 {"parked", F_INT, 0, 0, PROCS, NULL},
                 {"persistent", F_ENUM, 0, 0, 0, "prepared,reused"},
                 /* the queued command it ran, and the method (baseline: every old process left) */
                 {"command", F_INT, 0, 1, I32, NULL}, {"method", F_ENUM, 0, 0, 0, "merge,baseline"}, END}},
    {"io_phase", {{"start", F_NUM, 0, 0, 1e12, NULL}, {"duration_s", F_NUM, 0, 0, 1e9, NULL},
                  {"io_s", F_NUM, 0, 0, 1e9, NULL}, {"delay_s", F_NUM, 0, 0, 1e9, NULL}, {"bytes", F_INT, 0, 0, BIG, NULL},
                  {"calls", F_INT, 0, 0, BIG, NULL}, {"iteration", F_INT, 0, -1, ITER, NULL},
                  {"procs", F_INT, 0, 1, PROCS, NULL}, END}},
    {"io_request", {{"iteration", F_INT, 0, -1, ITER, NULL}, END}},
    {"io_release", {{"kept_s", F_NUM, 0, 0, 1e9, NULL}, END}},
    {"queue", {{"queued", F_ARRAY, 1, 0, 16, &queued_f}, END}},
    /* processes that had left the world ended: {"hosts": {HOST: n}} */
    {"exited", {{"hosts", F_HOSTMAP, 1, 0, PROTO_MAX_HOSTS, &exited_n}, END}},
    /* the job's controller moves to a new rank 0; the job reconnects to a silent daemon */
    {"handover", {{"pid", F_INT, 0, 1, I32, NULL}, {"reason", F_STR, 0, 0, 255, NULL}, END}},
    {"reconnect", {{"reason", F_STR, 0, 0, 255, NULL}, {"waited_s", F_NUM, 0, 0, 1e9, NULL}, END}},
    {NULL, {END}},
};

static const struct spec results[] = {
    {"expand", {{"queued", F_BOOL, 0, 0, 0, NULL}, {"at_iteration", F_INT, 0, -1, ITER, NULL},
                {"id", F_INT, 0, 1, I32, NULL}, END}},
    {"revoke", {{"revoked", F_ENUM, 0, 0, 0, "command,hold,token,all"}, {"cancelled", F_ARRAY, 0, 0, 64, &queued_f},
                {"io_held", F_BOOL, 0, 0, 0, NULL}, END}},
    {"io", {{"io_held", F_BOOL, 0, 0, 0, NULL}, {"granted", F_BOOL, 0, 0, 0, NULL},
            {"hold_s", F_NUM, 0, 0, 86400, NULL}, END}},
    {"period", {{"period", F_NUM, 0, 0.01, 3600, NULL}, END}},
    {"fold", {{"queued", F_BOOL, 0, 0, 0, NULL}, {"cores", F_INT, 0, 0, 1048576, NULL},
              {"hosts", F_INT, 0, 0, PROCS, NULL}, {"host_ranks", F_INT, 0, 0, PROCS, NULL},
              {"host_cpus", F_INT, 0, 0, 1048576, NULL}, END}},
    {NULL, {END}},
};

static const struct spec *find(const struct spec *t, const char *name)
{
    for (; t->name; t++)
        if (!strcmp(t->name, name)) return t;
    return NULL;
}

static int enum_has(const char *choices, const char *v)
{
    size_t vl = strlen(v);
    for (const char *c = choices; *c;) {
        const char *e = strchr(c, ',');
        size_t cl = e ? (size_t)(e - c) : strlen(c);
        if (cl == vl && strncmp(c, v, vl) == 0) return 1;
        c = e ? e + 1 : c + cl;
    }
    return 0;
}

static int is_hex64(const char *s)
{
    if (strlen(s) != 64) return 0;
    for (int i = 0; i < 64; i++)
        if (!isxdigit((unsigned char)s[i])) return 0;
    return 1;
}

static int int_ok(const json_t *v, double min, double max)
{
    if (!json_is_integer(v)) return 0;
    long long x = json_integer_value(v);
    return (double)x >= min && (double)x <= max;
}

static int str_ok(const json_t *v) { return json_is_string(v) && strlen(json_string_value(v)) == json_string_length(v); }

static int check_members(const struct field *fs, json_t *obj, const char *path, char *why, size_t wl);

/* ranks marked so far (a bitmap of PROTO_MAX_PROCS), for F_RANKS and F_RANKHOSTS */
static int rank_mark(unsigned char *seen, int r, char *why, size_t wl, const char *path)
{
    if (seen[r >> 3] & (1u << (r & 7))) {
        snprintf(why, wl, "'%s' names rank %d twice", path, r);
        return -1;
    }
    seen[r >> 3] |= (unsigned char)(1u << (r & 7));
    return 0;
}

struct markarg {
    unsigned char *seen;
    const char *path;
    int twice; /* the reason names the path already */
};

static int mark_cb(void *arg, int r, char *why, size_t wl)
{
    struct markarg *m = arg;
    m->twice = rank_mark(m->seen, r, why, wl, m->path) != 0;
    return m->twice ? -1 : 0;
}

/* A rank set (string) or an array of ranks, all distinct and below PROTO_MAX_PROCS, marked in
 * seen; returns how many, or -1 with the reason. */
static long check_ranks(const json_t *v, unsigned char *seen, const char *path, char *why, size_t wl)
{
    if (json_is_string(v)) {
        char w[200];
        struct markarg m = {seen, path, 0};
        long n = str_ok(v) ? rankset_each(json_string_value(v), json_string_length(v), PROTO_MAX_PROCS, mark_cb, &m, w, sizeof w)
                           : (snprintf(w, sizeof w, "a NUL byte"), -1L);
        if (n < 0 && m.twice) snprintf(why, wl, "%s", w);
        else if (n < 0) snprintf(why, wl, "'%s': %s", path, w);
        return n;
    }
    if (!json_is_array(v) || json_array_size(v) > PROTO_MAX_PROCS) {
        snprintf(why, wl, "'%s' must be a rank set (\"0-511,1024-2047:2\") or an array of at most %d ranks", path,
                 PROTO_MAX_PROCS);
        return -1;
    }
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
        if (!int_ok(e, 0, PROCS - 1)) {
            snprintf(why, wl, "'%s'[%zu] must be a rank from 0 to %d", path, i, PROTO_MAX_PROCS - 1);
            return -1;
        }
        if (rank_mark(seen, (int)json_integer_value(e), why, wl, path) != 0) return -1;
    }
    return (long)json_array_size(v);
}

#define BAD(...) do { snprintf(why, wl, __VA_ARGS__); return -1; } while (0)

/* Check value v against field f; `path` names it in the reason. */
static int check_value(const struct field *f, json_t *v, const char *path, char *why, size_t wl)
{
    switch (f->type) {
    case F_END: return 0;
    case F_INT:
        if (!int_ok(v, f->min, f->max)) BAD("'%s' must be an integer from %.0f to %.0f", path, f->min, f->max);
        return 0;
    case F_NUM: {
        double x = json_number_value(v);
        if (!json_is_number(v) || !isfinite(x) || x < f->min || x > f->max)
            BAD("'%s' must be a number from %g to %g", path, f->min, f->max);
        return 0;
    }
    case F_STR:
        if (!str_ok(v) || json_string_length(v) < (size_t)f->min || json_string_length(v) > (size_t)f->max)
            BAD("'%s' must be a string of %.0f to %.0f bytes", path, f->min, f->max);
        return 0;
    case F_SIZES: {
        if (!str_ok(v) || json_string_length(v) > (size_t)f->max) BAD("'%s' must be a string of at most %.0f bytes", path, f->max);
        struct ductile_sizes sz;
        char w[400];
        memset(&sz, 0, sizeof sz);
        if (sizes_parse(json_string_value(v), &sz, w, sizeof w) != 0) BAD("'%s' is not valid: %.200s", path, w);
        return 0;
    }
    case F_BOOL:
        if (!json_is_boolean(v)) BAD("'%s' must be true or false", path);
        return 0;
    case F_ENUM:
        if (!str_ok(v) || !enum_has(f->sub, json_string_value(v))) BAD("'%s' must be one of %s", path, (const char *)f->sub);
        return 0;
    case F_HEX64:
        if (!str_ok(v) || !is_hex64(json_string_value(v))) BAD("'%s' must be 64 hex digits", path);
        return 0;
    case F_TAG:
        if (!str_ok(v) || !proto_valid_tag(json_string_value(v)))
            BAD("'%s' must be 1 to 63 characters of letters, digits, '.', '_' or '-'", path);
        return 0;
    case F_HOST:
        if (!str_ok(v) || !proto_valid_hostname(json_string_value(v)))
            BAD("'%s' is not a valid host name (letters, digits, '-' and '.' only)", path);
        return 0;
    case F_ARGV: {
        if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > 256)
            BAD("'%s' must be an array of 1 to 256 strings", path);
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            if (!str_ok(e) || json_string_length(e) > 4096 || (i == 0 && json_string_length(e) == 0))
                BAD("'%s'[%zu] must be a string of at most 4096 bytes", path, i);
        }
        return 0;
    }
    case F_RANKS: {
        unsigned char *seen = calloc(PROTO_MAX_PROCS / 8, 1);
        if (!seen) BAD("'%s': out of memory", path);
        long n = check_ranks(v, seen, path, why, wl);
        free(seen);
        if (n == 0) BAD("'%s' is empty: name at least one rank (a rank set such as \"3\" or \"0-3\"), or leave it out", path);
        return n < 0 ? -1 : 0;
    }
    case F_RANKHOSTS: {
        if (json_is_array(v)) {
            if (json_array_size(v) > PROTO_MAX_PROCS) BAD("'%s' must be an array of at most %d host names", path, PROTO_MAX_PROCS);
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e) {
                if (!str_ok(e) || !proto_valid_hostname(json_string_value(e)))
                    BAD("'%s[%zu]' is not a valid host name (letters, digits, '-' and '.' only)", path, i);
            }
            return 0;
        }
        if (!json_is_object(v) || json_object_size(v) > PROTO_MAX_HOSTS)
            BAD("'%s' must be {host: rank set} of at most %d hosts, or an array of host names", path, PROTO_MAX_HOSTS);
        unsigned char *seen = calloc(PROTO_MAX_PROCS / 8, 1);
        if (!seen) BAD("'%s': out of memory", path);
        const char *k;
        json_t *e;
        int rc = 0;
        json_object_foreach(v, k, e) {
            char p[96];
            snprintf(p, sizeof p, "%s.%.40s", path, k);
            if (!proto_valid_hostname(k)) {
                snprintf(why, wl, "'%s': '%.40s' is not a valid host name", path, k);
                rc = -1;
            } else if (!json_is_string(e)) {
                snprintf(why, wl, "'%s' must be a rank set (\"0-511,1024-2047:2\")", p);
                rc = -1;
            } else if (check_ranks(e, seen, p, why, wl) < 0) {
                rc = -1;
            }
            if (rc) break;
        }
        free(seen);
        return rc;
    }
    case F_ARRAY: {
        if (json_is_array(v) && json_array_size(v) == 0 && f->min >= 1)
            BAD("'%s' is an empty list: give %.0f to %.0f elements%s", path, f->min, f->max, f->required ? "" : ", or leave it out");
        if (!json_is_array(v) || json_array_size(v) < (size_t)f->min || json_array_size(v) > (size_t)f->max)
            BAD("'%s' must be an array of %.0f to %.0f elements", path, f->min, f->max);
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            char p[96];
            snprintf(p, sizeof p, "%s[%zu]", path, i);
            if (check_value(f->sub, e, p, why, wl) != 0) return -1;
        }
        return 0;
    }
    case F_OBJECT:
        if (!json_is_object(v)) BAD("'%s' must be an object", path);
        return f->sub ? check_members(f->sub, v, path, why, wl) : 0;
    case F_HOSTMAP: {
        if (!json_is_object(v) || json_object_size(v) > (size_t)f->max)
            BAD("'%s' must be an object of at most %.0f host names", path, f->max);
        const char *k;
        json_t *e;
        json_object_foreach(v, k, e) {
            char p[96];
            snprintf(p, sizeof p, "%s.%.40s", path, k);
            if (!proto_valid_hostname(k)) BAD("'%s': '%.40s' is not a valid host name", path, k);
            if (check_value(f->sub, e, p, why, wl) != 0) return -1;
        }
        return 0;
    }
    }
    BAD("internal: unknown field type");
}

/* The members fs of object obj: required ones present, each valid; members
 * fs does not name are removed. */
static int check_members(const struct field *fs, json_t *obj, const char *path, char *why, size_t wl)
{
    const struct field *f;
    for (f = fs; f->name; f++) {
        json_t *v = json_object_get(obj, f->name);
        char p[96];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", f->name);
        if (!v) {
            if (f->required) BAD("missing '%s'", p);
            continue;
        }
        if (check_value(f, v, p, why, wl) != 0) return -1;
        if (f->type == F_RANKS && json_is_array(v)) { /* one form from here on: the rank set */
            unsigned char *m = calloc(PROTO_MAX_PROCS, 1);
            char *s = NULL;
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e) if (m) m[json_integer_value(e)] = 1;
            if (!m || !(s = rankset_encode_marked(m, PROTO_MAX_PROCS, 1))) {
                free(m);
                BAD("'%s': out of memory", p);
            }
            json_object_set_new(obj, f->name, json_string(s));
            free(m), free(s);
        }
    }
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(obj, tmp, k, v) {
        for (f = fs; f->name && strcmp(f->name, k) != 0; f++) {}
        if (!f->name && !(!*path && (!strcmp(k, "v") || !strcmp(k, "id") || !strcmp(k, "cmd")))) json_object_del(obj, k);
    }
    return 0;
}
#undef BAD

const char *schema_command(const char *cmd)
{
    const struct spec *s = find(requests, cmd);
    return s ? s->name : NULL;
}

int schema_check_request(const char *cmd, json_t *root, char *why, size_t wl)
{
    const struct spec *s = find(requests, cmd);
    if (!s) {
        snprintf(why, wl, "unknown command '%.64s'", cmd);
        return -2;
    }
    char w[300];
    if (check_members(s->f, root, "", w, sizeof w) != 0) {
        snprintf(why, wl, "%s: %s", s->name, w);
        return -1;
    }
    if (strcmp(s->name, "event") != 0) return 0;
    const char *kind = json_string_value(json_object_get(root, "kind"));
    const struct spec *e = find(events, kind);
    if (!e) {
        snprintf(why, wl, "event: unknown kind '%.32s' (known: %s)", kind, SCHEMA_EVENT_KINDS);
        return -1;
    }
    json_t *d = json_object_get(root, "details");
    if (!d) json_object_set_new(root, "details", d = json_object());
    if (check_members(e->f, d, "details", w, sizeof w) != 0) {
        snprintf(why, wl, "event %s: %s", e->name, w);
        return -1;
    }
    return 0;
}

int schema_check_result(const char *cmd, json_t *result, char *why, size_t wl)
{
    const char *as = !strcmp(cmd, "shrink") || !strcmp(cmd, "resize") ? "expand" : !strcmp(cmd, "unfold") ? "fold" : cmd;
    const struct spec *s = find(results, as);
    if (!s) {
        snprintf(why, wl, "a reply to '%.16s' is not expected", cmd);
        return -1;
    }
    if (!json_is_object(result)) {
        snprintf(why, wl, "the result of %s must be an object", cmd);
        return -1;
    }
    char w[300];
    if (check_members(s->f, result, "result", w, sizeof w) != 0) {
        snprintf(why, wl, "reply to %s: %s", cmd, w);
        return -1;
    }
    return 0;
}
