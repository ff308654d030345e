/* fuzz_knobs.c — the knob parsers: `--set KEY=VALUE` (cli_apply_set: engine_knob_set_text for
 * every knob of engine_knobs[], a GPU preset by name) and `--vary KNOB=FROM:TO[:STEP]` (cmd_sweep's
 * parse_vary), on k3-dp16. The first byte picks the knob (its index modulo KNOB_COUNT; 0xff:
 * --vary), the rest is the value text. A value that is accepted is estimated, written by every writer, and its canonical text
 * must parse back to the same value. */
#include <string.h>

#include "fuzz_common.h"

/* parse_vary is static in cmd_estimate.c: the target compiles that file itself (the library's
 * copy is then not linked: every symbol it would give is defined here already). */
#include "../../cli/cmd_estimate.c"

static preset_catalog *cat;
static engine_deployment base;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("CGPLAN_PRESETS", "/nonexistent/cgplan-fuzz", 1); /* the built-ins only */
    cat = preset_catalog_open();
    char err[1024];
    FUZZ_CHECK(cat && preset_load_deployment(cat, "k3-dp16", &base, err, sizeof err) == 0, "k3-dp16: %s", err);
    return 0;
}

static void estimate_and_write(const engine_deployment *d)
{
    static engine_estimate e;
    engine_estimate_compute(d, NULL, &e);
    FILE *out = fuzz_sink();
    cli_write_estimate_json(out, "fuzz", d, &e, &e.warnings);
    cli_write_estimate_table(out, "fuzz", d, &e, &e.warnings);
    cli_write_estimate_csv(out, "fuzz", &e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 512)
        return 0;
    char text[520];
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    static engine_deployment d;
    d = base;
    engine_warnings adj = {0};
    if (data[0] == 0xff) { /* --vary */
        const engine_knob_info *knob;
        double from, to, step;
        if (parse_vary(text, &knob, &from, &to, &step) != EXIT_OK)
            return 0;
        FUZZ_CHECK(from >= knob->min && to <= knob->max && from <= to, "--vary %s: %g:%g outside %s", text, from, to,
                   knob->range);
        double ends[2] = {from, to};
        for (int i = 0; i < 2; i++) {
            d = base;
            char err[ENGINE_TEXT_MAX];
            if (engine_knob_set_value(&d, knob->id, ends[i], &adj, err, sizeof err) == 0)
                estimate_and_write(&d);
        }
        return 0;
    }
    const engine_knob_info *k = &engine_knobs[data[0] % KNOB_COUNT];
    if (k->type == KNOB_TYPE_NAME && (strchr(text, '/') || strstr(text, ".yaml")))
        return 0; /* a path: the GPU would be read from a file (fuzz_preset covers the loader) */
    char assignment[600];
    snprintf(assignment, sizeof assignment, "%s=%s", k->name, text);
    if (cli_apply_set(cat, &d, assignment, &adj) != EXIT_OK)
        return 0;
    estimate_and_write(&d);
    if (k->type == KNOB_TYPE_NAME)
        return 0;
    /* the canonical text parses back to the same value */
    char canon[ENGINE_TEXT_MAX * 4], err[ENGINE_TEXT_MAX];
    engine_knob_text(&d, NULL, k->id, KNOB_TEXT_CANONICAL, canon, sizeof canon);
    static engine_deployment again;
    again = base;
    engine_warnings adj2 = {0};
    FUZZ_CHECK(engine_knob_set_text(&again, k->id, canon, &adj2, err, sizeof err) == 0,
               "--set %s: its canonical text '%s' does not parse back: %s", assignment, canon, err);
    FUZZ_CHECK(engine_knob_equal(&d, &again, k->id), "--set %s: '%s' parses back to another value", assignment, canon);
    return 0;
}
