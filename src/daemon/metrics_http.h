/* metrics_http.h -- the HTTP side of ductiled --metrics (metrics.c): a
 * listening socket bound at start-up, served by libmicrohttpd on its own
 * thread, which answers GET /metrics with the last text the daemon's loop
 * published (under a mutex: the thread never reads the daemon's state). */
#ifndef DUCTILE_DAEMON_METRICS_HTTP_H
#define DUCTILE_DAEMON_METRICS_HTTP_H

#include <stddef.h>

/* Parse "PORT", "HOST:PORT" or "[IPV6]:PORT" (PORT 1..65535; HOST default
 * 127.0.0.1) into host and port.  0, or -1 with err. */
int mhttp_parse(const char *spec, char *host, size_t hostlen, int *port, char *err, size_t errlen);
/* Bind host:port and start serving.  0, or -1 with err (also when ductiled
 * was built without libmicrohttpd). */
int mhttp_start(const char *host, int port, char *err, size_t errlen);
/* The text /metrics answers from now on (taken; malloc'ed). */
void mhttp_publish(char *text);
/* Stop serving (at exit). */
void mhttp_stop(void);

#endif
