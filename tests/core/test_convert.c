/*
 * cg_convert against hand-written golden buffers. Every golden case runs at
 * every SIMD level this machine has, so each level is held to the same
 * hand-computed bytes (not just to the scalar path).
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg_frame.h"
#include "check_tcase.h"
#include "cursor_spec.h"
#include "ck_main.h"

#define G 0x80 /* background grey of the cursor tests */
#define W 0xff

static cg_convert_params params(const uint8_t *src, size_t stride, int sw, int sh, int dw,
                                int dh)
{
    cg_convert_params p;
    memset(&p, 0, sizeof p);
    p.src = src;
    p.src_stride = stride;
    p.src_w = sw;
    p.src_h = sh;
    p.dst_w = dw;
    p.dst_h = dh;
    p.filter = CG_FILTER_NEAREST;
    return p;
}

/* Run p at every available level; each must give exactly `want` and write
 * nothing past dst_w*dst_h*3 bytes. */
static void expect(const cg_convert_params *p, const uint8_t *want, size_t n)
{
    uint8_t *out = malloc(n + 32);
    ck_assert_ptr_nonnull(out);
    int ran = 0;
    for (int lvl = CG_SIMD_SCALAR; lvl <= CG_SIMD_NEON; lvl++) {
        if (!cg_simd_available((cg_simd_level)lvl)) continue;
        memset(out, 0xa5, n + 32);
        ck_assert_int_eq(cg_convert_with(p, out, n, (cg_simd_level)lvl), CG_OK);
        ck_assert_msg(memcmp(out, want, n) == 0, "level %s differs from golden",
                      cg_simd_name((cg_simd_level)lvl));
        for (size_t i = n; i < n + 32; i++) ck_assert_uint_eq(out[i], 0xa5);
        ran++;
    }
    ck_assert_int_ge(ran, 1);
    free(out);
}

/* Source pixel (c, r) of the "coordinate" images: R = 10r + c, G = R + 100,
 * B = R + 150; alpha and row padding 0xEE (must never reach the output). */
static uint8_t *coord_image(int w, int h, size_t stride)
{
    uint8_t *s = malloc(stride * (size_t)h);
    ck_assert_ptr_nonnull(s);
    memset(s, 0xee, stride * (size_t)h);
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++) {
            uint8_t *px = s + (size_t)r * stride + (size_t)c * 4;
            px[0] = (uint8_t)(10 * r + c);
            px[1] = (uint8_t)(px[0] + 100);
            px[2] = (uint8_t)(px[0] + 150);
        }
    return s;
}

/* Convert a coordinate image (nearest) and hold every level to `want`. */
static void coord_case(int sw, int sh, size_t stride, int dw, int dh, int flip,
                       const uint8_t *want, size_t n)
{
    uint8_t *src = coord_image(sw, sh, stride);
    cg_convert_params p = params(src, stride, sw, sh, dw, dh);
    p.flip = flip;
    expect(&p, want, n);
    free(src);
}

/* ---- core: row order, strides ------------------------------------------- */

static const uint8_t src2x2[] = {1, 2, 3, 200, 4, 5, 6, 201, 7, 8, 9, 202, 10, 11, 12, 203};

