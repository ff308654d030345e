/* store.h — the SQLite store of measured runs, their knobs, groups and bars, per-rank memory lines
 * and calibrations (schema versioned with PRAGMA user_version; WAL; one transaction per ingest).
 * Depends on the engine and SQLite only: what the presets know reaches it as an
 * engine_run_context. Errors come back as one line in ERR naming the database path and the fix. */
#ifndef CGPLAN_STORE_H
#define CGPLAN_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caplog.h"
#include "content_hash.h"
#include "engine.h"
#include "run_derive.h"
#include "seed_logs.h"

typedef struct store store;

typedef enum {
    STORE_READ_ONLY,  /* never creates; fails if the file does not exist */
    STORE_READ_WRITE, /* creates the file (and its directory) and seeds it when new */
} store_mode;

/* Opens the store at PATH (creating it, empty, when new and READ_WRITE; migrating an older
 * schema). A file that is not a cgplan SQLite store is reported and left untouched. Returns NULL
 * with ERR set. A write waits for another process's write transaction up to 60 s (the
 * environment's CGPLAN_BUSY_TIMEOUT_MS, in ms, overrides), then fails saying so. */
store *store_open(const char *path, store_mode mode, char *err, size_t errlen);

/* Fills CTX to derive SEED's run (its deployment preset SEED->preset gives what the log lacks).
 * Returns 0, or -1 with the reason in ERR. CTX and what it points to must stay valid until the
 * next call or until store_open_seeded returns. */
typedef int (*store_seed_context_fn)(void *arg, const store_seed_log *seed, engine_run_context *ctx, char *err,
                                     size_t errlen);
/* The same, and a store this call creates is seeded with store_seed_logs, each derived through
 * the context FN fills, in the transaction that creates it: a new store is never seen unseeded.
 * FN is called only then. */
store *store_open_seeded(const char *path, store_mode mode, store_seed_context_fn fn, void *arg, char *err,
                         size_t errlen);
void store_close(store *s);

/* One stored run as lists and plots need it. Measured values are GiB as the log printed them;
 * NAN where the log does not bound the layer. */
typedef struct {
    int64_t id;
    char label[ENGINE_TEXT_MAX];
    char source[ENGINE_TEXT_MAX]; /* the log's file name */
    char model[ENGINE_NAME_MAX];
    char gpu[ENGINE_NAME_MAX]; /* "" when unknown */
    bool gpu_inferred;
    bool reconstructed; /* the article's seeded runs */
    char created_at[32];
    uint32_t world, dp, dcp, max_bs, mtp, max_dispatch; /* 0 where unknown */
    uint32_t n_buckets;
    engine_knobs_state knobs; /* every knob as stored; 0 where unknown */
    double static_gib, largest_gib, buckets_gib, draft_gib, target_total_gib, total_gib;
    /* Its record does not read back (damaged, or a knob value this cgplan refuses): listed from
     * its columns alone, knobs 0; store_get_run says what. Never calibrated. */
    bool damaged;
} store_run_summary;

/* Every run, newest first (at most CAP; *N gets how many), a damaged one marked (damaged) rather
 * than stopping the list. Returns 0 or -1 with ERR (a database error). */
int store_list_runs(store *s, store_run_summary *out, size_t cap, size_t *n, char *err, size_t errlen);
/* Deletes run ID with its groups, bars and rank lines. Returns 0, 1 when there is no such run,
 * -1 on a database error. */
int store_delete_run(store *s, int64_t id, char *err, size_t errlen);
/* Sets R's knob numbers (0 where unknown) from VALUES, a run's knobs zero where unknown. */
void store_summary_set_knobs(store_run_summary *r, const engine_deployment *values);

/* A run with everything the estimator needs to recompute it for its own knobs. */
typedef struct {
    store_run_summary summary;
    char preset[ENGINE_NAME_MAX]; /* the --preset given at ingest ("" if none) */
    engine_knob_origin model_origin; /* where its model came from (log, set, preset); UNKNOWN: none */
    engine_deployment values;     /* its knobs where origin[] is known (buckets: the list the log
                                   * captured; gpu.name: summary.gpu); every other field is zero */
    engine_knob_origin origin[KNOB_COUNT];
    bool has_backend, has_a2a; /* the run states them (its log, or its preset at ingest) */
    engine_backend backend;
    engine_a2a a2a;
} store_run_detail;

/* Returns 0, 1 when there is no run ID, -1 on a database error (ERR set). */
int store_get_run(store *s, int64_t id, store_run_detail *out, char *err, size_t errlen);

/* The newest calibration for (MODEL, GPU), of any release: 1 and CAL filled, 0, or -1 with ERR
 * as store_load_calibration_for. (Prefer that one: calibrations pool by release.) */
