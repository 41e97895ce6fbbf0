/* jobs_state.c -- ductiled's state file: the job table written atomically
 * (fresh O_EXCL temporary, fsync, rename, directory fsync) and read back
 * only from a regular file of our own user that nobody else can write; see
 * jobs.h. */
#include "jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../proto/protocol.h"

/* What the loop hands the writer (state_writer.c): the table as a JSON tree
 * that shares nothing with the loop's, without the samples, and the newest
 * JOBS_SAVED_HISTORY samples of each job as plain structs; the writer turns
 * the samples into JSON and the whole into text (at 2,000 jobs the samples
 * are most of the work: 128,000 of them). */
struct jobs_snapshot {
    json_t *root;
    int n;
    int *count;          /* samples of job k */
    struct hsample *s;   /* job k's at s + k * JOBS_SAVED_HISTORY */
};

struct jobs_snapshot *jobs_snapshot(const struct jobs *t)
{
    struct jobs_snapshot *sn = calloc(1, sizeof *sn);
    if (!sn) return NULL;
    sn->n = t->n;
    sn->count = calloc((size_t)t->n + 1, sizeof *sn->count);
    sn->s = malloc(((size_t)t->n + 1) * JOBS_SAVED_HISTORY * sizeof *sn->s);
    json_t *jobs = json_array();
    if (!sn->count || !sn->s || !jobs) {
        json_decref(jobs);
        jobs_snapshot_free(sn);
        return NULL;
    }
    for (int i = 0; i < t->n; i++) {
        const struct job *j = t->v[i];
        int k0 = j->hist.n > JOBS_SAVED_HISTORY ? j->hist.n - JOBS_SAVED_HISTORY : 0;
        sn->count[i] = j->hist.n - k0;
        if (sn->count[i] > 0) memcpy(sn->s + (size_t)i * JOBS_SAVED_HISTORY, j->hist.v + k0, (size_t)sn->count[i] * sizeof *sn->s);
        json_t *o = json_pack("{s:i, s:s, s:I, s:s, s:s, s:i, s:b, s:s, s:i, s:f, s:f, s:o, s:o, s:o, s:b, "
                              "s:f, s:I, s:I}",
                              "id", j->id, "tag", j->tag, "pid", (json_int_t)j->pid, "binary", j->binary, "mpi", j->mpi,
                              "procs", j->procs, "malleable", j->malleable, "state", job_state_name(j->state),
                              "exit_status", j->exit_status, "registered", j->registered, "last_seen", j->last_seen,
                              "arrays", json_deep_copy(j->arrays), "events", json_deep_copy(j->events), "slots", jobs_alloc_json(t, j),
                              "io_held", j->io_held, "period", j->period, "iteration", (json_int_t)j->iteration,
                              "samples", (json_int_t)j->samples);
        if (!o) {
            json_array_append_new(jobs, json_object()); /* keeps job k at [k] */
            continue;
        }
        json_object_set_new(o, "launcher", json_string(j->launcher));
        json_object_set_new(o, "cp_seen", json_boolean(j->cp_seen));
        if (j->time_sample > 1) json_object_set_new(o, "time_sample", json_integer(j->time_sample));
        jobs_place_save(t, j, o); /* where its processes are, parked and on standby */
        jobs_cmds_save(t, j, o);  /* its commands and their reserved slots */
        if (j->io_shrink_n > 0)
            json_object_set_new(o, "io_shrink", json_pack("{s:i, s:i, s:I}", "n", j->io_shrink_n, "from", j->io_shrink_from,
                                                          "at", (json_int_t)j->io_shrink_at));
        json_object_set_new(o, "uid", json_integer(j->uid)); /* the owner and the key a take-over must show (edge.c); */
        if (j->key[0]) json_object_set_new(o, "key", json_string(j->key)); /* the file is mode 0600 */
        json_array_append_new(jobs, o);
    }
    sn->root = json_pack("{s:i, s:i, s:o}", "version", 1, "next_id", t->next_id, "jobs", jobs);
    if (!sn->root) {
        jobs_snapshot_free(sn);
        return NULL;
    }
    return sn;
}

void jobs_snapshot_free(struct jobs_snapshot *sn)
{
    if (!sn) return;
    json_decref(sn->root);
    free(sn->count);
    free(sn->s);
    free(sn);
}

