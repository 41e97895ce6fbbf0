/* spawn_env.c -- ductile-spawn-env, the program Ductile's spawn runs to mark
 * the processes it starts (src/world/worldid.c, ductile_spawn_marked): it
 * puts NAME=VALUE into the environment and executes PROGRAM ARGS, like
 * env(1).  It is linked statically, so the LD_PRELOAD that carries
 * libductile.so into the new processes is not loaded into it: through
 * libductile.so the dynamic env(1) loaded the MPI library and ran its
 * start-up (UCX's with MPICH 5.0.2: 60-80 ms here) before the program even
 * started.  Not linked with the MPI library; built only where the C
 * compiler links static programs (configure), else env(1) is used.
 * usage: ductile-spawn-env NAME=VALUE PROGRAM [ARGS...] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3 || !strchr(argv[1], '=') || argv[1][0] == '=') {
        fprintf(stderr, "usage: ductile-spawn-env NAME=VALUE PROGRAM [ARGS...]\n");
        return 127;
    }
    if (putenv(argv[1]) != 0) {
        fprintf(stderr, "ductile-spawn-env: cannot set %s: %s\n", argv[1], strerror(errno));
        return 127;
    }
    execvp(argv[2], argv + 2);
    fprintf(stderr, "ductile-spawn-env: cannot run %s: %s\n", argv[2], strerror(errno));
    return 127;
}
