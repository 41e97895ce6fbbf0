/* hooks.c -- the registration table (see hooks.h): zero until MPI_Init
 * runs the modules' registration functions, which the linker gathers in the
 * section "ductile_hook_reg" (__start_/__stop_ symbols of GNU ld and lld). */
#include "hooks.h"

struct ductile_hooks ductile_hooks;

extern const ductile_hook_registrar __start_ductile_hook_reg[] __attribute__((weak, visibility("hidden")));
extern const ductile_hook_registrar __stop_ductile_hook_reg[] __attribute__((weak, visibility("hidden")));

void ductile_hooks_load(void)
{
    static int loaded;
    if (loaded) return;
    loaded = 1;
    for (const ductile_hook_registrar *r = __start_ductile_hook_reg; r && r < __stop_ductile_hook_reg; r++) (*r)(&ductile_hooks);
}
