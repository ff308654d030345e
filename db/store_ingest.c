/* store_ingest.c — a parsed log into the store: one file, one transaction.
 *
 * The file's bytes go through SHA-256 and the streaming parser together; each run the parser
 * emits is written at once (constant memory whatever the log's size). The content hash is known
 * only at the end: a file already stored is then rolled back and reported as a duplicate. A kill
 * at any moment leaves the store as it was, since nothing is committed before the last byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seed_logs.h"
#include "sha256.h"
#include "store_internal.h"
#include "store_terms.h"

/* ---- Writing ---- */

struct store_ingest {
    store *s;
    store_ingest_opts o;
    caplog_parser *parser;
    store_sha256 sha;
    bool own_transaction, finished, failed;
    char err[4096 + 512];
    sqlite3_stmt *ins_run, *ins_knob, *ins_group, *ins_bar, *ins_rank, *ins_env;
    int64_t *ids;
    uint32_t *first_lines;
    size_t n_ids, cap_ids;
    uint64_t bytes;
    engine_run_facts facts; /* scratch, ~7 KiB: kept off the stack */
    char list[ENGINE_MAX_BUCKETS * 11];
    char knob_text[ENGINE_MAX_BUCKETS * 11];
};

static int prepare(store_ingest *in, sqlite3_stmt **st, const char *sql)
{
    if (sqlite3_prepare_v2(in->s->db, sql, -1, st, NULL) != SQLITE_OK) {
        store_db_err(in->s, in->err, sizeof in->err, "preparing the ingest");
        return -1;
    }
    return 0;
}

static const char *list_text(char *buf, size_t len, const uint32_t *v, uint32_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n && used + 12 < len; i++)
        used += (size_t)snprintf(buf + used, len - used, i ? ",%u" : "%u", v[i]);
    return buf;
}

static bool run_has_content(const caplog_run *run)
{
    if (run->n_groups > 0 || run->args.present)
        return true;
    for (uint32_t i = 0; i < run->n_ranks; i++)
        if (run->ranks[i].has_data)
            return true;
    return false;
}

static int step_done(store_ingest *in, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        store_db_err(in->s, in->err, sizeof in->err, what);
        return -1;
    }
    return 0;
}

