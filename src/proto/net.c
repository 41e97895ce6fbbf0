/* net.c -- Unix/TCP sockets with deadlines and the owner-only socket
 * directory; see net.h. */
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

double net_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int net_set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0) return -1;
    return fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int net_default_dir(char *out, size_t len, int create, char *err, size_t errlen)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(out, len, "%s/ductile", xdg);
    else
        n = snprintf(out, len, "/tmp/ductile-%u", (unsigned)geteuid());
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "socket directory name too long");
        return -1;
    }
    if (create && mkdir(out, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(out, &st) != 0) {
        snprintf(err, errlen, "%s: %s", out, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
        snprintf(err, errlen, "%s must be a directory owned by uid %u with mode 0700 (it is %s, uid %u, mode %03o): "
                 "refusing to use it", out, (unsigned)geteuid(), S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
                 (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
        return -1;
    }
    return 0;
}

int net_default_socket(char *out, size_t len, int create, char *err, size_t errlen)
{
    char dir[200];
    if (net_default_dir(dir, sizeof dir, create, err, errlen) != 0) return -1;
    int n = snprintf(out, len, "%s/ductiled.sock", dir);
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "socket path too long");
        return -1;
    }
    return 0;
}

int net_parse_addr(const char *text, struct net_addr *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!text || !*text) {
        snprintf(err, errlen, "empty controller address");
        return -1;
    }
    if (strncmp(text, "tcp:", 4) == 0) {
        const char *h = text + 4, *colon;
        out->tcp = 1;
        if (*h == '[') {
            const char *rb = strchr(h, ']');
            if (!rb || rb[1] != ':') goto bad;
            if ((size_t)(rb - h - 1) >= sizeof out->host) goto bad;
            memcpy(out->host, h + 1, (size_t)(rb - h - 1));
            colon = rb + 1;
        } else {
            colon = strrchr(h, ':');
            if (!colon || colon == h || (size_t)(colon - h) >= sizeof out->host) goto bad;
            memcpy(out->host, h, (size_t)(colon - h));
            if (strchr(out->host, ':')) goto bad;
        }
        const char *p = colon + 1;
        char *end;
        long port = strtol(p, &end, 10);
        if (!*p || *end || port < 1 || port > 65535) goto bad;
        snprintf(out->port, sizeof out->port, "%ld", port);
        for (const char *c = out->host; *c; c++)
            if (!(((*c | 32) >= 'a' && (*c | 32) <= 'z') || (*c >= '0' && *c <= '9') || *c == '.' || *c == '-' ||
                  *c == ':'))
                goto bad;
        return 0;
    }
    const char *p = strncmp(text, "unix:", 5) == 0 ? text + 5 : text;
    if (p == text && !strchr(p, '/')) goto bad;
    if (strlen(p) >= sizeof out->path || !*p) {
        snprintf(err, errlen, "socket path too long (at most %zu bytes): %s", sizeof out->path - 1, p);
        return -1;
    }
    snprintf(out->path, sizeof out->path, "%s", p);
    return 0;
bad:
    snprintf(err, errlen, "bad controller address '%s': expected unix:PATH or tcp:HOST:PORT", text);
    return -1;
}

void net_addr_str(const struct net_addr *a, char *out, size_t len)
{
    if (a->tcp) snprintf(out, len, "tcp:%s:%s", a->host, a->port);
    else snprintf(out, len, "unix:%s", a->path);
}

int net_peer_uid(int fd, uid_t *uid)
{
    struct ucred cr;
    socklen_t l = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) != 0) return -1;
    *uid = cr.uid;
    return 0;
}

static int wait_fd(int fd, short ev, double deadline)
{
    for (;;) {
        double left = deadline - net_now();
        if (left <= 0) return 0;
        struct pollfd p = {.fd = fd, .events = ev};
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) continue;
        return 1;
    }
}

