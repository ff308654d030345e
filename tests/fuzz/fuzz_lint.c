/* fuzz_lint.c — the whole-line reader behind `cgplan lint` (engine/sglang_args.c,
 * engine_sglang_read_line): the first byte picks the base (a built-in deployment, or SGLang's
 * defaults for a model alone) and the release (main, v0.5.6, v0.4.3.post2), the rest is the line.
 * It returns -1 with a non-empty one-line error, or 0 with a consistent per-flag list (each text
 * ends inside its buffer, the counts add up, every status is one of the five); and a line that
 * read once re-reads, on the deployment it produced, to the same knobs and the same statuses
 * (the rules SGLang applies after parsing are idempotent). */
#include <string.h>

#include "fuzz_common.h"
#include "preset.h"
#include "sglang_args.h"

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
    /* a model alone, SGLang's defaults (cli_load_deployment's path for --model) */
    engine_deployment_defaults(&bases[0]);
    engine_deployment_sglang_defaults(&bases[0]);
    n_bases = 1;
    for (size_t i = 0; i < preset_catalog_count(cat) && n_bases < BASES; i++) {
        const preset_entry *e = preset_catalog_get(cat, i);
        if (e->kind == PRESET_DEPLOYMENT && preset_load_deployment(cat, e->name, &bases[n_bases], err, sizeof err) == 0)
            n_bases++;
    }
    FUZZ_CHECK(n_bases > 1, "no built-in deployment loaded");
    return 0;
}

static void check_line(const engine_sglang_line *l)
{
    FUZZ_CHECK(l->n_flags >= 0 && l->n_flags <= ENGINE_SGLANG_FLAGS_MAX && l->n_dropped >= 0, "%d flags, %d dropped",
               l->n_flags, l->n_dropped);
    int sum = 0;
    for (int s = 0; s < SGLANG_FLAG_STATUS_COUNT; s++)
        sum += l->n_status[s];
    FUZZ_CHECK(sum == l->n_flags, "statuses count %d of %d flags", sum, l->n_flags);
    for (int i = 0; i < l->n_flags; i++) {
        const engine_sglang_flag *f = &l->flags[i];
        FUZZ_CHECK(f->status >= 0 && f->status < SGLANG_FLAG_STATUS_COUNT, "flag %d: status %d", i, (int)f->status);
        FUZZ_CHECK(memchr(f->flag, '\0', sizeof f->flag) && memchr(f->value, '\0', sizeof f->value) &&
                       memchr(f->note, '\0', sizeof f->note),
                   "flag %d: a text runs past its buffer", i);
        FUZZ_CHECK(f->note[0], "flag %d (%s): no note says why", i, f->flag);
    }
    FUZZ_CHECK(memchr(l->model_path, '\0', sizeof l->model_path), "the model path runs past its buffer");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > ENGINE_SGLANG_LINE_MAX + 16)
        return 0;
    static char text[ENGINE_SGLANG_LINE_MAX + 16];
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    static const char *const releases[] = {"main", "0.5.6", "0.4.3.post2"};
    static engine_deployment d, again;
    static engine_sglang_line line, reread;
    d = bases[data[0] % n_bases];
    char err[ENGINE_TEXT_MAX * 2] = "";
    FUZZ_CHECK(engine_release_parse(releases[(data[0] / BASES) % 3], &d.knobs.sglang, err, sizeof err) == 0, "%s",
               err);
    if (engine_sglang_read_line(&d, text, &line, NULL, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] && !strchr(err, '\n'), "refused without a one-line reason: '%s'", err);
        return 0;
    }
    check_line(&line);
    /* the same line on what it produced: the same knobs, the same statuses */
    again = d;
    FUZZ_CHECK(engine_sglang_read_line(&again, text, &reread, NULL, err, sizeof err) == 0,
               "read once, refused the second time: %s", err);
    for (int k = 0; k < KNOB_COUNT; k++)
        FUZZ_CHECK(engine_knob_equal(&d, &again, (engine_knob_id)k), "knob %s moved on the second read",
                   engine_knobs[k].name);
    FUZZ_CHECK(reread.n_flags == line.n_flags && reread.n_dropped == line.n_dropped, "the second read lists %d flags, not %d",
               reread.n_flags, line.n_flags);
    for (int i = 0; i < line.n_flags; i++)
        FUZZ_CHECK(reread.flags[i].status == line.flags[i].status && !strcmp(reread.flags[i].flag, line.flags[i].flag) &&
                       !strcmp(reread.flags[i].value, line.flags[i].value),
                   "flag %d (%s) reads differently the second time", i, line.flags[i].flag);
    FUZZ_CHECK(strcmp(reread.model_path, line.model_path) == 0, "the model path changed");
    return 0;
}
