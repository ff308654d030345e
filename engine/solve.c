/* solve.c — solve (solve.h); search is in search.c. */
#include "solve.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- solve ---- */

static const engine_knob_id solvable[] = {KNOB_MAX_BS, KNOB_MAX_DISPATCH, KNOB_CONTEXT_LEN, KNOB_MTP,
                                          KNOB_MEM_FRACTION};

bool engine_solvable(engine_knob_id knob)
{
    for (size_t i = 0; i < sizeof solvable / sizeof solvable[0]; i++)
        if (solvable[i] == knob)
            return true;
    return false;
}

static engine_term_id growth_term(const engine_estimate *a, const engine_estimate *b)
{
    engine_term_id best = TERM_LOGITS;
    int64_t best_g = -1;
    for (int i = 0; i < TERM_COUNT; i++) {
        int64_t g = (int64_t)b->terms[i].bytes - (int64_t)a->terms[i].bytes;
        g = g < 0 ? -g : g;
        if (g > best_g) {
            best_g = g;
            best = (engine_term_id)i;
        }
    }
    return best;
}

static uint64_t concurrency_of(const engine_knobs_state *k)
{
    return (uint64_t)(engine_dp_attention(k) ? k->dp : 1) * k->max_bs;
}

/* D with KNOB at V (rules applied; false when the knob refuses V). */
static bool at_value(const engine_deployment *d, engine_knob_id knob, double v, engine_deployment *p)
{
    *p = *d;
    char err[ENGINE_TEXT_MAX];
    return engine_knob_set_value(p, knob, v, NULL, err, sizeof err) == 0;
}

static bool fits_value(const engine_deployment *d, const engine_calibration *cal, engine_knob_id knob, double v,
                       engine_deployment *p, engine_estimate *e, engine_fit *f)
{
    if (!at_value(d, knob, v, p)) {
        memset(f, 0, sizeof *f);
        f->blocking = "adjusted";
        return false;
    }
    return engine_fit_at_recommended(p, cal, e, f);
}

/* Why P (KNOB at V) does not fit, in one sentence that starts with the knob's value; the fraction
 * is solved for the plan's own max_bs, so its sentence starts with that. */
static void describe(const engine_deployment *p, const engine_calibration *cal, const engine_estimate *e,
                     const engine_fit *f, engine_knob_id knob, double v, char *buf, size_t len)
{
    char lead[64];
    if (knob == KNOB_MEM_FRACTION)
        snprintf(lead, sizeof lead, "max_bs %u", p->knobs.max_bs);
    else
        snprintf(lead, sizeof lead, "%s %.0f", engine_knobs[knob].name, v);
    if (f->blocking && strcmp(f->blocking, "adjusted") == 0) /* at_value: the knob's own rule refused it */
        snprintf(buf, len, "%s is not a value the knob takes with this layout", lead);
    else
        engine_fit_reason(p, cal, e, f, lead, buf, len);
}