int store_load_calibration(store *s, const char *model, const char *gpu, engine_calibration *cal, char *err,
                           size_t errlen);
/* The newest calibration for (MODEL, GPU, RELEASE) — RELEASE as engine_release_text writes it;
 * one stored before releases were pooled (schema 2) matches any; RELEASE NULL: any. These loads
 * return 1 (found, CAL filled), 0 (none), or -1 with ERR naming the row and its fix when a value
 * read back is outside the bounds the save keeps (the store was edited or damaged). */
int store_load_calibration_for(store *s, const char *model, const char *gpu, const char *release,
                               engine_calibration *cal, char *err, size_t errlen);
/* Everything a plan takes from the store: the newest calibration of its model, GPU and release,
 * and its GPU's node_bytes calibration (store_load_node_calibration), whatever the model. Returns
 * 1 when either was found, 0, or -1 with ERR (either out of bounds; CAL cleared); CAL is cleared first. */
int store_load_plan_calibration(store *s, const engine_deployment *d, engine_calibration *cal, char *err,
                                size_t errlen);
/* Stores a calibration of (MODEL, GPU, RELEASE) with the human report that explains it.
 * HELD_NODE_BYTES is the node_bytes its fit held the kernel-node terms at (0: not known). A value
 * the estimate's arithmetic is not sized for (a coefficient over ENGINE_COEF_MAX, static_bytes over
 * ENGINE_SIZE_MAX) is refused, as every load refuses it. Returns 0 or -1 with ERR. */
int store_save_calibration(store *s, const char *model, const char *gpu, const char *release,
                           const engine_calibration *cal, uint64_t held_node_bytes, const char *report, char *err,
                           size_t errlen);

/* One stored calibration, for `calibrate list`. */
typedef struct {
    int64_t id;
    char model[ENGINE_NAME_MAX], gpu[ENGINE_NAME_MAX];
    char release[ENGINE_RELEASE_TEXT_MAX]; /* "" : any (stored before releases were pooled) */
    char created_at[32];
    bool current; /* the newest of its pool: the one the estimate uses */
    engine_calibration cal;
    /* The node_bytes its fit held the kernel-node terms at; 0: fitted before node_bytes was
     * calibrated per GPU (schema 7 and older), so a graph_bytes in it carries the model's node
     * cost, and still overrides the mechanism for its own model. */
    uint64_t held_node_bytes;
} store_calibration_info;
/* Calls FN for every stored calibration, newest first. Returns 0 or -1 with ERR. */
int store_each_calibration(store *s, void (*fn)(const store_calibration_info *c, void *ctx), void *ctx, char *err,
                           size_t errlen);
/* Deletes the calibrations of (MODEL, GPU, RELEASE): a NULL narrows nothing (all NULL: every
 * one). Returns how many were deleted, or -1 with ERR. */
int store_delete_calibrations(store *s, const char *model, const char *gpu, const char *release, char *err,
                              size_t errlen);

/* Deletes the one calibration ID: of node_bytes (gpu_calibrations) or of a model. Returns how
 * many were deleted (0 or 1), or -1 with ERR. */
int store_delete_calibration_id(store *s, bool node_bytes, int64_t id, char *err, size_t errlen);

/* ---- A GPU's node_bytes, fitted over any model's runs on it (schema 8) ---- */

typedef struct {
    int64_t id;
    char gpu[ENGINE_NAME_MAX];
    char release[ENGINE_RELEASE_TEXT_MAX]; /* "": pooled over every release its runs hold */
    char created_at[32];
    bool current; /* the newest of its (GPU, release): the one the estimate uses */
    engine_range node_bytes;
    int n_runs;                         /* every run behind it */
    int64_t runs[ENGINE_MAX_CAL_RUNS];  /* the first ENGINE_MAX_CAL_RUNS of them */
    char run_releases[ENGINE_TEXT_MAX]; /* "0.5.3,main@2026-07-20": the releases of its runs */
    char run_models[ENGINE_TEXT_MAX];   /* "qwq-32b,llama-3.1-8b": their models */
} store_node_calibration;

/* Stores C (its id, created_at and current are ignored) with the report that explains it. A
 * node_bytes outside the node_bytes knob's 256 B .. 1 MiB, or a range that does not hold it, is refused. Returns 0 or
 * -1 with ERR. */
int store_save_node_calibration(store *s, const store_node_calibration *c, const char *report, char *err,
                                size_t errlen);
/* The newest node_bytes calibration of GPU for RELEASE (engine_release_text's; NULL or "": any):
 * the release's own before one pooled over every release. Sets CAL's node_bytes fields (with
 * its source text) and leaves the rest; returns 1 when one was found, 0, or -1 with ERR (out of
 * the bounds the save keeps). */
