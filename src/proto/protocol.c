/* protocol.c -- parse, validate and build control-protocol messages
 * (docs/protocol.md) with jansson, and cut byte streams into bounded lines.
 * Pure: no sockets, no MPI, no global mutable state. */
#include "protocol.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ftype { F_END = 0, F_INT, F_NUM, F_STR, F_BOOL, F_ENUM, F_HEX64, F_HOSTS, F_RANKS, F_HOSTCOUNTS, F_ARRAYS,
             F_OBJ, F_TAG, F_ARGV };

struct field {
    const char *name;
    enum ftype type;
    int required;
    double min, max;     /* F_INT / F_NUM bounds; F_STR: max length in max */
    const char *choices; /* F_ENUM: comma-separated */
};

struct cmdspec {
    const char *cmd;
    struct field f[20];
};

#define JOB {"job", F_INT, 1, 1, 2147483647.0, NULL}
#define JOB_OPT {"job", F_INT, 0, 1, 2147483647.0, NULL}
#define AT_ITER {"at_iteration", F_INT, 0, 0, 4.0e18, NULL}
#define PROCS_MAX ((double)PROTO_MAX_PROCS)

static const struct cmdspec commands[] = {
    {"hello", {{"server", F_STR, 1, 0, 64, NULL}, {"version", F_STR, 0, 0, 32, NULL},
               {"auth", F_ENUM, 1, 0, 0, "peercred,hmac-sha256"}, {"nonce", F_HEX64, 0, 0, 0, NULL}}},
    {"auth", {{"nonce", F_HEX64, 1, 0, 0, NULL}, {"mac", F_HEX64, 1, 0, 0, NULL}}},
    {"list", {{NULL, F_END, 0, 0, 0, NULL}}},
    {"slots", {{NULL, F_END, 0, 0, 0, NULL}}},
    {"events", {JOB, {"since", F_NUM, 0, 0, 1e12, NULL}, {"max", F_INT, 0, 1, 4096, NULL}}},
    {"drain", {{"on", F_BOOL, 0, 0, 0, NULL}}},
    {"shutdown", {{NULL, F_END, 0, 0, 0, NULL}}},
    {"status", {JOB, {"history", F_INT, 0, 0, 4096, NULL}}},
    {"expand", {JOB_OPT, {"n", F_INT, 1, 1, PROCS_MAX, NULL}, AT_ITER, {"hosts", F_HOSTS, 0, 0, 0, NULL}}},
    {"shrink", {JOB_OPT, {"n", F_INT, 1, 1, PROCS_MAX, NULL}, AT_ITER, {"ranks", F_RANKS, 0, 0, 0, NULL}}},
    {"resize", {JOB_OPT, {"to", F_INT, 1, 1, PROCS_MAX, NULL}, AT_ITER, {"hosts", F_HOSTS, 0, 0, 0, NULL}}},
    {"io", {JOB_OPT, {"action", F_ENUM, 1, 0, 0, "hold,release,grant"}}},
    {"period", {JOB_OPT, {"seconds", F_NUM, 1, 0.01, 3600, NULL}}},
    {"cancel", {JOB, {"command", F_INT, 0, 1, 2147483647.0, NULL}}},
    {"revoke", {JOB_OPT, {"what", F_ENUM, 1, 0, 0, "command,hold,token,all"}, {"command", F_INT, 0, 1, 2147483647.0, NULL},
                {"reason", F_STR, 0, 0, 200, NULL}}},
    {"cost", {JOB, {"to", F_INT, 1, 1, PROCS_MAX, NULL}}},
    /* process folding (docs/folding.md): cores per host */
    {"fold", {JOB_OPT, {"cores", F_INT, 1, 1, PROCS_MAX, NULL}}},
    {"unfold", {JOB_OPT}},
    {"register", {{"tag", F_TAG, 1, 0, 0, NULL}, {"pid", F_INT, 1, 1, 2147483647.0, NULL},
                  {"binary", F_STR, 1, 0, 4096, NULL}, {"procs", F_INT, 1, 1, PROCS_MAX, NULL},
                  {"hosts", F_HOSTCOUNTS, 0, 0, 0, NULL}, JOB_OPT, {"arrays", F_ARRAYS, 0, 0, 0, NULL},
                  {"malleable", F_BOOL, 0, 0, 0, NULL}, {"mpi", F_STR, 0, 0, 64, NULL},
                  {"launcher", F_ENUM, 0, 0, 0, "mpiexec,srun-pmi2,srun-pmix,srun"},
                  {"start", F_NUM, 0, 0, 1e12, NULL}, {"uid", F_INT, 0, 0, 4294967295.0, NULL},
                  {"min_procs", F_INT, 0, 1, PROCS_MAX, NULL}, {"max_procs", F_INT, 0, 1, PROCS_MAX, NULL}}},
    {"sample", {JOB, {"t", F_NUM, 1, 0, 1e12, NULL}, {"iteration", F_INT, 1, 0, 4.0e18, NULL},
                {"procs", F_INT, 1, 1, PROCS_MAX, NULL}, {"iters", F_INT, 0, 0, 4.0e18, NULL},
                {"interval_s", F_NUM, 0, 0, 1e9, NULL}, {"compute_s", F_NUM, 0, 0, 1e9, NULL},
                {"comm_s", F_NUM, 0, 0, 1e9, NULL}, {"io_s", F_NUM, 0, 0, 1e9, NULL},
                {"bytes", F_INT, 0, 0, 9.0e18, NULL}, {"io_calls", F_INT, 0, 0, 9.0e18, NULL},
                {"io_held", F_BOOL, 0, 0, 0, NULL}, {"dropped", F_INT, 0, 0, 9.0e18, NULL},
                {"control_point", F_BOOL, 0, 0, 0, NULL}, {"arrays", F_ARRAYS, 0, 0, 0, NULL},
                {"maxiter", F_INT, 0, 0, 4.0e18, NULL}}},
    {"submit", {{"argv", F_ARGV, 1, 0, 0, NULL}, {"n", F_INT, 1, 1, PROCS_MAX, NULL}, {"min", F_INT, 0, 1, PROCS_MAX, NULL},
                {"max", F_INT, 0, 1, PROCS_MAX, NULL}, {"cwd", F_STR, 0, 1, 4096, NULL}}},
    {"queue", {{NULL, F_END, 0, 0, 0, NULL}}},
    {"heartbeat", {JOB}},
    {"exit", {JOB, {"status", F_INT, 0, -2147483648.0, 2147483647.0, NULL}}},
    {"event", {JOB, {"kind", F_STR, 1, 1, 32, NULL}, {"details", F_OBJ, 0, 0, 0, NULL}}},
    {NULL, {{NULL, F_END, 0, 0, 0, NULL}}},
};

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

