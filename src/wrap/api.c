/* api.c -- the native public API declared in include/ductile.h. */
#include "config.h"

#include "ductile.h"
#include "../core/state.h"
#include "../core/hooks.h"

const char *ductile_version(void) { return PACKAGE_VERSION; }

int ductile_active(void) { return ductile_rt.active; }

unsigned long long ductile_iterations(void)
{
    return (unsigned long long)DUCTILE_HOOK(iteration_count, ());
}
