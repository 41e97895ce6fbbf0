/* auth.c -- HMAC-SHA256 challenge-response and the owner-only secret file
 * check.  See auth.h.  OpenSSL's libcrypto is loaded with dlopen() the first
 * time a MAC is computed (auth_ready), so that nothing links it: a job that
 * never authenticates over TCP -- and every preloaded process that is not an
 * MPI program -- does not load it.  Nonces come from getrandom(). */
#include "config.h"

#include "auth.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#ifndef DUCTILE_LIBCRYPTO
#define DUCTILE_LIBCRYPTO "libcrypto.so.3"
#endif

/* The two libcrypto functions we use, typed from OpenSSL's own headers. */
static struct {
    __typeof__(&HMAC) hmac;
    __typeof__(&EVP_sha256) sha256;
    char err[512];
} crypto;
static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;

static void crypto_load(void)
{
    static const char *const names[] = {DUCTILE_LIBCRYPTO, "libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so"};
    void *h = NULL;
    const char *why = "";
    for (size_t i = 0; !h && i < sizeof names / sizeof names[0]; i++) {
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!h && i == 0) why = dlerror();
    }
    if (!h) {
        snprintf(crypto.err, sizeof crypto.err,
                 "TCP authentication needs OpenSSL's libcrypto (%s), which cannot be loaded: %s "
                 "(Debian: apt-get install libssl3)", DUCTILE_LIBCRYPTO, why ? why : "not found");
        return;
    }
    *(void **)&crypto.hmac = dlsym(h, "HMAC");
    *(void **)&crypto.sha256 = dlsym(h, "EVP_sha256");
    if (!crypto.hmac || !crypto.sha256) {
        crypto.hmac = NULL;
        snprintf(crypto.err, sizeof crypto.err, "the libcrypto loaded for TCP authentication (%s) lacks HMAC or EVP_sha256",
                 DUCTILE_LIBCRYPTO);
    }
}

int auth_ready(char *err, size_t errlen)
{
    pthread_once(&crypto_once, crypto_load);
    if (crypto.hmac) return 0;
    if (err && errlen) snprintf(err, errlen, "%s", crypto.err);
    return -1;
}

static void to_hex(const unsigned char *b, size_t n, char *out)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hx[b[i] >> 4];
        out[2 * i + 1] = hx[b[i] & 15];
    }
    out[2 * n] = '\0';
}

int auth_load_secret(const char *path, struct auth_secret *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open secret file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "secret file %s is not a regular file", path);
        close(fd);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errlen, "secret file %s is owned by uid %u, not by you (uid %u): refused", path,
                 (unsigned)st.st_uid, (unsigned)geteuid());
        close(fd);
        return -1;
    }
    if (st.st_mode & 077) {
        snprintf(err, errlen, "secret file %s has mode %03o: group or others may read it; refused "
                 "(chmod 600 %s)", path, (unsigned)(st.st_mode & 0777), path);
        close(fd);
        return -1;
    }
    ssize_t n = read(fd, out->key, sizeof out->key);
    char extra;
    ssize_t more = n == (ssize_t)sizeof out->key ? read(fd, &extra, 1) : 0;
    close(fd);
    if (n < 0 || more > 0) {
        snprintf(err, errlen, "secret file %s: %s", path, n < 0 ? strerror(errno) : "larger than 4096 bytes");
        auth_clear_secret(out);
        return -1;
    }
    while (n > 0 && (out->key[n - 1] == '\n' || out->key[n - 1] == '\r')) n--;
    /* entropy: hex text carries 4 bits a character, base64 6, raw bytes 8 */
    int hex = 1, b64 = 1, distinct = 0;
    unsigned char seen[256] = {0};
    for (ssize_t i = 0; i < n; i++) {
        unsigned char ch = out->key[i];
        if (!isxdigit(ch)) hex = 0;
        if (!isalnum(ch) && ch != '+' && ch != '/' && ch != '=' && ch != '-' && ch != '_') b64 = 0;
        if (!seen[ch]++) distinct++;
    }
    ssize_t need = hex ? 2 * AUTH_SECRET_MIN : b64 ? (4 * AUTH_SECRET_MIN + 2) / 3 : AUTH_SECRET_MIN;
    if (n < need || distinct < 8) {
        snprintf(err, errlen, "secret file %s holds %zd %s%s; at least %zd are needed for %d bytes of entropy "
                 "(make one with: head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > FILE)", path, n,
                 hex ? "hex digits" : b64 ? "base64 characters" : "bytes",
                 distinct < 8 && n >= need ? " but only a few distinct ones" : "", need, AUTH_SECRET_MIN);
        auth_clear_secret(out);
        return -1;
    }
    /* HKDF-SHA256: PRK = HMAC(salt, secret); key = HMAC(PRK, info | 0x01) */
    if (auth_ready(err, errlen) != 0) {
        auth_clear_secret(out);
        return -1;
    }
    static const char salt[] = "ductile-v1 hkdf salt";
    static const char info[] = "ductile-v1 mac key\001";
    unsigned char prk[EVP_MAX_MD_SIZE], okm[EVP_MAX_MD_SIZE];
    unsigned plen = 0, olen = 0;
    int ok = crypto.hmac(crypto.sha256(), salt, (int)strlen(salt), out->key, (size_t)n, prk, &plen) != NULL &&
             crypto.hmac(crypto.sha256(), prk, (int)plen, (const unsigned char *)info, strlen(info), okm, &olen) != NULL &&
             olen == 32;
    auth_clear_secret(out); /* the raw secret goes; only the derived key stays */
    explicit_bzero(prk, sizeof prk);
    if (!ok) {
        snprintf(err, errlen, "secret file %s: key derivation failed", path);
        explicit_bzero(okm, sizeof okm);
        return -1;
    }
    memcpy(out->key, okm, 32);
    explicit_bzero(okm, sizeof okm);
    out->len = 32;
    return 0;
}

