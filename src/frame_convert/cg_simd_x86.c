/*
 * x86 row kernels: SSSE3 and AVX2, compiled with per-function target
 * attributes and chosen at run time, so one binary runs on any x86-64.
 * Each kernel writes exactly n*3 bytes; loads never go past pixel n-1.
 */
#include <immintrin.h>
#include <stdatomic.h>
#include <string.h>

#include "cg_frame_internal.h"

#define CG_SSSE3 __attribute__((target("ssse3")))
#define CG_AVX2 __attribute__((target("avx2")))

/* RGBA x4 -> RGB x4 in bytes 0..11; bytes 12..15 zero. */
#define CG_PACK_MASK 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1

/* ---- SSSE3 ----------------------------------------------------------------- */

CG_SSSE3 static void pack_ssse3(const uint8_t *src, uint8_t *dst, int n)
{
    /* 16 pixels -> three exact 16-byte stores. */
    const __m128i ma = _mm_setr_epi8(CG_PACK_MASK);
    const __m128i mb0 = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 4);
    const __m128i mb1 = _mm_setr_epi8(5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i mc1 = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8, 9);
    const __m128i mc2 = _mm_setr_epi8(10, 12, 13, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i md2 = _mm_setr_epi8(-1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14);
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        const uint8_t *s = src + 4 * i;
        uint8_t *d = dst + 3 * i;
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
        __m128i o0 = _mm_or_si128(_mm_shuffle_epi8(a, ma), _mm_shuffle_epi8(b, mb0));
        __m128i o1 = _mm_or_si128(_mm_shuffle_epi8(b, mb1), _mm_shuffle_epi8(c, mc1));
        __m128i o2 = _mm_or_si128(_mm_shuffle_epi8(c, mc2), _mm_shuffle_epi8(e, md2));
        _mm_storeu_si128((__m128i *)(void *)d, o0);
        _mm_storeu_si128((__m128i *)(void *)(d + 16), o1);
        _mm_storeu_si128((__m128i *)(void *)(d + 32), o2);
    }
    cg_row_pack_portable(src + 4 * i, dst + 3 * i, n - i);
}

CG_SSSE3 static void gather_ssse3(const uint8_t *row, const uint32_t *xoff, uint8_t *dst, int n)
{
    const __m128i ma = _mm_setr_epi8(CG_PACK_MASK);
    int i = 0;
    /* A 16-byte store of 12 useful bytes: keep 4 bytes of slack in dst. */
    for (; i + 6 <= n; i += 4) {
        uint32_t a, b, c, d;
        memcpy(&a, row + xoff[i], 4);
        memcpy(&b, row + xoff[i + 1], 4);
        memcpy(&c, row + xoff[i + 2], 4);
        memcpy(&d, row + xoff[i + 3], 4);
        __m128i v = _mm_setr_epi32((int)a, (int)b, (int)c, (int)d);
        _mm_storeu_si128((__m128i *)(void *)(dst + 3 * i), _mm_shuffle_epi8(v, ma));
    }
    cg_row_gather_portable(row, xoff + i, dst + 3 * i, n - i);
}

/* ---- AVX2 ------------------------------------------------------------------ */

/* 8 RGBA pixels -> 24 RGB bytes in the low 24 bytes. */
CG_AVX2 static inline __m256i rgb24_avx2(__m256i v)
{
    const __m256i m = _mm256_setr_epi8(CG_PACK_MASK, CG_PACK_MASK);
    const __m256i perm = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    return _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, m), perm);
}

/* 32 pixels -> three exact 32-byte stores. After the in-lane shuffle a
 * vector holds dwords [p0 p1 p2 - p3 p4 p5 -]; lane-crossing dword
 * permutes and blends assemble the 96 output bytes without overlap. */
CG_AVX2 static void pack_avx2(const uint8_t *src, uint8_t *dst, int n)
{
    const __m256i m = _mm256_setr_epi8(CG_PACK_MASK, CG_PACK_MASK);
    const __m256i ia = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 0, 0);
    const __m256i ib0 = _mm256_setr_epi32(0, 0, 0, 0, 0, 0, 0, 1);
    const __m256i ib1 = _mm256_setr_epi32(2, 4, 5, 6, 0, 0, 0, 0);
    const __m256i ic1 = _mm256_setr_epi32(0, 0, 0, 0, 0, 1, 2, 4);
    const __m256i ic2 = _mm256_setr_epi32(5, 6, 0, 0, 0, 0, 0, 0);
    const __m256i ie2 = _mm256_setr_epi32(0, 0, 0, 1, 2, 4, 5, 6);
    int i = 0;
    for (; i + 32 <= n; i += 32) {
        const uint8_t *s = src + 4 * i;
        uint8_t *d = dst + 3 * i;
        __m256i a = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(const void *)s), m);
        __m256i b =
            _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(s + 32)), m);
        __m256i c =
            _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(s + 64)), m);
        __m256i e =
            _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(s + 96)), m);
        __m256i o0 = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(a, ia),
                                        _mm256_permutevar8x32_epi32(b, ib0), 0xc0);
        __m256i o1 = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(b, ib1),
                                        _mm256_permutevar8x32_epi32(c, ic1), 0xf0);
        __m256i o2 = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(c, ic2),
                                        _mm256_permutevar8x32_epi32(e, ie2), 0xfc);
        _mm256_storeu_si256((__m256i *)(void *)d, o0);
        _mm256_storeu_si256((__m256i *)(void *)(d + 32), o1);
        _mm256_storeu_si256((__m256i *)(void *)(d + 64), o2);
    }
    pack_ssse3(src + 4 * i, dst + 3 * i, n - i);
}

CG_AVX2 static void gather_avx2(const uint8_t *row, const uint32_t *xoff, uint8_t *dst, int n)
{
    int i = 0;
    for (; i + 11 <= n; i += 8) {
        __m256i idx = _mm256_loadu_si256((const __m256i *)(const void *)(xoff + i));
        __m256i v = _mm256_i32gather_epi32((const int *)(const void *)row, idx, 1);
        _mm256_storeu_si256((__m256i *)(void *)(dst + 3 * i), rgb24_avx2(v));
    }
    cg_row_gather_portable(row, xoff + i, dst + 3 * i, n - i);
}

/* ---- selection -------------------------------------------------------------- */

/* Bit per level, CPUID read once: a convert call must not pay for it. */
static _Atomic int g_levels = -1;

static int detect_levels(void)
{
    __builtin_cpu_init();
    int m = 0;
    if (__builtin_cpu_supports("ssse3")) m |= 1 << CG_SIMD_SSSE3;
    if (__builtin_cpu_supports("avx2")) m |= 1 << CG_SIMD_AVX2;
    return m;
}

int cg_simd_arch_available(cg_simd_level level)
{
    /* Racing first calls compute the same value; relaxed order suffices. */
    int m = atomic_load_explicit(&g_levels, memory_order_relaxed);
    if (m < 0) {
        m = detect_levels();
        atomic_store_explicit(&g_levels, m, memory_order_relaxed);
    }
    return (level == CG_SIMD_SSSE3 || level == CG_SIMD_AVX2) && (m >> level) & 1;
}

cg_status cg_simd_arch_kernels(cg_simd_level level, cg_row_kernels *out)
{
    CG_RETURN_IF(!cg_simd_arch_available(level), CG_E_UNSUPPORTED);
    if (level == CG_SIMD_AVX2) {
        out->pack = pack_avx2;
        out->gather = gather_avx2;
    } else {
        out->pack = pack_ssse3;
        out->gather = gather_ssse3;
    }
    return CG_OK;
}
