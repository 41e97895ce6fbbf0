/* iomon.c -- MPI-IO accounting and I/O phase detection (see iomon.h).
 * Runs only inside the wrappers of MPI_File_* calls and in rank 0's
 * controller thread (ductile_io_poll); a mutex orders the two. */
#include "config.h"

#include "iomon.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iosched.h"
#include "../core/hooks.h"
#include "../core/hotpath.h"
#include "../core/state.h"

#define IO_MAXFILES 64
#define IO_MAXOPEN 64
#define IO_MAXPHASES 4096
#define IO_HIST 6
static const char *const hist_names[IO_HIST] = {"<4KiB", "4KiB-64KiB", "64KiB-1MiB", "1MiB-16MiB", "16MiB-256MiB",
                                                ">=256MiB"};

enum { K_NONE = 0, K_PASSIVE = 1, K_ACTIVE = 2 };

struct io_file_stats {
    char name[208];
    int32_t world, amode;
    uint64_t opens, calls, bytes_written, bytes_read, nacc, acc_min, acc_max;
    uint64_t hist[IO_HIST];
    double time_s;
};

struct open_slot {
    MPI_File fh;
    int file, world;
};

static struct {
    pthread_mutex_t lock;
    unsigned char kind[DUCTILE_FN_COUNT];
    unsigned char coll[DUCTILE_FN_COUNT];
    double gap;
    struct io_file_stats files[IO_MAXFILES];
    int nfiles;
    struct open_slot open[IO_MAXOPEN];
    int nworld_open;
    struct io_phase *phases;
    int nphases, cap;
    int in_phase, in_call;
    double last_end;      /* epoch seconds */
    double cur_start;     /* epoch seconds */
    struct io_phase cur;
    uint64_t dropped;
} M = {.lock = PTHREAD_MUTEX_INITIALIZER};