START_TEST(same_2x2)
{
    static const uint8_t want[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    cg_convert_params p = params(src2x2, 8, 2, 2, 2, 2);
    expect(&p, want, sizeof want);
}
END_TEST

START_TEST(flip_2x2)
{
    static const uint8_t want[] = {7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6};
    cg_convert_params p = params(src2x2, 8, 2, 2, 2, 2);
    p.flip = 1;
    expect(&p, want, sizeof want);
}
END_TEST

START_TEST(row_3x1)
{
    static const uint8_t src[] = {1, 2, 3, 99, 4, 5, 6, 99, 7, 8, 9, 99};
    static const uint8_t want[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    cg_convert_params p = params(src, 12, 3, 1, 3, 1);
    expect(&p, want, sizeof want);
    p.flip = 1; /* one row: flipping changes nothing */
    expect(&p, want, sizeof want);
}
END_TEST

START_TEST(odd_width_padded_stride)
{
    static const uint8_t want[] = {
        0,  100, 150, 1,  101, 151, 2,  102, 152, 3,  103, 153, 4,  104, 154,
        10, 110, 160, 11, 111, 161, 12, 112, 162, 13, 113, 163, 14, 114, 164,
        20, 120, 170, 21, 121, 171, 22, 122, 172, 23, 123, 173, 24, 124, 174,
    };
    static const uint8_t want_flip[] = {
        20, 120, 170, 21, 121, 171, 22, 122, 172, 23, 123, 173, 24, 124, 174,
        10, 110, 160, 11, 111, 161, 12, 112, 162, 13, 113, 163, 14, 114, 164,
        0,  100, 150, 1,  101, 151, 2,  102, 152, 3,  103, 153, 4,  104, 154,
    };
    coord_case(5, 3, 5 * 4 + 8, 5, 3, 0, want, sizeof want);
    coord_case(5, 3, 5 * 4 + 8, 5, 3, 1, want_flip, sizeof want_flip);
}
END_TEST

/* ---- core: resize in every direction ----------------------------------- */

START_TEST(down_4x4_to_2x2)
{
    /* src (2x, 2y) */
    static const uint8_t want[] = {0, 100, 150, 2, 102, 152, 20, 120, 170, 22, 122, 172};
    /* flip: bottom-up row 2y is memory row 3 - 2y: rows 3 and 1 */
    static const uint8_t want_flip[] = {30, 130, 180, 32, 132, 182, 10, 110, 160, 12, 112, 162};
    coord_case(4, 4, 16, 2, 2, 0, want, sizeof want);
    coord_case(4, 4, 16, 2, 2, 1, want_flip, sizeof want_flip);
}
END_TEST

START_TEST(up_2x1_to_5x2)
{
    /* sx = x*2/5 = 0,0,0,1,1; sy = y*1/2 = 0,0 */
    static const uint8_t src[] = {1, 2, 3, 0, 4, 5, 6, 0};
    static const uint8_t want[] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6,
                                   1, 2, 3, 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6};
    cg_convert_params p = params(src, 8, 2, 1, 5, 2);
    expect(&p, want, sizeof want);
}
END_TEST

START_TEST(nonuniform_3x2_to_2x3)
{
    /* sx = x*3/2 = 0,1; sy = y*2/3 = 0,0,1 */
    static const uint8_t want[] = {0,  100, 150, 1,  101, 151, 0,  100, 150,
                                   1,  101, 151, 10, 110, 160, 11, 111, 161};
    /* flip: bottom-up rows 0,0,1 are memory rows 1,1,0 */
    static const uint8_t want_flip[] = {10, 110, 160, 11, 111, 161, 10, 110, 160,
                                        11, 111, 161, 0,  100, 150, 1,  101, 151};
    coord_case(3, 2, 12, 2, 3, 0, want, sizeof want);
    coord_case(3, 2, 12, 2, 3, 1, want_flip, sizeof want_flip);
}
END_TEST

START_TEST(width_only_and_height_only)
{
    /* 4x2 -> 3x2: sx = x*4/3 = 0,1,2 */
    static const uint8_t want_w[] = {0,  100, 150, 1,  101, 151, 2,  102, 152,
                                     10, 110, 160, 11, 111, 161, 12, 112, 162};
    /* 2x4 -> 2x3: sy = y*4/3 = 0,1,2 */
    static const uint8_t want_h[] = {0,  100, 150, 1,  101, 151, 10, 110, 160,
                                     11, 111, 161, 20, 120, 170, 21, 121, 171};
    coord_case(4, 2, 16, 3, 2, 0, want_w, sizeof want_w);
    coord_case(2, 4, 12, 2, 3, 0, want_h, sizeof want_h);
}
END_TEST

/* Wider than one 1024-column offset chunk: column c carries c in R (low) and
 * G (high), row r in B; expected from the mapping formula of the spec. */
static void wide_case(int sw, int sh, int dw, int dh, int flip)
{
    size_t stride = (size_t)sw * 4;
    uint8_t *src = malloc(stride * (size_t)sh);
    uint8_t *want = malloc((size_t)dw * (size_t)dh * 3);
    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(want);
    for (int r = 0; r < sh; r++)
        for (int c = 0; c < sw; c++) {
            uint8_t *px = src + (size_t)r * stride + (size_t)c * 4;
            px[0] = (uint8_t)(c & 0xff);
            px[1] = (uint8_t)(c >> 8);
            px[2] = (uint8_t)r;
            px[3] = 0;
        }
    for (int y = 0; y < dh; y++)
        for (int x = 0; x < dw; x++) {
            long sx = (long)x * sw / dw, sy = (long)y * sh / dh;
            long mrow = flip ? sh - 1 - sy : sy;
            uint8_t *o = want + ((size_t)y * (size_t)dw + (size_t)x) * 3;
            o[0] = (uint8_t)(sx & 0xff);
            o[1] = (uint8_t)(sx >> 8);
            o[2] = (uint8_t)mrow;
        }
    cg_convert_params p = params(src, stride, sw, sh, dw, dh);
    p.flip = flip;
    expect(&p, want, (size_t)dw * (size_t)dh * 3);
    free(src);
    free(want);
}

START_TEST(wide_rows)
{
    wide_case(3000, 2, 2500, 3, 0);
    wide_case(1500, 3, 4000, 2, 1);
    wide_case(2049, 1, 2049, 1, 0);
    wide_case(5000, 2, 1025, 2, 1);
}
END_TEST

/* ---- core: box filter ---------------------------------------------------- */

START_TEST(box_4x2_to_2x1)
{
    static const uint8_t src[] = {
        0, 0,  0,   9, 1, 10, 100, 9, 2, 2, 2, 9, 4, 4, 4, 9,
        2, 20, 200, 9, 2, 20, 200, 9, 1, 1, 1, 9, 0, 0, 0, 9,
    };
    /* x0: R (5+2)/4 = 1 (1.25); G (50+2)/4 = 13 (12.5 rounds up);
     * B (500+2)/4 = 125. x1: each channel (7+2)/4 = 2 (1.75). */
    static const uint8_t want[] = {1, 13, 125, 2, 2, 2};
    cg_convert_params p = params(src, 16, 4, 2, 2, 1);
    p.filter = CG_FILTER_BOX;
    expect(&p, want, sizeof want);
}
END_TEST

START_TEST(box_uneven_spans)
{
    /* 3 -> 2: x0 covers [0,1), x1 covers [1,3): (1+2+1)/2=2, (2+4+1)/2=3, (3+7+1)/2=5 */
    static const uint8_t src[] = {10, 20, 30, 0, 1, 2, 3, 0, 2, 4, 7, 0};
    static const uint8_t want[] = {10, 20, 30, 2, 3, 5};
    cg_convert_params p = params(src, 12, 3, 1, 2, 1);
    p.filter = CG_FILTER_BOX;
    expect(&p, want, sizeof want);
}
END_TEST

START_TEST(box_upscale_is_nearest)
{
    static const uint8_t src[] = {10, 20, 30, 0, 1, 2, 3, 0};
    static const uint8_t want[] = {10, 20, 30, 10, 20, 30, 1, 2, 3, 1, 2, 3,
                                   10, 20, 30, 10, 20, 30, 1, 2, 3, 1, 2, 3};
    cg_convert_params p = params(src, 8, 2, 1, 4, 2);
    p.filter = CG_FILTER_BOX;
    expect(&p, want, sizeof want);
}
END_TEST

START_TEST(box_flip)
{
    /* 1x4 -> 1x2, memory rows R = 0, 10, 20, 41 (G = B = R). */
    static const uint8_t src[] = {0, 0, 0, 0, 10, 10, 10, 0, 20, 20, 20, 0, 41, 41, 41, 0};
    static const uint8_t want[] = {5, 5, 5, 31, 31, 31};      /* (0+10+1)/2, (61+1)/2 */
    static const uint8_t want_flip[] = {31, 31, 31, 5, 5, 5}; /* rows 3,2 then 1,0 */
    cg_convert_params p = params(src, 4, 1, 4, 1, 2);
    p.filter = CG_FILTER_BOX;
    expect(&p, want, sizeof want);
    p.flip = 1;
    expect(&p, want_flip, sizeof want_flip);
}
END_TEST

/* The box filter as cg_frame.h defines it, computed here independently of
 * the library: every box sum from a 64-bit summed-area table of the
 * bottom-up source (four lookups per pixel, so the extreme shapes stay
 * fast under the sanitizers), then the cursor bitmap on top. */
static void oracle_box(const cg_convert_params *p, uint8_t *out)
{
    const size_t tw = (size_t)p->src_w + 1;
    uint64_t *sat = calloc(tw * ((size_t)p->src_h + 1) * 3, sizeof *sat);
    ck_assert_ptr_nonnull(sat);
#define SAT(x, y, c) sat[(((size_t)(y)) * tw + (size_t)(x)) * 3 + (size_t)(c)]
    for (int y = 0; y < p->src_h; y++) {
        const uint8_t *row = p->src + (size_t)(p->flip ? p->src_h - 1 - y : y) * p->src_stride;
        for (int x = 0; x < p->src_w; x++)
            for (int c = 0; c < 3; c++)
                SAT(x + 1, y + 1, c) = row[(size_t)x * 4 + (size_t)c] + SAT(x, y + 1, c) +
                                       SAT(x + 1, y, c) - SAT(x, y, c);
    }
    for (int y = 0; y < p->dst_h; y++) {
        int64_t y0 = (int64_t)y * p->src_h / p->dst_h, y1 = (int64_t)(y + 1) * p->src_h / p->dst_h;
        if (y1 <= y0) y1 = y0 + 1;
        for (int x = 0; x < p->dst_w; x++) {
            int64_t x0 = (int64_t)x * p->src_w / p->dst_w;
            int64_t x1 = (int64_t)(x + 1) * p->src_w / p->dst_w;
            if (x1 <= x0) x1 = x0 + 1;
            uint64_t n = (uint64_t)((y1 - y0) * (x1 - x0));
            for (int c = 0; c < 3; c++) {
                uint64_t sum = SAT(x1, y1, c) - SAT(x0, y1, c) - SAT(x1, y0, c) + SAT(x0, y0, c);
                out[((size_t)y * (size_t)p->dst_w + (size_t)x) * 3 + (size_t)c] =
                    (uint8_t)((sum + n / 2) / n);
            }
        }
    }
#undef SAT
    free(sat);
    if (p->cursor.draw) spec_overlay_cursor(out, p->dst_w, p->dst_h, p->cursor.x, p->cursor.y);
}

/* Shapes where source or destination is one pixel thin, up- and
 * downscaling mixed per axis, the extremes of CG_MAX_DIM: every level equals
 * the definition. These are the shapes whose cost used to grow with
 * output width x source height (1x16384 -> 16384x1: 2.7e8 pixel reads). */
static const int k_box_shapes[][4] = {
    {1, 16384, 16384, 1}, {16384, 1, 1, 16384}, {1, 16384, 4096, 3}, {3, 4096, 16384, 2},
    {64, 64, 16384, 5},   {5, 1000, 300, 3},    {10, 100, 37, 7},    {100, 10, 7, 37},
    {7, 3, 2, 13},        {3, 5, 7, 11},        {1, 1, 300, 200},    {300, 200, 1, 1},
};

START_TEST(box_matches_definition)
{
    const int sw = k_box_shapes[_i][0], sh = k_box_shapes[_i][1];
    const int dw = k_box_shapes[_i][2], dh = k_box_shapes[_i][3];
    const size_t stride = (size_t)sw * 4 + 8;
    uint8_t *src = malloc(stride * (size_t)sh);
    ck_assert_ptr_nonnull(src);
    uint32_t x = 0x9e3779b9u ^ (uint32_t)_i;
    for (size_t i = 0; i < stride * (size_t)sh; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        src[i] = (uint8_t)x;
    }
    const size_t n = (size_t)dw * (size_t)dh * 3;
    uint8_t *want = malloc(n);
    ck_assert_ptr_nonnull(want);
    cg_convert_params p = params(src, stride, sw, sh, dw, dh);
    p.filter = CG_FILTER_BOX;
    /* Without and with flip and a cursor over the top-left, the middle and
     * the bottom-right corner, partly off the image. */
    const int cursors[][3] = {{0, 0, 0}, {1, -3, -5}, {1, dw / 2, dh / 2}, {1, dw - 4, dh - 3}};
    for (int k = 0; k < 4; k++) {
        p.flip = k & 1;
        p.cursor.draw = cursors[k][0];
        p.cursor.x = cursors[k][1];
        p.cursor.y = cursors[k][2];
        oracle_box(&p, want);
        expect(&p, want, n);
    }
    free(want);
    free(src);
}
END_TEST

/* ---- core: cursor ------------------------------------------------------------- */

/* A 3x3 grey frame (same size, no resize) with the cursor at (cx, cy). */
static void cursor3(int cx, int cy, const uint8_t want[27])
{
    uint8_t src[3 * 3 * 4];
    memset(src, G, sizeof src);
    cg_convert_params p = params(src, 12, 3, 3, 3, 3);
    p.cursor.draw = 1;
    p.cursor.x = cx;
    p.cursor.y = cy;
    expect(&p, want, 27);
}

/* Memory rows are bottom-up: the first 9 bytes are the BOTTOM row. */
START_TEST(cursor_top_left)
{
    /* arrow rows 0..2 = "B..", "BB.", "BWB" drawn top-down */
    static const uint8_t want[27] = {0, 0, 0, W, W, W, 0, 0, 0, /* top-down row 2 */
                                     0, 0, 0, 0, 0, 0, G, G, G, /* row 1 */
                                     0, 0, 0, G, G, G, G, G, G};
    cursor3(0, 0, want);
}
END_TEST

START_TEST(cursor_negative)
{
    /* A hot spot outside the image draws nothing, even where the arrow's
     * body would reach into it (the predecessor drew a clipped arrow). */
    static const uint8_t grey[27] = {G, G, G, G, G, G, G, G, G, G, G, G, G, G,
                                     G, G, G, G, G, G, G, G, G, G, G, G, G};
    cursor3(-1, -1, grey);
    cursor3(-1, 0, grey);
    cursor3(0, -1, grey);
}
END_TEST

START_TEST(cursor_right_and_bottom_edges)
{
    /* at (1,0): columns 0..1 of rows 0..2 ("B.", "BB", "BW") at x = 1..2 */
    static const uint8_t right[27] = {G, G, G, 0, 0, 0, W, W, W,
                                      G, G, G, 0, 0, 0, 0, 0, 0,
                                      G, G, G, 0, 0, 0, G, G, G};
    /* at (2,2): only the hot spot, black, at the bottom-right pixel */
    static const uint8_t corner[27] = {G, G, G, G, G, G, 0, 0, 0,
                                       G, G, G, G, G, G, G, G, G,
                                       G, G, G, G, G, G, G, G, G};
    /* at (0,1): rows 0..1 ("B..", "BB.") on the lower two rows */
    static const uint8_t low[27] = {0, 0, 0, 0, 0, 0, G, G, G,
                                    0, 0, 0, G, G, G, G, G, G,
                                    G, G, G, G, G, G, G, G, G};
    cursor3(1, 0, right);
    cursor3(2, 2, corner);
    cursor3(0, 1, low);
}
END_TEST

START_TEST(cursor_off_screen)
{
    static const uint8_t grey[27] = {G, G, G, G, G, G, G, G, G, G, G, G, G, G,
                                     G, G, G, G, G, G, G, G, G, G, G, G, G};
    static const int pos[][2] = {{3, 0},      {0, 3},         {-16, 0},      {0, -16},
                                 {-16, -16},  {100, 100},     {INT_MIN, 0},  {0, INT_MIN},
                                 {INT_MAX, 0}, {0, INT_MAX}, {INT_MIN, INT_MAX}, {-7, -16}};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) cursor3(pos[i][0], pos[i][1], grey);
}
END_TEST

