/* ductiled.c -- Ductile's central controller: accepts application
 * controllers (jobs) and ductilectl clients on a Unix-domain socket in an
 * owner-only directory (peer uid checked) and optionally on TCP
 * (HMAC challenge-response), tracks jobs and their monitoring history, runs
 * the resource manager, forwards commands to jobs, and keeps its state in a
 * file so that a restarted daemon keeps its jobs.  Single-threaded poll()
 * loop; every read and write is non-blocking and every message bounded.
 * This file: options (the core's and the parts'), start-up and the loop;
 * the rest is in src/daemon/ (core.h: the core and the parts that register
 * with it; daemon.h: the core's files). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/daemon/children.h"
#include "../src/daemon/daemon.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

/* The directory of a --socket: created (mode 0700) when missing; else it
 * must be ours, not a link, and writable by nobody else (in a shared
 * directory someone else could replace the socket or the state file). */
static int check_socket_dir(const char *sock, char *err, size_t errlen)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s", sock);
    char *sl = strrchr(dir, '/');
    if (!sl) snprintf(dir, sizeof dir, ".");
    else if (sl == dir) sl[1] = '\0';
    else *sl = '\0';
    if (mkdir(dir, 0700) == 0) return 0;
    struct stat st;
    int lr = lstat(dir, &st);
    if (lr != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "socket directory %s: %s", dir, lr != 0 ? strerror(errno) : "not a directory (a link?)");
        return -1;
    }
    if (st.st_uid != geteuid() || (st.st_mode & 022)) {
        snprintf(err, errlen, "socket directory %s is %s: refused (others could replace the socket; use a directory "
                 "only you can write, e.g. mkdir -m 700 DIR, or the default)", dir,
                 st.st_uid != geteuid() ? "owned by another user" : "writable by group or others");
        return -1;
    }
    return 0;
}

/* One option's help: "  --name ARG" padded to 22 columns, then its lines. */
static void opt_help(FILE *f, const char *name, const char *arg, const char *help)
{
    char head[64];
    snprintf(head, sizeof head, "  --%s%s%s", name, arg ? " " : "", arg ? arg : "");
    fprintf(f, "%-22s", head);
    if ((int)strlen(head) >= 22) fprintf(f, "\n%-22s", "");
    for (const char *l = help; *l;) {
        size_t n = strcspn(l, "\n");
        fprintf(f, "%.*s\n", (int)n, l);
        l += n;
        if (*l) fprintf(f, "%-22s", ""), l++;
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: ductiled [OPTIONS]\n"
            "\n"
            "Ductile's central controller.  MPI jobs run under libductile register with it,\n"
            "stream their monitoring, and receive resize and I/O commands from ductilectl.\n"
            "\n"
            "Options:\n"
            "  --slots N           manage N process slots on this host (default: the number of CPUs)\n"
            "  --hostfile FILE     manage the hosts and slots in FILE ('host slots=N' per line)\n"
            "  --socket PATH       Unix-domain socket (default: $XDG_RUNTIME_DIR/ductile/ductiled.sock,\n"
            "                      or /tmp/ductile-UID/ductiled.sock); its directory is created mode 0700\n"
            "                      when missing, and must be yours and writable by nobody else\n"
            "  --tcp HOST:PORT     also listen on TCP (requires --secret)\n"
            "  --secret FILE       shared secret for TCP challenge-response (owner-only file)\n"
            "  --state FILE        state file (default: next to the default socket, ductiled.state)\n"
            "  --no-state          keep no state file\n"
            "  --pending-ttl SEC   a resize sent to a job but not answered, or taken from its queue but not\n"
            "                      reported, gives its reserved slots back after SEC seconds (default 120);\n"
            "                      a command waiting in the job's queue keeps them as long as it waits\n");
    int n;
    const struct dpart *const *parts = core_parts(&n);
    for (int k = 0; k < n; k++) /* the parts' options (core.h) */
        for (const struct dpart_option *o = parts[k]->options; o && o->name; o++) opt_help(f, o->name, o->arg, o->help);
    fprintf(f,
            "  -v, --verbose       log every connection and message error\n"
            "  -V, --version       print the version\n"
            "  -h, --help          this help\n"
            "\n"
            "ductilectl drain stops new jobs from registering; ductilectl shutdown (Unix socket only)\n"
            "saves the state and stops the daemon (running jobs re-register with the next one).\n"
            "\n"
            "Exit status: 0 after SIGTERM/SIGINT, 1 on a start-up error, 2 on a usage error.\n");
}

