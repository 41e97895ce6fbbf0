/* ioloop.c -- ductiled's connection loop on epoll (issue 25, item 4): each
 * socket is registered once, when its connection opens (add_conn), and its
 * interest changes only when its state does (output queued or sent, input
 * held back, closing); a round costs what is ready, not what is connected
 * (poll() over 2,000 jobs' sockets did a pass over every one of them, two
 * thousand times a second).  A connection touched in a round (input read,
 * output queued by any request) is flushed at the end of the round; one
 * with complete messages left (input is handled in bounded rounds,
 * server.c) is handled again in the next round, before waiting. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "daemon.h"

static int epfd = -1;
static unsigned round_no;
/* connections touched this round (flushed and re-armed at its end), and
 * those left with complete messages (handled in the next round) */
static int touched[MAX_CONNS], ntouched;
static int backlog[MAX_CONNS], nbacklog;

static uint64_t key(int i) { return (uint64_t)(unsigned)i | (uint64_t)conns[i].gen << 32; }

static uint32_t wanted(const struct conn *c)
{
    if (c->kind != C_PEER) return EPOLLIN;
    uint32_t ev = 0;
    /* a long message is read on; none is read while closing or after the end of stream */
    if (!(c->closing || c->eof || (c->lb.len >= IN_ROUND_BYTES && c->backlog))) ev |= EPOLLIN;
    if (c->outlen || c->closing) ev |= EPOLLOUT;
    return ev;
}

int ioloop_fd(void)
{
    if (epfd < 0) epfd = epoll_create1(EPOLL_CLOEXEC);
    return epfd;
}

int ioloop_watch(int i)
{
    struct conn *c = &conns[i];
    struct epoll_event ev = {.events = wanted(c), .data.u64 = key(i)};
    if (ioloop_fd() < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0) return -1;
    c->evmask = ev.events;
    return 0;
}

void ioloop_forget(int i)
{
    if (epfd >= 0) (void)epoll_ctl(epfd, EPOLL_CTL_DEL, conns[i].fd, NULL);
}

void ioloop_touch(int i)
{
    if (conns[i].touched) return;
    conns[i].touched = 1;
    touched[ntouched++] = i;
}

int ioloop_busy(void) { return ntouched > 0 || nbacklog > 0; }

static void rearm(int i)
{
    struct conn *c = &conns[i];
    uint32_t want = wanted(c);
    if (want == c->evmask) return;
    struct epoll_event ev = {.events = want, .data.u64 = key(i)};
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0) c->evmask = want;
    else logmsg("epoll_ctl on %s: %s", c->peer, strerror(errno));
}

void ioloop_flush(void)
{
    /* flushing may close a connection, whose end may queue output for
     * others (a client waiting on a job): they join the list as it runs */
    for (int t = 0; t < ntouched; t++) {
        int i = touched[t];
        conns[i].touched = 0;
        if (conns[i].kind != C_PEER) continue;
        if (conns[i].outlen || conns[i].closing) flush_out(i);
        if (conns[i].kind != C_PEER) continue;
        rearm(i);
        if (conns[i].backlog && !conns[i].queued) conns[i].queued = 1, backlog[nbacklog++] = i;
    }
    ntouched = 0;
}

void ioloop_round(void)
{
    struct epoll_event ev[512];
    round_no++;
    int n = epoll_wait(epfd, ev, (int)(sizeof ev / sizeof ev[0]), 0);
    for (int k = 0; k < n; k++) {
        int i = (int)(uint32_t)ev[k].data.u64;
        if (i < 0 || i >= MAX_CONNS || conns[i].kind == C_FREE || conns[i].gen != (unsigned)(ev[k].data.u64 >> 32))
            continue; /* closed earlier in this round */
        if (conns[i].kind == C_LISTEN_UNIX || conns[i].kind == C_LISTEN_TCP) {
            accept_on(i);
            continue;
        }
        if (ev[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
            conns[i].round = round_no;
            handle_input(i);
        }
        if (conns[i].kind == C_PEER) ioloop_touch(i);
    }
    /* messages left over from the last round */
    int nb = nbacklog;
    nbacklog = 0;
    for (int b = 0; b < nb; b++) {
        int i = backlog[b];
        conns[i].queued = 0;
        if (conns[i].kind != C_PEER || !conns[i].backlog || conns[i].round == round_no) {
            if (conns[i].kind == C_PEER) ioloop_touch(i);
            continue;
        }
        conns[i].round = round_no;
        handle_input(i);
        if (conns[i].kind == C_PEER) ioloop_touch(i);
    }
    ioloop_flush();
}

void ioloop_close(void)
{
    if (epfd >= 0) close(epfd);
    epfd = -1;
}