START_TEST(cursor_after_resize_and_flip)
{
    /* 4x4 -> 2x2 flipped (see down_4x4_to_2x2), cursor at (0,0): top-down
     * row 0 = memory row 1 gets "B.", row 1 = memory row 0 gets "BB". */
    static const uint8_t want[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 112, 162};
    uint8_t *src = coord_image(4, 4, 16);
    cg_convert_params p = params(src, 16, 4, 4, 2, 2);
    p.flip = 1;
    p.cursor.draw = 1;
    expect(&p, want, sizeof want);
    free(src);
}
END_TEST

START_TEST(cursor_bitmap_matches_spec)
{
    for (int r = 0; r < CG_CURSOR_SIZE; r++) ck_assert_str_eq(cg_cursor_rows[r], spec_cursor[r]);
}
END_TEST

/* Rows 10..15 of the arrow, hand-typed from the spec as pixels: the rows
 * where the predecessor's arrow differed. 16x16 grey frame, hot spot (0,0);
 * top-down row 10 is buffer row 5. */
START_TEST(cursor_lower_rows_golden)
{
    static const char *const rows[6] = {
        "BWWWWWBBBB......", "BWWWWWB.........", "BWBBWWB.........",
        "BB.BWWWB........", "B...BWWB........", ".....BBB........",
    };
    uint8_t src[16 * 16 * 4], want[16 * 16 * 3];
    memset(src, G, sizeof src);
    memset(want, G, sizeof want);
    for (int r = 0; r < 10; r++)
        for (int c = 0; c < 16; c++)
            if (spec_cursor[r][c] != '.')
                memset(want + ((size_t)(15 - r) * 16 + (size_t)c) * 3,
                       spec_cursor[r][c] == 'B' ? 0 : W, 3);
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 16; c++)
            if (rows[r][c] != '.')
                memset(want + ((size_t)(5 - r) * 16 + (size_t)c) * 3, rows[r][c] == 'B' ? 0 : W, 3);
    cg_convert_params p = params(src, 16 * 4, 16, 16, 16, 16);
    p.cursor.draw = 1;
    expect(&p, want, sizeof want);
}
END_TEST

