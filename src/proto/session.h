/* session.h -- the client side of a control connection, shared by ductilectl
 * and the application controller thread: connect, read the server's hello,
 * authenticate when the server asks for it (TCP: HMAC challenge-response,
 * both sides proving knowledge of the secret), then request/reply calls with
 * deadlines. */
#ifndef DUCTILE_SESSION_H
#define DUCTILE_SESSION_H

#include <jansson.h>

#include "protocol.h"

struct session {
    int fd;
    long long next_id;
    struct linebuf lb;
    char server_version[33];
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

#endif
