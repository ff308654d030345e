/* store.c — opening, validating, migrating and reading cgplan's SQLite store.
 *
 * A store is an SQLite file with application_id "cgp1" and user_version = its schema version.
 * Nothing is written to a file before it is known to be a cgplan store (or an empty file): a
 * database of another program, a damaged file or random bytes are reported and left untouched.
 * WAL and a busy handler (waits with jitter, up to STORE_BUSY_TIMEOUT_MS) let several cgplan
 * processes work on one store at once; writers take turns. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "store_internal.h"
#include "text.h"
#include "store_terms.h"
#include "text.h"

void store_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    char line[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* a value quoted in a message (a damaged record's text, a file name) cannot break the
     * one-line rule or drive the terminal */
    engine_text_cleaned(err, errlen, line);
}

/* The directory PATH's file is in: "." for a bare name, "/" for a file at the root. */
static void dir_of(const char *path, char *dir, size_t len)
{
    snprintf(dir, len, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
}

/* " (the disk holding DIR is full: N MiB free; ...)" for PATH's file system. */
static void disk_full_hint(const char *path, char *buf, size_t len)
{
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    struct statvfs fs;
    if (statvfs(dir, &fs) == 0)
        snprintf(buf, len,
                 " (the disk holding %s is full: %.1f MiB free; free space there or pass --db on another disk)", dir,
                 (double)fs.f_bavail * (double)fs.f_frsize / 1048576.0);
    else
        snprintf(buf, len, " (the disk holding %s is full: free space there or pass --db on another disk)", dir);
}

void store_db_err(const store *s, char *err, size_t errlen, const char *doing)
{
    int code = sqlite3_extended_errcode(s->db) & 0xff;
    const char *hint = "";
    char busy[256], full[4096 + 256];
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
        snprintf(busy, sizeof busy,
                 " (another process held the write lock for all of the %g s this cgplan waits: try again when it "
                 "is done, or wait longer with CGPLAN_BUSY_TIMEOUT_MS)",
                 s->busy_timeout_ms / 1000.0);
        hint = busy;
    } else if (code == SQLITE_FULL) {
        disk_full_hint(s->path, full, sizeof full);
        hint = full;
    } else if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM)
        hint = " (check the permissions of the file and its directory, or pass --db)";
    else if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
        hint = " (the file is damaged: move it aside or pass --db)";
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
    dir_of(path, dir, sizeof dir);
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

/* A new store: the whole schema (db/schema.sql), marked as cgplan's. */
static int create_schema(store *s, char *err, size_t errlen)
{
    char sql[64];
    if (store_exec(s, store_schema_sql, err, errlen) != 0 || store_exec(s, store_terms_schema_sql, err, errlen) != 0)
        return -1;
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d", STORE_APPLICATION_ID);
    return store_exec(s, sql, err, errlen);
}

/* The knobs version 1 kept as columns of runs: NAME and NAME_origin (and NAME_auto for an
 * INT_OR_AUTO knob). A fact of version 1, so names, not the knob table's ids. */
static const char *const v1_knob_columns[] = {
    "world", "dp", "dcp", "max_bs", "mtp", "max_dispatch", "context_len", "mem_fraction_static", "buckets"};

/* Version 1's column value as the text engine_run_knob_set_text reads (v1 read NULL as 0, and as
 * "auto" for the bucket list). */
static void v1_value_text(sqlite3_stmt *st, const engine_knob_info *k, bool has_auto, char *buf, size_t len)
{
    if (has_auto && sqlite3_column_int(st, 3) != 0)
        snprintf(buf, len, "auto");
    else if (sqlite3_column_type(st, 1) == SQLITE_NULL)
        snprintf(buf, len, "%s", k->type == KNOB_TYPE_LIST_OR_AUTO ? "auto" : "0");
    else if (sqlite3_column_type(st, 1) == SQLITE_FLOAT)
        snprintf(buf, len, "%.17g", sqlite3_column_double(st, 1)); /* exact; written back canonical */
    else
        snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 1));
}

/* Version 2's run_knobs, as migrate_1_to_2 fills it (migrate_4_to_5 folds it into runs.knobs). */
static const char v2_run_knobs_sql[] = "CREATE TABLE IF NOT EXISTS run_knobs (\n"
                                       "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
                                       "  knob TEXT NOT NULL, value TEXT NOT NULL, origin TEXT NOT NULL,\n"
                                       "  PRIMARY KEY (run_id, knob)\n"
                                       ") WITHOUT ROWID;\n";

/* v1 -> v2: the knob columns of runs become rows of run_knobs (in canonical knob text), then
 * leave runs. */
static int migrate_1_to_2(store *s, char *err, size_t errlen)
{
    if (store_exec(s, v2_run_knobs_sql, err, errlen) != 0)
        return -1;
    engine_deployment *d = malloc(sizeof *d);
    char *text = malloc(ENGINE_MAX_BUCKETS * 11);
    sqlite3_stmt *sel = NULL, *ins = NULL;
    int rc = -1;
    if (!d || !text) {
        store_set_err(err, errlen, "%s: out of memory while migrating", s->path);
        goto done;
    }
    if (sqlite3_prepare_v2(s->db, "INSERT INTO run_knobs (run_id, knob, value, origin) VALUES (?1, ?2, ?3, ?4)", -1,
                           &ins, NULL) != SQLITE_OK)
        goto dberr;
    for (size_t c = 0; c < sizeof v1_knob_columns / sizeof v1_knob_columns[0]; c++) {
        const char *name = v1_knob_columns[c];
        const engine_knob_info *k = engine_knob_find(name);
        if (!k)
            continue; /* a knob this cgplan no longer has: nothing would read it back */
        bool has_auto = k->type == KNOB_TYPE_INT_OR_AUTO;
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT id, %s, %s_origin%s%s%s FROM runs WHERE %s_origin IS NOT NULL", name, name,
                 has_auto ? ", " : "", has_auto ? name : "", has_auto ? "_auto" : "", name);
        if (sqlite3_prepare_v2(s->db, sql, -1, &sel, NULL) != SQLITE_OK)
            goto dberr;
        int step;
        while ((step = sqlite3_step(sel)) == SQLITE_ROW) {
            char why[ENGINE_TEXT_MAX];
            v1_value_text(sel, k, has_auto, text, ENGINE_MAX_BUCKETS * 11);
            memset(d, 0, sizeof *d);
            if (engine_run_knob_set_text(d, k->id, text, why, sizeof why) != 0) {
                store_set_err(err, errlen, "%s: migrating run %lld: %s; move the store aside or pass --db", s->path,
                              (long long)sqlite3_column_int64(sel, 0), why);
                goto done;
            }
            engine_knob_text(d, NULL, k->id, KNOB_TEXT_CANONICAL, text, ENGINE_MAX_BUCKETS * 11);
            sqlite3_bind_int64(ins, 1, sqlite3_column_int64(sel, 0));
            sqlite3_bind_text(ins, 2, k->name, -1, SQLITE_STATIC);
            sqlite3_bind_text(ins, 3, text, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(ins, 4, (const char *)sqlite3_column_text(sel, 2), -1, SQLITE_TRANSIENT);
            int irc = sqlite3_step(ins);
            sqlite3_reset(ins);
            if (irc != SQLITE_DONE)
                goto dberr;
        }
        if (step != SQLITE_DONE)
            goto dberr;
        sqlite3_finalize(sel);
        sel = NULL;
    }
    for (size_t c = 0; c < sizeof v1_knob_columns / sizeof v1_knob_columns[0]; c++) {
        const char *name = v1_knob_columns[c];
        char sql[256];
        snprintf(sql, sizeof sql, "ALTER TABLE runs DROP COLUMN %s; ALTER TABLE runs DROP COLUMN %s_origin", name,
                 name);
        if (store_exec(s, sql, err, errlen) != 0)
            goto done;
    }
    rc = store_exec(s, "ALTER TABLE runs DROP COLUMN max_dispatch_auto", err, errlen);
    goto done;
dberr:
    store_db_err(s, err, errlen, "migrating to schema version 2");
done:
    sqlite3_finalize(sel);
    sqlite3_finalize(ins);
    free(text);
    free(d);
    return rc;
}

