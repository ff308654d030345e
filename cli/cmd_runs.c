/* cmd_runs.c — `cgplan runs [list | show ID | rm ID]`: the stored runs; `show` puts the measured
 * layers beside the estimate for the run's own knobs, with the error of each layer. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate.h"
#include "jsonw.h"
#include "store_glue.h"
#include "store_terms.h"
#include "text.h"

#define SHOW_MAX_GROUPS CAPLOG_MAX_GROUPS
#define SHOW_MAX_RANKS CAPLOG_MAX_RANKS
#define SHOW_MAX_TERMS (CAPLOG_MAX_HOOK_TERMS + 2) /* the snapshot's terms and the split's two */

/* The hook's snapshot measurement of term KEY, or NULL. */
static const store_measured_term *measured_term(const store_measured_term *m, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(m[i].method, "snapshot") && !strcmp(m[i].term, key))
            return &m[i];
    return NULL;
}

static bool is_engine_term(const char *key)
{
    for (int t = 0; t < TERM_COUNT; t++)
        if (!strcmp(engine_terms[t].key, key))
            return true;
    return false;
}

static double known_or_nan(double v)
{
    return caplog_known(v) ? v : NAN;
}

static void json_u32_or_null(jsonw *w, const char *key, uint32_t v)
{
    if (v)
        jsonw_ku64(w, key, v);
    else
        jsonw_knull(w, key);
}

static void gib_cell(char *buf, size_t len, double v)
{
    if (caplog_known(v))
        snprintf(buf, len, "%.2f", v);
    else
        snprintf(buf, len, "-");
}

/* ---- list ---- */

#define LIST_MODEL_WIDTH 20

/* TEXT in a column of WIDTH (ASCII after cleaning): padded, or cut with "…" (the full name is in
 * runs show). */
static const char *column_text(const char *text, int width, char *buf, size_t len)
{
    int n = (int)strlen(text);
    if (n <= width)
        snprintf(buf, len, "%-*s", width, text);
    else
        snprintf(buf, len, "%.*s\u2026", width - 1, text);
    return buf;
}

typedef struct {
    cli_format format;
    jsonw *w;
    size_t n;
    size_t n_damaged;
    char damaged[256]; /* "4, 6": the first of them, for the closing line */
} list_ctx;

/* A damaged run is listed (what its columns say) and remembered for the line after the list. */
static void note_damaged(list_ctx *c, int64_t id)
{
    size_t used = strlen(c->damaged);
    if (c->n_damaged++ < 8 && used + 24 < sizeof c->damaged)
        snprintf(c->damaged + used, sizeof c->damaged - used, "%s%lld", used ? ", " : "", (long long)id);
    else if (c->n_damaged == 9)
        snprintf(c->damaged + used, sizeof c->damaged - used, ", ...");
}

/* A CSV field of text from the store (a log's names, a file name): cleaned (text.h), quoted
 * where RFC 4180 needs it. */
static void csv_text(const char *raw)
{
    char s[ENGINE_TEXT_MAX * 4];
    engine_text_cleaned(s, sizeof s, raw);
    if (strpbrk(s, ",\"")) {
        putchar('"');
        for (const char *p = s; *p; p++) {
            if (*p == '"')
                putchar('"');
            putchar(*p);
        }
        putchar('"');
    } else {
        fputs(s, stdout);
    }
}

static void csv_num(double v)
{
    if (caplog_known(v))
        printf(",%.2f", v);
    else
        printf(",");
}

static void list_one(const store_run_summary *r, void *ctx_)
{
    list_ctx *c = ctx_;
    c->n++;
    if (r->damaged)
        note_damaged(c, r->id);
    if (c->format == FORMAT_JSON) {
        jsonw *w = c->w;
        jsonw_object_begin(w);
        jsonw_ki64(w, "id", r->id);
        jsonw_kstring(w, "label", r->label[0] ? r->label : NULL);
        jsonw_kstring(w, "source", r->source);
        jsonw_kstring(w, "model", r->model[0] ? r->model : NULL);
        jsonw_kstring(w, "gpu", r->gpu[0] ? r->gpu : NULL);
        jsonw_kbool(w, "gpu_inferred", r->gpu_inferred);
        jsonw_kbool(w, "reconstructed", r->reconstructed);
        jsonw_kstring(w, "created_at", r->created_at);
        json_u32_or_null(w, "world", r->world);
        json_u32_or_null(w, "dp", r->dp);
        json_u32_or_null(w, "dcp", r->dcp);
        json_u32_or_null(w, "max_bs", r->max_bs);
        json_u32_or_null(w, "mtp", r->mtp);
        json_u32_or_null(w, "max_dispatch", r->max_dispatch);
        jsonw_ku64(w, "n_buckets", r->n_buckets);
        jsonw_kdouble(w, "static_gib", known_or_nan(r->static_gib), 2);
        jsonw_kdouble(w, "largest_gib", known_or_nan(r->largest_gib), 2);
        jsonw_kdouble(w, "buckets_gib", known_or_nan(r->buckets_gib), 2);
        jsonw_kdouble(w, "target_total_gib", known_or_nan(r->target_total_gib), 2);
        jsonw_kdouble(w, "draft_gib", known_or_nan(r->draft_gib), 2);
        jsonw_kdouble(w, "total_gib", known_or_nan(r->total_gib), 2);
        jsonw_kstring(w, "calibration_excluded", store_run_calibration_exclusion(r));
        jsonw_kbool(w, "damaged", r->damaged);
        jsonw_object_end(w);
    } else if (c->format == FORMAT_CSV) {
        printf("%lld,", (long long)r->id);
        csv_text(r->label);
        putchar(',');
        csv_text(r->source);
        putchar(',');
        csv_text(r->model);
        putchar(',');
        csv_text(r->gpu);
        printf(",%d,%d,", r->gpu_inferred, r->reconstructed);
        uint32_t v[6] = {r->world, r->dp, r->dcp, r->max_bs, r->mtp, r->max_dispatch};
        for (int i = 0; i < 6; i++)
            if (v[i])
                printf(i ? ",%u" : "%u", v[i]);
            else if (i)
                putchar(',');
        csv_num(r->static_gib);
        csv_num(r->largest_gib);
        csv_num(r->buckets_gib);
        csv_num(r->target_total_gib);
        csv_num(r->draft_gib);
        csv_num(r->total_gib);
        putchar('\n');
    } else {
        char layout[64], gpu[ENGINE_NAME_MAX + 16], max_bs[16] = "?", t[16], d[16], tot[16];
        if (r->damaged) /* its knobs did not read back: no layout to show */
            snprintf(layout, sizeof layout, "DAMAGED");
        else
            cli_run_layout_text(r, layout, sizeof layout);
        cli_gpu_text(r->gpu, r->gpu_inferred, gpu, sizeof gpu);
        if (r->max_bs)
            snprintf(max_bs, sizeof max_bs, "%u", r->max_bs);
        gib_cell(t, sizeof t, r->target_total_gib);
        gib_cell(d, sizeof d, r->draft_gib);
        gib_cell(tot, sizeof tot, r->total_gib);
        char name[ENGINE_TEXT_MAX * 4], model[ENGINE_NAME_MAX * 4], gpu_shown[sizeof gpu * 4];
        engine_text_cleaned(name, sizeof name, r->label[0] ? r->label : r->source);
        engine_text_cleaned(model, sizeof model, r->model[0] ? r->model : "?");
        engine_text_cleaned(gpu_shown, sizeof gpu_shown, gpu);
        char model_cell[sizeof model + 8];
        printf("%5lld  %-40.40s %s %-16.16s %-20.20s %6s %8s %7s %8s\n", (long long)r->id, name,
               column_text(model, LIST_MODEL_WIDTH, model_cell, sizeof model_cell), gpu_shown, layout, max_bs, t, d,
               tot);
    }
}

