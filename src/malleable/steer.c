/* steer.c -- the engine's settings the layers above it may change at run
 * time (steer.h), the command spawned processes run
 * (ductile_set_spawn_command, include/ductile.h), and the job's size
 * constraints (ductile_set_sizes, EMPI_Set_maxprocs; checked by rank 0's
 * decision through policy.c, and by ductile_request_resize at once). */
#include "engine.h"
#include "steer.h"

#include <pthread.h>

#include "../common/sizes.h"

/* set by the program's thread, read by rank 0's decision and by the
 * controller's thread (ductile_request_resize): under a lock, never on the
 * wrapper path */
static pthread_mutex_t sizes_mu = PTHREAD_MUTEX_INITIALIZER;
static struct ductile_sizes job_sizes;

void engine_sizes(struct ductile_sizes *out)
{
    pthread_mutex_lock(&sizes_mu);
    *out = job_sizes;
    pthread_mutex_unlock(&sizes_mu);
}

int engine_sizes_from_settings(int store, char *err, size_t errlen)
{
    const struct ductile_settings *s = &ductile_rt.settings;
    struct ductile_sizes z;
    memset(&z, 0, sizeof z);
    z.min = s->min_procs;
    z.max = s->max_procs;
    char why[400];
    if (z.min > 0 && z.max > 0 && z.min > z.max) {
        snprintf(err, errlen, "DUCTILE_MIN_PROCS=%d is above DUCTILE_MAX_PROCS=%d", z.min, z.max);
        return -1;
    }
    struct ductile_sizes t = z;
    if (s->sizes && *s->sizes && sizes_parse(s->sizes, &t, why, sizeof why) != 0) {
        snprintf(err, errlen, "DUCTILE_SIZES='%s' is not valid: %s", s->sizes, why);
        return -1;
    }
    /* both given: the tighter bound holds */
    if (z.min > t.min) t.min = z.min;
    if (z.max > 0 && (t.max == 0 || z.max < t.max)) t.max = z.max;
    if (t.min > 0 && t.max > 0 && t.min > t.max) {
        snprintf(err, errlen, "the job's minimum %d is above its maximum %d (DUCTILE_MIN_PROCS, DUCTILE_MAX_PROCS, "
                 "DUCTILE_SIZES)", t.min, t.max);
        return -1;
    }
    if (store) {
        pthread_mutex_lock(&sizes_mu);
        job_sizes = t;
        pthread_mutex_unlock(&sizes_mu);
    }
    return 0;
}

int ductile_set_sizes(const char *spec, char *err, size_t errlen)
{
    char dummy[8];
    if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
    pthread_mutex_lock(&sizes_mu);
    int rc = sizes_parse(spec ? spec : "", &job_sizes, err, errlen);
    pthread_mutex_unlock(&sizes_mu);
    return rc;
}

void ductile_get_sizes(char *spec, size_t len)
{
    if (!spec || !len) return;
    pthread_mutex_lock(&sizes_mu);
    sizes_format(&job_sizes, spec, len);
    pthread_mutex_unlock(&sizes_mu);
}

void engine_methods(int *method, int *redist, int *nb, int *is_auto)
{
    if (method) *method = M.method == METHOD_BASELINE ? STEER_BASELINE : STEER_MERGE;
    if (redist) *redist = M.redist;
    if (nb) *nb = M.nb;
    if (is_auto) *is_auto = M.auto_redist;
}

void engine_set_methods(int method, int redist, int nb, int *note)
{
    int dummy;
    if (!note) note = &dummy;
    M.method = method == STEER_BASELINE ? METHOD_BASELINE : METHOD_MERGE;
    if (redist >= 0) {
        M.redist = redist;
        M.auto_redist = 0;
    }
    M.nb = policy_const_effective(nb, M.redist == REDIST_RMA_LOCK || M.redist == REDIST_RMA_LOCKALL, rma_thread_ok(),
                                  note);
    M.thread_refused = *note == 2;
}

const struct reg_desc *engine_join_items(int *n)
{
    *n = M.join_pending && M.jdesc ? M.jh.nitems : 0; /* none: out of memory (the join rolls back) */
    return *n ? M.jdesc : NULL;
}

int ductile_set_spawn_command(const char *path)
{
    static char cmd[4096];
    if (!path || strlen(path) >= sizeof cmd) return -1;
    snprintf(cmd, sizeof cmd, "%s", path);
    ductile_rt.settings.spawn_command = cmd;
    return 0;
}
