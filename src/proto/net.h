/* net.h -- sockets for the control protocol: addresses ("unix:PATH",
 * "tcp:HOST:PORT"), the default per-user socket in an owner-only directory,
 * listening, connecting and line I/O with deadlines (never an unbounded
 * wait), and the peer-uid check (SO_PEERCRED) of Unix-domain sockets. */
#ifndef DUCTILE_NET_H
#define DUCTILE_NET_H

#include <stddef.h>
#include <sys/types.h>

#include "protocol.h"

struct net_addr {
    int tcp;            /* 0: Unix-domain socket at path; 1: TCP host:port */
    char path[108];
    char host[256];
    char port[16];
};

/* Directory of the default socket: $XDG_RUNTIME_DIR/ductile when
 * XDG_RUNTIME_DIR is set, else /tmp/ductile-UID.  With create, make it (mode
 * 0700).  Either way it must be a directory (not a link) owned by the caller
 * with no group/other permissions, or -1 and a message. */
int net_default_dir(char *out, size_t len, int create, char *err, size_t errlen);
/* Default socket path (the directory above + "/ductiled.sock"). */
int net_default_socket(char *out, size_t len, int create, char *err, size_t errlen);

/* Parse "unix:PATH", "PATH" (absolute or containing '/'), or
 * "tcp:HOST:PORT" (HOST a host name or IPv4 address, or [IPv6]).  0 / -1. */
int net_parse_addr(const char *text, struct net_addr *out, char *err, size_t errlen);
/* Human form of an address. */
void net_addr_str(const struct net_addr *a, char *out, size_t len);

/* Listen backlog of ductiled's sockets (the daemon's limit on
 * unauthenticated connections is proportional to it). */
#define NET_BACKLOG 128

/* Listening socket (non-blocking, close-on-exec).  A Unix socket is created
 * mode 0600; a stale socket file nobody answers on is replaced, a live one is
 * an error ("another ductiled is running").  Returns the fd or -1. */
int net_listen(const struct net_addr *a, char *err, size_t errlen);

/* Connect within timeout_ms.  For Unix sockets the server's uid must be the
 * caller's (or root's).  Returns a non-blocking fd or -1 and a message. */
int net_connect(const struct net_addr *a, int timeout_ms, char *err, size_t errlen);

/* Uid of the peer of a connected Unix-domain socket.  0 / -1. */
int net_peer_uid(int fd, uid_t *uid);

/* Write all of buf within timeout_ms (fd may be non-blocking).  0 / -1. */
int net_send_all(int fd, const char *buf, size_t n, int timeout_ms);

/* Read until one complete line is buffered in lb (or timeout / EOF / error /
 * oversized line).  Returns the length with *line malloc'ed (caller frees),
 * or -1 with a message. */
long net_read_line(int fd, struct linebuf *lb, char **line, int timeout_ms, char *err, size_t errlen);

int net_set_nonblock(int fd);
double net_now(void); /* CLOCK_MONOTONIC seconds */

#endif