static int runs_list(const cli_opts *o, store *s)
{
    char err[4096 + 512];
    jsonw w;
    list_ctx c = {.format = o->format, .w = &w};
    if (o->format == FORMAT_JSON) {
        jsonw_init(&w, stdout, true);
        jsonw_object_begin(&w);
        jsonw_key(&w, "runs");
        jsonw_array_begin(&w);
    } else if (o->format == FORMAT_CSV) {
        printf("id,label,source,model,gpu,gpu_inferred,reconstructed,world,dp,dcp,max_bs,mtp,max_dispatch,"
               "static_gib,largest_gib,buckets_gib,target_total_gib,draft_gib,total_gib\n");
    } else {
        printf("%5s  %-40s %-*s %-16s %-20s %6s %8s %7s %8s\n", "id", "label", LIST_MODEL_WIDTH, "model", "gpu",
               "layout", "max_bs", "target", "draft", "total");
    }
    int rc = store_each_run(s, list_one, &c, err, sizeof err);
    if (o->format == FORMAT_JSON) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        fputc('\n', stdout);
    } else if (o->format == FORMAT_TABLE && c.n == 0) {
        printf("(no runs stored in %s)\n", store_path(s));
    }
    if (rc != 0) {
        cli_error("%s", err);
        return EXIT_WORK;
    }
    if (c.n_damaged) { /* after every readable row: one damaged record hides none of the others */
        cli_error("%zu damaged run%s in %s (%s): cgplan runs show ID says what; cgplan runs rm ID, then ingest its "
                  "log again",
                  c.n_damaged, c.n_damaged == 1 ? "" : "s", store_path(s), c.damaged);
        return EXIT_WORK;
    }
    return EXIT_OK;
}

/* ---- show ---- */

enum { L_STATIC, L_LARGEST, L_BUCKETS, L_DRAFT, L_TOTAL, L_N };
static const char *const layer_keys[L_N] = {"static", "largest", "buckets", "draft", "total"};

/* Custom all-reduce's "Registering N cuda graph addresses" (one per all-reduce node it captured)
 * beside what the run's estimate counts: graph_nodes.allreduce (2L + 1 at attention TP > 1) in
 * each of its n_buckets graphs. A difference means the knobs capture other graphs than the log. */
typedef struct {
    int64_t registered;             /* the target group's, -1: not logged */
    uint64_t estimated;             /* per_graph x graphs; with an estimate only */
    uint32_t per_graph, graphs;     /* the estimate's */
    char mismatch[ENGINE_TEXT_MAX]; /* "" when they agree or one is unknown */
} allreduce_count;

static void allreduce_compare(const store_group_info *groups, size_t n_groups, const engine_deployment *d,
                              const engine_estimate *e, bool estimated, allreduce_count *out)
{
    memset(out, 0, sizeof *out);
    out->registered = -1;
    for (size_t i = 0; i < n_groups; i++)
        if (groups[i].is_target)
            out->registered = groups[i].registered_addresses;
    if (!estimated)
        return;
    out->per_graph = e->graph_nodes.allreduce;
    out->graphs = e->n_buckets;
    out->estimated = (uint64_t)out->per_graph * out->graphs;
    if (out->registered < 0 || (uint64_t)out->registered == out->estimated)
        return;
    /* which of the two factors the log's count says is off, when one alone explains it */
    unsigned long long n = (unsigned long long)out->registered;
    char *m = out->mismatch;
    size_t len = sizeof out->mismatch;
    if (!out->per_graph)
        snprintf(m, len,
                 "the knobs give attention TP 1 (no all-reduce) but the log registered %llu: world or dp "
                 "is off",
                 n);
    else if (n % out->per_graph == 0)
        snprintf(m, len, "the log's %llu is %u per graph x %llu graphs, the knobs capture %u: max_bs or buckets is off",
                 n, out->per_graph, n / out->per_graph, out->graphs);
    else if (out->graphs && n % out->graphs == 0 && (n / out->graphs) % 2 == 1)
        snprintf(m, len,
                 "the log's %llu is %llu per graph (2 x %llu layers + 1) x %u graphs, the model has %u layers: the "
                 "model is off",
                 n, n / out->graphs, (n / out->graphs - 1) / 2, out->graphs, d->model.layers);
    else
        snprintf(m, len,
                 "the log's %llu is neither a multiple of %u per graph nor %u graphs x an odd 2L + 1: the knobs "
                 "are off",
                 n, out->per_graph, out->graphs);
}

