/* store_ingest.c — a parsed log into the store: one file, one transaction.
 *
 * The file's bytes go through SHA-256 and the streaming parser together; each run the parser
 * emits is written at once (constant memory whatever the log's size). The content hash is known
 * only at the end: a file already stored is then rolled back and reported as a duplicate. A kill
 * at any moment leaves the store as it was, since nothing is committed before the last byte. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seed_logs.h"
#include "sha256.h"
#include "store_internal.h"

#define DISPATCH_ENV "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
#define GPU_INFER_WINDOW_GIB 2.0 /* Load weight begin's free memory sits just below cuda_total */

typedef struct {
    bool loaded;
    int n;
    char name[32][ENGINE_NAME_MAX];
    double total_gib[32];
} gpu_table;

/* The hf_names match of the last model_path seen (a big log repeats one model). */
typedef struct {
    bool valid;
    char model_path[CAPLOG_STR_MAX];
    char model[ENGINE_NAME_MAX];
} model_cache;

static void load_gpu_table(const preset_catalog *cat, gpu_table *t)
{
    t->loaded = true;
    t->n = 0;
    if (!cat)
        return;
    for (size_t i = 0; i < preset_catalog_count(cat) && t->n < 32; i++) {
        const preset_entry *e = preset_catalog_get(cat, i);
        engine_gpu gpu;
        char err[ENGINE_TEXT_MAX];
        if (!e || e->kind != PRESET_GPU || preset_load_gpu(cat, e->name, &gpu, err, sizeof err) != 0)
            continue;
        snprintf(t->name[t->n], ENGINE_NAME_MAX, "%s", gpu.name[0] ? gpu.name : e->name);
        t->total_gib[t->n++] = (double)gpu.cuda_total_bytes / (double)ENGINE_GIB;
    }
}

static const char *match_model(const caplog_run *run, const store_ingest_opts *o, model_cache *cache)
{
    if (!run->args.model_path.has || !o->catalog)
        return NULL;
    if (cache && cache->valid && strcmp(cache->model_path, run->args.model_path.v) == 0)
        return cache->model[0] ? cache->model : NULL;
    const preset_entry *e = preset_match_hf_name(o->catalog, run->args.model_path.v);
    if (cache) {
        cache->valid = true;
        snprintf(cache->model_path, sizeof cache->model_path, "%s", run->args.model_path.v);
        snprintf(cache->model, sizeof cache->model, "%s", e ? e->name : "");
        return cache->model[0] ? cache->model : NULL;
    }
    return e ? e->name : NULL;
}