/* Text appended to a growing buffer; -1 out of memory. */
struct sbuf {
    char *s;
    size_t n, cap;
};

static int put(struct sbuf *b, const char *t, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->n + n + 1) cap *= 2;
        char *x = realloc(b->s, cap);
        if (!x) return -1;
        b->s = x, b->cap = cap;
    }
    memcpy(b->s + b->n, t, n);
    b->n += n;
    b->s[b->n] = '\0';
    return 0;
}

static int put_json(struct sbuf *b, const json_t *o)
{
    char *t = json_dumps(o, JSON_COMPACT);
    int rc = t ? put(b, t, strlen(t)) : -1;
    free(t);
    return rc;
}

char *jobs_snapshot_text(struct jobs_snapshot *sn)
{
    /* written piece by piece (a job, then its samples one at a time): the text, never a tree of every sample */
    if (!sn) return NULL;
    struct sbuf b = {NULL, 0, 0};
    char head[96];
    int rc = 0;
    snprintf(head, sizeof head, "{\"version\": 1, \"next_id\": %lld, \"jobs\": [\n",
             (long long)json_integer_value(json_object_get(sn->root, "next_id")));
    rc |= put(&b, head, strlen(head));
    json_t *jobs = json_object_get(sn->root, "jobs");
    for (int i = 0; i < sn->n && !rc; i++) {
        json_t *o = json_array_get(jobs, (size_t)i);
        if (!json_object_size(o)) continue;
        if (b.s[b.n - 2] == '}') rc |= put(&b, ",\n", 2);
        char *t = json_dumps(o, JSON_COMPACT);
        size_t tl = t ? strlen(t) : 0;
        rc |= !t || tl < 2 || put(&b, t, tl - 1); /* without its closing brace */
        free(t);
        rc |= put(&b, ",\"history\":[", 12);
        for (int k = 0; k < sn->count[i] && !rc; k++) {
            json_t *h = hist_json(sn->s + (size_t)i * JOBS_SAVED_HISTORY + k);
            rc |= (k && put(&b, ",", 1)) || !h || put_json(&b, h);
            json_decref(h);
        }
        rc |= put(&b, "]}\n", 3);
        json_array_set_new(jobs, (size_t)i, json_object()); /* freed as it goes */
    }
    rc |= put(&b, "]}\n", 3);
    jobs_snapshot_free(sn);
    if (rc) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

char *jobs_save_text(const struct jobs *t) { return jobs_snapshot_text(jobs_snapshot(t)); }

int jobs_save(const struct jobs *t, const char *path, char *err, size_t errlen)
{
    char *text = jobs_save_text(t);
    if (!text) {
        snprintf(err, errlen, "cannot write state file %s: out of memory", path);
        return -1;
    }
    int rc = jobs_write_text(text, path, err, errlen);
    free(text);
    return rc;
}

int jobs_write_text(const char *text, const char *path, char *err, size_t errlen)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    /* a fresh temporary file (never through a link someone left there),
     * flushed to disk before it replaces the state, then the directory */
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int rc = -1;
    if (fd >= 0) {
        size_t n = strlen(text), off = 0;
        while (off < n) {
            ssize_t w = write(fd, text + off, n - off);
            if (w <= 0) break;
            off += (size_t)w;
        }
        rc = off == n && write(fd, "\n", 1) == 1 && fsync(fd) == 0 ? 0 : -1;
        if (close(fd) != 0) rc = -1;
        if (rc == 0 && rename(tmp, path) != 0) rc = -1;
        if (rc == 0) {
            char dir[4200];
            snprintf(dir, sizeof dir, "%s", path);
            char *sl = strrchr(dir, '/');
            if (sl) *(sl == dir ? sl + 1 : sl) = '\0';
            else snprintf(dir, sizeof dir, ".");
            int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dfd >= 0) {
                (void)fsync(dfd);
                close(dfd);
            }
        }
    }
    if (rc != 0) {
        snprintf(err, errlen, "cannot write state file %s: %s", path, strerror(errno));
        unlink(tmp);
    }
    return rc;
}

