/* store_row.c — each SQL table as one table of columns {name, type, offset in its row struct}
 * (engine/caplog.c's server_arg_table is the model): the INSERT's column list and placeholders,
 * its binds and every SELECT's reads come from the same rows, so no column position is matched
 * to a statement by hand. A run's knobs are one record (store_record_*, through the knob rows
 * table), its server args a text: both kept once in run_texts (TEXTS_COL). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

#define COL(s, name, type)                                                                                             \
    {                                                                                                                  \
#name, STORE_COL_##type, offsetof(s, name), NULL, false, false                                                 \
    }
/* A key column: a record row leaves it out. */
#define KEY_COL(s, name, type)                                                                                         \
    {                                                                                                                  \
#name, STORE_COL_##type, offsetof(s, name), NULL, true, false                                                  \
    }
/* A column whose value lives in run_texts: the table's column (SQL name) holds its id. */
#define TEXTS_COL(s, sql_name, field, type)                                                                            \
    {                                                                                                                  \
#sql_name, STORE_COL_##type, offsetof(s, field), NULL, false, true                                             \
    }
#define TABLE(name, cols) (name), (cols), (int)(sizeof(cols) / sizeof(cols)[0])

#define R(name, type) COL(store_run_row, name, type)
static const store_column run_columns[] = {
    R(id, POS),
    R(source, TEXT),
    R(path, TEXT),
    R(content_hash, KEY), /* "" until the commit sets it */
    R(file_run, INT),
    R(label, TEXT),
    R(model, TEXT),
    R(model_origin, TEXT),
    R(model_path, TEXT),
    R(gpu_inferred, BOOL),
    R(preset, TEXT),
    R(reconstructed, BOOL),
    {"created_at", STORE_COL_TEXT, offsetof(store_run_row, created_at), "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')", false,
     false},
    R(first_line, POS),
    R(last_line, POS),
    R(lines, INT),
    R(unknown_lines, INT),
    R(truncated_lines, INT),
    R(malformed_lines, INT),
    TEXTS_COL(store_run_row, server_args_text, server_args_raw, TEXT),
    R(attention_backend, TEXT),
    R(a2a, TEXT),
    R(target_group, NONNEG),
    R(static_gib, REAL),
    R(largest_gib, REAL),
    R(buckets_gib, REAL),
    R(target_total_gib, REAL),
    R(draft_gib, REAL),
    R(total_gib, REAL),
    TEXTS_COL(store_run_row, knobs_text, knobs, BLOB),
    R(detail, BLOB),
};
#undef R
/* Every column and each knob's two at most: store_row_values never writes past its room. */
_Static_assert(sizeof run_columns / sizeof run_columns[0] + 2 * KNOB_COUNT <= STORE_MAX_VALUES,
               "STORE_MAX_VALUES is too small for the runs table");
const store_table store_runs_table = {TABLE("runs", run_columns), true, offsetof(store_run_row, knob),
                                      offsetof(store_run_row, knob_origin)};

/* The columns a listing reads (store_run_summary and the knobs): a third of the row, and no
 * server args or detail record to step over per run. */
#define R(name, type) COL(store_run_row, name, type)
static const store_column run_summary_columns[] = {
    R(id, POS),
    R(source, TEXT),
    R(label, TEXT),
    R(model, TEXT),
    R(gpu_inferred, BOOL),
    R(reconstructed, BOOL),
    R(created_at, TEXT),
    R(static_gib, REAL),
    R(largest_gib, REAL),
    R(buckets_gib, REAL),
    R(target_total_gib, REAL),
    R(draft_gib, REAL),
    R(total_gib, REAL),
    TEXTS_COL(store_run_row, knobs_text, knobs, BLOB),
};
#undef R
const store_table store_run_summary_table = {TABLE("runs", run_summary_columns), true, offsetof(store_run_row, knob),
                                             offsetof(store_run_row, knob_origin)};

