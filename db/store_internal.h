/* store_internal.h — what the store's own files share (not part of the API). */
#ifndef CGPLAN_STORE_INTERNAL_H
#define CGPLAN_STORE_INTERNAL_H

#include <sqlite3.h>

#include "store.h"

#define STORE_APPLICATION_ID 0x63677031 /* "cgp1": PRAGMA application_id of a cgplan store */
/* How long a writer waits for another's transaction (CGPLAN_BUSY_TIMEOUT_MS overrides). Ingest
 * holds the lock only to write rows already parsed: 0.2 s for a 128 MiB log, 0.8 s for the 1 GiB
 * of bench/bench_ingest.sh (schema 6, measured on 2 cores; 1.4 s with schema 5's copy of the texts
 * per run, 0.8 s a 100 MiB and 9 s with a row per bar). 60 s lets seven 100 MiB writes queued
 * ahead finish with 10x to spare, or one 1 GiB write with 6x, and still gives up on a stuck holder
 * within a minute. */
#define STORE_BUSY_TIMEOUT_MS 60000

struct store {
    sqlite3 *db;
    char path[4096];
    bool read_only;
    bool in_transaction; /* a migration's transaction is open: ingest joins it (the seed) */
    int busy_timeout_ms;
    double busy_since; /* when the current wait for the lock began (monotonic seconds) */
    uint64_t jitter;   /* xorshift state of the busy handler's sleeps */
};

extern const char store_schema_sql[]; /* db/schema.sql, embedded at build time */

/* The message into ERR as one line: control characters as their visible escapes. */
void store_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "PATH: <sqlite's message>; <hint>" for a failed statement. */
void store_db_err(const store *s, char *err, size_t errlen, const char *doing);
int store_exec(store *s, const char *sql, char *err, size_t errlen);
/* Ingests store_seed_logs through FN's contexts (inside the transaction that creates the store). */
int store_seed(store *s, store_seed_context_fn fn, void *arg, char *err, size_t errlen);

/* ---- Rows: one column table per SQL table drives its INSERT, the binds and every SELECT. ---- */

typedef enum {
    STORE_COL_TEXT,   /* const char *: NULL or "" is NULL; read back, it points into the statement's row */
    STORE_COL_KEY,    /* const char *, never NULL ("" too is a value) */
    STORE_COL_INT,    /* int64_t, always a value */
    STORE_COL_POS,    /* int64_t: <= 0 is NULL (unknown); NULL reads 0 */
    STORE_COL_NONNEG, /* int64_t: < 0 is NULL; NULL reads -1 */
    STORE_COL_REAL,   /* double: NaN is NULL; NULL reads NaN */
    STORE_COL_BOOL,   /* bool */
    STORE_COL_BLOB,   /* store_bytes: length 0 is NULL; read back, it points into the statement's row */
} store_col_type;

/* A BLOB value: P borrowed, LEN bytes. */
typedef struct {
    const unsigned char *p;
    size_t len;
} store_bytes;

typedef struct {
    const char *name;
    store_col_type type;
    size_t offset;            /* in the table's row struct */
    const char *null_default; /* the SQL the INSERT puts for a NULL value; NULL: none */
    bool key;                 /* id, run_id, group_id: a record leaves it out (its place says it) */
    /* The table keeps the value once in run_texts and this column its id (a log's runs repeat
     * the same server args and knobs): the row has the text or blob, a SELECT reads it through
     * the id, and the ingest binds the id (store_text_id). */
    bool in_texts;
} store_column;

typedef struct {
    const char *name;
    const store_column *cols;
    int n_cols;
    /* runs only: each KNOB_STORE_COLUMN knob is also a column (named like the knob, its
     * canonical text) with NAME_origin, kept in the const char *[KNOB_COUNT] arrays at these
     * offsets of the row */
    bool knob_columns;
    size_t knob_offset, knob_origin_offset;
} store_table;

