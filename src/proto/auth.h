/* auth.h -- challenge-response authentication for the TCP transport:
 * HMAC-SHA256 (OpenSSL libcrypto) over a shared secret read from a file that
 * only its owner can read (libcrypto is loaded on first use, see auth_ready).
 * The secret never crosses the wire: the server
 * sends a random nonce, the client answers with its own nonce and
 * HMAC(secret, "ductile-v1 client" | server nonce | client nonce), and the
 * server proves itself back with HMAC(secret, "ductile-v1 server" | ...). */
#ifndef DUCTILE_AUTH_H
#define DUCTILE_AUTH_H

#include <stddef.h>

#define AUTH_NONCE_HEX 64 /* 32 random bytes as hex */
#define AUTH_MAC_HEX 64   /* SHA-256 as hex */
#define AUTH_SECRET_MAX 4096
#define AUTH_SECRET_MIN 32 /* bytes of entropy: 32 raw bytes, or 64 hex digits, or 43 base64 characters */

struct auth_secret {
    unsigned char key[AUTH_SECRET_MAX];
    size_t len;
};

/* Read the secret from `path`.  Refused (-1 and a message) unless it is a
 * regular file owned by the calling user with no group or other permission
 * bits, holding at least AUTH_SECRET_MIN bytes of entropy (a file of hex
 * digits needs twice as many characters, base64 4/3 as many; a trailing
 * newline is dropped; at most AUTH_SECRET_MAX bytes).  The secret is then
 * derived (HKDF-SHA256, RFC 5869, with libcrypto's HMAC) into the 32-byte
 * MAC key kept in *out; the file's bytes are wiped. */
int auth_load_secret(const char *path, struct auth_secret *out, char *err, size_t errlen);
void auth_clear_secret(struct auth_secret *s);

/* Load OpenSSL's libcrypto (once, with dlopen) for the MACs.  0, or -1 and
 * a message naming the library that is missing.  auth_mac and auth_verify
 * call it themselves; callers that want the message call it first. */
int auth_ready(char *err, size_t errlen);

/* A fresh random nonce: AUTH_NONCE_HEX hex digits and a NUL.  Returns 0/-1. */
int auth_nonce(char out[AUTH_NONCE_HEX + 1]);

/* MAC of role ("client" or "server") over the two nonces, as hex + NUL. */
int auth_mac(const struct auth_secret *s, const char *role, const char *nonce_a, const char *nonce_b,
             char out[AUTH_MAC_HEX + 1]);

/* HMAC-SHA256 of msg (n bytes) with key: the 32 raw bytes.  0 / -1. */
int auth_hmac(const unsigned char *key, size_t keylen, const void *msg, size_t n, unsigned char out[32]);

/* Constant-time check of a received MAC.  Returns 1 when it matches. */
int auth_verify(const struct auth_secret *s, const char *role, const char *nonce_a, const char *nonce_b,
                const char *mac_hex);

#endif
