/* content_hash.h — a log's identity in the store, for re-ingest detection: XXH3-128 of the whole
 * file ("xxh3-128:" and 32 hex digits), and beside it SHA-256 ("sha256:" and 64) while the store
 * holds runs stored before schema 7, which were known by their SHA-256 alone. SHA-256 took a
 * sixth of a store's ingest (1.8 GB/s with the CPU's SHA instructions); XXH3 runs at 11 GB/s, and
 * a 128-bit hash tells apart any two logs that are not made to collide. */
#ifndef CGPLAN_CONTENT_HASH_H
#define CGPLAN_CONTENT_HASH_H

#include <stdbool.h>
#include <stddef.h>

#include "sha256.h"

#define STORE_HASH_TEXT_MAX 72 /* "sha256:" + 64 hex digits + NUL */
#define STORE_HASH_PREFIX "xxh3-128:"
#define STORE_HASH_LEGACY_PREFIX "sha256:"

typedef struct {
    void *xxh; /* XXH3_state_t */
    bool legacy;
    store_sha256 sha;
} store_content_hash;

/* LEGACY: SHA-256 too. Returns 0, or -1 when out of memory. */
int store_content_hash_init(store_content_hash *h, bool legacy);
void store_content_hash_update(store_content_hash *h, const void *data, size_t len);
/* The identity into TEXT; with a legacy hash also its SHA-256 into LEGACY, else "" there. */
void store_content_hash_final(store_content_hash *h, char text[STORE_HASH_TEXT_MAX], char legacy[STORE_HASH_TEXT_MAX]);
void store_content_hash_free(store_content_hash *h);

#endif
