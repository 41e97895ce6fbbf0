/* ductilectl.h -- what ductilectl.c (options, requests, watch) and
 * ductilectl_fmt.c (human output) share. */
#ifndef DUCTILECTL_H
#define DUCTILECTL_H

#include <stddef.h>

#include <jansson.h>

#include "../src/proto/protocol.h"

extern int noheader;             /* --noheader */
extern const char *list_format;  /* --format: columns of `list` */

/* s without control characters (one of four rotating static buffers). */
const char *safe(const char *s);
int valid_format(const char *f);
void print_list(json_t *res);
void print_events(json_t *ev, size_t last);
void print_history(json_t *hist);
void print_status(json_t *r);
void print_timeline(json_t *hist, int width);

#endif