/* Whether TABLE has COLUMN (a migration that may meet a table schema.sql just created). */
static int has_column(store *s, const char *table, const char *column)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2", -1, &st, NULL) !=
        SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) > 0 : -1;
    sqlite3_finalize(st);
    return rc;
}

/* v2 -> v3: calibrations pool by SGLang release and carry the static layer's intercept. A v2
 * calibration keeps a NULL release: it applies to any. */
static int migrate_2_to_3(store *s, char *err, size_t errlen)
{
    static const char *const added[][2] = {{"sglang", "TEXT"}, {"static_bytes", "INTEGER"}};
    for (size_t i = 0; i < sizeof added / sizeof added[0]; i++) {
        int have = has_column(s, "calibrations", added[i][0]);
        if (have < 0) {
            store_db_err(s, err, errlen, "migrating to schema version 3");
            return -1;
        }
        char sql[128];
        snprintf(sql, sizeof sql, "ALTER TABLE calibrations ADD COLUMN %s %s", added[i][0], added[i][1]);
        if (!have && store_exec(s, sql, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* v3 -> v4: the hook's per-term measurements get their table (store_terms.c). */
static int migrate_3_to_4(store *s, char *err, size_t errlen)
{
    return store_exec(s, store_terms_schema_sql, err, errlen);
}

/* upgrades[N] takes a store from version N to N + 1, inside the caller's transaction; version 0
 * (a new store) gets the whole schema at once instead. */
/* The rows of the run ST's ?1 is bound to, as one part of a record (counted) into OUT. Returns
 * false on a database error. */
static bool rows_into(sqlite3_stmt *st, int64_t id, const store_table *t, void *row, store_record *out)
{
    store_record part = {0};
    uint64_t n = 0;
    int rc;
    store_record_begin(&part);
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_read_row(st, 0, t, row);
        store_record_row(&part, t, row);
        n++;
    }
    sqlite3_reset(st);
    store_record_count(out, n);
    store_record_append(out, &part);
    store_record_free(&part);
    return rc == SQLITE_DONE;
}

/* One run's knob rows and detail rows of version 4 as its two records. */
static bool run_records(sqlite3_stmt *const st[5], int64_t id, store_record *knobs, store_record *detail)
{
    enum { KNOBS, GROUPS, BARS, RANKS, ENV };
    store_knob_row kr;
    store_group_row gr;
    store_bar_row br;
    store_rank_row rr;
    store_env_row er;
    store_record_begin(knobs);
    store_record_begin(detail);
    if (!rows_into(st[KNOBS], id, &store_knob_rows_table, &kr, knobs))
        return false;
    /* each group with its bars: the count of groups first, so they are kept apart until the end */
    store_record groups = {0};
    uint64_t n = 0;
    int rc;
    store_record_begin(&groups);
    sqlite3_reset(st[GROUPS]);
    sqlite3_bind_int64(st[GROUPS], 1, id);
    while ((rc = sqlite3_step(st[GROUPS])) == SQLITE_ROW) {
        store_read_row(st[GROUPS], 0, &store_groups_table, &gr);
        store_record_row(&groups, &store_groups_table, &gr);
        if (!rows_into(st[BARS], gr.id, &store_bars_table, &br, &groups)) {
            rc = SQLITE_ERROR;
            break;
        }
        n++;
    }
    sqlite3_reset(st[GROUPS]);
    store_record_count(detail, n);
    store_record_append(detail, &groups);
    store_record_free(&groups);
    return rc == SQLITE_DONE && rows_into(st[RANKS], id, &store_ranks_table, &rr, detail) &&
           rows_into(st[ENV], id, &store_env_table, &er, detail);
}

/* Version 4's groups, bars, ranks and env tables are read through this cgplan's row tables, which
 * gain columns since (appended to a record's rows, where an older record reads them as NULL): each
 * one the table lacks is added to it, NULL, before it is read and dropped. */
static int add_newer_columns(store *s, const store_table *t, char *err, size_t errlen)
{
    for (int i = 0; i < t->n_cols; i++) {
        int have = has_column(s, t->name, t->cols[i].name);
        if (have < 0) {
            store_db_err(s, err, errlen, "migrating to schema version 5");
            return -1;
        }
        char sql[256];
        snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s", t->name, t->cols[i].name);
        if (!have && store_exec(s, sql, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* v4 -> v5: a run's knob rows become its knobs record, its groups (with their bars), ranks and
 * env lines its detail record (store_internal.h); the five tables go. In the caller's
 * transaction: a failure leaves the store at version 4, whole. */
static int migrate_4_to_5(store *s, char *err, size_t errlen)
{
    static const char *const added[] = {"knobs", "detail"};
    for (size_t i = 0; i < sizeof added / sizeof added[0]; i++) {
        int have = has_column(s, "runs", added[i]);
        char sql[128];
        snprintf(sql, sizeof sql, "ALTER TABLE runs ADD COLUMN %s BLOB", added[i]);
        if (have < 0) {
            store_db_err(s, err, errlen, "migrating to schema version 5");
            return -1;
        }
        if (!have && store_exec(s, sql, err, errlen) != 0)
            return -1;
    }
    const store_table *const read[] = {&store_groups_table, &store_bars_table, &store_ranks_table, &store_env_table};
    for (size_t i = 0; i < sizeof read / sizeof read[0]; i++)
        if (add_newer_columns(s, read[i], err, errlen) != 0)
            return -1;
    char sql[5][2048];
    snprintf(sql[0], sizeof sql[0], "SELECT knob, value, origin FROM run_knobs WHERE run_id = ?1 ORDER BY knob");
    store_select_sql(&store_groups_table, NULL, "WHERE run_id = ?1 ORDER BY ordinal", sql[1], sizeof sql[1]);
    store_select_sql(&store_bars_table, NULL, "WHERE group_id = ?1 ORDER BY ordinal", sql[2], sizeof sql[2]);
    store_select_sql(&store_ranks_table, NULL, "WHERE run_id = ?1 ORDER BY ordinal", sql[3], sizeof sql[3]);
    store_select_sql(&store_env_table, NULL, "WHERE run_id = ?1 ORDER BY ordinal", sql[4], sizeof sql[4]);
    sqlite3_stmt *st[5] = {NULL}, *ids = NULL, *upd = NULL;
    store_record knobs = {0}, detail = {0};
    int64_t *id = NULL;
    size_t n = 0, cap = 0;
    int rc = -1;
    for (int i = 0; i < 5; i++)
        if (sqlite3_prepare_v2(s->db, sql[i], -1, &st[i], NULL) != SQLITE_OK)
            goto dberr;
    if (sqlite3_prepare_v2(s->db, "SELECT id FROM runs ORDER BY id", -1, &ids, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db, "UPDATE runs SET knobs = ?2, detail = ?3 WHERE id = ?1", -1, &upd, NULL) != SQLITE_OK)
        goto dberr;
    int step;
    while ((step = sqlite3_step(ids)) == SQLITE_ROW) { /* the ids first: the updates change runs */
        if (n == cap) {
            int64_t *more = realloc(id, (cap = cap ? 2 * cap : 256) * sizeof *id);
            if (!more)
                goto oom;
            id = more;
        }
        id[n++] = sqlite3_column_int64(ids, 0);
    }
    if (step != SQLITE_DONE)
        goto dberr;
    for (size_t i = 0; i < n; i++) {
        if (!run_records(st, id[i], &knobs, &detail))
            goto dberr;
        if (knobs.failed || detail.failed)
            goto oom;
        sqlite3_bind_int64(upd, 1, id[i]);
        sqlite3_bind_blob64(upd, 2, knobs.p, knobs.len, SQLITE_STATIC);
        sqlite3_bind_blob64(upd, 3, detail.p, detail.len, SQLITE_STATIC);
        int urc = sqlite3_step(upd);
        sqlite3_reset(upd);
        if (urc != SQLITE_DONE)
            goto dberr;
    }
    for (int i = 0; i < 5; i++) {
        sqlite3_finalize(st[i]);
        st[i] = NULL;
    }
    /* children before their parents (foreign keys are on) */
    rc = store_exec(s, "DROP TABLE bars; DROP TABLE groups; DROP TABLE ranks; DROP TABLE env; DROP TABLE run_knobs",
                    err, errlen);
    goto done;
oom:
    store_set_err(err, errlen, "%s: out of memory while migrating to schema version 5", s->path);
    goto done;
dberr:
    store_db_err(s, err, errlen, "migrating to schema version 5");
done:
    for (int i = 0; i < 5; i++)
        sqlite3_finalize(st[i]);
    sqlite3_finalize(ids);
    sqlite3_finalize(upd);
    store_record_free(&knobs);
    store_record_free(&detail);
    free(id);
    return rc;
}

/* v5 -> v6: a run's server args and knobs record move to run_texts, kept once each, and the run
 * keeps their ids. Version 6's DDL as it was then (db/schema.sql has the newest). In the caller's
 * transaction: a failure leaves the store at version 5, whole. */
static int migrate_5_to_6(store *s, char *err, size_t errlen)
{
    static const char sql[] =
        "CREATE TABLE run_texts (id INTEGER PRIMARY KEY, body NOT NULL UNIQUE);\n"
        "INSERT OR IGNORE INTO run_texts (body) SELECT server_args_raw FROM runs WHERE server_args_raw IS NOT NULL "
        "ORDER BY id;\n"
        "INSERT OR IGNORE INTO run_texts (body) SELECT knobs FROM runs WHERE knobs IS NOT NULL ORDER BY id;\n"
        "ALTER TABLE runs ADD COLUMN server_args_text INTEGER REFERENCES run_texts(id) DEFERRABLE INITIALLY DEFERRED;\n"
        "ALTER TABLE runs ADD COLUMN knobs_text INTEGER REFERENCES run_texts(id) DEFERRABLE INITIALLY DEFERRED;\n"
        "UPDATE runs SET server_args_text = (SELECT id FROM run_texts WHERE body = runs.server_args_raw),\n"
        "  knobs_text = (SELECT id FROM run_texts WHERE body = runs.knobs);\n"
        "ALTER TABLE runs DROP COLUMN server_args_raw;\n"
        "ALTER TABLE runs DROP COLUMN knobs;\n"
        "CREATE TRIGGER runs_texts_unused AFTER DELETE ON runs BEGIN\n"
        "  DELETE FROM run_texts WHERE id IN (old.server_args_text, old.knobs_text)\n"
        "    AND NOT EXISTS (SELECT 1 FROM runs WHERE server_args_text = run_texts.id OR knobs_text = run_texts.id);\n"
        "END;";
    return store_exec(s, sql, err, errlen);
}

/* v6 -> v7: a file is known by its XXH3-128 (content_hash.h); the runs stored so far keep their
 * SHA-256, marked as such, so that a re-ingest of their file is still found (the ingest hashes
 * with both while any is left). */
static int migrate_6_to_7(store *s, char *err, size_t errlen)
{
    static const char sql[] = "DROP INDEX runs_sha256;\n"
                              "ALTER TABLE runs RENAME COLUMN sha256 TO content_hash;\n"
                              "UPDATE runs SET content_hash = '" STORE_HASH_LEGACY_PREFIX "' || content_hash;\n"
                              "CREATE INDEX runs_content_hash ON runs(content_hash);";
    return store_exec(s, sql, err, errlen);
}

/* v7 -> v8: node_bytes belongs to the GPU (issue 18): its calibrations get their table, and a
 * model's calibration records the node_bytes its fit held. The calibrations stored so far are
 * kept as they are, with a NULL there: their graph_bytes carries the model's node cost and still
 * overrides the mechanism for that model alone (calibrate list says so). Version 8's DDL as it
 * was then (db/schema.sql has the newest). */
static int migrate_7_to_8(store *s, char *err, size_t errlen)
{
    static const char sql[] =
        "CREATE TABLE IF NOT EXISTS gpu_calibrations (\n"
        "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
        "  gpu TEXT NOT NULL,\n"
        "  sglang TEXT,\n"
        "  created_at TEXT NOT NULL,\n"
        "  node_bytes INTEGER NOT NULL, node_bytes_low INTEGER NOT NULL, node_bytes_high INTEGER NOT NULL,\n"
        "  n_runs INTEGER NOT NULL,\n"
        "  runs TEXT NOT NULL,\n"
        "  run_releases TEXT,\n"
        "  run_models TEXT,\n"
        "  report TEXT\n"
        ");\n"
        "CREATE INDEX IF NOT EXISTS gpu_calibrations_gpu ON gpu_calibrations(gpu);";
    int have = has_column(s, "calibrations", "held_node_bytes");
    if (have < 0) {
        store_db_err(s, err, errlen, "migrating to schema version 8");
        return -1;
    }
    if (!have && store_exec(s, "ALTER TABLE calibrations ADD COLUMN held_node_bytes INTEGER", err, errlen) != 0)
        return -1;
    return store_exec(s, sql, err, errlen);
}

typedef int (*store_migration)(store *s, char *err, size_t errlen);
static const store_migration upgrades[STORE_SCHEMA_VERSION] = {NULL,           migrate_1_to_2, migrate_2_to_3,
                                                               migrate_3_to_4, migrate_4_to_5, migrate_5_to_6,
                                                               migrate_6_to_7, migrate_7_to_8};

static int migrate(store *s, store_seed_context_fn seed, void *seed_arg, char *err, size_t errlen)
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
    if (f.user_version == 0) {
        if (create_schema(s, err, errlen) != 0 || (seed && store_seed(s, seed, seed_arg, err, errlen) != 0))
            goto fail;
    } else {
        for (int64_t v = f.user_version; v < STORE_SCHEMA_VERSION; v++)
            if (upgrades[v](s, err, errlen) != 0)
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

static double monotonic_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* CGPLAN_BUSY_TIMEOUT_MS (0 .. a day), else STORE_BUSY_TIMEOUT_MS. */
static int busy_timeout_ms(void)
{
    const char *v = getenv("CGPLAN_BUSY_TIMEOUT_MS");
    char *end;
    long ms = v && *v ? strtol(v, &end, 10) : -1;
    return v && *v && *end == '\0' && ms >= 0 && ms <= 86400000L ? (int)ms : STORE_BUSY_TIMEOUT_MS;
}

/* SQLite calls this while another connection holds the lock it needs (COUNT: 0 on the first
 * call of a wait). Waits up to busy_timeout_ms in sleeps of a random 1..20 ms: waiters wake at
 * different moments, so the lock passes to one of them within a few ms of its release instead
 * of SQLite's 100 ms steps, and none depends on another's progress to be served. */
static int busy_wait(void *arg, int count)
{
    store *s = arg;
    double now = monotonic_s();
    if (count == 0)
        s->busy_since = now;
    if ((now - s->busy_since) * 1000.0 >= s->busy_timeout_ms)
        return 0;
    s->jitter ^= s->jitter << 13;
    s->jitter ^= s->jitter >> 7;
    s->jitter ^= s->jitter << 17;
    long us = 1000 + (long)(s->jitter % 19000);
    struct timespec nap = {0, us * 1000};
    nanosleep(&nap, NULL);
    return 1;
}

store *store_open(const char *path, store_mode mode, char *err, size_t errlen)
{
    return store_open_seeded(path, mode, NULL, NULL, err, errlen);
}

store *store_open_seeded(const char *path, store_mode mode, store_seed_context_fn seed, void *seed_arg, char *err,
                         size_t errlen)

{
    if (!path || !*path) {
        store_set_err(err, errlen, "the database path is empty; pass --db PATH");
        return NULL;
    }
    if (strlen(path) >= sizeof(((store *)0)->path) - 8) {
        store_set_err(err, errlen, "%.64s...: the database path is too long", path);
        return NULL;
    }
    /* The store is the file the checks below look at, never one SQLite reads into the name: no
     * URI (file:real.db?vfs=unix-none opened another file without locking) and no in-memory
     * database. SQLite's own spellings, case and all; "./" before either names a file. */
    if (strncmp(path, "file:", 5) == 0) {
        store_set_err(err, errlen,
                      "%s: the store is a file path, not an SQLite URI (a name starting with 'file:' is read as one); "
                      "give the file's path (./%s for a file of that name)",
                      path, path);
        return NULL;
    }
    if (strcmp(path, ":memory:") == 0) {
        store_set_err(err, errlen,
                      ":memory: is SQLite's in-memory database, which keeps nothing; the store is a file path "
                      "(./:memory: for a file of that name)");
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
    /* NOMUTEX: a store is used by one thread at a time (ingest's reader thread never touches it),
     * so SQLite's lock around every call (a tenth of an ingest's writing) guards nothing. No
     * SQLITE_OPEN_URI: PATH is a file path (refused above when SQLite would read it otherwise). */
    int flags =
        (s->read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        if (s->db)
            store_db_err(s, err, errlen, "opening");
        else
            store_set_err(err, errlen, "%s: cannot open (out of memory)", path);
        store_close(s);
        return NULL;
    }
    sqlite3_extended_result_codes(s->db, 1);
    s->busy_timeout_ms = busy_timeout_ms();
    s->jitter = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL) ^ (uintptr_t)s;
    sqlite3_busy_handler(s->db, busy_wait, s);

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
        if (sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL) !=
                SQLITE_OK ||
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
    /* A new store's pages are 64 KiB, SQLite's largest (fixed once the file has its first page):
     * an ingest writes a run as one row of about 2 KiB, and with 4 KiB pages half its write went
     * to a page write (a system call) per 4 KiB and the B-tree's splits; a small write (runs rm,
     * a calibration) costs a 64 KiB page in the WAL, nothing anyone waits on. */
    if (f.user_version == 0 && f.tables == 0 && store_exec(s, "PRAGMA page_size = 65536", err, errlen) != 0)
        goto fail;
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
    if (f.user_version < STORE_SCHEMA_VERSION && migrate(s, seed, seed_arg, err, errlen) != 0)
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

void store_summary_set_knobs(store_run_summary *r, const engine_deployment *values)
{
    const engine_knobs_state *k = &values->knobs;
    r->world = k->world;
    r->dp = k->dp;
    r->dcp = k->dcp;
    r->max_bs = k->max_bs;
    r->mtp = k->mtp;
    r->max_dispatch = k->max_dispatch_auto ? 0 : k->max_dispatch;
    r->n_buckets = k->buckets_auto ? 0 : k->n_buckets;
    r->knobs = *k;
    engine_copy_text(r->gpu, sizeof r->gpu, values->gpu.name);
}

/* Copies a name read back from the store (a model, GPU, release or preset) into DST of CAP: false
 * when it does not fit, so the row is reported damaged instead of used under a name cut to
 * another one's. */
static bool copy_name(char *dst, size_t cap, const char *src)
{
    engine_copy_text(dst, cap, src);
    return !src || strlen(src) < cap;
}

/* R from ROW and its knobs VALUES; false when its model name does not fit (R's is cut then: a
 * listing marks the run damaged). The label and file name are shown, never matched: cut to fit. */
static bool summary_of(const store_run_row *row, const engine_deployment *values, store_run_summary *r)
{
    memset(r, 0, sizeof *r);
    r->id = row->id;
    engine_copy_text(r->label, sizeof r->label, row->label);
    engine_copy_text(r->source, sizeof r->source, row->source);
    bool fits = copy_name(r->model, sizeof r->model, row->model);
    r->gpu_inferred = row->gpu_inferred;
    r->reconstructed = row->reconstructed;
    engine_copy_text(r->created_at, sizeof r->created_at, row->created_at);
    store_summary_set_knobs(r, values);
    r->static_gib = row->static_gib;
    r->largest_gib = row->largest_gib;
    r->buckets_gib = row->buckets_gib;
    r->draft_gib = row->draft_gib;
    r->target_total_gib = row->target_total_gib;
    r->total_gib = row->total_gib;
    return fits;
}

/* Calls FN for each run TAIL selects ("WHERE ... ORDER BY ..."; ?1 and ?2 bound to FROM_ID and
 * TO_ID when it has them), with its knobs read from its knobs record. */
static int each_run(store *s, const char *tail, int64_t from_id, int64_t to_id,
                    void (*fn)(const store_run_summary *r, void *ctx), void *ctx, char *err, size_t errlen)
{
    char sql[2048];
    store_select_sql(&store_run_summary_table, NULL, tail, sql, sizeof sql);
    sqlite3_stmt *st = NULL;
    engine_deployment *values = malloc(sizeof *values);
    engine_knob_origin origin[KNOB_COUNT];
    if (!values) {
        store_set_err(err, errlen, "%s: out of memory listing runs", s->path);
        return -1;
    }
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "listing runs");
        sqlite3_finalize(st);
        free(values);
        return -1;
    }
    if (sqlite3_bind_parameter_count(st) == 2) {
        sqlite3_bind_int64(st, 1, from_id);
        sqlite3_bind_int64(st, 2, to_id);
    }
    store_run_row row;
    memset(&row, 0, sizeof row); /* the columns a listing does not read stay empty */
    store_run_summary r;
    int rc, out = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_read_row(st, 0, &store_run_summary_table, &row);
        /* one damaged record must not hide the runs after it: the rest of its row still reads */
        bool damaged = store_read_knobs(s, &row, values, origin, err, errlen) != 0;
        if (damaged)
            memset(values, 0, sizeof *values);
        r.damaged = !summary_of(&row, values, &r) || damaged;
        fn(&r, ctx);
    }
    if (out == 0 && rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "listing runs");
        out = -1;
    }
    sqlite3_finalize(st);
    free(values);
    return out;
}

int store_each_run(store *s, void (*fn)(const store_run_summary *r, void *ctx), void *ctx, char *err, size_t errlen)
{
    return each_run(s, "ORDER BY id DESC", 0, 0, fn, ctx, err, errlen);
}

int store_each_run_range(store *s, int64_t from_id, int64_t to_id, void (*fn)(const store_run_summary *r, void *ctx),
                         void *ctx, char *err, size_t errlen)
{
    return each_run(s, "WHERE id BETWEEN ?1 AND ?2 ORDER BY id", from_id, to_id, fn, ctx, err, errlen);
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

int store_get_run(store *s, int64_t id, store_run_detail *out, char *err, size_t errlen)
{
    char sql[2048];
    store_select_sql(&store_runs_table, NULL, "WHERE id = ?1", sql, sizeof sql);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "reading a run");
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st), out_rc = 0;
    if (rc != SQLITE_ROW) {
        if (rc != SQLITE_DONE)
            store_db_err(s, err, errlen, "reading a run");
        out_rc = rc == SQLITE_DONE ? 1 : -1;
        goto done;
    }
    memset(out, 0, sizeof *out);
    store_run_row row;
    store_read_row(st, 0, &store_runs_table, &row);
    if (store_read_knobs(s, &row, &out->values, out->origin, err, errlen) != 0) {
        out_rc = -1;
        goto done;
    }
    if (!summary_of(&row, &out->values, &out->summary) || !copy_name(out->preset, sizeof out->preset, row.preset)) {
        bool model = row.model && strlen(row.model) >= sizeof out->summary.model;
        if (model)
            store_set_err(err, errlen,
                          "%s: run %lld: its stored model name is longer than %zu bytes (damaged); cgplan runs "
                          "set-model %lld MODEL names it again",
                          s->path, (long long)id, sizeof out->summary.model - 1, (long long)id);
        else
            store_set_err(err, errlen,
                          "%s: run %lld: its stored preset name is longer than %zu bytes (damaged); delete the run "
                          "(cgplan runs rm %lld) and ingest its log again",
                          s->path, (long long)id, sizeof out->preset - 1, (long long)id);
        out_rc = -1;
        goto done;
    }
    out->backend = BACKEND_FLASHINFER_MLA;
    for (int b = 0; b < BACKEND_COUNT; b++)
        if (strcmp(row.attention_backend, engine_backend_names[b]) == 0)
            out->backend = (engine_backend)b;
    out->a2a = strcmp(row.a2a, "none") == 0 ? A2A_NONE : A2A_DEEPEP;
    out->has_backend = row.attention_backend[0] != '\0';
    out->model_origin = out->summary.model[0] ? engine_origin_from_name(row.model_origin) : ORIGIN_UNKNOWN;
    out->has_a2a = row.a2a[0] != '\0';
done:
    sqlite3_finalize(st);
    return out_rc;
}

/* The number of sizes in "1,2,4" and the first of them (0: none). */
static uint32_t list_count(const char *text, uint32_t *first)
{
    *first = 0;
    if (!text || !*text)
        return 0;
    uint32_t n = 1;
    for (const char *p = text; *p; p++)
        n += *p == ',';
    unsigned long v = strtoul(text, NULL, 10);
    *first = v <= UINT32_MAX ? (uint32_t)v : 0;
    return n;
}

int store_read_detail(store *s, int64_t id, store_bytes detail, int64_t target, store_group_info *groups, size_t cap,
                      size_t *n_groups, store_rank_info *ranks, size_t rcap, size_t *n_ranks, store_run_extra *extra,
                      char *err, size_t errlen)
{
    if (n_groups)
        *n_groups = 0;
    if (n_ranks)
        *n_ranks = 0;
    /* The detail record, whole (a damaged one is reported, not shown in part): each group with
     * its bars, then the ranks, then the env lines. */
    store_record_reader rd;
    uint64_t n = 0;
    store_record_open(&rd, detail);
    store_record_get_count(&rd, &n);
    for (uint64_t gi = 0; gi < n; gi++) {
        store_group_row r;
        uint64_t bars = 0;
        if (!store_record_get_row(&rd, &store_groups_table, &r) || !store_record_get_count(&rd, &bars))
            break;
        for (uint64_t b = 0; b < bars; b++) {
            store_bar_row bar;
            if (!store_record_get_row(&rd, &store_bars_table, &bar))
                break;
        }
        if (!groups || !n_groups || *n_groups >= cap)
            continue;
        store_group_info *g = &groups[(*n_groups)++];
        memset(g, 0, sizeof *g);
        g->ordinal = (int)r.ordinal;
        engine_copy_text(g->kind, sizeof g->kind, r.kind);
        engine_copy_text(g->role, sizeof g->role, r.role);
        engine_copy_text(g->phase, sizeof g->phase, r.phase);
        g->step = (int32_t)r.step;
        g->tokens_per_req = (int32_t)r.tokens_per_req;
        engine_copy_text(g->rank, sizeof g->rank, r.rank_label);
        g->failed = r.failed;
        engine_copy_text(g->failure, sizeof g->failure, r.failure);
        g->n_sizes = list_count(r.sizes, &g->first_size);
        g->n_bars = bars <= UINT32_MAX ? (uint32_t)bars : 0;
        g->begin_avail_gib = r.begin_avail_gib;
        g->end_avail_gib = r.end_avail_gib;
        g->end_usage_gib = r.end_usage_gib;
        g->end_elapsed_s = r.end_elapsed_s;
        g->static_gib = r.static_gib;
        g->largest_gib = r.largest_gib;
        g->buckets_gib = r.buckets_gib;
        g->total_gib = r.total_gib;
        g->registered_addresses = r.registered_addresses;
        g->is_target = r.ordinal == target;
    }
    store_record_get_count(&rd, &n);
    for (uint64_t ri = 0; ri < n; ri++) {
        store_rank_row r;
        if (!store_record_get_row(&rd, &store_ranks_table, &r))
            break;
        if (!ranks || !n_ranks || *n_ranks >= rcap)
            continue;
        store_rank_info *k = &ranks[(*n_ranks)++];
        engine_copy_text(k->label, sizeof k->label, r.label);
        k->weights_begin_avail_gib = r.weights_begin_avail_gib;
        k->weights_usage_gib = r.weights_usage_gib;
        k->kv_tokens = r.kv_tokens;
        k->kv_gib = r.kv_gib;
        k->state_gib = r.state_gib;
        k->pool_avail_gib = r.pool_avail_gib;
    }
    store_record_get_count(&rd, &n);
    for (uint64_t ei = 0; ei < n; ei++) {
        store_env_row r;
        if (!store_record_get_row(&rd, &store_env_table, &r))
            break;
        if (extra && strcmp(r.key, "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK") == 0)
            engine_copy_text(extra->env_dispatch, sizeof extra->env_dispatch, r.value); /* the last one stated */
    }
    if (!store_record_done(&rd)) {
        store_set_err(err, errlen,
                      "%s: run %lld: its stored groups, ranks and environment lines are damaged; delete the run "
                      "(cgplan runs rm %lld) and ingest its log again",
                      s->path, (long long)id, (long long)id);
        return -1;
    }
    return 0;
}

int store_get_run_parts(store *s, int64_t id, store_group_info *groups, size_t cap, size_t *n_groups,
                        store_rank_info *ranks, size_t rcap, size_t *n_ranks, store_run_extra *extra, char *err,
                        size_t errlen)
{
    sqlite3_stmt *st = NULL;
    char sql[2048];
    if (n_groups)
        *n_groups = 0;
    if (n_ranks)
        *n_ranks = 0;
    store_select_sql(&store_runs_table, NULL, "WHERE id = ?1", sql, sizeof sql);
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        goto dberr;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(st);
        return 1;
    }
    if (rc != SQLITE_ROW)
        goto dberr;
    store_run_row run;
    store_read_row(st, 0, &store_runs_table, &run);
    int64_t target = run.target_group;
    if (extra) {
        memset(extra, 0, sizeof *extra);
        engine_copy_text(extra->path, sizeof extra->path, run.path);
        engine_copy_text(extra->content_hash, sizeof extra->content_hash, run.content_hash);
        engine_copy_text(extra->model_path, sizeof extra->model_path, run.model_path);
        extra->first_line = run.first_line >= 0 && run.first_line <= UINT32_MAX ? (uint32_t)run.first_line : 0;
        extra->last_line = run.last_line >= 0 && run.last_line <= UINT32_MAX ? (uint32_t)run.last_line : 0;
        extra->lines = (uint64_t)run.lines;
        extra->unknown_lines = (uint64_t)run.unknown_lines;
        extra->malformed_lines = (uint64_t)run.malformed_lines;
    }
    int ok =
        store_read_detail(s, id, run.detail, target, groups, cap, n_groups, ranks, rcap, n_ranks, extra, err, errlen);
    sqlite3_finalize(st);
    return ok;
dberr:
    store_db_err(s, err, errlen, "reading a run");
    sqlite3_finalize(st);
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

/* Each reason a run cannot enter a calibration, and the whole text: the reason, then its fix. */
#define EXCLUSION(reason, rest)                                                                                        \
    {                                                                                                                  \
        reason, reason rest                                                                                            \
    }
static const store_exclusion exclusions[] = {
    EXCLUSION("record damaged", ": its stored knobs do not read back (cgplan runs show ID says why); cgplan runs rm "
                                "ID and ingest its log again"),
    EXCLUSION("model unknown", ": the log names no model a preset knows; import it (cgplan model import config.json), "
                               "then cgplan runs set-model ID MODEL (or cgplan runs rm ID and ingest the log again "
                               "with --model MODEL)"),
    EXCLUSION("GPU unknown", ": the log does not name it; cgplan runs set ID gpu=NAME (or ingest it with --preset or "
                             "--set gpu=NAME)"),
    EXCLUSION("no measured target layers", " (no target decode/verify group with known memory)"),
    /* the shape knobs decide every term: a run fitted at a preset's world or max_bs would teach
     * the pool the wrong deployment */
    EXCLUSION("world unknown", ": the log states no tp_size and tags no ranks; cgplan runs set ID tp=N (or ingest it "
                               "with --preset or --set tp=N)"),
    EXCLUSION("max_bs unknown", ": the log lists no captured sizes; cgplan runs set ID max_bs=B (or ingest it with "
                                "--set sglang=RELEASE, whose grid turns the capture's bar count into max_bs)"),
};
#undef EXCLUSION

const store_exclusion *store_run_calibration_excluded(const store_run_summary *r)
{
    if (r->damaged)
        return &exclusions[0];
    if (!r->model[0])
        return &exclusions[1];
    if (!r->gpu[0])
        return &exclusions[2];
    if (!caplog_known(r->target_total_gib) && !caplog_known(r->largest_gib))
        return &exclusions[3];
    if (!r->world)
        return &exclusions[4];
    if (!r->max_bs)
        return &exclusions[5];
    return NULL;
}

const char *store_run_calibration_exclusion(const store_run_summary *r)
{
    const store_exclusion *e = store_run_calibration_excluded(r);
    return e ? e->text : NULL;
}

/* ---- Calibrations ---- */

#define CAL_COLUMNS                                                                                                    \
    "act_bytes_per_row, lazy_bytes, graph_bytes, out_bytes_per_row, draft_base_bytes, draft_bytes_per_row, runs, "     \
    "static_bytes, id, model, gpu, sglang, created_at, held_node_bytes"

/* The ids of "3,4" into IDS (at most CAP); returns how many were read. */
static int read_ids(const char *text, int64_t *ids, int cap)
{
    int n = 0;
    while (text && *text && n < cap) {
        char *end;
        long long v = strtoll(text, &end, 10);
        if (end == text)
            break;
        ids[n++] = v;
        text = *end == ',' ? end + 1 : NULL;
    }
    return n;
}

/* node_bytes, held by a fit or fitted for a GPU, keeps the node_bytes knob's range: it is
 * multiplied by every graph's kernel nodes, and the knob's range is what that product is sized for. */
static bool node_bytes_in_bounds(uint64_t v)
{
    const engine_knob_info *k = &engine_knobs[KNOB_NODE_BYTES];
    return v >= (uint64_t)k->min && v <= (uint64_t)k->max;
}

/* A node_bytes calibration's value in bounds, with its range around it and the top in bounds too
 * (the estimate prices its high end); the low end may fall to 0. */
static bool node_range_in_bounds(const engine_range *r)
{
    return node_bytes_in_bounds(r->expected) && r->low <= r->expected && r->high >= r->expected &&
           node_bytes_in_bounds(r->high);
}

/* The first of CAL's values past the bounds a stored calibration keeps, on save and on every read
 * (a coefficient, COEF_COUNT for static_bytes; its value in *V), or -1: engine_calibration_max,
 * what the estimate's arithmetic is sized for. Anything past them wraps an estimate. */
static int calibration_out_of_bounds(const engine_calibration *cal, uint64_t *v)
{
    for (int i = 0; i <= COEF_COUNT; i++) {
        bool has = i < COEF_COUNT ? cal->has[i] : cal->has_static;
        *v = i < COEF_COUNT ? cal->value[i] : cal->static_bytes;
        if (has && *v > engine_calibration_max(i))
            return i;
    }
    return -1;
}

static const char *calibration_value_name(int i)
{
    return i < COEF_COUNT ? engine_coef_names[i] : "static_bytes";
}

/* A calibrations row (CAL_COLUMNS from column 0) into CAL. Returns 0, or -1 with ERR naming the
 * row, its value out of bounds and the fix: the store was written by something other than cgplan's
 * save, and no estimate may use it. */
static int read_calibration(sqlite3_stmt *st, engine_calibration *cal, char *err, size_t errlen)
{
    memset(cal, 0, sizeof *cal);
    for (int i = 0; i < COEF_COUNT; i++) {
        cal->has[i] = sqlite3_column_type(st, i) != SQLITE_NULL && sqlite3_column_int64(st, i) >= 0;
        cal->value[i] = cal->has[i] ? (uint64_t)sqlite3_column_int64(st, i) : 0;
    }
    cal->n_runs = read_ids((const char *)sqlite3_column_text(st, COEF_COUNT), cal->runs, ENGINE_MAX_CAL_RUNS);
    int sc = COEF_COUNT + 1;
    cal->has_static = sqlite3_column_type(st, sc) != SQLITE_NULL && sqlite3_column_int64(st, sc) >= 0;
    cal->static_bytes = cal->has_static ? (uint64_t)sqlite3_column_int64(st, sc) : 0;
    uint64_t v = 0;
    int bad = calibration_out_of_bounds(cal, &v);
    if (bad < 0)
        return 0;
    int base = COEF_COUNT + 2; /* id, model, gpu */
    char model[ENGINE_NAME_MAX * 4], gpu[ENGINE_NAME_MAX * 4];
    engine_text_cleaned(model, sizeof model, (const char *)sqlite3_column_text(st, base + 1));
    engine_text_cleaned(gpu, sizeof gpu, (const char *)sqlite3_column_text(st, base + 2));
    store_set_err(err, errlen, "calibration %lld: %s %llu is out of bounds; cgplan calibrate --reset %s %s",
                  (long long)sqlite3_column_int64(st, base), calibration_value_name(bad), (unsigned long long)v, model,
                  gpu);
    memset(cal, 0, sizeof *cal);
    return -1;
}

int store_load_plan_calibration(store *s, const engine_deployment *d, engine_calibration *cal, char *err, size_t errlen)
{
    char release[ENGINE_RELEASE_TEXT_MAX]; /* calibrations pool by release */
    engine_release_text(&d->knobs.sglang, release, sizeof release);
    memset(cal, 0, sizeof *cal);
    int model = store_load_calibration_for(s, d->model.name, d->gpu.name, release, cal, err, errlen);
    if (model < 0)
        return -1;
    int gpu = store_load_node_calibration(s, d->gpu.name, release, cal, err, errlen);
    if (gpu < 0) {
        memset(cal, 0, sizeof *cal);
        return -1;
    }
    return model || gpu;
}

int store_load_calibration_for(store *s, const char *model, const char *gpu, const char *release,
                               engine_calibration *cal, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    /* the release's own calibration before one that predates release pooling (NULL) */
    if (!s || !model || !gpu ||
        sqlite3_prepare_v2(s->db,
                           "SELECT " CAL_COLUMNS " FROM calibrations WHERE model = ?1 AND gpu = ?2 AND "
                           "(?3 IS NULL OR sglang IS NULL OR sglang = ?3) ORDER BY sglang IS NULL, id DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return 0;
    }
    sqlite3_bind_text(st, 1, model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, gpu, -1, SQLITE_TRANSIENT);
    if (release && *release)
        sqlite3_bind_text(st, 3, release, -1, SQLITE_TRANSIENT);
    int found = sqlite3_step(st) == SQLITE_ROW;
    if (found && read_calibration(st, cal, err, errlen) != 0)
        found = -1;
    sqlite3_finalize(st);
    return found;
}

int store_load_calibration(store *s, const char *model, const char *gpu, engine_calibration *cal, char *err,
                           size_t errlen)
{
    return store_load_calibration_for(s, model, gpu, NULL, cal, err, errlen);
}

int store_save_calibration(store *s, const char *model, const char *gpu, const char *release,
                           const engine_calibration *cal, uint64_t held_node_bytes, const char *report, char *err,
                           size_t errlen)
{
    if (s->read_only) {
        store_set_err(err, errlen, "%s is open read-only", s->path);
        return -1;
    }
    /* The store refuses what the fit should have: a value the estimate's arithmetic cannot take
     * (read_calibration refuses the same on the way back). */
    uint64_t v = 0;
    int bad = calibration_out_of_bounds(cal, &v);
    if (bad >= 0) {
        store_set_err(err, errlen, "%s: calibration of %s on %s not saved: %s = %llu B is out of bounds (over %llu B)",
                      s->path, model, gpu, calibration_value_name(bad), (unsigned long long)v,
                      (unsigned long long)engine_calibration_max(bad));
        return -1;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO calibrations (model, gpu, created_at, act_bytes_per_row, lazy_bytes, "
                           "graph_bytes, out_bytes_per_row, draft_base_bytes, draft_bytes_per_row, runs, report, "
                           "sglang, static_bytes, held_node_bytes) VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', "
                           "'now'), ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                           -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "saving a calibration");
        return -1;
    }
    sqlite3_bind_text(st, 1, model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, gpu, -1, SQLITE_TRANSIENT);
    for (int i = 0; i < COEF_COUNT; i++) {
        if (cal->has[i])
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
    if (release && *release)
        sqlite3_bind_text(st, 11, release, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 11);
    if (cal->has_static)
        sqlite3_bind_int64(st, 12, (sqlite3_int64)cal->static_bytes);
    else
        sqlite3_bind_null(st, 12);
    if (node_bytes_in_bounds(held_node_bytes))
        sqlite3_bind_int64(st, 13, (sqlite3_int64)held_node_bytes);
    else
        sqlite3_bind_null(st, 13);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "saving a calibration");
        return -1;
    }
    return 0;
}

int store_each_calibration(store *s, void (*fn)(const store_calibration_info *c, void *ctx), void *ctx, char *err,
                           size_t errlen)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT " CAL_COLUMNS ", id = (SELECT max(id) FROM calibrations c2 WHERE c2.model = "
                           "calibrations.model AND c2.gpu = calibrations.gpu AND c2.sglang IS calibrations.sglang) "
                           "FROM calibrations ORDER BY id DESC",
                           -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "listing calibrations");
        return -1;
    }
    int rc;
    store_calibration_info c;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        memset(&c, 0, sizeof c);
        if (read_calibration(st, &c.cal, err, errlen) != 0) {
            sqlite3_finalize(st);
            return -1;
        }
        int base = COEF_COUNT + 2;
        c.id = sqlite3_column_int64(st, base);
        const char *model = (const char *)sqlite3_column_text(st, base + 1),
                   *gpu = (const char *)sqlite3_column_text(st, base + 2),
                   *release = (const char *)sqlite3_column_text(st, base + 3);
        if (!copy_name(c.model, sizeof c.model, model) || !copy_name(c.gpu, sizeof c.gpu, gpu) ||
            !copy_name(c.release, sizeof c.release, release)) {
            store_set_err(err, errlen,
                          "calibration %lld: its model, GPU or release name is longer than cgplan's names "
                          "(damaged); cgplan calibrate --reset removes every calibration",
                          (long long)c.id);
            sqlite3_finalize(st);
            return -1;
        }
        engine_copy_text(c.created_at, sizeof c.created_at, (const char *)sqlite3_column_text(st, base + 4));
        int64_t held = sqlite3_column_type(st, base + 5) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, base + 5);
        c.held_node_bytes = held > 0 ? (uint64_t)held : 0;
        if (c.held_node_bytes && !node_bytes_in_bounds(c.held_node_bytes)) { /* the save writes NULL then */
            store_set_err(err, errlen,
                          "calibration %lld: held_node_bytes %lld is out of bounds; cgplan calibrate "
                          "--reset %s %s",
                          (long long)c.id, (long long)held, c.model, c.gpu);
            sqlite3_finalize(st);
            return -1;
        }
        c.current = sqlite3_column_int(st, base + 6) != 0;
        fn(&c, ctx);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "listing calibrations");
        return -1;
    }
    return 0;
}

