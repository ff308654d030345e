/* calibrate.h — fits the estimator's non-exact terms from measured runs (MODEL.md, "Calibration";
 * issues 10 and 18). Two steps, in this order:
 *
 * 1. node_bytes, per GPU (and per SGLang release where the runs separate them), from any model's
 *    runs on it (calib_fit_node_bytes): the driver's bytes per kernel node belong to the GPU and
 *    the driver, not to the model, so one model's log improves every model on that GPU.
 * 2. Per model (calib_fit), with every term built from its mechanism held fixed (the kernel nodes
 *    at the calibrated node_bytes, the wrappers, cuBLAS, the draft's buffers): what the model's
 *    own runs show beyond them. For a model whose preset has a fit (the K3 deployments), the fit's
 *    coefficients stay free, as the fit replaces those terms' mechanisms.
 *
 * The per-model fit's model is the estimator's own: for each run the terms that are not free are
 * subtracted, and what is left is explained by the free ones (a fit's coefficients, unknown terms,
 * and act_bytes_per_row where the bars part it from the rest of the largest bucket), plus one
 * intercept per pool for the unexplained part of the static layer. Every kind of measurement a
 * log holds is a row of one least-squares system:
 *
 *   static layer (bars)  = static_bytes
 *   largest bucket       = lazy_bytes + act_bytes_per_row x attn_rows'
 *   other buckets        = graph_bytes x (n - 1) + out_bytes_per_row x sum(bs x mtp)
 *   target total (end)   = the three above together (when the bars do not bound the layers)
 *   draft                = draft_base_bytes + draft_bytes_per_row x attn_rows
 *
 * A parameter is fitted only when the rows separate it from those before it (intercepts first,
 * then the per-row and per-graph slopes); otherwise it is held at the preset's value, or, when
 * the model has none and the runs' totals include it, absorbed (0, carried by the intercept). A
 * negative, non-finite or absurd value is refused and held, and the rest refitted. Runs that
 * differ only in max_bs give the slopes on their own (the article's method 2).
 * Pure: the caller builds the points (from the store and the estimator) and prints the result. */
#ifndef CGPLAN_CALIBRATE_H
#define CGPLAN_CALIBRATE_H

#include "engine.h"

#define CALIB_MAX_POINTS ENGINE_MAX_CAL_RUNS

/* The fit's parameters: the model coefficients, then the static layer's intercept. */
enum { CALIB_STATIC = COEF_COUNT, CALIB_N_PARAMS };
extern const char *const calib_param_names[CALIB_N_PARAMS]; /* engine_coef_names, then "static_bytes" */

/* One run: what it measured (bytes; NAN where the log does not bound it) and the estimator's view
 * of the run's own knobs (calib_point_from_estimate). */
typedef struct {
    int64_t run_id;
    char layout[48]; /* "DP16 MTP6", "DP2xDCP8 MTP5": to say which layouts were pooled */
    uint64_t shape;  /* every knob but max_bs and buckets: equal shapes differ only in max_bs */
    uint32_t max_bs;
    double gpu_bytes; /* the GPU's total memory: a term above it is absurd (0: unknown) */
    double static_bytes, largest_bytes, buckets_bytes, target_bytes, draft_bytes;
    double fixed[LAYER_COUNT];  /* the exact and derived terms of each layer */
    double static_predicted;    /* the estimator's static layer (= fixed[LAYER_STATIC]) */
    double attn_rows_scaled;    /* attn_rows x heads_per_gpu / heads */
    double attn_rows;
    double other_buckets;       /* n - 1 */
    double other_rows;          /* sum over the other buckets of bs x mtp */
    bool speculative;           /* mtp > 1: a draft layer is expected */
    bool free[COEF_COUNT];      /* the run's estimate takes this coefficient (a fit's, or an unknown term) */
    /* A free coefficient whose term the estimate builds from its mechanism (act_bytes_per_row of
     * a model without one: the widest layer from its shapes): fitted only where the bars part it,
     * else the mechanism's bytes (in the term's layer) stay, as a fixed term. */
    bool mechanism[COEF_COUNT];
    double mechanism_bytes[COEF_COUNT];
} calib_point;

/* Fills P's estimator side from the run's deployment D and its estimate E (computed with the
 * GPU's node_bytes calibration, if any, and no per-model one); the measured side is the caller's. */
void calib_point_from_estimate(const engine_deployment *d, const engine_estimate *e, calib_point *p);

typedef enum {
    CALIB_FIT_NONE,     /* no run measures it: nothing stored, the current value stays */
    CALIB_FIT_FITTED,   /* fitted from the runs */
    CALIB_FIT_HELD,     /* the runs do not separate it: held at the current value (not stored) */
    CALIB_FIT_ABSORBED, /* the model has no value and the runs do not separate it: 0, carried by the
                         * intercept (stored, so the estimate's total is complete) */
    CALIB_FIT_REFUSED,  /* negative, non-finite or absurd: held, the rest refitted (not stored) */
} calib_fit_kind;
extern const char *const calib_fit_names[5]; /* "none", "fitted", "held", "absorbed", "refused" */

