/* calibrate.h — fits the estimator's non-exact terms from measured runs (MODEL.md, "Calibration";
 * issue 10). The fit's model is the estimator's own: for each run the exact and derived terms of
 * its own knobs are subtracted, and what is left is explained by the terms whose source is
 * `coefficient` or `unknown`, plus one intercept per pool for the unexplained part of the static
 * layer. Every kind of measurement a log holds is a row of one least-squares system:
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
    bool free[COEF_COUNT];      /* the run's estimate takes this coefficient (source coefficient/unknown) */
} calib_point;

/* Fills P's estimator side from the run's deployment D and its estimate E (computed without a
 * calibration); the measured side is the caller's. */
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

/* Estimate terms with CAL, and the calibration's static intercept booked to the static layer
 * while the estimator has no term that carries it (once one is calibrated, this is
 * engine_estimate_terms). */
void calib_estimate_terms(const engine_deployment *d, const engine_calibration *cal, engine_estimate *e);

#endif