int store_delete_calibrations(store *s, const char *model, const char *gpu, const char *release, char *err,
                              size_t errlen)
{
    if (s->read_only) {
        store_set_err(err, errlen, "%s is open read-only", s->path);
        return -1;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "DELETE FROM calibrations WHERE (?1 IS NULL OR model = ?1) AND (?2 IS NULL OR gpu = ?2) "
                           "AND (?3 IS NULL OR sglang = ?3)",
                           -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "deleting calibrations");
        return -1;
    }
    const char *keys[3] = {model, gpu, release};
    for (int i = 0; i < 3; i++)
        if (keys[i])
            sqlite3_bind_text(st, i + 1, keys[i], -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "deleting calibrations");
        return -1;
    }
    return sqlite3_changes(s->db);
}

/* ---- A GPU's node_bytes (gpu_calibrations, through its column table in store_row.c) ---- */

/* A gpu_calibrations row into C: 0, or -1 with ERR naming the row and the fix when its node_bytes
 * is not one the save would have taken. */
static int node_calibration_from_row(const store_gpu_calibration_row *row, bool current, store_node_calibration *c,
                                     char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->id = row->id;
    if (!copy_name(c->gpu, sizeof c->gpu, row->gpu) || !copy_name(c->release, sizeof c->release, row->sglang) ||
        !copy_name(c->run_releases, sizeof c->run_releases, row->run_releases) ||
        !copy_name(c->run_models, sizeof c->run_models, row->run_models)) {
        store_set_err(err, errlen,
                      "node_bytes calibration %lld: a GPU, release or model name in it is longer than cgplan's "
                      "(damaged); cgplan calibrate --reset removes every calibration",
                      (long long)row->id);
        return -1;
    }
    engine_copy_text(c->created_at, sizeof c->created_at, row->created_at);
    c->current = current;
    c->node_bytes.expected = row->node_bytes > 0 ? (uint64_t)row->node_bytes : 0;
    c->node_bytes.low = row->node_bytes_low > 0 ? (uint64_t)row->node_bytes_low : 0;
    c->node_bytes.high = row->node_bytes_high > 0 ? (uint64_t)row->node_bytes_high : 0;
    c->n_runs = row->n_runs > 0 && row->n_runs < INT32_MAX ? (int)row->n_runs : 0;
    read_ids(row->runs, c->runs, ENGINE_MAX_CAL_RUNS);
    if (node_range_in_bounds(&c->node_bytes))
        return 0;
    char gpu[ENGINE_NAME_MAX * 4];
    store_set_err(err, errlen,
                  "node_bytes calibration %lld: node_bytes %lld [%lld, %lld] is out of bounds; cgplan calibrate "
                  "--reset %s",
                  (long long)row->id, (long long)row->node_bytes, (long long)row->node_bytes_low,
                  (long long)row->node_bytes_high, engine_text_cleaned(gpu, sizeof gpu, row->gpu));
    return -1;
}