/* A stored knob for people ("auto", "0.874", "[1, 2, 4]"), "?" when the run does not know it. */
static void knob_text(const store_run_detail *r, int knob, char *buf, size_t len)
{
    if (r->origin[knob])
        engine_knob_text(&r->values, NULL, (engine_knob_id)knob, KNOB_TEXT_DISPLAY, buf, len);
    else
        snprintf(buf, len, "?");
}

/* A store call's status for run ID, said once: 1 no such run, else the store's error.
 * Returns the exit status (EXIT_OK for 0). */
static int run_status(store *s, int rc, int64_t id, const char *cmd, const char *err)
{
    if (rc == 1)
        cli_error("runs %s: no run %lld in %s (cgplan runs list shows the ids)", cmd, (long long)id, store_path(s));
    else if (rc != 0)
        cli_error("%s", err);
    return rc == 0 ? EXIT_OK : EXIT_WORK;
}

static int runs_show(const cli_opts *o, store *s, int64_t id)
{
    char err[4096 + 512];
    static store_run_detail r;
    int rc = store_get_run(s, id, &r, err, sizeof err);
    if (rc != 0)
        return run_status(s, rc, id, "show", err);
    static store_group_info groups[SHOW_MAX_GROUPS];
    static store_rank_info ranks[SHOW_MAX_RANKS];
    size_t n_groups = 0, n_ranks = 0;
    store_run_extra extra;
    if (store_get_run_parts(s, id, groups, SHOW_MAX_GROUPS, &n_groups, ranks, SHOW_MAX_RANKS, &n_ranks, &extra, err,
                            sizeof err) != 0) {
        cli_error("%s", err);
        return EXIT_WORK;
    }
    const store_run_summary *sum = &r.summary;
    static store_measured_term measured_terms[SHOW_MAX_TERMS];
    size_t n_measured = 0;
    if (store_get_measured_terms(s, id, measured_terms, SHOW_MAX_TERMS, &n_measured, err, sizeof err) != 0) {
        cli_error("%s", err);
        return EXIT_WORK;
    }
    const store_measured_term *split_torch = NULL, *split_other = NULL;
    for (size_t i = 0; i < n_measured; i++)
        if (!strcmp(measured_terms[i].method, "split"))
            *(strcmp(measured_terms[i].term, "torch") ? &split_other : &split_torch) = &measured_terms[i];

    /* The estimate for the run's own knobs. */
    preset_catalog *cat = preset_catalog_open();
    static engine_deployment d;
    static engine_estimate e;
    char why[ENGINE_TEXT_MAX * 2] = "";
    bool estimated = cat && cli_run_deployment(cat, &r, &d, why, sizeof why) == 0;
    engine_calibration cal;
    bool calibrated = false;
    if (estimated) {
        int found = store_load_plan_calibration(s, &d, &cal, err, sizeof err); /* the model's and its GPU's */
        if (found < 0) {
            preset_catalog_free(cat);
            cli_error("%s: %s", store_path(s), err);
            return EXIT_WORK;
        }
        calibrated = found > 0;
        calib_estimate_terms(&d, calibrated ? &cal : NULL, &e); /* the pool's static intercept too */
    }
    preset_catalog_free(cat);
    double measured[L_N] = {sum->static_gib, sum->largest_gib, sum->buckets_gib, sum->draft_gib, sum->total_gib};
    /* a run without speculation has no draft layer: 0 measured, not unknown */
    if (!caplog_known(measured[L_DRAFT]) && sum->mtp == 1)
        measured[L_DRAFT] = 0;
    uint64_t estimate[L_N] = {0};
    if (estimated) {
        estimate[L_STATIC] = e.layer_bytes[LAYER_STATIC];
        estimate[L_LARGEST] = e.layer_bytes[LAYER_LARGEST];
        estimate[L_BUCKETS] = e.layer_bytes[LAYER_BUCKETS];
        estimate[L_DRAFT] = e.draft_total_bytes;
        estimate[L_TOTAL] = e.total_bytes;
    }
    const char *excluded = store_run_calibration_exclusion(sum);
    allreduce_count ar;
    allreduce_compare(groups, n_groups, &d, &e, estimated, &ar);

    if (o->format == FORMAT_JSON) {
        jsonw w;
        jsonw_init(&w, stdout, true);
        jsonw_object_begin(&w);
        jsonw_ki64(&w, "id", sum->id);
        jsonw_kstring(&w, "label", sum->label[0] ? sum->label : NULL);
        jsonw_kstring(&w, "source", sum->source);
        jsonw_kstring(&w, "path", extra.path[0] ? extra.path : NULL);
        jsonw_ku64(&w, "first_line", extra.first_line);
        jsonw_ku64(&w, "last_line", extra.last_line);
        jsonw_kstring(&w, "content_hash", extra.content_hash);
        jsonw_kstring(&w, "created_at", sum->created_at);
        jsonw_kbool(&w, "reconstructed", sum->reconstructed);
        jsonw_kstring(&w, "preset", r.preset[0] ? r.preset : NULL);
        jsonw_kstring(&w, "model", sum->model[0] ? sum->model : NULL);
        jsonw_kstring(&w, "model_origin", r.model_origin ? engine_origin_name(r.model_origin) : NULL);
        jsonw_kstring(&w, "model_path", extra.model_path[0] ? extra.model_path : NULL);
        jsonw_kstring(&w, "gpu", sum->gpu[0] ? sum->gpu : NULL);
        jsonw_kbool(&w, "gpu_inferred", sum->gpu_inferred);
        jsonw_key(&w, "knobs");
        jsonw_object_begin(&w);
        for (int k = 0; k < KNOB_COUNT; k++) {
            jsonw_key(&w, engine_knobs[k].name);
            jsonw_object_begin(&w);
            jsonw_key(&w, "value");
            cli_run_knob_json(&w, &r.values, r.origin, (engine_knob_id)k);
            jsonw_kstring(&w, "origin", r.origin[k] ? engine_origin_name(r.origin[k]) : NULL);
            jsonw_object_end(&w);
        }
        jsonw_object_end(&w);
        jsonw_key(&w, "measured");
        jsonw_object_begin(&w);
        for (int l = 0; l < L_N; l++) {
            char key[32];
            snprintf(key, sizeof key, "%s_gib", layer_keys[l]);
            jsonw_kdouble(&w, key, known_or_nan(measured[l]), 2);
        }
        jsonw_kdouble(&w, "target_total_gib", known_or_nan(sum->target_total_gib), 2);
        jsonw_object_end(&w);
        jsonw_key(&w, "estimate");
        if (estimated) {
            jsonw_object_begin(&w);
            jsonw_kstring(&w, "deployment", d.name);
            jsonw_kbool(&w, "calibrated", calibrated);
            for (int l = 0; l < L_N; l++) {
                char key[32];
                snprintf(key, sizeof key, "%s_bytes", layer_keys[l]);
                jsonw_ku64(&w, key, estimate[l]);
            }
            jsonw_object_end(&w);
        } else {
            jsonw_null(&w);
        }
        jsonw_kstring(&w, "estimate_missing", estimated ? NULL : why);
        if (ar.registered >= 0)
            jsonw_ki64(&w, "allreduce_registered", ar.registered);
        else
            jsonw_knull(&w, "allreduce_registered");
        if (estimated)
            jsonw_ku64(&w, "allreduce_estimated", ar.estimated);
        else
            jsonw_knull(&w, "allreduce_estimated");
        jsonw_kstring(&w, "allreduce_mismatch", ar.mismatch[0] ? ar.mismatch : NULL);
        jsonw_key(&w, "error");
        jsonw_object_begin(&w);
        for (int l = 0; l < L_N; l++) {
            jsonw_key(&w, layer_keys[l]);
            if (!estimated || !caplog_known(measured[l])) {
                jsonw_null(&w);
                continue;
            }
            double diff_gib = (double)estimate[l] / (double)ENGINE_GIB - measured[l];
            jsonw_object_begin(&w);
            jsonw_ki64(&w, "bytes", (int64_t)llround(diff_gib * (double)ENGINE_GIB));
            jsonw_kdouble(&w, "gib", diff_gib, 3);
            jsonw_kdouble(&w, "percent", measured[l] != 0 ? 100.0 * diff_gib / measured[l] : NAN, 1);
            jsonw_object_end(&w);
        }
        jsonw_object_end(&w);
        jsonw_kstring(&w, "calibration_excluded", excluded);
        /* the estimate's terms beside what hook/cgplan_capture_hook.py measured of them */
        jsonw_key(&w, "terms");
        jsonw_array_begin(&w);
        for (int t = 0; t < TERM_COUNT; t++) {
            const store_measured_term *m = measured_term(measured_terms, n_measured, engine_terms[t].key);
            bool predicted = estimated && e.terms[t].known;
            if (!m && (!predicted || (engine_terms[t].hide_when_zero && !e.terms[t].bytes)))
                continue;
            jsonw_object_begin(&w);
            jsonw_kstring(&w, "id", engine_terms[t].key);
            jsonw_kstring(&w, "layer", engine_layer_names[engine_terms[t].layer]);
            if (predicted)
                jsonw_ku64(&w, "predicted_bytes", e.terms[t].bytes);
            else
                jsonw_knull(&w, "predicted_bytes");
            if (m)
                jsonw_ki64(&w, "measured_bytes", m->bytes);
            else
                jsonw_knull(&w, "measured_bytes");
            jsonw_object_end(&w);
        }
        for (size_t i = 0; i < n_measured; i++) { /* "unattributed": no term of the estimate */
            const store_measured_term *m = &measured_terms[i];
            if (strcmp(m->method, "snapshot") || is_engine_term(m->term))
                continue;
            jsonw_object_begin(&w);
            jsonw_kstring(&w, "id", m->term);
            jsonw_knull(&w, "layer");
            jsonw_knull(&w, "predicted_bytes");
            jsonw_ki64(&w, "measured_bytes", m->bytes);
            jsonw_object_end(&w);
        }
        jsonw_array_end(&w);
        jsonw_key(&w, "measured_split");
        if (split_torch && split_other) {
            jsonw_object_begin(&w);
            if (split_torch->size)
                jsonw_ku64(&w, "size", split_torch->size);
            else
                jsonw_knull(&w, "size");
            jsonw_ki64(&w, "torch_bytes", split_torch->bytes);
            jsonw_ki64(&w, "non_torch_bytes", split_other->bytes);
            jsonw_object_end(&w);
        } else {
            jsonw_null(&w);
        }
        jsonw_key(&w, "groups");
        jsonw_array_begin(&w);
        for (size_t i = 0; i < n_groups; i++) {
            const store_group_info *g = &groups[i];
            jsonw_object_begin(&w);
            jsonw_kstring(&w, "kind", g->kind[0] ? g->kind : NULL);
            jsonw_kstring(&w, "role", g->role[0] ? g->role : NULL);
            jsonw_kstring(&w, "phase", g->phase[0] ? g->phase : NULL);
            jsonw_kbool(&w, "target", g->is_target);
            char rank[CAPLOG_LABEL_MAX];
            caplog_rank_name(g->rank, rank, sizeof rank); /* CLI.md: "TPn", "" for an untagged log */
            jsonw_kstring(&w, "rank", rank);
            jsonw_kstring(&w, "rank_label", g->rank);
            jsonw_ku64(&w, "n_bs", g->n_sizes);
            jsonw_ku64(&w, "n_bars", g->n_bars);
            jsonw_kdouble(&w, "begin_avail_gib", known_or_nan(g->begin_avail_gib), 2);
            jsonw_kdouble(&w, "end_avail_gib", known_or_nan(g->end_avail_gib), 2);
            jsonw_kdouble(&w, "end_usage_gib", known_or_nan(g->end_usage_gib), 2);
            jsonw_kbool(&w, "failed", g->failed);
            jsonw_kdouble(&w, "static_gib", known_or_nan(g->static_gib), 2);
            jsonw_kdouble(&w, "largest_gib", known_or_nan(g->largest_gib), 2);
            jsonw_kdouble(&w, "buckets_gib", known_or_nan(g->buckets_gib), 2);
            jsonw_kdouble(&w, "total_gib", known_or_nan(g->total_gib), 2);
            if (g->registered_addresses >= 0)
                jsonw_ki64(&w, "registered_addresses", g->registered_addresses);
            else
                jsonw_knull(&w, "registered_addresses");
            jsonw_object_end(&w);
        }
        jsonw_array_end(&w);
        jsonw_key(&w, "ranks");
        jsonw_array_begin(&w);
        for (size_t i = 0; i < n_ranks; i++) {
            const store_rank_info *k = &ranks[i];
            jsonw_object_begin(&w);
            char rank[CAPLOG_LABEL_MAX];
            caplog_rank_name(k->label, rank, sizeof rank);
            jsonw_kstring(&w, "rank", rank);
            jsonw_kstring(&w, "rank_label", k->label);
            jsonw_kdouble(&w, "weights_begin_avail_gib", known_or_nan(k->weights_begin_avail_gib), 2);
            jsonw_kdouble(&w, "weights_usage_gib", known_or_nan(k->weights_usage_gib), 2);
            if (k->kv_tokens >= 0)
                jsonw_ki64(&w, "kv_tokens", k->kv_tokens);
            else
                jsonw_knull(&w, "kv_tokens");
            jsonw_kdouble(&w, "kv_gib", known_or_nan(k->kv_gib), 2);
            jsonw_kdouble(&w, "state_gib", known_or_nan(k->state_gib), 2);
            jsonw_kdouble(&w, "pool_avail_gib", known_or_nan(k->pool_avail_gib), 2);
            jsonw_object_end(&w);
        }
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        fputc('\n', stdout);
        return EXIT_OK;
    }

    /* table */
    char buf[ENGINE_MAX_BUCKETS * 6], gpu[ENGINE_NAME_MAX + 16];
    cli_shown_line("run %lld · %s%s\n", (long long)sum->id, sum->label[0] ? sum->label : sum->source,
                   sum->reconstructed ? " · reconstructed from the article, not a real log" : "");
    /* the hash's kind and its first 12 digits: "xxh3-128:0f3c9a..." */
    const char *digits = strchr(extra.content_hash, ':');
    int hash_shown = digits ? (int)(digits + 1 - extra.content_hash) + 12 : 12;
    cli_shown_line("source   %s:%u-%u (%.*s)%s%s\n", sum->source, extra.first_line, extra.last_line, hash_shown,
                   extra.content_hash, extra.path[0] ? " from " : "", extra.path);
    /* where the model came from, as ingest or runs set recorded it: the log's model_path, --model
     * or runs set, the preset, else said unknown */
    char model_from[ENGINE_NAME_MAX + 64] = "";
    if (!sum->model[0])
        snprintf(model_from, sizeof model_from, " (unknown: cgplan runs set ID model=NAME names it)");
    else if (r.model_origin == ORIGIN_PRESET && r.preset[0])
        snprintf(model_from, sizeof model_from, " (preset %s)", r.preset);
    else if (r.model_origin)
        snprintf(model_from, sizeof model_from, " (%s)", engine_origin_name(r.model_origin));
    if (extra.model_path[0])
        cli_shown_line("model    %s%s (model_path %s)\n", sum->model[0] ? sum->model : "?", model_from, extra.model_path);
    else
        cli_shown_line("model    %s%s\n", sum->model[0] ? sum->model : "?", model_from);
    cli_gpu_text(sum->gpu, sum->gpu_inferred, gpu, sizeof gpu);
    /* cli_gpu_text already says "(inferred)" */
    bool gpu_said = r.origin[KNOB_GPU] && !sum->gpu_inferred;
    cli_shown_line("gpu      %s%s%s%s\n", gpu,
                   gpu_said             ? " ("
                   : r.origin[KNOB_GPU] ? ""
                                        : " (unknown: cgplan runs set ID gpu=NAME names it)",
                   gpu_said ? engine_origin_name(r.origin[KNOB_GPU]) : "", gpu_said ? ")" : "");
    if (r.preset[0]) /* the seeded runs' preset came with the seed, not from --preset */
        cli_shown_line("preset   %s%s\n", r.preset,
                       sum->reconstructed ? " (the seed's: it gives what the article's log does not state)"
                                          : " (--preset at ingest)");
    /* The panel's scalar knobs on one line in the engine's order of application (the layout
     * first), the others where the run knows them; then each list knob on its own line. */
    engine_knob_id shown[KNOB_COUNT];
    engine_knob_apply_order(shown);
    printf("knobs   ");
    for (size_t i = 0; i < KNOB_COUNT; i++) {
        const engine_knob_info *info = &engine_knobs[shown[i]];
        if (info->type == KNOB_TYPE_NAME || info->type == KNOB_TYPE_LIST_OR_AUTO ||
            (shown[i] >= KNOB_PANEL_COUNT && !r.origin[shown[i]]))
            continue;
        knob_text(&r, shown[i], buf, sizeof buf);
        printf(" %s %s%s%s%s", engine_knobs[shown[i]].name, buf, r.origin[shown[i]] ? " (" : "",
               engine_origin_name(r.origin[shown[i]]), r.origin[shown[i]] ? ")" : "");
    }
    printf("\n");
    for (int k = 0; k < KNOB_COUNT; k++) {
        const engine_knob_info *info = &engine_knobs[k];
        if (info->field != KNOB_FIELD_LIST)
            continue;
        knob_text(&r, k, buf, sizeof buf);
        printf("%-8s %u%s%s%s: %s\n", info->name, *(const uint32_t *)((const char *)&r.values + info->count_offset),
               r.origin[k] ? " (" : "", engine_origin_name(r.origin[k]), r.origin[k] ? ")" : "", buf);
    }
    printf("\n");
    if (estimated)
        printf("%-8s %12s %13s %10s %8s   estimate: %s, %s coefficients\n", "layer", "measured GiB", "estimate GiB",
               "error GiB", "error", d.name, calibrated ? "calibrated" : "preset");
    else
        printf("%-8s %12s   (no estimate: %s)\n", "layer", "measured GiB", why);
    for (int l = 0; l < L_N; l++) {
        char m[16];
        gib_cell(m, sizeof m, measured[l]);
        if (!estimated) {
            printf("%-8s %12s\n", layer_keys[l], m);
            continue;
        }
        double est = (double)estimate[l] / (double)ENGINE_GIB;
        if (caplog_known(measured[l])) {
            double diff = est - measured[l];
            char pct[16] = "-";
            if (measured[l] != 0)
                snprintf(pct, sizeof pct, "%+.1f%%", 100.0 * diff / measured[l]);
            printf("%-8s %12s %13.3f %+10.3f %8s\n", layer_keys[l], m, est, diff, pct);
        } else {
            printf("%-8s %12s %13.3f %10s %8s\n", layer_keys[l], m, est, "-", "-");
        }
    }
    if (ar.registered >= 0 && estimated)
        printf("\nall-reduce addresses  logged %lld  estimated %llu (%u per graph x %u graphs)%s%s\n",
               (long long)ar.registered, (unsigned long long)ar.estimated, ar.per_graph, ar.graphs,
               ar.mismatch[0] ? "\n  they differ: " : "", ar.mismatch);
    else if (ar.registered >= 0)
        printf("\nall-reduce addresses  logged %lld  (no estimate)\n", (long long)ar.registered);
    printf("\ncalibration: %s\n", excluded ? excluded : "usable");
    if (n_measured) {
        /* hook/cgplan_capture_hook.py's measurements beside the estimate's terms */
        printf("\nmeasured by the capture hook");
        if (split_torch && split_other) {
            char size[32] = "";
            if (split_torch->size)
                snprintf(size, sizeof size, " (bs %u)", split_torch->size);
            double torch_gib = (double)split_torch->bytes / (double)ENGINE_GIB;
            double other_gib = (double)split_other->bytes / (double)ENGINE_GIB;
            printf(": largest bucket%s torch %.3f GiB, non-torch %.3f GiB (DeepEP/NCCL buffers outside torch's pool)",
                   size, torch_gib, other_gib);
        }
        printf("\n");
        bool header = false;
        for (size_t i = 0; i < n_measured; i++) {
            const store_measured_term *m = &measured_terms[i];
            if (strcmp(m->method, "snapshot"))
                continue;
            if (!header) {
                printf("%-18s %13s %13s\n", "term", "estimate GiB", "measured GiB");
                header = true;
            }
            int t = 0;
            while (t < TERM_COUNT && strcmp(engine_terms[t].key, m->term))
                t++;
            char est[16] = "-";
            if (t < TERM_COUNT && estimated && e.terms[t].known)
                snprintf(est, sizeof est, "%.3f", (double)e.terms[t].bytes / (double)ENGINE_GIB);
            cli_shown_line("%-18s %13s %13.3f\n", m->term, est, (double)m->bytes / (double)ENGINE_GIB);
        }
    }
    if (n_groups) {
        printf("\n%-3s %-22s %-7s %-15s %4s %5s %7s %7s %7s %7s %7s %7s %7s\n", "#", "group", "phase", "rank", "bs",
               "bars", "begin", "end", "usage", "static", "largest", "buckets", "total");
        for (size_t i = 0; i < n_groups; i++) {
            const store_group_info *g = &groups[i];
            char c[7][16];
            gib_cell(c[0], 16, g->begin_avail_gib);
            gib_cell(c[1], 16, g->end_avail_gib);
            gib_cell(c[2], 16, g->end_usage_gib);
            gib_cell(c[3], 16, g->static_gib);
            gib_cell(c[4], 16, g->largest_gib);
            gib_cell(c[5], 16, g->buckets_gib);
            gib_cell(c[6], 16, g->total_gib);
            char kind[64];
            snprintf(kind, sizeof kind, "%s%s%s", g->is_target ? "*" : "", g->kind[0] ? g->kind : "(bars only)",
                     g->failed ? " FAILED" : "");
            cli_shown_line("%-3d %-22.22s %-7s %-15.15s %4u %5u %7s %7s %7s %7s %7s %7s %7s\n", g->ordinal, kind,
                           g->phase[0] ? g->phase : "-", g->rank[0] ? g->rank : "-", g->n_sizes, g->n_bars, c[0], c[1],
                           c[2], c[3], c[4], c[5], c[6]);
            if (g->failed && g->failure[0])
                cli_shown_line("    failure: %s\n", g->failure);
        }
        printf("(* the target group the layers come from)\n");
    }
    return EXIT_OK;
}

