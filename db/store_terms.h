/* store_terms.h — per-term measurements of a run: what hook/cgplan_capture_hook.py measured
 * around the largest captured size (issue 10, the article's methods 3 and 4), beside the layers
 * the log's free-memory lines give. One table of its own (schema version 4). */
#ifndef CGPLAN_STORE_TERMS_H
#define CGPLAN_STORE_TERMS_H

#include <stddef.h>
#include <stdint.h>

#include "caplog.h"
#include "store.h"

#define STORE_TERM_METHOD_MAX 16

/* One measured term. METHOD is "split" (the largest bucket's device-wide growth into TERM "torch",
 * torch's caching allocator, and "non_torch", the rest: DeepEP's NVSHMEM and NCCL buffers) or
 * "snapshot" (a memory snapshot's allocations by source file; TERM an engine_terms[] key or
 * "unattributed"). */
typedef struct {
    char term[CAPLOG_HOOK_TERM_MAX];
    char method[STORE_TERM_METHOD_MAX];
    int64_t bytes;
    uint32_t size; /* the captured size it was measured at; 0: not known */
} store_measured_term;

/* The table's DDL (IF NOT EXISTS): a new store runs it with schema.sql, migration 3 -> 4 alone. */
extern const char store_terms_schema_sql[];

/* Ingest keeps a run's measured terms with its other rows (store_ingest.c keep_measured_terms)
 * and writes them in the file's one transaction. */

/* Run ID's measured terms (at most CAP) into OUT, split first, then by bytes, largest first.
 * Returns 0, or -1 with ERR set. */
int store_get_measured_terms(store *s, int64_t id, store_measured_term *out, size_t cap, size_t *n, char *err,
                             size_t errlen);

#endif
