/*
 * PNG row filters for 8-bit RGB (3 bytes per pixel) and the per-row choice.
 *
 * Encoding filters read only original bytes (a: left, b: above, c: above
 * left), so every byte is independent and the filters vectorise in full,
 * Paeth included. With several filters allowed, one pass computes the sum
 * of |residual as a signed byte| of every allowed filter (libpng's
 * heuristic), then a second pass writes the cheapest.
 */
#include <stdlib.h>
#include <string.h>

#include "cg_frame_internal.h"
#include "cg_png_internal.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CG_PNG_X86 1
#endif

enum { BPP = 3 };

static inline uint8_t paeth(int a, int b, int c)
{
    int p = a + b - c;
    int pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc) return (uint8_t)a;
    return (uint8_t)(pb <= pc ? b : c);
}

static inline uint8_t residual(int type, int x, int a, int b, int c)
{
    switch (type) {
    case 0: return (uint8_t)x;
    case 1: return (uint8_t)(x - a);
    case 2: return (uint8_t)(x - b);
    case 3: return (uint8_t)(x - ((a + b) >> 1));
    default: return (uint8_t)(x - paeth(a, b, c));
    }
}

static inline unsigned cost(uint8_t v)
{
    return v < 128 ? v : 256u - v;
}

/* Bytes [from, to) of filter `type`; scalar (row starts and tails). */
static void write_range(int type, const uint8_t *row, const uint8_t *prev, size_t from,
                        size_t to, uint8_t *out)
{
    for (size_t i = from; i < to; i++) {
        int a = i >= BPP ? row[i - BPP] : 0, c = i >= BPP ? prev[i - BPP] : 0;
        out[i] = residual(type, row[i], a, prev[i], c);
    }
}

static void sum_range(const uint8_t *row, const uint8_t *prev, size_t from, size_t to, int mask,
                      uint64_t sums[CG_PNG_NFILTERS])
{
    for (size_t i = from; i < to; i++) {
        int a = i >= BPP ? row[i - BPP] : 0, c = i >= BPP ? prev[i - BPP] : 0;
        for (int t = 0; t < CG_PNG_NFILTERS; t++)
            if (mask & (CG_PNG_FILTER_NONE << t)) sums[t] += cost(residual(t, row[i], a, prev[i], c));
    }
}

/* The allowed type with the smallest sum; ties go to the lower type. */
static int pick(int mask, const uint64_t sums[CG_PNG_NFILTERS])
{
    int best = -1;
    for (int t = 0; t < CG_PNG_NFILTERS; t++)
        if ((mask & (CG_PNG_FILTER_NONE << t)) && (best < 0 || sums[t] < sums[best])) best = t;
    return best;
}

static int single_type(int mask)
{
    for (int t = 0; t < CG_PNG_NFILTERS; t++)
        if (mask == (CG_PNG_FILTER_NONE << t)) return t;
    return -1;
}

int cg_png_filter_row_scalar(const uint8_t *row, const uint8_t *prev, size_t n, int mask,
                             uint8_t *out)
{
    int type = single_type(mask);
    if (type < 0) {
        uint64_t sums[CG_PNG_NFILTERS] = {0};
        sum_range(row, prev, 0, n, mask, sums);
        type = pick(mask, sums);
    }
    out[0] = (uint8_t)type;
    write_range(type, row, prev, 0, n, out + 1);
    return type;
}

#ifdef CG_PNG_X86
/* AVX2: 16 bytes a step, widened to 16-bit lanes for Avg and Paeth (and
 * for the costs); a row written with Sub or Up takes 32 bytes a step,
 * unwidened (diff_bytes; rows under 35 bytes scalar). Bytes 0..2 (no left
 * neighbour) and the tail go through the scalar code. */
#define AVX2 __attribute__((target("avx2")))

typedef struct px16 {
    __m256i x, a, b, c; /* 16 bytes each, zero-extended to 16 bits */
} px16;

static AVX2 inline px16 load16(const uint8_t *row, const uint8_t *prev, size_t i)
{
    px16 p;
    p.x = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(row + i)));
    p.a = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(row + i - BPP)));
    p.b = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(prev + i)));
    p.c = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(prev + i - BPP)));
    return p;
}

static AVX2 inline __m256i paeth16(const px16 *p)
{
    __m256i pa = _mm256_abs_epi16(_mm256_sub_epi16(p->b, p->c));
    __m256i pb = _mm256_abs_epi16(_mm256_sub_epi16(p->a, p->c));
    __m256i pc = _mm256_abs_epi16(
        _mm256_sub_epi16(_mm256_add_epi16(p->a, p->b), _mm256_add_epi16(p->c, p->c)));
    /* a when pa <= pb and pa <= pc; else b when pb <= pc; else c */
    __m256i use_a = _mm256_and_si256(_mm256_cmpgt_epi16(_mm256_add_epi16(pb, _mm256_set1_epi16(1)), pa),
                                     _mm256_cmpgt_epi16(_mm256_add_epi16(pc, _mm256_set1_epi16(1)), pa));
    __m256i use_b = _mm256_cmpgt_epi16(_mm256_add_epi16(pc, _mm256_set1_epi16(1)), pb);
    __m256i bc = _mm256_blendv_epi8(p->c, p->b, use_b);
    return _mm256_blendv_epi8(bc, p->a, use_a);
}

