/* appctl_move.c -- the application controller moves when rank 0 leaves
 * the world (see appctl.h): inside the resize, on the application's
 * threads, the old rank 0 sends what the new one needs (the registration
 * with the job's id and key, the period, the I/O hold, the last control
 * point) and the new rank 0 keeps it; its controller starts at its first
 * record (appctl_takeover, appctl.c). */
#include "config.h"

#include "appctl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "../core/state.h"
#include "appctl_int.h"

/* Old rank 0, inside the resize that removes it (records.c, send_history):
 * from now on the thread takes no command, hands over to ductiled and ends;
 * what the new rank 0 needs -- the registration (the job's identity: id,
 * tag, the pid it registered with), the period, the I/O hold, the last
 * control point -- goes to it as one JSON text (length 0: no controller). */
void ductile_appctl_send(int to, MPI_Comm comm, int tag)
{
    char *blob = NULL;
    if (appctl.enabled && appctl.reg) {
        pthread_mutex_lock(&appctl.lock);
        appctl.moving = 1;
        json_t *st = json_pack("{s:O, s:i, s:f, s:b, s:I, s:I, s:I, s:s, s:s, s:I}", "reg", appctl.reg, "job", appctl.job,
                               "period", appctl.period, "io_held", appctl.io_held, "cp_iteration",
                               (json_int_t)__atomic_load_n(&appctl.cp_iteration, __ATOMIC_RELAXED), "cp_count",
                               (json_int_t)__atomic_load_n(&appctl.cp_count, __ATOMIC_RELAXED), "cp_maxiter",
                               (json_int_t)__atomic_load_n(&appctl.cp_maxiter, __ATOMIC_RELAXED), "addr", appctl.addr,
                               "secret", appctl.secret, "from_pid", (json_int_t)getpid());
        if (st && appctl.key[0]) json_object_set_new(st, "key", json_string(appctl.key)); /* the new rank 0 shows it */
        pthread_mutex_unlock(&appctl.lock);
        blob = st ? json_dumps(st, JSON_COMPACT) : NULL;
        json_decref(st);
        (void)!write(appctl.wake[1], "m", 1);
    }
    int len = blob ? (int)strlen(blob) + 1 : 0;
    PMPI_Send(&len, 1, MPI_INT, to, tag, comm);
    if (len) PMPI_Send(blob, len, MPI_CHAR, to, tag, comm);
    free(blob);
}

/* New rank 0 (records.c, recv_history): keep what the old one sent; the
 * controller starts at this process's first record (appctl_takeover), when
 * it is rank 0 of the new world. */
void ductile_appctl_recv(int from, MPI_Comm comm, int tag)
{
    int len = 0;
    PMPI_Recv(&len, 1, MPI_INT, from, tag, comm, MPI_STATUS_IGNORE);
    if (len <= 0) return;
    char *blob = malloc((size_t)len);
    if (!blob) {
        char c;
        for (int i = 0; i < len; i++) PMPI_Recv(&c, 1, MPI_CHAR, from, tag, comm, MPI_STATUS_IGNORE);
        return;
    }
    PMPI_Recv(blob, len, MPI_CHAR, from, tag, comm, MPI_STATUS_IGNORE);
    json_error_t je;
    json_t *st = json_loadb(blob, (size_t)len - 1, 0, &je);
    free(blob);
    if (!json_is_object(st) || !json_is_object(json_object_get(st, "reg"))) {
        ductile_log(0, "controller: the hand-over from the old rank 0 is unreadable: the job has no controller now");
        json_decref(st);
        return;
    }
    json_decref(appctl.takeover);
    appctl.takeover = st;
}