/* The sweeps' 20x17 grey frame, bottom-up RGB8. */
enum { CW = 20, CH = 17 };

/* want = the grey frame with the arrow at (cx, cy) from the top-left,
 * placed and clipped as tests/common/cursor_spec.h says. */
static void cursor_golden(uint8_t want[CW * CH * 3], int cx, int cy)
{
    memset(want, G, CW * CH * 3);
    spec_overlay_cursor(want, CW, CH, cx, cy);
}

/* Cursor swept over every position from fully off the left/top to fully off
 * the right/bottom (loop index = row position). */
static void cursor_at(int cx, int cy)
{
    uint8_t src[CW * CH * 4], want[CW * CH * 3];
    memset(src, G, sizeof src);
    cursor_golden(want, cx, cy);
    cg_convert_params p = params(src, CW * 4, CW, CH, CW, CH);
    p.cursor.draw = 1;
    p.cursor.x = cx;
    p.cursor.y = cy;
    expect(&p, want, sizeof want);
}

START_TEST(cursor_sweep)
{
    for (int cx = -18; cx <= 21; cx++) cursor_at(cx, _i);
}
END_TEST

/* cg_draw_cursor_rgb on an already packed frame: the same golden image as
 * cg_convert's cursor, and not one byte outside the frame written. */
