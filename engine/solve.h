/* solve.h — the planning questions on top of the estimate: the largest value of a knob that fits
 * (solve), and every layout of a model on N GPUs ranked by concurrency (search). Pure; each answer applies the budget's
 * one fit rule (engine_fit_at_recommended). */
#ifndef CGPLAN_SOLVE_H
#define CGPLAN_SOLVE_H

#include "engine.h"

/* ---- solve ---- */

typedef struct {
    engine_knob_id knob;
    bool found;                 /* some value fits */
    bool beyond_range;          /* the knob's top fits */
    double value;               /* the largest value that fits (mem_fraction_static: the recommended one) */
    double next;                /* the first value above it that does not fit; 0: none */
    double mem_fraction_static; /* recommended at value */
    engine_term_id limit;       /* the term that grows most from value to next */
    const char *limit_key;      /* what stops it: limit's key, or "kv_per_request" for the request policy */
    const char *code;           /* the blocking code at next (or at the lowest value when none fits) */
    uint64_t kv_tokens;
    uint64_t concurrency; /* requests in flight per instance at value: DP ranks x max_bs */
    char reason[ENGINE_TEXT_MAX];
} engine_solution;

/* Whether solve answers for KNOB (max_bs, max_dispatch, context_len, mtp, mem_fraction_static). */
bool engine_solvable(engine_knob_id knob);
/* Solves KNOB for D. SCRATCH: two estimates of room. Returns 0, or -1 when KNOB is not solvable. */
int engine_solve(const engine_deployment *d, const engine_calibration *cal, engine_knob_id knob, engine_solution *out,
                 engine_estimate scratch[2]);

/* ---- search ---- */

typedef struct {
    uint32_t tp, dp, ep, dcp, mtp;
    uint32_t replicas; /* instances of tp GPUs on the N GPUs (dp without DP attention) */
    bool dp_attention;
    engine_a2a a2a;
    uint32_t max_bs;            /* the wall */
    double mem_fraction_static; /* recommended at the wall */
    uint64_t concurrency;       /* requests in flight on the N GPUs: replicas x DP ranks x max_bs */
    uint64_t kv_tokens;         /* logical tokens of one DP rank's pool */
    uint64_t kv_per_request;    /* kv_tokens / max_bs */
    uint64_t weights_bytes;
    engine_term_id limit;  /* the term that grows most at the wall */
    const char *limit_key; /* what stops the layout: limit's key, or "kv_per_request" (budget.wall_limit) */
    bool pareto;           /* on the front of concurrency vs KV per request */
} engine_layout_result;

typedef struct {
    uint32_t gpus, nodes;
    uint32_t max_mtp; /* speculation widths tried where the model has draft layers: 2..max_mtp */
    bool all;         /* every mtp variant of a layout; else the best one per layout */
} engine_search_opts;

/* The layout knobs search scans; one given with --set (ORIGIN_SET) is held at its value. */
#define ENGINE_SEARCH_KNOBS                                                                                            \
    (KNOB_BIT(KNOB_WORLD) | KNOB_BIT(KNOB_DP) | KNOB_BIT(KNOB_DP_ATTENTION) | KNOB_BIT(KNOB_DCP) |                     \
     KNOB_BIT(KNOB_A2A) | KNOB_BIT(KNOB_MTP) | KNOB_BIT(KNOB_EP))

typedef struct {
    size_t scanned; /* configurations estimated */
    size_t refused; /* layouts the release refuses (engine_launch_release_refusals), not estimated */
    size_t folded;  /* mtp variants left out for a better one of the same layout (opts.all off) */
    uint32_t held;  /* KNOB_BIT mask of the layout knobs held at BASE's value */
} engine_search_counts;

/* Every layout SGLang's release accepts for BASE's model and GPU on O->gpus GPUs, each at its
 * wall, holding each layout knob BASE got from --set; ranked by concurrency (then KV per
 * request), the Pareto front marked. Fills at most CAP; returns how many fit. SCRATCH: one
 * estimate of room. */
size_t engine_search(const engine_deployment *base, const engine_calibration *cal, const engine_search_opts *o,
                     engine_layout_result *out, size_t cap, engine_search_counts *counts, engine_estimate *scratch);

#endif