/* ---- set: the knobs a log did not show (set-model is `set ID model=M`) ---- */

/* What R still lacks to be pooled, in `runs set` words ("gpu=NAME max_bs=B"), "" when nothing of
 * that kind. */
static void missing_shape(const store_run_summary *r, char *buf, size_t len)
{
    buf[0] = '\0';
    struct {
        bool missing;
        const char *what;
    } need[] = {{!r->model[0], "model=MODEL"}, {!r->gpu[0], "gpu=NAME"}, {!r->world, "tp=N"}, {!r->max_bs, "max_bs=B"}};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (need[i].missing) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s%s", used ? " " : "", need[i].what);
        }
}

/* The model preset named TEXT (or listing TEXT in its hf_names) into NAME; EXIT_USAGE said. */
static int set_model_name(const preset_catalog *cat, const char *cmd, const char *text, char *name, size_t len)
{
    const preset_entry *e = cat ? preset_catalog_find(cat, text, PRESET_MODEL) : NULL;
    if (cat && !e)
        e = preset_match_hf_name(cat, text);
    if (e) {
        snprintf(name, len, "%s", e->name);
        return EXIT_OK;
    }
    cli_error("runs %s: no model preset has the name or Hugging Face id '%s' (cgplan presets lists them; cgplan "
              "model import config.json adds one)",
              cmd, text);
    return EXIT_USAGE;
}

