/* store.c — opening, validating, migrating and reading cgplan's SQLite store.
 *
 * A store is an SQLite file with application_id "cgp1" and user_version = its schema version.
 * Nothing is written to a file before it is known to be a cgplan store (or an empty file): a
 * database of another program, a damaged file or random bytes are reported and left untouched.
 * WAL and a busy timeout let two cgplan processes work on one store at once. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_internal.h"

const char *const store_origin_names[6] = {"", "log", "env", "preset", "set", "inferred"};

const char *store_origin_name(store_origin o)
{
    return (unsigned)o < 6 ? store_origin_names[o] : "";
}

/* db/schema.sql, verbatim (test_store checks they are identical). */
const char store_schema_v1[] =
    "-- schema.sql — cgplan's store, version 1 (PRAGMA user_version = 1). Reference copy: the program\n"
    "-- runs the identical text embedded in db/store.c (migrate_0_to_1). NULL means \"not known\"; a\n"
    "-- knob's *_origin says where its value came from (log, env, preset, set, inferred).\n"
    "CREATE TABLE runs (\n"
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,          -- ids are never reused after `runs rm`\n"
    "  source TEXT NOT NULL,                          -- the log's file name\n"
    "  path TEXT,                                     -- as given at ingest (NULL for the seed)\n"
    "  sha256 TEXT NOT NULL,                          -- of the whole file: re-ingest detection\n"
    "  file_run INTEGER NOT NULL,                     -- 0-based position of the run in its file\n"
    "  label TEXT,\n"
    "  model TEXT, model_origin TEXT, model_path TEXT,\n"
    "  gpu TEXT, gpu_origin TEXT, gpu_inferred INTEGER NOT NULL DEFAULT 0,\n"
    "  preset TEXT,\n"
    "  reconstructed INTEGER NOT NULL DEFAULT 0,\n"
    "  created_at TEXT NOT NULL,\n"
    "  first_line INTEGER, last_line INTEGER,\n"
    "  lines INTEGER, unknown_lines INTEGER, truncated_lines INTEGER, malformed_lines INTEGER,\n"
    "  server_args_raw TEXT,\n"
    "  world INTEGER, world_origin TEXT,\n"
    "  dp INTEGER, dp_origin TEXT,\n"
    "  dcp INTEGER, dcp_origin TEXT,\n"
    "  max_bs INTEGER, max_bs_origin TEXT,\n"
    "  mtp INTEGER, mtp_origin TEXT,\n"
    "  max_dispatch INTEGER, max_dispatch_auto INTEGER NOT NULL DEFAULT 0, max_dispatch_origin TEXT,\n"
    "  context_len INTEGER, context_len_origin TEXT,\n"
    "  mem_fraction_static REAL, mem_fraction_static_origin TEXT,\n"
    "  buckets TEXT, buckets_origin TEXT,             -- \"16,24,...,192\" ascending, or \"auto\"\n"
    "  attention_backend TEXT, a2a TEXT,\n"
    "  target_group INTEGER,                          -- ordinal of the target group\n"
    "  static_gib REAL, largest_gib REAL, buckets_gib REAL,\n"
    "  target_total_gib REAL, draft_gib REAL, total_gib REAL\n"
    ");\n"
    "CREATE INDEX runs_sha256 ON runs(sha256);\n"
    "CREATE INDEX runs_model_gpu ON runs(model, gpu);\n"
    "CREATE TABLE groups (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  ordinal INTEGER NOT NULL,\n"
    "  kind TEXT, role TEXT, phase TEXT, step INTEGER,\n"
    "  rank_label TEXT, first_line INTEGER,\n"
    "  begin_avail_gib REAL, tokens_per_req INTEGER,\n"
    "  sizes_are_num_tokens INTEGER NOT NULL DEFAULT 0,\n"
    "  sizes TEXT,                                    -- capture order, largest first\n"
    "  bar_total INTEGER, captured INTEGER, has_begin INTEGER, has_end INTEGER,\n"
    "  end_elapsed_s REAL, end_usage_gib REAL, end_avail_gib REAL,\n"
    "  failed INTEGER NOT NULL DEFAULT 0, failure TEXT,\n"
    "  static_gib REAL, largest_gib REAL, buckets_gib REAL, total_gib REAL,\n"
    "  UNIQUE (run_id, ordinal)\n"
    ");\n"
    "CREATE TABLE bars (\n"
    "  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,\n"
    "  ordinal INTEGER NOT NULL,\n"
    "  size INTEGER, position INTEGER, counter INTEGER,\n"
    "  avail_gib REAL, increment_gib REAL,\n"
    "  PRIMARY KEY (group_id, ordinal)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE ranks (\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  ordinal INTEGER NOT NULL,\n"
    "  label TEXT NOT NULL, tp INTEGER,\n"
    "  weights_begin_avail_gib REAL, weights_end_avail_gib REAL, weights_usage_gib REAL,\n"
    "  kv_tokens INTEGER, kv_gib REAL, state_gib REAL, pool_avail_gib REAL,\n"
    "  max_total_num_tokens INTEGER, available_gpu_mem_gib REAL,\n"
    "  PRIMARY KEY (run_id, ordinal)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE env (\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  ordinal INTEGER NOT NULL,\n"
    "  key TEXT NOT NULL, value TEXT,\n"
    "  PRIMARY KEY (run_id, ordinal)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE calibrations (\n"
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "  model TEXT NOT NULL, gpu TEXT NOT NULL,\n"
    "  created_at TEXT NOT NULL,\n"
    "  act_bytes_per_row INTEGER, lazy_bytes INTEGER, graph_bytes INTEGER,\n"
    "  out_bytes_per_row INTEGER, draft_base_bytes INTEGER, draft_bytes_per_row INTEGER,\n"
    "  runs TEXT,                                     -- \"1,2\": the run ids behind it\n"
    "  report TEXT\n"
    ");\n"
    "CREATE INDEX calibrations_model_gpu ON calibrations(model, gpu);\n";