int store_save_node_calibration(store *s, const store_node_calibration *c, const char *report, char *err, size_t errlen)
{
    if (s->read_only) {
        store_set_err(err, errlen, "%s is open read-only", s->path);
        return -1;
    }
    const engine_range *r = &c->node_bytes;
    if (!node_range_in_bounds(r)) {
        store_set_err(err, errlen,
                      "%s: node_bytes calibration of %s not saved: %llu B [%llu, %llu] is not a value of 256 B .. 1 "
                      "MiB (the node_bytes knob's range) with a range around it",
                      s->path, c->gpu, (unsigned long long)r->expected, (unsigned long long)r->low,
                      (unsigned long long)r->high);
        return -1;
    }
    char runs[ENGINE_MAX_CAL_RUNS * 21 + 1] = "";
    size_t used = 0;
    for (int i = 0; i < c->n_runs && i < ENGINE_MAX_CAL_RUNS; i++)
        used += (size_t)snprintf(runs + used, sizeof runs - used, "%s%lld", i ? "," : "", (long long)c->runs[i]);
    store_gpu_calibration_row row = {
        .gpu = c->gpu,
        .sglang = c->release,
        .node_bytes = (int64_t)r->expected,
        .node_bytes_low = (int64_t)r->low,
        .node_bytes_high = (int64_t)r->high,
        .n_runs = c->n_runs,
        .runs = runs,
        .run_releases = c->run_releases,
        .run_models = c->run_models,
        .report = report,
    };
    char sql[1024];
    store_insert_sql(&store_gpu_calibrations_table, sql, sizeof sql);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "saving a node_bytes calibration");
        return -1;
    }
    store_bind_row(st, &store_gpu_calibrations_table, &row);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "saving a node_bytes calibration");
        return -1;
    }
    return 0;
}

