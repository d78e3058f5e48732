/*
 * Fuzz target for cg_convert: arbitrary parameters (including invalid ones)
 * must never crash, and every SIMD level must match the scalar reference.
 * Built as a libFuzzer binary with clang (fuzz_convert) and, with any
 * compiler, as a ctest replay of pseudo-random inputs (fuzz_replay.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int take(const uint8_t **d, size_t *n)
{
    if (*n == 0) return 0;
    int v = (int8_t)**d;
    (*d)++;
    (*n)--;
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cg_convert_params p;
    memset(&p, 0, sizeof p);
    /* Signed bytes: sizes from -128 to 127, so bad dims are common too. */
    p.src_w = take(&data, &size);
    p.src_h = take(&data, &size);
    p.dst_w = take(&data, &size);
    p.dst_h = take(&data, &size);
    int pad = take(&data, &size);
    int flags = take(&data, &size);
    p.cursor.x = take(&data, &size);
    p.cursor.y = take(&data, &size);
    p.flip = flags & 1;
    p.cursor.draw = flags & 2;
    p.filter = (cg_filter)((flags >> 2) & 3); /* 2 and 3 are invalid */
    p.src_stride = (size_t)(p.src_w > 0 ? p.src_w : 0) * 4 + (size_t)(pad & 0x1f);

    /* Source: exactly the extent the parameters describe, from the input. */
    size_t extent = 0;
    if (p.src_w > 0 && p.src_h > 0)
        extent = p.src_stride * (size_t)(p.src_h - 1) + (size_t)p.src_w * 4;
    uint8_t *src = malloc(extent ? extent : 1);
    if (src == NULL) return 0;
    for (size_t i = 0; i < extent; i++) src[i] = size ? data[i % size] : (uint8_t)i;
    p.src = src;

    size_t dst_len = 0;
    if (p.dst_w > 0 && p.dst_h > 0) dst_len = (size_t)p.dst_w * (size_t)p.dst_h * 3;
    if (pad < 0 && dst_len > 0) dst_len--; /* sometimes one byte short */
    uint8_t *ref = malloc(dst_len + 1), *out = malloc(dst_len + 1);
    if (ref == NULL || out == NULL) abort();
    cg_status want = cg_convert_with(&p, ref, dst_len, CG_SIMD_SCALAR);
    for (int lvl = CG_SIMD_SSSE3; lvl <= CG_SIMD_NEON; lvl++) {
        if (!cg_simd_available((cg_simd_level)lvl)) continue;
        cg_status st = cg_convert_with(&p, out, dst_len, (cg_simd_level)lvl);
        if (st != want) abort();
        if (st == CG_OK && memcmp(ref, out, dst_len) != 0) abort();
    }
    free(ref);
    free(out);
    free(src);
    return 0;
}
