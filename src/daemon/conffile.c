/* conffile.c -- ductiled's configuration file (conffile.h; docs/controller.md,
 * "Configuration file").  inih parses the lines (its reader is ours, so each
 * error carries its file and line); the keys are the long options of the core
 * and of every part, and a value goes to the option's own set(), so a file
 * and a command line accept exactly the same values.  A reload applies the
 * changed live keys all together or not at all (set() of a live option
 * changes nothing when it fails; the ones applied before are set back). */
#include "config.h"

#include "conffile.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

struct key {
    const struct dpart_option *o;
    int live, given; /* a reload may change it; given on the command line (the file's value is ignored) */
    char *value;     /* the file's value in force (NULL: none; a flag: "true" or NULL) */
    int line;
};
static struct key *keys;
static int nkeys;
static char in_use[4096];

/* one reading of the file */
struct entry {
    int k, line;
    char *value;
};
struct reading {
    const char *path;
    FILE *f;
    int line, n, cap, nerr;
    struct entry *e;
    char *err;
    size_t errlen, used;
};

static void adderr(struct reading *r, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void adderr(struct reading *r, int line, const char *fmt, ...)
{
    r->nerr++;
    if (!r->err || r->used + 1 >= r->errlen) return;
    int n = line > 0 ? snprintf(r->err + r->used, r->errlen - r->used, "%s%s:%d: ", r->used ? "\n" : "", r->path, line)
                     : snprintf(r->err + r->used, r->errlen - r->used, "%s%s: ", r->used ? "\n" : "", r->path);
    if (n > 0) r->used += (size_t)n < r->errlen - r->used ? (size_t)n : r->errlen - r->used - 1;
    va_list ap;
    va_start(ap, fmt);
    n = vsnprintf(r->err + r->used, r->errlen - r->used, fmt, ap);
    va_end(ap);
    if (n > 0) r->used += (size_t)n < r->errlen - r->used ? (size_t)n : r->errlen - r->used - 1;
}

static void add_key(const struct dpart_option *o, const char *const *live)
{
    struct key *k = &keys[nkeys++];
    *k = (struct key){.o = o};
    for (; live && *live; live++) k->live |= !strcmp(*live, o->name);
}

int conf_init(const struct dpart_option *core, const char *const *core_live)
{
    int n, total = 0;
    const struct dpart *const *parts = core_parts(&n);
    for (const struct dpart_option *o = core; o && o->name; o++) total++;
    for (int p = 0; p < n; p++)
        for (const struct dpart_option *o = parts[p]->options; o && o->name; o++) total++;
    keys = calloc((size_t)total + 1, sizeof *keys);
    if (!keys) return -1;
    for (const struct dpart_option *o = core; o && o->name; o++) add_key(o, core_live);
    for (int p = 0; p < n; p++)
        for (const struct dpart_option *o = parts[p]->options; o && o->name; o++) add_key(o, parts[p]->live);
    return 0;
}

static int find(const char *name)
{
    for (int k = 0; k < nkeys; k++)
        if (!strcmp(keys[k].o->name, name)) return k;
    return -1;
}

/* The resources are one choice (slots, hostfile or slurm): one of them on the command line
 * overrides the file's, whichever of the three it names. */
static int is_resource(const char *name)
{
    return !strcmp(name, "slots") || !strcmp(name, "hostfile") || !strcmp(name, "slurm");
}

void conf_given(const char *name)
{
    int k = find(name);
    if (k >= 0) keys[k].given = 1;
    if (is_resource(name))
        for (int i = 0; i < nkeys; i++)
            if (is_resource(keys[i].o->name)) keys[i].given = 1;
}

const char *conf_path(void) { return in_use; }

void conf_default_path(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (geteuid() == 0) snprintf(buf, len, "%s/ductile/ductiled.conf", SYSCONFDIR);
    else if (xdg && xdg[0] == '/') snprintf(buf, len, "%s/ductile/ductiled.conf", xdg);
    else snprintf(buf, len, "%s/.config/ductile/ductiled.conf", home && home[0] ? home : ".");
}

/* inih's reader: one line a call, counted; leading blanks dropped (inih's
 * continuation lines are not used); lines inih would misread are refused here */
static char *reader(char *str, int num, void *stream)
{
    struct reading *r = stream;
    if (!fgets(str, num, r->f)) return NULL;
    r->line++;
    size_t n = strlen(str);
    if (n && str[n - 1] != '\n' && !feof(r->f)) {
        int c;
        while ((c = getc(r->f)) != EOF && c != '\n') {}
        adderr(r, r->line, "line longer than %d characters", num - 2);
        str[0] = '\0';
        return str;
    }
    size_t lead = strspn(str, " \t");
    memmove(str, str + lead, n - lead + 1);
    for (char *c = str; *c; c++) /* a '#' after a blank starts a comment too (inih: ';') */
        if (*c == '#' && c > str && (c[-1] == ' ' || c[-1] == '\t')) {
            c[0] = '\n', c[1] = '\0';
            break;
        }
    if (str[0] == '[') {
        str[strcspn(str, "\r\n")] = '\0';
        adderr(r, r->line, "'%.60s': the file has no sections", str);
        str[0] = '\0';
    } else if (str[0] && !strchr("#;\r\n", str[0]) && !strpbrk(str, "=:")) {
        str[strcspn(str, "\r\n")] = '\0';
        adderr(r, r->line, "'%.60s' is not 'key = value'", str);
        str[0] = '\0';
    }
    return str;
}

static const char *flag_value(const char *v)
{
    static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(v, yes[i])) return "true";
        if (!strcasecmp(v, no[i])) return "false";
    }
    return NULL;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    struct reading *r = user;
    (void)section; /* always "": section lines are refused by the reader */
    int k = find(name);
    if (k < 0) {
        char alt[128];
        snprintf(alt, sizeof alt, "%s", name + (strncmp(name, "--", 2) ? 0 : 2));
        for (char *c = alt; *c; c++) *c = *c == '_' ? '-' : *c;
        if (!strcmp(name, "config") || !strcmp(name, "no-config") || !strcmp(name, "check-config") || !strcmp(name, "help") ||
            !strcmp(name, "version"))
            adderr(r, r->line, "'%s' is a command-line option only", name);
        else if (find(alt) >= 0) adderr(r, r->line, "unknown key '%.60s' (did you mean '%s'?)", name, alt);
        else adderr(r, r->line, "unknown key '%.60s'", name);
        return 1;
    }
    for (int i = 0; i < r->n; i++)
        if (r->e[i].k == k) {
            adderr(r, r->line, "'%s' is given twice (first on line %d)", name, r->e[i].line);
            return 1;
        }
    char v[512];
    size_t vl = strlen(value);
    if (vl >= 2 && (value[0] == '"' || value[0] == '\'') && value[vl - 1] == value[0]) /* "quoted" */
        snprintf(v, sizeof v, "%.*s", (int)(vl - 2), value + 1);
    else snprintf(v, sizeof v, "%s", value);
    const char *val = v;
    if (!keys[k].o->arg) {
        if (!(val = flag_value(v))) {
            adderr(r, r->line, "bad value for '%s': '%.60s' (true or false)", name, v);
            return 1;
        }
        if (!strcmp(val, "false")) val = NULL; /* the same as not there */
    } else if (!v[0]) {
        adderr(r, r->line, "bad value for '%s': empty", name);
        return 1;
    }
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        struct entry *e = realloc(r->e, (size_t)cap * sizeof *e);
        if (!e) return 0;
        r->e = e, r->cap = cap;
    }
    char *dup = val ? strdup(val) : NULL;
    if (val && !dup) return 0;
    r->e[r->n++] = (struct entry){.k = k, .line = r->line, .value = dup};
    return 1;
}