void store_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void store_db_err(const store *s, char *err, size_t errlen, const char *doing)
{
    int code = sqlite3_extended_errcode(s->db) & 0xff;
    const char *hint = "";
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
        hint = " (another cgplan is writing to it; try again when it is done)";
    else if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM)
        hint = " (check the permissions of the file and its directory, or pass --db)";
    else if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
        hint = " (the file is damaged: move it aside or pass --db)";
    else if (code == SQLITE_FULL)
        hint = " (the disk is full)";
    store_set_err(err, errlen, "%s: %s: %s%s", s->path, doing, sqlite3_errmsg(s->db), hint);
}

int store_exec(store *s, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        store_db_err(s, err, errlen, "writing");
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

const char *store_path(const store *s)
{
    return s->path;
}

/* mkdir -p of PATH's directory. */
static int make_parent_dirs(const char *path, char *err, size_t errlen)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            store_set_err(err, errlen, "%s: cannot create directory %s: %s", path, dir, strerror(errno));
            return -1;
        }
        *p = '/';
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        store_set_err(err, errlen, "%s: cannot create directory %s: %s", path, dir, strerror(errno));
        return -1;
    }
    return 0;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Reads the 100-byte SQLite header ourselves, before SQLite may touch the file: not SQLite at
 * all, or shorter than its header says (a truncated copy), is refused here. */
static int check_header(const char *path, off_t size, char *err, size_t errlen)
{
    unsigned char h[100];
    FILE *f = fopen(path, "rb");
    if (!f) {
        store_set_err(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t got = fread(h, 1, sizeof h, f);
    fclose(f);
    if (got < sizeof h || memcmp(h, "SQLite format 3", 16) != 0) {
        store_set_err(err, errlen, "%s is not a cgplan store (not an SQLite database); move it aside or pass --db",
                      path);
        return -1;
    }
    uint32_t page_size = (uint32_t)h[16] << 8 | h[17];
    if (page_size == 1)
        page_size = 65536;
    if (page_size < 512 || (page_size & (page_size - 1))) {
        store_set_err(err, errlen, "%s is damaged (bad page size in its header); move it aside or pass --db", path);
        return -1;
    }
    /* The in-header page count is valid when the change counter matches (fileformat2.html 1.3.7).
     * With a -wal file of content the main file may legitimately lag: SQLite checks that case. */
    char wal[4200];
    struct stat st;
    snprintf(wal, sizeof wal, "%s-wal", path);
    bool wal_content = stat(wal, &st) == 0 && st.st_size > 0;
    uint64_t pages = be32(h + 28);
    if (!wal_content && be32(h + 24) == be32(h + 92) && pages * page_size > (uint64_t)size) {
        store_set_err(err, errlen, "%s is damaged (truncated: %lld of %llu bytes); move it aside or pass --db", path,
                      (long long)size, (unsigned long long)(pages * page_size));
        return -1;
    }
    return 0;
}

/* The file and its directory (SQLite creates -wal and -shm beside it) can be written. */
static bool writable(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    return access(path, W_OK) == 0 && access(dir, W_OK | X_OK) == 0;
}

/* file:PATH?immutable=1 with the characters URIs reserve escaped. */
static void immutable_uri(const char *path, char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p && used + 4 < len; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20)
            used += (size_t)snprintf(out + used, len - used, "%%%02X", *p);
        else
            out[used++] = (char)*p;
    }
    out[used] = '\0';
    snprintf(out + used, len - used, "?immutable=1");
}

