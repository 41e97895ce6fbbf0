/* conffile.h -- ductiled's configuration file (docs/controller.md,
 * "Configuration file"): one `key = value` a line, parsed by inih, whose
 * keys are the daemon's long options (the core's and every part's, core.h),
 * so every flag has a key.  Options given on the command line override the
 * file.  A reload (SIGHUP) re-reads it and applies the options their owner
 * lists as live (struct dpart's live); the others need a restart. */
#ifndef DUCTILE_DAEMON_CONFFILE_H
#define DUCTILE_DAEMON_CONFFILE_H

#include <stddef.h>

#include "core.h"

/* The keys: the core's options (core_live: those a reload may change; both
 * NULL-terminated), then every part's.  0, or -1 (out of memory). */
int conf_init(const struct dpart_option *core, const char *const *core_live);
/* An option given on the command line: the file's value for it is ignored. */
void conf_given(const char *name);
/* Read the file and apply every key the command line did not give (set()).
 * Every error gets one line "FILE:LINE: ..." in err.  0 applied, -1 errors
 * (ductiled exits 2). */
int conf_load(const char *path, char *err, size_t errlen);
/* SIGHUP: read the file again; when it is good, apply the live keys that
 * changed (all or none) and log, per key, what changed and what waits for a
 * restart; when it is bad, log why and keep everything as it is. */
void conf_reload(void);
/* The file in use ("" none). */
const char *conf_path(void);
/* The default file, for root SYSCONFDIR/ductile/ductiled.conf, else
 * $XDG_CONFIG_HOME/ductile/ductiled.conf (~/.config when unset). */
void conf_default_path(char *buf, size_t len);
void conf_free(void);

#endif
