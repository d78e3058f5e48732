/*
 * CRC-32 of PNG chunks (reflected polynomial 0xEDB88320), slice-by-8: eight
 * tables of 256 entries, built once, give one lookup per byte with eight in
 * flight. The tables are constant after their one-time build.
 */
#include <pthread.h>
#include <string.h>

#include "cg_png_internal.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CG_CRC_PCLMUL 1
#endif

static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_build(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_tab[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (int i = 0; i < 256; i++)
            crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
}

uint32_t cg_crc32_bytewise(uint32_t crc, const uint8_t *p, size_t n)
{
    pthread_once(&crc_once, crc_build);
    uint32_t c = ~crc;
    for (size_t i = 0; i < n; i++) c = crc_tab[0][(c ^ p[i]) & 0xff] ^ (c >> 8);
    return ~c;
}

static inline uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The slice-by-8 loop on the inverted register c. */
static uint32_t crc_slice8(uint32_t c, const uint8_t *p, size_t n)
{
    while (n >= 8) {
        uint32_t lo = c ^ load_le32(p), hi = load_le32(p + 4);
        c = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^ crc_tab[5][(lo >> 16) & 0xff] ^
            crc_tab[4][lo >> 24] ^ crc_tab[3][hi & 0xff] ^ crc_tab[2][(hi >> 8) & 0xff] ^
            crc_tab[1][(hi >> 16) & 0xff] ^ crc_tab[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) c = crc_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return c;
}

#ifdef CG_CRC_PCLMUL
/* Carry-less multiplication folding (Intel's "Fast CRC Computation for
 * Generic Polynomials Using PCLMULQDQ", the bit-reflected form): four
 * 128-bit lanes folded 64 bytes at a time, then one lane, then a Barrett
 * reduction to 32 bits. n >= 64 and a multiple of 16; c inverted. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t crc_pclmul(uint32_t c, const uint8_t *p,
                                                                   size_t n)
{
    const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
    const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
    const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124);
    const __m128i poly = _mm_set_epi64x(0x1f7011641, 0x1db710641); /* mu, P' */
    const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
#define LD(q) _mm_loadu_si128((const __m128i *)(const void *)(q))
#define FOLD(x, k, d) \
    _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), d)
    __m128i x0 = _mm_xor_si128(LD(p), _mm_cvtsi32_si128((int)c)), x1 = LD(p + 16),
            x2 = LD(p + 32), x3 = LD(p + 48);
    p += 64;
    n -= 64;
    while (n >= 64) {
        x0 = FOLD(x0, k1k2, LD(p));
        x1 = FOLD(x1, k1k2, LD(p + 16));
        x2 = FOLD(x2, k1k2, LD(p + 32));
        x3 = FOLD(x3, k1k2, LD(p + 48));
        p += 64;
        n -= 64;
    }
    x0 = FOLD(x0, k3k4, x1);
    x0 = FOLD(x0, k3k4, x2);
    x0 = FOLD(x0, k3k4, x3);
    while (n >= 16) {
        x0 = FOLD(x0, k3k4, LD(p));
        p += 16;
        n -= 16;
    }
#undef FOLD
#undef LD
    /* 128 -> 64 bits */
    __m128i t = _mm_clmulepi64_si128(x0, k3k4, 0x10);
    x0 = _mm_xor_si128(_mm_srli_si128(x0, 8), t);
    /* 64 -> 32 bits */
    t = _mm_srli_si128(x0, 4);
    x0 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x0, mask32), k5, 0x00), t);
    /* Barrett reduction */
    t = _mm_and_si128(x0, mask32);
    t = _mm_clmulepi64_si128(t, poly, 0x10);
    t = _mm_and_si128(t, mask32);
    t = _mm_clmulepi64_si128(t, poly, 0x00);
    x0 = _mm_xor_si128(x0, t);
    return (uint32_t)_mm_extract_epi32(x0, 1);
}

static int have_pclmul(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}
#endif

uint32_t cg_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    pthread_once(&crc_once, crc_build);
    uint32_t c = ~crc;
#ifdef CG_CRC_PCLMUL
    if (n >= 64 && have_pclmul()) {
        size_t bulk = n & ~(size_t)15;
        c = crc_pclmul(c, p, bulk);
        p += bulk;
        n -= bulk;
    }
#endif
    return ~crc_slice8(c, p, n);
}