typedef struct {
    int64_t application_id, user_version, tables, has_runs;
} store_header_facts;

static int read_facts(store *s, store_header_facts *f, char *err, size_t errlen)
{
    static const char *const queries[4] = {
        "PRAGMA application_id",
        "PRAGMA user_version",
        "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'runs'",
    };
    int64_t *out[4] = {&f->application_id, &f->user_version, &f->tables, &f->has_runs};
    for (int i = 0; i < 4; i++) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(s->db, queries[i], -1, &st, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(st);
        if (rc != SQLITE_ROW) {
            int code = sqlite3_extended_errcode(s->db) & 0xff;
            if (code == SQLITE_NOTADB)
                store_set_err(err, errlen,
                              "%s is not a cgplan store (not an SQLite database); move it aside or pass --db", s->path);
            else if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM)
                store_set_err(err, errlen,
                              "%s cannot be read (%s): check the permissions of the file and its "
                              "directory, or pass --db",
                              s->path, sqlite3_errmsg(s->db));
            else if (code == SQLITE_CORRUPT)
                store_set_err(err, errlen, "%s is damaged (%s); move it aside or pass --db", s->path,
                              sqlite3_errmsg(s->db));
            else
                store_db_err(s, err, errlen, "reading");
            sqlite3_finalize(st);
            return -1;
        }
        *out[i] = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    return 0;
}

static int migrate_0_to_1(store *s, char *err, size_t errlen)
{
    char sql[64];
    if (store_exec(s, store_schema_v1, err, errlen) != 0)
        return -1;
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d", STORE_APPLICATION_ID);
    return store_exec(s, sql, err, errlen);
}

/* migrations[N] takes a store from version N to N + 1, inside the caller's transaction. */
typedef int (*store_migration)(store *s, char *err, size_t errlen);
static const store_migration migrations[STORE_SCHEMA_VERSION] = {migrate_0_to_1};

static int migrate(store *s, char *err, size_t errlen)
{
    if (store_exec(s, "BEGIN IMMEDIATE", err, errlen) != 0)
        return -1;
    store_header_facts f;
    if (read_facts(s, &f, err, errlen) != 0)
        goto fail;
    /* re-read under the write lock: another cgplan may have created or migrated it meanwhile */
    if (f.user_version > STORE_SCHEMA_VERSION) {
        store_set_err(err, errlen,
                      "%s has schema version %lld, newer than this cgplan's %d; upgrade cgplan or pass --db", s->path,
                      (long long)f.user_version, STORE_SCHEMA_VERSION);
        goto fail;
    }
    if (f.user_version == 0 && f.tables > 0) {
        store_set_err(err, errlen, "%s is not a cgplan store (it holds other tables); move it aside or pass --db",
                      s->path);
        goto fail;
    }
    s->in_transaction = true;
    for (int64_t v = f.user_version; v < STORE_SCHEMA_VERSION; v++) {
        if (migrations[v](s, err, errlen) != 0)
            goto fail;
        if (v == 0 && store_seed(s, err, errlen) != 0)
            goto fail;
    }
    if (f.user_version < STORE_SCHEMA_VERSION) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d", STORE_SCHEMA_VERSION);
        if (store_exec(s, sql, err, errlen) != 0)
            goto fail;
    }
    s->in_transaction = false;
    if (store_exec(s, "COMMIT", err, errlen) != 0)
        goto fail;
    return 0;
fail:
    s->in_transaction = false;
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

