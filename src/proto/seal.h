/* seal.h -- the stream after an HMAC handshake (docs/protocol.md,
 * "Connection set-up and security"): every message carries a MAC keyed from
 * the shared secret and both nonces, one key per direction, over an
 * implicit sequence number and the message, so that a message injected,
 * altered, replayed, reordered or dropped by someone on the path is
 * refused.  The MAC is the message's last member:
 *   {...,"mac":"<64 hex digits>"}
 * with HMAC-SHA256(direction key, seq as 8 big-endian bytes | the message
 * without that member).  Used by ductiled (src/daemon/server.c), ductilectl
 * and the job's controller thread (src/proto/session.c). */
#ifndef DUCTILE_SEAL_H
#define DUCTILE_SEAL_H

#include <stddef.h>

#include "auth.h"

struct seal {
    int on;
    unsigned char tx[32], rx[32]; /* keys: what this side sends, what it receives */
    unsigned long long ntx, nrx;  /* sequence numbers of the next message each way */
};

/* Derive both keys after a successful handshake with server nonce ns and
 * client nonce nc; `server` is 1 on ductiled's side.  0 / -1. */
int seal_start(struct seal *s, const struct auth_secret *k, int server, const char *ns, const char *nc);
void seal_clear(struct seal *s);

/* Seal one message: `line` (malloc'ed, taken) is a JSON object and a
 * newline.  Returns the sealed line (malloc'ed), or NULL.  With s->on 0 the
 * line is returned as it is. */
char *seal_line(struct seal *s, char *line);

/* Check and remove the MAC of a received message (line: *len bytes without
 * the newline, NUL-terminated, changed in place).  0 (and *len updated), or
 * -1 when the MAC is missing or wrong.  With s->on 0: 0, untouched. */
int seal_open(struct seal *s, char *line, size_t *len);

#endif