typedef struct {
    calib_fit_kind kind;
    bool stored;          /* goes into the calibration */
    bool method2;         /* the value comes from runs that differ only in max_bs */
    uint64_t value;       /* the value to use (fitted, absorbed 0, or the current one) */
    uint64_t current;     /* before */
    bool current_known;   /* the model (preset) has a value */
    double fitted;        /* the raw fitted number (also when refused); NAN when not fitted */
    int n_runs;           /* the runs whose rows constrain it */
    int64_t runs[CALIB_MAX_POINTS];
    char note[ENGINE_TEXT_MAX];
} calib_coef;

/* Measured - fitted model of one run, bytes; NAN where the run does not measure it. */
typedef struct {
    int64_t run_id;
    double static_layer, largest, buckets, draft;
    double total;          /* target total (+ draft): the end lines', else the layers' sum */
    double measured_total; /* what it measured */
    double total_pct;      /* 100 x total / measured_total */
    double loo_total;      /* the same with the run left out of the fit (>= 3 runs), else NAN */
    bool used;             /* some row of it entered the fit */
} calib_residual;

typedef struct {
    calib_coef coef[CALIB_N_PARAMS];
    int n_points;
    int n_fitted; /* parameters stored (fitted or absorbed) */
    calib_residual residuals[CALIB_MAX_POINTS];
    int n_layouts;
    char layouts[CALIB_MAX_POINTS][48];
    bool mixed_layouts;
    int n_pair_runs; /* runs that differ only in max_bs (method 2), and which */
    int64_t pair_runs[CALIB_MAX_POINTS];
    double worst_total_pct; /* the largest |total residual| in percent over the fitted runs (NAN: none) */
    char advice[ENGINE_TEXT_MAX * 2]; /* when nothing was fitted: the data that would make it possible */
} calib_result;

/* Fits from N points (at most CALIB_MAX_POINTS are read). CURRENT holds the model's values and
 * CURRENT_KNOWN which it has (NULL: all known). */
void calib_fit(const calib_point *points, int n, const uint64_t current[COEF_COUNT],
               const bool current_known[COEF_COUNT], calib_result *out);

/* The stored parameters as a calibration the estimator takes, with the runs used. */
void calib_to_calibration(const calib_result *r, const calib_point *points, int n, engine_calibration *cal);

/* ---- node_bytes: the GPU's bytes per kernel node, from any model's runs on it ---- */

/* What a run measured, bytes; NAN where the log does not bound it. */
typedef struct {
    double static_bytes, largest_bytes, buckets_bytes, target_bytes, draft_bytes;
} calib_measured;

/* One run's share of the node_bytes fit: the part of its capture the kernel nodes are priced in,
 * measured, less every term of its estimate that is not a node term, against those nodes. */
typedef struct {
    int64_t run_id;
    char model[ENGINE_NAME_MAX];
    char layout[48];
    uint32_t graphs;   /* target graphs captured: runs of two graph counts part node_bytes */
    double nodes;      /* kernel nodes the measured part holds (expected counts) */
    double bytes;      /* the measured part less its non-node terms */
    double tolerance;  /* how far the log's two-decimal GiB can move BYTES */
    bool from_buckets; /* the buckets layer (the bars bound it): the further graphs alone */
    bool with_draft;   /* a total with the draft group's memory and the draft graphs' nodes */
} calib_node_point;

/* Fills OUT from run D's estimate E, which must build every term from its mechanism (no model
 * coefficient, no calibration: the caller clears them), and what it measured, M. The buckets
 * layer where the bars bound it and more than one graph was captured (the further graphs' nodes,
 * wrappers, NCCL work and outputs alone), else the target total, with the draft where measured.
 * Returns false with WHY when the run gives nothing to fit. */
bool calib_node_point_from_estimate(const engine_deployment *d, const engine_estimate *e, const calib_measured *m,
                                    calib_node_point *out, char *why, size_t whylen);

/* The bounds of a fitted node_bytes: the node_bytes knob's range (256 B .. 1 MiB). */
#define CALIB_NODE_BYTES_MIN 256.0
#define CALIB_NODE_BYTES_MAX 1048576.0

typedef struct {
    bool fitted;
    engine_range node_bytes; /* the slope, and the runs' own spread (with their rounding) */
    double slope;            /* least squares through the origin, bytes per node; NAN: not fitted */
    int n_points;
    bool used[CALIB_MAX_POINTS];
    double k[CALIB_MAX_POINTS];            /* each point's own bytes per node (NAN: not used) */
    double residual_pct[CALIB_MAX_POINTS]; /* 100 x (bytes - slope x nodes) / bytes */
    int n_runs;
    int64_t runs[CALIB_MAX_POINTS];
    int n_models;
    char models[CALIB_MAX_POINTS][ENGINE_NAME_MAX];
    int n_graph_counts;
    char advice[ENGINE_TEXT_MAX * 2]; /* when not fitted: why, and the data that would make it possible */
} calib_node_result;

/* One slope through the origin over N points (at most CALIB_MAX_POINTS): it takes at least two
 * runs of two graph counts, or of two models (one run cannot part bytes per node from what else
 * its graphs hold). A slope outside the knob's range is refused. */
void calib_fit_node_bytes(const calib_node_point *p, int n, calib_node_result *r);

/* Estimate terms with CAL, and the calibration's static intercept booked to the static layer
 * while the estimator has no term that carries it (once one is calibrated, this is
 * engine_estimate_terms). */
void calib_estimate_terms(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);

#endif
