/* sha256.h — SHA-256 (FIPS 180-4), streaming, for the store's content hash of ingested logs. */
#ifndef CGPLAN_SHA256_H
#define CGPLAN_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t h[8];
    uint64_t length; /* bytes hashed so far */
    uint8_t block[64];
    size_t used; /* bytes waiting in BLOCK */
    /* the CPU's SHA instructions (x86-64 SHA-NI) where it has them, set by init: the same digest
     * five times faster; a test clears it to check the portable code gives the same */
    bool accelerated;
} store_sha256;

void store_sha256_init(store_sha256 *c);
void store_sha256_update(store_sha256 *c, const void *data, size_t len);
/* Writes the digest as 64 lower-case hex digits and a NUL into HEX. */
void store_sha256_final_hex(store_sha256 *c, char hex[65]);

#endif