#define G(name, type) COL(store_group_row, name, type)
#define GK(name, type) KEY_COL(store_group_row, name, type)
/* A new column goes last: an older cgplan's record has fewer values, which read as NULL. */
static const store_column group_columns[] = {
    GK(id, POS),
    GK(run_id, INT),
    G(ordinal, INT),
    G(kind, TEXT),
    G(role, TEXT),
    G(phase, TEXT),
    G(step, NONNEG),
    G(rank_label, TEXT),
    G(first_line, POS),
    G(begin_avail_gib, REAL),
    G(tokens_per_req, NONNEG),
    G(sizes_are_num_tokens, BOOL),
    G(sizes, TEXT),
    G(bar_total, POS),
    G(captured, BOOL),
    G(has_begin, BOOL),
    G(has_end, BOOL),
    G(end_elapsed_s, REAL),
    G(end_usage_gib, REAL),
    G(end_avail_gib, REAL),
    G(failed, BOOL),
    G(failure, TEXT),
    G(static_gib, REAL),
    G(largest_gib, REAL),
    G(buckets_gib, REAL),
    G(total_gib, REAL),
    G(registered_addresses, NONNEG),
};
#undef GK
#undef G
const store_table store_groups_table = {TABLE("groups", group_columns), false, 0, 0};

#define B(name, type) COL(store_bar_row, name, type)
#define BK(name, type) KEY_COL(store_bar_row, name, type)
static const store_column bar_columns[] = {
    BK(group_id, INT),  B(ordinal, INT),    B(size, POS),           B(position, NONNEG),
    B(counter, NONNEG), B(avail_gib, REAL), B(increment_gib, REAL),
};
#undef BK
#undef B
const store_table store_bars_table = {TABLE("bars", bar_columns), false, 0, 0};

#define K(name, type) COL(store_rank_row, name, type)
static const store_column rank_columns[] = {
    KEY_COL(store_rank_row, run_id, INT),
    K(ordinal, INT),
    K(label, KEY),
    K(tp, INT),
    K(weights_begin_avail_gib, REAL),
    K(weights_end_avail_gib, REAL),
    K(weights_usage_gib, REAL),
    K(kv_tokens, NONNEG),
    K(kv_gib, REAL),
    K(state_gib, REAL),
    K(pool_avail_gib, REAL),
    K(max_total_num_tokens, NONNEG),
    K(available_gpu_mem_gib, REAL),
};
#undef K
const store_table store_ranks_table = {TABLE("ranks", rank_columns), false, 0, 0};

#define E(name, type) COL(store_env_row, name, type)
#define EK(name, type) KEY_COL(store_env_row, name, type)
static const store_column env_columns[] = {EK(run_id, INT), E(ordinal, INT), E(key, KEY), E(value, KEY)};
#undef EK
#undef E
const store_table store_env_table = {TABLE("env", env_columns), false, 0, 0};

#define N(name, type) COL(store_knob_row, name, type)
static const store_column knob_row_columns[] = {N(knob, KEY), N(value, KEY), N(origin, KEY)};
#undef N
const store_table store_knob_rows_table = {TABLE("knobs", knob_row_columns), false, 0, 0};

#define M(name, type) COL(store_term_row, name, type)
static const store_column term_columns[] = {M(run_id, INT), M(term, KEY), M(method, KEY), M(bytes, INT),
                                            M(size, POS)};
#undef M
const store_table store_measured_terms_table = {TABLE("measured_terms", term_columns), false, 0, 0};

#define G(name, type) COL(store_gpu_calibration_row, name, type)
static const store_column gpu_calibration_columns[] = {
    G(id, POS),
    G(gpu, KEY),
    G(sglang, TEXT),
    {"created_at", STORE_COL_TEXT, offsetof(store_gpu_calibration_row, created_at),
     "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')", false, false},
    G(node_bytes, INT),
    G(node_bytes_low, INT),
    G(node_bytes_high, INT),
    G(n_runs, INT),
    G(runs, KEY),
    G(run_releases, TEXT),
    G(run_models, TEXT),
    G(report, TEXT),
};
#undef G
const store_table store_gpu_calibrations_table = {TABLE("gpu_calibrations", gpu_calibration_columns), false, 0, 0};

static bool column_knob(int k)
{
    return engine_knobs[k].store == KNOB_STORE_COLUMN;
}

/* The column list of an INSERT, or with READ that of a SELECT (a run_texts column read through
 * its id). */
