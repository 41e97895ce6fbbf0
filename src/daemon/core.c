/* core.c -- the parts of ductiled and the core's calls over all of them
 * (see core.h): the parts the linker gathered (section "ductiled_parts", in
 * link order), their options, requests and start-up, and each hook called
 * on every part that has it. */
#include "config.h"

#include "core.h"

#include <stdio.h>
#include <string.h>

extern const struct dpart *const __start_ductiled_parts[] __attribute__((weak, visibility("hidden")));
extern const struct dpart *const __stop_ductiled_parts[] __attribute__((weak, visibility("hidden")));

int core_hosts_named, core_elastic, core_io_wanted;
char core_policy[64];
char core_socket[4096];

const struct dpart *const *core_parts(int *n)
{
    *n = __start_ductiled_parts ? (int)(__stop_ductiled_parts - __start_ductiled_parts) : 0;
    return __start_ductiled_parts;
}

static const struct dpart *const *first(void) { return __start_ductiled_parts; }
static const struct dpart *const *last(void) { return __start_ductiled_parts ? __stop_ductiled_parts : NULL; }

/* every part, in link order */
#define EACH(p)                                                                                                        \
    for (const struct dpart *const *pp_ = first(), *const *end_ = last(), *p = NULL; pp_ < end_ && (p = *pp_) != NULL; pp_++)

void core_on_registered(struct job *j, const json_t *req)
{
    EACH(p) if (p->registered) p->registered(j, req);
}

void core_on_sample(struct job *j, const json_t *req)
{
    EACH(p) if (p->sample) p->sample(j, req);
}

void core_on_event(struct job *j, const char *kind, const json_t *details, double now)
{
    EACH(p) if (p->event) p->event(j, kind, details, now);
}

void core_on_left(struct job *j)
{
    EACH(p) if (p->left) p->left(j);
}

void core_on_answered(struct job *j, const char *cmd, int ok, json_t *reply, const char *reason)
{
    EACH(p) if (p->answered) p->answered(j, cmd, ok, reply, reason);
}

void core_on_tick(double now)
{
    EACH(p) if (p->tick) p->tick(now);
}

int core_make_room(const struct job *j, int n, core_room_fn cont, void *arg, char *why, size_t wl)
{
    EACH(p) {
        int r = p->make_room ? p->make_room(j, n, cont, arg, why, wl) : 0;
        if (r != 0) return r; /* the first part that acts or refuses decides */
    }
    return 0;
}

void core_choose_ranks(const struct job *j, int n, json_t *args)
{
    EACH(p) {
        if (json_array_size(json_object_get(args, "ranks")) > 0) return;
        if (p->choose_ranks) p->choose_ranks(j, n, args);
    }
}

int core_may_resize(const struct job *j, int procs, char *why, size_t wl)
{
    EACH(p) if (p->may_resize && !p->may_resize(j, procs, why, wl)) return 0;
    return 1;
}

int core_waiting(void)
{
    int need = 0;
    EACH(p) if (p->waiting) need += p->waiting();
    return need;
}

int core_admit(int need, int qid, double now)
{
    int acted = 0;
    EACH(p) if (p->admit) acted |= p->admit(need, qid, now);
    return acted;
}

void core_admit_release(int need, double now)
{
    EACH(p) if (p->admit_release) p->admit_release(need, now);
}

void core_status(const struct job *j, json_t *st)
{
    EACH(p) if (p->status) p->status(j, st);
}

void core_slots(json_t *sv)
{
    EACH(p) if (p->slots) p->slots(sv);
}

int core_serve(int ci, long long id, const char *cmd, const json_t *req)
{
    EACH(p) {
        for (const struct dpart_request *r = p->requests; r && r->cmd; r++)
            if (!strcmp(r->cmd, cmd)) {
                r->serve(ci, id, cmd, req);
                return 1;
            }
    }
    return 0;
}

int core_option(const char *name, const char *arg, char *err, size_t errlen)
{
    EACH(p) {
        for (const struct dpart_option *o = p->options; o && o->name; o++)
            if (!strcmp(o->name, name)) return o->set(arg, err, errlen) == 0 ? 1 : -1;
    }
    return 0;
}

int core_resources(struct rm *rm, char *err, size_t errlen)
{
    EACH(p) {
        int r = p->resources ? p->resources(rm, err, errlen) : 0;
        if (r != 0) return r;
    }
    return 0;
}

int core_start(char *err, size_t errlen)
{
    EACH(p) if (p->start && p->start(err, errlen) != 0) return -1;
    return 0;
}
