/* fold_cmd.h -- the controller thread's answer to "fold" / "unfold". */
#ifndef DUCTILE_FOLD_CMD_H
#define DUCTILE_FOLD_CMD_H

#include "../proto/protocol.h"

/* The reply line (malloc'ed) to a "fold" or "unfold" request. */
char *ductile_fold_command(const struct proto_msg *m);

#endif
