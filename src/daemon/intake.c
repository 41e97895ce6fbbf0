/* intake.c -- ductiled's job queue (docs/policies.md): `ductilectl submit`
 * queues a command with its size (-n N, --min M, --max X); first come, first
 * served, ductiled starts the first waiting job when N slots are free, or
 * with a policy that resizes jobs (core_elastic) at fewer, down to M, when
 * that lets it start now (the policy grows it later, and frees slots for it
 * meanwhile: the slots waiting work needs, core_waiting).  A job is started with fork/exec of
 *   ductile-run --min M [--max X] -- LAUNCHER... -n SIZE COMMAND...
 * in its own session, output to a log file, DUCTILE_JOB_ID=qK (the tag it
 * registers with) and DUCTILE_CONTROLLER set to this daemon.  Its slots are
 * held for it until it registers (then the job's own allocation counts) or,
 * for a program that never registers (not run under Ductile), until it
 * exits: such jobs take part at a fixed size.  Children are reaped without
 * blocking (waitpid WNOHANG) in the daemon's loop.  When the first waiting
 * job lacks slots the parts are asked to make room (core_admit: folding,
 * fold.c) and to give it back when none waits.  A part of ductiled (core.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core.h"
#include "../common/sizes.h"

#define INTAKE_MAX 1024      /* entries kept (waiting, running and the most recent finished) */
#define INTAKE_MAX_DONE 256

enum qstate { Q_WAITING, Q_STARTED, Q_RUNNING, Q_DONE, Q_FAILED };
static const char *const qstate_name[] = {"waiting", "started", "running", "done", "failed"};

struct qjob {
    int qid, n, min, max, size, job, status;
    enum qstate state;
    char **argv;
    int argc;
    char cwd[PATH_MAX];
    char log[PATH_MAX];
    char tag[32];
    double submitted, started, ended;
    pid_t pid;
    int *alloc; /* slots held until the job registers */
    char sizes[SIZES_ALLOWED_MAX + 160]; /* ductilectl submit --sizes: the counts it can use ("" any) */
    struct ductile_sizes sz;
};

static char intake_launcher[1024] = "mpiexec"; /* "mpiexec ..." (split at spaces); -n SIZE is appended */
static char intake_logdir[4096];                /* where the jobs' output goes ("" : next to the state file) */
static struct qjob *q[INTAKE_MAX];
static int nq, next_qid = 1;

static void qfree(struct qjob *e)
{
    for (int i = 0; i < e->argc; i++) free(e->argv[i]);
    free(e->argv);
    if (e->alloc) {
        rm_release_all(&rm, e->alloc);
        free(e->alloc);
    }
    free(e);
}

static void prune(void)
{
    int done = 0;
    for (int i = 0; i < nq; i++) done += q[i]->state >= Q_DONE;
    for (int i = 0; i < nq && done > INTAKE_MAX_DONE;) {
        if (q[i]->state >= Q_DONE) {
            qfree(q[i]);
            memmove(&q[i], &q[i + 1], (size_t)(nq - i - 1) * sizeof q[0]);
            nq--;
            done--;
        } else {
            i++;
        }
    }
}

static json_t *qjson(const struct qjob *e)
{
    json_t *cmd = json_array();
    for (int i = 0; i < e->argc; i++) json_array_append_new(cmd, json_string(e->argv[i]));
    json_t *o = json_pack("{s:i, s:s, s:i, s:i, s:i, s:i, s:f, s:o, s:s, s:s}", "queue_id", e->qid, "state",
                          qstate_name[e->state], "n", e->n, "min", e->min, "max", e->max, "size", e->size, "submitted",
                          e->submitted, "argv", cmd, "tag", e->tag, "log", e->log);
    if (e->started > 0) json_object_set_new(o, "started", json_real(e->started));
    if (e->ended > 0) json_object_set_new(o, "ended", json_real(e->ended));
    if (e->job) json_object_set_new(o, "job", json_integer(e->job));
    if (e->pid > 0) json_object_set_new(o, "pid", json_integer(e->pid));
    if (e->state >= Q_DONE) json_object_set_new(o, "exit_status", json_integer(e->status));
    return o;
}