/* The row structs. Integers are int64_t, texts borrowed pointers. */
typedef struct {
    int64_t id; /* 0 on insert: SQLite assigns it */
    const char *source, *path, *content_hash;
    int64_t file_run;
    const char *label, *model, *model_origin, *model_path;
    bool gpu_inferred;
    const char *preset;
    bool reconstructed;
    const char *created_at; /* NULL on insert: the time SQLite gives */
    int64_t first_line, last_line, lines, unknown_lines, truncated_lines, malformed_lines;
    const char *server_args_raw, *attention_backend, *a2a;
    int64_t target_group;
    double static_gib, largest_gib, buckets_gib, target_total_gib, draft_gib, total_gib;
    store_bytes knobs;  /* the run's KNOB_STORE_ROW knobs, one record (store_knobs_*) */
    store_bytes detail; /* its groups with their bars, ranks and env lines, one record (store_detail_*) */
    const char *knob[KNOB_COUNT], *knob_origin[KNOB_COUNT]; /* the column knobs (the GPU); else NULL */
} store_run_row;

typedef struct {
    int64_t id, run_id, ordinal;
    const char *kind, *role, *phase;
    int64_t step;
    const char *rank_label;
    int64_t first_line;
    double begin_avail_gib;
    int64_t tokens_per_req;
    bool sizes_are_num_tokens;
    const char *sizes; /* capture order, largest first */
    int64_t bar_total;
    bool captured, has_begin, has_end;
    double end_elapsed_s, end_usage_gib, end_avail_gib;
    bool failed;
    const char *failure;
    double static_gib, largest_gib, buckets_gib, total_gib;
    int64_t registered_addresses; /* custom all-reduce's "Registering N": -1 (NULL) when not logged */
} store_group_row;

typedef struct {
    int64_t group_id, ordinal, size, position, counter;
    double avail_gib, increment_gib;
} store_bar_row;

typedef struct {
    int64_t run_id, ordinal;
    const char *label;
    int64_t tp;
    double weights_begin_avail_gib, weights_end_avail_gib, weights_usage_gib;
    int64_t kv_tokens;
    double kv_gib, state_gib, pool_avail_gib;
    int64_t max_total_num_tokens;
    double available_gpu_mem_gib;
} store_rank_row;

typedef struct {
    int64_t run_id, ordinal;
    const char *key, *value;
} store_env_row;

/* One knob of a run's knobs record: engine_knobs[].name, its canonical text, its origin's name. */
typedef struct {
    const char *knob, *value, *origin;
} store_knob_row;

typedef struct {
    int64_t run_id;
    const char *term, *method; /* see store_terms.h */
    int64_t bytes, size;       /* size 0: not known */
} store_term_row;

/* A GPU's node_bytes calibration (gpu_calibrations). */
typedef struct {
    int64_t id; /* 0 on insert: SQLite assigns it */
    const char *gpu, *sglang;
    const char *created_at; /* NULL on insert: the time SQLite gives */
    int64_t node_bytes, node_bytes_low, node_bytes_high, n_runs;
    const char *runs, *run_releases, *run_models, *report;
} store_gpu_calibration_row;

/* store_run_summary_table: the columns of runs a listing reads (the rest of the row untouched). */
extern const store_table store_run_summary_table;
extern const store_table store_runs_table, store_groups_table, store_bars_table, store_ranks_table, store_env_table,
    store_knob_rows_table, store_measured_terms_table, store_gpu_calibrations_table;

/* "INSERT INTO t (a, b, ...) VALUES (?1, ?2, ...)". */
void store_insert_sql(const store_table *t, char *buf, size_t len);
/* How store_insert_rows_sql writes its INSERT (flags). */
enum {
    STORE_INSERT_OR_ROLLBACK = 1, /* INSERT OR ROLLBACK: a failure voids the transaction, so SQLite
                                   * keeps no statement journal */
    STORE_INSERT_NO_DEFAULTS = 2, /* no null_default: the caller binds each such column's value */
};
/* The same for ROWS rows at once: "... VALUES (?1, .. ?n), (?n+1, .. ?2n), ...". */
void store_insert_rows_sql(const store_table *t, int rows, unsigned flags, char *buf, size_t len);
/* "SELECT <FIRST, >a, b, ... FROM t <TAIL>": FIRST (may be NULL) are computed columns before the
 * table's, which store_read_row then reads from their count on. */
void store_select_sql(const store_table *t, const char *first, const char *tail, char *buf, size_t len);
void store_bind_row(sqlite3_stmt *st, const store_table *t, const void *row);
/* One value store_bind_row binds (SQLITE_NULL, _INTEGER, _FLOAT or _TEXT; a text is borrowed from
 * the row), for a caller that keeps rows to bind later: ingest derives a file's rows before it
 * takes the write lock. */
