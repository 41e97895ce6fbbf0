/* fuzz_protocol.c -- libFuzzer target for the control protocol's parser:
 * arbitrary bytes go through the line framing (linebuf) and every line through
 * proto_parse; a valid message must survive a rebuild/re-parse round trip, and
 * every invalid one must yield an error reply that itself parses; what the
 * schemas let through passes them again unchanged, and every job result
 * schema (schema_check_result) is tried on replies.  Build and
 * run with tests/fuzz/run-fuzz.sh (clang -fsanitize=fuzzer,address,undefined). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_line(const char *line, size_t len)
{
    struct proto_msg m;
    const char *code;
    char reason[512];
    int k = proto_parse(line, len, &m, &code, reason, sizeof reason);
    if (k == PROTO_INVALID) {
        if (!code || m.root) abort();
        char *rep = proto_reply_err(m.id, code, reason);
        if (!rep) abort();
        struct proto_msg r;
        if (proto_parse(rep, strlen(rep) - 1, &r, &code, reason, sizeof reason) != PROTO_REPLY) abort();
        proto_msg_free(&r);
        free(rep);
        return;
    }
    if (k == PROTO_REPLY && json_is_object(json_object_get(m.root, "result"))) {
        static const char *const cmds[] = {"expand", "shrink", "resize", "revoke", "io", "period", "fold", "unfold"};
        for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
            json_t *r = json_deep_copy(json_object_get(m.root, "result"));
            char why[300];
            int rc = schema_check_result(cmds[c], r, why, sizeof why);
            if (rc == 0 && schema_check_result(cmds[c], r, why, sizeof why) != 0) abort(); /* idempotent */
            json_decref(r);
        }
    }
    if (k == PROTO_REQUEST) {
        if (!m.cmd || m.id < 0) abort();
        /* only what the schema names is left, and it passes again */
        size_t before = json_object_size(m.root);
        char why[400];
        if (schema_check_request(m.cmd, m.root, why, sizeof why) != 0 || json_object_size(m.root) != before) abort();
        char *again = proto_request(m.id, m.cmd, m.root);
        if (again) {
            struct proto_msg r;
            if (proto_parse(again, strlen(again) - 1, &r, &code, reason, sizeof reason) != PROTO_REQUEST) abort();
            if (strcmp(r.cmd, m.cmd) != 0 || r.id != m.id) abort();
            proto_msg_free(&r);
            free(again);
        }
        /* host names that passed validation contain no separator (commands whose
         * "hosts" member is validated; others ignore unknown members) */
        int validated = !strcmp(m.cmd, "expand") || !strcmp(m.cmd, "resize") || !strcmp(m.cmd, "register");
        json_t *h = validated ? json_object_get(m.root, "hosts") : NULL;
        size_t i;
        json_t *e;
        if (json_is_array(h))
            json_array_foreach(h, i, e) {
                const char *s = json_is_string(e) ? json_string_value(e) : json_string_value(json_object_get(e, "name"));
                if (s && strpbrk(s, " ;,=\"'$`\\\n/:")) abort();
            }
    }
    proto_msg_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* 1: the whole input as one message */
    check_line((const char *)data, size);
    /* 2: the input as a stream, in two chunks */
    struct linebuf lb;
    linebuf_init(&lb);
    size_t half = size / 2;
    int ok = linebuf_append(&lb, (const char *)data, half) == 0 &&
             linebuf_append(&lb, (const char *)data + half, size - half) == 0;
    (void)ok;
    for (;;) {
        char *line = NULL;
        long n = linebuf_next(&lb, &line);
        if (!line) break;
        check_line(line, (size_t)n);
        free(line);
    }
    linebuf_free(&lb);
    return 0;
}