static size_t columns_text(const store_table *t, bool read, char *buf, size_t len, size_t used)
{
    for (int i = 0; i < t->n_cols && used < len; i++) {
        const char *name = t->cols[i].name, *sep = i ? ", " : "";
        if (read && t->cols[i].in_texts)
            used += (size_t)snprintf(buf + used, len - used, "%s(SELECT body FROM run_texts WHERE id = %s.%s)", sep,
                                     t->name, name);
        else
            used += (size_t)snprintf(buf + used, len - used, "%s%s", sep, name);
    }
    for (int k = 0; t->knob_columns && k < KNOB_COUNT && used < len; k++)
        if (column_knob(k))
            used +=
                (size_t)snprintf(buf + used, len - used, ", %s, %s_origin", engine_knobs[k].name, engine_knobs[k].name);
    return used;
}

void store_insert_rows_sql(const store_table *t, int rows, unsigned flags, char *buf, size_t len)
{
    const char *verb = flags & STORE_INSERT_OR_ROLLBACK ? "INSERT OR ROLLBACK" : "INSERT";
    size_t used = (size_t)snprintf(buf, len, "%s INTO %s (", verb, t->name);
    used = columns_text(t, false, buf, len, used);
    used += (size_t)snprintf(buf + used, len > used ? len - used : 0, ") VALUES ");
    int n = t->n_cols;
    for (int k = 0; t->knob_columns && k < KNOB_COUNT; k++)
        n += column_knob(k) ? 2 : 0;
    for (int r = 0; r < rows && used < len; r++) {
        used += (size_t)snprintf(buf + used, len - used, "%s(", r ? ", " : "");
        for (int i = 0; i < n && used < len; i++) {
            const char *dflt = i < t->n_cols && !(flags & STORE_INSERT_NO_DEFAULTS) ? t->cols[i].null_default : NULL;
            int param = r * n + i + 1;
            if (dflt)
                used += (size_t)snprintf(buf + used, len - used, "%scoalesce(?%d, %s)", i ? ", " : "", param, dflt);
            else
                used += (size_t)snprintf(buf + used, len - used, "%s?%d", i ? ", " : "", param);
        }
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, ")");
    }
}

void store_insert_sql(const store_table *t, char *buf, size_t len)
{
    store_insert_rows_sql(t, 1, 0, buf, len);
}

void store_select_sql(const store_table *t, const char *first, const char *tail, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "SELECT %s%s", first ? first : "", first ? ", " : "");
    used = columns_text(t, true, buf, len, used);
    if (used < len)
        snprintf(buf + used, len - used, " FROM %s %s", t->name, tail ? tail : "");
}

static void text_value(store_value *out, const char *v)
{
    out->type = v && *v ? SQLITE_TEXT : SQLITE_NULL;
    out->text = v;
}

int store_row_values(const store_table *t, const void *row, store_value *out)
{
    const char *base = row;
    int i = 0;
    for (; i < t->n_cols; i++) {
        const store_column *c = &t->cols[i];
        const void *p = base + c->offset;
        store_value *v = &out[i];
        int64_t n = c->type == STORE_COL_INT || c->type == STORE_COL_POS || c->type == STORE_COL_NONNEG
                        ? *(const int64_t *)p
                        : 0;
        bool null = (c->type == STORE_COL_POS && n <= 0) || (c->type == STORE_COL_NONNEG && n < 0) ||
                    (c->type == STORE_COL_REAL && !isfinite(*(const double *)p));
        v->type = SQLITE_NULL;
        if (null)
            continue;
        switch (c->type) {
        case STORE_COL_TEXT:
            text_value(v, *(const char *const *)p);
            break;
        case STORE_COL_KEY:
            v->type = SQLITE_TEXT;
            v->text = *(const char *const *)p;
            break;
        case STORE_COL_INT:
        case STORE_COL_POS:
        case STORE_COL_NONNEG:
            v->type = SQLITE_INTEGER;
            v->i = n;
            break;
        case STORE_COL_REAL:
            v->type = SQLITE_FLOAT;
            v->d = *(const double *)p;
            break;
        case STORE_COL_BOOL:
            v->type = SQLITE_INTEGER;
            v->i = *(const bool *)p;
            break;
        case STORE_COL_BLOB: {
            const store_bytes *b = p;
            v->type = b->len ? SQLITE_BLOB : SQLITE_NULL;
            v->text = (const char *)b->p;
            v->len = b->len;
            break;
        }
        }
    }
    const char *const *knob = (const void *)(base + t->knob_offset);
    const char *const *origin = (const void *)(base + t->knob_origin_offset);
    for (int k = 0; t->knob_columns && k < KNOB_COUNT; k++)
        if (column_knob(k)) {
            text_value(&out[i++], knob[k]);
            text_value(&out[i++], origin[k]);
        }
    return i;
}

