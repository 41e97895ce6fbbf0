/* ductiled.c -- Ductile's central controller: accepts application
 * controllers (jobs) and ductilectl clients on a Unix-domain socket in an
 * owner-only directory (peer uid checked) and optionally on TCP
 * (HMAC challenge-response), tracks jobs and their monitoring history, runs
 * the resource manager, forwards commands to jobs, and keeps its state in a
 * file so that a restarted daemon keeps its jobs.  Single-threaded loop
 * (epoll, src/daemon/ioloop.c); every read and write is non-blocking and every message bounded.
 * This file: options (the core's and the parts'), start-up and the loop;
 * the rest is in src/daemon/ (core.h: the core and the parts that register
 * with it; daemon.h: the core's files). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../src/daemon/children.h"
#include "../src/daemon/conffile.h"
#include "../src/daemon/daemon.h"
#include "../src/daemon/notify.h"

static volatile sig_atomic_t stop, reload;

static void on_signal(int sig)
{
    if (sig == SIGHUP) reload = 1; /* the loop re-reads the configuration file */
    else stop = 1;
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
    snprintf(head, sizeof head, "  %s--%s%s%s", strcmp(name, "verbose") ? "" : "-v, ", name, arg ? " " : "", arg ? arg : "");
    fprintf(f, "%-22s", head);
    if ((int)strlen(head) >= 22) fprintf(f, "\n%-22s", "");
    for (const char *l = help; *l;) {
        size_t n = strcspn(l, "\n");
        fprintf(f, "%.*s\n", (int)n, l);
        l += n;
        if (*l) fprintf(f, "%-22s", ""), l++;
    }
}

/* ---- the core's options (their keys in the configuration file too) */
static int slots, no_state;
static double pending_ttl = JOBS_PENDING_TTL;
static char hostfile[4096], sockpath[4096], tcp[256], secret_file[4096], statefile[4096];

static int set_slots(const char *arg, char *err, size_t errlen)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (*end || end == arg || v < 1 || v > 1000000) {
        snprintf(err, errlen, "--slots wants a number from 1 to 1000000, not '%s'", arg);
        return -1;
    }
    slots = (int)v;
    return 0;
}
static int set_ttl(const char *arg, char *err, size_t errlen)
{
    char *end;
    double v = arg ? strtod(arg, &end) : JOBS_PENDING_TTL;
    if (arg && (*end || end == arg || !(v >= 1 && v <= 86400))) {
        snprintf(err, errlen, "--pending-ttl wants seconds from 1 to 86400, not '%s'", arg);
        return -1;
    }
    pending_ttl = jobs.pending_ttl = v;
    return 0;
}
static int set_str(char *to, size_t len, const char *what, const char *arg, char *err, size_t errlen)
{
    if (strlen(arg) >= len) {
        snprintf(err, errlen, "--%s: longer than %zu characters", what, len - 1);
        return -1;
    }
    snprintf(to, len, "%s", arg);
    return 0;
}
static int set_hostfile(const char *a, char *e, size_t l) { return set_str(hostfile, sizeof hostfile, "hostfile", a, e, l); }
static int set_socket(const char *a, char *e, size_t l) { return set_str(sockpath, sizeof sockpath, "socket", a, e, l); }
static int set_tcp(const char *a, char *e, size_t l) { return set_str(tcp, sizeof tcp, "tcp", a, e, l); }
static int set_secret(const char *a, char *e, size_t l) { return set_str(secret_file, sizeof secret_file, "secret", a, e, l); }
static int set_state(const char *a, char *e, size_t l) { return set_str(statefile, sizeof statefile, "state", a, e, l); }
static int set_no_state(const char *a, char *e, size_t l) { return (void)e, (void)l, no_state = !a || strcmp(a, "false"), 0; }
static int set_verbose(const char *a, char *e, size_t l) { return (void)e, (void)l, verbose = !a || strcmp(a, "false"), 0; }

static const struct dpart_option core_options[] = {
    {"slots", "N", "manage N process slots on this host (default: the number of CPUs)", set_slots},
    {"hostfile", "FILE", "manage the hosts and slots in FILE ('host slots=N' per line)", set_hostfile},
    {"socket", "PATH", "Unix-domain socket (default: $XDG_RUNTIME_DIR/ductile/ductiled.sock,\nor /tmp/ductile-UID/ductiled.sock); "
     "its directory is created mode 0700\nwhen missing, and must be yours and writable by nobody else", set_socket},
    {"tcp", "HOST:PORT", "also listen on TCP (requires --secret)", set_tcp},
    {"secret", "FILE", "shared secret for TCP challenge-response (owner-only file)", set_secret},
    {"state", "FILE", "state file (default: next to the default socket, ductiled.state)", set_state},
    {"no-state", NULL, "keep no state file", set_no_state},
    {"pending-ttl", "SEC", "a resize sent to a job but not answered, or taken from its queue but not\nreported, gives its "
     "reserved slots back after SEC seconds (default 120);\na command waiting in the job's queue keeps them as long as it waits",
     set_ttl},
    {"verbose", NULL, "log every connection and message error", set_verbose},
    {NULL, NULL, NULL, NULL},
};
static const char *const core_live[] = {"pending-ttl", "verbose", NULL};

