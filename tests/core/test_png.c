/*
 * PNG encoder, checked by decoding with libpng's own reader (an independent
 * oracle) and comparing pixel for pixel.
 */
#include <png.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg_frame.h"
#include "check_tcase.h"
#include "ck_main.h"

static uint8_t *test_image(int w, int h, size_t stride, uint32_t seed)
{
    uint8_t *img = malloc(stride * (size_t)h);
    ck_assert_ptr_nonnull(img);
    memset(img, 0xee, stride * (size_t)h);
    uint32_t s = seed | 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w * 3; x++) {
            s ^= s << 13, s ^= s >> 17, s ^= s << 5;
            /* half smooth, half noise, so every filter has work to do */
            img[(size_t)y * stride + (size_t)x] =
                (uint8_t)(y < h / 2 ? x / 3 + y : (int)(s & 0xff));
        }
    return img;
}

/* Decode with libpng's simplified reader and compare with the source. */
static void check_roundtrip(const cg_buf *b, const uint8_t *img, int w, int h, size_t stride)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    ck_assert_uint_gt(b->len, 33);
    ck_assert_mem_eq(b->data, sig, 8);
    ck_assert_uint_eq(b->data[24], 8); /* IHDR bit depth */
    ck_assert_uint_eq(b->data[25], 2); /* IHDR colour type: RGB */

    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    ck_assert_int_ne(png_image_begin_read_from_memory(&im, b->data, b->len), 0);
    ck_assert_uint_eq(im.width, (unsigned)w);
    ck_assert_uint_eq(im.height, (unsigned)h);
    ck_assert_uint_eq(im.format, PNG_FORMAT_RGB);
    uint8_t *dec = malloc(PNG_IMAGE_SIZE(im));
    ck_assert_ptr_nonnull(dec);
    ck_assert_int_ne(png_image_finish_read(&im, NULL, dec, 0, NULL), 0);
    for (int y = 0; y < h; y++)
        ck_assert_mem_eq(dec + (size_t)y * (size_t)w * 3, img + (size_t)y * stride,
                         (size_t)w * 3);
    free(dec);
    png_image_free(&im);
}

static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {1, 40}, {640, 360}};
static const int levels[] = {-1, 0, 1, 2, 3, 6, 9};
static const int filters[] = {-1, CG_PNG_FILTER_NONE, CG_PNG_FILTER_SUB, CG_PNG_FILTER_UP,
                              CG_PNG_FILTER_AVG, CG_PNG_FILTER_PAETH, CG_PNG_FILTER_ALL,
                              CG_PNG_FILTER_SUB | CG_PNG_FILTER_PAETH};

/* Loop index covers sizes x levels x filters. */
START_TEST(roundtrip)
{
    const int nl = (int)(sizeof levels / sizeof levels[0]);
    const int nf = (int)(sizeof filters / sizeof filters[0]);
    const int *sz = sizes[_i / (nl * nf)];
    cg_png_options o = {levels[_i / nf % nl], filters[_i % nf], -1};
    size_t stride = (size_t)sz[0] * 3 + (size_t)(_i % 3) * 5; /* some padded */
    uint8_t *img = test_image(sz[0], sz[1], stride, (uint32_t)_i);
    cg_buf b = {0};
    ck_assert_int_eq(cg_png_encode_rgb(img, sz[0], sz[1], stride, &o, &b), CG_OK);
    check_roundtrip(&b, img, sz[0], sz[1], stride);
    cg_buf_free(&b);
    free(img);
}
END_TEST