store *store_open(const char *path, store_mode mode, char *err, size_t errlen)
{
    if (!path || !*path) {
        store_set_err(err, errlen, "the database path is empty; pass --db PATH");
        return NULL;
    }
    if (strlen(path) >= sizeof(((store *)0)->path) - 8) {
        store_set_err(err, errlen, "%.64s...: the database path is too long", path);
        return NULL;
    }
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        store_set_err(err, errlen, "%s is a directory, not a store file; pass --db FILE", path);
        return NULL;
    }
    if (!exists && errno != ENOENT) {
        store_set_err(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (!exists && mode == STORE_READ_ONLY) {
        store_set_err(err, errlen, "%s does not exist (no runs stored yet: cgplan ingest creates it)", path);
        return NULL;
    }
    if (exists && st.st_size > 0 && check_header(path, st.st_size, err, errlen) != 0)
        return NULL;
    if (!exists && make_parent_dirs(path, err, errlen) != 0)
        return NULL;

    if (exists && mode == STORE_READ_WRITE && !writable(path)) {
        store_set_err(err, errlen,
                      "%s is read-only: cannot store runs (make the file and its directory writable, "
                      "or pass --db)",
                      path);
        return NULL;
    }

    store *s = calloc(1, sizeof *s);
    if (!s) {
        store_set_err(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    s->read_only = mode == STORE_READ_ONLY;
    int flags = s->read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        if (s->db)
            store_db_err(s, err, errlen, "opening");
        else
            store_set_err(err, errlen, "%s: cannot open (out of memory)", path);
        store_close(s);
        return NULL;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);

    store_header_facts f;
    if (read_facts(s, &f, err, errlen) != 0) {
        /* A WAL store in a directory we cannot write: without a -shm file SQLite cannot read it
         * shared; nobody can be writing it either (no -wal), so read it as immutable. */
        char wal[4200];
        struct stat wst;
        snprintf(wal, sizeof wal, "%s-wal", path);
        int code = sqlite3_extended_errcode(s->db) & 0xff;
        if (!s->read_only || (code != SQLITE_READONLY && code != SQLITE_CANTOPEN) || stat(wal, &wst) == 0)
            goto fail;
        sqlite3_close_v2(s->db);
        s->db = NULL;
        char uri[3 * 4096 + 32];
        immutable_uri(path, uri, sizeof uri);
        if (sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK ||
            read_facts(s, &f, err, errlen) != 0) {
            if (s->db)
                store_db_err(s, err, errlen, "reading");
            goto fail;
        }
    }
    if (f.application_id != 0 && f.application_id != STORE_APPLICATION_ID) {
        store_set_err(err, errlen,
                      "%s is not a cgplan store (it belongs to another program: application_id 0x%llx); "
                      "move it aside or pass --db",
                      path, (unsigned long long)f.application_id);
        goto fail;
    }
    if (f.user_version == 0 && f.tables > 0) {
        store_set_err(err, errlen, "%s is not a cgplan store (it holds other tables); move it aside or pass --db",
                      path);
        goto fail;
    }
    if (f.user_version > 0 && (f.application_id != STORE_APPLICATION_ID || !f.has_runs)) {
        store_set_err(err, errlen,
                      "%s is not a cgplan store (user_version %lld without cgplan's tables); move it "
                      "aside or pass --db",
                      path, (long long)f.user_version);
        goto fail;
    }
    if (f.user_version > STORE_SCHEMA_VERSION) {
        store_set_err(err, errlen,
                      "%s has schema version %lld, newer than this cgplan's %d; upgrade cgplan or pass --db", path,
                      (long long)f.user_version, STORE_SCHEMA_VERSION);
        goto fail;
    }
    if (s->read_only) {
        if (f.user_version == 0) {
            store_set_err(err, errlen, "%s holds no runs yet (cgplan ingest fills it)", path);
            goto fail;
        }
        if (f.user_version < STORE_SCHEMA_VERSION) {
            store_set_err(err, errlen,
                          "%s has schema version %lld; this cgplan reads %d: run cgplan ingest or cgplan "
                          "runs list with write access once to migrate it",
                          path, (long long)f.user_version, STORE_SCHEMA_VERSION);
            goto fail;
        }
        return s;
    }
    if (sqlite3_db_readonly(s->db, "main") == 1) {
        store_set_err(err, errlen,
                      "%s is read-only: cannot store runs (check the permissions of the file and its "
                      "directory, or pass --db)",
                      path);
        goto fail;
    }
    sqlite3_stmt *mode_st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &mode_st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(mode_st);
    bool wal = rc == SQLITE_ROW && sqlite3_column_text(mode_st, 0) &&
               strcmp((const char *)sqlite3_column_text(mode_st, 0), "wal") == 0;
    sqlite3_finalize(mode_st);
    if (!wal) {
        store_db_err(s, err, errlen, "switching to WAL");
        goto fail;
    }
    /* WAL + NORMAL: a crash or kill never corrupts nor half-commits; only a power cut may lose
     * the last commit. */
    if (store_exec(s, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL", err, errlen) != 0)
        goto fail;
    if (f.user_version < STORE_SCHEMA_VERSION && migrate(s, err, errlen) != 0)
        goto fail;
    return s;
fail:
    store_close(s);
    return NULL;
}

void store_close(store *s)
{
    if (!s)
        return;
    if (s->db)
        sqlite3_close_v2(s->db);
    free(s);
}

/* ---- Reading runs ---- */

static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}
static uint32_t col_u32(sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL)
        return 0;
    int64_t v = sqlite3_column_int64(st, i);
    return v < 0 || v > UINT32_MAX ? 0 : (uint32_t)v;
}
static void col_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(buf, len, "%s", t ? (const char *)t : "");
}

/* Parses "1,2,4" (or "auto") into OUT; returns the count. */
static uint32_t parse_list(const char *text, uint32_t *out, uint32_t cap)
{
    uint32_t n = 0;
    const char *p = text;
    while (p && *p && n < cap) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p)
            break;
        out[n++] = (uint32_t)v;
        p = *end == ',' ? end + 1 : NULL;
    }
    return n;
}

