/* run_derive.h — what one parsed start-up log says about its run: the model, the GPU, every knob
 * with where its value came from, and the measured layers (MODEL.md "Calibration"; LOGS.md "What a
 * run records").
 *
 * Pure: what only the presets know (the deployment --preset/--set gave, the GPUs' totals, the
 * hf_names match) comes in as a plain context that the caller fills; no I/O, no global state. */
#ifndef CGPLAN_RUN_DERIVE_H
#define CGPLAN_RUN_DERIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caplog.h"
#include "engine.h"

/* "log", "env", ...; "" for ORIGIN_UNKNOWN or a value out of range. */
const char *engine_origin_name(engine_knob_origin o);
/* The origin named TEXT; ORIGIN_UNKNOWN for NULL, "" or a name not in the list. */
engine_knob_origin engine_origin_from_name(const char *text);

/* A GPU a log's free memory may be matched to. */
typedef struct {
    const char *name;
    uint64_t cuda_total_bytes; /* what torch.cuda.mem_get_info() reports as total */
} engine_gpu_ref;

/* What the caller knows beside the log. */
typedef struct {
    const engine_deployment *given;              /* --preset (with --set) or defaults with --set; NULL: none */
    engine_knob_origin given_origin[KNOB_COUNT]; /* per knob of GIVEN: ORIGIN_PRESET, ORIGIN_SET, or
                                                  * ORIGIN_UNKNOWN when neither supplied it */
    bool model_given;                            /* a preset was loaded: GIVEN's model, backend and a2a are real */
    const char *model_set;                       /* --model (a model preset's name): the run's model whatever
                                                  * the log names; NULL: none */
    size_t n_gpus;
    const engine_gpu_ref *gpus; /* for inferring an unknown GPU; NULL with n_gpus 0: no inference */
    /* The model whose hf_names match MODEL_PATH, or NULL (also: MATCH_MODEL itself NULL). The
     * returned name must stay valid until the next call. */
    const char *(*match_model)(void *match_ctx, const char *model_path);
    /* The one model whose engine_model.architecture is ARCHITECTURE (the class a log's Load weight
     * end names, "DeepseekV3ForCausalLM"), or NULL when none or several have it (Kimi K2 and
     * DeepSeek-V3 share one: the class alone cannot tell them apart). Asked only when MODEL_PATH
     * matched nothing; NULL callback: not asked. Same lifetime rule as MATCH_MODEL. */
    const char *(*match_architecture)(void *match_ctx, const char *architecture);
    void *match_ctx;
} engine_run_context;

/* Everything derived about one parsed run. */
typedef struct {
    char model[ENGINE_NAME_MAX];     /* "" when unknown */
    engine_knob_origin model_origin; /* ORIGIN_SET (--model), ORIGIN_LOG (hf_names) or ORIGIN_PRESET */
    engine_deployment values;        /* the knob values where origin[] is known (buckets ascending;
                                      * gpu.name the GPU); every other field is zero */
    engine_knob_origin origin[KNOB_COUNT];
    bool gpu_inferred; /* from Load weight begin's free memory */
    bool has_backend, has_a2a;
    engine_backend backend;
    engine_a2a a2a;
    int target_group; /* index into run->groups; -1: none */
    int n_draft_groups;
    double static_gib, largest_gib, buckets_gib, target_total_gib, draft_gib, total_gib; /* NaN: unknown */
} engine_run_facts;

void engine_run_derive(const caplog_run *run, const engine_run_context *c, engine_run_facts *out);

/* The model of a run: --model, else the hf_names match of its model_path, else the one model of
 * its architecture class, else the given preset's model; NULL when none. */
const char *engine_run_model_name(const caplog_run *run, const engine_run_context *c, char *buf, size_t len);

/* Sets KNOB of D from TEXT as engine_knob_text(KNOB_TEXT_CANONICAL) wrote it, as stated: a
 * measured run keeps what its log said even where the planner's rules would refuse or move it
 * (engine_knob_set_text: a mem_fraction_static of 0.3, 64 draft tokens, a dp that divides a
 * world the log does not state). Returns 0, or -1 with the reason in ERR. */
int engine_run_knob_set_text(engine_deployment *d, engine_knob_id knob, const char *text, char *err, size_t errlen);

#endif