typedef struct {
    int type;
    int64_t i;
    double d;
    const char *text;
    size_t len; /* a BLOB's bytes (TEXT: strlen) */
} store_value;
#define STORE_MAX_VALUES 96 /* runs: 31 columns and two per column knob (checked in store_row.c) */
/* Fills OUT (STORE_MAX_VALUES of room) with the values of ROW's columns in INSERT order; returns
 * how many. */
int store_row_values(const store_table *t, const void *row, store_value *out);
/* Reads the table's columns from result column FIRST on. Texts stay valid until the next step. */
void store_read_row(sqlite3_stmt *st, int first, const store_table *t, void *row);

/* ---- Records: what no query filters on, one BLOB per run (schema version 5) ----
 *
 * A run's knobs (in run_texts, by runs.knobs_text: runs share it) and its groups with their bars,
 * ranks and env lines (runs.detail) are each one record, written whole at ingest and decoded whole
 * by the readers: a row per bar and per knob cost SQLite more than the rest of an ingest. A record
 * is a version byte, then for each part a count and its rows; a row is its value count, then each
 * value tagged with its type (driven by the same column tables as the SQL tables, less the keys
 * its place in the record implies: id, run_id, group_id). Every length is checked on decoding: a
 * damaged record is reported, never read past. */
#define STORE_RECORD_VERSION 1

/* A growing byte buffer for a record; FAILED once out of memory (the bytes are then void). */
typedef struct {
    unsigned char *p;
    size_t len, cap;
    bool failed;
} store_record;

/* The integers of the ingest's encoded rows and of records: V as a varint (seven bits a byte, low
 * first) at P, its bytes returned; a signed one zigzagged first, so a small negative number is a
 * small varint too. */
static inline size_t store_put_varint(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    for (; v >= 0x80; v >>= 7)
        p[n++] = (unsigned char)(v | 0x80);
    p[n++] = (unsigned char)v;
    return n;
}

/* The varint at *P into *V, if it ends before END (*P then past it); false when it does not (a
 * damaged record or spill file). */
static inline bool store_get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; *p < end && shift < 64; shift += 7) {
        unsigned char b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

static inline uint64_t store_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t store_unzigzag(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

void store_record_free(store_record *r);
/* Starts a record: the version byte. */
void store_record_begin(store_record *r);
void store_record_count(store_record *r, uint64_t n);
/* ROW's values of table T (its key columns left out). */
void store_record_row(store_record *r, const store_table *t, const void *row);
/* The bytes of SRC after ITS version byte (a part built apart, its count known only at its end). */
void store_record_append(store_record *r, const store_record *src);

/* Reads a record; BAD once it is damaged (every later read then fails too). */
typedef struct {
    const unsigned char *p, *end;
    bool bad;
} store_record_reader;

/* Starts reading B (length 0: an empty record, every count 0). False for a record of another
 * version or a damaged one. */
bool store_record_open(store_record_reader *r, store_bytes b);
/* A count; *N is 0 once the reader is bad or when the record is empty. */
bool store_record_get_count(store_record_reader *r, uint64_t *n);
/* A row of T into ROW: its columns in order, those the record lacks NULL (an older cgplan's
 * record), values past T's columns skipped (a newer one's). Texts point into the record. */
bool store_record_get_row(store_record_reader *r, const store_table *t, void *row);
/* The record ends exactly here. */
bool store_record_done(store_record_reader *r);

/* Reads ROW's knobs record and column knobs into VALUES and ORIGIN (both cleared first). Returns
 * 0, or -1 with ERR naming the run (a damaged record, a knob value this cgplan refuses). */
int store_read_knobs(store *s, const store_run_row *row, engine_deployment *values,
                     engine_knob_origin origin[KNOB_COUNT], char *err, size_t errlen);

/* Decodes run ID's detail record DETAIL (TARGET: its target group's ordinal) into GROUPS (CAP of
 * room; *N_GROUPS counted), RANKS (RCAP; *N_RANKS) and EXTRA's env_dispatch, each may be NULL.
 * Returns 0, or -1 with ERR naming the run (S's path) when the record is damaged. */
int store_read_detail(store *s, int64_t id, store_bytes detail, int64_t target, store_group_info *groups, size_t cap,
                      size_t *n_groups, store_rank_info *ranks, size_t rcap, size_t *n_ranks, store_run_extra *extra,
                      char *err, size_t errlen);

#endif