#define SUMMARY_COLS                                                                                                   \
    "id, label, source, model, gpu, gpu_inferred, reconstructed, created_at, world, dp, dcp, max_bs, mtp, "            \
    "max_dispatch, buckets, static_gib, largest_gib, buckets_gib, draft_gib, target_total_gib, total_gib"
#define SUMMARY_NCOLS 21

static void read_summary(sqlite3_stmt *st, store_run_summary *r)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    col_text(st, 1, r->label, sizeof r->label);
    col_text(st, 2, r->source, sizeof r->source);
    col_text(st, 3, r->model, sizeof r->model);
    col_text(st, 4, r->gpu, sizeof r->gpu);
    r->gpu_inferred = sqlite3_column_int(st, 5) != 0;
    r->reconstructed = sqlite3_column_int(st, 6) != 0;
    col_text(st, 7, r->created_at, sizeof r->created_at);
    r->world = col_u32(st, 8);
    r->dp = col_u32(st, 9);
    r->dcp = col_u32(st, 10);
    r->max_bs = col_u32(st, 11);
    r->mtp = col_u32(st, 12);
    r->max_dispatch = col_u32(st, 13);
    const unsigned char *b = sqlite3_column_text(st, 14);
    if (b && strcmp((const char *)b, "auto") != 0) {
        uint32_t n = 1;
        for (const unsigned char *p = b; *p; p++)
            n += *p == ',';
        r->n_buckets = *b ? n : 0;
    }
    r->static_gib = col_real(st, 15);
    r->largest_gib = col_real(st, 16);
    r->buckets_gib = col_real(st, 17);
    r->draft_gib = col_real(st, 18);
    r->target_total_gib = col_real(st, 19);
    r->total_gib = col_real(st, 20);
}

static int each_run(store *s, const char *sql, int64_t from_id, int64_t to_id,
                    void (*fn)(const store_run_summary *r, void *ctx), void *ctx, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "listing runs");
        return -1;
    }
    if (sqlite3_bind_parameter_count(st) == 2) {
        sqlite3_bind_int64(st, 1, from_id);
        sqlite3_bind_int64(st, 2, to_id);
    }
    store_run_summary r;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        read_summary(st, &r);
        fn(&r, ctx);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "listing runs");
        return -1;
    }
    return 0;
}

int store_each_run(store *s, void (*fn)(const store_run_summary *r, void *ctx), void *ctx, char *err, size_t errlen)
{
    return each_run(s, "SELECT " SUMMARY_COLS " FROM runs ORDER BY id DESC", 0, 0, fn, ctx, err, errlen);
}

int store_each_run_range(store *s, int64_t from_id, int64_t to_id, void (*fn)(const store_run_summary *r, void *ctx),
                         void *ctx, char *err, size_t errlen)
{
    return each_run(s, "SELECT " SUMMARY_COLS " FROM runs WHERE id BETWEEN ?1 AND ?2 ORDER BY id", from_id, to_id, fn,
                    ctx, err, errlen);
}

typedef struct {
    store_run_summary *out;
    size_t cap, n;
} list_ctx;

static void collect(const store_run_summary *r, void *ctx)
{
    list_ctx *l = ctx;
    if (l->n < l->cap)
        l->out[l->n++] = *r;
}

int store_list_runs(store *s, store_run_summary *out, size_t cap, size_t *n, char *err, size_t errlen)
{
    list_ctx l = {out, cap, 0};
    int rc = store_each_run(s, collect, &l, err, errlen);
    *n = l.n;
    return rc;
}

