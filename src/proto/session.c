/* session.c -- client side of a control connection: hello, optional HMAC
 * authentication, request/reply with deadlines.  See session.h. */
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "net.h"

void session_close(struct session *s)
{
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    linebuf_free(&s->lb);
    seal_clear(&s->seal);
}

int session_send(struct session *s, char *line, int timeout_ms)
{
    if (!line) return 0;
    line = seal_line(&s->seal, line);
    if (!line) return -1;
    int rc = net_send_all(s->fd, line, strlen(line), timeout_ms);
    free(line);
    return rc;
}

int session_unseal(struct session *s, char *line, long *len)
{
    size_t n = (size_t)*len;
    if (seal_open(&s->seal, line, &n) != 0) return -1;
    *len = (long)n;
    return 0;
}

long session_read_line(struct session *s, char **line, int timeout_ms, char *err, size_t errlen)
{
    long n = net_read_line(s->fd, &s->lb, line, timeout_ms, err, errlen);
    if (n >= 0 && session_unseal(s, *line, &n) != 0) {
        snprintf(err, errlen, "a message from the server failed its MAC check (altered or injected on the way): "
                 "connection dropped");
        free(*line);
        *line = NULL;
        return -1;
    }
    return n;
}

/* Read messages until the reply to `id`. */
static int wait_reply(struct session *s, long long id, double deadline, struct proto_msg *out, char *reason,
                      size_t reasonlen)
{
    for (;;) {
        int left = (int)((deadline - net_now()) * 1000);
        if (left <= 0) {
            snprintf(reason, reasonlen, "timed out waiting for the reply");
            return -1;
        }
        char *line = NULL;
        long n = session_read_line(s, &line, left, reason, reasonlen);
        if (n < 0) return -1;
        const char *code;
        char why[300];
        int k = proto_parse(line, (size_t)n, out, &code, why, sizeof why);
        free(line);
        if (k == PROTO_REPLY && out->id == id) return 0;
        if (k == PROTO_REPLY && out->id < 0 && !out->ok) return 0; /* server could not read our request */
        proto_msg_free(out);
    }
}