int proto_valid_hostname(const char *s)
{
    if (!s) return 0;
    size_t n = strlen(s);
    if (n < 1 || n > 253) return 0;
    size_t label = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '.') {
            if (label == 0 || s[i - 1] == '-') return 0;
            label = 0;
            continue;
        }
        if (!(isalnum(c) && c < 128) && c != '-') return 0;
        if (c == '-' && label == 0) return 0;
        if (++label > 63) return 0;
    }
    return label > 0 && s[n - 1] != '-';
}

int proto_valid_tag(const char *s)
{
    if (!s) return 0;
    size_t n = strlen(s);
    if (n < 1 || n > 63) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(c < 128 && (isalnum(c) || c == '.' || c == '_' || c == '-'))) return 0;
    }
    return 1;
}

static int is_hex64(const char *s)
{
    if (strlen(s) != 64) return 0;
    for (int i = 0; i < 64; i++)
        if (!isxdigit((unsigned char)s[i])) return 0;
    return 1;
}

/* Integer in [min, max]: jansson integers only (no 2.0). */
static int int_ok(const json_t *v, double min, double max)
{
    if (!json_is_integer(v)) return 0;
    long long x = json_integer_value(v);
    return (double)x >= min && (double)x <= max;
}

static int check_field(const struct field *f, const json_t *v, char *reason, size_t rl)
{
#define BAD(...) do { snprintf(reason, rl, __VA_ARGS__); return -1; } while (0)
    switch (f->type) {
    case F_END: return 0;
    case F_INT:
        if (!int_ok(v, f->min, f->max)) BAD("'%s' must be an integer from %.0f to %.0f", f->name, f->min, f->max);
        return 0;
    case F_NUM: {
        if (!json_is_number(v)) BAD("'%s' must be a number", f->name);
        double x = json_number_value(v);
        if (!isfinite(x) || x < f->min || x > f->max) BAD("'%s' must be from %g to %g", f->name, f->min, f->max);
        return 0;
    }
    case F_STR:
        if (!json_is_string(v)) BAD("'%s' must be a string", f->name);
        if (json_string_length(v) < (size_t)f->min || json_string_length(v) > (size_t)f->max)
            BAD("'%s' must be %.0f to %.0f characters", f->name, f->min, f->max);
        return 0;
    case F_BOOL:
        if (!json_is_boolean(v)) BAD("'%s' must be true or false", f->name);
        return 0;
    case F_ENUM:
        if (!json_is_string(v) || !enum_has(f->choices, json_string_value(v)))
            BAD("'%s' must be one of %s", f->name, f->choices);
        return 0;
    case F_HEX64:
        if (!json_is_string(v) || !is_hex64(json_string_value(v))) BAD("'%s' must be 64 hex digits", f->name);
        return 0;
    case F_TAG:
        if (!json_is_string(v) || !proto_valid_tag(json_string_value(v)))
            BAD("'%s' must be 1 to 63 characters of letters, digits, '.', '_' or '-'", f->name);
        return 0;
    case F_OBJ:
        if (!json_is_object(v)) BAD("'%s' must be an object", f->name);
        return 0;
    case F_ARGV: { /* a command line: 1 to 256 strings of at most 4096 bytes, the first not empty */
        if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > 256)
            BAD("'%s' must be an array of 1 to 256 strings", f->name);
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            if (!json_is_string(e) || json_string_length(e) > 4096 || strlen(json_string_value(e)) != json_string_length(e) ||
                (i == 0 && json_string_length(e) == 0))
                BAD("'%s' element %zu must be a string of at most 4096 bytes", f->name, i);
        }
        return 0;
    }
    case F_HOSTS: {
        if (!json_is_array(v) || json_array_size(v) > PROTO_MAX_HOSTS)
            BAD("'%s' must be an array of at most %d host names", f->name, PROTO_MAX_HOSTS);
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            if (!json_is_string(e) || !proto_valid_hostname(json_string_value(e)))
                BAD("'%s'[%zu] is not a valid host name (letters, digits, '-' and '.' only)", f->name, i);
        }
        return 0;
    }
    case F_RANKS: {
        if (!json_is_array(v) || json_array_size(v) > PROTO_MAX_HOSTS)
            BAD("'%s' must be an array of at most %d ranks", f->name, PROTO_MAX_HOSTS);
        size_t i, j;
        json_t *e;
        json_array_foreach(v, i, e) {
            if (!int_ok(e, 0, PROCS_MAX - 1)) BAD("'%s'[%zu] must be a rank from 0 to %d", f->name, i, PROTO_MAX_PROCS - 1);
            for (j = 0; j < i; j++)
                if (json_integer_value(json_array_get(v, j)) == json_integer_value(e))
                    BAD("'%s' names rank %lld twice", f->name, json_integer_value(e));
        }
        return 0;
    }
    case F_HOSTCOUNTS: {
        if (!json_is_array(v) || json_array_size(v) > PROTO_MAX_HOSTS)
            BAD("'%s' must be an array of at most %d {name, procs} objects", f->name, PROTO_MAX_HOSTS);
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            json_t *n = json_object_get(e, "name"), *p = json_object_get(e, "procs");
            if (!json_is_object(e) || !json_is_string(n) || !proto_valid_hostname(json_string_value(n)) ||
                !int_ok(p, 1, PROCS_MAX))
                BAD("'%s'[%zu] must be {\"name\": host name, \"procs\": 1..%d}", f->name, i, PROTO_MAX_PROCS);
        }
        return 0;
    }
    case F_ARRAYS: {
        if (!json_is_array(v) || json_array_size(v) > 256) BAD("'%s' must be an array of at most 256 objects", f->name);
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            json_t *n = json_object_get(e, "name");
            if (!json_is_object(e) || (n && (!json_is_string(n) || json_string_length(n) > 63)) ||
                !int_ok(json_object_get(e, "elements"), 0, 9.0e18) ||
                !int_ok(json_object_get(e, "elem_size"), 1, 1048576))
                BAD("'%s'[%zu] must be {\"name\", \"elements\": >= 0, \"elem_size\": 1..1048576}", f->name, i);
        }
        return 0;
    }
    }
    BAD("internal: unknown field type");