int store_delete_run(store *s, int64_t id, char *err, size_t errlen)
{
    if (s->read_only) {
        store_set_err(err, errlen, "%s is open read-only", s->path);
        return -1;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "DELETE FROM runs WHERE id = ?1", -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "deleting a run");
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "deleting a run");
        return -1;
    }
    return sqlite3_changes(s->db) > 0 ? 0 : 1;
}

static store_origin origin_from_text(const unsigned char *t)
{
    if (!t)
        return ORIGIN_UNKNOWN;
    for (int i = 1; i < 6; i++)
        if (strcmp((const char *)t, store_origin_names[i]) == 0)
            return (store_origin)i;
    return ORIGIN_UNKNOWN;
}

int store_get_run(store *s, int64_t id, store_run_detail *out, char *err, size_t errlen)
{
    static const char sql[] =
        "SELECT " SUMMARY_COLS ", preset, "
        "world_origin, dp_origin, dcp_origin, max_bs_origin, mtp_origin, max_dispatch_origin, "
        "max_dispatch_auto, context_len, context_len_origin, mem_fraction_static, mem_fraction_static_origin, "
        "buckets_origin, gpu_origin, attention_backend, a2a FROM runs WHERE id = ?1";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "reading a run");
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (rc != SQLITE_DONE)
            store_db_err(s, err, errlen, "reading a run");
        sqlite3_finalize(st);
        return rc == SQLITE_DONE ? 1 : -1;
    }
    memset(out, 0, sizeof *out);
    read_summary(st, &out->summary);
    int c = SUMMARY_NCOLS;
    col_text(st, c++, out->preset, sizeof out->preset);
    engine_knobs_state *k = &out->knobs;
    const store_run_summary *r = &out->summary;
    k->world = r->world;
    k->dp = r->dp;
    k->dcp = r->dcp;
    k->max_bs = r->max_bs;
    k->mtp = r->mtp;
    k->max_dispatch = r->max_dispatch;
    out->origin[KNOB_WORLD] = origin_from_text(sqlite3_column_text(st, c++));
    out->origin[KNOB_DP] = origin_from_text(sqlite3_column_text(st, c++));
    out->origin[KNOB_DCP] = origin_from_text(sqlite3_column_text(st, c++));
    out->origin[KNOB_MAX_BS] = origin_from_text(sqlite3_column_text(st, c++));
    out->origin[KNOB_MTP] = origin_from_text(sqlite3_column_text(st, c++));
    out->origin[KNOB_MAX_DISPATCH] = origin_from_text(sqlite3_column_text(st, c++));
    k->max_dispatch_auto = sqlite3_column_int(st, c++) != 0;
    k->context_len = sqlite3_column_type(st, c) == SQLITE_NULL ? 0 : (uint64_t)sqlite3_column_int64(st, c);
    c++;
    out->origin[KNOB_CONTEXT_LEN] = origin_from_text(sqlite3_column_text(st, c++));
    k->mem_fraction_static = sqlite3_column_type(st, c) == SQLITE_NULL ? 0 : sqlite3_column_double(st, c);
    c++;
    out->origin[KNOB_MEM_FRACTION] = origin_from_text(sqlite3_column_text(st, c++));
    out->origin[KNOB_BUCKETS] = origin_from_text(sqlite3_column_text(st, c++));
    out->origin[KNOB_GPU] = origin_from_text(sqlite3_column_text(st, c++));
    const unsigned char *backend = sqlite3_column_text(st, c++);
    out->backend = BACKEND_FLASHINFER_MLA;
    for (int b = 0; backend && b < BACKEND_COUNT; b++)
        if (strcmp((const char *)backend, engine_backend_names[b]) == 0)
            out->backend = (engine_backend)b;
    const unsigned char *a2a = sqlite3_column_text(st, c++);
    out->a2a = a2a && strcmp((const char *)a2a, "none") == 0 ? A2A_NONE : A2A_DEEPEP;
    /* buckets: the list the log captured */
    const unsigned char *b = sqlite3_column_text(st, 14);
    k->buckets_auto = !b || strcmp((const char *)b, "auto") == 0;
    if (!k->buckets_auto)
        k->n_buckets = parse_list((const char *)b, k->buckets, ENGINE_MAX_BUCKETS);
    sqlite3_finalize(st);
    return 0;
}

