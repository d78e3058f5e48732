/*
 * depth_ref.h - test-only: the depth plane's oracle and the depth images
 * every test of it uploads (test_vk_depth.c: the pass; test_zc_ring.c: the
 * ring and its learner process; ring_jni_helper.c: the JNI round), so all
 * are held to the same values. The reference is docs/wire-format.md
 * "Depth" written out here in double, never the code under test.
 */
#ifndef DEPTH_REF_H
#define DEPTH_REF_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t depth_xorshift(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

static inline float depth_from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static inline uint32_t depth_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* A scene rendered with reverse-Z (1 near, 0 far): a background of 0 and
 * blocks at eye distances 0.05 .. 1000 (d = n (f - z) / (z (f - n)) for
 * the game's 0.05 / 1000). Row 0 first, as uploaded. */
static inline void depth_scene(float *d, int w, int h, uint32_t seed)
{
    const double n = 0.05, f = 1000.0;
    uint32_t x = seed * 2654435761u + 7;
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++) {
            uint32_t block = ((uint32_t)(i / 5) * 73856093u) ^ ((uint32_t)(y / 3) * 19349663u) ^ seed;
            if (block % 4 == 0) {
                d[(size_t)y * (size_t)w + (size_t)i] = 0.0f; /* the cleared background */
                continue;
            }
            double z = n * pow(f / n, (double)(depth_xorshift(&x) % 100000) / 100000.0);
            d[(size_t)y * (size_t)w + (size_t)i] = (float)(n * (f - z) / (z * (f - n)));
        }
}

/* The values at the ends of [0, 1] and in between: 0, 1, subnormals, the
 * floats next to 1, and random floats of [0, 1]. */
static inline void depth_edges(float *d, size_t n, uint32_t seed)
{
    const float special[] = {0.0f,
                             1.0f,
                             FLT_TRUE_MIN,
                             depth_from_bits(0x00000010u),
                             depth_from_bits(0x007fffffu), /* the largest subnormal */
                             FLT_MIN,
                             1e-30f,
                             1e-7f,
                             0.5f,
                             nextafterf(1.0f, 0.0f),
                             1.0f - 2.0f * FLT_EPSILON,
                             0.999f,
                             0.9999999f,
                             depth_from_bits(0x3f7ffff0u)};
    const size_t ns = sizeof special / sizeof special[0];
    uint32_t x = seed * 2246822519u + 3;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = depth_xorshift(&x);
        if (i < ns || r % 3 == 0) d[i] = special[(i + r / 3) % ns];
        else d[i] = depth_from_bits(r % 0x3f800001u); /* every float of [0, 1] alike */
    }
}

/* The depth image of eye `eye` in frame f of the ring tests: a scene for
 * eye 0, the edge values for eye 1. */
static inline void depth_frame(float *d, int w, int h, int f, int eye)
{
    if (eye == 0) depth_scene(d, w, h, (uint32_t)f);
    else depth_edges(d, (size_t)w * (size_t)h, (uint32_t)f);
}

/* The depth image `test_zc_ring serve ... planes` uploads for eye `eye` of
 * frame f (tests/python/test_planes.py recomputes it): for pixel (x, y),
 * row y of the image (row 0 first in memory),
 *   k = (x * 73856093) ^ (y * 19349663) ^ ((2f + eye) * 83492791)
 *   k ^= k >> 13; k *= 0x5bd1e995; k ^= k >> 15          (uint32, mod 2^32)
 * and by k % 16: 0 -> 0.0 (the cleared background), 1 -> 1.0 (the near
 * plane), 2..7 -> the float of bits k % 0x3f800001 (every float of [0, 1]
 * alike: mostly tiny, far away), 8..15 -> (k >> 8) / 2^24 (uniform over
 * [0, 1): distances all the way in). */
static inline void depth_serve_pattern(float *d, int w, int h, int f, int eye)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t k = ((uint32_t)x * 73856093u) ^ ((uint32_t)y * 19349663u) ^
                         ((uint32_t)(2 * f + eye) * 83492791u);
            k ^= k >> 13;
            k *= 0x5bd1e995u;
            k ^= k >> 15;
            uint32_t m = k % 16;
            d[(size_t)y * (size_t)w + (size_t)x] =
                m >= 8 ? (float)(k >> 8) / 16777216.0f
                       : depth_from_bits(m == 0 ? 0u : m == 1 ? 0x3f800000u : k % 0x3f800001u);
        }
}

/* docs/wire-format.md, "Depth": the formula of zZeroToOne in double,
 * value = z / f, rounded to float. */
static inline float depth_reference(float d, float near_plane, float far_plane, int z01)
{
    double n = near_plane, f = far_plane, z;
    if (z01) z = n * f / (n + (double)d * (f - n));
    else z = 2.0 * n * f / (n + f + (2.0 * (double)d - 1.0) * (f - n));
    return (float)(z / f);
}

/* Distance in floats between two non-negative floats (got may be anything:
 * negative, infinite or NaN is UINT32_MAX). */
static inline uint32_t depth_ulps(float got, float want)
{
    if (!isfinite(got) || got < 0.0f) return UINT32_MAX;
    uint32_t x = depth_bits(got), y = depth_bits(want);
    return x > y ? x - y : y - x;
}

/* Where slot pixel (x, y) (y from the top) of a dw x dh plane samples a
 * sw x sh image (row index, row 0 first in memory): the RGB plane's
 * nearest mapping (docs/zero-copy-v2/protocol.md). */
static inline size_t depth_source_index(int x, int y, int sw, int sh, int dw, int dh, int flip)
{
    int yb = dh - 1 - y;
    int sy = (int)((int64_t)yb * sh / dh), sx = (int)((int64_t)x * sw / dw);
    int row = flip ? sh - 1 - sy : sy;
    return (size_t)row * (size_t)sw + (size_t)sx;
}

#endif /* DEPTH_REF_H */
