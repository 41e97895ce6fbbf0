/* seal.c -- MACs over the stream after the handshake; see seal.h. */
#include "seal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAIL_HEAD ",\"mac\":\""
#define TAIL_LEN (8 + 64 + 2) /* ,"mac":" + 64 hex digits + "} */

static int derive(const struct auth_secret *k, const char *dir, const char *ns, const char *nc, unsigned char out[32])
{
    char msg[256];
    int n = snprintf(msg, sizeof msg, "ductile-v1 stream %s %s %s", dir, ns, nc);
    if (n < 0 || (size_t)n >= sizeof msg || k->len == 0) return -1;
    return auth_hmac(k->key, k->len, msg, (size_t)n, out);
}

int seal_start(struct seal *s, const struct auth_secret *k, int server, const char *ns, const char *nc)
{
    unsigned char c2s[32], s2c[32];
    memset(s, 0, sizeof *s);
    if (derive(k, "client-to-server", ns, nc, c2s) != 0 || derive(k, "server-to-client", ns, nc, s2c) != 0) {
        explicit_bzero(c2s, sizeof c2s);
        explicit_bzero(s2c, sizeof s2c);
        return -1;
    }
    memcpy(s->tx, server ? s2c : c2s, 32);
    memcpy(s->rx, server ? c2s : s2c, 32);
    explicit_bzero(c2s, sizeof c2s);
    explicit_bzero(s2c, sizeof s2c);
    s->on = 1;
    return 0;
}

void seal_clear(struct seal *s) { explicit_bzero(s, sizeof *s); }

static int tag(const unsigned char key[32], unsigned long long seq, const char *msg, size_t n, unsigned char out[32])
{
    unsigned char *buf = malloc(n + 8);
    if (!buf) return -1;
    for (int i = 0; i < 8; i++) buf[i] = (unsigned char)(seq >> (56 - 8 * i));
    memcpy(buf + 8, msg, n);
    int rc = auth_hmac(key, 32, buf, n + 8, out);
    free(buf);
    return rc;
}

char *seal_line(struct seal *s, char *line)
{
    if (!line || !s->on) return line;
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
    unsigned char t[32];
    char *out = NULL;
    if (n >= 2 && line[n - 1] == '}' && tag(s->tx, s->ntx, line, n, t) == 0 && (out = malloc(n + TAIL_LEN + 2))) {
        static const char hx[] = "0123456789abcdef";
        memcpy(out, line, n - 1);
        char *p = out + n - 1;
        memcpy(p, TAIL_HEAD, 8);
        p += 8;
        for (int i = 0; i < 32; i++) {
            *p++ = hx[t[i] >> 4];
            *p++ = hx[t[i] & 15];
        }
        memcpy(p, "\"}\n", 4);
        s->ntx++;
    }
    free(line);
    return out;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

int seal_open(struct seal *s, char *line, size_t *len)
{
    if (!s->on) return 0;
    size_t n = *len;
    if (n < TAIL_LEN + 2 || memcmp(line + n - TAIL_LEN, TAIL_HEAD, 8) != 0 || memcmp(line + n - 2, "\"}", 2) != 0)
        return -1;
    unsigned char got[32], want[32];
    const char *h = line + n - TAIL_LEN + 8;
    for (int i = 0; i < 32; i++) {
        int a = hexval(h[2 * i]), b = hexval(h[2 * i + 1]);
        if (a < 0 || b < 0) return -1;
        got[i] = (unsigned char)(a << 4 | b);
    }
    size_t m = n - TAIL_LEN; /* the message without its MAC member, then its closing brace */
    char keep = line[m];
    line[m] = '}';
    if (tag(s->rx, s->nrx, line, m + 1, want) != 0) {
        line[m] = keep;
        return -1;
    }
    unsigned diff = 0; /* constant time */
    for (int i = 0; i < 32; i++) diff |= (unsigned)(got[i] ^ want[i]);
    explicit_bzero(want, sizeof want);
    if (diff) {
        line[m] = keep;
        return -1;
    }
    line[m + 1] = '\0';
    *len = m + 1;
    s->nrx++;
    return 0;
}
