/*
 * rgb_sweep.h - the sizes and cursor positions every test of the RGB slot
 * format sweeps (test_vk_rgb.c: the Vulkan ring; test_gl_ring.c: the GL
 * producer), so both producers are held to the same cases.
 */
#ifndef RGB_SWEEP_H
#define RGB_SWEEP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg_frame.h"
#include "cg_vk_ring.h"

typedef struct sweep_size {
    int sw, sh, dw, dh; /* source (game image) and target (slot) */
} sweep_size;

/* 1x1, odd widths, widths not a multiple of 4, up, down, non-integer
 * ratios, to 1x1, 360p, 1080p. */
static const sweep_size SIZES[] = {
    {1, 1, 1, 1},       {7, 5, 7, 5},        {5, 3, 13, 11},     {64, 48, 21, 17},
    {33, 20, 1, 1},     {17, 9, 6, 4},       {3, 2, 2, 1},       {1, 37, 5, 1},
    {41, 23, 19, 29},   {640, 360, 640, 360}, {1920, 1080, 640, 360},
    {1920, 1080, 1920, 1080},
};

/* Cursor positions for a dw x dh target: inside, at the corners and
 * edges, partly outside right/bottom, hot spot outside (nothing drawn), and
 * draw off with the position inside. */
static inline int cursors(int dw, int dh, cg_cursor out[10])
{
    cg_cursor c[10] = {
        {1, dw / 3, dh / 3}, {1, 0, 0},        {1, dw - 1, dh - 1}, {1, dw - 5, 2},
        {1, 1, dh - 4},      {1, -1, 0},       {1, dw, 0},          {1, 3, dh},
        {0, dw / 2, dh / 2}, {1, -100000, 7},
    };
    memcpy(out, c, sizeof c);
    return 10;
}

/* The oracle: the CPU converter's RAW output (cg_convert with the scalar
 * code: nearest, the RAW flip, the cursor) of an R, G, B, A frame, with
 * its rows reversed to upright: what an RGB slot must hold. 0: done. */
static inline int rgb_oracle(const uint8_t *rgba, int sw, int sh, int dw, int dh, int flip,
                             const cg_cursor *cur, uint8_t *out)
{
    size_t row = (size_t)dw * 3, n = row * (size_t)dh;
    uint8_t *raw = malloc(n);
    if (!raw) return 1;
    cg_convert_params p;
    memset(&p, 0, sizeof p);
    p.src = rgba;
    p.src_stride = (size_t)sw * 4;
    p.src_w = sw;
    p.src_h = sh;
    p.dst_w = dw;
    p.dst_h = dh;
    p.flip = flip;
    p.filter = CG_FILTER_NEAREST;
    p.cursor.draw = cur && cur->draw;
    p.cursor.x = cur ? cur->x : 0;
    p.cursor.y = cur ? cur->y : 0;
    cg_status st = cg_convert_with(&p, raw, n, CG_SIMD_SCALAR);
    for (int y = 0; y < dh; y++) memcpy(out + (size_t)y * row, raw + (size_t)(dh - 1 - y) * row, row);
    free(raw);
    return st != CG_OK;
}

#endif /* RGB_SWEEP_H */