static void intake_tick(double now);

static void intake_request(int ci, long long id, const char *cmd, const json_t *req)
{
    if (!strcmp(cmd, "queue")) {
        json_t *a = json_array();
        for (int i = 0; i < nq; i++) json_array_append_new(a, qjson(q[i]));
        reply_ok(ci, id, json_pack("{s:o, s:s, s:i}", "queue", a, "policy", core_policy[0] ? core_policy : "none",
                                   "free", rm_free_slots(&rm)));
        return;
    }
    /* submit: runs a command as the daemon's user, so only from the local socket (same uid) */
    if (!core_peer_local(ci)) {
        reply_err(ci, id, PERR_NOT_ALLOWED, "submit is accepted only on the local Unix socket");
        return;
    }
    if (draining) {
        reply_err(ci, id, PERR_NOT_ALLOWED, "ductiled is draining: it takes no new jobs");
        return;
    }
    int n = (int)proto_get_int(req, "n", 1), min = (int)proto_get_int(req, "min", n), max = (int)proto_get_int(req, "max", 0);
    if (min > n || (max > 0 && max < n)) {
        reply_err(ci, id, PERR_BAD_ARGUMENT, "need --min <= -n <= --max (got %d, %d, %d)", min, n, max);
        return;
    }
    const char *spec = proto_get_str(req, "sizes", "");
    struct ductile_sizes sz;
    memset(&sz, 0, sizeof sz);
    char why[400];
    if (spec[0] && sizes_parse(spec, &sz, why, sizeof why) != 0) {
        reply_err(ci, id, PERR_BAD_ARGUMENT, "--sizes '%s': %s", spec, why);
        return;
    }
    if (!sizes_allows(&sz, n, why, sizeof why) || (min != n && !sizes_allows(&sz, min, why, sizeof why))) {
        reply_err(ci, id, PERR_BAD_ARGUMENT, "the job cannot start: %s (--sizes '%s')", why, spec);
        return;
    }
    if (n > rm_total(&rm) || min > rm_total(&rm)) {
        reply_err(ci, id, PERR_NO_SLOTS, "-n %d: ductiled manages only %d slots", min, rm_total(&rm));
        return;
    }
    if (nq >= INTAKE_MAX) {
        reply_err(ci, id, PERR_BUSY, "the queue is full (%d entries)", INTAKE_MAX);
        return;
    }
    const json_t *av = json_object_get(req, "argv");
    struct qjob *e = calloc(1, sizeof *e);
    if (!e || !(e->argv = calloc(json_array_size(av) + 1, sizeof *e->argv))) {
        free(e);
        reply_err(ci, id, PERR_INTERNAL, "out of memory");
        return;
    }
    for (size_t i = 0; i < json_array_size(av); i++) e->argv[e->argc++] = strdup(json_string_value(json_array_get(av, i)));
    e->qid = next_qid++;
    e->n = n;
    e->min = min;
    e->max = max;
    e->sz = sz;
    snprintf(e->sizes, sizeof e->sizes, "%s", spec);
    e->submitted = wall();
    snprintf(e->cwd, sizeof e->cwd, "%s", proto_get_str(req, "cwd", "/"));
    snprintf(e->tag, sizeof e->tag, "q%d", e->qid);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", intake_logdir[0] ? intake_logdir : state_path[0] ? state_path : core_socket);
    if (!intake_logdir[0]) {
        char *sl = strrchr(dir, '/');
        if (sl) *sl = '\0';
        else snprintf(dir, sizeof dir, ".");
    }
    snprintf(e->log, sizeof e->log, "%.3900s/job-q%d.log", dir, e->qid);
    q[nq++] = e;
    int ahead = 0;
    for (int i = 0; i < nq - 1; i++) ahead += q[i]->state == Q_WAITING;
    logmsg("intake: queued q%d (-n %d, --min %d, --max %d): %s ... (%d waiting ahead)", e->qid, n, min, max, e->argv[0], ahead);
    reply_ok(ci, id, json_pack("{s:i, s:s, s:i, s:s}", "queue_id", e->qid, "tag", e->tag, "ahead", ahead, "log", e->log));
    intake_tick(wall());
}