static double now_epoch(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

void ductile_io_init(void)
{
    pthread_mutex_lock(&M.lock);
    for (int f = 0; f < DUCTILE_FN_COUNT; f++) {
        M.kind[f] = K_NONE;
        M.coll[f] = 0;
        if (ductile_fn_category[f] != DUCTILE_CAT_IO) continue;
        const char *n = ductile_fn_name[f] + strlen("MPI_File_");
        if (strncmp(ductile_fn_name[f], "MPI_File_", 9) != 0) {
            M.kind[f] = K_PASSIVE; /* MPI_Register_datarep */
            continue;
        }
        int getter = !strncmp(n, "get_", 4) || !strncmp(n, "seek", 4) || strstr(n, "errhandler") ||
                     !strncmp(n, "c2f", 3) || !strncmp(n, "f2c", 3) || !strncmp(n, "toint", 5);
        M.kind[f] = getter ? K_PASSIVE : K_ACTIVE;
        int c = !strcmp(n, "open") || !strcmp(n, "close") || !strcmp(n, "set_view") || !strcmp(n, "set_size") ||
                !strcmp(n, "preallocate") || !strcmp(n, "sync") || !strcmp(n, "set_atomicity") ||
                !strcmp(n, "set_info") || strstr(n, "_all") || strstr(n, "_ordered");
        if (ends_with(n, "_end") || ends_with(n, "_end_c")) c = 0;
        M.coll[f] = (unsigned char)c;
    }
    M.gap = (double)ductile_rt.settings.io_phase_gap / 1000.0;
    M.nfiles = M.nworld_open = M.nphases = 0;
    M.in_phase = M.in_call = 0;
    memset(M.open, 0, sizeof M.open);
    pthread_mutex_unlock(&M.lock);
}

static struct open_slot *find_open(MPI_File fh)
{
    if (fh == MPI_FILE_NULL) return NULL;
    for (int i = 0; i < IO_MAXOPEN; i++)
        if (M.open[i].fh == fh && M.open[i].file >= 0 && fh != 0) return &M.open[i];
    return NULL;
}

/* under the lock */
static void close_phase(void)
{
    if (!M.in_phase) return;
    M.in_phase = 0;
    M.cur.duration_s = M.last_end - M.cur_start;
    if (M.cur.duration_s < 0) M.cur.duration_s = 0;
    if (M.nphases < IO_MAXPHASES) {
        if (M.nphases == M.cap) {
            int nc = M.cap ? 2 * M.cap : 64;
            struct io_phase *p = realloc(M.phases, (size_t)nc * sizeof *p);
            if (p) M.phases = p, M.cap = nc;
        }
        if (M.nphases < M.cap) M.phases[M.nphases++] = M.cur;
        else M.dropped++;
    } else {
        M.dropped++;
    }
    if (ductile_rt.rank == 0) {
        struct io_phase p = M.cur;
        DUCTILE_HOOK_VOID(io_phase, (&p, M.cur_start));
        double kept = now_epoch() - M.last_end;
        ductile_iosched_phase_closed(kept > 0 ? kept : 0);
    }
}

void ductile_io_before(int fn, MPI_File fh, MPI_Comm comm)
{
    if (M.kind[fn] != K_ACTIVE) return;
    /* a phase that ended gives the token back before the gate can look at it */
    pthread_mutex_lock(&M.lock);
    if (M.in_phase && now_epoch() - M.last_end > M.gap) close_phase();
    M.in_call = 1; /* rank 0's controller thread must not end the phase while we wait */
    pthread_mutex_unlock(&M.lock);
    /* the exclusive-I/O gate: collective calls on files that span the virtual world */
    double delay = 0;
    if (M.coll[fn] && ductile_iosched_enabled()) {
        int world = 0;
        if (comm != MPI_COMM_NULL) {
            int res = MPI_UNEQUAL;
            PMPI_Comm_compare(comm, ductile_world, &res);
            world = res == MPI_IDENT || res == MPI_CONGRUENT;
        } else {
            pthread_mutex_lock(&M.lock);
            struct open_slot *o = find_open(fh);
            world = o && o->world;
            pthread_mutex_unlock(&M.lock);
        }
        if (world) delay = ductile_iosched_gate();
    }
    double now = now_epoch();
    pthread_mutex_lock(&M.lock);
    if (!M.in_phase) {
        memset(&M.cur, 0, sizeof M.cur);
        M.in_phase = 1;
        M.cur_start = now;
        M.cur.start_s = now - ductile_rt.start_epoch;
        M.cur.iteration = DUCTILE_HOOK(ctl_iteration, ());
        M.cur.procs = ductile_rt.size;
    }
    M.cur.delay_s += delay;
    M.in_call = 1;
    pthread_mutex_unlock(&M.lock);
}

static int file_slot(const char *name)
{
    for (int i = 0; i < M.nfiles; i++)
        if (!strncmp(M.files[i].name, name, sizeof M.files[i].name - 1)) return i;
    if (M.nfiles == IO_MAXFILES) return IO_MAXFILES - 1; /* the last entry collects the rest */
    struct io_file_stats *f = &M.files[M.nfiles];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", M.nfiles == IO_MAXFILES - 1 ? "(other files)" : name);
    return M.nfiles++;
}

void ductile_io_opened(MPI_Comm comm, const char *name, int amode, MPI_File fh)
{
    if (fh == MPI_FILE_NULL) return;
    int res = MPI_UNEQUAL;
    PMPI_Comm_compare(comm, ductile_world, &res);
    pthread_mutex_lock(&M.lock);
    int fi = file_slot(name ? name : "?");
    M.files[fi].opens++;
    M.files[fi].amode = amode;
    M.files[fi].world = res == MPI_IDENT || res == MPI_CONGRUENT;
    for (int i = 0; i < IO_MAXOPEN; i++)
        if (M.open[i].fh == 0 || M.open[i].file < 0) {
            M.open[i] = (struct open_slot){.fh = fh, .file = fi, .world = M.files[fi].world};
            if (M.files[fi].world) M.nworld_open++;
            break;
        }
    pthread_mutex_unlock(&M.lock);
}

void ductile_io_after(int fn, MPI_File fh, uint64_t t0, uint64_t sent, uint64_t recv)
{
    if (M.kind[fn] == K_NONE) return;
    double dt = ductile_ticks_to_sec(ductile_ticks() - t0);
    double now = now_epoch();
    int closing = ends_with(ductile_fn_name[fn], "_close"), last_world_closed = 0;
    pthread_mutex_lock(&M.lock);
    struct open_slot *o = find_open(fh);
    if (o) {
        struct io_file_stats *f = &M.files[o->file];
        f->calls++;
        f->time_s += dt;
        f->bytes_written += sent;
        f->bytes_read += recv;
        uint64_t acc = sent + recv;
        if (acc) {
            if (!f->nacc || acc < f->acc_min) f->acc_min = acc;
            if (acc > f->acc_max) f->acc_max = acc;
            f->nacc++;
            int b = 0;
            for (uint64_t lim = 4096; b < IO_HIST - 1 && acc >= lim; lim <<= 4) b++;
            f->hist[b]++;
        }
        if (closing) {
            if (o->world) last_world_closed = --M.nworld_open == 0;
            o->fh = 0;
            o->file = -1;
        }
    }
    if (M.kind[fn] == K_ACTIVE && M.in_phase) {
        if (o) M.cur.files |= (uint64_t)1 << (o->file & 63); /* IO_MAXFILES is 64 */
        M.cur.io_s += dt;
        M.cur.bytes_written += sent;
        M.cur.bytes_read += recv;
        M.cur.calls++;
        M.last_end = now;
        M.in_call = 0;
    }
    pthread_mutex_unlock(&M.lock);
    /* a checkpoint's end (open, writes, close of the last file open on the world): the token
     * goes back at once, not a phase gap later, once every rank is out of the close (the gate's
     * broadcast already assumes every rank makes the same collective I/O calls on these files);
     * the phase itself still ends by the gap, and a file opened in it asks again */
    if (last_world_closed && ductile_iosched_enabled()) {
        PMPI_Barrier(ductile_rt.private_comm);
        if (ductile_rt.rank == 0) ductile_iosched_phase_closed(0);
    }
}

double ductile_io_poll(void)
{
    double wait = 3600;
    pthread_mutex_lock(&M.lock);
    if (M.in_phase && !M.in_call) {
        double left = M.last_end + M.gap - now_epoch();
        if (left <= 0) close_phase();
        else wait = left;
    } else if (M.in_phase) {
        wait = M.gap > 0.02 ? M.gap / 2 : 0.01;
    }
    pthread_mutex_unlock(&M.lock);
    return wait;
}

void ductile_io_rehandle(MPI_File old, MPI_File now)
{
    pthread_mutex_lock(&M.lock);
    struct open_slot *o = find_open(old);
    if (o && now != MPI_FILE_NULL) {
        o->fh = now;
    } else if (o) {
        if (o->world) M.nworld_open--;
        o->fh = 0;
        o->file = -1;
    }
    pthread_mutex_unlock(&M.lock);
}

int ductile_io_open_world_files(void)
{
    pthread_mutex_lock(&M.lock);
    int n = M.nworld_open;
    pthread_mutex_unlock(&M.lock);
    return n;
}

/* ------------------------------------------------------------ report */

/* fnames: the names of the files the phase accessed (a JSON array, taken over) */
static json_t *phase_json(int index, const struct io_phase *p, double start_epoch, json_t *fnames)
{
    double s = start_epoch + p->start_s;
    return json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:I, s:i, s:o}", "index", index, "start_s",
                     p->start_s, "start_epoch", s, "end_epoch", s + p->duration_s, "duration_s", p->duration_s,
                     "io_s", p->io_s, "delay_s", p->delay_s, "bytes_written", (json_int_t)p->bytes_written,
                     "bytes_read", (json_int_t)p->bytes_read, "calls", (json_int_t)p->calls, "iteration",
                     (json_int_t)p->iteration, "procs", p->procs, "files", fnames);
}

