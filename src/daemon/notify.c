/* notify.c -- systemd's notification protocol (sd_notify(3)): one datagram
 * of "KEY=VALUE" lines to the Unix socket $NOTIFY_SOCKET names (a path, or
 * '@' for the abstract namespace).  The protocol is this one send; libsystemd
 * would add a dependency for it.  Never blocks: a full socket loses the
 * message, which only informs systemd. */
#include "config.h"

#include "notify.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static struct sockaddr_un addr;
static socklen_t addrlen;

void notify_init(void)
{
    const char *p = getenv("NOTIFY_SOCKET");
    size_t n = p ? strlen(p) : 0;
    if (n >= 2 && n < sizeof addr.sun_path && (p[0] == '/' || p[0] == '@')) {
        addr.sun_family = AF_UNIX;
        memcpy(addr.sun_path, p, n);
        if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';
        addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (p[0] == '/'));
    }
    unsetenv("NOTIFY_SOCKET");
}

void notify_send(const char *fmt, ...)
{
    if (!addrlen) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n <= 0) return;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    (void)!sendto(fd, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1, MSG_DONTWAIT | MSG_NOSIGNAL,
                  (const struct sockaddr *)&addr, addrlen);
    close(fd);
}