int net_connect(const struct net_addr *a, int timeout_ms, char *err, size_t errlen)
{
    double deadline = net_now() + timeout_ms / 1000.0;
    char name[300];
    net_addr_str(a, name, sizeof name);
    if (!a->tcp) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) {
            snprintf(err, errlen, "socket: %s", strerror(errno));
            return -1;
        }
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", a->path);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS && errno != EAGAIN) {
            snprintf(err, errlen, "cannot connect to %s: %s", name, strerror(errno));
            close(fd);
            return -1;
        }
        if (wait_fd(fd, POLLOUT, deadline) <= 0) {
            snprintf(err, errlen, "cannot connect to %s: timed out", name);
            close(fd);
            return -1;
        }
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
        uid_t peer;
        if (soerr || net_peer_uid(fd, &peer) != 0) {
            snprintf(err, errlen, "cannot connect to %s: %s", name, strerror(soerr ? soerr : errno));
            close(fd);
            return -1;
        }
        if (peer != geteuid() && peer != 0) {
            snprintf(err, errlen, "%s is served by uid %u, not by you (uid %u): refusing to talk to it", name,
                     (unsigned)peer, (unsigned)geteuid());
            close(fd);
            return -1;
        }
        return fd;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    int g = getaddrinfo(a->host, a->port, &hints, &res);
    if (g != 0) {
        snprintf(err, errlen, "cannot resolve %s: %s", name, gai_strerror(g));
        return -1;
    }
    int fd = -1;
    snprintf(err, errlen, "cannot connect to %s", name);
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
        if (errno == EINPROGRESS && wait_fd(fd, POLLOUT, deadline) > 0) {
            int soerr = 0;
            socklen_t sl = sizeof soerr;
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
            if (!soerr) break;
            snprintf(err, errlen, "cannot connect to %s: %s", name, strerror(soerr));
        } else {
            snprintf(err, errlen, "cannot connect to %s: %s", name, errno == EINPROGRESS ? "timed out" : strerror(errno));
        }
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

int net_listen(const struct net_addr *a, char *err, size_t errlen)
{
    char name[300];
    net_addr_str(a, name, sizeof name);
    if (!a->tcp) {
        struct stat st;
        if (lstat(a->path, &st) == 0) {
            if (!S_ISSOCK(st.st_mode)) {
                snprintf(err, errlen, "%s exists and is not a socket", a->path);
                return -1;
            }
            char e2[256];
            int probe = net_connect(a, 500, e2, sizeof e2);
            if (probe >= 0) {
                close(probe);
                snprintf(err, errlen, "another ductiled is already listening on %s", name);
                return -1;
            }
            unlink(a->path); /* stale */
        }
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) {
            snprintf(err, errlen, "socket: %s", strerror(errno));
            return -1;
        }
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", a->path);
        mode_t old = umask(0177);
        int b = bind(fd, (struct sockaddr *)&sa, sizeof sa);
        umask(old);
        if (b != 0 || chmod(a->path, 0600) != 0 || listen(fd, NET_BACKLOG) != 0) {
            snprintf(err, errlen, "cannot listen on %s: %s", name, strerror(errno));
            close(fd);
            return -1;
        }
        return fd;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *res = NULL;
    int g = getaddrinfo(a->host, a->port, &hints, &res);
    if (g != 0) {
        snprintf(err, errlen, "cannot resolve %s: %s", name, gai_strerror(g));
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, NET_BACKLOG) == 0) break;
        snprintf(err, errlen, "cannot listen on %s: %s", name, strerror(errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

int net_send_all(int fd, const char *buf, size_t n, int timeout_ms)
{
    double deadline = net_now() + timeout_ms / 1000.0;
    size_t off = 0;
    while (off < n) {
        ssize_t w = send(fd, buf + off, n - off, MSG_NOSIGNAL);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_fd(fd, POLLOUT, deadline) <= 0) return -1;
            continue;
        }
        return -1;
    }
    return 0;
}

long net_read_line(int fd, struct linebuf *lb, char **line, int timeout_ms, char *err, size_t errlen)
{
    double deadline = net_now() + timeout_ms / 1000.0;
    for (;;) {
        long n = linebuf_next(lb, line);
        if (*line) return n;
        if (n < 0 || lb->overflow) {
            snprintf(err, errlen, "message larger than %zu bytes", lb->max ? lb->max : (size_t)PROTO_MAX_LINE);
            return -1;
        }
        int w = wait_fd(fd, POLLIN, deadline);
        if (w <= 0) {
            snprintf(err, errlen, w == 0 ? "timed out waiting for an answer" : "poll: %s", strerror(errno));
            return -1;
        }
        char buf[8192];
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (r <= 0) {
            snprintf(err, errlen, r == 0 ? "connection closed by the other side" : "recv: %s", strerror(errno));
            return -1;
        }
        if (linebuf_append(lb, buf, (size_t)r) != 0) {
            snprintf(err, errlen, "message larger than %zu bytes", lb->max ? lb->max : (size_t)PROTO_MAX_LINE);
            return -1;
        }
    }
}
