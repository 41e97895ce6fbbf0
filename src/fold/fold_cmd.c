/* fold_cmd.c -- the "fold" and "unfold" commands as the application
 * controller thread (rank 0, src/controller/appctl_msg.c) answers them: the
 * command is queued for the next safe point (fold.c); no MPI call here. */
#include "config.h"

#include "fold_cmd.h"

#include <string.h>

#include <jansson.h>

#include "fold.h"
#include "../core/state.h"

char *ductile_fold_command(const struct proto_msg *m)
{
    int unfold = !strcmp(m->cmd, "unfold");
    long long cores = unfold ? 0 : proto_get_int(m->root, "cores", -1);
    char err[256];
    if (cores < 1 && !unfold) return proto_reply_err(m->id, PERR_BAD_ARGUMENT, "fold: 'cores' must be at least 1");
    if (cores > 1048576) cores = 1048576;
    if (ductile_fold_request((int)cores, err, sizeof err) != 0) return proto_reply_err(m->id, PERR_NOT_SUPPORTED, err);
    struct ductile_fold_info fi;
    ductile_fold_get_info(&fi);
    ductile_log(1, "controller: %s queued (%lld core(s) per host)", m->cmd, cores);
    json_t *res = json_pack("{s:b, s:I, s:i, s:i, s:i}", "queued", 1, "cores", (json_int_t)cores, "hosts", fi.hosts,
                            "host_ranks", fi.host_ranks, "host_cpus", fi.host_cpus);
    char *line = proto_reply_ok(m->id, res);
    json_decref(res);
    return line;
}