int store_load_node_calibration(store *s, const char *gpu, const char *release, engine_calibration *cal, char *err,
                                size_t errlen)
{
    char sql[1024];
    /* the release's own before one pooled over every release (NULL) */
    store_select_sql(&store_gpu_calibrations_table, NULL,
                     "WHERE gpu = ?1 AND (?2 IS NULL OR sglang IS NULL OR sglang = ?2) ORDER BY sglang IS NULL, id "
                     "DESC LIMIT 1",
                     sql, sizeof sql);
    sqlite3_stmt *st = NULL;
    if (!s || !gpu || !*gpu || sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return 0;
    }
    sqlite3_bind_text(st, 1, gpu, -1, SQLITE_TRANSIENT);
    if (release && *release)
        sqlite3_bind_text(st, 2, release, -1, SQLITE_TRANSIENT);
    int found = sqlite3_step(st) == SQLITE_ROW;
    if (found) {
        store_gpu_calibration_row row;
        store_read_row(st, 0, &store_gpu_calibrations_table, &row);
        store_node_calibration c;
        if (node_calibration_from_row(&row, true, &c, err, errlen) != 0)
            found = -1;
        else
            engine_calibration_set_node_bytes(cal, c.node_bytes, c.n_runs, c.gpu, c.release);
    }
    sqlite3_finalize(st);
    return found;
}

