/* run_derive.c — a parsed run's model, GPU, knobs and measured layers, from the log first and
 * from what the caller gave (--preset, --set) for what the log does not say. */
#include "run_derive.h"

#include "release.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISPATCH_ENV "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
#define GPU_INFER_WINDOW_GIB 2.0 /* Load weight begin's free memory sits just below cuda_total */

const char *const engine_origin_names[ORIGIN_COUNT] = {"",    "log",      "env",
                                                       "preset", "set", "inferred", "release default"};

const char *engine_origin_name(engine_knob_origin o)
{
    return (unsigned)o < ORIGIN_COUNT ? engine_origin_names[o] : "";
}

engine_knob_origin engine_origin_from_name(const char *text)
{
    for (int i = 1; text && i < ORIGIN_COUNT; i++)
        if (strcmp(text, engine_origin_names[i]) == 0)
            return (engine_knob_origin)i;
    return ORIGIN_UNKNOWN;
}

/* What the log names: its model_path through hf_names, else its architecture class when one
 * model alone has it (a local path like /models/ckpt-7 names nothing). */
static const char *match_model(const caplog_run *run, const engine_run_context *c)
{
    const char *m = NULL;
    if (run->args.model_path.has && c->match_model)
        m = c->match_model(c->match_ctx, run->args.model_path.v);
    if ((!m || !*m) && run->architecture[0] && c->match_architecture)
        m = c->match_architecture(c->match_ctx, run->architecture);
    return m && *m ? m : NULL;
}