/* `runs set ID KNOB=VALUE...`: each value read as --set reads it (cli_apply_set, the knob
 * table's rules), over the run's own knobs; the knobs set, and those a set moved, are "set". */
static int runs_set(store *s, int64_t id, const char *const *assignments, int n, const char *cmd)
{
    char err[4096 + 512];
    static store_run_detail r;
    bool knobs = false; /* a model alone is set without reading the run: it names a damaged one again */
    for (int i = 0; i < n; i++)
        knobs |= strncmp(assignments[i], "model=", 6) != 0;
    int rc = knobs ? store_get_run(s, id, &r, err, sizeof err) : 0;
    if (rc != 0)
        return run_status(s, rc, id, cmd, err);
    preset_catalog *cat = preset_catalog_open();
    static engine_deployment d; /* the run's knobs over the defaults: the relational rules see them */
    engine_deployment_defaults(&d);
    for (int k = 0; k < KNOB_COUNT; k++)
        if (r.origin[k] && engine_knobs[k].type != KNOB_TYPE_NAME)
            engine_knob_copy(&d, &r.values, (engine_knob_id)k);
    char model[ENGINE_NAME_MAX] = "", said[ENGINE_TEXT_MAX] = "";
    engine_warnings adj = {0};
    rc = EXIT_OK;
    for (int i = 0; i < n && rc == EXIT_OK; i++) {
        const char *eq = strchr(assignments[i], '=');
        if (!eq || eq == assignments[i]) {
            cli_error("runs %s: '%s' is not KNOB=VALUE (cgplan runs set ID tp=4 gpu=h100 model=M)", cmd,
                      assignments[i]);
            rc = EXIT_USAGE;
            break;
        }
        size_t used = strlen(said);
        snprintf(said + used, sizeof said - used, "%s%.*s %s", used ? ", " : "", (int)(eq - assignments[i]),
                 assignments[i], eq + 1);
        if ((size_t)(eq - assignments[i]) == 5 && strncmp(assignments[i], "model", 5) == 0) {
            rc = set_model_name(cat, cmd, eq + 1, model, sizeof model);
            continue;
        }
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(eq - assignments[i]), assignments[i]);
        const engine_knob_info *knob = engine_knob_find(key);
        if ((rc = cli_apply_set(cat, &d, assignments[i], &adj)) != EXIT_OK)
            break;
        engine_knob_copy(&r.values, &d, knob->id);
        r.origin[knob->id] = ORIGIN_SET;
    }
    preset_catalog_free(cat);
    if (rc != EXIT_OK)
        return rc;
    /* a knob the run knew and a later value moved (dp when tp shrinks) is the user's doing too */
    for (int i = 0; i < adj.n; i++)
        for (int k = 0; k < KNOB_COUNT; k++)
            if (r.origin[k] && r.origin[k] != ORIGIN_SET &&
                strstr(adj.items[i].message, engine_knobs[k].name) == adj.items[i].message) {
                engine_knob_copy(&r.values, &d, (engine_knob_id)k);
                r.origin[k] = ORIGIN_SET;
            }
    rc = knobs ? store_set_run_knobs(s, id, &r.values, r.origin, err, sizeof err) : 0;
    if (rc == 0 && model[0])
        rc = store_set_run_model(s, id, model, err, sizeof err);
    if (rc != 0)
        return run_status(s, rc, id, cmd, err);
    if (store_get_run(s, id, &r, err, sizeof err) != 0) {
        cli_error("%s", err);
        return EXIT_WORK;
    }
    char missing[128];
    missing_shape(&r.summary, missing, sizeof missing);
    const char *excluded = store_run_calibration_exclusion(&r.summary);
    char release[ENGINE_RELEASE_TEXT_MAX] = "?";
    if (!excluded) { /* the pool is the run's deployment's: its model, GPU and release */
        preset_catalog *c2 = preset_catalog_open();
        char why[ENGINE_TEXT_MAX * 2];
        if (c2 && cli_run_deployment(c2, &r, &d, why, sizeof why) == 0)
            engine_release_text(&d.knobs.sglang, release, sizeof release);
        preset_catalog_free(c2);
    }
    if (!excluded)
        printf("run %lld: %s (set); cgplan calibrate now pools it (%s on %s, sglang %s)\n", (long long)id, said,
               r.summary.model, r.summary.gpu, release);
    else if (missing[0])
        printf("run %lld: %s (set); not pooled until cgplan runs set %lld %s\n", (long long)id, said, (long long)id,
               missing);
    else
        printf("run %lld: %s (set); still not pooled: %s\n", (long long)id, said, excluded);
    return EXIT_OK;
}

