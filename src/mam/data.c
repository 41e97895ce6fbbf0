/* data.c -- MaM's four data registries (distributed or replicated,
 * variable or constant) as Ductile's registered items: MAM_Data_add,
 * MAM_Data_modify, MAM_Data_get_entries, MAM_Data_get_pointer.  Each entry
 * is an item named "MaM/<d|r><v|c>/<index>/<type>" (a distributed item of
 * total_qty rows of one element, MaM's block distribution; a replicated one
 * of total_qty elements; constant ones may move in the background).  A
 * process a reconfiguration started registers nothing itself, as in MaM: the
 * names of the running processes' items tell this layer what to register
 * (mam_data_targets), with buffers of its block. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "empi.h"
#include "mam_int.h"
#include "../core/state.h"
#include "../malleable/steer.h"

/* Predefined datatypes travel by their place in this table (their handles
 * are not the same in every process with every MPI); others as "x": a
 * spawned process gets contiguous bytes of the same extent. */
static MPI_Datatype predefined(int i)
{
    switch (i) {
    case 0: return MPI_CHAR;
    case 1: return MPI_SIGNED_CHAR;
    case 2: return MPI_UNSIGNED_CHAR;
    case 3: return MPI_BYTE;
    case 4: return MPI_SHORT;
    case 5: return MPI_UNSIGNED_SHORT;
    case 6: return MPI_INT;
    case 7: return MPI_UNSIGNED;
    case 8: return MPI_LONG;
    case 9: return MPI_UNSIGNED_LONG;
    case 10: return MPI_LONG_LONG;
    case 11: return MPI_UNSIGNED_LONG_LONG;
    case 12: return MPI_FLOAT;
    case 13: return MPI_DOUBLE;
    case 14: return MPI_LONG_DOUBLE;
    case 15: return MPI_WCHAR;
    case 16: return MPI_C_BOOL;
    case 17: return MPI_INT8_T;
    case 18: return MPI_INT16_T;
    case 19: return MPI_INT32_T;
    case 20: return MPI_INT64_T;
    case 21: return MPI_UINT8_T;
    case 22: return MPI_UINT16_T;
    case 23: return MPI_UINT32_T;
    case 24: return MPI_UINT64_T;
    case 25: return MPI_C_FLOAT_COMPLEX;
    case 26: return MPI_C_DOUBLE_COMPLEX;
    case 27: return MPI_AINT;
    case 28: return MPI_OFFSET;
    case 29: return MPI_FLOAT_INT;
    case 30: return MPI_DOUBLE_INT;
    case 31: return MPI_LONG_INT;
    case 32: return MPI_2INT;
    case 33: return MPI_SHORT_INT;
    default: return MPI_DATATYPE_NULL;
    }
}

static void item_name(char *buf, size_t len, int rep, int con, size_t index, MPI_Datatype type)
{
    int code = -1;
    for (int i = 0; predefined(i) != MPI_DATATYPE_NULL; i++)
        if (predefined(i) == type) {
            code = i;
            break;
        }
    char tc[16];
    if (code >= 0) snprintf(tc, sizeof tc, "t%d", code);
    else snprintf(tc, sizeof tc, "x");
    snprintf(buf, len, "MaM/%c%c/%zu/%s", rep ? 'r' : 'd', con ? 'c' : 'v', index, tc);
}

static struct mam_registry *registry(int rep, int con) { return &MS.reg[rep != 0][con != 0]; }

static struct mam_entry *slot(struct mam_registry *R, size_t index)
{
    if (index >= R->cap) {
        size_t nc = R->cap ? R->cap : 8;
        while (nc <= index) nc *= 2;
        struct mam_entry *e = realloc(R->e, nc * sizeof *e);
        if (!e) return NULL;
        memset(e + R->cap, 0, (nc - R->cap) * sizeof *e);
        R->e = e;
        R->cap = nc;
    }
    if (index >= R->n) R->n = index + 1;
    return &R->e[index];
}

static int add_item(const char *fn, const char *name, void *data, size_t qty, MPI_Datatype type, int rep, int con)
{
    if (EMPI_Register_array(name, data, type, (int64_t)qty, 1, rep ? EMPI_SHARED : EMPI_DISJOINT,
                            con ? EMPI_CONSTANT : EMPI_VARIABLE) != 0) {
        fprintf(stderr, "ductile: error: %s: the entry was not registered (see above)\n", fn);
        return -1;
    }
    return 0;
}

void MAM_Data_add(void *data, size_t *index, size_t total_qty, MPI_Datatype type, int is_replicated, int is_constant)
{
    if (!MS.init) {
        fprintf(stderr, "ductile: error: MAM_Data_add before MAM_Init: ignored\n");
        return;
    }
    struct mam_registry *R = registry(is_replicated, is_constant);
    size_t i = R->n;
    char name[REG_NAME_MAX];
    item_name(name, sizeof name, is_replicated, is_constant, i, type);
    if (add_item("MAM_Data_add", name, data, total_qty, type, is_replicated, is_constant) != 0) return;
    struct mam_entry *e = slot(R, i);
    if (!e) {
        fprintf(stderr, "ductile: error: MAM_Data_add: out of memory\n");
        return;
    }
    snprintf(e->name, sizeof e->name, "%s", name);
    e->qty = total_qty;
    e->type = type;
    e->own_type = 0;
    e->used = 1;
    if (index) *index = i;
}

