/* fuzz_sglang_args.c — `--sglang-args TEXT` (engine/sglang_args.c, engine_apply_sglang_args) on a
 * built-in deployment, the way cli_load_deployment uses it: the first byte picks the deployment
 * (k3-dp16, or the first of the catalog's others), the rest is the text. It returns -1 with a
 * non-empty one-line error, or 0 with a deployment that, once the release's knobs are resolved,
 * engine_deployment_check accepts and the estimator computes, every numeric knob the flags set
 * within its static range and any model path a string that ends inside its buffer. */
#include <string.h>

#include "fuzz_common.h"
#include "preset.h"

#define BASES 4

static preset_catalog *cat;
static engine_deployment bases[BASES];
static int n_bases;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("CGPLAN_PRESETS", "/nonexistent/cgplan-fuzz", 1); /* the built-ins only */
    cat = preset_catalog_open();
    char err[1024];
    FUZZ_CHECK(cat && preset_load_deployment(cat, "k3-dp16", &bases[0], err, sizeof err) == 0, "k3-dp16: %s", err);
    n_bases = 1;
    for (size_t i = 0; i < preset_catalog_count(cat) && n_bases < BASES; i++) {
        const preset_entry *e = preset_catalog_get(cat, i);
        if (e->kind == PRESET_DEPLOYMENT && strcmp(e->name, "k3-dp16") != 0 &&
            preset_load_deployment(cat, e->name, &bases[n_bases], err, sizeof err) == 0)
            n_bases++;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 8192)
        return 0;
    static char text[8200];
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    static engine_deployment d;
    static engine_estimate e;
    d = bases[data[0] % n_bases];
    char model_path[ENGINE_TEXT_MAX], err[ENGINE_TEXT_MAX * 2];
    memset(model_path, 'x', sizeof model_path);
    model_path[0] = '\0';
    err[0] = '\0';
    int skipped = -1;
    engine_warnings adj = {0};
    if (engine_apply_sglang_args(&d, text, model_path, sizeof model_path, &skipped, &adj, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] && !strchr(err, '\n'), "refused without a one-line reason: '%s'", err);
        return 0;
    }
    FUZZ_CHECK(memchr(model_path, '\0', sizeof model_path), "the model path runs past its buffer");
    FUZZ_CHECK(skipped >= 0 && (size_t)skipped <= size, "%d words skipped of %zu bytes", skipped, size);
    for (int k = 0; k < KNOB_COUNT; k++) {
        const engine_knob_info *ki = &engine_knobs[k];
        if (d.knob_origin[k] != ORIGIN_SET ||
            (ki->type != KNOB_TYPE_INT && ki->type != KNOB_TYPE_INT_OR_AUTO && ki->type != KNOB_TYPE_FRACTION))
            continue;
        double v = engine_knob_value(&d, (engine_knob_id)k);
        bool is_auto = (ki->autoable || ki->type == KNOB_TYPE_INT_OR_AUTO) && v == 0; /* "auto" is 0 */
        FUZZ_CHECK(v != v || is_auto || (v >= ki->min && v <= ki->max), "%s: %g outside %s", ki->name, v, ki->range);
    }
    engine_deployment_resolve_release_knobs(&d);
    FUZZ_CHECK(engine_deployment_check(&d, err, sizeof err) == 0, "accepted, but engine_deployment_check refuses: %s",
               err);
    engine_estimate_compute(&d, NULL, &e);
    return 0;
}
