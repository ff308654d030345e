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