/* The 16 residual bytes of `type`, packed back to 8 bits. */
static AVX2 inline __m128i residual16(int type, const px16 *p)
{
    __m256i pred;
    switch (type) {
    case 0: pred = _mm256_setzero_si256(); break;
    case 1: pred = p->a; break;
    case 2: pred = p->b; break;
    case 3: pred = _mm256_srli_epi16(_mm256_add_epi16(p->a, p->b), 1); break;
    default: pred = paeth16(p); break;
    }
    __m256i r = _mm256_and_si256(_mm256_sub_epi16(p->x, pred), _mm256_set1_epi16(0xff));
    return _mm_packus_epi16(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}

/* Sum of |v as int8| over 16 bytes, in the two 64-bit lanes. */
static AVX2 inline __m128i cost16(__m128i v)
{
    return _mm_sad_epu8(_mm_abs_epi8(v), _mm_setzero_si128());
}

/* Sub and Up need no widening: o[i] = row[i] - ref[i] for i in [BPP, n)
 * (ref: row - BPP for Sub, prev for Up), 32 bytes a step, the last step
 * overlapping the one before (a residual depends on the input only);
 * n >= BPP + 32. Against the 16-byte widened loop, Sub on bench/corpus
 * frames: 1.37-1.69x as fast (demo 854x480: 0.032 ms against 0.052, of a
 * 1.15 ms fast encode). */
static AVX2 void diff_bytes(const uint8_t *row, const uint8_t *ref, size_t n, uint8_t *o)
{
    size_t i = BPP;
    for (;; i += 32) {
        if (i + 32 > n) i = n - 32;
        const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(row + i));
        const __m256i r = _mm256_loadu_si256((const __m256i *)(const void *)(ref + i));
        _mm256_storeu_si256((__m256i *)(void *)(o + i), _mm256_sub_epi8(x, r));
        if (i + 32 >= n) break;
    }
}

static AVX2 int filter_row_avx2(const uint8_t *row, const uint8_t *prev, size_t n, int mask,
                                uint8_t *out)
{
    if (n < BPP + 16) return cg_png_filter_row_scalar(row, prev, n, mask, out);
    const size_t end = BPP + (n - BPP) / 16 * 16;
    int type = single_type(mask);
    if (type < 0) {
        uint64_t sums[CG_PNG_NFILTERS] = {0};
        __m128i acc[CG_PNG_NFILTERS];
        for (int t = 0; t < CG_PNG_NFILTERS; t++) acc[t] = _mm_setzero_si128();
        const int m = mask;
        for (size_t i = BPP; i < end; i += 16) {
            px16 p = load16(row, prev, i);
            if (m & CG_PNG_FILTER_NONE) acc[0] = _mm_add_epi64(acc[0], cost16(residual16(0, &p)));
            if (m & CG_PNG_FILTER_SUB) acc[1] = _mm_add_epi64(acc[1], cost16(residual16(1, &p)));
            if (m & CG_PNG_FILTER_UP) acc[2] = _mm_add_epi64(acc[2], cost16(residual16(2, &p)));
            if (m & CG_PNG_FILTER_AVG) acc[3] = _mm_add_epi64(acc[3], cost16(residual16(3, &p)));
            if (m & CG_PNG_FILTER_PAETH)
                acc[4] = _mm_add_epi64(acc[4], cost16(residual16(4, &p)));
        }
        for (int t = 0; t < CG_PNG_NFILTERS; t++)
            sums[t] = (uint64_t)_mm_cvtsi128_si64(acc[t]) +
                      (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(acc[t], acc[t]));
        sum_range(row, prev, 0, BPP, mask, sums);
        sum_range(row, prev, end, n, mask, sums);
        type = pick(mask, sums);
    }
    out[0] = (uint8_t)type;
    uint8_t *o = out + 1;
    write_range(type, row, prev, 0, BPP, o);
    if (type == 1 || type == 2) {
        if (n >= BPP + 32)
            diff_bytes(row, type == 1 ? row - BPP : prev, n, o);
        else
            write_range(type, row, prev, BPP, n, o);
        _mm256_zeroupper();
        return type;
    }
    switch (type) { /* one loop per type so the switch leaves the loop */
    case 0: memcpy(o + BPP, row + BPP, end - BPP); break;
#define CG_PNG_LOOP(T)                                                                    \
    case T:                                                                               \
        for (size_t i = BPP; i < end; i += 16) {                                          \
            px16 p = load16(row, prev, i);                                                \
            _mm_storeu_si128((__m128i *)(void *)(o + i), residual16(T, &p));              \
        }                                                                                 \
        break;
        CG_PNG_LOOP(3)
        CG_PNG_LOOP(4)
#undef CG_PNG_LOOP
    default: break;
    }
    write_range(type, row, prev, end, n, o);
    /* Clean upper halves for the SSE code that runs next (the own deflate's
     * table compares): GCC emits no vzeroupper here by itself, and legacy
     * SSE after dirty upper halves made the deflate's tokenizer 20% slower. */
    _mm256_zeroupper();
    return type;
}

cg_png_filter_fn cg_png_filter_best(void)
{
    return cg_simd_available(CG_SIMD_AVX2) ? filter_row_avx2 : cg_png_filter_row_scalar;
}
#else
cg_png_filter_fn cg_png_filter_best(void)
{
    return cg_png_filter_row_scalar;
}
#endif