int store_get_run_parts(store *s, int64_t id, store_group_info *groups, size_t cap, size_t *n_groups,
                        store_rank_info *ranks, size_t rcap, size_t *n_ranks, store_run_extra *extra, char *err,
                        size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (n_groups)
        *n_groups = 0;
    if (n_ranks)
        *n_ranks = 0;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT path, sha256, model_path, first_line, last_line, lines, unknown_lines, "
                           "malformed_lines, target_group, (SELECT value FROM env WHERE env.run_id = runs.id AND "
                           "key = 'SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK' ORDER BY ordinal DESC LIMIT 1) "
                           "FROM runs WHERE id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        goto dberr;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(st);
        return 1;
    }
    if (rc != SQLITE_ROW)
        goto dberr;
    int target = sqlite3_column_type(st, 8) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 8);
    if (extra) {
        memset(extra, 0, sizeof *extra);
        col_text(st, 0, extra->path, sizeof extra->path);
        col_text(st, 1, extra->sha256, sizeof extra->sha256);
        col_text(st, 2, extra->model_path, sizeof extra->model_path);
        extra->first_line = col_u32(st, 3);
        extra->last_line = col_u32(st, 4);
        extra->lines = (uint64_t)sqlite3_column_int64(st, 5);
        extra->unknown_lines = (uint64_t)sqlite3_column_int64(st, 6);
        extra->malformed_lines = (uint64_t)sqlite3_column_int64(st, 7);
        col_text(st, 9, extra->env_dispatch, sizeof extra->env_dispatch);
    }
    sqlite3_finalize(st);
    st = NULL;
    found = 1;
    if (groups && cap) {
        if (sqlite3_prepare_v2(s->db,
                               "SELECT ordinal, kind, role, phase, step, tokens_per_req, rank_label, failed, failure, "
                               "sizes, (SELECT count(*) FROM bars WHERE bars.group_id = groups.id), begin_avail_gib, "
                               "end_avail_gib, end_usage_gib, end_elapsed_s, static_gib, largest_gib, buckets_gib, "
                               "total_gib FROM groups WHERE run_id = ?1 ORDER BY ordinal",
                               -1, &st, NULL) != SQLITE_OK)
            goto dberr;
        sqlite3_bind_int64(st, 1, id);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n_groups < cap) {
            store_group_info *g = &groups[(*n_groups)++];
            memset(g, 0, sizeof *g);
            g->ordinal = sqlite3_column_int(st, 0);
            col_text(st, 1, g->kind, sizeof g->kind);
            col_text(st, 2, g->role, sizeof g->role);
            col_text(st, 3, g->phase, sizeof g->phase);
            g->step = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 4);
            g->tokens_per_req = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 5);
            col_text(st, 6, g->rank, sizeof g->rank);
            g->failed = sqlite3_column_int(st, 7) != 0;
            col_text(st, 8, g->failure, sizeof g->failure);
            const unsigned char *sizes = sqlite3_column_text(st, 9);
            uint32_t first[1];
            if (sizes && *sizes) {
                g->n_sizes = 1;
                for (const unsigned char *p = sizes; *p; p++)
                    g->n_sizes += *p == ',';
                g->first_size = parse_list((const char *)sizes, first, 1) ? first[0] : 0;
            }
            g->n_bars = col_u32(st, 10);
            g->begin_avail_gib = col_real(st, 11);
            g->end_avail_gib = col_real(st, 12);
            g->end_usage_gib = col_real(st, 13);
            g->end_elapsed_s = col_real(st, 14);
            g->static_gib = col_real(st, 15);
            g->largest_gib = col_real(st, 16);
            g->buckets_gib = col_real(st, 17);
            g->total_gib = col_real(st, 18);
            g->is_target = g->ordinal == target;
        }
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            goto dberr;
        sqlite3_finalize(st);
        st = NULL;
    }
    if (ranks && rcap) {
        if (sqlite3_prepare_v2(
                s->db,
                "SELECT label, weights_begin_avail_gib, weights_usage_gib, kv_tokens, kv_gib, state_gib, "
                "pool_avail_gib FROM ranks WHERE run_id = ?1 ORDER BY ordinal",
                -1, &st, NULL) != SQLITE_OK)
            goto dberr;
        sqlite3_bind_int64(st, 1, id);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n_ranks < rcap) {
            store_rank_info *r = &ranks[(*n_ranks)++];
            col_text(st, 0, r->label, sizeof r->label);
            r->weights_begin_avail_gib = col_real(st, 1);
            r->weights_usage_gib = col_real(st, 2);
            r->kv_tokens = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3);
            r->kv_gib = col_real(st, 4);
            r->state_gib = col_real(st, 5);
            r->pool_avail_gib = col_real(st, 6);
        }
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            goto dberr;
        sqlite3_finalize(st);
    }
    return 0;
