/* store_glue.c — opening the store for the commands (seeding a new one from the presets), the
 * presets' side of deriving a run, and the calibration lookup estimate, sweep, launch and the TUI
 * use (never creating a store just to look). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_glue.h"
#include "text.h"

static const char *match_hf_name(void *arg, const char *model_path)
{
    cli_run_presets *p = arg;
    for (unsigned i = 0; i < p->n_model_memos; i++)
        if (strcmp(p->model_memo[i].path, model_path) == 0)
            return p->model_memo[i].model[0] ? p->model_memo[i].model : NULL;
    const preset_entry *e = preset_match_hf_name(p->cat, model_path);
    unsigned slot = p->next_model_memo++ % CLI_MODEL_MEMOS;
    if (p->n_model_memos < CLI_MODEL_MEMOS)
        p->n_model_memos++;
    snprintf(p->model_memo[slot].path, sizeof p->model_memo[slot].path, "%s", model_path);
    snprintf(p->model_memo[slot].model, sizeof p->model_memo[slot].model, "%s", e ? e->name : "");
    return p->model_memo[slot].model[0] ? p->model_memo[slot].model : NULL;
}

/* The model preset whose architecture is ARCH, when exactly one has it. */
static const char *match_arch(void *arg, const char *arch)
{
    cli_run_presets *p = arg;
    if (!p->arch_cached || strcmp(p->cached_arch, arch) != 0) {
        p->arch_cached = true;
        snprintf(p->cached_arch, sizeof p->cached_arch, "%s", arch);
        p->cached_arch_model[0] = '\0';
        int found = 0;
        for (size_t i = 0; p->cat && i < preset_catalog_count(p->cat); i++) {
            const preset_entry *e = preset_catalog_get(p->cat, i);
            engine_model m;
            char err[ENGINE_TEXT_MAX];
            if (!e || e->kind != PRESET_MODEL || preset_load_model(p->cat, e->name, &m, err, sizeof err) != 0)
                continue; /* a broken model preset is reported where it is used */
            if (strcmp(m.architecture, arch) != 0)
                continue;
            if (found++ == 0)
                snprintf(p->cached_arch_model, sizeof p->cached_arch_model, "%s", e->name);
        }
        if (found != 1)
            p->cached_arch_model[0] = '\0'; /* several models share the class: it names none */
    }
    return p->cached_arch_model[0] ? p->cached_arch_model : NULL;
}

void cli_run_context_init(engine_run_context *ctx, cli_run_presets *p, const preset_catalog *cat)
{
    memset(ctx, 0, sizeof *ctx);
    memset(p, 0, sizeof *p);
    p->cat = cat;
    for (size_t i = 0; cat && i < preset_catalog_count(cat) && p->n_gpus < CLI_MAX_GPU_PRESETS; i++) {
        const preset_entry *e = preset_catalog_get(cat, i);
        engine_gpu gpu;
        char err[ENGINE_TEXT_MAX];
        if (!e || e->kind != PRESET_GPU || preset_load_gpu(cat, e->name, &gpu, err, sizeof err) != 0)
            continue; /* a broken GPU preset is reported where it is used, not here */
        snprintf(p->gpu_names[p->n_gpus], ENGINE_NAME_MAX, "%s", gpu.name[0] ? gpu.name : e->name);
        p->gpus[p->n_gpus].name = p->gpu_names[p->n_gpus];
        p->gpus[p->n_gpus++].cuda_total_bytes = gpu.cuda_total_bytes;
    }
    if (cat) {
        ctx->gpus = p->gpus;
        ctx->n_gpus = p->n_gpus;
        ctx->match_model = match_hf_name;
        ctx->match_architecture = match_arch;
        ctx->match_ctx = p;
    }
}

/* The seed's side of the presets: each seed log's deployment preset gives what it lacks. */
typedef struct {
    const preset_catalog *cat;
    preset_catalog *own; /* opened here when the caller had none */
    cli_run_presets presets;
    engine_deployment given;
} cli_seeder;

