/* jsonload.c -- jansson on demand for libductile.so.  The library does not
 * link libjansson (no DT_NEEDED): these local definitions of the jansson
 * functions Ductile calls load it with dlopen() the first time one is used
 * (in MPI_Init or later) and forward to it.  A process that has libductile
 * preloaded but never calls MPI_Init therefore does not load jansson.  The
 * definitions are checked against <jansson.h>'s prototypes by the compiler,
 * and they are local to the library (src/libductile.map): an application's
 * own jansson is not affected.  ductiled, ductilectl and the unit tests link
 * jansson normally and do not use this file.
 *
 * A jansson function used in the library but missing here makes the link
 * of libductile.so fail (-z defs): add one line to DUCTILE_JSON_FUNCS. */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#ifndef DUCTILE_LIBJANSSON
#define DUCTILE_LIBJANSSON "libjansson.so.4"
#endif

/* X(return type, name, (parameters), (arguments)) */
#define DUCTILE_JSON_FUNCS(X)                                                                              \
    X(json_t *, json_object, (void), ())                                                                   \
    X(json_t *, json_array, (void), ())                                                                    \
    X(json_t *, json_true, (void), ())                                                                     \
    X(json_t *, json_false, (void), ())                                                                    \
    X(json_t *, json_null, (void), ())                                                                     \
    X(json_t *, json_string, (const char *value), (value))                                                 \
    X(json_t *, json_integer, (json_int_t value), (value))                                                 \
    X(json_t *, json_real, (double value), (value))                                                        \
    X(json_t *, json_deep_copy, (const json_t *value), (value))                                            \
    X(json_t *, json_object_get, (const json_t *object, const char *key), (object, key))                   \
    X(int, json_object_set_new, (json_t *object, const char *key, json_t *value), (object, key, value))    \
    X(int, json_object_del, (json_t *object, const char *key), (object, key))                             \
    X(size_t, json_array_size, (const json_t *array), (array))                                             \
    X(json_t *, json_array_get, (const json_t *array, size_t index), (array, index))                       \
    X(int, json_array_append_new, (json_t *array, json_t *value), (array, value))                          \
    X(const char *, json_string_value, (const json_t *string), (string))                                   \
    X(size_t, json_string_length, (const json_t *string), (string))                                        \
    X(json_int_t, json_integer_value, (const json_t *integer), (integer))                                  \
    X(double, json_number_value, (const json_t *json), (json))                                             \
    X(json_t *, json_loadb, (const char *buffer, size_t buflen, size_t flags, json_error_t *error),         \
      (buffer, buflen, flags, error))                                                                      \
    X(char *, json_dumps, (const json_t *json, size_t flags), (json, flags))                               \
    X(int, json_dump_file, (const json_t *json, const char *path, size_t flags), (json, path, flags))      \
    X(size_t, json_object_size, (const json_t *object), (object))                                          \
    X(void *, json_object_iter, (json_t *object), (object))                                                \
    X(void *, json_object_iter_next, (json_t *object, void *iter), (object, iter))                         \
    X(const char *, json_object_iter_key, (void *iter), (iter))                                            \
    X(json_t *, json_object_iter_value, (void *iter), (iter))                                              \
    X(void *, json_object_key_to_iter, (const char *key), (key))

static struct {
#define DUCTILE_JSON_PTR(ret, name, params, args) __typeof__(&name) name;
    DUCTILE_JSON_FUNCS(DUCTILE_JSON_PTR)
    __typeof__(&json_delete) json_delete;
    __typeof__(&json_vpack_ex) json_vpack_ex;
} J;
static pthread_once_t J_once = PTHREAD_ONCE_INIT;

static void J_load(void)
{
    void *h = dlopen(DUCTILE_LIBJANSSON, RTLD_NOW | RTLD_LOCAL);
    const char *missing = NULL;
    if (h) {
#define DUCTILE_JSON_SYM(ret, name, params, args)                                                            \
    if (!(*(void **)&J.name = dlsym(h, #name)) && !missing) missing = #name;
        DUCTILE_JSON_FUNCS(DUCTILE_JSON_SYM)
        if (!(*(void **)&J.json_delete = dlsym(h, "json_delete")) && !missing) missing = "json_delete";
        if (!(*(void **)&J.json_vpack_ex = dlsym(h, "json_vpack_ex")) && !missing) missing = "json_vpack_ex";
    }
    if (!h || missing) {
        /* an installation error: libductile's package depends on jansson */
        fprintf(stderr, "ductile: cannot use %s, which the report and the controller need: %s%s "
                "(Debian: apt-get install libjansson4)\n", DUCTILE_LIBJANSSON, h ? "no " : dlerror(),
                h ? missing : "");
        abort();
    }
}

static inline void J_ready(void)
{
    pthread_once(&J_once, J_load);
}

#define DUCTILE_JSON_DEF(ret, name, params, args)                                                            \
    ret name params                                                                                        \
    {                                                                                                      \
        J_ready();                                                                                         \
        return J.name args;                                                                                \
    }
DUCTILE_JSON_FUNCS(DUCTILE_JSON_DEF)

void json_delete(json_t *json)
{
    J_ready();
    J.json_delete(json);
}

json_t *json_pack(const char *fmt, ...)
{
    J_ready();
    va_list ap;
    va_start(ap, fmt);
    json_t *v = J.json_vpack_ex(NULL, 0, fmt, ap);
    va_end(ap);
    return v;
}