int store_load_node_calibration(store *s, const char *gpu, const char *release, engine_calibration *cal, char *err,
                                size_t errlen);
/* Calls FN for every stored node_bytes calibration, newest first. Returns 0 or -1 with ERR. */
int store_each_node_calibration(store *s, void (*fn)(const store_node_calibration *c, void *ctx), void *ctx, char *err,
                                size_t errlen);
/* Deletes the node_bytes calibrations of GPU and RELEASE (a NULL narrows nothing). Returns how
 * many, or -1 with ERR. */
int store_delete_node_calibrations(store *s, const char *gpu, const char *release, char *err, size_t errlen);

/* Sets run ID's model (a model preset's name), its origin "set". Returns 0, 1 when there is no
 * such run, -1 on a database error. */
int store_set_run_model(store *s, int64_t id, const char *model, char *err, size_t errlen);

/* Replaces run ID's knobs by VALUES where ORIGIN is known (`runs set`: the run's own knobs with
 * those set, origin "set"), in one transaction. Returns 0, 1 when there is no such run, -1 on a
 * database error. */
int store_set_run_knobs(store *s, int64_t id, const engine_deployment *values,
                        const engine_knob_origin origin[KNOB_COUNT], char *err, size_t errlen);

/* ---- Additions (issue 2): schema version, ingest, the facts of a run, details for `runs show`. */

#define STORE_SCHEMA_VERSION 8 /* PRAGMA user_version of the newest schema this program writes */

typedef struct store_ingest store_ingest;
typedef struct store_ingest_result store_ingest_result;

/* What ingest takes beside the log's bytes. */
typedef struct {
    const char *source;               /* the name runs are shown by: the log's file name */
    const char *path;                 /* the path as given; NULL: none (the seed) */
    const char *label;                /* --label; NULL: none */
    const char *preset;               /* --preset as given; NULL: none */
    bool reconstructed;               /* the article's seeded runs */
    const engine_run_context *derive; /* what --preset/--set and the presets give beside the log
                                       * (engine_run_derive); must outlive the store_ingest */
    size_t buffer_bytes;              /* the parsed rows kept in memory before they spill to a
                                       * file in $TMPDIR; 0: 64 MiB (tests set less) */
    /* Called with the runs written, just before the commit that stores them (RES: their count
     * and ids; store_ingest_each_run walks them): a caller may build its report on another
     * thread while the commit runs, to show it once store_ingest_finish returned 0. NULL: none. */
    void (*written)(const store_ingest *in, const store_ingest_result *res, void *ctx);
    void *written_ctx;
} store_ingest_opts;

/* One file, one short transaction. Feed the file's bytes in chunks: every run the parser emits is
 * derived at once and its rows kept (in memory up to buffer_bytes, then in an unlinked temporary
 * file), with no lock held, however slow the input. store_ingest_finish then, knowing the content
 * hash, reports a stored copy without writing, or takes the write lock (BEGIN IMMEDIATE, waiting
 * for another writer as store_open says) and writes every row in one transaction: killed at any
 * moment, the store keeps exactly the runs it had. */
struct store_ingest_result {
    bool recognised;       /* the input held SGLang start-up lines */
    int64_t duplicate_of;  /* > 0: the same bytes are already stored as this run; nothing written */
    size_t n_runs;         /* runs stored by this file */
    int64_t first_run_id;  /* their ids, in file order: first_run_id .. first_run_id + n_runs - 1
                            * (one transaction under the write lock: AUTOINCREMENT's next ids) */
    uint64_t bytes, lines;
    char content_hash[STORE_HASH_TEXT_MAX]; /* the file's identity (content_hash.h) */
};

store_ingest *store_ingest_begin(store *s, const store_ingest_opts *o, char *err, size_t errlen);
/* Returns 0, or -1 with ERR after a database error (the file's transaction is then void). */
int store_ingest_feed(store_ingest *in, const char *buf, size_t len, char *err, size_t errlen);
/* store_ingest_feed's two halves, for a caller that reads on one thread and parses on another:
 * store_ingest_hash takes the file's bytes, in order (its content hash), store_ingest_apply the
 * tokens the parser's lexer made of the same bytes (caplog_lex, then caplog_lex_end's), in order.
 * The two share nothing, so one thread may hash while another applies; a file is fed one way or
 * the other, not both. store_ingest_apply returns 0, or -1 with ERR (the file's ingest is void). */
