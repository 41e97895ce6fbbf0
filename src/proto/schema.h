/* schema.h -- the control protocol's message schemas (docs/protocol.md):
 * one per request (`cmd`), one per event `kind` (its `details`), and one per
 * result a job returns to a command of ductiled.  Every member is checked
 * (type, range, length, character set, element count) and members a schema
 * does not name are removed, so that what passes holds only what the
 * receiver uses, each member bounded.  Pure: no sockets, no global state.
 * proto_parse (protocol.c) applies the request schemas to every request; the
 * daemon applies the result schemas to the replies of jobs. */
#ifndef DUCTILE_SCHEMA_H
#define DUCTILE_SCHEMA_H

#include <stddef.h>

#include <jansson.h>

/* Event kinds and their details (schema.c lists their members). */
#define SCHEMA_EVENT_KINDS "resized, io_phase, io_request, io_release, queue, exited, handover, reconnect"

/* Check request `root` (an object with "v", "id", "cmd") against the schema
 * of `cmd`, removing members it does not name.  0; -1 with the reason (a
 * bad argument); -2 when `cmd` is no command of the protocol. */
int schema_check_request(const char *cmd, json_t *root, char *why, size_t wl);

/* Check the result of a job's reply to command `cmd` (expand, shrink,
 * resize, revoke, io, period, fold, unfold), removing unknown members.
 * 0, or -1 with the reason. */
int schema_check_result(const char *cmd, json_t *result, char *why, size_t wl);

/* The name of command `cmd` as the protocol spells it (a static string), or
 * NULL when there is no such command. */
const char *schema_command(const char *cmd);

#endif
