/* test_every_plan.c — every built-in model on every built-in GPU, as a plan from the model alone
 * (SGLang's defaults, the GPU set, tp 1, 2, 4, ... up to the first layout that fits, and tp 8 on
 * h200): each estimate is complete, every term and part lies within its range, the total's range
 * is the sum of the terms', and the recommended fraction leaves the margin at the high end. In
 * process, so the whole catalog takes a second (the CLI test drives the binary on fewer plans). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "preset.h"

/* A plan from MODEL alone on GPU at TP, as cgplan estimate --model M --set gpu=G --set tp=N. */
static bool model_plan(const preset_catalog *c, const char *model, const char *gpu, uint32_t tp, engine_deployment *d)
{
    char err[512];
    engine_deployment_defaults(d);
    engine_deployment_sglang_defaults(d);
    assert_int_equal(preset_load_model(c, model, &d->model, err, sizeof err), 0);
    assert_int_equal(preset_load_gpu(c, gpu, &d->gpu, err, sizeof err), 0);
    d->knobs.context_len = d->model.context_len;
    char text[16];
    snprintf(text, sizeof text, "%u", tp);
    if (engine_knob_set_text(d, KNOB_WORLD, text, NULL, err, sizeof err) != 0)
        return false;
    d->knob_origin[KNOB_WORLD] = ORIGIN_SET;
    engine_deployment_resolve_release_knobs(d);
    return engine_deployment_check(d, err, sizeof err) == 0;
}

static int checked;

static void check_plan(const engine_deployment *d, const engine_estimate *e)
{
    char where[160];
    snprintf(where, sizeof where, "%s on %u x %s", d->model.name, d->knobs.world, d->gpu.name);
    if (!e->total_complete)
        fail_msg("%s: a term is unknown", where);
    uint64_t low = 0, high = 0;
    for (int i = 0; i < TERM_COUNT; i++) {
        const engine_term *t = &e->terms[i];
        if (!(t->low_bytes <= t->bytes && t->bytes <= t->high_bytes))
            fail_msg("%s: %s %llu outside [%llu, %llu]", where, engine_terms[i].key, (unsigned long long)t->bytes,
                     (unsigned long long)t->low_bytes, (unsigned long long)t->high_bytes);
        low += t->low_bytes;
        high += t->high_bytes;
    }
    for (int p = 0; p < PART_COUNT; p++) {
        const engine_part *part = &e->parts[p];
        if (part->present && !(part->low_bytes <= part->bytes && part->bytes <= part->high_bytes))
            fail_msg("%s: %s outside its range", where, engine_parts[p].key);
    }
    assert_int_equal(e->total_low_bytes, low);
    assert_int_equal(e->total_high_bytes, high);
    assert_int_equal(e->plan_total_bytes, high);
    const engine_budget *b = &e->budget;
    double cap = 1.0 - (double)(high + d->other_runtime_bytes + d->margin_bytes) / (double)b->pre_load_free_bytes;
    if (b->recommended_mem_fraction_static > cap + 1e-9)
        fail_msg("%s: recommended %.3f above 1 - (high + O + margin) / P = %.4f", where,
                 b->recommended_mem_fraction_static, cap);
    checked++;
}

static void test_every_model_on_every_gpu(void **state)
{
    (void)state;
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    static engine_deployment d;
    static engine_estimate e;
    int models = 0, gpus = 0;
    for (size_t i = 0; i < preset_catalog_count(c); i++) {
        const preset_entry *m = preset_catalog_get(c, i);
        if (m->kind != PRESET_MODEL)
            continue;
        models++;
        if (model_plan(c, m->name, "h200", 8, &d)) {
            engine_estimate_compute_quiet(&d, NULL, &e);
            check_plan(&d, &e);
        }
        for (size_t j = 0; j < preset_catalog_count(c); j++) {
            const preset_entry *g = preset_catalog_get(c, j);
            if (g->kind != PRESET_GPU)
                continue;
            gpus += models == 1;
            for (uint32_t tp = 1; tp <= 64; tp *= 2) {
                if (!model_plan(c, m->name, g->name, tp, &d))
                    continue; /* sizes the engine refuses (a bounds check), not a plan */
                engine_estimate_compute_quiet(&d, NULL, &e);
                check_plan(&d, &e); /* also where it does not fit: a warning, never a blank */
                if (e.budget.fits)
                    break;
            }
        }
    }
    preset_catalog_free(c);
    assert_true(models >= 78);
    assert_true(gpus >= 7);
    assert_true(checked >= models * gpus);
    print_message("%d plans of %d models on %d GPUs\n", checked, models, gpus);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_model_on_every_gpu)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