static void cursor_rgb_at(int cx, int cy)
{
    uint8_t img[CW * CH * 3 + 16], want[CW * CH * 3];
    memset(img, G, CW * CH * 3);
    memset(img + CW * CH * 3, 0xa5, 16);
    cursor_golden(want, cx, cy);
    ck_assert_int_eq(cg_draw_cursor_rgb(img, CW * CH * 3, CW, CH, cx, cy), CG_OK);
    ck_assert_msg(memcmp(img, want, sizeof want) == 0, "cursor at (%d,%d) differs", cx, cy);
    for (size_t i = CW * CH * 3; i < sizeof img; i++) ck_assert_uint_eq(img[i], 0xa5);
}

START_TEST(cursor_rgb_sweep)
{
    for (int cx = -18; cx <= 21; cx++) cursor_rgb_at(cx, _i);
}
END_TEST

START_TEST(cursor_rgb_limits)
{
    static const int far[][2] = {{INT_MIN, 0},       {0, INT_MIN},      {INT_MAX, 0},
                                 {0, INT_MAX},       {INT_MIN, INT_MAX}, {INT_MAX, INT_MIN},
                                 {INT_MIN + 5, 3},   {3, INT_MAX - 15}};
    for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) cursor_rgb_at(far[i][0], far[i][1]);
    /* 1x1: only the black hot spot */
    uint8_t px[3] = {G, G, G};
    ck_assert_int_eq(cg_draw_cursor_rgb(px, 3, 1, 1, 0, 0), CG_OK);
    ck_assert_uint_eq(px[0] | px[1] | px[2], 0);
    /* refused before anything is written */
    uint8_t img[CW * CH * 3];
    memset(img, G, sizeof img);
    ck_assert_int_eq(cg_draw_cursor_rgb(NULL, sizeof img, CW, CH, 0, 0), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_draw_cursor_rgb(img, sizeof img - 1, CW, CH, 0, 0),
                     CG_E_BUFFER_TOO_SMALL);
    ck_assert_int_eq(cg_draw_cursor_rgb(img, sizeof img, 0, CH, 0, 0), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_draw_cursor_rgb(img, sizeof img, CW, -1, 0, 0), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_draw_cursor_rgb(img, sizeof img, 16385, 1, 0, 0), CG_E_TOO_LARGE);
    ck_assert_int_eq(cg_draw_cursor_rgb(img, SIZE_MAX, INT_MAX, INT_MAX, 0, 0), CG_E_TOO_LARGE);
    for (size_t i = 0; i < sizeof img; i++) ck_assert_uint_eq(img[i], G);
}
END_TEST