static int seed_context(void *arg, const store_seed_log *seed, engine_run_context *ctx, char *err, size_t errlen)
{
    cli_seeder *s = arg;
    if (!s->cat && !(s->cat = s->own = preset_catalog_open())) {
        snprintf(err, errlen, "out of memory opening the presets");
        return -1;
    }
    if (preset_load_deployment(s->cat, seed->preset, &s->given, err, errlen) != 0)
        return -1;
    cli_run_context_init(ctx, &s->presets, s->cat);
    ctx->given = &s->given;
    ctx->model_given = true;
    for (int k = 0; k < KNOB_COUNT; k++)
        ctx->given_origin[k] = ORIGIN_PRESET;
    return 0;
}

store *cli_store_open(const preset_catalog *cat, const char *path, store_mode mode, char *err, size_t errlen)
{
    cli_seeder *seeder = calloc(1, sizeof *seeder);
    if (!seeder) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    seeder->cat = cat;
    store *s = store_open_seeded(path, mode, seed_context, seeder, err, errlen);
    preset_catalog_free(seeder->own);
    free(seeder);
    return s;
}

void cli_store_prepare(const char *path)
{
    struct stat st;
    if (!path || (stat(path, &st) == 0 && st.st_size > 0))
        return; /* a file is there: the front end's own open judges it */
    char err[4096 + 512];
    store_close(cli_store_open(NULL, path, STORE_READ_WRITE, err, sizeof err));
}

store *cli_open_store(const cli_opts *o, cli_store_need need)
{
    char buf[4096], err[4096 + 512];
    const char *path = cli_db_path(o, buf, sizeof buf);
    store_mode mode = STORE_READ_WRITE;
    struct stat st;
    if (need == CLI_STORE_WRITE_IF_POSSIBLE && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, W_OK) != 0)
        mode = STORE_READ_ONLY;
    store *s = cli_store_open(NULL, path, mode, err, sizeof err);
    if (!s)
        cli_error("%s", err);
    return s;
}

int cli_find_calibration(const cli_opts *o, const engine_deployment *d, engine_calibration *cal)
{
    char buf[4096], err[4096 + 512];
    const char *path = cli_db_path(o, buf, sizeof buf);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0; /* no store yet: looking must not create one */
    store *s = store_open(path, STORE_READ_ONLY, err, sizeof err);
    if (!s)
        return 0;
    int found = store_load_plan_calibration(s, d, cal, err, sizeof err);
    if (found < 0) /* never an estimate from a number the arithmetic cannot take */
        cli_error("%s: %s", path, err);
    store_close(s);
    return found;
}

const char *cli_run_layout_text(const store_run_summary *r, char *buf, size_t len)
{
    engine_knobs_state k = {.world = r->world, .dp = r->dp, .dcp = r->dcp, .mtp = r->mtp};
    engine_layout_name(&k, LAYOUT_NAME_WITH_MTP, buf, len);
    return buf;
}

const char *cli_gpu_text(const char *gpu, bool inferred, char *buf, size_t len)
{
    if (!gpu || !*gpu)
        snprintf(buf, len, "?");
    else {
        char shown[ENGINE_NAME_MAX * 4]; /* a user preset's stem is any bytes: cleaned for the table */
        snprintf(buf, len, "%s%s", engine_text_cleaned(shown, sizeof shown, gpu), inferred ? " (inferred)" : "");
    }
    return buf;
}