void auth_clear_secret(struct auth_secret *s) { explicit_bzero(s, sizeof *s); }

int auth_nonce(char out[AUTH_NONCE_HEX + 1])
{
    unsigned char b[AUTH_NONCE_HEX / 2];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = getrandom(b + got, sizeof b - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    to_hex(b, sizeof b, out);
    return 0;
}

static int mac_raw(const struct auth_secret *s, const char *role, const char *a, const char *b,
                   unsigned char *md, unsigned *mdlen)
{
    char msg[256];
    int n = snprintf(msg, sizeof msg, "ductile-v1 %s %s %s", role, a, b);
    if (n < 0 || (size_t)n >= sizeof msg || s->len == 0 || auth_ready(NULL, 0) != 0) return -1;
    if (!crypto.hmac(crypto.sha256(), s->key, (int)s->len, (const unsigned char *)msg, (size_t)n, md, mdlen)) return -1;
    return 0;
}

int auth_hmac(const unsigned char *key, size_t keylen, const void *msg, size_t n, unsigned char out[32])
{
    unsigned len = 0;
    if (auth_ready(NULL, 0) != 0 || !crypto.hmac(crypto.sha256(), key, (int)keylen, msg, n, out, &len) || len != 32)
        return -1;
    return 0;
}

int auth_mac(const struct auth_secret *s, const char *role, const char *nonce_a, const char *nonce_b,
             char out[AUTH_MAC_HEX + 1])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0;
    if (mac_raw(s, role, nonce_a, nonce_b, md, &mdlen) != 0 || mdlen != AUTH_MAC_HEX / 2) return -1;
    to_hex(md, mdlen, out);
    return 0;
}

int auth_verify(const struct auth_secret *s, const char *role, const char *nonce_a, const char *nonce_b,
                const char *mac_hex)
{
    char want[AUTH_MAC_HEX + 1];
    if (!mac_hex || strlen(mac_hex) != AUTH_MAC_HEX) return 0;
    if (auth_mac(s, role, nonce_a, nonce_b, want) != 0) return 0;
    char got[AUTH_MAC_HEX];
    for (int i = 0; i < AUTH_MAC_HEX; i++) {
        char c = mac_hex[i];
        got[i] = (char)((c >= 'A' && c <= 'F') ? c - 'A' + 'a' : c);
    }
    unsigned diff = 0; /* constant time: no early exit */
    for (int i = 0; i < AUTH_MAC_HEX; i++) diff |= (unsigned)(unsigned char)(want[i] ^ got[i]);
    explicit_bzero(want, sizeof want);
    return diff == 0;
}