void store_bind_row(sqlite3_stmt *st, const store_table *t, const void *row)
{
    store_value v[STORE_MAX_VALUES];
    int n = store_row_values(t, row, v);
    for (int i = 0; i < n; i++) {
        if (v[i].type == SQLITE_INTEGER)
            sqlite3_bind_int64(st, i + 1, v[i].i);
        else if (v[i].type == SQLITE_FLOAT)
            sqlite3_bind_double(st, i + 1, v[i].d);
        else if (v[i].type == SQLITE_TEXT)
            sqlite3_bind_text(st, i + 1, v[i].text, -1, SQLITE_TRANSIENT);
        else if (v[i].type == SQLITE_BLOB)
            sqlite3_bind_blob64(st, i + 1, v[i].text, v[i].len, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(st, i + 1);
    }
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : "";
}

void store_read_row(sqlite3_stmt *st, int first, const store_table *t, void *row)
{
    char *base = row;
    int i = 0;
    for (; i < t->n_cols; i++) {
        const store_column *c = &t->cols[i];
        void *p = base + c->offset;
        int col = first + i;
        bool null = sqlite3_column_type(st, col) == SQLITE_NULL;
        switch (c->type) {
        case STORE_COL_TEXT:
        case STORE_COL_KEY:
            *(const char **)p = col_text(st, col);
            break;
        case STORE_COL_INT:
        case STORE_COL_POS:
            *(int64_t *)p = null ? 0 : sqlite3_column_int64(st, col);
            break;
        case STORE_COL_NONNEG:
            *(int64_t *)p = null ? -1 : sqlite3_column_int64(st, col);
            break;
        case STORE_COL_REAL:
            *(double *)p = null ? NAN : sqlite3_column_double(st, col);
            break;
        case STORE_COL_BOOL:
            *(bool *)p = sqlite3_column_int(st, col) != 0;
            break;
        case STORE_COL_BLOB: {
            store_bytes *b = p;
            b->p = sqlite3_column_blob(st, col); /* before sqlite3_column_bytes, as SQLite asks */
            b->len = b->p ? (size_t)sqlite3_column_bytes(st, col) : 0;
            break;
        }
        }
    }
    const char **knob = (void *)(base + t->knob_offset);
    const char **origin = (void *)(base + t->knob_origin_offset);
    for (int k = 0; t->knob_columns && k < KNOB_COUNT; k++) {
        if (column_knob(k)) {
            knob[k] = col_text(st, first + i++);
            origin[k] = col_text(st, first + i++);
        } else {
            knob[k] = origin[k] = NULL;
        }
    }
}

/* ---- Records ---- */

/* Value tags of a record (a stored format: never renumber). From REC_SMALL on, an integer
 * 0 .. 255 - REC_SMALL is the tag itself. */
enum {
    REC_NULL,
    REC_INT,   /* zigzag varint */
    REC_REAL,  /* 8 bytes, IEEE 754, little-endian */
    REC_CENTI, /* a real that is exactly N / 100.0 (the log's "71.23 GB"): N as a zigzag varint */
    REC_TEXT,  /* varint length with the closing NUL, then the bytes and the NUL */
    REC_BLOB,  /* varint length, then the bytes */
    REC_SMALL = 16,
};

/* Columns a record's place implies: a row's own id and the id of the run or group it is in. */
static bool key_column(const store_column *c)
{
    return c->key;
}

void store_record_free(store_record *r)
{
    free(r->p);
    memset(r, 0, sizeof *r);
}

static unsigned char *record_grow(store_record *r, size_t need)
{
    if (r->failed)
        return NULL;
    size_t cap = r->cap ? r->cap : 256;
    while (cap < r->len + need)
        cap *= 2;
    unsigned char *p = realloc(r->p, cap);
    if (!p) {
        r->failed = true;
        return NULL;
    }
    r->p = p;
    r->cap = cap;
    return r->p + r->len;
}

/* Room for NEED more bytes at r->p + r->len, or NULL (r->failed set). Called per value: the
 * common case stays inline. */
static inline unsigned char *record_room(store_record *r, size_t need)
{
    return r->len + need <= r->cap && !r->failed ? r->p + r->len : record_grow(r, need);
}

void store_record_begin(store_record *r)
{
    r->len = 0;
    r->failed = false;
    unsigned char *p = record_room(r, 1);
    if (p) {
        *p = STORE_RECORD_VERSION;
        r->len = 1;
    }
}

void store_record_count(store_record *r, uint64_t n)
{
    unsigned char *p = record_room(r, 10);
    if (p)
        r->len += store_put_varint(p, n);
}

void store_record_append(store_record *r, const store_record *src)
{
    if (src->failed) {
        r->failed = true;
        return;
    }
    size_t n = src->len > 1 ? src->len - 1 : 0;
    unsigned char *p = record_room(r, n);
    if (p && n) {
        memcpy(p, src->p + 1, n);
        r->len += n;
    }
}

/* The hundredths D is exactly, if it is (a finite real, not -0.0, within 2^53 hundredths). */
static bool centi_of(double d, int64_t *n)
{
    if (!(fabs(d) < 9.0e13) || (d == 0 && signbit(d)))
        return false;
    double k = nearbyint(d * 100.0);
    if (k / 100.0 != d)
        return false;
    *n = (int64_t)k;
    return true;
}

/* One value at P: tag and payload. */
static unsigned char *put_int(unsigned char *p, int64_t v)
{
    if (v >= 0 && v <= 255 - REC_SMALL) {
        *p++ = (unsigned char)(REC_SMALL + v);
    } else {
        *p++ = REC_INT;
        p += store_put_varint(p, store_zigzag(v));
    }
    return p;
}

static unsigned char *put_real(unsigned char *p, double d)
{
    int64_t centi;
    if (centi_of(d, &centi)) {
        *p++ = REC_CENTI;
        return p + store_put_varint(p, store_zigzag(centi));
    }
    uint64_t bits;
    memcpy(&bits, &d, 8);
    *p++ = REC_REAL;
    for (int b = 0; b < 8; b++)
        *p++ = (unsigned char)(bits >> (8 * b));
    return p;
}

static unsigned char *put_bytes(unsigned char *p, int tag, const void *v, size_t len)
{
    *p++ = (unsigned char)tag;
    p += store_put_varint(p, len);
    memcpy(p, v, len);
    return p + len;
}

/* ROW's columns straight from the row struct, with store_row_values's NULLs (ingest encodes
 * 28 rows a run: the value array between cost a third of it), in one pass: room for every value
 * but the texts' bytes is made first, a text's when it comes (most rows, the bars, have none). */
void store_record_row(store_record *r, const store_table *t, const void *row)
{
    const char *base = row;
    /* the value count (one byte: a row has fewer than 128 values), then a tag and at most ten
     * bytes of varint a value */
    _Static_assert(STORE_MAX_VALUES < 128, "a record row's value count is one byte");
    size_t bound = 1 + 11 * (size_t)t->n_cols;
    unsigned char *start = record_room(r, bound);
    if (!start)
        return;
    unsigned char *p = start + 1;
    unsigned kept = 0;
    for (int c = 0; c < t->n_cols; c++) {
        const store_column *col = &t->cols[c];
        if (key_column(col))
            continue;
        kept++;
        const void *field = base + col->offset;
        switch (col->type) {
        case STORE_COL_TEXT:
        case STORE_COL_KEY:
        case STORE_COL_BLOB: {
            const void *bytes;
            size_t len;
            if (col->type == STORE_COL_BLOB) {
                const store_bytes *blob = field;
                bytes = blob->len ? blob->p : NULL;
                len = blob->len;
            } else {
                const char *text = *(const char *const *)field;
                if (col->type == STORE_COL_KEY && !text)
                    text = "";
                bytes = text && (*text || col->type == STORE_COL_KEY) ? text : NULL;
                len = bytes ? strlen(text) + 1 : 0;
            }
            if (!bytes) {
                *p++ = REC_NULL;
                break;
            }
            size_t at = (size_t)(p - start);
            bound += len;
            if (!(start = record_room(r, bound)))
                return;
            p = put_bytes(start + at, col->type == STORE_COL_BLOB ? REC_BLOB : REC_TEXT, bytes, len);
            break;
        }
        case STORE_COL_INT:
            p = put_int(p, *(const int64_t *)field);
            break;
        case STORE_COL_POS:
        case STORE_COL_NONNEG: {
            int64_t n = *(const int64_t *)field;
            if (n < 0 || (n == 0 && col->type == STORE_COL_POS))
                *p++ = REC_NULL;
            else
                p = put_int(p, n);
            break;
        }
        case STORE_COL_BOOL:
            p = put_int(p, *(const bool *)field);
            break;
        case STORE_COL_REAL: {
            double d = *(const double *)field;
            if (isfinite(d))
                p = put_real(p, d);
            else
                *p++ = REC_NULL;
            break;
        }
        }
    }
    *start = (unsigned char)kept; /* the varint of a count below 128 */
    r->len += (size_t)(p - start);
}

static bool get_varint(store_record_reader *r, uint64_t *v)
{
    if (store_get_varint(&r->p, r->end, v))
        return true;
    r->bad = true;
    return false;
}

bool store_record_open(store_record_reader *r, store_bytes b)
{
    r->p = b.len ? b.p : NULL; /* empty: p == end == NULL */
    r->end = b.len ? b.p + b.len : NULL;
    r->bad = false;
    if (!b.len)
        return true;
    if (*r->p++ != STORE_RECORD_VERSION)
        r->bad = true;
    return !r->bad;
}

bool store_record_get_count(store_record_reader *r, uint64_t *n)
{
    *n = 0;
    if (r->bad)
        return false;
    if (r->p == r->end && r->p == NULL)
        return true; /* an empty record */
    /* every counted row takes a byte at least: a bigger count is damage, not a huge run */
    if (!get_varint(r, n) || *n > (uint64_t)(r->end - r->p)) {
        *n = 0;
        r->bad = true;
        return false;
    }
    return true;
}

/* One tagged value: its tag in *TAG, an integer or real in *I / *D, a text or blob in *P, *LEN. */
static bool get_value(store_record_reader *r, int *tag, int64_t *i, double *d, const unsigned char **p, size_t *len)
{
    if (r->bad || r->p >= r->end)
        return !(r->bad = true);
    *tag = *r->p++;
    uint64_t u;
    if (*tag >= REC_SMALL) {
        *i = *tag - REC_SMALL;
        *tag = REC_INT;
        return true;
    }
    switch (*tag) {
    case REC_NULL:
        return true;
    case REC_INT:
        if (!get_varint(r, &u))
            return false;
        *i = store_unzigzag(u);
        return true;
    case REC_CENTI:
        if (!get_varint(r, &u))
            return false;
        *d = (double)store_unzigzag(u) / 100.0;
        *tag = REC_REAL;
        return true;
    case REC_REAL: {
        if (r->end - r->p < 8)
            return !(r->bad = true);
        uint64_t bits = 0;
        for (int b = 0; b < 8; b++)
            bits |= (uint64_t)r->p[b] << (8 * b);
        r->p += 8;
        memcpy(d, &bits, 8);
        return true;
    }
    case REC_TEXT:
    case REC_BLOB:
        if (!get_varint(r, &u) || u > (uint64_t)(r->end - r->p) || (*tag == REC_TEXT && (u == 0 || r->p[u - 1])))
            return !(r->bad = true);
        *p = r->p;
        *len = (size_t)u;
        r->p += u;
        return true;
    default:
        return !(r->bad = true);
    }
}

bool store_record_get_row(store_record_reader *r, const store_table *t, void *row)
{
    uint64_t n;
    if (r->bad || r->p == NULL || !get_varint(r, &n))
        return !(r->bad = true);
    char *base = row;
    uint64_t at = 0;
    for (int c = 0; c < t->n_cols; c++) {
        const store_column *col = &t->cols[c];
        if (key_column(col))
            continue;
        int tag = REC_NULL;
        int64_t i = 0;
        double d = 0;
        const unsigned char *p = NULL;
        size_t len = 0;
        if (at++ < n && !get_value(r, &tag, &i, &d, &p, &len))
            return false;
        void *field = base + col->offset;
        bool null = tag == REC_NULL;
        switch (col->type) {
        case STORE_COL_TEXT:
        case STORE_COL_KEY:
            if (!null && tag != REC_TEXT)
                return !(r->bad = true);
            *(const char **)field = null ? "" : (const char *)p;
            break;
        case STORE_COL_INT:
        case STORE_COL_POS:
        case STORE_COL_NONNEG:
        case STORE_COL_BOOL:
            if (!null && tag != REC_INT)
                return !(r->bad = true);
            if (col->type == STORE_COL_BOOL)
                *(bool *)field = !null && i != 0;
            else
                *(int64_t *)field = null ? (col->type == STORE_COL_NONNEG ? -1 : 0) : i;
            break;
        case STORE_COL_REAL:
            if (!null && tag != REC_REAL)
                return !(r->bad = true);
            *(double *)field = null ? NAN : d;
            break;
        case STORE_COL_BLOB:
            if (!null && tag != REC_BLOB)
                return !(r->bad = true);
            ((store_bytes *)field)->p = p;
            ((store_bytes *)field)->len = len;
            break;
        }
    }
    for (; at < n; at++) { /* a newer cgplan's columns */
        int tag;
        int64_t i;
        double d;
        const unsigned char *p;
        size_t len;
        if (!get_value(r, &tag, &i, &d, &p, &len))
            return false;
    }
    return true;
}

bool store_record_done(store_record_reader *r)
{
    if (!r->bad && r->p != r->end)
        r->bad = true;
    return !r->bad;
}

/* The knob named NAME (or its alias). Ingest lists a run's knobs in engine_knobs[] order, so the
 * table is searched from the one after the last found (*NEXT) before it is searched whole: a
 * listing reads seven knobs a run. */
static const engine_knob_info *knob_named(const char *name, int *next)
{
    for (int k = *next; k < KNOB_COUNT; k++)
        if (strcmp(engine_knobs[k].name, name) == 0) {
            *next = k + 1;
            return &engine_knobs[k];
        }
    const engine_knob_info *k = engine_knob_find(name);
    if (k)
        *next = (int)k->id + 1;
    return k;
}

int store_read_knobs(store *s, const store_run_row *row, engine_deployment *values,
                     engine_knob_origin origin[KNOB_COUNT], char *err, size_t errlen)
{
    memset(values, 0, sizeof *values);
    memset(origin, 0, KNOB_COUNT * sizeof origin[0]);
    char why[ENGINE_TEXT_MAX];
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (!column_knob(k) || !row->knob[k] || !row->knob[k][0])
            continue;
        if (engine_run_knob_set_text(values, (engine_knob_id)k, row->knob[k], why, sizeof why) != 0) {
            store_set_err(err, errlen, "%s: run %lld: %s; delete the run (cgplan runs rm) and ingest its log again",
                          s->path, (long long)row->id, why);
            return -1;
        }
        origin[k] = engine_origin_from_name(row->knob_origin[k]);
    }
    store_record_reader rd;
    uint64_t n = 0;
    int next = 0;
    store_record_open(&rd, row->knobs);
    store_record_get_count(&rd, &n);
    for (uint64_t i = 0; i < n; i++) {
        store_knob_row kr;
        if (!store_record_get_row(&rd, &store_knob_rows_table, &kr))
            break;
        const engine_knob_info *k = knob_named(kr.knob, &next);
        if (!k || k->store != KNOB_STORE_ROW)
            continue; /* a knob this cgplan does not have: the rest of the run still reads */
        if (engine_run_knob_set_text(values, k->id, kr.value, why, sizeof why) != 0) {
            store_set_err(err, errlen, "%s: run %lld: %s; delete the run (cgplan runs rm) and ingest its log again",
                          s->path, (long long)row->id, why);
            return -1;
        }
        origin[k->id] = engine_origin_from_name(kr.origin);
    }
    if (!store_record_done(&rd)) {
        store_set_err(err, errlen,
                      "%s: run %lld: its stored knobs are damaged; delete the run (cgplan runs rm %lld) and ingest "
                      "its log again",
                      s->path, (long long)row->id, (long long)row->id);
        return -1;
    }
    return 0;
}
