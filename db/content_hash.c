/* content_hash.c — XXH3-128 through libxxhash, SHA-256 (sha256.c) for the runs of older stores. */
#include "content_hash.h"

#include <stdio.h>
#include <string.h>
#include <xxhash.h>

int store_content_hash_init(store_content_hash *h, bool legacy)
{
    memset(h, 0, sizeof *h);
    XXH3_state_t *x = XXH3_createState();
    if (!x || XXH3_128bits_reset(x) != XXH_OK) {
        XXH3_freeState(x);
        return -1;
    }
    h->xxh = x;
    h->legacy = legacy;
    if (legacy)
        store_sha256_init(&h->sha);
    return 0;
}

void store_content_hash_update(store_content_hash *h, const void *data, size_t len)
{
    XXH3_128bits_update(h->xxh, data, len);
    if (h->legacy)
        store_sha256_update(&h->sha, data, len);
}

void store_content_hash_final(store_content_hash *h, char text[STORE_HASH_TEXT_MAX], char legacy[STORE_HASH_TEXT_MAX])
{
    XXH128_canonical_t c; /* big-endian: the digits xxhsum -H2 prints */
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(h->xxh));
    size_t n = (size_t)snprintf(text, STORE_HASH_TEXT_MAX, "%s", STORE_HASH_PREFIX);
    for (size_t i = 0; i < sizeof c.digest; i++)
        n += (size_t)snprintf(text + n, STORE_HASH_TEXT_MAX - n, "%02x", c.digest[i]);
    legacy[0] = '\0';
    if (h->legacy) {
        char hex[65];
        store_sha256_final_hex(&h->sha, hex);
        snprintf(legacy, STORE_HASH_TEXT_MAX, "%s%s", STORE_HASH_LEGACY_PREFIX, hex);
    }
}

void store_content_hash_free(store_content_hash *h)
{
    XXH3_freeState(h->xxh);
    h->xxh = NULL;
}
