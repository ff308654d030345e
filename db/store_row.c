/* store_row.c — each SQL table as one table of columns {name, type, offset in its row struct}
 * (engine/caplog.c's server_arg_table is the model): the INSERT's column list and placeholders,
 * its binds and every SELECT's reads come from the same rows, so no column position is matched
 * to a statement by hand. A run's knobs are rows of run_knobs, written and read through the knob
 * table. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "store_internal.h"

#define COL(s, name, type)                                                                                             \
    {                                                                                                                  \
#name, STORE_COL_##type, offsetof(s, name), NULL                                                               \
    }
#define TABLE(name, cols) (name), (cols), (int)(sizeof(cols) / sizeof(cols)[0])

#define R(name, type) COL(store_run_row, name, type)
static const store_column run_columns[] = {
    R(id, POS),
    R(source, TEXT),
    R(path, TEXT),
    R(sha256, KEY), /* "" until the commit sets it */
    R(file_run, INT),
    R(label, TEXT),
    R(model, TEXT),
    R(model_origin, TEXT),
    R(model_path, TEXT),
    R(gpu_inferred, BOOL),
    R(preset, TEXT),
    R(reconstructed, BOOL),
    {"created_at", STORE_COL_TEXT, offsetof(store_run_row, created_at), "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"},
    R(first_line, POS),
    R(last_line, POS),
    R(lines, INT),
    R(unknown_lines, INT),
    R(truncated_lines, INT),
    R(malformed_lines, INT),
    R(server_args_raw, TEXT),
    R(attention_backend, TEXT),
    R(a2a, TEXT),
    R(target_group, NONNEG),
    R(static_gib, REAL),
    R(largest_gib, REAL),
    R(buckets_gib, REAL),
    R(target_total_gib, REAL),
    R(draft_gib, REAL),
    R(total_gib, REAL),
};
#undef R
/* Every column and each knob's two at most: store_row_values never writes past its room. */
_Static_assert(sizeof run_columns / sizeof run_columns[0] + 2 * KNOB_COUNT <= STORE_MAX_VALUES,
               "STORE_MAX_VALUES is too small for the runs table");
const store_table store_runs_table = {TABLE("runs", run_columns), true, offsetof(store_run_row, knob),
                                      offsetof(store_run_row, knob_origin)};

#define G(name, type) COL(store_group_row, name, type)
static const store_column group_columns[] = {
    G(id, POS),           G(run_id, INT),           G(ordinal, INT),           G(kind, TEXT),
    G(role, TEXT),        G(phase, TEXT),           G(step, NONNEG),           G(rank_label, TEXT),
    G(first_line, POS),   G(begin_avail_gib, REAL), G(tokens_per_req, NONNEG), G(sizes_are_num_tokens, BOOL),
    G(sizes, TEXT),       G(bar_total, POS),        G(captured, BOOL),         G(has_begin, BOOL),
    G(has_end, BOOL),     G(end_elapsed_s, REAL),   G(end_usage_gib, REAL),    G(end_avail_gib, REAL),
    G(failed, BOOL),      G(failure, TEXT),         G(static_gib, REAL),       G(largest_gib, REAL),
    G(buckets_gib, REAL), G(total_gib, REAL),
};
#undef G
const store_table store_groups_table = {TABLE("groups", group_columns), false, 0, 0};

#define B(name, type) COL(store_bar_row, name, type)
static const store_column bar_columns[] = {
    B(group_id, INT),   B(ordinal, INT),    B(size, POS),           B(position, NONNEG),
    B(counter, NONNEG), B(avail_gib, REAL), B(increment_gib, REAL),
};
#undef B
const store_table store_bars_table = {TABLE("bars", bar_columns), false, 0, 0};

#define K(name, type) COL(store_rank_row, name, type)
static const store_column rank_columns[] = {
    K(run_id, INT),
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
static const store_column env_columns[] = {E(run_id, INT), E(ordinal, INT), E(key, KEY), E(value, KEY)};
#undef E
const store_table store_env_table = {TABLE("env", env_columns), false, 0, 0};

#define M(name, type) COL(store_term_row, name, type)
static const store_column term_columns[] = {M(run_id, INT), M(term, KEY), M(method, KEY), M(bytes, INT),
                                            M(size, POS)};
#undef M
const store_table store_measured_terms_table = {TABLE("measured_terms", term_columns), false, 0, 0};

const char store_knobs_select[] = "SELECT knob, value, origin FROM run_knobs WHERE run_id = ?1";

static bool column_knob(int k)
{
    return engine_knobs[k].store == KNOB_STORE_COLUMN;
}

static size_t columns_text(const store_table *t, char *buf, size_t len, size_t used)
{
    for (int i = 0; i < t->n_cols && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", t->cols[i].name);
    for (int k = 0; t->knob_columns && k < KNOB_COUNT && used < len; k++)
        if (column_knob(k))
            used +=
                (size_t)snprintf(buf + used, len - used, ", %s, %s_origin", engine_knobs[k].name, engine_knobs[k].name);
    return used;
}

void store_insert_rows_sql(const store_table *t, int rows, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "INSERT INTO %s (", t->name);
    used = columns_text(t, buf, len, used);
    used += (size_t)snprintf(buf + used, len > used ? len - used : 0, ") VALUES ");
    int n = t->n_cols;
    for (int k = 0; t->knob_columns && k < KNOB_COUNT; k++)
        n += column_knob(k) ? 2 : 0;
    for (int r = 0; r < rows && used < len; r++) {
        used += (size_t)snprintf(buf + used, len - used, "%s(", r ? ", " : "");
        for (int i = 0; i < n && used < len; i++) {
            const char *dflt = i < t->n_cols ? t->cols[i].null_default : NULL;
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
    store_insert_rows_sql(t, 1, buf, len);
}

void store_select_sql(const store_table *t, const char *first, const char *tail, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "SELECT %s%s", first ? first : "", first ? ", " : "");
    used = columns_text(t, buf, len, used);
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

int store_read_knobs(store *s, sqlite3_stmt *knobs, const store_run_row *row, engine_deployment *values,
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
    sqlite3_reset(knobs);
    sqlite3_bind_int64(knobs, 1, row->id);
    int rc;
    while ((rc = sqlite3_step(knobs)) == SQLITE_ROW) {
        const engine_knob_info *k = engine_knob_find(col_text(knobs, 0));
        if (!k || k->store != KNOB_STORE_ROW)
            continue; /* a knob this cgplan does not have: the rest of the run still reads */
        if (engine_run_knob_set_text(values, k->id, col_text(knobs, 1), why, sizeof why) != 0) {
            store_set_err(err, errlen, "%s: run %lld: %s; delete the run (cgplan runs rm) and ingest its log again",
                          s->path, (long long)row->id, why);
            sqlite3_reset(knobs);
            return -1;
        }
        origin[k->id] = engine_origin_from_name(col_text(knobs, 2));
    }
    sqlite3_reset(knobs);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "reading a run's knobs");
        return -1;
    }
    return 0;
}