int store_each_node_calibration(store *s, void (*fn)(const store_node_calibration *c, void *ctx), void *ctx, char *err,
                                size_t errlen)
{
    char sql[1024];
    store_select_sql(&store_gpu_calibrations_table,
                     "id = (SELECT max(id) FROM gpu_calibrations g2 WHERE g2.gpu = gpu_calibrations.gpu AND "
                     "g2.sglang IS gpu_calibrations.sglang)",
                     "ORDER BY id DESC", sql, sizeof sql);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "listing node_bytes calibrations");
        return -1;
    }
    int rc;
    store_node_calibration c;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_gpu_calibration_row row;
        store_read_row(st, 1, &store_gpu_calibrations_table, &row);
        if (node_calibration_from_row(&row, sqlite3_column_int(st, 0) != 0, &c, err, errlen) != 0) {
            sqlite3_finalize(st);
            return -1;
        }
        fn(&c, ctx);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "listing node_bytes calibrations");
        return -1;
    }
    return 0;
}

int store_delete_node_calibrations(store *s, const char *gpu, const char *release, char *err, size_t errlen)
{
    if (s->read_only) {
        store_set_err(err, errlen, "%s is open read-only", s->path);
        return -1;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(
            s->db, "DELETE FROM gpu_calibrations WHERE (?1 IS NULL OR gpu = ?1) AND (?2 IS NULL OR sglang = ?2)", -1,
            &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "deleting node_bytes calibrations");
        return -1;
    }
    if (gpu)
        sqlite3_bind_text(st, 1, gpu, -1, SQLITE_TRANSIENT);
    if (release)
        sqlite3_bind_text(st, 2, release, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "deleting node_bytes calibrations");
        return -1;
    }
    return sqlite3_changes(s->db);
}

