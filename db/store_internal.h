/* store_internal.h — what the store's own files share (not part of the API). */
#ifndef CGPLAN_STORE_INTERNAL_H
#define CGPLAN_STORE_INTERNAL_H

#include <sqlite3.h>

#include "store.h"

#define STORE_APPLICATION_ID 0x63677031 /* "cgp1": PRAGMA application_id of a cgplan store */
#define STORE_BUSY_TIMEOUT_MS 10000     /* how long a second cgplan waits for the writer */

struct store {
    sqlite3 *db;
    char path[4096];
    bool read_only;
    bool in_transaction; /* a migration's transaction is open: ingest joins it (the seed) */
};

extern const char store_schema_v1[]; /* db/schema.sql, embedded */

void store_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "PATH: <sqlite's message>; <hint>" for a failed statement. */
void store_db_err(const store *s, char *err, size_t errlen, const char *doing);
int store_exec(store *s, const char *sql, char *err, size_t errlen);
/* Inserts the seed logs (called inside the transaction that creates the schema). */
int store_seed(store *s, char *err, size_t errlen);

#endif