static struct qjob *head(void)
{
    for (int i = 0; i < nq; i++)
        if (q[i]->state == Q_WAITING) return q[i];
    return NULL;
}

/* slots the first waiting job needs to start (its --min under a policy that resizes), 0 when none waits */
static int intake_waiting(void)
{
    struct qjob *h = head();
    return h ? (core_elastic ? h->min : h->n) : 0;
}

/* a job it started registered: its own slots replace what was held for it,
 * and its --min/--max are the queue entry's (unless it sent its own) */
static void intake_registered(struct job *j, const json_t *req)
{
    (void)req;
    for (int i = 0; i < nq; i++) {
        struct qjob *e = q[i];
        if (e->state != Q_STARTED || strcmp(e->tag, j->tag) != 0) continue;
        /* the job's own allocation (adopted at registration) replaces what was held for it */
        rm_release_all(&rm, e->alloc);
        e->state = Q_RUNNING;
        e->job = j->id;
        if (!j->min_procs) j->min_procs = e->min;
        if (!j->max_procs) j->max_procs = e->max;
        jobs_event(j, "intake", json_pack("{s:i, s:i, s:i, s:f}", "queue_id", e->qid, "requested", e->n, "started_at", e->size,
                                          "waited_s", e->started - e->submitted),
                   wall());
        logmsg("intake: q%d registered as job %d", e->qid, j->id);
        return;
    }
}

static void runner_path(char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        snprintf(out, len, "ductile-run");
        return;
    }
    self[n] = '\0';
    snprintf(out, len, "%s/ductile-run", dirname(self));
    if (access(out, X_OK) != 0) snprintf(out, len, "ductile-run");
}

static int start(struct qjob *e, int size, double now)
{
    char why[256];
    int *where = calloc((size_t)size, sizeof(int));
    e->alloc = rm_alloc_new(&rm);
    if (!where || !e->alloc || rm_grant(&rm, e->alloc, size, NULL, where, why, sizeof why) != 0) {
        free(where);
        return -1;
    }
    free(where);
    char runner[PATH_MAX], launch[sizeof intake_launcher], ns[16], mins[16], maxs[16], ctl[4200];
    runner_path(runner, sizeof runner);
    snprintf(launch, sizeof launch, "%s", intake_launcher);
    snprintf(ns, sizeof ns, "%d", size);
    snprintf(mins, sizeof mins, "%d", e->min);
    snprintf(maxs, sizeof maxs, "%d", e->max);
    snprintf(ctl, sizeof ctl, "unix:%s", core_socket);
    char *argv[64 + 256 + 8];
    int k = 0;
    argv[k++] = runner;
    argv[k++] = "--min";
    argv[k++] = mins;
    if (e->max > 0) argv[k++] = "--max", argv[k++] = maxs;
    if (e->sizes[0]) argv[k++] = "--sizes", argv[k++] = e->sizes;
    argv[k++] = "--";
    for (char *save = NULL, *t = strtok_r(launch, " ", &save); t && k < 64; t = strtok_r(NULL, " ", &save)) argv[k++] = t;
    argv[k++] = "-n";
    argv[k++] = ns;
    for (int i = 0; i < e->argc; i++) argv[k++] = e->argv[i];
    argv[k] = NULL;
    /* the job's log: never through a link someone left at its name, and a
     * regular file of ours (opened here, so that a refusal is logged) */
    int fd = open(e->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        logmsg("intake: q%d: cannot use its log %s: %s", e->qid, e->log,
               fd < 0 ? (errno == ELOOP ? "a symbolic link: refused" : strerror(errno)) : "not a regular file of ductiled's user");
        if (fd >= 0) close(fd);
        rm_release_all(&rm, e->alloc);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        logmsg("intake: q%d: fork: %s", e->qid, strerror(errno));
        close(fd);
        rm_release_all(&rm, e->alloc);
        return -1;
    }
    if (pid == 0) {
        setsid();
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) dup2(nul, 0);
        if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
        for (long f = 3, top = sysconf(_SC_OPEN_MAX); f < (top > 0 ? top : 65536); f++) close((int)f);
        signal(SIGPIPE, SIG_DFL);
        if (chdir(e->cwd) != 0) {
            fprintf(stderr, "ductiled: cannot enter %s: %s\n", e->cwd, strerror(errno));
            _exit(126);
        }
        setenv("DUCTILE_JOB_ID", e->tag, 1);
        setenv("DUCTILE_CONTROLLER", ctl, 1);
        execv(runner, argv);
        execvp(runner, argv);
        fprintf(stderr, "ductiled: cannot run %s: %s\n", runner, strerror(errno));
        _exit(127);
    }
    close(fd);
    e->pid = pid;
    e->size = size;
    e->started = now;
    e->state = Q_STARTED;
    logmsg("intake: started q%d at %d of %d processes (pid %ld, waited %.1f s, log %s)", e->qid, size, e->n, (long)pid,
           now - e->submitted, e->log);
    return 0;
}