int engine_solve(const engine_deployment *d, const engine_calibration *cal, engine_knob_id knob, engine_solution *s,
                 engine_estimate scratch[2])
{
    if (!engine_solvable(knob))
        return -1;
    memset(s, 0, sizeof *s);
    s->knob = knob;
    const engine_knob_info *info = &engine_knobs[knob];
    engine_deployment p;
    engine_fit f;
    if (knob == KNOB_MEM_FRACTION || knob == KNOB_MAX_BS) {
        engine_estimate_compute(d, cal, &scratch[0]);
        const engine_budget *b = &scratch[0].budget;
        if (knob == KNOB_MEM_FRACTION) { /* the fraction recommended for these knobs, and whether it fits */
            p = *d;
            p.knobs.mem_fraction_static = b->recommended_mem_fraction_static;
            bool ok = engine_fit_at_recommended(&p, cal, &scratch[1], &f);
            s->found = ok;
            s->value = s->mem_fraction_static = f.mem_fraction_static;
            s->code = f.blocking;
            s->kv_tokens = f.kv_tokens;
            s->concurrency = concurrency_of(&p.knobs);
            s->limit = b->wall_term;
            s->limit_key = engine_fit_limit(NULL, &f, b->wall_term);
            describe(&p, cal, &scratch[1], &f, knob, s->value, s->reason, sizeof s->reason);
            return 0;
        }
        s->found = b->wall_max_bs > 0;
        s->beyond_range = b->wall_beyond_range;
        s->value = b->wall_max_bs;
        s->next = b->wall_next_bs;
        s->mem_fraction_static = b->wall_mem_fraction_static;
        s->limit = b->wall_term;
        s->limit_key = b->wall_limit;
        s->code = b->wall_code;
        snprintf(s->reason, sizeof s->reason, "%s", b->wall_reason);
        if (s->found) {
            fits_value(d, cal, knob, s->value, &p, &scratch[1], &f);
            s->kv_tokens = f.kv_tokens;
            s->concurrency = concurrency_of(&p.knobs);
        }
        return 0;
    }
    /* An integer knob: bisect [lo, hi] with lo fitting and hi not. mtp steps linearly (few
     * values; the draft graph appears at 2). max_dispatch starts at the MoE rows it must cover. */
    double lo = info->min, hi = info->max;
    if (knob == KNOB_MAX_DISPATCH) {
        engine_estimate_terms_quiet(d, cal, &scratch[0]);
        lo = scratch[0].moe_rows ? scratch[0].moe_rows : 1;
    }
    if (knob == KNOB_CONTEXT_LEN && d->model.context_len && (double)d->model.context_len < hi)
        hi = (double)d->model.context_len; /* SGLang refuses more than the model's own context */
    engine_deployment lo_d, hi_d;
    engine_fit lo_f, hi_f;
    if (lo > hi) { /* the MoE rows alone are above DeepEP's cap */
        s->code = "dispatch_cap";
        s->value = lo;
        s->limit = TERM_DEEPEP;
        s->limit_key = engine_terms[TERM_DEEPEP].key;
        snprintf(s->reason, sizeof s->reason, "%s must cover %.0f MoE rows per GPU, above its top of %.0f (%s)",
                 info->name, lo, hi, s->code);
        return 0;
    }
    if (!fits_value(d, cal, knob, lo, &lo_d, &scratch[0], &lo_f)) {
        s->code = lo_f.blocking;
        s->value = lo;
        describe(&lo_d, cal, &scratch[0], &lo_f, knob, lo, s->reason, sizeof s->reason);
        s->limit = growth_term(&scratch[0], &scratch[0]);
        s->limit_key = engine_fit_limit(NULL, &lo_f, s->limit);
        return 0;
    }
    s->found = true;
    if (knob == KNOB_MTP) {
        double v = lo;
        while (v + 1 <= hi && fits_value(d, cal, knob, v + 1, &hi_d, &scratch[1], &hi_f)) {
            v += 1;
            lo_f = hi_f;
            scratch[0] = scratch[1];
        }
        lo = v;
        if (v + 1 <= hi)
            hi = v + 1;
        else
            s->beyond_range = true;
    } else if (fits_value(d, cal, knob, hi, &hi_d, &scratch[1], &hi_f)) {
        lo = hi;
        lo_f = hi_f;
        s->beyond_range = true;
    } else {
        while (hi - lo > 1) {
            double mid = floor((lo + hi) / 2);
            engine_deployment md;
            engine_fit mf;
            if (fits_value(d, cal, knob, mid, &md, &scratch[1], &mf)) {
                lo = mid;
                lo_f = mf;
            } else {
                hi = mid;
                hi_f = mf;
            }
        }
    }
    s->value = lo;
    s->mem_fraction_static = lo_f.mem_fraction_static;
    s->kv_tokens = lo_f.kv_tokens;
    fits_value(d, cal, knob, lo, &lo_d, &scratch[0], &lo_f);
    s->concurrency = concurrency_of(&lo_d.knobs);
    if (!s->beyond_range) {
        s->next = hi;
        fits_value(d, cal, knob, hi, &hi_d, &scratch[1], &hi_f);
        s->code = hi_f.blocking;
        s->limit = growth_term(&scratch[0], &scratch[1]);
        if (hi_f.blocking &&
            (strcmp(hi_f.blocking, "dispatch_below_rows") == 0 || strcmp(hi_f.blocking, "dispatch_cap") == 0))
            s->limit = TERM_DEEPEP;
        s->limit_key = engine_fit_limit(&lo_f, &hi_f, s->limit);
        describe(&hi_d, cal, &scratch[1], &hi_f, knob, hi, s->reason, sizeof s->reason);
    } else {
        s->limit_key = engine_terms[s->limit].key;
        snprintf(s->reason, sizeof s->reason, "every %s up to %.0f fits", info->name, hi);
    }
    return 0;
}
