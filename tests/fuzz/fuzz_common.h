/* fuzz_common.h — what the fuzz targets share: a deterministic generator seeded from the input
 * (so a reproducer replays exactly), the output sink, and a trap that libFuzzer reports as a
 * crash with the input that caused it. */
#ifndef CGPLAN_FUZZ_COMMON_H
#define CGPLAN_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A property the target checks failed: print why, then abort (a finding, with its input). */
#define FUZZ_CHECK(cond, ...)                                                                                          \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz check failed: " __VA_ARGS__);                                                        \
            fputc('\n', stderr);                                                                                       \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

/* FNV-1a of the input: the generator's seed. */
static inline uint64_t fuzz_hash(const uint8_t *data, size_t size)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

static inline uint64_t fuzz_next(uint64_t *state) /* xorshift64* */
{
    uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

/* Where writers write: /dev/null, opened once (the bytes are not checked, only that writing
 * them is defined behaviour). */
static inline FILE *fuzz_sink(void)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    if (!sink)
        abort();
    return sink;
}

#endif
