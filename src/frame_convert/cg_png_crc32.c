/*
 * CRC-32 of PNG chunks (reflected polynomial 0xEDB88320). On x86-64,
 * carry-less multiplication folds the bulk: PCLMULQDQ, 64 bytes a step, or
 * VPCLMULQDQ, 128 bytes a step, where the CPU has it. Elsewhere, and for the
 * tails, slice-by-8: eight tables of 256 entries, built once, give one lookup
 * per byte with eight in flight. The tables are constant after their
 * one-time build.
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
 * Generic Polynomials Using PCLMULQDQ", the bit-reflected form): 128-bit
 * lanes folded forward over the data, then one lane, then a Barrett
 * reduction to 32 bits. A folding constant for a distance of D bits is
 * x^(D + 32) and x^(D - 32) mod P, bit-reflected and shifted left by one. */
#define CRC_LD(q) _mm_loadu_si128((const __m128i *)(const void *)(q))
#define CRC_K3K4() _mm_set_epi64x(0x0ccaa009e, 0x1751997d0) /* D = 128 */
#define CRC_FOLD(x, k, d) \
    _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), d)

/* The lane x0 (the data before p folded in) on over [p, p + n), n a
 * multiple of 16, and reduced to the 32-bit register (inverted). */
__attribute__((target("pclmul,sse4.1"))) static uint32_t crc_finish(__m128i x0, const uint8_t *p,
                                                                   size_t n)
{
    const __m128i k3k4 = CRC_K3K4();
    const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124);
    const __m128i poly = _mm_set_epi64x(0x1f7011641, 0x1db710641); /* mu, P' */
    const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
    while (n >= 16) {
        x0 = CRC_FOLD(x0, k3k4, CRC_LD(p));
        p += 16;
        n -= 16;
    }
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

/* Four lanes folded 64 bytes at a time. n >= 64 and a multiple of 16; c
 * inverted. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t crc_pclmul(uint32_t c, const uint8_t *p,
                                                                   size_t n)
{
    const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4); /* D = 512 */
    const __m128i k3k4 = CRC_K3K4();
    __m128i x0 = _mm_xor_si128(CRC_LD(p), _mm_cvtsi32_si128((int)c)), x1 = CRC_LD(p + 16),
            x2 = CRC_LD(p + 32), x3 = CRC_LD(p + 48);
    p += 64;
    n -= 64;
    while (n >= 64) {
        x0 = CRC_FOLD(x0, k1k2, CRC_LD(p));
        x1 = CRC_FOLD(x1, k1k2, CRC_LD(p + 16));
        x2 = CRC_FOLD(x2, k1k2, CRC_LD(p + 32));
        x3 = CRC_FOLD(x3, k1k2, CRC_LD(p + 48));
        p += 64;
        n -= 64;
    }
    x0 = CRC_FOLD(x0, k3k4, x1);
    x0 = CRC_FOLD(x0, k3k4, x2);
    x0 = CRC_FOLD(x0, k3k4, x3);
    return crc_finish(x0, p, n);
}

/* Eight lanes, two in each 256-bit register, folded 128 bytes at a time
 * (VPCLMULQDQ: two carry-less multiplies an instruction). On a Zen 4 core,
 * over a 300 KB buffer, the four-lane loop runs at 0.185 TSC ticks a byte,
 * bound by the multiplies' throughput, and this one at 0.097. n >= 128 and
 * a multiple of 16; c inverted. */
__attribute__((target("avx2,vpclmulqdq,pclmul,sse4.1"))) static uint32_t
crc_vpclmul(uint32_t c, const uint8_t *p, size_t n)
{
    const __m256i k = _mm256_set_epi64x(0x14a7fe880, 0x1e88ef372, 0x14a7fe880,
                                        0x1e88ef372); /* D = 1024 */
    const __m128i k3k4 = CRC_K3K4();
#define LD256(q) _mm256_loadu_si256((const __m256i *)(const void *)(q))
#define FOLD256(x, d)                                                   \
    _mm256_xor_si256(_mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00), \
                                      _mm256_clmulepi64_epi128(x, k, 0x11)), \
                     d)
    __m256i x0 = _mm256_xor_si256(LD256(p), _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)c)));
    __m256i x1 = LD256(p + 32), x2 = LD256(p + 64), x3 = LD256(p + 96);
    p += 128;
    n -= 128;
    while (n >= 128) {
        x0 = FOLD256(x0, LD256(p));
        x1 = FOLD256(x1, LD256(p + 32));
        x2 = FOLD256(x2, LD256(p + 64));
        x3 = FOLD256(x3, LD256(p + 96));
        p += 128;
        n -= 128;
    }
#undef FOLD256
#undef LD256
    /* the eight lanes in the data's order, each folded into the next */
    __m128i a = _mm256_castsi256_si128(x0);
    a = CRC_FOLD(a, k3k4, _mm256_extracti128_si256(x0, 1));
    a = CRC_FOLD(a, k3k4, _mm256_castsi256_si128(x1));
    a = CRC_FOLD(a, k3k4, _mm256_extracti128_si256(x1, 1));
    a = CRC_FOLD(a, k3k4, _mm256_castsi256_si128(x2));
    a = CRC_FOLD(a, k3k4, _mm256_extracti128_si256(x2, 1));
    a = CRC_FOLD(a, k3k4, _mm256_castsi256_si128(x3));
    a = CRC_FOLD(a, k3k4, _mm256_extracti128_si256(x3, 1));
    return crc_finish(a, p, n);
}
#undef CRC_FOLD
#undef CRC_K3K4
#undef CRC_LD

static int have_pclmul(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

/* After have_pclmul (which initialised the CPU model). */
static int have_vpclmul(void)
{
    return cg_simd_available(CG_SIMD_AVX2) && __builtin_cpu_supports("vpclmulqdq");
}
#endif

/* From this length the eight-lane path (below it, its eight serial final
 * folds would take a larger share). */
enum { CRC_WIDE_MIN = 512 };

uint32_t cg_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    pthread_once(&crc_once, crc_build);
    uint32_t c = ~crc;
#ifdef CG_CRC_PCLMUL
    if (n >= 64 && have_pclmul()) {
        size_t bulk = n & ~(size_t)15;
        c = n >= CRC_WIDE_MIN && have_vpclmul() ? crc_vpclmul(c, p, bulk) : crc_pclmul(c, p, bulk);
        p += bulk;
        n -= bulk;
    }
#endif
    return ~crc_slice8(c, p, n);
}