static int parse_id(const char *text, int64_t *id)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || v <= 0 || errno) {
        cli_error("runs: '%s' is not a run id (a positive integer: cgplan runs list shows them)", text);
        return EXIT_USAGE;
    }
    *id = v;
    return EXIT_OK;
}

/* runs rm asks first: on a terminal "y" removes; without a terminal there is nobody to ask, and
 * --yes is the answer a script gives. */
static bool confirm_rm(long long id)
{
    if (!isatty(STDIN_FILENO)) {
        cli_error("runs rm %lld: removing a run asks for confirmation and there is no terminal: add --yes", id);
        return false;
    }
    fprintf(stderr, "remove run %lld from the store? [y/N] ", id);
    char line[16];
    if (!fgets(line, sizeof line, stdin) || (line[0] != 'y' && line[0] != 'Y')) {
        fprintf(stderr, "run %lld kept\n", id);
        return false;
    }
    return true;
}

int cmd_runs(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 2, "runs", OPT_DB | OPT_FORMAT | OPT_YES, &o);
    if (rc)
        return rc;
    const char *sub = o.n_args ? o.args[0] : "list";
    int64_t id = 0;
    if (strcmp(sub, "list") == 0) {
        if (o.n_args > 1) {
            cli_error("runs list: unexpected argument '%s'", o.args[1]);
            return EXIT_USAGE;
        }
    } else if (strcmp(sub, "show") == 0 || strcmp(sub, "rm") == 0) {
        if (o.n_args != 2) {
            cli_error("runs %s: expected one run id (cgplan runs %s ID)", sub, sub);
            return EXIT_USAGE;
        }
        if ((rc = parse_id(o.args[1], &id)) != EXIT_OK)
            return rc;
        if (strcmp(sub, "show") == 0 && o.format == FORMAT_CSV) {
            cli_error("runs show: --format csv is not offered (use table or json)");
            return EXIT_USAGE;
        }
    } else if (strcmp(sub, "set-model") == 0 || strcmp(sub, "set") == 0) {
        bool alias = strcmp(sub, "set-model") == 0;
        if (alias ? o.n_args != 3 : o.n_args < 3) {
            cli_error(alias ? "runs set-model: expected a run id and a model (cgplan runs set-model ID MODEL)"
                            : "runs set: expected a run id and KNOB=VALUE... (cgplan runs set ID tp=4 dp=1 gpu=h100 "
                              "[max_bs=B] [model=M])");
            return EXIT_USAGE;
        }
        if ((rc = parse_id(o.args[1], &id)) != EXIT_OK)
            return rc;
        store *s = cli_open_store(&o, CLI_STORE_READ_WRITE);
        if (!s)
            return EXIT_WORK;
        char model_set[ENGINE_NAME_MAX + 8];
        snprintf(model_set, sizeof model_set, "model=%s", alias ? o.args[2] : "");
        const char *one[1] = {model_set};
        rc = alias ? runs_set(s, id, one, 1, sub) : runs_set(s, id, o.args + 2, o.n_args - 2, sub);
        store_close(s);
        return rc;
    } else {
        cli_error("runs: unknown subcommand '%s' (list, show ID, rm ID, set ID KNOB=VALUE... or set-model ID MODEL)",
                  sub);
        return EXIT_USAGE;
    }
    bool removing = strcmp(sub, "rm") == 0;
    store *s = cli_open_store(&o, removing ? CLI_STORE_READ_WRITE : CLI_STORE_WRITE_IF_POSSIBLE);
    if (!s)
        return EXIT_WORK;
    if (strcmp(sub, "list") == 0)
        rc = runs_list(&o, s);
    else if (!removing)
        rc = runs_show(&o, s, id);
    else if (!o.yes && !confirm_rm(id)) {
        rc = isatty(STDIN_FILENO) ? EXIT_OK : EXIT_USAGE;
    } else {
        char err[4096 + 512];
        int drc = store_delete_run(s, id, err, sizeof err);
        if (drc != 0) {
            rc = run_status(s, drc, id, "rm", err);
        } else {
            /* the calibrations it fed follow it: refitted from the runs left, or dropped */
            char *said = NULL;
            size_t said_len = 0;
            FILE *lines = open_memstream(&said, &said_len);
            if (!lines || cli_calibrate_after_rm(s, id, lines) != 0)
                rc = EXIT_WORK;
            if (lines)
                fclose(lines);
            if (o.format == FORMAT_JSON) {
                jsonw w;
                jsonw_init(&w, stdout, true);
                jsonw_object_begin(&w);
                jsonw_ki64(&w, "removed", id);
                jsonw_key(&w, "calibrations");
                jsonw_array_begin(&w);
                for (char *line = said, *nl; line && *line; line = nl + 1) {
                    nl = strchr(line, '\n');
                    *nl = '\0';
                    jsonw_string(&w, line);
                }
                jsonw_array_end(&w);
                jsonw_object_end(&w);
                fputc('\n', stdout);
            } else {
                printf("removed run %lld\n%s", (long long)id, said ? said : "");
            }
            free(said);
        }
    }
    store_close(s);
    return rc;
}