static int insert_run(store_ingest *in, const caplog_run *run)
{
    engine_run_facts *f = &in->facts;
    engine_run_derive(run, in->o.derive, f);
    store_run_row row = {
        .source = in->o.source,
        .path = in->o.path,
        .sha256 = "", /* the hash is set at commit */
        .file_run = (int64_t)in->n_ids,
        .label = in->o.label,
        .model = f->model,
        .model_origin = f->model[0] ? engine_origin_name(f->model_origin) : NULL,
        .model_path = run->args.model_path.has ? run->args.model_path.v : NULL,
        .gpu_inferred = f->gpu_inferred,
        .preset = in->o.preset,
        .reconstructed = in->o.reconstructed,
        .first_line = run->first_line,
        .last_line = run->last_line,
        .lines = (int64_t)run->lines,
        .unknown_lines = (int64_t)run->unknown_lines,
        .truncated_lines = (int64_t)run->truncated_lines,
        .malformed_lines = (int64_t)run->malformed_lines,
        .server_args_raw = run->args.present ? run->args.raw : NULL,
        .attention_backend = f->has_backend ? engine_backend_names[f->backend] : NULL,
        .a2a = f->has_a2a ? (f->a2a == A2A_DEEPEP ? "deepep" : "none") : NULL,
        .target_group = f->target_group,
        .static_gib = f->static_gib,
        .largest_gib = f->largest_gib,
        .buckets_gib = f->buckets_gib,
        .target_total_gib = f->target_total_gib,
        .draft_gib = f->draft_gib,
        .total_gib = f->total_gib,
    };
    /* The column knobs (the GPU) go into runs; at most one text buffer is needed per such knob. */
    char column_text[KNOB_COUNT][ENGINE_NAME_MAX];
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (engine_knobs[k].store != KNOB_STORE_COLUMN)
            continue;
        engine_knob_text(&f->values, NULL, (engine_knob_id)k, KNOB_TEXT_CANONICAL, column_text[k],
                         sizeof column_text[k]);
        row.knob[k] = f->origin[k] ? column_text[k] : NULL;
        row.knob_origin[k] = engine_origin_name(f->origin[k]);
    }
    sqlite3_stmt *st = in->ins_run;
    store_bind_row(st, &store_runs_table, &row);
    if (step_done(in, st, "storing a run") != 0)
        return -1;
    int64_t run_id = sqlite3_last_insert_rowid(in->s->db);

    /* Every knob the run knows, as a row: the knob table says which and how. */
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (engine_knobs[k].store != KNOB_STORE_ROW || !f->origin[k])
            continue;
        engine_knob_text(&f->values, NULL, (engine_knob_id)k, KNOB_TEXT_CANONICAL, in->knob_text, sizeof in->knob_text);
        st = in->ins_knob;
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, engine_knobs[k].name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, in->knob_text, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 4, engine_origin_name(f->origin[k]), -1, SQLITE_STATIC);
        if (step_done(in, st, "storing a run's knobs") != 0)
            return -1;
    }

    for (uint32_t gi = 0; gi < run->n_groups; gi++) {
        const caplog_group *g = &run->groups[gi];
        store_group_row gr = {
            .run_id = run_id,
            .ordinal = gi,
            .kind = g->kind,
            .role = caplog_role_names[g->role],
            .phase = caplog_phase_names[caplog_group_phase(run, g)],
            .step = g->step,
            .rank_label = g->rank_label,
            .first_line = g->first_line,
            .begin_avail_gib = g->begin_avail_gib,
            .tokens_per_req = g->tokens_per_req,
            .sizes_are_num_tokens = g->sizes_are_num_tokens,
            .sizes = g->n_sizes ? list_text(in->list, sizeof in->list, g->sizes, g->n_sizes) : NULL,
            .bar_total = g->bar_total,
            .captured = g->captured,
            .has_begin = g->has_begin,
            .has_end = g->has_end,
            .end_elapsed_s = g->end_elapsed_s,
            .end_usage_gib = g->end_usage_gib,
            .end_avail_gib = g->end_avail_gib,
            .failed = g->failed,
            .failure = g->failure,
            .static_gib = g->static_gib,
            .largest_gib = g->largest_gib,
            .buckets_gib = g->buckets_gib,
            .total_gib = g->total_gib,
        };
        st = in->ins_group;
        store_bind_row(st, &store_groups_table, &gr);
        if (step_done(in, st, "storing a group") != 0)
            return -1;
        int64_t group_id = sqlite3_last_insert_rowid(in->s->db);
        for (uint32_t b = 0; b < g->n_bars && b < CAPLOG_MAX_BUCKETS; b++) {
            const caplog_bar *bar = &g->bars[b];
            store_bar_row br = {
                .group_id = group_id,
                .ordinal = b,
                .size = bar->size,
                .position = bar->index,
                .counter = bar->counter,
                .avail_gib = bar->avail_gib,
                .increment_gib = bar->increment_gib,
            };
            st = in->ins_bar;
            store_bind_row(st, &store_bars_table, &br);
            if (step_done(in, st, "storing a bar") != 0)
                return -1;
        }
    }
    for (uint32_t ri = 0; ri < run->n_ranks && ri < CAPLOG_MAX_RANKS; ri++) {
        const caplog_rank *r = &run->ranks[ri];
        store_rank_row rr = {
            .run_id = run_id,
            .ordinal = ri,
            .label = r->label,
            .tp = r->tp,
            .weights_begin_avail_gib = r->weights_begin_avail_gib,
            .weights_end_avail_gib = r->weights_end_avail_gib,
            .weights_usage_gib = r->weights_usage_gib,
            .kv_tokens = r->kv_tokens,
            .kv_gib = r->kv_gib,
            .state_gib = r->state_gib,
            .pool_avail_gib = r->pool_avail_gib,
            .max_total_num_tokens = r->max_total_num_tokens,
            .available_gpu_mem_gib = r->available_gpu_mem_gib,
        };
        st = in->ins_rank;
        store_bind_row(st, &store_ranks_table, &rr);
        if (step_done(in, st, "storing a rank") != 0)
            return -1;
    }
    for (uint32_t ei = 0; ei < run->n_env && ei < CAPLOG_MAX_ENV; ei++) {
        store_env_row er = {.run_id = run_id, .ordinal = ei, .key = run->env[ei].key, .value = run->env[ei].value};
        st = in->ins_env;
        store_bind_row(st, &store_env_table, &er);
        if (step_done(in, st, "storing an environment line") != 0)
            return -1;
    }
    if (store_terms_write(in->s, run_id, run, f->target_group, in->err, sizeof in->err) != 0)
        return -1;
    if (in->n_ids == in->cap_ids) {
        size_t cap = in->cap_ids ? 2 * in->cap_ids : 16;
        int64_t *ids = realloc(in->ids, cap * sizeof *ids);
        if (ids)
            in->ids = ids;
        uint32_t *lines = ids ? realloc(in->first_lines, cap * sizeof *lines) : NULL;
        if (!lines) {
            snprintf(in->err, sizeof in->err, "%s: out of memory", in->s->path);
            return -1;
        }
        in->first_lines = lines;
        in->cap_ids = cap;
    }
    in->first_lines[in->n_ids] = run->first_line;
    in->ids[in->n_ids++] = run_id;
    return 0;
}