#undef BAD
}

static const struct cmdspec *find_cmd(const char *cmd)
{
    for (const struct cmdspec *c = commands; c->cmd; c++)
        if (strcmp(c->cmd, cmd) == 0) return c;
    return NULL;
}

int proto_parse(const char *line, size_t len, struct proto_msg *msg, const char **code, char *reason,
                size_t reasonlen)
{
    memset(msg, 0, sizeof *msg);
    msg->kind = PROTO_INVALID;
    msg->id = -1;
    *code = NULL;
    if (reasonlen) reason[0] = '\0';
#define FAIL(c, ...) do { *code = (c); snprintf(reason, reasonlen, __VA_ARGS__); goto fail; } while (0)
    json_t *root = NULL;
    if (len + 1 > PROTO_MAX_REPLY) FAIL(PERR_TOO_LARGE, "message of %zu bytes exceeds the limit of %d", len, PROTO_MAX_REPLY);
    json_error_t jerr;
    root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) FAIL(PERR_BAD_JSON, "not valid JSON: %s (column %d)", jerr.text, jerr.column);
    if (!json_is_object(root)) FAIL(PERR_BAD_REQUEST, "a message must be a JSON object");
    json_t *id = json_object_get(root, "id");
    if (json_is_integer(id) && json_integer_value(id) >= 0) msg->id = json_integer_value(id);
    json_t *v = json_object_get(root, "v");
    if (!json_is_integer(v)) FAIL(PERR_BAD_VERSION, "missing protocol version \"v\" (this side speaks %d)", PROTO_VERSION);
    if (json_integer_value(v) != PROTO_VERSION)
        FAIL(PERR_BAD_VERSION, "protocol version %lld is not supported (this side speaks %d)", json_integer_value(v),
             PROTO_VERSION);
    json_t *cmd = json_object_get(root, "cmd"), *ok = json_object_get(root, "ok");
    if (cmd && ok) FAIL(PERR_BAD_REQUEST, "a message has either \"cmd\" (request) or \"ok\" (reply), not both");
    if (ok) {
        if (!json_is_boolean(ok)) FAIL(PERR_BAD_REQUEST, "\"ok\" must be true or false");
        if (!(json_is_null(id) || (json_is_integer(id) && json_integer_value(id) >= 0)))
            FAIL(PERR_BAD_REQUEST, "a reply needs \"id\": a non-negative integer or null");
        msg->ok = json_is_true(ok);
        json_t *res = json_object_get(root, "result");
        if (res && !json_is_object(res)) FAIL(PERR_BAD_REQUEST, "\"result\" must be an object");
        if (!msg->ok) {
            json_t *e = json_object_get(root, "error"), *r = json_object_get(root, "reason");
            if (!json_is_string(e) || !json_is_string(r))
                FAIL(PERR_BAD_REQUEST, "an error reply needs \"error\" and \"reason\" strings");
        }
        msg->kind = PROTO_REPLY;
        msg->root = root;
        return PROTO_REPLY;
    }
    if (!json_is_string(cmd)) FAIL(PERR_BAD_REQUEST, "a request needs a \"cmd\" string");
    if (!json_is_integer(id) || json_integer_value(id) < 0)
        FAIL(PERR_BAD_REQUEST, "a request needs \"id\": a non-negative integer");
    const struct cmdspec *spec = find_cmd(json_string_value(cmd));
    if (!spec) FAIL(PERR_UNKNOWN_COMMAND, "unknown command '%.64s'", json_string_value(cmd));
    for (const struct field *f = spec->f; f->name; f++) {
        json_t *fv = json_object_get(root, f->name);
        if (!fv) {
            if (f->required) FAIL(PERR_BAD_ARGUMENT, "%s: missing '%s'", spec->cmd, f->name);
            continue;
        }
        char why[256];
        if (check_field(f, fv, why, sizeof why) != 0) FAIL(PERR_BAD_ARGUMENT, "%s: %s", spec->cmd, why);
    }
    msg->kind = PROTO_REQUEST;
    msg->root = root;
    msg->cmd = spec->cmd;
    return PROTO_REQUEST;
