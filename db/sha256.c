/* sha256.c — SHA-256 after FIPS 180-4 section 6.2; a log's identity in the store. */
#include "sha256.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define SHA256_SHANI 1
#endif

static const uint32_t k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

#ifdef SHA256_SHANI
/* CPUID: leaf 7's EBX bit 29 (SHA), leaf 1's ECX bits 9 (SSSE3) and 19 (SSE4.1). */
static bool cpu_has_shani(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19)))
        return false;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
}

/* BLOCKS 64-byte blocks at P with the SHA extensions (Intel's sequence: the state as ABEF/CDGH,
 * two rounds an instruction, the schedule by sha256msg1/msg2 four words at a time). */
__attribute__((target("sha,ssse3,sse4.1"))) static void compress_shani(uint32_t h[8], const uint8_t *p, size_t blocks)
{
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1);    /* CDAB */
    __m128i state1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B); /* EFGH */
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);                                  /* ABEF */
    state1 = _mm_blend_epi16(state1, tmp, 0xF0);                                       /* CDGH */
    for (; blocks; blocks--, p += 64) {
        __m128i abef = state0, cdgh = state1, w[4];
        /* unrolled, w[]'s indices are constants: it lives in registers */
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) { /* four rounds each, on w[i % 4]: W[4i .. 4i+3] */
            if (i < 4)
                w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), byte_swap);
            __m128i msg = _mm_add_epi32(w[i % 4], _mm_loadu_si128((const __m128i *)&k[4 * i]));
            state1 = _mm_sha256rnds2_epu32(state1, state0, msg);
            if (i >= 3 && i <= 14) { /* W[4i+4 .. 4i+7] */
                __m128i next = _mm_add_epi32(w[(i + 1) % 4], _mm_alignr_epi8(w[i % 4], w[(i + 3) % 4], 4));
                w[(i + 1) % 4] = _mm_sha256msg2_epu32(next, w[i % 4]);
            }
            state0 = _mm_sha256rnds2_epu32(state0, state1, _mm_shuffle_epi32(msg, 0x0E));
            if (i >= 1 && i <= 12)
                w[(i + 3) % 4] = _mm_sha256msg1_epu32(w[(i + 3) % 4], w[i % 4]);
        }
        state0 = _mm_add_epi32(state0, abef);
        state1 = _mm_add_epi32(state1, cdgh);
    }
    tmp = _mm_shuffle_epi32(state0, 0x1B);       /* FEBA */
    state1 = _mm_shuffle_epi32(state1, 0xB1);    /* DCHG */
    state0 = _mm_blend_epi16(tmp, state1, 0xF0); /* DCBA */
    state1 = _mm_alignr_epi8(state1, tmp, 8);    /* HGFE */
    _mm_storeu_si128((__m128i *)&h[0], state0);
    _mm_storeu_si128((__m128i *)&h[4], state1);
}
#endif

/* BLOCKS whole blocks at P. */
static void compress_blocks(store_sha256 *c, const uint8_t *p, size_t blocks)
{
#ifdef SHA256_SHANI
    if (c->accelerated) {
        compress_shani(c->h, p, blocks);
        return;
    }
#endif
    for (; blocks; blocks--, p += 64)
        compress(c->h, p);
}

void store_sha256_init(store_sha256 *c)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, iv, sizeof iv);
    c->length = 0;
    c->used = 0;
#ifdef SHA256_SHANI
    c->accelerated = cpu_has_shani();
#else
    c->accelerated = false;
#endif
}

void store_sha256_update(store_sha256 *c, const void *data, size_t len)
{
    const uint8_t *p = data;
    c->length += len;
    if (c->used) {
        size_t take = 64 - c->used < len ? 64 - c->used : len;
        memcpy(c->block + c->used, p, take);
        c->used += take;
        p += take;
        len -= take;
        if (c->used < 64)
            return;
        compress_blocks(c, c->block, 1);
        c->used = 0;
    }
    compress_blocks(c, p, len / 64);
    p += len - len % 64;
    len %= 64;
    memcpy(c->block, p, len);
    c->used = len;
}

void store_sha256_final_hex(store_sha256 *c, char hex[65])
{
    uint64_t bits = c->length * 8;
    uint8_t pad[72] = {0x80};
    size_t npad = (c->used < 56 ? 56 : 120) - c->used;
    uint8_t len_be[8];
    for (int i = 0; i < 8; i++)
        len_be[i] = (uint8_t)(bits >> (56 - 8 * i));
    store_sha256_update(c, pad, npad);
    store_sha256_update(c, len_be, 8);
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 8; i++)
        for (int b = 0; b < 4; b++) {
            uint8_t byte = (uint8_t)(c->h[i] >> (24 - 8 * b));
            hex[8 * i + 2 * b] = digits[byte >> 4];
            hex[8 * i + 2 * b + 1] = digits[byte & 15];
        }
    hex[64] = '\0';
}