/* ---- limits ------------------------------------------------------------------- */

START_TEST(one_pixel)
{
    static const uint8_t px[] = {9, 8, 7, 6};
    static const uint8_t want1[] = {9, 8, 7};
    uint8_t want35[7 * 5 * 3];
    for (size_t i = 0; i < sizeof want35; i += 3) memcpy(want35 + i, want1, 3);
    cg_convert_params p = params(px, 4, 1, 1, 1, 1);
    expect(&p, want1, 3);
    p = params(px, 4, 1, 1, 7, 5);
    expect(&p, want35, sizeof want35);
    uint8_t *src = coord_image(7, 5, 28);
    static const uint8_t want00[] = {0, 100, 150};
    p = params(src, 28, 7, 5, 1, 1);
    expect(&p, want00, 3);
    free(src);
}
END_TEST

START_TEST(max_side)
{
    /* 16384 x 1 -> 1 x 1 and 1 x 16384 -> 1 x 1: pixel 0 */
    uint8_t *src = calloc(16384, 4);
    ck_assert_ptr_nonnull(src);
    src[0] = 5;
    src[1] = 6;
    src[2] = 7;
    static const uint8_t want[] = {5, 6, 7};
    cg_convert_params p = params(src, 16384 * 4, 16384, 1, 1, 1);
    expect(&p, want, 3);
    p = params(src, 4, 1, 16384, 1, 1);
    expect(&p, want, 3);
    free(src);
}
END_TEST

