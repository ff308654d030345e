/* fuzz_preset.c — one preset file through the loader (presets/: the nesting scan, libyaml, the
 * schema), then, when it loads, a full estimate of a deployment built from it (with and without
 * a calibration) and every writer of an estimate (JSON, table, CSV of cli/cmd_estimate.c, every
 * knob's text in every style). A deployment is assembled with the built-in model and GPU it
 * names; a model or GPU with the built-in k3-dp16 around it. */
#define _GNU_SOURCE /* memmem */
#include <string.h>

#include "cli.h"
#include "fuzz_common.h"
#include "preset_internal.h"

#define BUILTINS_MAX 256 /* above the catalog (149 presets): every built-in loads */

static preset_item builtins[BUILTINS_MAX];
static size_t n_builtins;

static const preset_item *builtin(const char *name, preset_kind kind)
{
    for (size_t i = 0; i < n_builtins; i++)
        if (builtins[i].entry.kind == kind && strcmp(builtins[i].entry.name, name) == 0)
            return &builtins[i];
    return NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char msg[PRESET_MSG_MAX], stem[ENGINE_NAME_MAX];
    for (const preset_builtin_file *f = preset_builtin_files; f->file_name && n_builtins < BUILTINS_MAX; f++) {
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(f->file_name) - strlen(".yaml")), f->file_name);
        if (preset_parse_text(f->file_name, stem, f->text, strlen(f->text), &builtins[n_builtins], msg, sizeof msg) ==
            0)
            n_builtins++;
    }
    size_t n_files = 0;
    for (const preset_builtin_file *f = preset_builtin_files; f->file_name; f++)
        n_files++;
    FUZZ_CHECK(n_builtins == n_files, "a built-in preset does not load, or BUILTINS_MAX is below the catalog");
    FUZZ_CHECK(builtin("k3-dp16", PRESET_DEPLOYMENT) && builtin("kimi-k3", PRESET_MODEL) && builtin("b200", PRESET_GPU),
               "the built-in presets do not load");
    return 0;
}

static void write_everything(const engine_deployment *d, const engine_estimate *e)
{
    FILE *out = fuzz_sink();
    cli_write_estimate_json(out, d->name, d, e, &e->warnings);
    cli_write_estimate_table(out, d->name, d, e, &e->warnings);
    cli_write_estimate_csv(out, d->name, e);
    char text[ENGINE_TEXT_MAX * 4];
    for (int k = 0; k < KNOB_COUNT; k++)
        for (int style = KNOB_TEXT_CANONICAL; style <= KNOB_TEXT_SHORT; style++)
            engine_knob_text(d, e, (engine_knob_id)k, (engine_knob_text_style)style, text, sizeof text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static preset_item it;
    static engine_deployment d;
    static engine_estimate e;
    char msg[PRESET_MSG_MAX];
    /* The stem a file must be named after is its `name:`; "fuzz" keeps most inputs failing on
     * that one check, so take the name from the text when there is one. */
    char stem[ENGINE_NAME_MAX] = "fuzz";
    const char *name = memmem(data, size, "name: ", 6);
    if (name) {
        name += 6;
        size_t n = 0;
        while (name + n < (const char *)data + size && n + 1 < sizeof stem && name[n] != '\n' && name[n] != '\r')
            n++;
        memcpy(stem, name, n);
        stem[n] = '\0';
    }
    if (preset_parse_text("fuzz.yaml", stem, (const char *)data, size, &it, msg, sizeof msg) != 0) {
        FUZZ_CHECK(msg[0] && !strchr(msg, '\n'), "an error that is not one line: %s", msg);
        return 0;
    }
    const preset_item *dep = builtin("k3-dp16", PRESET_DEPLOYMENT), *model = builtin("kimi-k3", PRESET_MODEL),
                      *gpu = builtin("b200", PRESET_GPU);
    switch (it.entry.kind) {
    case PRESET_DEPLOYMENT:
        dep = &it;
        model = builtin(it.u.dep.model, PRESET_MODEL);
        gpu = builtin(it.u.dep.gpu, PRESET_GPU);
        if (!model || !gpu)
            return 0; /* names no built-in: the catalog says so, nothing to estimate */
        break;
    case PRESET_MODEL: model = &it; break;
    case PRESET_GPU: gpu = &it; break;
    }
    preset_assemble_deployment(dep, model, gpu, &d);
    /* every front end refuses an assembled plan out of the engine's bounds before estimating it
     * (cli/main.c, the TUI): so does the target, else it reports what no user can reach */
    char err[ENGINE_TEXT_MAX];
    if (engine_deployment_check(&d, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] && !strchr(err, '\n'), "a check error that is not one line: %s", err);
        return 0;
    }
    engine_estimate_compute(&d, NULL, &e);
    write_everything(&d, &e);
    /* a calibration of every coefficient, from the input's hash, within what calibrate stores
     * (up to 1 TiB a coefficient; its own bounds are calibrate's) */
    engine_calibration cal = {0};
    uint64_t rng = fuzz_hash(data, size);
    for (int c = 0; c < COEF_COUNT; c++) {
        cal.has[c] = true;
        cal.value[c] = fuzz_next(&rng) >> (24 + fuzz_next(&rng) % 40);
    }
    cal.n_runs = 1;
    cal.runs[0] = 1;
    engine_estimate_compute(&d, &cal, &e);
    write_everything(&d, &e);
    return 0;
}