/* the keys a reload changes at once: the core's and the parts' live options, wrapped at 80 columns */
static void live_keys(FILE *f)
{
    int n, col = 22, first = 1;
    const struct dpart *const *parts = core_parts(&n);
    for (int k = -1; k < n; k++)
        for (const char *const *l = k < 0 ? core_live : parts[k]->live; l && *l; l++, first = 0) {
            col += (int)strlen(*l) + 2;
            if (col > 78) fprintf(f, "%s\n%s", first ? "" : ",", *l), col = (int)strlen(*l);
            else fprintf(f, "%s %s", first ? "" : ",", *l);
        }
}

static void usage(FILE *f)
{
    char conf[4096];
    conf_default_path(conf, sizeof conf);
    fprintf(f,
            "Usage: ductiled [OPTIONS]\n"
            "\n"
            "Ductile's central controller.  MPI jobs run under libductile register with it,\n"
            "stream their monitoring, and receive resize and I/O commands from ductilectl.\n"
            "\n"
            "Options:\n"
            "  --config FILE       read the options from FILE (default: %s if it exists)\n"
            "  --no-config         read no configuration file\n"
            "  --check-config      check the configuration file, the options and the files they name\n"
            "                      (hosts, secret); print OK or the errors (exit 0 or 2), start nothing\n", conf);
    int n;
    const struct dpart *const *parts = core_parts(&n);
    for (const struct dpart_option *o = core_options; o->name; o++) opt_help(f, o->name, o->arg, o->help);
    for (int k = 0; k < n; k++) /* the parts' options (core.h) */
        for (const struct dpart_option *o = parts[k]->options; o && o->name; o++) opt_help(f, o->name, o->arg, o->help);
    fprintf(f,
            "  -V, --version       print the version\n"
            "  -h, --help          this help\n"
            "\n"
            "ductilectl drain stops new jobs from registering; ductilectl shutdown (Unix socket only)\n"
            "saves the state and stops the daemon (running jobs re-register with the next one).\n"
            "\n"
            "Configuration file:\n"
            "One 'key = value' a line; the keys are the long options above without their\n"
            "dashes ('policy = fair', 'io-lease = 30'), a flag takes true or false\n"
            "('fold-to-admit = true'); # or ; at the start of a line or after a blank starts\n"
            "a comment.  contrib/ductiled.conf has every key.  Options on the command line\n"
            "override the file.  An unknown key or a bad value stops ductiled with the file\n"
            "and line (exit 2).  SIGHUP re-reads the file: these keys change at once (jobs\n"
            "and connections stay):");
    live_keys(f);
    fprintf(f, ";\nthe log says which other keys wait for a restart.  A bad file on SIGHUP changes\n"
            "nothing (the error is logged with its line).\n"
            "\n"
            "Exit status: 0 after SIGTERM/SIGINT, 1 on a start-up error, 2 on a usage error\n"
            "or a bad configuration file.\n");
}

/* getopt_long's table: the command line's own options, then the core's and every part's (their index + PART_OPT) */
#define PART_OPT 1000
static struct option *all_options(const struct option *own, size_t nown, const struct dpart_option ***popt)
{
    int n, total = 0;
    const struct dpart *const *parts = core_parts(&n);
    for (const struct dpart_option *o = core_options; o->name; o++) total++;
    for (int k = 0; k < n; k++)
        for (const struct dpart_option *o = parts[k]->options; o && o->name; o++) total++;
    struct option *t = calloc(nown + (size_t)total + 1, sizeof *t);
    *popt = calloc((size_t)total + 1, sizeof **popt);
    if (!t || !*popt) return NULL;
    memcpy(t, own, nown * sizeof *t);
    int i = 0;
    for (int k = -1; k < n; k++)
        for (const struct dpart_option *o = k < 0 ? core_options : parts[k]->options; o && o->name; o++, i++) {
            t[nown + (size_t)i] = (struct option){o->name, o->arg ? required_argument : no_argument, 0, PART_OPT + i};
            (*popt)[i] = o;
        }
    return t;
}

/* The command line, then the configuration file for what it did not give:
 * -1 to go on, else the exit status. */