/* Boxes of ~16.8 million pixels of 255: at the edge of 32-bit sums. One
 * row more and the fast levels must fall back to 64-bit sums. */
START_TEST(box_huge_area)
{
    const int w = 16384, h = 1025;
    uint8_t *src = malloc((size_t)w * (size_t)h * 4);
    ck_assert_ptr_nonnull(src);
    memset(src, 0xff, (size_t)w * (size_t)h * 4);
    static const uint8_t want[] = {255, 255, 255};
    cg_convert_params p = params(src, (size_t)w * 4, w, h, 1, 1);
    p.filter = CG_FILTER_BOX;
    expect(&p, want, 3); /* 1025 * 16385 > 2^32 / 256: 64-bit path */
    p.src_h = 1023;
    expect(&p, want, 3); /* 1023 * 16385 < 2^32 / 256: 32-bit sums */
    free(src);
}
END_TEST

static void expect_error(const cg_convert_params *p, uint8_t *dst, size_t len, cg_status want)
{
    uint8_t copy[64];
    memset(dst, 0x5a, len < 64 ? len : 64);
    memcpy(copy, dst, len < 64 ? len : 64);
    for (int lvl = CG_SIMD_SCALAR; lvl <= CG_SIMD_NEON; lvl++)
        if (cg_simd_available((cg_simd_level)lvl))
            ck_assert_int_eq(cg_convert_with(p, dst, len, (cg_simd_level)lvl), want);
    ck_assert_int_eq(cg_convert(p, dst, len), want);
    ck_assert_mem_eq(dst, copy, len < 64 ? len : 64); /* untouched */
}