int store_set_run_model(store *s, int64_t id, const char *model, char *err, size_t errlen)
{
    if (s->read_only) {
        store_set_err(err, errlen, "%s is open read-only", s->path);
        return -1;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "UPDATE runs SET model = ?2, model_origin = 'set' WHERE id = ?1", -1, &st, NULL) !=
        SQLITE_OK) {
        store_db_err(s, err, errlen, "setting a run's model");
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, model, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "setting a run's model");
        return -1;
    }
    return sqlite3_changes(s->db) > 0 ? 0 : 1;
}

/* The run_texts id of the LEN bytes at P (a BLOB), added when new; -1 on a database error. */
static int64_t blob_text_id(store *s, const void *p, size_t len)
{
    static const char *const sql[2] = {"SELECT id FROM run_texts WHERE body = ?1",
                                       "INSERT INTO run_texts (body) VALUES (?1)"};
    for (int step = 0; step < 2; step++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(s->db, sql[step], -1, &st, NULL) != SQLITE_OK)
            return -1;
        sqlite3_bind_blob(st, 1, p, (int)len, SQLITE_TRANSIENT);
        int rc = sqlite3_step(st);
        int64_t id = step == 0 && rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        sqlite3_finalize(st);
        if (step == 0 && rc == SQLITE_ROW)
            return id;
        if (rc != SQLITE_DONE)
            return -1;
    }
    return sqlite3_last_insert_rowid(s->db);
}