static int options(int argc, char **argv)
{
    static const struct option own[] = {{"help", no_argument, 0, 'h'},         {"version", no_argument, 0, 'V'},
                                        {"config", required_argument, 0, 'c'}, {"no-config", no_argument, 0, 'N'},
                                        {"check-config", no_argument, 0, 'C'}};
    /* kept for the daemon's life (static: reachable, not a leak to LeakSanitizer, whose report at an early
     * exit such as --help's would lose the buffered output) */
    static const struct dpart_option **popt;
    static struct option *opts;
    opts = all_options(own, sizeof own / sizeof own[0], &popt);
    if (!opts || conf_init(core_options, core_live) != 0) {
        fprintf(stderr, "ductiled: out of memory\n");
        return 1;
    }
    notify_init(); /* systemd's $NOTIFY_SOCKET, if any (before any thread) */
    int o, no_conf = 0, check = 0;
    const char *conf = NULL;
    char e[4096] = "";
    while ((o = getopt_long(argc, argv, "vhV", opts, NULL)) != -1) {
        switch (o) {
        case 'v': verbose = 1, conf_given("verbose"); break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("ductiled (Ductile) %s, protocol %d\n", PACKAGE_VERSION, PROTO_VERSION); return 0;
        case 'c': conf = optarg; break;
        case 'N': no_conf = 1; break;
        case 'C': check = 1; break;
        default: {
            if (o < PART_OPT || popt[o - PART_OPT] == NULL) {
                usage(stderr);
                return 2;
            }
            const struct dpart_option *po = popt[o - PART_OPT];
            if (po->set(po->arg ? optarg : NULL, e, sizeof e) != 0) { /* an option of the core or a part (core.h) */
                fprintf(stderr, "ductiled: %s\n", e);
                return 2;
            }
            conf_given(po->name);
        }
        }
    }
    free(opts);
    free(popt);
    if (optind < argc) {
        fprintf(stderr, "ductiled: unexpected argument '%s' (see ductiled --help)\n", argv[optind]);
        return 2;
    }
    if (conf && no_conf) {
        fprintf(stderr, "ductiled: give --config FILE or --no-config, not both\n");
        return 2;
    }
    char def[4096];
    conf_default_path(def, sizeof def);
    if (!conf && !no_conf && access(def, F_OK) == 0) conf = def; /* the default file, when there is one */
    if (conf && conf_load(conf, e, sizeof e) != 0) {
        fprintf(stderr, "%s\n", e);
        fprintf(stderr, "ductiled: %s: not started (the configuration file has errors)\n", conf);
        return 2;
    }
    if (slots && hostfile[0]) {
        fprintf(stderr, "ductiled: give one of --slots, --hostfile and --slurm\n");
        return 2;
    }
    if (tcp[0] && !secret_file[0]) {
        fprintf(stderr, "ductiled: --tcp requires --secret FILE (TCP connections are authenticated)\n");
        return 2;
    }
    if (check) { /* also the files the options name: hosts and secret (nothing is started) */
        struct rm hr;
        struct auth_secret sec;
        e[0] = '\0';
        if (hostfile[0] && rm_init_hostfile(&hr, hostfile, e, sizeof e) == 0) rm_destroy(&hr), e[0] = '\0';
        if (!e[0] && secret_file[0] && auth_load_secret(secret_file, &sec, e, sizeof e) == 0) auth_clear_secret(&sec), e[0] = '\0';
        if (e[0]) {
            fprintf(stderr, "ductiled: %s\n", e);
            return 2;
        }
        printf("%s: OK\n", conf ? conf : "no configuration file; the options");
        return 0;
    }
    if (conf) logmsg("configuration from %s", conf);
    return -1;
}