int cli_run_deployment(const preset_catalog *cat, const store_run_detail *r, engine_deployment *d, char *why,
                       size_t whylen)
{
    char err[ENGINE_TEXT_MAX * 2];
    const store_run_summary *sum = &r->summary;
    bool from_preset = r->preset[0] && preset_load_deployment(cat, r->preset, d, err, sizeof err) == 0;
    if (!from_preset) {
        if (!sum->model[0]) {
            snprintf(why, whylen, "the run's model is unknown (re-ingest it with --preset)");
            return -1;
        }
        engine_deployment_defaults(d);
        snprintf(d->name, sizeof d->name, "run %lld", (long long)sum->id);
    }
    if (sum->model[0] && strcmp(d->model.name, sum->model) != 0 &&
        preset_load_model(cat, sum->model, &d->model, err, sizeof err) != 0) {
        snprintf(why, whylen, "model %s: %s", sum->model, err);
        return -1;
    }
    if (sum->gpu[0] && strcmp(d->gpu.name, sum->gpu) != 0 &&
        preset_load_gpu(cat, sum->gpu, &d->gpu, err, sizeof err) != 0)
        snprintf(d->gpu.name, sizeof d->gpu.name, "%s", sum->gpu);
    /* The run's own knobs, as it ran (the log's values are consistent by construction). A name
     * (the GPU) was resolved to its preset above; a known 0 is a value the log did not state. */
    for (int k = 0; k < KNOB_COUNT; k++) {
        const engine_knob_info *info = &engine_knobs[k];
        if (!r->origin[k] || info->type == KNOB_TYPE_NAME)
            continue;
        /* only a number can be a 0 the log did not state: an enum's, a switch's or a release's
         * first value is a value (a2a deepep, dp_attention off, the release itself) */
        bool numeric =
            info->field == KNOB_FIELD_U32 || info->field == KNOB_FIELD_U64 || info->field == KNOB_FIELD_DOUBLE;
        if (numeric && !engine_knob_is_auto(&r->values, (engine_knob_id)k) &&
            engine_knob_value(&r->values, (engine_knob_id)k) <= 0)
            continue;
        engine_knob_copy(d, &r->values, (engine_knob_id)k);
    }
    engine_knobs_state *k = &d->knobs;
    if (!k->context_len)
        k->context_len = d->model.context_len;
    if (k->dp == 0 || k->world % k->dp != 0)
        k->dp = 1;
    if (k->dcp == 0 || (k->world / k->dp) % k->dcp != 0)
        k->dcp = 1;
    /* What the run does not state is its preset's, else what SGLang runs with no flag for it:
     * the release's attention backend, no a2a backend (engine_deployment_defaults is K3's). */
    if (r->has_backend)
        d->backend = r->backend;
    else if (!from_preset)
        d->knobs.backend_auto = true;
    if (r->has_a2a)
        d->a2a = r->a2a;
    else if (!from_preset)
        d->a2a = A2A_NONE;
    return 0;
}

void cli_run_knob_json(jsonw *w, const engine_deployment *v, const engine_knob_origin *origin, engine_knob_id knob)
{
    const engine_knob_info *k = &engine_knobs[knob];
    if (!origin[knob]) {
        jsonw_null(w);
    } else if (engine_knob_is_auto(v, k->id)) {
        jsonw_string(w, "auto");
    } else if (k->field == KNOB_FIELD_LIST) {
        const uint32_t *list = (const uint32_t *)((const char *)v + k->offset);
        uint32_t n = *(const uint32_t *)((const char *)v + k->count_offset);
        jsonw_array_begin(w);
        for (uint32_t i = 0; i < n; i++)
            jsonw_u64(w, list[i]);
        jsonw_array_end(w);
    } else if (k->field == KNOB_FIELD_BOOL) {
        jsonw_bool(w, engine_knob_value(v, k->id) != 0);
    } else if (k->field == KNOB_FIELD_NAME || k->field == KNOB_FIELD_ENUM || k->field == KNOB_FIELD_RELEASE) {
        /* a name, a choice or a release is its text ("0.4.6", "deepep"), never its index */
        char buf[ENGINE_NAME_MAX];
        engine_knob_text(v, NULL, k->id, KNOB_TEXT_CANONICAL, buf, sizeof buf);
        jsonw_string(w, buf);
    } else if (k->field == KNOB_FIELD_DOUBLE) {
        jsonw_double(w, engine_knob_value(v, k->id), 3);
    } else {
        jsonw_u64(w, (uint64_t)engine_knob_value(v, k->id));
    }
}
