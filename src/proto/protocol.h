/* protocol.h -- Ductile's control protocol (docs/protocol.md): versioned,
 * newline-delimited JSON messages parsed and built with jansson.  Pure C (no
 * MPI, no sockets, no global state): framing of a byte stream into lines with
 * a size bound, parsing and validation of one message against the command
 * table, builders for requests and replies, and the strict host-name check
 * applied before a host name can reach a spawn.  Unit-tested by
 * tests/unit/test_protocol.c and fuzzed by tests/fuzz/fuzz_protocol.c. */
#ifndef DUCTILE_PROTOCOL_H
#define DUCTILE_PROTOCOL_H

#include <stddef.h>
#include <jansson.h>

#define PROTO_VERSION 1
/* Largest message, newline included.  A longer line is an error and the
 * connection that sent it is dropped. */
#define PROTO_MAX_LINE 65536
/* Largest message from a peer that has authenticated (the Unix socket's
 * peers from the start): a registration or a command whose rank lists name
 * 65,536 ranks in any placement (rank sets, src/common/rankset.h: at most
 * about 6 bytes a rank) fits.  Requests are built up to this size. */
#define PROTO_MAX_MSG (1 << 20)
/* Largest reply a client accepts (a status with a long history): replies are
 * built up to this size and the client sessions read up to it.  A server
 * still reads at most PROTO_MAX_LINE per message. */
#define PROTO_MAX_REPLY (16 << 20)
#define PROTO_MAX_HOSTS 1024
#define PROTO_MAX_PROCS 65536

/* Error codes carried in replies ("error" member). */
#define PERR_BAD_JSON "bad_json"
#define PERR_TOO_LARGE "too_large"
#define PERR_BAD_VERSION "bad_version"
#define PERR_BAD_REQUEST "bad_request"
#define PERR_UNKNOWN_COMMAND "unknown_command"
#define PERR_BAD_ARGUMENT "bad_argument"
#define PERR_UNKNOWN_JOB "unknown_job"
#define PERR_NO_SLOTS "no_slots"
#define PERR_NOT_SUPPORTED "not_supported"
#define PERR_BUSY "busy"
#define PERR_AUTH_REQUIRED "auth_required"
#define PERR_AUTH_FAILED "auth_failed"
#define PERR_JOB_UNREACHABLE "job_unreachable"
#define PERR_TIMEOUT "timeout"
#define PERR_NOT_ALLOWED "not_allowed"
#define PERR_INTERNAL "internal"

enum proto_kind { PROTO_INVALID = -1, PROTO_REQUEST = 1, PROTO_REPLY = 2 };

/* One parsed, validated message.  `root` is owned by the message. */
struct proto_msg {
    enum proto_kind kind;
    json_t *root;
    const char *cmd;   /* requests: the command name (points into root) */
    long long id;      /* request id, or the id a reply answers (-1: null/absent) */
    int ok;            /* replies: 1 success, 0 error */
};

/* Parse and validate one message (the line without its newline; `len`
 * bytes, need not be NUL-terminated).  On success returns PROTO_REQUEST or
 * PROTO_REPLY and fills *msg (free it with proto_msg_free).  On failure
 * returns PROTO_INVALID, leaves *msg empty, writes an error code (PERR_*)
 * into *code, a one-line reason into reason, and the request id into
 * msg->id when one could be read (else -1), so that the caller can answer. */
int proto_parse(const char *line, size_t len, struct proto_msg *msg, const char **code,
                char *reason, size_t reasonlen);
void proto_msg_free(struct proto_msg *msg);

/* Accessors for validated messages (defaults when the member is absent). */
long long proto_get_int(const json_t *obj, const char *key, long long dflt);
double proto_get_num(const json_t *obj, const char *key, double dflt);
const char *proto_get_str(const json_t *obj, const char *key, const char *dflt);

/* Builders: each returns a malloc'ed, NUL-terminated line ending in '\n', or
 * NULL when out of memory or larger than PROTO_MAX_MSG (requests) or
 * PROTO_MAX_REPLY (replies).  `args` / `result`
 * are borrowed (may be NULL); members "v", "id", "cmd", "ok" are set here. */
char *proto_request(long long id, const char *cmd, const json_t *args);
char *proto_reply_ok(long long id, const json_t *result);
/* the same with the result already as JSON text (an object, n bytes; a large answer written
 * directly, ductiled's list): NULL when the line would pass PROTO_MAX_REPLY */
char *proto_reply_ok_text(long long id, const char *result, size_t n);
char *proto_reply_err(long long id, const char *code, const char *reason);

/* Strict host name: 1..253 characters, dot-separated labels of 1..63 letters,
 * digits and '-' (not first or last in a label).  No spaces, commas,
 * semicolons, quotes, '=' or anything else that could end a spawn argument
 * or an info value.  Returns 1 when valid. */
int proto_valid_hostname(const char *s);
/* Job tag from the application (DUCTILE_JOB_ID): 1..63 of [A-Za-z0-9._-]. */
int proto_valid_tag(const char *s);

/* Framing: accumulate bytes from a stream and cut them into lines. */
struct linebuf {
    char *buf;
    size_t len, cap; /* len bytes pending, at buf + head (the owner empties it with len = 0) */
    size_t head;     /* lines taken from the front are skipped, not moved: a backlog of many lines is cut in O(bytes) */
    int overflow; /* a line longer than the limit was seen */
    size_t max;   /* longest line accepted, newline included (0: PROTO_MAX_LINE) */
    size_t partial; /* bytes after the last newline (at most len): a long line is scanned once, as it comes */
};
void linebuf_init(struct linebuf *lb);
/* Same, accepting lines up to max bytes (clients reading replies). */
void linebuf_init_max(struct linebuf *lb, size_t max);
void linebuf_free(struct linebuf *lb);
/* Append bytes.  Returns 0, or -1 when the pending partial line would exceed
 * PROTO_MAX_LINE (overflow is then set; the connection should be dropped). */
int linebuf_append(struct linebuf *lb, const char *data, size_t n);
/* 1 when a complete line is buffered. */
int linebuf_has_line(const struct linebuf *lb);
/* Next complete line: returns its length (without '\n', a trailing '\r' is
 * removed too) and sets *line to a NUL-terminated copy the caller frees; 0
 * with *line == NULL when no complete line is buffered. */
long linebuf_next(struct linebuf *lb, char **line);

#endif
