/* terms.h — what the term files share (estimate.c holds the table, the helpers and the assembly):
 * each term's compute function, named in its row of engine_terms, and the helpers that fill a
 * term, its parts and its range. Inside the engine only. */
#ifndef CGPLAN_TERMS_H
#define CGPLAN_TERMS_H

#include "engine.h"

/* A term from its table row; compute code then fills the bytes (inline: every term of every
 * probe of the wall starts here). */
static inline engine_term *set_term(engine_estimate *e, engine_term_id id, uint64_t bytes)
{
    const engine_term_info *info = &engine_terms[id];
    engine_term *t = &e->terms[id];
    t->id = id;
    t->group = info->layer == LAYER_DRAFT ? GROUP_DRAFT : GROUP_TARGET;
    t->layer = info->layer;
    t->source = info->source;
    t->bytes = bytes;
    t->known = true;
    t->depends_on = info->depends_on;
    t->formula = info->formula;
    t->origin = info->origin;
    t->low_bytes = t->high_bytes = 0;
    t->alt_bytes = 0;
    t->alt_label = NULL;
    t->n_runs = 0;
    return t;
}
/* T's range from its source class, unless its code set one. */
void term_range(engine_term *t);
/* A part of a mechanism-built term, with its range; the term as the sum of its present parts. */
void set_part(engine_estimate *e, engine_part_id id, uint64_t bytes, uint64_t low, uint64_t high);
void term_from_parts(engine_estimate *e, engine_term *t);
/* A coefficient from the calibration, else the preset (T unknown when neither has it); whether
 * either has it; the term from a fit's bytes, as its one part. */
uint64_t coef(const engine_deployment *d, const engine_calibration *cal, engine_coef_id c, engine_term *t);
bool has_fit(const engine_deployment *d, const engine_calibration *cal, engine_coef_id c);
void term_from_fit(engine_estimate *e, engine_term *t, engine_part_id part, uint64_t bytes, const char *preset_origin);
/* COUNT priced at the range R: bytes at its expected value and both ends. */
void priced(uint64_t count, const engine_range *r, uint64_t *bytes, uint64_t *low, uint64_t *high);
/* A nodes part priced at a calibrated node_bytes is marked calibrated. */
void mark_nodes_part(engine_estimate *e, engine_part_id part);
/* The widest layer's temporaries from the model's shapes, into T (activations.c). */
void widest_layer(const engine_deployment *d, const engine_estimate *e, engine_term *t);

/* One function per term, in the table's order. */
void term_logits(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
void term_kv_index(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
void term_inputs(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
void term_deepep(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
void term_masked_gemm(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
void term_lazy(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
void term_act(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
void term_buckets(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
void term_draft(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
void term_fused_moe(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
void term_graph_logits(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
void term_static_other(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);
void term_deepep_normal(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);

#endif
