/* protocol.c -- parse, validate and build control-protocol messages
 * (docs/protocol.md) with jansson, and cut byte streams into bounded lines.
 * Pure: no sockets, no MPI, no global mutable state. */
#include "protocol.h"

#include "schema.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
            if (!json_is_string(e) || !json_is_string(r) || json_string_length(e) > 64 || json_string_length(r) > 1024)
                FAIL(PERR_BAD_REQUEST, "an error reply needs \"error\" (at most 64 bytes) and \"reason\" (at most 1024) strings");
        }
        msg->kind = PROTO_REPLY;
        msg->root = root;
        return PROTO_REPLY;
    }
    if (!json_is_string(cmd)) FAIL(PERR_BAD_REQUEST, "a request needs a \"cmd\" string");
    if (!json_is_integer(id) || json_integer_value(id) < 0)
        FAIL(PERR_BAD_REQUEST, "a request needs \"id\": a non-negative integer");
    /* the command's schema (schema.c): every member checked, unknown ones removed */
    char why[400];
    int sc = schema_check_request(json_string_value(cmd), root, why, sizeof why);
    if (sc == -2) FAIL(PERR_UNKNOWN_COMMAND, "%s", why);
    if (sc != 0) FAIL(PERR_BAD_ARGUMENT, "%s", why);
    msg->kind = PROTO_REQUEST;
    msg->root = root;
    msg->cmd = schema_command(json_string_value(cmd));
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

static char *finish(json_t *o) { return finish_max(o, PROTO_MAX_MSG); }

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
    /* shared, not copied (a list of 2,000 jobs is a large tree); the caller keeps its reference */
    json_object_set_new(o, "result", result ? json_incref((json_t *)result) : json_object());
    return finish_max(o, PROTO_MAX_REPLY);
}

char *proto_reply_ok_text(long long id, const char *result, size_t n)
{
    char head[96];
    int h = id >= 0 ? snprintf(head, sizeof head, "{\"v\":%d,\"id\":%lld,\"ok\":true,\"result\":", PROTO_VERSION, id)
                    : snprintf(head, sizeof head, "{\"v\":%d,\"id\":null,\"ok\":true,\"result\":", PROTO_VERSION);
    if (h < 0 || (size_t)h + n + 3 > PROTO_MAX_REPLY) return NULL;
    char *line = malloc((size_t)h + n + 3);
    if (!line) return NULL;
    memcpy(line, head, (size_t)h);
    memcpy(line + h, result, n);
    memcpy(line + h + n, "}\n", 3);
    return line;
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

/* what is pending to the front (before the buffer grows or is appended to past its end) */
static void lb_compact(struct linebuf *lb)
{
    if (lb->head && lb->len) memmove(lb->buf, lb->buf + lb->head, lb->len);
    lb->head = 0;
}

int linebuf_has_line(const struct linebuf *lb) { return lb->len && memchr(lb->buf + lb->head, '\n', lb->len) != NULL; }

int linebuf_append(struct linebuf *lb, const char *data, size_t n)
{
    if (lb->overflow) return -1;
    if (n == 0) return 0;
    if (lb->head + lb->len + n > lb->cap) lb_compact(lb);
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
    memcpy(lb->buf + lb->head + lb->len, data, n);
    /* the partial line after the last newline must stay under the limit; only the new bytes are
     * scanned (a 1 MB answer read 8 KiB at a time was scanned back to its start at each read) */
    if (lb->partial > lb->len) lb->partial = lb->len; /* the owner emptied the buffer (len = 0) */
    size_t k = n;
    while (k > 0 && data[k - 1] != '\n') k--;
    lb->partial = k > 0 ? n - k : lb->partial + n;
    lb->len += n;
    if (lb->partial >= lb_max(lb)) {
        lb->overflow = 1;
        return -1;
    }
    return 0;
}

long linebuf_next(struct linebuf *lb, char **line)
{
    *line = NULL;
    if (lb->partial > lb->len) lb->partial = lb->len;
    if (!lb->len) {
        lb->head = 0;
        /* a backlog's buffer is given back once drained: 2,000 connections that were behind keep no
         * high-water mark each (ductiled's memory stays flat, issue 25, item 4) */
        if (lb->cap > 2 * 16384) {
            free(lb->buf);
            lb->buf = NULL;
            lb->cap = 0;
        }
        return 0;
    }
    char *start = lb->buf + lb->head;
    char *nl = lb->len > lb->partial ? memchr(start, '\n', lb->len - lb->partial) : NULL; /* none in the partial line */
    if (!nl) return 0;
    size_t n = (size_t)(nl - start);
    size_t keep = n;
    if (keep > 0 && start[keep - 1] == '\r') keep--;
    if (n + 1 > lb_max(lb)) {
        lb->overflow = 1;
        return -1;
    }
    char *s = malloc(keep + 1);
    if (!s) return -1;
    memcpy(s, start, keep);
    s[keep] = '\0';
    lb->head += n + 1; /* not moved: the rest is cut from where it is */
    lb->len -= n + 1;
    if (!lb->len) lb->head = 0;
    *line = s;
    return (long)keep;
}