void store_ingest_hash(store_ingest *in, const char *buf, size_t len);
int store_ingest_apply(store_ingest *in, const caplog_tokens *t, char *err, size_t errlen);
/* Ends the input, checks the content hash and writes. Returns 0 with RES filled (also for a
 * duplicate: nothing written); 1 when the input holds nothing recognisable (nothing written);
 * -1 on a database error, a write lock not had in time, or a full disk (nothing written, ERR
 * set). RES stays valid until store_ingest_free. */
int store_ingest_finish(store_ingest *in, store_ingest_result *res, char *err, size_t errlen);
/* Calls FN with what `cgplan ingest` reports of each of the file's runs, in file order, kept from
 * its derivation as a listing of the stored run would read it, and the run's first line in the
 * file. SCRATCH is the run FN gets: its id (0 before the runs are written), model, gpu,
 * gpu_inferred, world, dp, dcp, mtp, max_bs and target_total, draft, total and largest GiB are
 * set, every other field left as it was. The older runs' reports come back from a temporary file
 * a chunk at a time, so memory stays bounded in the run count; the walk takes no lock and may run
 * on another thread during the commit. Returns 0, FN's first non-zero return, or -1 with ERR when
 * the reports cannot be read back. Valid after store_ingest_finish returned 0. */
int store_ingest_each_run(const store_ingest *in, store_run_summary *scratch,
                          int (*fn)(const store_run_summary *run, uint32_t first_line, void *ctx), void *ctx,
                          char *err, size_t errlen);
/* Frees (an unfinished ingest has written nothing). */
void store_ingest_free(store_ingest *in);

/* Why a run cannot enter a calibration (unknown GPU or model, no measured target layers),
 * or NULL when it can: the reason ("GPU unknown") and the whole text, reason and fix. */
typedef struct {
    const char *reason;
    const char *text;
} store_exclusion;
const store_exclusion *store_run_calibration_excluded(const store_run_summary *r);
/* Its text, or NULL. */
const char *store_run_calibration_exclusion(const store_run_summary *r);

/* A stored group, for `runs show`. */
typedef struct {
    int ordinal;
    char kind[CAPLOG_KIND_MAX];   /* "" for a bars-only group */
    char role[16], phase[16];     /* "" when none */
    int32_t step, tokens_per_req; /* -1: none */
    char rank[CAPLOG_LABEL_MAX];
    bool is_target, failed;
    char failure[CAPLOG_STR_MAX];
    uint32_t n_sizes, n_bars;
    uint32_t first_size; /* the largest bucket (capture order); 0: unknown */
    double begin_avail_gib, end_avail_gib, end_usage_gib, end_elapsed_s;
    double static_gib, largest_gib, buckets_gib, total_gib;
    int64_t registered_addresses; /* "Registering N cuda graph addresses"; -1: not logged */
} store_group_info;

typedef struct {
    char label[CAPLOG_LABEL_MAX];
    double weights_begin_avail_gib, weights_usage_gib, kv_gib, state_gib, pool_avail_gib;
    int64_t kv_tokens; /* -1 */
} store_rank_info;

typedef struct {
    char path[ENGINE_TEXT_MAX];
    char content_hash[STORE_HASH_TEXT_MAX];
    char model_path[CAPLOG_STR_MAX];
    uint32_t first_line, last_line;
    uint64_t lines, unknown_lines, malformed_lines;
    char env_dispatch[CAPLOG_ENV_VALUE_MAX]; /* SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK */
} store_run_extra;

/* Groups (at most CAP) and ranks (at most RCAP) of run ID, and the file facts. Returns 0, 1 when
 * there is no such run, -1 on a database error. Any output pointer may be NULL. */
int store_get_run_parts(store *s, int64_t id, store_group_info *groups, size_t cap, size_t *n_groups,
                        store_rank_info *ranks, size_t rcap, size_t *n_ranks, store_run_extra *extra, char *err,
                        size_t errlen);

/* Every run id of (MODEL, GPU) oldest first (at most CAP). Returns the count or -1. */
int store_runs_for(store *s, const char *model, const char *gpu, int64_t *ids, size_t cap, char *err, size_t errlen);

/* Calls FN for every run, newest first, without holding them all in memory; a damaged one is
 * passed marked (store_run_summary.damaged). Returns 0 or -1 (a database error). */
int store_each_run(store *s, void (*fn)(const store_run_summary *r, void *ctx), void *ctx, char *err, size_t errlen);

/* The same for the runs with FROM_ID <= id <= TO_ID, oldest first (one query). */
int store_each_run_range(store *s, int64_t from_id, int64_t to_id, void (*fn)(const store_run_summary *r, void *ctx),
                         void *ctx, char *err, size_t errlen);

/* The database's path as opened. */
const char *store_path(const store *s);

#endif
