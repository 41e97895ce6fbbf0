/* resval.c -- see resval.h. */
#include "resval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double res_val(const char *text, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\"", key);
    const char *p = strstr(text, k);
    if (!p) {
        snprintf(k, sizeof k, "%s=", key);
        p = strstr(text, k);
        if (!p) return -1;
        return strtod(p + strlen(k), NULL);
    }
    p += strlen(k);
    while (*p == ' ' || *p == ':') p++;
    return strtod(p, NULL);
}
