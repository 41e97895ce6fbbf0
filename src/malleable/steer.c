/* steer.c -- the engine's settings the layers above it may change at run
 * time (steer.h), and the command spawned processes run
 * (ductile_set_spawn_command, include/ductile.h). */
#include "engine.h"
#include "steer.h"

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
    *n = M.join_pending ? M.jh.nitems : 0;
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
