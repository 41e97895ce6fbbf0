/* session.h -- the client side of a control connection, shared by ductilectl
 * and the application controller thread: connect, read the server's hello,
 * authenticate when the server asks for it (TCP: HMAC challenge-response,
 * both sides proving knowledge of the secret), then request/reply calls with
 * deadlines. */
#ifndef DUCTILE_SESSION_H
#define DUCTILE_SESSION_H

#include <jansson.h>

#include "protocol.h"
#include "seal.h"

struct session {
    int fd;
    long long next_id;
    struct linebuf lb;
    char server_version[33];
    struct seal seal; /* on after an HMAC handshake: every message carries a MAC (seal.h) */
};

/* Connect to `address` (see net_parse_addr; NULL or "" = the default
 * per-user socket) and complete the hello/auth exchange within timeout_ms.
 * secret_path may be NULL (then a server that requires authentication is an
 * error).  Returns 0, or -1 with a message; *auth_failed is set to 1 when the
 * failure is an authentication refusal. */
int session_open(struct session *s, const char *address, const char *secret_path, int timeout_ms,
                 int *auth_failed, char *err, size_t errlen);
void session_close(struct session *s);

/* Send request `cmd` with `args` (borrowed, may be NULL) and wait up to
 * timeout_ms for its reply (other messages are skipped).  Returns 1 on an ok
 * reply (*result set to a new reference, or NULL if not wanted), 0 on an
 * error reply (*code points to a static copy of the code, reason filled),
 * -1 on a transport failure (reason filled). */
int session_call(struct session *s, const char *cmd, const json_t *args, int timeout_ms, json_t **result,
                 char *code, size_t codelen, char *reason, size_t reasonlen);

/* Send one line (malloc'ed, taken; NULL is a no-op success) within
 * timeout_ms, sealed when the handshake turned the MACs on.  0 / -1. */
int session_send(struct session *s, char *line, int timeout_ms);
/* A line read from the connection by the caller (linebuf_next on s->lb):
 * check and remove its MAC in place.  0, or -1 when the MAC is missing or
 * wrong (the connection must then be dropped). */
int session_unseal(struct session *s, char *line, long *len);
/* Read one line (as net_read_line) and check its MAC.  Its length, or -1
 * with a message. */
long session_read_line(struct session *s, char **line, int timeout_ms, char *err, size_t errlen);

#endif