/* add to names (a JSON array) the names of rank r's files in mask, once each */
static void add_file_names(json_t *names, uint64_t mask, const struct io_file_stats *rfiles, int nrfiles)
{
    for (int i = 0; i < nrfiles && i < 64; i++) {
        if (!(mask >> i & 1)) continue;
        size_t k;
        json_t *v;
        int seen = 0;
        json_array_foreach(names, k, v) seen |= !strcmp(json_string_value(v), rfiles[i].name);
        if (!seen) json_array_append_new(names, json_string(rfiles[i].name));
    }
}

json_t *ductile_io_report(MPI_Comm comm)
{
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    pthread_mutex_lock(&M.lock);
    close_phase();
    int counts[2] = {M.nfiles, M.nphases};
    pthread_mutex_unlock(&M.lock);
    int *all = rank == 0 ? calloc((size_t)size * 2, sizeof(int)) : NULL;
    PMPI_Gather(counts, 2, MPI_INT, all, 2, MPI_INT, 0, comm);
    /* each rank's phases start from its own MPI_Init: put them on rank 0's origin */
    double *epochs = rank == 0 ? calloc((size_t)size, sizeof(double)) : NULL;
    PMPI_Gather(&ductile_rt.start_epoch, 1, MPI_DOUBLE, epochs, 1, MPI_DOUBLE, 0, comm);
    int *fc = NULL, *fd = NULL, *pc = NULL, *pd = NULL;
    struct io_file_stats *files = NULL;
    struct io_phase *phases = NULL;
    long totf = 0, totp = 0;
    if (rank == 0) {
        fc = calloc((size_t)size, sizeof(int)), fd = calloc((size_t)size, sizeof(int));
        pc = calloc((size_t)size, sizeof(int)), pd = calloc((size_t)size, sizeof(int));
        for (int r = 0; r < size && all && fc && fd && pc && pd; r++) {
            fd[r] = (int)(totf * (long)sizeof(struct io_file_stats));
            fc[r] = all[2 * r] * (int)sizeof(struct io_file_stats);
            totf += all[2 * r];
            pd[r] = (int)(totp * (long)sizeof(struct io_phase));
            pc[r] = all[2 * r + 1] * (int)sizeof(struct io_phase);
            totp += all[2 * r + 1];
        }
        files = calloc((size_t)totf + 1, sizeof *files);
        phases = calloc((size_t)totp + 1, sizeof *phases);
    }
    PMPI_Gatherv(M.files, counts[0] * (int)sizeof(struct io_file_stats), MPI_BYTE, files, fc, fd, MPI_BYTE, 0, comm);
    PMPI_Gatherv(M.phases, counts[1] * (int)sizeof(struct io_phase), MPI_BYTE, phases, pc, pd, MPI_BYTE, 0, comm);
    json_t *io = NULL;
    if (rank == 0 && all && epochs && files && phases && (totf > 0 || totp > 0)) {
        /* each merged phase's file names, from every rank's own file table (before the files are merged) */
        int same = 1;
        for (int r = 1; r < size; r++) same &= all[2 * r + 1] == all[1];
        json_t *pfiles = json_array();
        for (int k = 0; k < all[1]; k++) {
            json_t *names = json_array();
            for (int r = 0; r < (same ? size : 1); r++)
                add_file_names(names, phases[pd[r] / (int)sizeof(struct io_phase) + k].files,
                               &files[fd[r] / (int)sizeof(struct io_file_stats)], all[2 * r]);
            json_array_append_new(pfiles, names);
        }
        for (int r = 1; r < size; r++) {
            struct io_phase *p = &phases[pd[r] / (int)sizeof(struct io_phase)];
            for (int k = 0; k < all[2 * r + 1]; k++) p[k].start_s += epochs[r] - epochs[0];
        }
        io = json_object();
        json_object_set_new(io, "phase_gap_s", json_real(M.gap));
        json_object_set_new(io, "exclusive", json_boolean(ductile_iosched_enabled()));
        /* files: summed over ranks by name */
        json_t *fa = json_array();
        uint64_t tw = 0, tr = 0, tc = 0;
        double tt = 0;
        for (long i = 0; i < totf; i++) {
            if (!files[i].name[0]) continue;
            struct io_file_stats s = files[i];
            for (long k = i + 1; k < totf; k++) {
                struct io_file_stats *o = &files[k];
                if (!o->name[0] || strcmp(o->name, s.name)) continue;
                s.opens = s.opens > o->opens ? s.opens : o->opens;
                s.calls += o->calls, s.bytes_written += o->bytes_written, s.bytes_read += o->bytes_read;
                if (o->nacc && (!s.nacc || o->acc_min < s.acc_min)) s.acc_min = o->acc_min;
                if (o->acc_max > s.acc_max) s.acc_max = o->acc_max;
                s.nacc += o->nacc;
                for (int b = 0; b < IO_HIST; b++) s.hist[b] += o->hist[b];
                s.time_s += o->time_s;
                o->name[0] = '\0';
            }
            json_t *h = json_object();
            for (int b = 0; b < IO_HIST; b++)
                if (s.hist[b]) json_object_set_new(h, hist_names[b], json_integer((json_int_t)s.hist[b]));
            json_array_append_new(
                fa, json_pack("{s:s, s:i, s:b, s:I, s:I, s:I, s:I, s:f, s:{s:I, s:I, s:I, s:f, s:o}}", "name", s.name,
                              "amode", s.amode, "world", s.world, "opens", (json_int_t)s.opens, "calls",
                              (json_int_t)s.calls, "bytes_written", (json_int_t)s.bytes_written, "bytes_read",
                              (json_int_t)s.bytes_read, "time_s", s.time_s, "access", "count", (json_int_t)s.nacc,
                              "min", (json_int_t)s.acc_min, "max", (json_int_t)s.acc_max, "mean",
                              s.nacc ? (double)(s.bytes_written + s.bytes_read) / (double)s.nacc : 0.0, "hist", h));
            tw += s.bytes_written, tr += s.bytes_read, tc += s.calls, tt += s.time_s;
        }
        /* phases: per rank, and merged into job phases by index when every rank saw the same number */
        json_t *pa = json_array();
        double delay = 0;
        for (int k = 0; k < all[1]; k++) {
            struct io_phase m = phases[k];
            double end = m.start_s + m.duration_s;
            for (int r = 1; same && r < size; r++) {
                const struct io_phase *p = &phases[pd[r] / (int)sizeof(struct io_phase) + k];
                if (p->start_s < m.start_s) m.start_s = p->start_s;
                if (p->start_s + p->duration_s > end) end = p->start_s + p->duration_s;
                if (p->io_s > m.io_s) m.io_s = p->io_s;
                if (p->delay_s > m.delay_s) m.delay_s = p->delay_s;
                m.bytes_written += p->bytes_written, m.bytes_read += p->bytes_read, m.calls += p->calls;
            }
            m.duration_s = end - m.start_s;
            delay += m.delay_s;
            json_array_append_new(pa, phase_json(k, &m, ductile_rt.start_epoch, json_incref(json_array_get(pfiles, (size_t)k))));
        }
        json_t *ra = json_array();
        for (int r = 0; r < size; r++) {
            uint64_t w = 0, rd = 0;
            double ios = 0, dl = 0;
            const struct io_phase *p = &phases[pd[r] / (int)sizeof(struct io_phase)];
            for (int k = 0; k < all[2 * r + 1]; k++) w += p[k].bytes_written, rd += p[k].bytes_read, ios += p[k].io_s, dl += p[k].delay_s;
            json_array_append_new(ra, json_pack("{s:i, s:i, s:I, s:I, s:f, s:f}", "rank", r, "phases", all[2 * r + 1],
                                                "bytes_written", (json_int_t)w, "bytes_read", (json_int_t)rd, "io_s",
                                                ios, "delay_s", dl));
        }
        json_object_set_new(io, "totals",
                            json_pack("{s:I, s:I, s:I, s:f, s:f, s:i, s:b}", "bytes_written", (json_int_t)tw,
                                      "bytes_read", (json_int_t)tr, "calls", (json_int_t)tc, "time_s", tt, "delay_s",
                                      delay, "phases", all[1], "phases_merged", same));
        json_object_set_new(io, "files", fa);
        json_object_set_new(io, "phases", pa);
        json_object_set_new(io, "ranks", ra);
        json_decref(pfiles);
    }
    free(all), free(epochs), free(fc), free(fd), free(pc), free(pd), free(files), free(phases);
    return io;
}

/* src/wrap's MPI_Init and MPI_File_* wrappers reach this module through the hook table. */
DUCTILE_REGISTER(iomon_register)
{
    h->io_init = ductile_io_init;
    h->io_before = ductile_io_before;
    h->io_after = ductile_io_after;
    h->io_opened = ductile_io_opened;
    h->io_rehandle = ductile_io_rehandle;
}