START_TEST(strategies_and_defaults)
{
    uint8_t *img = test_image(33, 21, 99, 7);
    cg_buf b = {0};
    for (int st = -1; st <= 4; st++) {
        cg_png_options o = {1, CG_PNG_FILTER_SUB, st};
        ck_assert_int_eq(cg_png_encode_rgb(img, 33, 21, 99, &o, &b), CG_OK);
        check_roundtrip(&b, img, 33, 21, 99);
    }
    cg_png_options d = cg_png_default_options();
    ck_assert_int_eq(cg_png_encode_rgb(img, 33, 21, 99, &d, &b), CG_OK);
    check_roundtrip(&b, img, 33, 21, 99);
    ck_assert_int_eq(cg_png_encode_rgb(img, 33, 21, 99, NULL, &b), CG_OK); /* NULL: default */
    check_roundtrip(&b, img, 33, 21, 99);
    cg_png_options lib = cg_png_libpng_defaults();
    ck_assert_int_eq(lib.level, -1);
    ck_assert_int_eq(lib.filters, -1);
    ck_assert_int_eq(lib.strategy, -1);
    ck_assert_int_eq(cg_png_encode_rgb(img, 33, 21, 99, &lib, &b), CG_OK);
    check_roundtrip(&b, img, 33, 21, 99);
    cg_buf_free(&b);
    free(img);
}
END_TEST

START_TEST(buffer_reused)
{
    uint8_t *img = test_image(64, 64, 192, 3);
    cg_buf b = {0};
    ck_assert_int_eq(cg_png_encode_rgb(img, 64, 64, 192, NULL, &b), CG_OK);
    uint8_t *first = b.data;
    size_t cap = b.cap, len = b.len;
    ck_assert_uint_ge(cap, len);
    ck_assert_int_eq(cg_png_encode_rgb(img, 64, 64, 192, NULL, &b), CG_OK);
    ck_assert_ptr_eq(b.data, first); /* same frame fits: no reallocation */
    ck_assert_uint_eq(b.cap, cap);
    ck_assert_uint_eq(b.len, len);
    /* a smaller image afterwards replaces, not appends */
    ck_assert_int_eq(cg_png_encode_rgb(img, 2, 2, 192, NULL, &b), CG_OK);
    ck_assert_uint_lt(b.len, len);
    check_roundtrip(&b, img, 2, 2, 192);
    cg_buf_free(&b);
    ck_assert_ptr_null(b.data);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_uint_eq(b.cap, 0);
    cg_buf_free(&b); /* twice is fine */
    cg_buf_free(NULL);
    free(img);
}
END_TEST

START_TEST(bad_arguments)
{
    uint8_t img[12] = {0};
    cg_buf b = {0};
    cg_png_options o = {1, CG_PNG_FILTER_SUB, -1};
    ck_assert_int_eq(cg_png_encode_rgb(NULL, 2, 2, 6, &o, &b), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encode_rgb(img, 2, 2, 6, &o, NULL), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encode_rgb(img, 0, 2, 6, &o, &b), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encode_rgb(img, 2, -1, 6, &o, &b), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encode_rgb(img, 16385, 1, 16385 * 3, &o, &b), CG_E_TOO_LARGE);
    ck_assert_int_eq(cg_png_encode_rgb(img, 2, 2, 5, &o, &b), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encode_rgb(img, 2, 3, SIZE_MAX / 2, &o, &b), CG_E_OVERFLOW);
    static const cg_png_options bad[] = {{10, -1, -1},        {-2, -1, -1},
                                         {1, 0, -1},          {1, 0x01, -1},
                                         {1, 0x100, -1},      {1, -2, -1},
                                         {1, CG_PNG_FILTER_UP, 5}, {1, -1, -2}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_int_eq(cg_png_encode_rgb(img, 2, 2, 6, &bad[i], &b), CG_E_INVALID_ARG);
    ck_assert_ptr_null(b.data); /* nothing allocated by refused calls */
    ck_assert_int_eq(cg_png_encode_rgb(img, 2, 2, 6, &o, &b), CG_OK); /* still usable */
    check_roundtrip(&b, img, 2, 2, 6);
    cg_buf_free(&b);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("png");
    TCase *core = test_tcase("core");
    tcase_add_loop_test(core, roundtrip, 0,
                        (int)(sizeof sizes / sizeof sizes[0] * sizeof levels / sizeof levels[0] *
                              sizeof filters / sizeof filters[0]));
    tcase_add_test(core, strategies_and_defaults);
    tcase_add_test(core, buffer_reused);
    tcase_set_timeout(core, 60);
    suite_add_tcase(s, core);
    TCase *limits = test_tcase("limits");
    tcase_add_test(limits, bad_arguments);
    suite_add_tcase(s, limits);
    return s;
}