int jobs_load(struct jobs *t, const char *path, double now, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return 0; /* no state yet */
        snprintf(err, errlen, "state file %s: %s%s", path, strerror(errno),
                 errno == ELOOP ? " (a symbolic link: refused)" : "");
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
        snprintf(err, errlen, "state file %s is %s: refused (it must be a regular file of uid %u that only its owner can write)",
                 path, !S_ISREG(st.st_mode) ? "not a regular file" : st.st_uid != geteuid() ? "owned by another user"
                 : "writable by group or others", (unsigned)geteuid());
        close(fd);
        return -1;
    }
    json_error_t je;
    json_t *root = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je);
    close(fd);
    if (!root) {
        snprintf(err, errlen, "state file %s: %s (line %d)", path, je.text, je.line);
        return -2;
    }
    if (proto_get_int(root, "version", 0) != 1 || !json_is_array(json_object_get(root, "jobs"))) {
        snprintf(err, errlen, "state file %s: not a version-1 ductiled state", path);
        json_decref(root);
        return -2;
    }
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(root, "jobs"), i, o) {
        int id = (int)proto_get_int(o, "id", 0);
        if (id < 1 || jobs_get(t, id)) continue;
        struct job *j = jobs_new_job(t, id);
        if (!j) break;
        snprintf(j->tag, sizeof j->tag, "%s", proto_get_str(o, "tag", ""));
        j->pid = (long)proto_get_int(o, "pid", 0);
        snprintf(j->binary, sizeof j->binary, "%s", proto_get_str(o, "binary", ""));
        snprintf(j->mpi, sizeof j->mpi, "%s", proto_get_str(o, "mpi", ""));
        snprintf(j->launcher, sizeof j->launcher, "%s", proto_get_str(o, "launcher", "mpiexec"));
        j->procs = (int)proto_get_int(o, "procs", 1);
        if (j->procs < 1 || j->procs > PROTO_MAX_PROCS) j->procs = 1;
        j->ev_size = j->procs;
        j->uid = proto_get_int(o, "uid", -1);
        const char *key = proto_get_str(o, "key", "");
        if (strlen(key) == 64 && strspn(key, "0123456789abcdef") == 64) snprintf(j->key, sizeof j->key, "%s", key);
        j->malleable = json_is_true(json_object_get(o, "malleable"));
        j->exit_status = (int)proto_get_int(o, "exit_status", 0);
        j->registered = proto_get_num(o, "registered", now);
        j->last_seen = proto_get_num(o, "last_seen", now);
        j->io_held = json_is_true(json_object_get(o, "io_held"));
        j->period = proto_get_num(o, "period", 0);
        j->iteration = proto_get_int(o, "iteration", 0);
        j->samples = proto_get_int(o, "samples", 0);
        j->cp_seen = json_is_true(json_object_get(o, "cp_seen"));
        j->time_sample = (int)proto_get_int(o, "time_sample", 1);
        if (j->time_sample < 1 || j->time_sample > 1000000) j->time_sample = 1;
        json_t *shr = json_object_get(o, "io_shrink");
        j->io_shrink_n = (int)proto_get_int(shr, "n", 0);
        j->io_shrink_from = (int)proto_get_int(shr, "from", 0);
        j->io_shrink_at = proto_get_int(shr, "at", -1);
        if (j->io_shrink_n < 0 || j->io_shrink_n > PROTO_MAX_PROCS) j->io_shrink_n = 0;
#define TAKE(f, key) do { json_t *x_ = json_object_get(o, key); if (json_is_array(x_)) { json_decref(j->f); j->f = json_deep_copy(x_); } } while (0)
        TAKE(arrays, "arrays");
        hist_load(&j->hist, json_object_get(o, "history"));
        TAKE(events, "events");
#undef TAKE
        const char *st = proto_get_str(o, "state", "lost");
        if (strcmp(st, "running") == 0 || strcmp(st, "disconnected") == 0) {
            /* it holds its slots while it reconnects: its processes, parked ones and reservations */
            j->state = JOB_DISCONNECTED;
            j->disconnected_at = now;
            jobs_place_load(t, j, o);
            jobs_cmds_load(t, j, o, now);
            jobs_place(t, j);
        } else {
            j->state = strcmp(st, "exited") == 0 ? JOB_EXITED : strcmp(st, "crashed") == 0 ? JOB_CRASHED : JOB_LOST;
        }
    }
    int nid = (int)proto_get_int(root, "next_id", 1);
    if (nid > t->next_id) t->next_id = nid;
    json_decref(root);
    return 0;
}
