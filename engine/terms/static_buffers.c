/* terms/static_buffers.c — the static buffers the runner allocates before capture, outside the
 * graph pool, sized for the largest bucket: the FP32 logits, the input buffers, and a
 * calibration's intercept for what the static layer holds beyond them. */
#include "terms.h"

void term_logits(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    (void)cal;
    set_term(e, TERM_LOGITS, (uint64_t)e->logits_rows * d->model.vocab * 4);
}

void term_inputs(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    (void)cal;
    set_term(e, TERM_INPUTS, (uint64_t)e->attn_rows * (2 * d->model.hidden + 48));
}

/* What a calibration found in the static layer beyond its exact and derived terms. */
void term_static_other(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e)
{
    (void)d;
    engine_term *other = set_term(e, TERM_STATIC_OTHER, cal && cal->has_static ? cal->static_bytes : 0);
    if (!(cal && cal->has_static))
        other->source = SOURCE_EXACT; /* nothing fitted: no intercept */
    else
        other->n_runs = cal->n_runs < ENGINE_MAX_CAL_RUNS ? cal->n_runs : ENGINE_MAX_CAL_RUNS;
}