static void on_run(const caplog_run *run, void *ctx)
{
    store_ingest *in = ctx;
    if (in->failed || !run_has_content(run))
        return;
    if (insert_run(in, run) != 0)
        in->failed = true;
}

store_ingest *store_ingest_begin(store *s, const store_ingest_opts *o, char *err, size_t errlen)
{
    if (s->read_only) {
        store_set_err(err, errlen, "%s is open read-only", s->path);
        return NULL;
    }
    store_ingest *in = calloc(1, sizeof *in);
    if (!in || !(in->parser = caplog_new())) {
        free(in);
        store_set_err(err, errlen, "%s: out of memory", s->path);
        return NULL;
    }
    in->s = s;
    in->o = *o;
    store_sha256_init(&in->sha);
    caplog_set_callback(in->parser, on_run, in);

    if (!s->in_transaction) {
        if (store_exec(s, "BEGIN IMMEDIATE", err, errlen) != 0) {
            store_ingest_free(in);
            return NULL;
        }
        in->own_transaction = true;
    }
    const store_table *const tables[] = {&store_runs_table, &store_groups_table, &store_bars_table, &store_ranks_table,
                                         &store_env_table};
    sqlite3_stmt **const stmts[] = {&in->ins_run, &in->ins_group, &in->ins_bar, &in->ins_rank, &in->ins_env};
    bool ok =
        prepare(in, &in->ins_knob, "INSERT INTO run_knobs (run_id, knob, value, origin) VALUES (?1, ?2, ?3, ?4)") == 0;
    for (size_t i = 0; ok && i < sizeof tables / sizeof tables[0]; i++) {
        char sql[2048];
        store_insert_sql(tables[i], sql, sizeof sql);
        ok = prepare(in, stmts[i], sql) == 0;
    }
    if (!ok) {
        store_set_err(err, errlen, "%s", in->err);
        store_ingest_free(in);
        return NULL;
    }
    return in;
}

int store_ingest_feed(store_ingest *in, const char *buf, size_t len, char *err, size_t errlen)
{
    if (in->failed || in->finished) {
        store_set_err(err, errlen, "%s", in->err[0] ? in->err : "the ingest is over");
        return -1;
    }
    store_sha256_update(&in->sha, buf, len);
    in->bytes += len;
    caplog_feed(in->parser, buf, len);
    if (in->failed) {
        store_set_err(err, errlen, "%s", in->err);
        return -1;
    }
    return 0;
}

static void rollback(store_ingest *in)
{
    if (in->own_transaction) {
        sqlite3_exec(in->s->db, "ROLLBACK", NULL, NULL, NULL);
        in->own_transaction = false;
    }
}