START_TEST(bad_arguments)
{
    uint8_t dst[64];
    cg_convert_params p = params(src2x2, 8, 2, 2, 2, 2);
    cg_convert_params q;
    ck_assert_int_eq(cg_convert(NULL, dst, sizeof dst), CG_E_INVALID_ARG);
    expect_error(&p, dst, 0, CG_E_BUFFER_TOO_SMALL);
    expect_error(&p, dst, 11, CG_E_BUFFER_TOO_SMALL);
    ck_assert_int_eq(cg_convert(&p, NULL, 12), CG_E_INVALID_ARG);
    q = p, q.src = NULL, expect_error(&q, dst, 12, CG_E_INVALID_ARG);
    q = p, q.src_stride = 7, expect_error(&q, dst, 12, CG_E_INVALID_ARG);
    q = p, q.src_stride = 0, expect_error(&q, dst, 12, CG_E_INVALID_ARG);
    q = p, q.filter = (cg_filter)2, expect_error(&q, dst, 12, CG_E_INVALID_ARG);
    q = p, q.filter = (cg_filter)-1, expect_error(&q, dst, 12, CG_E_INVALID_ARG);
    const int bad[] = {0, -1, INT_MIN};
    for (size_t i = 0; i < 3; i++) {
        q = p, q.src_w = bad[i], expect_error(&q, dst, 12, CG_E_INVALID_ARG);
        q = p, q.src_h = bad[i], expect_error(&q, dst, 12, CG_E_INVALID_ARG);
        q = p, q.dst_w = bad[i], expect_error(&q, dst, 12, CG_E_INVALID_ARG);
        q = p, q.dst_h = bad[i], expect_error(&q, dst, 12, CG_E_INVALID_ARG);
    }
    q = p, q.src_w = 16385, q.src_stride = 16385 * 4, expect_error(&q, dst, 12, CG_E_TOO_LARGE);
    q = p, q.src_h = 16385, expect_error(&q, dst, 12, CG_E_TOO_LARGE);
    q = p, q.dst_w = 16385, expect_error(&q, dst, 12, CG_E_TOO_LARGE);
    q = p, q.dst_h = INT_MAX, expect_error(&q, dst, 12, CG_E_TOO_LARGE);
    /* the destination may not overlap the source */
    uint8_t buf[64] = {0};
    q = params(buf, 8, 2, 2, 2, 2);
    ck_assert_int_eq(cg_convert(&q, buf + 4, 12), CG_E_INVALID_ARG);
    /* levels this build or CPU lacks */
    ck_assert_int_eq(cg_convert_with(&p, dst, 12, (cg_simd_level)99), CG_E_UNSUPPORTED);
    ck_assert_int_eq(cg_convert_with(&p, dst, 12, (cg_simd_level)-1), CG_E_UNSUPPORTED);
    for (int lvl = CG_SIMD_SSSE3; lvl <= CG_SIMD_NEON; lvl++)
        if (!cg_simd_available((cg_simd_level)lvl))
            ck_assert_int_eq(cg_convert_with(&p, dst, 12, (cg_simd_level)lvl), CG_E_UNSUPPORTED);
    /* still usable afterwards */
    static const uint8_t want[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    expect(&p, want, sizeof want);
}
END_TEST

START_TEST(simd_names)
{
    ck_assert_str_eq(cg_simd_name(CG_SIMD_SCALAR), "scalar");
    ck_assert_str_eq(cg_simd_name(CG_SIMD_SSSE3), "ssse3");
    ck_assert_str_eq(cg_simd_name(CG_SIMD_AVX2), "avx2");
    ck_assert_str_eq(cg_simd_name(CG_SIMD_NEON), "neon");
    ck_assert_int_ne(cg_simd_available(CG_SIMD_SCALAR), 0);
    ck_assert_int_ne(cg_simd_available(cg_simd_best()), 0);
    ck_assert_int_eq(cg_simd_available((cg_simd_level)42), 0);
#if defined(__x86_64__)
    ck_assert_int_eq(cg_simd_available(CG_SIMD_NEON), 0);
    ck_assert_int_eq(cg_simd_available(CG_SIMD_AVX2), __builtin_cpu_supports("avx2") != 0);
#endif
}
END_TEST

/* ---- overflow ------------------------------------------------------------------- */

START_TEST(stride_overflow)
{
    uint8_t dst[16];
    /* Never dereferenced: the size checks come first. */
    cg_convert_params p = params(src2x2, SIZE_MAX / 2 + 1, 2, 3, 2, 2);
    expect_error(&p, dst, 12, CG_E_OVERFLOW);
    p = params(src2x2, SIZE_MAX - 10, 4, 2, 2, 2);
    expect_error(&p, dst, 12, CG_E_OVERFLOW);
}
END_TEST

START_TEST(huge_destination_rejected)
{
    uint8_t dst[64];
    cg_convert_params p = params(src2x2, 8, 2, 2, 16384, 16384);
    expect_error(&p, dst, sizeof dst, CG_E_BUFFER_TOO_SMALL);
    expect_error(&p, dst, (size_t)16384 * 16384 * 3 - 1, CG_E_BUFFER_TOO_SMALL);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("convert");
    TCase *core = test_tcase("core");
    tcase_add_test(core, same_2x2);
    tcase_add_test(core, flip_2x2);
    tcase_add_test(core, row_3x1);
    tcase_add_test(core, odd_width_padded_stride);
    tcase_add_test(core, down_4x4_to_2x2);
    tcase_add_test(core, up_2x1_to_5x2);
    tcase_add_test(core, nonuniform_3x2_to_2x3);
    tcase_add_test(core, width_only_and_height_only);
    tcase_add_test(core, wide_rows);
    tcase_add_test(core, box_4x2_to_2x1);
    tcase_add_test(core, box_uneven_spans);
    tcase_add_test(core, box_upscale_is_nearest);
    tcase_add_test(core, box_flip);
    tcase_add_test(core, cursor_top_left);
    tcase_add_test(core, cursor_negative);
    tcase_add_test(core, cursor_right_and_bottom_edges);
    tcase_add_test(core, cursor_off_screen);
    tcase_add_test(core, cursor_after_resize_and_flip);
    tcase_add_test(core, cursor_bitmap_matches_spec);
    tcase_add_test(core, cursor_lower_rows_golden);
    tcase_add_loop_test(core, cursor_sweep, -18, 22);
    tcase_add_loop_test(core, cursor_rgb_sweep, -18, 22);
    tcase_add_test(core, simd_names);
    suite_add_tcase(s, core);
    TCase *limits = test_tcase("limits");
    tcase_add_test(limits, one_pixel);
    tcase_add_test(limits, max_side);
    tcase_add_test(limits, box_huge_area);
    tcase_add_loop_test(limits, box_matches_definition, 0,
                        (int)(sizeof k_box_shapes / sizeof k_box_shapes[0]));
    tcase_add_test(limits, cursor_rgb_limits);
    tcase_add_test(limits, bad_arguments);
    suite_add_tcase(s, limits);
    TCase *overflow = test_tcase("overflow");
    tcase_add_test(overflow, stride_overflow);
    tcase_add_test(overflow, huge_destination_rejected);
    suite_add_tcase(s, overflow);
    return s;
}