int session_open(struct session *s, const char *address, const char *secret_path, int timeout_ms,
                 int *auth_failed, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->next_id = 1;
    linebuf_init_max(&s->lb, PROTO_MAX_REPLY);
    if (auth_failed) *auth_failed = 0;
    double deadline = net_now() + timeout_ms / 1000.0;
    struct net_addr a;
    char path[200];
    if (!address || !*address) {
        if (net_default_socket(path, sizeof path, 0, err, errlen) != 0) return -1;
        address = path;
    }
    if (net_parse_addr(address, &a, err, errlen) != 0) return -1;
    /* Over TCP, or whenever we were given a secret, the server must prove it
     * knows the secret: a server (or whoever holds its port) that says it
     * needs no authentication is not believed. */
    int must_auth = a.tcp || (secret_path && *secret_path);
    if (a.tcp && !(secret_path && *secret_path)) {
        snprintf(err, errlen, "a TCP connection needs the shared secret (ductilectl -k FILE, DUCTILE_CONTROLLER_SECRET)");
        if (auth_failed) *auth_failed = 1;
        return -1;
    }
    s->fd = net_connect(&a, timeout_ms, err, errlen);
    if (s->fd < 0) return -1;
    char *line = NULL;
    long n = net_read_line(s->fd, &s->lb, &line, timeout_ms, err, errlen);
    if (n < 0) goto fail;
    struct proto_msg hello;
    const char *code;
    char why[300];
    int k = proto_parse(line, (size_t)n, &hello, &code, why, sizeof why);
    free(line);
    if (k == PROTO_REPLY && !hello.ok) {
        snprintf(err, errlen, "refused by the server: %s", proto_get_str(hello.root, "reason", "?"));
        proto_msg_free(&hello);
        goto fail;
    }
    if (k != PROTO_REQUEST || strcmp(hello.cmd, "hello") != 0) {
        snprintf(err, errlen, "the server did not say hello (%s)", k == PROTO_INVALID ? why : "unexpected message");
        if (k != PROTO_INVALID) proto_msg_free(&hello);
        goto fail;
    }
    snprintf(s->server_version, sizeof s->server_version, "%s", proto_get_str(hello.root, "version", ""));
    /* a Unix-socket server that has a secret offers the challenge too (a nonce) */
    int need_auth = strcmp(proto_get_str(hello.root, "auth", ""), "hmac-sha256") == 0 ||
                    (must_auth && !a.tcp && json_is_string(json_object_get(hello.root, "nonce")));
    char nonce_s[AUTH_NONCE_HEX + 1];
    snprintf(nonce_s, sizeof nonce_s, "%s", proto_get_str(hello.root, "nonce", ""));
    proto_msg_free(&hello);
    if (!need_auth && must_auth) {
        snprintf(err, errlen, "the server at %s did not ask for authentication although %s: refusing to talk to it "
                 "(not a ductiled, or not the one that holds the secret)", address,
                 a.tcp ? "this is a TCP connection" : "a shared secret was given");
        if (auth_failed) *auth_failed = 1;
        goto fail;
    }
    if (!need_auth) return 0;
    if (strlen(nonce_s) != AUTH_NONCE_HEX) {
        snprintf(err, errlen, "the server asked for authentication without a nonce");
        goto fail;
    }
    if (!secret_path || !*secret_path) {
        snprintf(err, errlen, "the server requires authentication: give a shared secret file");
        if (auth_failed) *auth_failed = 1;
        goto fail;
    }
    if (auth_ready(err, errlen) != 0) {
        if (auth_failed) *auth_failed = 1;
        goto fail;
    }
    struct auth_secret sec;
    if (auth_load_secret(secret_path, &sec, err, errlen) != 0) {
        if (auth_failed) *auth_failed = 1;
        goto fail;
    }
    char nonce_c[AUTH_NONCE_HEX + 1], mac[AUTH_MAC_HEX + 1];
    if (auth_nonce(nonce_c) != 0 || auth_mac(&sec, "client", nonce_s, nonce_c, mac) != 0) {
        auth_clear_secret(&sec);
        snprintf(err, errlen, "cannot compute the authentication code");
        goto fail;
    }
    json_t *args = json_pack("{s:s, s:s}", "nonce", nonce_c, "mac", mac);
    long long id = s->next_id++;
    char *req = proto_request(id, "auth", args);
    json_decref(args);
    int sent = req ? net_send_all(s->fd, req, strlen(req), timeout_ms) : -1;
    free(req);
    if (sent != 0) {
        auth_clear_secret(&sec);
        snprintf(err, errlen, "cannot send the authentication");
        goto fail;
    }
    struct proto_msg rep;
    if (wait_reply(s, id, deadline, &rep, err, errlen) != 0) {
        auth_clear_secret(&sec);
        goto fail;
    }
    if (!rep.ok) {
        snprintf(err, errlen, "authentication refused: %s", proto_get_str(rep.root, "reason", "?"));
        if (auth_failed) *auth_failed = 1;
        proto_msg_free(&rep);
        auth_clear_secret(&sec);
        goto fail;
    }
    json_t *res = json_object_get(rep.root, "result");
    int server_ok = auth_verify(&sec, "server", nonce_c, nonce_s, proto_get_str(res, "mac", ""));
    proto_msg_free(&rep);
    /* from now on every message carries a MAC (seal.h) */
    if (server_ok && seal_start(&s->seal, &sec, 0, nonce_s, nonce_c) != 0) {
        auth_clear_secret(&sec);
        snprintf(err, errlen, "cannot derive the stream keys");
        goto fail;
    }
    auth_clear_secret(&sec);
    if (!server_ok) {
        snprintf(err, errlen, "the server could not prove it knows the secret: refusing to talk to it");
        if (auth_failed) *auth_failed = 1;
        goto fail;
    }
    return 0;
fail:
    session_close(s);
    return -1;
}

int session_call(struct session *s, const char *cmd, const json_t *args, int timeout_ms, json_t **result,
                 char *code, size_t codelen, char *reason, size_t reasonlen)
{
    if (result) *result = NULL;
    if (codelen) code[0] = '\0';
    long long id = s->next_id++;
    /* every request names the user it is made for (over TCP the daemon has
     * no other way to know: docs/protocol.md, "Authority") */
    json_t *a = args ? json_deep_copy(args) : json_object();
    if (a && !json_object_get(a, "user")) json_object_set_new(a, "user", json_integer(geteuid()));
    char *req = a ? proto_request(id, cmd, a) : NULL;
    json_decref(a);
    if (!req) {
        snprintf(reason, reasonlen, "request too large");
        return -1;
    }
    if (session_send(s, req, timeout_ms) != 0) {
        snprintf(reason, reasonlen, "cannot send to the daemon (connection lost)");
        return -1;
    }
    struct proto_msg rep;
    if (wait_reply(s, id, net_now() + timeout_ms / 1000.0, &rep, reason, reasonlen) != 0) return -1;
    int ok = rep.ok;
    if (ok) {
        if (result) *result = json_incref(json_object_get(rep.root, "result"));
    } else {
        snprintf(code, codelen, "%s", proto_get_str(rep.root, "error", PERR_INTERNAL));
        snprintf(reason, reasonlen, "%s", proto_get_str(rep.root, "reason", ""));
    }
    proto_msg_free(&rep);
    return ok ? 1 : 0;
}