const char *store_run_model_name(const caplog_run *run, const store_ingest_opts *o, char *buf, size_t len)
{
    const char *m = match_model(run, o, NULL);
    if (!m && o->model_given && o->given && o->given->model.name[0])
        m = o->given->model.name;
    if (!m)
        return NULL;
    snprintf(buf, len, "%s", m);
    return buf;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void derive(const caplog_run *run, const store_ingest_opts *o, gpu_table *gpus, model_cache *models,
                   store_run_facts *f)
{
    memset(f, 0, sizeof *f);
    f->target_group = -1;
    f->static_gib = f->largest_gib = f->buckets_gib = NAN;
    f->target_total_gib = f->draft_gib = f->total_gib = NAN;
    const caplog_server_args *a = &run->args;
    engine_knobs_state *k = &f->knobs;

    const char *model = match_model(run, o, models);
    if (model) {
        snprintf(f->model, sizeof f->model, "%s", model);
        f->model_origin = ORIGIN_LOG;
    } else if (o->model_given && o->given && o->given->model.name[0]) {
        snprintf(f->model, sizeof f->model, "%s", o->given->model.name);
        f->model_origin = ORIGIN_PRESET;
    }

    /* The target: the first target decode/verify group, or a legacy "cuda graph" one. */
    for (uint32_t i = 0; i < run->n_groups && f->target_group < 0; i++) {
        const caplog_group *g = &run->groups[i];
        caplog_phase ph = caplog_group_phase(run, g);
        if ((g->role == CAPLOG_ROLE_TARGET && (ph == CAPLOG_PHASE_DECODE || ph == CAPLOG_PHASE_VERIFY)) ||
            strcmp(g->kind, "cuda graph") == 0)
            f->target_group = (int)i;
    }
    const caplog_group *t = f->target_group >= 0 ? &run->groups[f->target_group] : NULL;
    double draft = 0;
    bool draft_known = false;
    for (uint32_t i = 0; i < run->n_groups; i++) {
        const caplog_group *g = &run->groups[i];
        if (g->role != CAPLOG_ROLE_DRAFT)
            continue;
        f->n_draft_groups++;
        if (caplog_known(g->total_gib)) {
            draft += g->total_gib;
            draft_known = true;
        }
    }
    if (t) {
        f->static_gib = t->static_gib;
        f->largest_gib = t->largest_gib;
        f->buckets_gib = t->buckets_gib;
        f->target_total_gib = t->total_gib;
    }
    f->draft_gib = draft_known ? draft : NAN;
    if (f->n_draft_groups == 0)
        f->total_gib = f->target_total_gib;
    else if (draft_known)
        f->total_gib = f->target_total_gib + draft; /* NaN stays NaN */

        /* Knobs the log states (MODEL.md "Calibration"). */
#define FROM(knob, field, value, org)                                                                                  \
    do {                                                                                                               \
        k->field = (value);                                                                                            \
        f->origin[knob] = (org);                                                                                       \
    } while (0)
    if (a->tp_size.has && a->tp_size.v > 0)
        FROM(KNOB_WORLD, world, (uint32_t)a->tp_size.v, ORIGIN_LOG);
    if (a->present) {
        bool dp_attn = a->enable_dp_attention.has ? a->enable_dp_attention.v : a->dp_size.has;
        uint32_t dp = dp_attn && a->dp_size.has && a->dp_size.v > 0 ? (uint32_t)a->dp_size.v : 1;
        FROM(KNOB_DP, dp, dp, ORIGIN_LOG);
        FROM(KNOB_DCP, dcp, a->dcp_size.has && a->dcp_size.v > 0 ? (uint32_t)a->dcp_size.v : 1, ORIGIN_LOG);
    } else if (a->dcp_size.has && a->dcp_size.v > 0) {
        FROM(KNOB_DCP, dcp, (uint32_t)a->dcp_size.v, ORIGIN_LOG);
    }
    bool captured_list = t && t->n_sizes > 0 && !t->sizes_are_num_tokens;
    if (captured_list) {
        uint32_t max = 0;
        for (uint32_t i = 0; i < t->n_sizes; i++)
            max = t->sizes[i] > max ? t->sizes[i] : max;
        FROM(KNOB_MAX_BS, max_bs, max, ORIGIN_LOG);
        k->n_buckets = t->n_sizes;
        memcpy(k->buckets, t->sizes, t->n_sizes * sizeof t->sizes[0]);
        qsort(k->buckets, k->n_buckets, sizeof k->buckets[0], cmp_u32);
        f->origin[KNOB_BUCKETS] = ORIGIN_LOG;
    } else {
        if (a->cuda_graph_max_bs.has && a->cuda_graph_max_bs.v > 0)
            FROM(KNOB_MAX_BS, max_bs, (uint32_t)a->cuda_graph_max_bs.v, ORIGIN_LOG);
        if (a->cuda_graph_bs.has && a->cuda_graph_bs.n > 0) {
            k->n_buckets = a->cuda_graph_bs.n;
            memcpy(k->buckets, a->cuda_graph_bs.v, a->cuda_graph_bs.n * sizeof a->cuda_graph_bs.v[0]);
            qsort(k->buckets, k->n_buckets, sizeof k->buckets[0], cmp_u32);
            f->origin[KNOB_BUCKETS] = ORIGIN_LOG;
        }
    }
    if (a->speculative_num_draft_tokens.has && a->speculative_num_draft_tokens.v > 0)
        FROM(KNOB_MTP, mtp, (uint32_t)a->speculative_num_draft_tokens.v, ORIGIN_LOG);
    else if (t && t->tokens_per_req > 0 && caplog_group_phase(run, t) == CAPLOG_PHASE_VERIFY)
        FROM(KNOB_MTP, mtp, (uint32_t)t->tokens_per_req, ORIGIN_LOG);
    else if ((a->present && !a->speculative_algorithm.has) ||
             (t && t->role == CAPLOG_ROLE_TARGET && t->phase == CAPLOG_PHASE_DECODE && f->n_draft_groups == 0))
        FROM(KNOB_MTP, mtp, 1, ORIGIN_LOG);
    for (uint32_t i = 0; i < run->n_env; i++) {
        if (strcmp(run->env[i].key, DISPATCH_ENV) != 0)
            continue;
        char *end;
        unsigned long v = strtoul(run->env[i].value, &end, 10);
        if (end != run->env[i].value && *end == '\0' && v > 0 && v <= UINT32_MAX) {
            FROM(KNOB_MAX_DISPATCH, max_dispatch, (uint32_t)v, ORIGIN_ENV);
            k->max_dispatch_auto = false;
        }
    }
    if (a->context_length.has && a->context_length.v > 0)
        FROM(KNOB_CONTEXT_LEN, context_len, (uint64_t)a->context_length.v, ORIGIN_LOG);
    if (a->mem_fraction_static.has && a->mem_fraction_static.v > 0)
        FROM(KNOB_MEM_FRACTION, mem_fraction_static, a->mem_fraction_static.v, ORIGIN_LOG);
#undef FROM
    if (a->attention_backend.has)
        for (int b = 0; b < BACKEND_COUNT; b++)
            if (strcmp(a->attention_backend.v, engine_backend_names[b]) == 0) {
                f->has_backend = true;
                f->backend = (engine_backend)b;
            }
    if (a->moe_a2a_backend.has) {
        f->has_a2a = true;
        f->a2a = strcmp(a->moe_a2a_backend.v, "deepep") == 0 ? A2A_DEEPEP : A2A_NONE;
    }

    /* What the log lacks comes from --preset / --set. */
    const engine_deployment *g = o->given;
    for (int knob = 0; g && knob < KNOB_COUNT; knob++) {
        if (f->origin[knob] != ORIGIN_UNKNOWN || o->given_origin[knob] == ORIGIN_UNKNOWN)
            continue;
        f->origin[knob] = o->given_origin[knob];
        switch ((engine_knob_id)knob) {
        case KNOB_MAX_BS:
            k->max_bs = g->knobs.max_bs;
            break;
        case KNOB_DP:
            k->dp = g->knobs.dp;
            break;
        case KNOB_DCP:
            k->dcp = g->knobs.dcp;
            break;
        case KNOB_MTP:
            k->mtp = g->knobs.mtp;
            break;
        case KNOB_WORLD:
            k->world = g->knobs.world;
            break;
        case KNOB_CONTEXT_LEN:
            k->context_len = g->knobs.context_len;
            break;
        case KNOB_MEM_FRACTION:
            k->mem_fraction_static = g->knobs.mem_fraction_static;
            break;
        case KNOB_MAX_DISPATCH:
            k->max_dispatch = g->knobs.max_dispatch_auto ? 0 : g->knobs.max_dispatch;
            k->max_dispatch_auto = g->knobs.max_dispatch_auto;
            break;
        case KNOB_BUCKETS:
            k->buckets_auto = g->knobs.buckets_auto;
            k->n_buckets = g->knobs.buckets_auto ? 0 : g->knobs.n_buckets;
            memcpy(k->buckets, g->knobs.buckets, k->n_buckets * sizeof k->buckets[0]);
            break;
        case KNOB_GPU:
            snprintf(f->gpu, sizeof f->gpu, "%s", g->gpu.name);
            break;
        default: /* the layout knobs: not stored before schema 2 */
            break;
        }
    }
    if (g && o->preset) {
        if (!f->has_backend) {
            f->has_backend = true;
            f->backend = g->backend;
        }
        if (!f->has_a2a) {
            f->has_a2a = true;
            f->a2a = g->a2a;
        }
    }
    if (f->gpu[0] == '\0')
        f->origin[KNOB_GPU] = ORIGIN_UNKNOWN;

    /* Still no GPU: the first Load weight begin's free memory sits just below the GPU's total. */
    if (f->origin[KNOB_GPU] == ORIGIN_UNKNOWN && o->catalog) {
        double free_gib = NAN;
        for (uint32_t i = 0; i < run->n_ranks && !caplog_known(free_gib); i++)
            if (run->ranks[i].order == 0 && caplog_known(run->ranks[i].weights_begin_avail_gib))
                free_gib = run->ranks[i].weights_begin_avail_gib;
        for (uint32_t i = 0; i < run->n_ranks && !caplog_known(free_gib); i++)
            free_gib = run->ranks[i].weights_begin_avail_gib;
        if (caplog_known(free_gib)) {
            if (!gpus->loaded)
                load_gpu_table(o->catalog, gpus);
            int best = -1;
            for (int i = 0; i < gpus->n; i++) {
                double gap = gpus->total_gib[i] - free_gib;
                if (gap >= -0.01 && gap <= GPU_INFER_WINDOW_GIB &&
                    (best < 0 || gpus->total_gib[i] < gpus->total_gib[best]))
                    best = i;
            }
            if (best >= 0) {
                snprintf(f->gpu, sizeof f->gpu, "%s", gpus->name[best]);
                f->gpu_inferred = true;
                f->origin[KNOB_GPU] = ORIGIN_INFERRED;
            }
        }
    }
}

void store_run_derive(const caplog_run *run, const store_ingest_opts *o, store_run_facts *out)
{
    gpu_table gpus = {0};
    derive(run, o, &gpus, NULL, out);
}

/* ---- Writing ---- */

struct store_ingest {
    store *s;
    store_ingest_opts o;
    caplog_parser *parser;
    store_sha256 sha;
    bool own_transaction, finished, failed;
    char err[4096 + 512];
    sqlite3_stmt *ins_run, *ins_group, *ins_bar, *ins_rank, *ins_env;
    int64_t *ids;
    uint32_t *first_lines;
    size_t n_ids, cap_ids;
    uint64_t bytes;
    gpu_table gpus;
    model_cache models;
    store_run_facts facts; /* scratch, ~4 KiB: kept off the stack */
    char list[ENGINE_MAX_BUCKETS * 11];
};

static const char *const run_cols[] = {
    "source",
    "path",
    "sha256",
    "file_run",
    "label",
    "model",
    "model_origin",
    "model_path",
    "gpu",
    "gpu_origin",
    "gpu_inferred",
    "preset",
    "reconstructed",
    "created_at",
    "first_line",
    "last_line",
    "lines",
    "unknown_lines",
    "truncated_lines",
    "malformed_lines",
    "server_args_raw",
    "world",
    "world_origin",
    "dp",
    "dp_origin",
    "dcp",
    "dcp_origin",
    "max_bs",
    "max_bs_origin",
    "mtp",
    "mtp_origin",
    "max_dispatch",
    "max_dispatch_auto",
    "max_dispatch_origin",
    "context_len",
    "context_len_origin",
    "mem_fraction_static",
    "mem_fraction_static_origin",
    "buckets",
    "buckets_origin",
    "attention_backend",
    "a2a",
    "target_group",
    "static_gib",
    "largest_gib",
    "buckets_gib",
    "target_total_gib",
    "draft_gib",
    "total_gib",
};
#define N_RUN_COLS (int)(sizeof run_cols / sizeof run_cols[0])

static int prepare(store_ingest *in, sqlite3_stmt **st, const char *sql)
{
    if (sqlite3_prepare_v2(in->s->db, sql, -1, st, NULL) != SQLITE_OK) {
        store_db_err(in->s, in->err, sizeof in->err, "preparing the ingest");
        return -1;
    }
    return 0;
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v && *v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}
static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (caplog_known(v) && isfinite(v))
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}
/* V, or NULL when V is not positive (0 means unknown for knobs). */
static void bind_pos(sqlite3_stmt *st, int i, int64_t v)
{
    if (v > 0)
        sqlite3_bind_int64(st, i, v);
    else
        sqlite3_bind_null(st, i);
}
/* V, or NULL when negative (-1 means unknown for counts). */
static void bind_nonneg(sqlite3_stmt *st, int i, int64_t v)
{
    if (v >= 0)
        sqlite3_bind_int64(st, i, v);
    else
        sqlite3_bind_null(st, i);
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
    store_run_facts *f = &in->facts;
    derive(run, &in->o, &in->gpus, &in->models, f);
    const engine_knobs_state *k = &f->knobs;
    sqlite3_stmt *st = in->ins_run;
    int c = 1;
    bind_text(st, c++, in->o.source);
    bind_text(st, c++, in->o.path);
    sqlite3_bind_text(st, c++, "", -1, SQLITE_STATIC); /* the hash is set at commit */
    sqlite3_bind_int64(st, c++, (int64_t)in->n_ids);
    bind_text(st, c++, in->o.label);
    bind_text(st, c++, f->model);
    bind_text(st, c++, f->model[0] ? store_origin_name(f->model_origin) : NULL);
    bind_text(st, c++, run->args.model_path.has ? run->args.model_path.v : NULL);
    bind_text(st, c++, f->gpu);
    bind_text(st, c++, store_origin_name(f->origin[KNOB_GPU]));
    sqlite3_bind_int(st, c++, f->gpu_inferred);
    bind_text(st, c++, in->o.preset);
    sqlite3_bind_int(st, c++, in->o.reconstructed);
    sqlite3_bind_null(st, c++); /* created_at: see the INSERT's default */
    bind_pos(st, c++, run->first_line);
    bind_pos(st, c++, run->last_line);
    sqlite3_bind_int64(st, c++, (int64_t)run->lines);
    sqlite3_bind_int64(st, c++, (int64_t)run->unknown_lines);
    sqlite3_bind_int64(st, c++, (int64_t)run->truncated_lines);
    sqlite3_bind_int64(st, c++, (int64_t)run->malformed_lines);
    bind_text(st, c++, run->args.present ? run->args.raw : NULL);
    static const engine_knob_id ints[5] = {KNOB_WORLD, KNOB_DP, KNOB_DCP, KNOB_MAX_BS, KNOB_MTP};
    const uint32_t values[5] = {k->world, k->dp, k->dcp, k->max_bs, k->mtp};
    for (int i = 0; i < 5; i++) {
        bind_pos(st, c++, f->origin[ints[i]] ? values[i] : 0);
        bind_text(st, c++, store_origin_name(f->origin[ints[i]]));
    }
    bind_pos(st, c++, f->origin[KNOB_MAX_DISPATCH] && !k->max_dispatch_auto ? k->max_dispatch : 0);
    sqlite3_bind_int(st, c++, f->origin[KNOB_MAX_DISPATCH] && k->max_dispatch_auto);
    bind_text(st, c++, store_origin_name(f->origin[KNOB_MAX_DISPATCH]));
    bind_pos(st, c++, f->origin[KNOB_CONTEXT_LEN] ? (int64_t)k->context_len : 0);
    bind_text(st, c++, store_origin_name(f->origin[KNOB_CONTEXT_LEN]));
    bind_real(st, c++, f->origin[KNOB_MEM_FRACTION] ? k->mem_fraction_static : NAN);
    bind_text(st, c++, store_origin_name(f->origin[KNOB_MEM_FRACTION]));
    if (f->origin[KNOB_BUCKETS] && k->buckets_auto)
        bind_text(st, c++, "auto");
    else
        bind_text(st, c++,
                  f->origin[KNOB_BUCKETS] ? list_text(in->list, sizeof in->list, k->buckets, k->n_buckets) : NULL);
    bind_text(st, c++, store_origin_name(f->origin[KNOB_BUCKETS]));
    bind_text(st, c++, f->has_backend ? engine_backend_names[f->backend] : NULL);
    bind_text(st, c++, f->has_a2a ? (f->a2a == A2A_DEEPEP ? "deepep" : "none") : NULL);
    bind_nonneg(st, c++, f->target_group);
    bind_real(st, c++, f->static_gib);
    bind_real(st, c++, f->largest_gib);
    bind_real(st, c++, f->buckets_gib);
    bind_real(st, c++, f->target_total_gib);
    bind_real(st, c++, f->draft_gib);
    bind_real(st, c++, f->total_gib);
    if (step_done(in, st, "storing a run") != 0)
        return -1;
    int64_t run_id = sqlite3_last_insert_rowid(in->s->db);

    for (uint32_t gi = 0; gi < run->n_groups; gi++) {
        const caplog_group *g = &run->groups[gi];
        st = in->ins_group;
        c = 1;
        caplog_phase ph = caplog_group_phase(run, g);
        sqlite3_bind_int64(st, c++, run_id);
        sqlite3_bind_int(st, c++, (int)gi);
        bind_text(st, c++, g->kind);
        bind_text(st, c++, caplog_role_names[g->role]);
        bind_text(st, c++, caplog_phase_names[ph]);
        bind_nonneg(st, c++, g->step);
        bind_text(st, c++, g->rank_label);
        bind_pos(st, c++, g->first_line);
        bind_real(st, c++, g->begin_avail_gib);
        bind_nonneg(st, c++, g->tokens_per_req);
        sqlite3_bind_int(st, c++, g->sizes_are_num_tokens);
        bind_text(st, c++, g->n_sizes ? list_text(in->list, sizeof in->list, g->sizes, g->n_sizes) : NULL);
        bind_pos(st, c++, g->bar_total);
        sqlite3_bind_int(st, c++, g->captured);
        sqlite3_bind_int(st, c++, g->has_begin);
        sqlite3_bind_int(st, c++, g->has_end);
        bind_real(st, c++, g->end_elapsed_s);
        bind_real(st, c++, g->end_usage_gib);
        bind_real(st, c++, g->end_avail_gib);
        sqlite3_bind_int(st, c++, g->failed);
        bind_text(st, c++, g->failure);
        bind_real(st, c++, g->static_gib);
        bind_real(st, c++, g->largest_gib);
        bind_real(st, c++, g->buckets_gib);
        bind_real(st, c++, g->total_gib);
        if (step_done(in, st, "storing a group") != 0)
            return -1;
        int64_t group_id = sqlite3_last_insert_rowid(in->s->db);
        for (uint32_t b = 0; b < g->n_bars && b < CAPLOG_MAX_BUCKETS; b++) {
            const caplog_bar *bar = &g->bars[b];
            st = in->ins_bar;
            sqlite3_bind_int64(st, 1, group_id);
            sqlite3_bind_int(st, 2, (int)b);
            bind_pos(st, 3, bar->size);
            bind_nonneg(st, 4, bar->index);
            bind_nonneg(st, 5, bar->counter);
            bind_real(st, 6, bar->avail_gib);
            bind_real(st, 7, bar->increment_gib);
            if (step_done(in, st, "storing a bar") != 0)
                return -1;
        }
    }
    for (uint32_t ri = 0; ri < run->n_ranks && ri < CAPLOG_MAX_RANKS; ri++) {
        const caplog_rank *r = &run->ranks[ri];
        st = in->ins_rank;
        c = 1;
        sqlite3_bind_int64(st, c++, run_id);
        sqlite3_bind_int(st, c++, (int)ri);
        sqlite3_bind_text(st, c++, r->label, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, c++, r->tp);
        bind_real(st, c++, r->weights_begin_avail_gib);
        bind_real(st, c++, r->weights_end_avail_gib);
        bind_real(st, c++, r->weights_usage_gib);
        bind_nonneg(st, c++, r->kv_tokens);
        bind_real(st, c++, r->kv_gib);
        bind_real(st, c++, r->state_gib);
        bind_real(st, c++, r->pool_avail_gib);
        bind_nonneg(st, c++, r->max_total_num_tokens);
        bind_real(st, c++, r->available_gpu_mem_gib);
        if (step_done(in, st, "storing a rank") != 0)
            return -1;
    }
    for (uint32_t ei = 0; ei < run->n_env && ei < CAPLOG_MAX_ENV; ei++) {
        st = in->ins_env;
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int(st, 2, (int)ei);
        sqlite3_bind_text(st, 3, run->env[ei].key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 4, run->env[ei].value, -1, SQLITE_TRANSIENT);
        if (step_done(in, st, "storing an environment line") != 0)
            return -1;
    }
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

    char sql[2048];
    size_t used = (size_t)snprintf(sql, sizeof sql, "INSERT INTO runs (");
    for (int i = 0; i < N_RUN_COLS; i++)
        used += (size_t)snprintf(sql + used, sizeof sql - used, "%s%s", i ? ", " : "", run_cols[i]);
    used += (size_t)snprintf(sql + used, sizeof sql - used, ") VALUES (");
    for (int i = 0; i < N_RUN_COLS; i++) {
        if (strcmp(run_cols[i], "created_at") == 0) /* ?14 is bound NULL; the time comes from SQLite */
            used +=
                (size_t)snprintf(sql + used, sizeof sql - used,
                                 "%scoalesce(?%d, strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', 'now'))", i ? ", " : "", i + 1);
        else
            used += (size_t)snprintf(sql + used, sizeof sql - used, "%s?%d", i ? ", " : "", i + 1);
    }
    snprintf(sql + used, sizeof sql - used, ")");
    if (!s->in_transaction) {
        if (store_exec(s, "BEGIN IMMEDIATE", err, errlen) != 0) {
            store_ingest_free(in);
            return NULL;
        }
        in->own_transaction = true;
    }
    if (prepare(in, &in->ins_run, sql) != 0 ||
        prepare(
            in, &in->ins_group,
            "INSERT INTO groups (run_id, ordinal, kind, role, phase, step, rank_label, first_line, "
            "begin_avail_gib, tokens_per_req, sizes_are_num_tokens, sizes, bar_total, captured, has_begin, has_end, "
            "end_elapsed_s, end_usage_gib, end_avail_gib, failed, failure, static_gib, largest_gib, buckets_gib, "
            "total_gib) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
            "?19, ?20, ?21, ?22, ?23, ?24, ?25)") != 0 ||
        prepare(in, &in->ins_bar,
                "INSERT INTO bars (group_id, ordinal, size, position, counter, avail_gib, increment_gib) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)") != 0 ||
        prepare(in, &in->ins_rank,
                "INSERT INTO ranks (run_id, ordinal, label, tp, weights_begin_avail_gib, weights_end_avail_gib, "
                "weights_usage_gib, kv_tokens, kv_gib, state_gib, pool_avail_gib, max_total_num_tokens, "
                "available_gpu_mem_gib) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)") != 0 ||
        prepare(in, &in->ins_env, "INSERT INTO env (run_id, ordinal, key, value) VALUES (?1, ?2, ?3, ?4)") != 0) {
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
    sqlite3_finalize(in->ins_group);
    sqlite3_finalize(in->ins_bar);
    sqlite3_finalize(in->ins_rank);
    sqlite3_finalize(in->ins_env);
    caplog_free(in->parser);
    free(in->ids);
    free(in->first_lines);
    free(in);
}

/* ---- The seed: the article's two runs, with their presets' knobs ---- */

int store_seed(store *s, char *err, size_t errlen)
{
    preset_catalog *cat = preset_catalog_open();
    engine_deployment *d = malloc(sizeof *d);
    int rc = 0;
    if (!cat || !d) {
        store_set_err(err, errlen, "%s: out of memory while seeding", s->path);
        rc = -1;
    }
    for (const store_seed_log *seed = store_seed_logs; rc == 0 && seed->text; seed++) {
        char perr[ENGINE_TEXT_MAX * 2];
        if (preset_load_deployment(cat, seed->preset, d, perr, sizeof perr) != 0) {
            store_set_err(err, errlen, "%s: seeding the new store: %s", s->path, perr);
            rc = -1;
            break;
        }
        store_ingest_opts o = {
            .source = seed->file_name,
            .label = seed->label,
            .preset = seed->preset,
            .given = d,
            .model_given = true,
            .reconstructed = true,
            .catalog = cat,
        };
        for (int k = 0; k < KNOB_COUNT; k++)
            o.given_origin[k] = ORIGIN_PRESET;
        store_ingest *in = store_ingest_begin(s, &o, err, errlen);
        store_ingest_result res;
        if (!in || store_ingest_feed(in, seed->text, seed->len, err, errlen) != 0)
            rc = -1;
        else if ((rc = store_ingest_finish(in, &res, err, errlen)) == 1) {
            store_set_err(err, errlen, "%s: seeding the new store: %s holds no run", s->path, seed->file_name);
            rc = -1;
        }
        store_ingest_free(in);
    }
    free(d);
    preset_catalog_free(cat);
    return rc;
}