int store_ingest_finish(store_ingest *in, store_ingest_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (in->finished) {
        store_set_err(err, errlen, "the ingest is over");
        return -1;
    }
    caplog_finish(in->parser);
    in->finished = true;
    res->bytes = in->bytes;
    res->lines = caplog_lines_read(in->parser);
    res->recognised = caplog_recognised(in->parser);
    store_sha256_final_hex(&in->sha, res->sha256);
    if (in->failed) {
        store_set_err(err, errlen, "%s", in->err);
        rollback(in);
        return -1;
    }
    if (!res->recognised || in->n_ids == 0) {
        res->recognised = false;
        rollback(in);
        return 1;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(in->s->db, "SELECT min(id) FROM runs WHERE sha256 = ?1", -1, &st, NULL) != SQLITE_OK)
        goto dberr;
    sqlite3_bind_text(st, 1, res->sha256, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_ROW)
        goto dberr;
    res->duplicate_of = sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    if (res->duplicate_of > 0) {
        if (in->own_transaction) {
            rollback(in);
        } else { /* inside a migration (the seed): undo just this file's rows */
            char sql[128];
            snprintf(sql, sizeof sql, "DELETE FROM runs WHERE sha256 = ''");
            if (store_exec(in->s, sql, err, errlen) != 0)
                return -1;
        }
        in->n_ids = 0;
        return 0;
    }
    if (sqlite3_prepare_v2(in->s->db, "UPDATE runs SET sha256 = ?1 WHERE sha256 = ''", -1, &st, NULL) != SQLITE_OK)
        goto dberr;
    sqlite3_bind_text(st, 1, res->sha256, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto dberr;
    sqlite3_finalize(st);
    st = NULL;
    if (in->own_transaction) {
        if (store_exec(in->s, "COMMIT", err, errlen) != 0) {
            rollback(in);
            return -1;
        }
        in->own_transaction = false;
    }
    res->n_runs = in->n_ids;
    res->run_ids = in->ids;
    res->first_lines = in->first_lines;
    return 0;
dberr:
    store_db_err(in->s, err, errlen, "storing the runs");
    sqlite3_finalize(st);
    rollback(in);
    return -1;
}

void store_ingest_free(store_ingest *in)
{
    if (!in)
        return;
    rollback(in);
    sqlite3_finalize(in->ins_run);
    sqlite3_finalize(in->ins_knob);
    sqlite3_finalize(in->ins_group);
    sqlite3_finalize(in->ins_bar);
    sqlite3_finalize(in->ins_rank);
    sqlite3_finalize(in->ins_env);
    caplog_free(in->parser);
    free(in->ids);
    free(in->first_lines);
    free(in);
}

/* ---- The seed: the article's two runs, each with its deployment preset's knobs ---- */

int store_seed(store *s, store_seed_context_fn fn, void *arg, char *err, size_t errlen)
{
    for (const store_seed_log *seed = store_seed_logs; seed->text; seed++) {
        engine_run_context ctx;
        memset(&ctx, 0, sizeof ctx);
        char why[ENGINE_TEXT_MAX * 2];
        if (fn(arg, seed, &ctx, why, sizeof why) != 0) {
            store_set_err(err, errlen, "%s: seeding the new store: %s", s->path, why);
            return -1;
        }
        store_ingest_opts o = {
            .source = seed->file_name,
            .label = seed->label,
            .preset = seed->preset,
            .reconstructed = true,
            .derive = &ctx,
        };
        store_ingest *in = store_ingest_begin(s, &o, err, errlen);
        store_ingest_result res;
        int rc = 0;
        if (!in || store_ingest_feed(in, seed->text, seed->len, err, errlen) != 0)
            rc = -1;
        else if ((rc = store_ingest_finish(in, &res, err, errlen)) == 1) {
            store_set_err(err, errlen, "%s: seeding the new store: %s holds no run", s->path, seed->file_name);
            rc = -1;
        }
        store_ingest_free(in);
        if (rc != 0)
            return -1;
    }
    return 0;
}