int store_set_run_knobs(store *s, int64_t id, const engine_deployment *values,
                        const engine_knob_origin origin[KNOB_COUNT], char *err, size_t errlen)
{
    if (s->read_only) {
        store_set_err(err, errlen, "%s is open read-only", s->path);
        return -1;
    }
    /* the knobs record as ingest writes it: each row knob the run knows, canonical text, origin */
    store_record rec = {0};
    uint64_t n = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        n += engine_knobs[k].store == KNOB_STORE_ROW && origin[k];
    store_record_begin(&rec);
    store_record_count(&rec, n);
    char text[ENGINE_MAX_BUCKETS * 8];
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (engine_knobs[k].store != KNOB_STORE_ROW || !origin[k])
            continue;
        engine_knob_text(values, NULL, (engine_knob_id)k, KNOB_TEXT_CANONICAL, text, sizeof text);
        store_knob_row row = {engine_knobs[k].name, text, engine_origin_name(origin[k])};
        store_record_row(&rec, &store_knob_rows_table, &row);
    }
    if (rec.failed) {
        store_record_free(&rec);
        store_set_err(err, errlen, "%s: out of memory setting a run's knobs", s->path);
        return -1;
    }
    int out = -1;
    sqlite3_stmt *st = NULL;
    if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "setting a run's knobs");
        store_record_free(&rec);
        return -1;
    }
    int64_t old_text = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT knobs_text FROM runs WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        out = 1;
        goto done;
    }
    if (rc != SQLITE_ROW)
        goto fail;
    old_text = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    int64_t text_id = blob_text_id(s, rec.p, rec.len);
    if (text_id < 0)
        goto fail;
    if (sqlite3_prepare_v2(s->db, "UPDATE runs SET knobs_text = ?2 WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, text_id);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto fail;
    sqlite3_finalize(st);
    st = NULL;
    /* the column knobs (the GPU): named here, the inference it replaces is gone */
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (engine_knobs[k].store != KNOB_STORE_COLUMN)
            continue;
        char sql[256];
        snprintf(sql, sizeof sql, "UPDATE runs SET %s = ?2, %s_origin = ?3%s WHERE id = ?1", engine_knobs[k].name,
                 engine_knobs[k].name, k == KNOB_GPU && origin[k] != ORIGIN_INFERRED ? ", gpu_inferred = 0" : "");
        if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
            goto fail;
        engine_knob_text(values, NULL, (engine_knob_id)k, KNOB_TEXT_CANONICAL, text, sizeof text);
        sqlite3_bind_int64(st, 1, id);
        if (origin[k]) {
            sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st, 3, engine_origin_name(origin[k]), -1, SQLITE_STATIC);
        }
        if (sqlite3_step(st) != SQLITE_DONE)
            goto fail;
        sqlite3_finalize(st);
        st = NULL;
    }
    /* the record it had goes when no run refers to it any more (as the delete trigger does) */
    if (old_text && old_text != text_id) {
        if (sqlite3_prepare_v2(s->db,
                               "DELETE FROM run_texts WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM runs WHERE "
                               "server_args_text = ?1 OR knobs_text = ?1)",
                               -1, &st, NULL) != SQLITE_OK)
            goto fail;
        sqlite3_bind_int64(st, 1, old_text);
        if (sqlite3_step(st) != SQLITE_DONE)
            goto fail;
        sqlite3_finalize(st);
        st = NULL;
    }
    if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    store_record_free(&rec);
    return 0;
fail:
    store_db_err(s, err, errlen, "setting a run's knobs");
    out = -1;
done:
    sqlite3_finalize(st);
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    store_record_free(&rec);
    return out;
}

int store_delete_calibration_id(store *s, bool node_bytes, int64_t id, char *err, size_t errlen)
{
    if (s->read_only) {
        store_set_err(err, errlen, "%s is open read-only", s->path);
        return -1;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(
            s->db, node_bytes ? "DELETE FROM gpu_calibrations WHERE id = ?1" : "DELETE FROM calibrations WHERE id = ?1",
            -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "deleting a calibration");
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "deleting a calibration");
        return -1;
    }
    return sqlite3_changes(s->db);
}
