/* prep_thread.c -- the preparation of an expansion's new blocks, in a
 * thread during the spawn and the merge where that pays (prep_thread.h). */
#include "prep_thread.h"

static void *prep_run(void *arg)
{
    struct prep_job *j = arg;
    j->prep = prepare_buffers(j->ns, j->nd, j->me, j->my_new, j->nb, j->touch, j->why, sizeof j->why);
    return NULL;
}

void prep_start(struct prep_job *j)
{
    j->threaded = !SPAWN_COLLECTIVE && j->touch && pthread_create(&j->th, NULL, prep_run, j) == 0;
    if (!j->threaded) prep_run(j);
}

void **prep_finish(struct prep_job *j)
{
    if (j->threaded) pthread_join(j->th, NULL);
    j->threaded = 0;
    return j->prep;
}