fail:
    json_decref(root);
    return PROTO_INVALID;
#undef FAIL
}

void proto_msg_free(struct proto_msg *msg)
{
    if (msg->root) json_decref(msg->root);
    memset(msg, 0, sizeof *msg);
    msg->id = -1;
}

long long proto_get_int(const json_t *obj, const char *key, long long dflt)
{
    json_t *v = json_object_get(obj, key);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

double proto_get_num(const json_t *obj, const char *key, double dflt)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

const char *proto_get_str(const json_t *obj, const char *key, const char *dflt)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : dflt;
}

static char *finish_max(json_t *o, size_t max)
{
    if (!o) return NULL;
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!s) return NULL;
    size_t n = strlen(s);
    if (n + 1 > max) {
        free(s);
        return NULL;
    }
    char *line = realloc(s, n + 2);
    if (!line) {
        free(s);
        return NULL;
    }
    line[n] = '\n';
    line[n + 1] = '\0';
    return line;
}

static char *finish(json_t *o) { return finish_max(o, PROTO_MAX_LINE); }

static json_t *base(const json_t *extra)
{
    json_t *o = extra ? json_deep_copy(extra) : json_object();
    if (!o || !json_is_object(o)) {
        json_decref(o);
        return NULL;
    }
    json_object_set_new(o, "v", json_integer(PROTO_VERSION));
    return o;
}