const char *engine_run_model_name(const caplog_run *run, const engine_run_context *c, char *buf, size_t len)
{
    const char *m = c->model_set && *c->model_set ? c->model_set : match_model(run, c);
    if (!m && c->model_given && c->given && c->given->model.name[0])
        m = c->given->model.name;
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

/* V's N values in increasing order. A log's lists come sorted, increasing or decreasing, so a
 * run costs a pass, not a qsort. */
static void sort_sizes(uint32_t *v, uint32_t n)
{
    bool up = true, down = true;
    for (uint32_t i = 1; i < n && (up || down); i++) {
        up = up && v[i - 1] <= v[i];
        down = down && v[i - 1] >= v[i];
    }
    if (up)
        return;
    if (down) {
        for (uint32_t i = 0, j = n - 1; i < j; i++, j--) {
            uint32_t t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
        return;
    }
    qsort(v, n, sizeof v[0], cmp_u32);
}

/* The target group (the first target decode/verify group, or a legacy "cuda graph" one) and the
 * layers measured by it and by the draft groups. */
static void derive_layers(const caplog_run *run, engine_run_facts *f)
{
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
}

/* The knobs the log states (MODEL.md "Calibration"). */
static void derive_logged_knobs(const caplog_run *run, engine_run_facts *f)
{
    const caplog_server_args *a = &run->args;
    engine_knobs_state *k = &f->values.knobs;
    const caplog_group *t = f->target_group >= 0 ? &run->groups[f->target_group] : NULL;
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
        sort_sizes(k->buckets, k->n_buckets);
        f->origin[KNOB_BUCKETS] = ORIGIN_LOG;
    } else {
        if (a->cuda_graph_max_bs.has && a->cuda_graph_max_bs.v > 0)
            FROM(KNOB_MAX_BS, max_bs, (uint32_t)a->cuda_graph_max_bs.v, ORIGIN_LOG);
        if (a->cuda_graph_bs.has && a->cuda_graph_bs.n > 0) {
            k->n_buckets = a->cuda_graph_bs.n;
            memcpy(k->buckets, a->cuda_graph_bs.v, a->cuda_graph_bs.n * sizeof a->cuda_graph_bs.v[0]);
            sort_sizes(k->buckets, k->n_buckets);
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
    if (a->swa_full_tokens_ratio.has)
        FROM(KNOB_SWA_RATIO, swa_full_tokens_ratio, a->swa_full_tokens_ratio.v, ORIGIN_LOG);
    if (a->mamba_full_memory_ratio.has)
        FROM(KNOB_MAMBA_RATIO, mamba_full_memory_ratio, a->mamba_full_memory_ratio.v, ORIGIN_LOG);
    if (a->disable_hybrid_swa_memory.has)
        FROM(KNOB_DISABLE_HYBRID_SWA, disable_hybrid_swa_memory, a->disable_hybrid_swa_memory.v, ORIGIN_LOG);
    /* server_args is printed after SGLang's rules ran: a decode server's disable_radix_cache is
     * True there unless --disaggregation-decode-enable-radix-cache kept it; the decode rule is
     * for a print without the field */
    if (a->disable_radix_cache.has) {
        FROM(KNOB_DISABLE_RADIX, disable_radix_cache, a->disable_radix_cache.v, ORIGIN_LOG);
    } else if (a->disaggregation_mode.has && !strcmp(a->disaggregation_mode.v, "decode")) {
        engine_plan_decode_server(&f->values);
        f->origin[KNOB_DISABLE_RADIX] = ORIGIN_LOG;
    }
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
}

/* Still no GPU: the first Load weight begin's free memory sits just below the GPU's total; the
 * smallest GPU within the window wins. GPUs of one total (an H100 SXM and an H100 PCIe) are one
 * to the log: the name that sorts first wins, the base product before its "-pcie" or "-nvl", so
 * the choice does not follow the catalog's order (where '-' sorts before ".yaml"). */
static void infer_gpu(const caplog_run *run, const engine_run_context *c, engine_run_facts *f)
{
    double free_gib = NAN;
    for (uint32_t i = 0; i < run->n_ranks && !caplog_known(free_gib); i++)
        if (run->ranks[i].order == 0 && caplog_known(run->ranks[i].weights_begin_avail_gib))
            free_gib = run->ranks[i].weights_begin_avail_gib;
    for (uint32_t i = 0; i < run->n_ranks && !caplog_known(free_gib); i++)
        free_gib = run->ranks[i].weights_begin_avail_gib;
    if (!caplog_known(free_gib))
        return;
    const engine_gpu_ref *best = NULL;
    for (size_t i = 0; i < c->n_gpus; i++) {
        double total_gib = (double)c->gpus[i].cuda_total_bytes / (double)ENGINE_GIB;
        double gap = total_gib - free_gib;
        if (gap < -0.01 || gap > GPU_INFER_WINDOW_GIB)
            continue;
        if (!best || c->gpus[i].cuda_total_bytes < best->cuda_total_bytes ||
            (c->gpus[i].cuda_total_bytes == best->cuda_total_bytes && strcmp(c->gpus[i].name, best->name) < 0))
            best = &c->gpus[i];
    }
    if (best) {
        engine_copy_text(f->values.gpu.name, sizeof f->values.gpu.name, best->name);
        f->gpu_inferred = true;
        f->origin[KNOB_GPU] = ORIGIN_INFERRED;
    }
}

/* N of the word "TAGn" in a rank label ("DP3 TP3 EP3": TP gives 3), or -1 when the label has no
 * such word. */
static long rank_tag(const char *label, const char *tag)
{
    size_t n = strlen(tag);
    for (const char *p = label; *p; p++) {
        if ((p != label && p[-1] != ' ') || strncmp(p, tag, n) != 0 || !isdigit((unsigned char)p[n]))
            continue;
        char *end;
        long v = strtol(p + n, &end, 10);
        if (*end == '\0' || *end == ' ')
            return v;
    }
    return -1;
}

/* The size of the rank ladder the tags show: N when the ranks that printed a memory line carry
 * TAG0..TAGn-1, none missing (SGLang tags every rank's lines with its global tp_rank and, under
 * DP attention, its dp_rank: python/sglang/srt/managers/scheduler.py run_scheduler_process,
 * configure_logger's prefix). 0 when no such rank carries the tag or a number is missing: an
 * excerpt that kept TP1's KV line and TP0's capture tells no world. */
static uint32_t tagged_count(const caplog_run *run, const char *tag)
{
    enum { MAX_TAGGED = CAPLOG_MAX_RANKS };
    bool seen[MAX_TAGGED] = {false};
    long top = -1;
    for (uint32_t i = 0; i < run->n_ranks; i++) {
        const caplog_rank *r = &run->ranks[i];
        if (!r->has_data)
            continue;
        long v = rank_tag(r->label, tag);
        if (v < 0 || v >= MAX_TAGGED)
            return 0;
        seen[v] = true;
        top = v > top ? v : top;
    }
    for (long v = 0; v <= top; v++)
        if (!seen[v])
            return 0;
    return top >= 0 && run->dropped_rank_lines == 0 ? (uint32_t)top + 1 : 0;
}

/* The capture list of N graphs under the run's release (the bar's "i/N" counts the sizes captured:
 * python/sglang/srt/model_executor/cuda_graph_runner.py CudaGraphRunner.capture's tqdm over
 * capture_bs): the release's own grid
 * (engine_release_capture_list) cut at its N-th size, kept only when the release captures
 * exactly those N at that max_bs. 0 when no max_bs gives N graphs. */
static uint32_t grid_of_count(const engine_deployment *v, uint32_t n, uint32_t *out)
{
    const engine_knobs_state *k = &v->knobs;
    uint32_t mtp = k->mtp ? k->mtp : 1, world = k->world ? k->world : 1, dp = k->dp ? k->dp : 1;
    engine_capture_params p = {
        .max_bs = (uint32_t)engine_knobs[KNOB_MAX_BS].max,
        .speculative = mtp > 1,
        .width = mtp,
        .tp_size = world,
        .dp = dp,
        .attn_tp = world % dp == 0 ? world / dp : 1,
        .max_running_requests = ENGINE_RELEASE_MAX_BS, /* the pool does not clamp: it was not logged */
    };
    static uint32_t full[ENGINE_MAX_BUCKETS];
    size_t total = engine_release_capture_list(&k->sglang, &p, full, ENGINE_MAX_BUCKETS, NULL);
    if (n == 0 || n > total || n > ENGINE_MAX_BUCKETS)
        return 0;
    p.max_bs = full[n - 1];
    size_t got = engine_release_capture_list(&k->sglang, &p, out, ENGINE_MAX_BUCKETS, NULL);
    return got == n && out[n - 1] == p.max_bs ? n : 0;
}

/* What the log shows without stating it (origin "inferred"), for the knobs neither the log nor
 * --preset/--set gave: world and dp from the rank tags, mtp 1 when no line speaks of
 * speculation, max_bs and the buckets from the target capture's bar count and the release's grid
 * (only where the release is known: the grids differ between releases). */
static void infer_shape(const caplog_run *run, engine_run_facts *f)
{
    engine_knobs_state *k = &f->values.knobs;
    uint32_t world = tagged_count(run, "TP"), dp = tagged_count(run, "DP");
    if (!f->origin[KNOB_WORLD] && world) {
        k->world = world;
        f->origin[KNOB_WORLD] = ORIGIN_INFERRED;
    }
    if (!f->origin[KNOB_DP] && dp && f->origin[KNOB_WORLD] && k->world % dp == 0) {
        k->dp = dp;
        f->origin[KNOB_DP] = ORIGIN_INFERRED;
    } else if (!f->origin[KNOB_DP] && !dp && !run->args.present && f->origin[KNOB_WORLD] && world) {
        k->dp = 1; /* tagged ranks without a DP tag: no DP attention */
        f->origin[KNOB_DP] = ORIGIN_INFERRED;
    }
    const caplog_group *t = f->target_group >= 0 ? &run->groups[f->target_group] : NULL;
    if (!f->origin[KNOB_MTP] && t && f->n_draft_groups == 0 && caplog_group_phase(run, t) != CAPLOG_PHASE_VERIFY &&
        !run->args.speculative_algorithm.has) {
        k->mtp = 1;
        f->origin[KNOB_MTP] = ORIGIN_INFERRED;
    }
    uint32_t graphs = t ? (t->n_sizes ? t->n_sizes : t->bar_total) : 0;
    if (!f->origin[KNOB_MAX_BS] && !f->origin[KNOB_BUCKETS] && f->origin[KNOB_SGLANG] && graphs &&
        !t->sizes_are_num_tokens) {
        uint32_t n = grid_of_count(&f->values, graphs, k->buckets);
        if (n) {
            k->n_buckets = n;
            k->buckets_auto = false;
            k->max_bs = k->buckets[n - 1];
            f->origin[KNOB_MAX_BS] = f->origin[KNOB_BUCKETS] = ORIGIN_INFERRED;
        }
    }
}

void engine_run_derive(const caplog_run *run, const engine_run_context *c, engine_run_facts *f)
{
    memset(f, 0, sizeof *f);
    f->target_group = -1;
    f->static_gib = f->largest_gib = f->buckets_gib = NAN;
    f->target_total_gib = f->draft_gib = f->total_gib = NAN;

    const char *model = match_model(run, c);
    if (c->model_set && *c->model_set) { /* said at ingest: it wins over the log's name */
        engine_copy_text(f->model, sizeof f->model, c->model_set);
        f->model_origin = ORIGIN_SET;
    } else if (model) {
        engine_copy_text(f->model, sizeof f->model, model);
        f->model_origin = ORIGIN_LOG;
    } else if (c->model_given && c->given && c->given->model.name[0]) {
        engine_copy_text(f->model, sizeof f->model, c->given->model.name);
        f->model_origin = ORIGIN_PRESET;
    }
    derive_layers(run, f);
    derive_logged_knobs(run, f);

    /* What the log lacks comes from --preset / --set. */
    const engine_deployment *g = c->given;
    for (int knob = 0; g && knob < KNOB_COUNT; knob++) {
        if (f->origin[knob] != ORIGIN_UNKNOWN || c->given_origin[knob] == ORIGIN_UNKNOWN)
            continue;
        f->origin[knob] = c->given_origin[knob];
        engine_knob_copy(&f->values, g, (engine_knob_id)knob);
    }
    if (g && c->model_given) {
        if (!f->has_backend) {
            f->has_backend = true;
            f->backend = g->backend;
        }
        if (!f->has_a2a) {
            f->has_a2a = true;
            f->a2a = g->a2a;
        }
    }
    if (f->values.gpu.name[0] == '\0')
        f->origin[KNOB_GPU] = ORIGIN_UNKNOWN;
    if (f->origin[KNOB_GPU] == ORIGIN_UNKNOWN)
        infer_gpu(run, c, f);
    infer_shape(run, f);
}

/* ---- A stored value back, as stated ---- */


/* Digits only, no sign, no overflow; END gets the first byte after them. */
static bool parse_u64(const char *p, uint64_t *out, const char **end)
{
    if (!isdigit((unsigned char)*p))
        return false;
    errno = 0;
    char *e;
    unsigned long long v = strtoull(p, &e, 10);
    if (errno)
        return false;
    *out = v;
    *end = e;
    return true;
}

int engine_run_knob_set_text(engine_deployment *d, engine_knob_id knob, const char *text, char *err, size_t errlen)
{
    const engine_knob_info *k = &engine_knobs[knob];
    char *base = (char *)d;
    bool autoable = k->type == KNOB_TYPE_INT_OR_AUTO || k->type == KNOB_TYPE_LIST_OR_AUTO || k->autoable;
    if (autoable && strcmp(text, "auto") == 0) {
        engine_knob_set_auto(d, knob);
        return 0;
    }
    uint64_t v;
    const char *end = text;
    switch (k->field) {
    case KNOB_FIELD_U32:
    case KNOB_FIELD_U64:
        if (!parse_u64(text, &v, &end) || *end || (k->field == KNOB_FIELD_U32 && v > UINT32_MAX))
            return engine_fail(err, errlen, "%s='%s': expected an integer%s", k->name, text, autoable ? " or 'auto'" : "");
        if (k->field == KNOB_FIELD_U32)
            *(uint32_t *)(base + k->offset) = (uint32_t)v;
        else
            *(uint64_t *)(base + k->offset) = v;
        break;
    case KNOB_FIELD_DOUBLE: {
        errno = 0;
        char *e;
        double x = strtod(text, &e);
        if (e == text || *e || errno || !isfinite(x))
            return engine_fail(err, errlen, "%s='%s': expected a number", k->name, text);
        *(double *)(base + k->offset) = x;
        break;
    }
    case KNOB_FIELD_LIST: {
        uint32_t *list = (uint32_t *)(base + k->offset), n = 0;
        for (const char *p = text;; p = end + 1) {
            if (!parse_u64(p, &v, &end) || v > UINT32_MAX || (*end && *end != ','))
                return engine_fail(err, errlen, "%s='%s': expected 'auto' or integers separated by commas", k->name, text);
            if (n == ENGINE_MAX_BUCKETS)
                return engine_fail(err, errlen, "%s='%s': more than %d sizes", k->name, text, ENGINE_MAX_BUCKETS);
            list[n++] = (uint32_t)v;
            if (!*end)
                break;
        }
        *(uint32_t *)(base + k->count_offset) = n;
        break;
    }
    case KNOB_FIELD_ENUM:
    case KNOB_FIELD_BOOL:
    case KNOB_FIELD_RELEASE: /* choices and releases have no planner rules to bypass */
        return engine_knob_set_text(d, knob, text, NULL, err, errlen);
    case KNOB_FIELD_NAME:
        if (strlen(text) >= ENGINE_NAME_MAX)
            return engine_fail(err, errlen, "%s='%.32s...': longer than %d bytes", k->name, text, ENGINE_NAME_MAX - 1);
        snprintf(base + k->offset, ENGINE_NAME_MAX, "%s", text);
        break;
    }
    if (autoable)
        *(bool *)(base + k->auto_offset) = false;
    return 0;
}