dberr:
    store_db_err(s, err, errlen, "reading a run");
    sqlite3_finalize(st);
    (void)found;
    return -1;
}

int store_runs_for(store *s, const char *model, const char *gpu, int64_t *ids, size_t cap, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT id FROM runs WHERE model = ?1 AND gpu = ?2 ORDER BY id", -1, &st, NULL) !=
        SQLITE_OK) {
        store_db_err(s, err, errlen, "listing runs");
        return -1;
    }
    sqlite3_bind_text(st, 1, model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, gpu, -1, SQLITE_TRANSIENT);
    size_t n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (n < cap)
            ids[n++] = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "listing runs");
        return -1;
    }
    return (int)n;
}

const char *store_run_calibration_exclusion(const store_run_summary *r)
{
    if (!r->model[0])
        return "model unknown: the log's model_path matches no preset's hf_names; ingest it with --preset";
    if (!r->gpu[0])
        return "GPU unknown: the log does not name it; ingest it with --preset or --set gpu=NAME";
    if (!caplog_known(r->target_total_gib) && !caplog_known(r->largest_gib))
        return "no measured target layers (no target decode/verify group with known memory)";
    return NULL;
}

/* ---- Calibrations ---- */

bool store_load_calibration(store *s, const char *model, const char *gpu, engine_calibration *cal)
{
    sqlite3_stmt *st = NULL;
    if (!s || !model || !gpu ||
        sqlite3_prepare_v2(s->db,
                           "SELECT act_bytes_per_row, lazy_bytes, graph_bytes, out_bytes_per_row, draft_base_bytes, "
                           "draft_bytes_per_row, runs FROM calibrations WHERE model = ?1 AND gpu = ?2 "
                           "ORDER BY id DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return false;
    }
    sqlite3_bind_text(st, 1, model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, gpu, -1, SQLITE_TRANSIENT);
    bool found = sqlite3_step(st) == SQLITE_ROW;
    if (found) {
        memset(cal, 0, sizeof *cal);
        for (int i = 0; i < COEF_COUNT; i++) {
            cal->has[i] = sqlite3_column_type(st, i) != SQLITE_NULL && sqlite3_column_int64(st, i) >= 0;
            cal->value[i] = cal->has[i] ? (uint64_t)sqlite3_column_int64(st, i) : 0;
        }
        const char *runs = (const char *)sqlite3_column_text(st, COEF_COUNT);
        while (runs && *runs && cal->n_runs < ENGINE_MAX_CAL_RUNS) {
            char *end;
            long long v = strtoll(runs, &end, 10);
            if (end == runs)
                break;
            cal->runs[cal->n_runs++] = v;
            runs = *end == ',' ? end + 1 : NULL;
        }
    }
    sqlite3_finalize(st);
    return found;
}

int store_save_calibration(store *s, const char *model, const char *gpu, const engine_calibration *cal,
                           const char *report, char *err, size_t errlen)
{
    if (s->read_only) {
        store_set_err(err, errlen, "%s is open read-only", s->path);
        return -1;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO calibrations (model, gpu, created_at, act_bytes_per_row, lazy_bytes, "
                           "graph_bytes, out_bytes_per_row, draft_base_bytes, draft_bytes_per_row, runs, report) "
                           "VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                           -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "saving a calibration");
        return -1;
    }
    sqlite3_bind_text(st, 1, model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, gpu, -1, SQLITE_TRANSIENT);
    for (int i = 0; i < COEF_COUNT; i++) {
        if (cal->has[i] && cal->value[i] <= INT64_MAX)
            sqlite3_bind_int64(st, 3 + i, (sqlite3_int64)cal->value[i]);
        else
            sqlite3_bind_null(st, 3 + i);
    }
    char runs[ENGINE_MAX_CAL_RUNS * 21 + 1] = "";
    size_t used = 0;
    for (int i = 0; i < cal->n_runs && i < ENGINE_MAX_CAL_RUNS; i++)
        used += (size_t)snprintf(runs + used, sizeof runs - used, "%s%lld", i ? "," : "", (long long)cal->runs[i]);
    sqlite3_bind_text(st, 9, runs, -1, SQLITE_TRANSIENT);
    if (report)
        sqlite3_bind_text(st, 10, report, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 10);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "saving a calibration");
        return -1;
    }
    return 0;
}