void MAM_Data_modify(void *data, size_t index, size_t total_qty, MPI_Datatype type, int is_replicated,
                     int is_constant)
{
    if (!MS.init) return;
    struct mam_registry *R = registry(is_replicated, is_constant);
    if (index >= R->n || !R->e[index].used) return; /* as in MaM: no such entry, nothing happens */
    struct mam_entry *e = &R->e[index];
    char name[REG_NAME_MAX];
    item_name(name, sizeof name, is_replicated, is_constant, index, type);
    if (strcmp(name, e->name) != 0) {
        /* another type: another item (a spawned process learns the type from the name) */
        if (ductile_constant_pending()) {
            fprintf(stderr, "ductile: error: MAM_Data_modify: refused while a reconfiguration is pending\n");
            return;
        }
        EMPI_Deregister_shared(e->name);
    }
    if (add_item("MAM_Data_modify", name, data, total_qty, type, is_replicated, is_constant) != 0) return;
    if (e->own_type) MPI_Type_free(&e->type);
    snprintf(e->name, sizeof e->name, "%s", name);
    e->qty = total_qty;
    e->type = type;
    e->own_type = 0;
}

void MAM_Data_get_entries(int is_replicated, int is_constant, size_t *entries)
{
    if (entries) *entries = MS.init ? registry(is_replicated, is_constant)->n : 0;
}

void MAM_Data_get_pointer(void **data, size_t index, size_t *total_qty, MPI_Datatype *type, int is_replicated,
                          int is_constant)
{
    struct mam_registry *R = registry(is_replicated, is_constant);
    if (!MS.init || index >= R->n || !R->e[index].used) {
        if (data) *data = NULL;
        if (total_qty) *total_qty = 0;
        if (type) *type = MPI_DATATYPE_NULL;
        return;
    }
    struct mam_entry *e = &R->e[index];
    if (data) *data = EMPI_Get_addr(e->name);
    if (total_qty) *total_qty = e->qty;
    if (type) *type = e->type;
}

/* "MaM/dv/3/t13" -> rep 0, con 0, index 3, code 13 (-1: "x").  0, or -1 for another name. */
static int parse_name(const char *n, int *rep, int *con, size_t *index, int *code)
{
    char r, c, t[16];
    size_t i;
    if (sscanf(n, "MaM/%c%c/%zu/%15s", &r, &c, &i, t) != 4 || (r != 'd' && r != 'r') || (c != 'v' && c != 'c'))
        return -1;
    *rep = r == 'r';
    *con = c == 'c';
    *index = i;
    if (t[0] == 'x') *code = -1;
    else if (t[0] != 't' || sscanf(t + 1, "%d", code) != 1 || predefined(*code) == MPI_DATATYPE_NULL) return -1;
    return 0;
}

int mam_data_targets(void)
{
    int n = 0;
    const struct reg_desc *d = engine_join_items(&n);
    int rank = ductile_rt.rank, size = ductile_rt.size; /* the new world: joined in MPI_Init */
    for (int k = 0; k < n; k++) {
        int rep, con, code;
        size_t index;
        if (parse_name(d[k].name, &rep, &con, &index, &code) != 0 ||
            (d[k].kind != REG_DISTRIBUTED && d[k].kind != REG_REPLICATED)) {
            fprintf(stderr, "ductile: error: MAM_Init (new process): the running processes registered '%s', which "
                            "is not MaM data (MAM_Data_add): a MaM program's new processes cannot register it; the "
                            "reconfiguration fails\n", d[k].name);
            return -1;
        }
        MPI_Datatype type = code >= 0 ? predefined(code) : MPI_DATATYPE_NULL;
        int own = 0;
        if (code < 0) {
            MPI_Type_contiguous((int)d[k].extent, MPI_BYTE, &type);
            MPI_Type_commit(&type);
            own = 1;
        }
        int64_t qty = rep ? d[k].elems : d[k].nrows, count = qty, desp = 0;
        if (!rep) EMPI_Get_wsize64(rank, size, qty, &desp, &count);
        void *buf = malloc((size_t)(count * d[k].extent) + 1); /* the program's, as MaM's buffers */
        struct mam_entry *e = slot(registry(rep, con), index);
        if (!buf || !e) {
            fprintf(stderr, "ductile: error: MAM_Init (new process): out of memory for '%s'\n", d[k].name);
            free(buf);
            return -1;
        }
        snprintf(e->name, sizeof e->name, "%s", d[k].name);
        e->qty = (size_t)qty;
        e->type = type;
        e->own_type = own;
        e->used = 1;
        if (add_item("MAM_Init", d[k].name, buf, (size_t)qty, type, rep, con) != 0) return -1;
        if (!rep) EMPI_Set_buffer_rows(d[k].name, count);
    }
    return 0;
}

void mam_data_give_buffers(void)
{
    for (int i = 0; i < reg_count(); i++) {
        struct reg_item *it = reg_at(i);
        if (strncmp(it->d.name, "MaM/", 4) == 0) it->owned = 0;
    }
}

void mam_data_free(void)
{
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++) {
            struct mam_registry *R = &MS.reg[r][c];
            for (size_t i = 0; i < R->n; i++) {
                struct mam_entry *e = &R->e[i];
                if (!e->used) continue;
                if (!ductile_constant_pending()) EMPI_Deregister_shared(e->name);
                if (e->own_type) MPI_Type_free(&e->type);
            }
            free(R->e);
            memset(R, 0, sizeof *R);
        }
}
