/* calibrate.h — fits MODEL.md's per-model coefficients from measured runs (MODEL.md,
 * "Calibration"): one point per run, least squares, the exactly known terms subtracted first.
 *
 *   largest - deepep - masked_gemm = lazy_bytes + act_bytes_per_row x attn_rows'
 *   other buckets                  = graph_bytes x (n - 1) + out_bytes_per_row x sum(bs x mtp)
 *   draft                          = draft_base_bytes + draft_bytes_per_row x attn_rows
 *
 * A slope needs runs whose rows differ; otherwise only the intercept is fitted against the
 * current slope, and the result says so. A negative fitted value is refused with the reason.
 * Pure: the caller builds the points (from the store and the estimator) and prints the result. */
#ifndef CGPLAN_CALIBRATE_H
#define CGPLAN_CALIBRATE_H

#include "engine.h"

#define CALIB_MAX_POINTS ENGINE_MAX_CAL_RUNS

/* One run, with its measured layers (bytes; NAN when the log does not bound the layer) and
 * what the estimator says of the run's own knobs. */
typedef struct {
    int64_t run_id;
    char layout[48];            /* "DP16 MTP6", "DP2xDCP8 MTP5": to say which layouts were mixed */
    double static_bytes, largest_bytes, buckets_bytes, draft_bytes;
    double static_predicted;    /* the estimator's static layer (not fitted; residual reported) */
    double moe_fixed_bytes;     /* deepep + masked_gemm for the run's max_dispatch */
    double attn_rows_scaled;    /* attn_rows x heads_per_gpu / heads */
    double attn_rows;
    double other_buckets;       /* n - 1 */
    double other_rows;          /* sum over the other buckets of bs x mtp */
    bool speculative;           /* mtp > 1: a draft layer is expected */
} calib_point;

typedef enum {
    CALIB_FIT_NONE,      /* no usable run: the current value stays */
    CALIB_FIT_FULL,      /* slope and intercept fitted */
    CALIB_FIT_INTERCEPT, /* rows do not differ: only the intercept, against the current slope */
    CALIB_FIT_REFUSED    /* the fit gave a negative value: the current value stays */
} calib_fit_kind;
extern const char *const calib_fit_names[4];

typedef struct {
    calib_fit_kind kind;
    uint64_t value;   /* the coefficient to use (the fitted one, or the current one) */
    uint64_t current; /* what it was before */
    double fitted;    /* the raw fitted number (negative when refused); NAN when not fitted */
    char note[ENGINE_TEXT_MAX];
} calib_coef;

/* Residual (measured - fitted model) of one run in one fit, bytes; NAN when not used. */
typedef struct {
    int64_t run_id;
    double largest, buckets, draft, static_layer;
} calib_residual;

typedef struct {
    calib_coef coef[COEF_COUNT];
    int n_points;
    calib_residual residuals[CALIB_MAX_POINTS];
    int n_layouts;
    char layouts[CALIB_MAX_POINTS][48];
    bool mixed_layouts;
} calib_result;

/* Fits from N points (at most CALIB_MAX_POINTS are read) starting from CURRENT. */
void calib_fit(const calib_point *points, int n, const uint64_t current[COEF_COUNT], calib_result *out);

/* The fitted coefficients as a calibration the estimator takes: every coefficient that was fitted
 * (full or intercept) is marked, with the runs used. */
void calib_to_calibration(const calib_result *r, const calib_point *points, int n, engine_calibration *cal);

#endif
