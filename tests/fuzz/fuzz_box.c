/*
 * Fuzz target for the box filter at the extremes of CG_MAX_DIM: sizes up to
 * 16384 on either side (two bytes each), one side thin and the other wide,
 * up- and downscaling mixed per axis, flip and cursor. Every SIMD level
 * must equal the scalar definition, and the cost must stay
 * O(source + output): the fuzz run's -timeout catches a shape that makes it
 * grow with output width x source height (1x16384 -> 16384x1 took seconds).
 * Source and output are capped at 2^18 and 2^20 pixels to keep inputs fast.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int dim(const uint8_t *d)
{
    return (int)(((unsigned)d[0] << 8 | d[1]) % CG_MAX_DIM) + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 11) return 0;
    cg_convert_params p;
    memset(&p, 0, sizeof p);
    p.src_w = dim(data);
    p.src_h = dim(data + 2);
    p.dst_w = dim(data + 4);
    p.dst_h = dim(data + 6);
    p.flip = data[8] & 1;
    p.cursor.draw = (data[8] >> 1) & 1;
    p.filter = CG_FILTER_BOX;
    p.cursor.x = (int)((int64_t)(int8_t)data[9] * p.dst_w / 128);
    p.cursor.y = (int)((int64_t)(int8_t)data[10] * p.dst_h / 128);
    data += 11;
    size -= 11;
    if ((int64_t)p.src_w * p.src_h > (1 << 18) || (int64_t)p.dst_w * p.dst_h > (1 << 20)) return 0;
    p.src_stride = (size_t)p.src_w * 4;
    const size_t src_len = p.src_stride * (size_t)p.src_h;
    uint8_t *src = malloc(src_len);
    if (src == NULL) abort();
    for (size_t i = 0; i < src_len; i++) src[i] = size ? data[i % size] : (uint8_t)(i * 7);
    p.src = src;
    const size_t dst_len = (size_t)p.dst_w * (size_t)p.dst_h * 3;
    uint8_t *ref = malloc(dst_len), *out = malloc(dst_len);
    if (ref == NULL || out == NULL) abort();
    if (cg_convert_with(&p, ref, dst_len, CG_SIMD_SCALAR) != CG_OK) abort();
    for (int lvl = CG_SIMD_SSSE3; lvl <= CG_SIMD_NEON; lvl++) {
        if (!cg_simd_available((cg_simd_level)lvl)) continue;
        if (cg_convert_with(&p, out, dst_len, (cg_simd_level)lvl) != CG_OK) abort();
        if (memcmp(ref, out, dst_len) != 0) abort();
    }
    free(ref);
    free(out);
    free(src);
    return 0;
}
