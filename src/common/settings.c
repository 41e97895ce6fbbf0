/* settings.c -- parsing and validation of the DUCTILE_* settings, and their
 * --help text.  The table itself is settings.gen.c, generated from
 * settings.toml (tools/gen-settings.py).  Pure C (no MPI): unit-tested by
 * tests/unit/test_settings.c, and linked into tools/ductile-run, which
 * checks the settings before it starts a job. */
#include "settings.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int settings_parse_bool(const char *text)
{
    static const char *const yes[] = {"1", "yes", "on", "true", NULL};
    static const char *const no[] = {"0", "no", "off", "false", NULL};
    for (int i = 0; yes[i]; i++)
        if (strcasecmp(text, yes[i]) == 0) return 1;
    for (int i = 0; no[i]; i++)
        if (strcasecmp(text, no[i]) == 0) return 0;
    return -1;
}

static const struct setting_def *find_def(const char *name, size_t len)
{
    for (const struct setting_def *d = ductile_setting_defs; d->name; d++)
        if (strlen(d->name) == len && strncmp(d->name, name, len) == 0) return d;
    return NULL;
}

/* Levenshtein distance, for "did you mean" on misspelt names. */
static size_t edit_distance(const char *a, size_t la, const char *b)
{
    size_t lb = strlen(b);
    size_t row[64 + 1];
    if (la > 64 || lb > 64) return (size_t)-1;
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = (toupper((unsigned char)a[i - 1]) == b[j - 1]) ? 0 : 1;
            size_t best = diag + cost;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The form src/proto/net.c's net_parse_addr takes, plus the words of
 * src/controller/appctl.c (auto or empty, off, none). */
int settings_check_address(const char *value, char *why, size_t whylen)
{
    static const char expected[] = "expected unix:PATH, tcp:HOST:PORT, off or auto";
    if (!*value || !strcmp(value, "auto") || !strcmp(value, "off") || !strcmp(value, "none")) return 0;
    if (strncmp(value, "tcp:", 4) == 0) {
        const char *h = value + 4, *colon, *hend;
        if (*h == '[') {
            hend = strchr(h, ']');
            if (!hend || hend[1] != ':') goto bad;
            colon = hend + 1;
            h++;
        } else {
            colon = strrchr(h, ':');
            if (!colon) {
                snprintf(why, whylen, "no port: %s", expected);
                return -1;
            }
            hend = colon;
            for (const char *c = h; c < hend; c++)
                if (*c == ':') goto bad;
        }
        if (hend == h || (size_t)(hend - h) >= 256) goto bad;
        for (const char *c = h; c < hend; c++)
            if (!(isalnum((unsigned char)*c) || *c == '.' || *c == '-' || *c == ':')) goto bad;
        char *end = NULL;
        errno = 0;
        long port = strtol(colon + 1, &end, 10);
        if (!colon[1] || *end || errno || port < 1 || port > 65535) {
            snprintf(why, whylen, "the port must be a number from 1 to 65535 (tcp:HOST:PORT)");
            return -1;
        }
        return 0;
    }
    const char *path = strncmp(value, "unix:", 5) == 0 ? value + 5 : value;
    if (path == value && !strchr(path, '/')) goto bad;
    if (!*path) goto bad;
    if (strlen(path) >= 108) {
        snprintf(why, whylen, "socket path too long (at most 107 bytes)");
        return -1;
    }
    return 0;
bad:
    snprintf(why, whylen, "%s", expected);
    return -1;
}

static int apply(struct ductile_settings *out, const struct setting_def *d, const char *value,
                 char *errbuf, size_t errlen)
{
    long iv = 0;
    switch (d->type) {
    case SETTING_BOOL:
        iv = settings_parse_bool(value);
        if (iv < 0) {
            snprintf(errbuf, errlen, "%s='%s' is not valid: expected a boolean (1/0, yes/no, on/off, true/false)",
                     d->name, value);
            return -1;
        }
        break;
    case SETTING_INT: {
        char *end = NULL;
        errno = 0;
        iv = strtol(value, &end, 10);
        if (errno || end == value || *end != '\0' || iv < d->min || iv > d->max) {
            snprintf(errbuf, errlen, "%s='%s' is not valid: expected an integer from %ld to %ld",
                     d->name, value, d->min, d->max);
            return -1;
        }
        break;
    }
    case SETTING_ENUM: {
        size_t vl = strlen(value);
        int found = 0;
        for (const char *c = d->choices; c && *c && !found;) {
            const char *e = strchr(c, ',');
            size_t cl = e ? (size_t)(e - c) : strlen(c);
            if (cl == vl && strncmp(c, value, vl) == 0) found = 1;
            c = e ? e + 1 : c + cl;
        }
        if (!found) {
            snprintf(errbuf, errlen, "%s='%s' is not valid: expected one of %s", d->name, value, d->choices);
            return -1;
        }
        break;
    }
    case SETTING_ADDRESS: {
        char why[160];
        if (settings_check_address(value, why, sizeof why) != 0) {
            snprintf(errbuf, errlen, "%s='%s' is not valid: %s", d->name, value, why);
            return -1;
        }
        break;
    }
    case SETTING_STRING:
        break;
    }
    if (d->field_size == 0) return 0; /* validated only: read with getenv where it is used */
    char *field = (char *)out + d->field_offset;
    if (d->type == SETTING_STRING || d->type == SETTING_ENUM || d->type == SETTING_ADDRESS) {
        const char *v = d->none_word && strcmp(value, d->none_word) == 0 ? "" : value;
        memcpy(field, &v, sizeof v);
    } else if (d->field_size == sizeof(int)) {
        int i = (int)iv;
        memcpy(field, &i, sizeof i);
    } else {
        memcpy(field, &iv, sizeof iv);
    }
    return 0;
}

int settings_parse(char *const *envp, struct ductile_settings *out, char *errbuf, size_t errlen)
{
    memset(out, 0, sizeof *out);
    for (const struct setting_def *d = ductile_setting_defs; d->name; d++)
        if (apply(out, d, d->default_value, errbuf, errlen) != 0) return -1;
    if (!envp) return 0;
    for (char *const *e = envp; *e; e++) {
        const char *var = *e;
        if (strncmp(var, "DUCTILE_", 8) != 0) continue;
        const char *eq = strchr(var, '=');
        if (!eq) continue;
        size_t len = (size_t)(eq - var);
        const struct setting_def *d = find_def(var, len);
        if (!d) {
            const struct setting_def *best = NULL;
            size_t bestd = 4;
            for (const struct setting_def *c = ductile_setting_defs; c->name; c++) {
                size_t dist = edit_distance(var, len, c->name);
                if (dist < bestd) { bestd = dist; best = c; }
            }
            int n = snprintf(errbuf, errlen, "unknown setting %.*s='%s'", (int)len, var, eq + 1);
            if (best && n > 0 && (size_t)n < errlen)
                snprintf(errbuf + n, errlen - (size_t)n, " (did you mean %s?)", best->name);
            n = (int)strlen(errbuf);
            if ((size_t)n < errlen)
                snprintf(errbuf + n, errlen - (size_t)n, "; 'ductile-run --help' lists every setting");
            return -1;
        }
        if (apply(out, d, eq + 1, errbuf, errlen) != 0) return -1;
    }
    return 0;
}

/* text wrapped at width, its first line indented by first, the others by indent */
static void print_wrapped(FILE *f, const char *text, int first, int indent, int width)
{
    int col = first;
    fprintf(f, "%*s", first, "");
    const char *p = text;
    int words = 0;
    while (*p) {
        const char *w = p;
        while (*w && *w != ' ') w++;
        int len = (int)(w - p);
        if (words && col + 1 + len > width) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (words) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", len, p);
        col += len;
        words++;
        p = *w ? w + 1 : w;
    }
    fputc('\n', f);
}

void settings_print_help(void *file)
{
    FILE *f = file;
    for (const struct setting_def *d = ductile_setting_defs; d->name; d++) {
        char range[256] = "";
        switch (d->type) {
        case SETTING_BOOL: snprintf(range, sizeof range, "boolean"); break;
        case SETTING_INT: snprintf(range, sizeof range, "integer %ld..%ld", d->min, d->max); break;
        case SETTING_ENUM: snprintf(range, sizeof range, "one of %s", d->choices); break;
        case SETTING_STRING:
        case SETTING_ADDRESS: snprintf(range, sizeof range, "%s", d->values ? d->values : "text"); break;
        }
        char head[512];
        if (*d->default_value) snprintf(head, sizeof head, "%s  (%s; default '%s')", d->name, range, d->default_value);
        else snprintf(head, sizeof head, "%s  (%s; no default)", d->name, range);
        print_wrapped(f, head, 2, 4 + (int)strlen(d->name), 78); /* wrapped under the "(" */
        print_wrapped(f, d->help, 6, 6, 78);
    }
}

int settings_expand_path(const char *tmpl, const char *job_id, long pid, char *out, size_t outlen)
{
    size_t o = 0;
    for (const char *p = tmpl; *p; p++) {
        char buf[32];
        const char *ins = NULL;
        if (*p == '%' && p[1]) {
            p++;
            if (*p == 'j') ins = job_id;
            else if (*p == 'p') { snprintf(buf, sizeof buf, "%ld", pid); ins = buf; }
            else if (*p == '%') ins = "%";
            else { buf[0] = '%'; buf[1] = *p; buf[2] = '\0'; ins = buf; }
        } else {
            buf[0] = *p; buf[1] = '\0'; ins = buf;
        }
        size_t l = strlen(ins);
        if (o + l >= outlen) return -1;
        memcpy(out + o, ins, l);
        o += l;
    }
    if (o >= outlen) return -1;
    out[o] = '\0';
    return 0;
}