char *proto_request(long long id, const char *cmd, const json_t *args)
{
    json_t *o = base(args);
    if (!o) return NULL;
    json_object_del(o, "ok");
    json_object_set_new(o, "id", json_integer(id));
    json_object_set_new(o, "cmd", json_string(cmd));
    return finish(o);
}

char *proto_reply_ok(long long id, const json_t *result)
{
    json_t *o = base(NULL);
    if (!o) return NULL;
    json_object_set_new(o, "id", id >= 0 ? json_integer(id) : json_null());
    json_object_set_new(o, "ok", json_true());
    json_object_set_new(o, "result", result ? json_deep_copy(result) : json_object());
    return finish_max(o, PROTO_MAX_REPLY);
}

char *proto_reply_err(long long id, const char *code, const char *reason)
{
    json_t *o = base(NULL);
    if (!o) return NULL;
    json_object_set_new(o, "id", id >= 0 ? json_integer(id) : json_null());
    json_object_set_new(o, "ok", json_false());
    json_object_set_new(o, "error", json_string(code ? code : PERR_INTERNAL));
    /* reasons may quote user input: keep them valid UTF-8 and short */
    char buf[512];
    snprintf(buf, sizeof buf, "%s", reason ? reason : "");
    json_t *r = json_string(buf);
    if (!r) {
        for (char *p = buf; *p; p++)
            if ((unsigned char)*p >= 128 || (unsigned char)*p < 32) *p = '?';
        r = json_string(buf);
    }
    json_object_set_new(o, "reason", r);
    return finish(o);
}

void linebuf_init(struct linebuf *lb) { memset(lb, 0, sizeof *lb); }

void linebuf_init_max(struct linebuf *lb, size_t max)
{
    memset(lb, 0, sizeof *lb);
    lb->max = max;
}

static size_t lb_max(const struct linebuf *lb) { return lb->max ? lb->max : PROTO_MAX_LINE; }

void linebuf_free(struct linebuf *lb)
{
    free(lb->buf);
    memset(lb, 0, sizeof *lb);
}

int linebuf_append(struct linebuf *lb, const char *data, size_t n)
{
    if (lb->overflow) return -1;
    if (n == 0) return 0;
    if (lb->len + n > lb->cap) {
        size_t cap = lb->cap ? lb->cap : 4096;
        while (cap < lb->len + n) cap *= 2;
        /* complete lines are consumed as they arrive, so the buffer never needs
         * much more than one maximal line plus one read */
        if (cap > 4 * lb_max(lb)) cap = lb->len + n;
        char *nb = realloc(lb->buf, cap);
        if (!nb) {
            lb->overflow = 1;
            return -1;
        }
        lb->buf = nb;
        lb->cap = cap;
    }
    memcpy(lb->buf + lb->len, data, n);
    lb->len += n;
    /* the partial line after the last newline must stay under the limit */
    size_t start = lb->len;
    while (start > 0 && lb->buf[start - 1] != '\n') start--;
    if (lb->len - start >= lb_max(lb)) {
        lb->overflow = 1;
        return -1;
    }
    return 0;
}

long linebuf_next(struct linebuf *lb, char **line)
{
    *line = NULL;
    char *nl = lb->len ? memchr(lb->buf, '\n', lb->len) : NULL;
    if (!nl) return 0;
    size_t n = (size_t)(nl - lb->buf);
    size_t keep = n;
    if (keep > 0 && lb->buf[keep - 1] == '\r') keep--;
    if (n + 1 > lb_max(lb)) {
        lb->overflow = 1;
        return -1;
    }
    char *s = malloc(keep + 1);
    if (!s) return -1;
    memcpy(s, lb->buf, keep);
    s[keep] = '\0';
    memmove(lb->buf, nl + 1, lb->len - n - 1);
    lb->len -= n + 1;
    *line = s;
    return (long)keep;
}
