/* pmix.c -- PMIx facts for the controller (see pmix.h).  libpmix is opened
 * with dlopen (like libcrypto in src/proto/auth.c): a process that is not
 * under a PMIx server, or a machine without libpmix, loses only these facts.
 * The few PMIx types used are declared here from the PMIx standard's ABI
 * (stable since PMIx v2: pmix_proc_t, the head of pmix_value_t, the keys). */
#include "config.h"

#include "pmix.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define X_MAX_NSLEN 255
#define X_RANK_WILDCARD (UINT32_MAX - 1)
#define X_STRING 3
#define X_UINT32 14
#define X_SUCCESS 0

typedef struct {
    char nspace[X_MAX_NSLEN + 1];
    uint32_t rank;
} x_proc_t;

/* pmix_value_t: a uint16_t type, then a union whose members we read */
typedef struct {
    uint16_t type;
    union {
        char *string;
        uint32_t uint32;
        char pad[64];
    } data;
} x_value_t;

static struct {
    int (*init)(x_proc_t *, void *, size_t);
    int (*fin)(void *, size_t);
    int (*get)(const x_proc_t *, const char *, const void *, size_t, x_value_t **);
    void (*value_free)(x_value_t *, size_t);
    int (*resolve_nodes)(const char *, char **);
} px;

static void *load(char *why, size_t len)
{
    static const char *const names[] = {"libpmix.so.2", "libpmix.so"};
    void *h = NULL;
    /* the MPI's own copy first, if it loaded one */
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, len, "no libpmix (libpmix.so.2): %s", dlerror());
        return NULL;
    }
    *(void **)&px.init = dlsym(h, "PMIx_Init");
    *(void **)&px.fin = dlsym(h, "PMIx_Finalize");
    *(void **)&px.get = dlsym(h, "PMIx_Get");
    *(void **)&px.value_free = dlsym(h, "PMIx_Value_free");
    *(void **)&px.resolve_nodes = dlsym(h, "PMIx_Resolve_nodes");
    if (!px.init || !px.fin || !px.get) {
        snprintf(why, len, "libpmix has no PMIx_Init/PMIx_Get");
        dlclose(h);
        return NULL;
    }
    return h;
}

static x_value_t *get(const x_proc_t *p, const char *key)
{
    x_value_t *v = NULL;
    if (px.get(p, key, NULL, 0, &v) != X_SUCCESS) return NULL;
    return v;
}

static void put(x_value_t *v)
{
    if (v && px.value_free) px.value_free(v, 1); /* else a few bytes stay (PMIx < 4) */
}

json_t *ductile_pmix_facts(char *why, size_t len)
{
    why[0] = '\0';
    if (!getenv("PMIX_NAMESPACE")) {
        snprintf(why, len, "no PMIx server runs this process (PMIX_NAMESPACE is not set)");
        return NULL;
    }
    void *h = load(why, len);
    if (!h) return NULL;
    x_proc_t me;
    memset(&me, 0, sizeof me);
    int rc = px.init(&me, NULL, 0);
    if (rc != X_SUCCESS) {
        snprintf(why, len, "PMIx_Init failed (status %d)", rc);
        dlclose(h);
        return NULL;
    }
    x_proc_t job = me;
    job.rank = X_RANK_WILDCARD;
    json_t *o = json_pack("{s:s}", "nspace", me.nspace);
    static const struct { const char *key, *name; } u32[] = {{"pmix.job.size", "job_size"}, {"pmix.univ.size", "univ_size"}};
    for (size_t i = 0; i < sizeof u32 / sizeof u32[0]; i++) {
        x_value_t *v = get(&job, u32[i].key);
        if (v && v->type == X_UINT32) json_object_set_new(o, u32[i].name, json_integer(v->data.uint32));
        put(v);
    }
    x_value_t *v = get(&job, "pmix.nlist");
    if (v && v->type == X_STRING && v->data.string && strlen(v->data.string) < 8192) {
        json_object_set_new(o, "node_list", json_string(v->data.string));
    } else if (px.resolve_nodes) { /* servers that register a node map only (Open MPI 4.1's orted) */
        char *nl = NULL;
        if (px.resolve_nodes(me.nspace, &nl) == X_SUCCESS && nl && strlen(nl) < 8192)
            json_object_set_new(o, "node_list", json_string(nl));
        free(nl);
    }
    put(v);
    px.fin(NULL, 0); /* the MPI holds its own reference: the connection stays */
    /* h stays open: the MPI may use the same library */
    return o;
}

int ductile_pmix_job_string(const char *key, char *out, size_t len)
{
    char why[200];
    if (len == 0 || !getenv("PMIX_NAMESPACE")) return -1;
    void *h = load(why, sizeof why);
    if (!h) return -1;
    x_proc_t me;
    memset(&me, 0, sizeof me);
    if (px.init(&me, NULL, 0) != X_SUCCESS) return -1;
    x_proc_t job = me;
    job.rank = X_RANK_WILDCARD;
    x_value_t *v = get(&job, key);
    int rc = -1;
    if (v && v->type == X_STRING && v->data.string) {
        snprintf(out, len, "%s", v->data.string);
        rc = 0;
    }
    put(v);
    px.fin(NULL, 0); /* the MPI holds its own reference: the connection stays */
    return rc;
}