/* getopt_long's table: the core's options, then every part's (their index + PART_OPT) */
#define PART_OPT 1000
static struct option *all_options(const struct option *core, size_t ncore, const struct dpart_option ***popt)
{
    int n, total = 0;
    const struct dpart *const *parts = core_parts(&n);
    for (int k = 0; k < n; k++)
        for (const struct dpart_option *o = parts[k]->options; o && o->name; o++) total++;
    struct option *t = calloc(ncore + (size_t)total + 1, sizeof *t);
    *popt = calloc((size_t)total + 1, sizeof **popt);
    if (!t || !*popt) return NULL;
    memcpy(t, core, ncore * sizeof *t);
    int i = 0;
    for (int k = 0; k < n; k++)
        for (const struct dpart_option *o = parts[k]->options; o && o->name; o++, i++) {
            t[ncore + (size_t)i] = (struct option){o->name, o->arg ? required_argument : no_argument, 0, PART_OPT + i};
            (*popt)[i] = o;
        }
    return t;
}

int main(int argc, char **argv)
{
    int slots = 0, no_state = 0;
    double pending_ttl = JOBS_PENDING_TTL;
    const char *hostfile = NULL, *sockpath = NULL, *tcp = NULL, *secret_file = NULL, *statefile = NULL;
    static const struct option core_opts[] = {
        {"slots", required_argument, 0, 's'},   {"hostfile", required_argument, 0, 'H'},
        {"socket", required_argument, 0, 'S'},  {"tcp", required_argument, 0, 't'},
        {"secret", required_argument, 0, 'k'},  {"state", required_argument, 0, 'f'},
        {"no-state", no_argument, 0, 'n'},      {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},          {"version", no_argument, 0, 'V'},
        {"pending-ttl", required_argument, 0, 'T'}};
    /* kept for the daemon's life (static: reachable, not a leak to LeakSanitizer, whose report at an early
     * exit such as --help's would lose the buffered output) */
    static const struct dpart_option **popt;
    static struct option *opts;
    opts = all_options(core_opts, sizeof core_opts / sizeof core_opts[0], &popt);
    if (!opts) {
        fprintf(stderr, "ductiled: out of memory\n");
        return 1;
    }
    int o;
    while ((o = getopt_long(argc, argv, "vhV", opts, NULL)) != -1) {
        switch (o) {
        case 's': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1000000) {
                fprintf(stderr, "ductiled: --slots wants a number from 1 to 1000000, not '%s'\n", optarg);
                return 2;
            }
            slots = (int)v;
            break;
        }
        case 'H': hostfile = optarg; break;
        case 'S': sockpath = optarg; break;
        case 't': tcp = optarg; break;
        case 'k': secret_file = optarg; break;
        case 'f': statefile = optarg; break;
        case 'n': no_state = 1; break;
        case 'v': verbose = 1; break;
        case 'T': {
            char *end;
            pending_ttl = strtod(optarg, &end);
            if (*end || !(pending_ttl >= 1 && pending_ttl <= 86400)) {
                fprintf(stderr, "ductiled: --pending-ttl wants seconds from 1 to 86400, not '%s'\n", optarg);
                return 2;
            }
            break;
        }
        case 'h': usage(stdout); return 0;
        case 'V': printf("ductiled (Ductile) %s, protocol %d\n", PACKAGE_VERSION, PROTO_VERSION); return 0;
        default: {
            char e[512];
            if (o < PART_OPT || popt[o - PART_OPT] == NULL) {
                usage(stderr);
                return 2;
            }
            const struct dpart_option *po = popt[o - PART_OPT];
            if (po->set(po->arg ? optarg : NULL, e, sizeof e) != 0) { /* a part's option (core.h) */
                fprintf(stderr, "ductiled: %s\n", e);
                return 2;
            }
        }
        }
    }
    free(opts);
    free(popt);
    if (optind < argc) {
        fprintf(stderr, "ductiled: unexpected argument '%s' (see ductiled --help)\n", argv[optind]);
        return 2;
    }
    if (slots && hostfile) {
        fprintf(stderr, "ductiled: give one of --slots, --hostfile and --slurm\n");
        return 2;
    }
    if (tcp && !secret_file) {
        fprintf(stderr, "ductiled: --tcp requires --secret FILE (TCP connections are authenticated)\n");
        return 2;
    }
    char err[1024];
    if (secret_file) {
        if (auth_ready(err, sizeof err) != 0 || auth_load_secret(secret_file, &secret, err, sizeof err) != 0) {
            fprintf(stderr, "ductiled: %s\n", err);
            return 1;
        }
        have_secret = 1;
    }
    int res = core_resources(&rm, err, sizeof err); /* a part that provides the hosts (--slurm) */
    if (res < 0) {
        fprintf(stderr, "ductiled: %s\n", err);
        return 1;
    }
    if (res > 0 && (slots || hostfile)) {
        fprintf(stderr, "ductiled: give one of --slots, --hostfile and --slurm\n");
        return 2;
    }
    if (res > 0) {
        /* the part made rm */
    } else if (hostfile) {
        if (rm_init_hostfile(&rm, hostfile, err, sizeof err) != 0) {
            fprintf(stderr, "ductiled: %s\n", err);
            return 1;
        }
        from_hostfile = core_hosts_named = 1; /* an expansion tells the job where its new processes go */
    } else {
        char hn[256] = "localhost";
        gethostname(hn, sizeof hn - 1);
        if (!proto_valid_hostname(hn)) snprintf(hn, sizeof hn, "localhost");
        if (!slots) slots = (int)sysconf(_SC_NPROCESSORS_ONLN);
        rm_init_slots(&rm, hn, slots > 0 ? slots : 1);
    }
    jobs_init(&jobs, &rm);
    jobs.pending_ttl = pending_ttl;

    struct net_addr ua;
    char path[256];
    if (sockpath) {
        if (net_parse_addr(sockpath[0] == '/' || strchr(sockpath, '/') || !strncmp(sockpath, "unix:", 5) ? sockpath : "", &ua, err, sizeof err) != 0 || ua.tcp) {
            fprintf(stderr, "ductiled: --socket wants a path: %s\n", sockpath);
            return 2;
        }
        if (check_socket_dir(ua.path, err, sizeof err) != 0) {
            fprintf(stderr, "ductiled: %s\n", err);
            return 1;
        }
    } else {
        if (net_default_socket(path, sizeof path, 1, err, sizeof err) != 0) {
            fprintf(stderr, "ductiled: %s\n", err);
            return 1;
        }
        net_parse_addr(path, &ua, err, sizeof err);
    }
    if (!no_state) {
        if (statefile) {
            snprintf(state_path, sizeof state_path, "%s", statefile);
        } else {
            char dir[256];
            if (sockpath) {
                snprintf(dir, sizeof dir, "%s", ua.path);
                char *slash = strrchr(dir, '/');
                if (slash) *slash = '\0';
                else snprintf(dir, sizeof dir, ".");
            } else if (net_default_dir(dir, sizeof dir, 1, err, sizeof err) != 0) {
                fprintf(stderr, "ductiled: %s\n", err);
                return 1;
            }
            snprintf(state_path, sizeof state_path, "%s/ductiled.state", dir);
        }
        int lr = jobs_load(&jobs, state_path, wall(), err, sizeof err);
        if (lr == -2) {
            /* a corrupt state must not keep the daemon from starting: keep it for a look, start empty */
            char aside[4200];
            snprintf(aside, sizeof aside, "%s.corrupt-%ld", state_path, (long)wall());
            if (rename(state_path, aside) == 0) {
                logmsg("%s: moved aside to %s; starting without the old jobs", err, aside);
                lr = 0; /* nothing was loaded from it */
            }
        }
        if (lr != 0) {
            fprintf(stderr, "ductiled: %s\n", err);
            return 1;
        }
    }
    if (state_path[0] && state_writer_start(state_path) != 0)
        logmsg("no writer thread for the state file: it is written by the loop");
    int lfd = net_listen(&ua, err, sizeof err);
    if (lfd < 0) {
        fprintf(stderr, "ductiled: %s\n", err);
        return 1;
    }
    add_conn(C_LISTEN_UNIX, lfd);
    /* a connection per job and client: as many descriptors as connections (the soft limit is often 1024) */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < MAX_CONNS + 256) {
        rlim_t want = MAX_CONNS + 256;
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < want)
            logmsg("warning: at most %ld open files (ulimit -n): fewer than %d connections at once", (long)rl.rlim_cur,
                   MAX_CONNS);
    }
    if (tcp) {
        struct net_addr ta;
        char spec[300];
        snprintf(spec, sizeof spec, "tcp:%s", tcp);
        if (net_parse_addr(spec, &ta, err, sizeof err) != 0) {
            fprintf(stderr, "ductiled: --tcp: %s\n", err);
            return 2;
        }
        int tfd = net_listen(&ta, err, sizeof err);
        if (tfd < 0) {
            fprintf(stderr, "ductiled: %s\n", err);
            unlink(ua.path);
            return 1;
        }
        add_conn(C_LISTEN_TCP, tfd);
    }
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    int restored = 0;
    for (int k = 0; k < jobs.n; k++) restored += jobs.v[k]->state == JOB_DISCONNECTED;
    snprintf(core_socket, sizeof core_socket, "%s", ua.path); /* for the jobs ductiled starts */
    if (core_start(err, sizeof err) != 0) { /* the parts */
        fprintf(stderr, "ductiled: %s\n", err);
        unlink(ua.path);
        return 1;
    }
    logmsg("listening on unix:%s%s%s; %d slots on %d host(s); %d job(s) restored from %s", ua.path, tcp ? " and tcp:" : "",
           tcp ? tcp : "", rm_total(&rm), rm.nhosts, restored, state_path[0] ? state_path : "(no state file)");
    fflush(stderr);

    double last_save = net_now(), save_cost = 0; /* save_cost: seconds the last serialisation took */
    struct pollfd pfd[MAX_CONNS + CHILD_MAX];
    int idx[MAX_CONNS];
    while (!stop && !shutdown_requested) {
        int n = 0;
        for (int i = 0; i < MAX_CONNS; i++) {
            if (conns[i].kind == C_FREE) continue;
            pfd[n].fd = conns[i].fd;
            pfd[n].events = (short)(conns[i].kind == C_PEER && (conns[i].closing || conns[i].eof || (conns[i].lb.len >= IN_ROUND_BYTES && conns[i].backlog)) ? 0 : POLLIN); /* a long message is read on */
            if (conns[i].outlen || conns[i].closing) pfd[n].events |= POLLOUT;
            pfd[n].revents = 0;
            idx[n++] = i;
        }
        /* Slurm's commands: their output is read here, never waited for (children.c) */
        int nch = child_pollfds(pfd + n, CHILD_MAX);
        int backlog = 0;
        for (int i = 0; i < MAX_CONNS; i++) backlog |= conns[i].kind == C_PEER && conns[i].backlog;
        double hint = child_wait_hint(net_now());
        int r = poll(pfd, (nfds_t)(n + nch), backlog ? 0 : hint < 0.25 ? (int)(hint * 1000) + 1 : 250);
        if (r < 0 && errno != EINTR) {
            logmsg("poll: %s", strerror(errno));
            break;
        }
        child_poll(pfd + n, r > 0 ? nch : 0, net_now()); /* reaps, kills at the deadline, runs the callbacks */
        for (int k = 0; r > 0 && k < n; k++) {
            int i = idx[k];
            if (!pfd[k].revents || conns[i].kind == C_FREE || conns[i].fd != pfd[k].fd) continue;
            if (conns[i].kind == C_LISTEN_UNIX || conns[i].kind == C_LISTEN_TCP) {
                accept_on(i);
                continue;
            }
            if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) handle_input(i), conns[i].backlog = -conns[i].backlog;
            if (conns[i].kind == C_PEER && (conns[i].outlen || conns[i].closing)) flush_out(i);
        }
        /* messages left over from the last round (input is handled in bounded rounds) */
        for (int i = 0; i < MAX_CONNS; i++) {
            if (conns[i].kind != C_PEER) continue;
            if (conns[i].backlog > 0) handle_input(i);
            else if (conns[i].backlog < 0) conns[i].backlog = 1; /* handled this round already */
        }
        /* also flush what requests queued for other connections */
        for (int i = 0; i < MAX_CONNS; i++)
            if (conns[i].kind == C_PEER && (conns[i].outlen || conns[i].closing)) flush_out(i);
        double now = net_now();
        { /* silent peers: one line per pass, however many (a peer without the secret cannot flood the log) */
            int ndrop = 0;
            char first[sizeof conns[0].peer] = "";
            for (int i = 0; i < MAX_CONNS; i++)
                if (conns[i].kind == C_PEER && !conns[i].authed && now - conns[i].opened > AUTH_TIMEOUT) {
                    if (!ndrop++) snprintf(first, sizeof first, "%s", conns[i].peer);
                    close_conn(i, NULL);
                }
            if (ndrop == 1) logmsg("no authentication from %s within %.0f s: dropped", first, AUTH_TIMEOUT);
            if (ndrop > 1)
                logmsg("no authentication within %.0f s from %d connections (%s and others): dropped", AUTH_TIMEOUT, ndrop,
                       first);
        }
        for (size_t f = 0; f < sizeof fwds / sizeof fwds[0]; f++)
            if (fwds[f].used && now > fwds[f].deadline)
                finish_forward(&fwds[f], 0, NULL, PERR_TIMEOUT, "no answer from the job within 10 s");
        if (jobs_expire(&jobs, wall(), RESTORE_GRACE, core_on_left)) state_dirty = 1;
        if (jobs_cmds_expire(&jobs, wall())) state_dirty = 1; /* commands without news for --pending-ttl */
        core_on_tick(wall()); /* the parts: the I/O lease, the job queue, the policy, the check against Slurm */
        /* the loop serialises, the writer thread writes; never more than a fifth of the loop's time */
        double gap = now - last_save, floor = 4 * save_cost;
        if ((state_dirty || (state_samples && gap >= STATE_SAMPLES_PERIOD)) && gap >= floor &&
            (gap >= STATE_PERIOD || (state_urgent && gap >= STATE_URGENT_PERIOD))) {
            if (state_path[0]) state_writer_submit(jobs_snapshot(&jobs));
            state_dirty = state_urgent = state_samples = 0;
            last_save = net_now();
            save_cost = last_save - now;
        }
    }
    logmsg("stopping; state saved to %s", state_path[0] ? state_path : "(none)");
    save_state_now();
    for (int i = 0; i < MAX_CONNS; i++)
        if (conns[i].kind != C_FREE) {
            close(conns[i].fd);
            linebuf_free(&conns[i].lb);
            free(conns[i].out);
        }
    unlink(ua.path);
    jobs_destroy(&jobs);
    rm_destroy(&rm);
    auth_clear_secret(&secret);
    return 0;
}
