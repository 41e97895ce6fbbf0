/* ductilectl_fold.h -- ductilectl's "fold" and "unfold" commands (process
 * folding, docs/folding.md): arguments, output, and the cores line of
 * "status".  Kept apart from tools/ductilectl.c, which calls these hooks. */
#ifndef DUCTILECTL_FOLD_H
#define DUCTILECTL_FOLD_H

#include <stdio.h>

#include <jansson.h>

#define DUCTILECTL_FOLD_SUBCMDS \
    {"fold", "JOB CORES", "Fold the job onto CORES cores per host at its next MPI call (its processes share them; no process ends). The other cores go back to the resource manager."}, \
    {"unfold", "JOB", "Give a folded job its cores back (the resource manager must have them free)."},

/* 1 if cmd is fold/unfold. */
int ductilectl_fold_is(const char *cmd);
/* Parse "JOB CORES" / "JOB" into args; 0, or -1 after a message on stderr. */
int ductilectl_fold_args(const char *cmd, int npos, char **pos, json_t *args, long *job);
/* Print the daemon's answer. */
void ductilectl_fold_print(const char *cmd, long job, const json_t *res);
/* The cores line of "status". */
void ductilectl_fold_status(const json_t *status);

#endif
