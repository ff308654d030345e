/* store_terms.c — the measured_terms table: hook/cgplan_capture_hook.py's per-term bytes of a run
 * (store_terms.h). Kept apart from store_ingest.c, which writes the log's own rows. */
#include <stdio.h>
#include <string.h>

#include "store_internal.h"
#include "store_terms.h"

const char store_terms_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS measured_terms (\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  term TEXT NOT NULL,   -- engine_terms[] key, 'unattributed', or 'torch' / 'non_torch' (split)\n"
    "  method TEXT NOT NULL, -- 'split' (reserved vs device growth) or 'snapshot' (by source file)\n"
    "  bytes INTEGER NOT NULL,\n"
    "  size INTEGER,         -- the captured size it was measured at\n"
    "  PRIMARY KEY (run_id, method, term)\n"
    ") WITHOUT ROWID;\n";

static int insert(store *s, sqlite3_stmt *st, int64_t run_id, const char *term, const char *method, int64_t bytes,
                  uint32_t size, char *err, size_t errlen)
{
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, term, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, method, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, bytes);
    if (size)
        sqlite3_bind_int64(st, 5, size);
    else
        sqlite3_bind_null(st, 5);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "storing a measured term");
        return -1;
    }
    return 0;
}

int store_terms_write(store *s, int64_t run_id, const caplog_run *run, int target_group, char *err, size_t errlen)
{
    const caplog_group *g = NULL;
    if (target_group >= 0 && (uint32_t)target_group < run->n_groups && run->groups[target_group].hook_captures)
        g = &run->groups[target_group];
    for (uint32_t i = 0; !g && i < run->n_groups; i++)
        if (run->groups[i].hook_captures)
            g = &run->groups[i];
    if (!g && !run->n_hook_terms)
        return 0; /* no hook lines: nothing to prepare (most logs) */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT OR REPLACE INTO measured_terms (run_id, term, method, bytes, size) "
                           "VALUES (?1, ?2, ?3, ?4, ?5)",
                           -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "preparing to store measured terms");
        return -1;
    }
    int rc = 0;
    if (g)
        rc = insert(s, st, run_id, "torch", "split", g->hook_torch_bytes, g->hook_size, err, errlen) ||
             insert(s, st, run_id, "non_torch", "split", g->hook_device_bytes - g->hook_torch_bytes, g->hook_size, err,
                    errlen);
    for (uint32_t i = 0; rc == 0 && i < run->n_hook_terms; i++)
        rc = insert(s, st, run_id, run->hook_terms[i].term, "snapshot", (int64_t)run->hook_terms[i].bytes,
                    run->hook_terms[i].size, err, errlen);
    sqlite3_finalize(st);
    return rc ? -1 : 0;
}

int store_get_measured_terms(store *s, int64_t id, store_measured_term *out, size_t cap, size_t *n, char *err,
                             size_t errlen)
{
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT term, method, bytes, size FROM measured_terms WHERE run_id = ?1 "
                           "ORDER BY method = 'snapshot', bytes DESC, term",
                           -1, &st, NULL) != SQLITE_OK) {
        store_db_err(s, err, errlen, "reading measured terms");
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < cap) {
        store_measured_term *t = &out[(*n)++];
        memset(t, 0, sizeof *t);
        snprintf(t->term, sizeof t->term, "%s", (const char *)sqlite3_column_text(st, 0));
        snprintf(t->method, sizeof t->method, "%s", (const char *)sqlite3_column_text(st, 1));
        t->bytes = sqlite3_column_int64(st, 2);
        int64_t size = sqlite3_column_int64(st, 3);
        t->size = size > 0 && size <= UINT32_MAX ? (uint32_t)size : 0;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        store_db_err(s, err, errlen, "reading measured terms");
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}