static void intake_tick(double now)
{
    for (int i = 0; i < nq; i++) {
        struct qjob *e = q[i];
        if (e->pid <= 0 || e->state >= Q_DONE) continue;
        int st;
        pid_t r = waitpid(e->pid, &st, WNOHANG);
        if (r != e->pid) continue;
        e->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        e->state = e->status == 0 ? Q_DONE : Q_FAILED;
        e->ended = now;
        rm_release_all(&rm, e->alloc); /* a job that never registered: its slots */
        logmsg("intake: q%d ended (status %d) after %.1f s", e->qid, e->status, now - e->started);
    }
    for (struct qjob *h; (h = head());) {
        int freen = rm_free_slots(&rm), size = 0;
        if (freen >= h->n) size = h->n;
        else if (core_elastic && freen >= h->min) size = sizes_nearest(&h->sz, freen, -1, freen - h->min); /* a count it can use */
        if (!size && core_admit(core_elastic ? h->min : h->n, h->qid, now)) continue; /* a part made room (folding) */
        if (!size) break;
        if (start(h, size, now) != 0) {
            h->state = Q_FAILED;
            h->ended = now;
            h->status = -1;
        }
    }
    struct qjob *w = head();
    core_admit_release(w ? (core_elastic ? w->min : w->n) : 0, now);
    prune();
}

static int set_launcher(const char *arg, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    snprintf(intake_launcher, sizeof intake_launcher, "%s", arg ? arg : "mpiexec"); /* NULL: the default (a reload) */
    return 0;
}

static int set_logdir(const char *arg, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    snprintf(intake_logdir, sizeof intake_logdir, "%s", arg ? arg : "");
    return 0;
}

static const struct dpart_option intake_options[] = {
    {"launcher", "CMD", "how submitted jobs are started (default 'mpiexec'; -n SIZE COMMAND is\nappended, all run under ductile-run)",
     set_launcher},
    {"job-logs", "DIR", "output of submitted jobs (default: next to the state file)", set_logdir},
    {NULL, NULL, NULL, NULL},
};
static const struct dpart_request intake_requests[] = {{"submit", intake_request}, {"queue", intake_request}, {NULL, NULL}};
static const char *const intake_live[] = {"launcher", "job-logs", NULL}; /* used at each start of a job */
static const struct dpart intake_part = {.name = "intake",
                                         .options = intake_options,
                                         .live = intake_live,
                                         .requests = intake_requests,
                                         .registered = intake_registered,
                                         .tick = intake_tick,
                                         .waiting = intake_waiting};
DUCTILED_PART(intake_part);
