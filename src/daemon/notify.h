/* notify.h -- tell systemd the daemon's state (Type=notify units:
 * contrib/systemd/ductiled.service) when it started ductiled with
 * $NOTIFY_SOCKET; otherwise nothing. */
#ifndef DUCTILE_DAEMON_NOTIFY_H
#define DUCTILE_DAEMON_NOTIFY_H

/* Keep $NOTIFY_SOCKET and take it out of the environment (the jobs ductiled
 * starts must not speak for it).  Call once, before any thread starts. */
void notify_init(void);
/* Send "READY=1", "RELOADING=1", "STOPPING=1", "STATUS=..." (lines). */
void notify_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
