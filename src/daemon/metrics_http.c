/* metrics_http.c -- ductiled --metrics' HTTP endpoint (see metrics_http.h):
 * the socket is bound here (a clear error when the address is taken), then
 * libmicrohttpd serves it on its own thread, at most METRICS_CONNS clients
 * at once, each dropped after METRICS_IDLE seconds of silence.  The thread
 * answers from the last published text only, copied under a mutex. */
#include "config.h"

#include "metrics_http.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef HAVE_LIBMICROHTTPD
#include <microhttpd.h>
#endif

#define METRICS_CONNS 32
#define METRICS_IDLE 10

int mhttp_parse(const char *spec, char *host, size_t hostlen, int *port, char *err, size_t errlen)
{
    const char *orig = spec, *colon = strrchr(spec, ':'), *p = colon ? colon + 1 : spec;
    size_t hl = colon ? (size_t)(colon - spec) : 0;
    if (colon && hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') spec++, hl -= 2; /* [::1]:9100 */
    else if (colon && memchr(spec, ':', hl)) {
        snprintf(err, errlen, "--metrics '%s': write an IPv6 address in brackets, e.g. [::1]:9464", orig);
        return -1;
    }
    char *end;
    long v = strtol(p, &end, 10);
    if (*p < '0' || *p > '9' || *end || v < 1 || v > 65535) {
        snprintf(err, errlen, "--metrics wants PORT or HOST:PORT with a port from 1 to 65535, not '%s'", orig);
        return -1;
    }
    if (colon && hl == 0) {
        snprintf(err, errlen, "--metrics: the host before ':%ld' is empty (give PORT alone for 127.0.0.1)", v);
        return -1;
    }
    if (hl + 1 > hostlen) {
        snprintf(err, errlen, "--metrics: host name too long");
        return -1;
    }
    if (colon) memcpy(host, spec, hl), host[hl] = '\0';
    else snprintf(host, hostlen, "127.0.0.1");
    *port = (int)v;
    return 0;
}

#ifdef HAVE_LIBMICROHTTPD

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *text; /* the published text (under lock) */
static size_t textlen;
static struct MHD_Daemon *mhd;

void mhttp_publish(char *t)
{
    pthread_mutex_lock(&lock);
    char *old = text;
    text = t;
    textlen = t ? strlen(t) : 0;
    pthread_mutex_unlock(&lock);
    free(old);
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *body, size_t len, const char *type)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED) MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result serve(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                             const char *version, const char *data, size_t *size, void **state)
{
    (void)cls, (void)version, (void)data, (void)size, (void)state;
    static const char plain[] = "text/plain; charset=utf-8";
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
        static const char m[] = "ductiled's metrics: GET /metrics\n";
        return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, m, sizeof m - 1, plain);
    }
    if (!strcmp(url, "/metrics")) {
        pthread_mutex_lock(&lock);
        enum MHD_Result r = answer(c, MHD_HTTP_OK, text ? text : "", textlen, "text/plain; version=0.0.4; charset=utf-8");
        pthread_mutex_unlock(&lock);
        return r;
    }
    if (!strcmp(url, "/")) {
        static const char m[] = "ductiled: Prometheus metrics at /metrics (docs/controller.md, \"Metrics\")\n";
        return answer(c, MHD_HTTP_OK, m, sizeof m - 1, plain);
    }
    static const char m[] = "not found: ductiled serves /metrics\n";
    return answer(c, MHD_HTTP_NOT_FOUND, m, sizeof m - 1, plain);
}

int mhttp_start(const char *host, int port, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *ai;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int rc = getaddrinfo(host, ps, &hints, &ai);
    if (rc != 0) {
        snprintf(err, errlen, "--metrics %s:%d: %s", host, port, gai_strerror(rc));
        return -1;
    }
    int fd = -1, v6 = 0, e = 0;
    for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 16) != 0) {
            e = errno;
            close(fd);
            fd = -1;
            continue;
        }
        v6 = a->ai_family == AF_INET6;
    }
    freeaddrinfo(ai);
    if (fd < 0) {
        snprintf(err, errlen, "--metrics %s:%d: cannot listen: %s", host, port, strerror(e));
        return -1;
    }
    mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0), 0, NULL,
                           NULL, serve, NULL, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
                           (unsigned)METRICS_CONNS, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_IDLE, MHD_OPTION_END);
    if (!mhd) {
        close(fd);
        snprintf(err, errlen, "--metrics %s:%d: libmicrohttpd did not start", host, port);
        return -1;
    }
    return 0;
}

void mhttp_stop(void)
{
    if (mhd) MHD_stop_daemon(mhd);
    mhd = NULL;
    mhttp_publish(NULL);
}

#else /* built without libmicrohttpd */

void mhttp_publish(char *t) { free(t); }
void mhttp_stop(void) {}
int mhttp_start(const char *host, int port, char *err, size_t errlen)
{
    snprintf(err, errlen, "--metrics %s:%d: this ductiled was built without libmicrohttpd (install libmicrohttpd-dev "
             "and run configure again)", host, port);
    return -1;
}

#endif
