/* api.c -- the native public API declared in include/ductile.h. */
#include "config.h"

#include "ductile.h"
#include "../core/state.h"
#include "../core/hooks.h"
#include "../core/hotpath.h"

const char *ductile_version(void) { return PACKAGE_VERSION; }

int ductile_active(void) { return ductile_rt.active; }

int ductile_time_sample(int every)
{
    if (every < 0 || every > 1000000) return -1;
    uint32_t before = every ? ductile_time_sample_set((uint32_t)every) : ductile_time_every_load();
    return before ? (int)before : 1;
}

unsigned long long ductile_iterations(void)
{
    return (unsigned long long)DUCTILE_HOOK(iteration_count, ());
}
