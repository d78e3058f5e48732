/*
 * Every SIMD level against the scalar reference, byte for byte, on random
 * sizes, strides, flips, filters and cursor positions. The source is
 * allocated to its exact extent and the destination has a canary, so an
 * out-of-bounds read or write fails here (and under ASan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg_frame.h"
#include "check_tcase.h"
#include "ck_main.h"

/* xorshift32: the same sequence on every machine. */
static uint32_t next(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static int pick(uint32_t *s, int lo, int hi)
{
    return lo + (int)(next(s) % (uint32_t)(hi - lo + 1));
}

static void compare_levels(const cg_convert_params *p)
{
    size_t n = (size_t)p->dst_w * (size_t)p->dst_h * 3;
    uint8_t *ref = malloc(n);
    uint8_t *out = malloc(n + 64);
    ck_assert_ptr_nonnull(ref);
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(cg_convert_with(p, ref, n, CG_SIMD_SCALAR), CG_OK);
    for (int lvl = CG_SIMD_SSSE3; lvl <= CG_SIMD_NEON; lvl++) {
        if (!cg_simd_available((cg_simd_level)lvl)) continue;
        memset(out, 0x3c, n + 64);
        ck_assert_int_eq(cg_convert_with(p, out, n, (cg_simd_level)lvl), CG_OK);
        ck_assert_msg(memcmp(ref, out, n) == 0, "%s != scalar: %dx%d -> %dx%d stride %zu",
                      cg_simd_name((cg_simd_level)lvl), p->src_w, p->src_h, p->dst_w,
                      p->dst_h, p->src_stride);
        for (size_t i = n; i < n + 64; i++) ck_assert_uint_eq(out[i], 0x3c);
    }
    free(ref);
    free(out);
}

static void random_case(uint32_t seed, int max_side)
{
    uint32_t s = seed * 2654435761u + 1;
    cg_convert_params p;
    memset(&p, 0, sizeof p);
    p.src_w = pick(&s, 1, max_side);
    p.src_h = pick(&s, 1, 48);
    switch (pick(&s, 0, 3)) {
    case 0: p.dst_w = p.src_w; break; /* the packed same-width path */
    case 1: p.dst_w = pick(&s, 1, p.src_w); break;
    default: p.dst_w = pick(&s, 1, max_side); break;
    }
    p.dst_h = pick(&s, 0, 1) ? p.src_h : pick(&s, 1, 48);
    p.src_stride = (size_t)p.src_w * 4 + (size_t)pick(&s, 0, 2) * (size_t)pick(&s, 0, 37);
    p.flip = pick(&s, 0, 1);
    p.filter = pick(&s, 0, 4) == 0 ? CG_FILTER_BOX : CG_FILTER_NEAREST;
    p.cursor.draw = pick(&s, 0, 1);
    p.cursor.x = pick(&s, -20, p.dst_w + 4);
    p.cursor.y = pick(&s, -20, p.dst_h + 4);
    /* Exact extent: the last row ends at its last pixel, not at the stride. */
    size_t len = p.src_stride * (size_t)(p.src_h - 1) + (size_t)p.src_w * 4;
    uint8_t *src = malloc(len);
    ck_assert_ptr_nonnull(src);
    for (size_t i = 0; i < len; i++) src[i] = (uint8_t)next(&s);
    p.src = src;
    compare_levels(&p);
    free(src);
}

/* Loop tests run 10 seeds per fork: a fork costs more than a case. */
START_TEST(random_small)
{
    for (int k = 0; k < 10; k++) random_case((uint32_t)(_i * 10 + k), 70);
}
END_TEST

START_TEST(random_wide)
{
    for (int k = 0; k < 4; k++) random_case((uint32_t)(_i * 4 + k) + 100000u, 3000);
}
END_TEST

/* Every same-width row length from 1 to 200 (all kernel tails), with a
 * one-column upscale and a halving for the gather path. */
static void width_case(int w)
{
    uint32_t s = (uint32_t)w;
    size_t len = (size_t)w * 4 * 3;
    uint8_t *src = malloc(len);
    ck_assert_ptr_nonnull(src);
    for (size_t i = 0; i < len; i++) src[i] = (uint8_t)next(&s);
    cg_convert_params p;
    memset(&p, 0, sizeof p);
    p.src = src;
    p.src_stride = (size_t)w * 4;
    p.src_w = p.dst_w = w;
    p.src_h = p.dst_h = 3;
    compare_levels(&p);
    p.dst_w = w + 1; /* gather path, upscale by one column */
    compare_levels(&p);
    p.dst_w = w / 2 + 1;
    compare_levels(&p);
    free(src);
}

START_TEST(every_width)
{
    for (int w = _i * 20 + 1; w <= _i * 20 + 20; w++) width_case(w);
}
END_TEST

/* Typical game sizes, the ones the benchmarks time. */
START_TEST(game_sizes)
{
    static const int c[][4] = {{640, 360, 640, 360}, {854, 480, 128, 128},
                               {1920, 1080, 640, 360}, {128, 128, 128, 128},
                               {1280, 720, 1920, 1080}, {1000, 700, 333, 251}};
    const int *k = c[_i];
    size_t len = (size_t)k[0] * (size_t)k[1] * 4;
    uint8_t *src = malloc(len);
    ck_assert_ptr_nonnull(src);
    uint32_t s = 12345;
    for (size_t i = 0; i < len; i++) src[i] = (uint8_t)next(&s);
    cg_convert_params p;
    memset(&p, 0, sizeof p);
    p.src = src;
    p.src_stride = (size_t)k[0] * 4;
    p.src_w = k[0];
    p.src_h = k[1];
    p.dst_w = k[2];
    p.dst_h = k[3];
    p.flip = 1;
    p.cursor.draw = 1;
    p.cursor.x = k[2] / 2;
    p.cursor.y = k[3] - 5;
    compare_levels(&p);
    free(src);
}
END_TEST

/* The fast rows run in pieces of 256 destination pixels, each prefetching
 * the next row's source for it, and rows go in the order that reads the
 * source upwards (last row first with flip). Destination widths on both
 * sides of the piece and x-table boundaries (256, 512, 1024), same-width,
 * downscaled and upscaled, both flips, heights resized both ways, a cursor,
 * and a source that starts off 16-byte alignment with a padded stride. */
static void piece_case(int dw, int sw, int sh, int dh, int flip)
{
    const size_t stride = (size_t)sw * 4 + 7;
    const size_t len = stride * (size_t)(sh - 1) + (size_t)sw * 4;
    uint8_t *buf = malloc(len + 1);
    ck_assert_ptr_nonnull(buf);
    uint32_t s = (uint32_t)(dw * 7919 + sw * 31 + sh * 3 + flip);
    for (size_t i = 0; i < len + 1; i++) buf[i] = (uint8_t)next(&s);
    cg_convert_params p;
    memset(&p, 0, sizeof p);
    p.src = buf + 1; /* exact extent, rows off alignment */
    p.src_stride = stride;
    p.src_w = sw;
    p.src_h = sh;
    p.dst_w = dw;
    p.dst_h = dh;
    p.flip = flip;
    p.cursor.draw = 1;
    p.cursor.x = dw - 3;
    p.cursor.y = dh / 2;
    compare_levels(&p);
    free(buf);
}

START_TEST(piece_edges)
{
    static const int widths[] = {255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 1281};
    const int w = widths[_i];
    for (int flip = 0; flip <= 1; flip++) {
        piece_case(w, w, 5, 5, flip);         /* packed rows */
        piece_case(w, 3 * w + 1, 9, 4, flip); /* gather, rows skipped */
        piece_case(w, w / 2 + 1, 2, 7, flip); /* gather, rows repeated */
        piece_case(w, w, 1, 1, flip);         /* one row: nothing to prefetch */
    }
}
END_TEST

const char *suite_skip_reason(void)
{
    /* Every case compares the SIMD levels with the scalar reference: with
     * none available here, nothing would be compared. */
    return cg_simd_best() == CG_SIMD_SCALAR ? "no SIMD level in this build or CPU" : NULL;
}

/* CG_EXPECT_SIMD, when set (a cross build's emulator command sets "neon"),
 * names the level this build must pick on this machine: a build that fell
 * back to the scalar path would otherwise pass every comparison above
 * without running the SIMD code at all. */
START_TEST(expected_level)
{
    cg_simd_level best = cg_simd_best();
    ck_assert_int_ne(cg_simd_available(best), 0);
    const char *want = getenv("CG_EXPECT_SIMD");
    if (want && *want) ck_assert_str_eq(cg_simd_name(best), want);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("simd");
    TCase *core = test_tcase("core");
    tcase_add_loop_test(core, random_small, 0, 40);
    tcase_add_loop_test(core, random_wide, 0, 15);
    tcase_add_loop_test(core, every_width, 0, 10);
    tcase_add_loop_test(core, game_sizes, 0, 6);
    tcase_add_loop_test(core, piece_edges, 0, 10);
    suite_add_tcase(s, core);
    TCase *level = tcase_create("level");
    tcase_add_test(level, expected_level);
    suite_add_tcase(s, level);
    return s;
}
