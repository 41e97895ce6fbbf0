/* ductiled.c -- Ductile's central controller: accepts application
 * controllers (jobs) and ductilectl clients on a Unix-domain socket in an
 * owner-only directory (peer uid checked) and optionally on TCP
 * (HMAC challenge-response), tracks jobs and their monitoring history, runs
 * the resource manager, forwards commands to jobs, and keeps its state in a
 * file so that a restarted daemon keeps its jobs.  Single-threaded poll()
 * loop; every read and write is non-blocking and every message bounded.
 * This file: options, start-up and the loop; the rest is in src/daemon/
 * (daemon.h lists the parts). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/daemon/daemon.h"
#include "../src/daemon/fold.h"
#include "../src/daemon/slurm.h"

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
            "  --slurm             manage the hosts and CPUs of the Slurm job ductiled runs in ($SLURM_JOB_ID);\n"
            "                      hosts a shrink empties are given back to Slurm (docs/cluster.md)\n"
            "  --slurm-job J       the same for Slurm job J\n"
            "  --slurm-sync SEC    how often to check the allocation against Slurm (default 5)\n"
            "  --slurm-grow        with --slurm: an expansion the allocation cannot hold asks Slurm to add\n"
            "                      hosts to the job (job expansion; needs SchedulerParameters=permit_job_expansion;\n"
            "                      MPICH jobs only: docs/cluster.md)\n"
            "  --socket PATH       Unix-domain socket (default: $XDG_RUNTIME_DIR/ductile/ductiled.sock,\n"
            "                      or /tmp/ductile-UID/ductiled.sock); its directory is created mode 0700\n"
            "                      when missing, and must be yours and writable by nobody else\n"
            "  --tcp HOST:PORT     also listen on TCP (requires --secret)\n"
            "  --secret FILE       shared secret for TCP challenge-response (owner-only file)\n"
            "  --state FILE        state file (default: next to the default socket, ductiled.state)\n"
            "  --no-state          keep no state file\n"
            "  --io-policy P       I/O interference controller: none (default), phase-shift (Algorithm 3)\n"
            "                      or period-coupling (Algorithm 4, then phase shifts); docs/io.md; auto:\n"
            "                      predicted I/O time decides none/exclusive/shift/coupling, first come\n"
            "                      first served until it can predict (docs/policies.md)\n"
            "  --io-uncertainty S  seconds added to each predicted I/O phase (default 0.2)\n"
            "  --io-overhead S     seconds one reconfiguration is assumed to cost (default 0.3)\n"
            "  --io-lease S        the exclusive-I/O token is taken back from a job that holds it longer\n"
            "                      than S seconds while others wait (default 60; 0: never)\n"
            "  --policy P          global policy resizing the jobs: fair, efficiency, throughput, io, or\n"
            "                      one of the first three with io (efficiency,io); docs/policies.md\n"
            "  --policy-params KV  threshold=0.6,band=0.1,margin=0.2,cooldown=5,horizon=60,io-weight=1\n"
            "  --launcher CMD      how submitted jobs are started (default 'mpiexec'; -n SIZE COMMAND is\n"
            "                      appended, all run under ductile-run)\n"
            "  --job-logs DIR      output of submitted jobs (default: next to the state file)\n"
            "  --fold-to-admit     when a submitted job cannot start for lack of free cores, fold running\n"
            "                      jobs to half their cores per host (at least 1); unfold them when their\n"
            "                      cores would idle (docs/folding.md; run such jobs unbound)\n"
            "  -v, --verbose       log every connection and message error\n"
            "  -V, --version       print the version\n"
            "  -h, --help          this help\n"
            "\n"
            "ductilectl drain stops new jobs from registering; ductilectl shutdown (Unix socket only)\n"
            "saves the state and stops the daemon (running jobs re-register with the next one).\n"
            "\n"
            "Exit status: 0 after SIGTERM/SIGINT, 1 on a start-up error, 2 on a usage error.\n");
}

int main(int argc, char **argv)
{
    int slots = 0, no_state = 0, use_slurm = 0, slurm_grow = 0;
    const char *slurm_job = NULL;
    double slurm_sync = 5.0;
    const char *hostfile = NULL, *sockpath = NULL, *tcp = NULL, *secret_file = NULL, *statefile = NULL;
    static const struct option opts[] = {{"slots", required_argument, 0, 's'},   {"hostfile", required_argument, 0, 'H'},
                                         {"socket", required_argument, 0, 'S'},  {"tcp", required_argument, 0, 't'},
                                         {"secret", required_argument, 0, 'k'},  {"state", required_argument, 0, 'f'},
                                         {"no-state", no_argument, 0, 'n'},      {"verbose", no_argument, 0, 'v'},
                                         {"help", no_argument, 0, 'h'}, {"version", no_argument, 0, 'V'},          {"io-policy", required_argument, 0, 'P'},
                                         {"io-uncertainty", required_argument, 0, 'U'},
                                         {"io-overhead", required_argument, 0, 'O'}, {"io-lease", required_argument, 0, 'L'},
                                         {"policy", required_argument, 0, 'G'}, {"policy-params", required_argument, 0, 'g'},
                                         {"launcher", required_argument, 0, 'l'}, {"job-logs", required_argument, 0, 'J'},
                                         {"slurm", no_argument, 0, 'B'}, {"slurm-job", required_argument, 0, 'K'},
                                         {"slurm-sync", required_argument, 0, 'Y'}, {"slurm-grow", no_argument, 0, 'E'},
                                         {"fold-to-admit", no_argument, 0, 'F'},
                                         {0, 0, 0, 0}};
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
        case 'B': use_slurm = 1; break;
        case 'K': use_slurm = 1, slurm_job = optarg; break;
        case 'E': use_slurm = 1, slurm_grow = 1; break;
        case 'Y': {
            char *end;
            slurm_sync = strtod(optarg, &end);
            if (*end || !(slurm_sync >= 0.1 && slurm_sync <= 3600)) {
                fprintf(stderr, "ductiled: --slurm-sync wants seconds from 0.1 to 3600, not '%s'\n", optarg);
                return 2;
            }
            break;
        }
        case 'S': sockpath = optarg; break;
        case 't': tcp = optarg; break;
        case 'k': secret_file = optarg; break;
        case 'f': statefile = optarg; break;
        case 'n': no_state = 1; break;
        case 'v': verbose = 1; break;
        case 'P':
            if (!strcmp(optarg, "none")) io_policy = IOPOL_NONE;
            else if (!strcmp(optarg, "phase-shift")) io_policy = IOPOL_SHIFT;
            else if (!strcmp(optarg, "period-coupling")) io_policy = IOPOL_COUPLE;
            else if (!strcmp(optarg, "auto")) io_policy = IOPOL_AUTO;
            else {
                fprintf(stderr, "ductiled: --io-policy wants none, phase-shift, period-coupling or auto, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'L': {
            char *end;
            double v = strtod(optarg, &end);
            if (*end || !(v >= 0 && v <= 86400)) {
                fprintf(stderr, "ductiled: --io-lease wants seconds from 0 to 86400, not '%s'\n", optarg);
                return 2;
            }
            io_lease = v;
            break;
        }
        case 'U':
        case 'O': {
            char *end;
            double v = strtod(optarg, &end);
            if (*end || !(v >= 0 && v <= 3600)) {
                fprintf(stderr, "ductiled: --io-%s wants seconds from 0 to 3600, not '%s'\n",
                        o == 'U' ? "uncertainty" : "overhead", optarg);
                return 2;
            }
            if (o == 'U') io_prm.uncertainty = v;
            else io_prm.overhead = v;
            break;
        }
        case 'G':
        case 'g': {
            char e[256];
            if ((o == 'G' ? gpolicy_option : gpolicy_params_option)(optarg, e, sizeof e) != 0) {
                fprintf(stderr, "ductiled: %s\n", e);
                return 2;
            }
            break;
        }
        case 'l': snprintf(intake_launcher, sizeof intake_launcher, "%s", optarg); break;
        case 'F': fold_to_admit = 1; break;
        case 'J': snprintf(intake_logdir, sizeof intake_logdir, "%s", optarg); break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("ductiled (Ductile) %s, protocol %d\n", PACKAGE_VERSION, PROTO_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ductiled: unexpected argument '%s' (see ductiled --help)\n", argv[optind]);
        return 2;
    }
    if ((slots && hostfile) || (use_slurm && (slots || hostfile))) {
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
    if (use_slurm) {
        if (slurm_init(&rm, slurm_job, slurm_sync, err, sizeof err) != 0 || (slurm_grow && slurm_enable_grow(err, sizeof err) != 0)) {
            fprintf(stderr, "ductiled: %s\n", err);
            return 1;
        }
    } else if (hostfile) {
        if (rm_init_hostfile(&rm, hostfile, err, sizeof err) != 0) {
            fprintf(stderr, "ductiled: %s\n", err);
            return 1;
        }
        from_hostfile = 1;
    } else {
        char hn[256] = "localhost";
        gethostname(hn, sizeof hn - 1);
        if (!proto_valid_hostname(hn)) snprintf(hn, sizeof hn, "localhost");
        if (!slots) slots = (int)sysconf(_SC_NPROCESSORS_ONLN);
        rm_init_slots(&rm, hn, slots > 0 ? slots : 1);
    }
    jobs_init(&jobs, &rm);
    iotoken_init(&iotok);

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
    snprintf(intake_socket, sizeof intake_socket, "%s", ua.path); /* for the jobs ductiled starts */
    if (gpolicy) logmsg("global policy %s", policy_name(gpolicy));
    logmsg("listening on unix:%s%s%s; %d slots on %d host(s); %d job(s) restored from %s", ua.path, tcp ? " and tcp:" : "",
           tcp ? tcp : "", rm_total(&rm), rm.nhosts, restored, state_path[0] ? state_path : "(no state file)");
    fflush(stderr);

    double last_save = net_now(), save_cost = 0; /* save_cost: seconds the last serialisation took */
    struct pollfd pfd[MAX_CONNS];
    int idx[MAX_CONNS];
    while (!stop && !shutdown_requested) {
        int n = 0;
        for (int i = 0; i < MAX_CONNS; i++) {
            if (conns[i].kind == C_FREE) continue;
            pfd[n].fd = conns[i].fd;
            pfd[n].events = (short)(conns[i].kind == C_PEER && (conns[i].closing || conns[i].eof || conns[i].lb.len >= IN_ROUND_BYTES) ? 0 : POLLIN);
            if (conns[i].outlen || conns[i].closing) pfd[n].events |= POLLOUT;
            pfd[n].revents = 0;
            idx[n++] = i;
        }
        int backlog = 0;
        for (int i = 0; i < MAX_CONNS; i++) backlog |= conns[i].kind == C_PEER && conns[i].backlog;
        int r = poll(pfd, (nfds_t)n, backlog ? 0 : 250);
        if (r < 0 && errno != EINTR) {
            logmsg("poll: %s", strerror(errno));
            break;
        }
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
        for (int i = 0; i < MAX_CONNS; i++)
            if (conns[i].kind == C_PEER && !conns[i].authed && now - conns[i].opened > AUTH_TIMEOUT) {
                logmsg("no authentication from %s within %.0f s: dropped", conns[i].peer, AUTH_TIMEOUT);
                close_conn(i, NULL);
            }
        for (size_t f = 0; f < sizeof fwds / sizeof fwds[0]; f++)
            if (fwds[f].used && now > fwds[f].deadline)
                finish_forward(&fwds[f], 0, NULL, PERR_TIMEOUT, "no answer from the job within 10 s");
        if (jobs_expire(&jobs, wall(), RESTORE_GRACE)) state_dirty = 1;
        io_check_lease(wall());
        intake_tick(wall());
        gpolicy_tick(wall());
        slurm_tick(now); /* --slurm: does Slurm still see the allocation as ductiled does? (bounded) */
        /* the loop serialises, the writer thread writes; never more than a fifth of the loop's time */
        double gap = now - last_save, floor = 4 * save_cost;
        if (state_dirty && gap >= floor && (gap >= STATE_PERIOD || (state_urgent && gap >= STATE_URGENT_PERIOD))) {
            if (state_path[0]) state_writer_submit(jobs_save_text(&jobs));
            state_dirty = state_urgent = 0;
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