int main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* buffers of 128 KiB and more (a list's answer: 300 KB at 2,000 jobs) are mapped and given back
     * when freed; glibc's default raises this bound to the largest buffer freed so far, after which
     * they come from the heap and leave holes its top cannot give back (issue 25, item 4: memory flat) */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    int rc = options(argc, argv);
    if (rc >= 0) return rc;
    char err[1024];
    if (secret_file[0]) {
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
    if (res > 0 && (slots || hostfile[0])) {
        fprintf(stderr, "ductiled: give one of --slots, --hostfile and --slurm\n");
        return 2;
    }
    if (res > 0) {
        /* the part made rm */
    } else if (hostfile[0]) {
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
    if (sockpath[0]) {
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
        if (statefile[0]) {
            snprintf(state_path, sizeof state_path, "%s", statefile);
        } else {
            char dir[256];
            if (sockpath[0]) {
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
    if (state_path[0]) state_writer_start(state_path);
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
    if (tcp[0]) {
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
    sigaction(SIGHUP, &sa, NULL);
    int restored = 0;
    for (int k = 0; k < jobs.n; k++) restored += jobs.v[k]->state == JOB_DISCONNECTED;
    snprintf(core_socket, sizeof core_socket, "%s", ua.path); /* for the jobs ductiled starts */
    if (core_start(err, sizeof err) != 0) { /* the parts */
        fprintf(stderr, "ductiled: %s\n", err);
        unlink(ua.path);
        return 1;
    }
    logmsg("listening on unix:%s%s%s; %d slots on %d host(s); %d job(s) restored from %s", ua.path, tcp[0] ? " and tcp:" : "",
           tcp, rm_total(&rm), rm.nhosts, restored, state_path[0] ? state_path : "(no state file)");
    fflush(stderr);
    notify_send("READY=1\nSTATUS=listening on unix:%s%s%s", ua.path, tcp[0] ? " and tcp:" : "", tcp);

    double last_save = net_now(), save_cost = 0; /* save_cost: seconds the last serialisation took */
    struct pollfd pfd[1 + CHILD_MAX];
    double last_auth_check = 0, last_expire = 0;
    if (ioloop_fd() < 0) {
        fprintf(stderr, "ductiled: epoll_create1: %s\n", strerror(errno));
        unlink(ua.path);
        return 1;
    }
    while (!stop && !shutdown_requested) {
        /* the connections' epoll set (ioloop.c) and Slurm's commands, whose output is read
         * here, never waited for (children.c) */
        pfd[0].fd = ioloop_fd();
        pfd[0].events = POLLIN;
        pfd[0].revents = 0;
        int nch = child_pollfds(pfd + 1, CHILD_MAX);
        double hint = child_wait_hint(net_now());
        int r = poll(pfd, (nfds_t)(1 + nch), ioloop_busy() ? 0 : hint < 0.25 ? (int)(hint * 1000) + 1 : 250);
        if (r < 0 && errno != EINTR) {
            logmsg("poll: %s", strerror(errno));
            break;
        }
        turns_begin();
        child_poll(pfd + 1, r > 0 ? nch : 0, net_now()); /* reaps, kills at the deadline, runs the callbacks */
        ioloop_round(); /* what is ready, what was left over; then flushes what requests queued */
        turns_mark(TURN_INPUT);
        if (reload) {
            reload = 0;
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            notify_send("RELOADING=1\nMONOTONIC_USEC=%lld", (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
            conf_reload(); /* the live options change; jobs and connections stay */
            notify_send("READY=1");
        }
        double now = net_now();
        if (now - last_auth_check >= 0.25) { /* silent peers: one line per pass, however many (a peer without the secret cannot flood the log) */
            last_auth_check = now;
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
        if (now - last_expire >= EXPIRE_PERIOD) { /* deadlines of seconds: a pass over every job, not at each turn */
            last_expire = now;
            if (jobs_expire(&jobs, wall(), RESTORE_GRACE, core_on_left)) state_dirty = 1;
            if (jobs_cmds_expire(&jobs, wall())) state_dirty = 1; /* commands without news for --pending-ttl */
        }
        turns_mark(TURN_TIMERS);
        core_on_tick(wall()); /* the parts: the I/O lease, the job queue, the policy, the check against Slurm */
        turns_mark(TURN_PARTS);
        /* a forked child writes the state file (one at a time); the fork never takes more than a fifth of the loop's time */
        double gap = now - last_save, floor = 4 * save_cost;
        if ((state_dirty || (state_samples && gap >= STATE_SAMPLES_PERIOD)) && gap >= floor &&
            (gap >= STATE_PERIOD || (state_urgent && gap >= STATE_URGENT_PERIOD)) && !state_writer_busy()) {
            if (state_path[0]) state_writer_save(&jobs);
            state_dirty = state_urgent = state_samples = 0;
            last_save = net_now();
            save_cost = last_save - now;
        }
        ioloop_flush(); /* what the timers and the parts queued */
        turns_mark(TURN_STATE);
        turns_end();
    }
    turns_log();
    notify_send("STOPPING=1");
    logmsg("stopping; state saved to %s", state_path[0] ? state_path : "(none)");
    save_state_now();
    for (int i = 0; i < MAX_CONNS; i++)
        if (conns[i].kind != C_FREE) {
            close(conns[i].fd);
            linebuf_free(&conns[i].lb);
            free(conns[i].out);
        }
    ioloop_close();
    unlink(ua.path);
    jobs_destroy(&jobs);
    rm_destroy(&rm);
    auth_clear_secret(&secret);
    conf_free();
    return 0;
}