static void reading_free(struct reading *r)
{
    for (int i = 0; i < r->n; i++) free(r->e[i].value);
    free(r->e);
}

/* Read the file into r (nothing applied): 0, or -1 with r->nerr errors. */
static int read_file(const char *path, struct reading *r)
{
    r->path = path;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        adderr(r, 0, "%s", strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        adderr(r, 0, "not a regular file");
        close(fd);
        return -1;
    }
    /* it names commands ductiled runs (the launcher) and files it writes */
    if ((st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & 022)) {
        adderr(r, 0, "%s: refused (it names commands ductiled runs; make it %s)",
               st.st_mode & 022 ? "writable by group or others" : "owned by another user",
               st.st_mode & 022 ? "writable by its owner only: chmod go-w" : "yours or root's");
        close(fd);
        return -1;
    }
    if (!(r->f = fdopen(fd, "r"))) {
        adderr(r, 0, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    int rc = ini_parse_stream(reader, r, handler, r);
    fclose(r->f);
    r->f = NULL;
    if (rc == -2) adderr(r, 0, "out of memory");
    else if (rc > 0 && r->nerr == 0) adderr(r, rc, "cannot be read as 'key = value'");
    return r->nerr ? -1 : 0;
}

/* set() of key k to v (NULL: the default; a flag: off) */
static int apply(int k, const char *v, char *e, size_t el)
{
    const struct dpart_option *o = keys[k].o;
    e[0] = '\0';
    if (o->arg) return o->set(v, e, el);
    return o->set(v ? NULL : "false", e, el);
}

/* "PATH:LINE: ..." lines in the order of their LINE (the file's own errors, "PATH: ...", first) */
static long line_of(const char *l, size_t plen) { return l[plen] == ':' ? strtol(l + plen + 1, NULL, 10) : 0; }
static void sort_lines(char *err, size_t plen)
{
    size_t len = strlen(err);
    char *copy = malloc(len + 1), **v = calloc(len / 2 + 2, sizeof *v);
    int n = 0;
    if (copy && v) {
        memcpy(copy, err, len + 1);
        for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) v[n++] = l;
        for (int i = 1; i < n; i++) /* insertion sort: stable, and there are few */
            for (int j = i; j > 0 && line_of(v[j - 1], plen) > line_of(v[j], plen); j--) {
                char *t = v[j];
                v[j] = v[j - 1], v[j - 1] = t;
            }
        size_t used = 0;
        for (int i = 0; i < n; i++) used += (size_t)snprintf(err + used, len + 1 - used, "%s%s", i ? "\n" : "", v[i]);
    }
    free(copy);
    free(v);
}

int conf_load(const char *path, char *err, size_t errlen)
{
    struct reading r = {.err = err, .errlen = errlen};
    err[0] = '\0';
    snprintf(in_use, sizeof in_use, "%s", path);
    if (read_file(path, &r) != 0 && !r.n) {
        reading_free(&r);
        return -1;
    }
    for (int i = 0; i < r.n; i++) { /* also after errors in other lines: every error is told at once */
        struct entry *x = &r.e[i];
        struct key *k = &keys[x->k];
        if (k->given || !x->value) continue; /* the command line's value wins; a flag set false is not there */
        char e[512];
        if (apply(x->k, x->value, e, sizeof e) != 0) {
            adderr(&r, x->line, "bad value for '%s': %s", k->o->name, e);
            continue;
        }
        k->value = x->value, k->line = x->line;
        x->value = NULL;
    }
    int rc = r.nerr ? -1 : 0;
    reading_free(&r);
    sort_lines(err, strlen(path));
    return rc;
}

static int same(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* each line of the errors, logged */
static void log_lines(const char *what, char *err)
{
    for (char *save = NULL, *l = strtok_r(err, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) logmsg("%s%s", what, l);
}

void conf_reload(void)
{
    if (!in_use[0]) {
        logmsg("SIGHUP: ductiled runs without a configuration file (--no-config, or none at the default place): "
               "nothing to reload");
        return;
    }
    char err[4096];
    struct reading r = {.err = err, .errlen = sizeof err};
    err[0] = '\0';
    if (read_file(in_use, &r) != 0) {
        log_lines("configuration not reloaded: ", err);
        logmsg("configuration not reloaded: %d error(s); ductiled keeps running with the configuration it has", r.nerr);
        reading_free(&r);
        return;
    }
    /* the file's new value of each key, and what changes */
    char **nv = calloc((size_t)nkeys + 1, sizeof *nv);
    int *nl = calloc((size_t)nkeys + 1, sizeof *nl), *done = calloc((size_t)nkeys + 1, sizeof *done);
    if (!nv || !nl || !done) {
        logmsg("configuration not reloaded: out of memory");
        free(nv), free(nl), free(done), reading_free(&r);
        return;
    }
    for (int i = 0; i < r.n; i++) nv[r.e[i].k] = r.e[i].value, nl[r.e[i].k] = r.e[i].line;
    int napplied = 0, nrestart = 0, nfailed = 0;
    char e[512];
    for (int i = 0; i < r.n + nkeys; i++) { /* the file's order, then the keys it no longer has */
        int k = i < r.n ? r.e[i].k : i - r.n;
        if (i >= r.n && (nv[k] || !keys[k].value)) continue;
        if (keys[k].given || same(keys[k].value, nv[k]) || !keys[k].live) continue;
        if (apply(k, nv[k], e, sizeof e) != 0) { /* every bad value is told, then nothing changes */
            logmsg("configuration not reloaded: %s:%d: bad value for '%s': %s", in_use, nl[k], keys[k].o->name, e);
            nfailed++;
        } else done[napplied++] = k;
    }
    if (nfailed) {
        for (int i = napplied - 1; i >= 0; i--) /* back to what was in force */
            if (apply(done[i], keys[done[i]].value, e, sizeof e) != 0)
                logmsg("'%s' could not be set back to '%s': %s", keys[done[i]].o->name, keys[done[i]].value, e);
        if (napplied) core_reconfigured(); /* what the parts derive from them, as it was */
        logmsg("ductiled keeps running with the configuration it has");
    } else {
        for (int k = 0; k < nkeys; k++) {
            struct key *K = &keys[k];
            const char *o = K->value ? K->value : "(default)", *n = nv[k] ? nv[k] : "(default)";
            if (same(K->value, nv[k])) continue;
            if (!nv[k] && !K->given) { /* no longer in the file */
                logmsg("%s: '%s' is no longer in the file: from '%s' back to its default%s", in_use, K->o->name, o,
                       K->live ? "" : " at the next start");
                if (!K->live) {
                    nrestart++;
                    continue;
                }
            } else if (K->given) logmsg("%s:%d: '%s' is given on the command line: the file's '%s' is not used", in_use, nl[k], K->o->name, n);
            else if (!K->live) {
                logmsg("%s:%d: '%s' changed from '%s' to '%s': takes effect at the next start (until then '%s')", in_use,
                       nl[k], K->o->name, o, n, o);
                nrestart++;
                continue; /* what is in force stays recorded */
            } else if (nv[k]) logmsg("%s:%d: '%s' changed from '%s' to '%s'", in_use, nl[k], K->o->name, o, n);
            free(K->value);
            K->value = nv[k], K->line = nl[k];
            for (int i = 0; i < r.n; i++)
                if (r.e[i].k == k) r.e[i].value = NULL; /* kept */
        }
        if (napplied) core_reconfigured();
        logmsg("configuration reloaded from %s: %d change(s) applied, %d waiting for a restart", in_use, napplied, nrestart);
    }
    free(nv), free(nl), free(done);
    reading_free(&r);
}

void conf_free(void)
{
    for (int k = 0; k < nkeys; k++) free(keys[k].value);
    free(keys);
    keys = NULL, nkeys = 0;
}
