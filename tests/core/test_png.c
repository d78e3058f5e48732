/*
 * PNG encoder, checked by decoding with libpng's own reader (an independent
 * oracle; the encoder does not use libpng) and comparing pixel for pixel:
 * synthetic edge cases and every frame of bench/corpus (real game frames),
 * through the own deflate encoder, libdeflate and the zlib fallback. The
 * filter choice is read back with zlib's inflate, the CRC checked against
 * published values, Adler-32 against zlib's, the Huffman code builder
 * against hand-worked codes and Huffman's textbook cost.
 */
#include <dirent.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cg_frame.h"
#include "cg_png_internal.h"
#include "check_tcase.h"
#include "ck_main.h"

/* The zlib fallback, opened as the encoder opens it when libdeflate is
 * missing (a libdeflate name that cannot load). */
static cg_deflate_lib *open_zlib_only(void)
{
    cg_deflate_lib *lib = NULL;
    ck_assert_int_eq(cg_deflate_open("libcg-test-no-such-library.so.0", "libz.so.1", &lib), CG_OK);
    ck_assert_int_eq(cg_deflate_lib_kind(lib), CG_DEFLATE_ZLIB);
    return lib;
}

/* backend 0: the process's choice (libdeflate here); 1: zlib. */
static cg_status encode_by(int backend, const uint8_t *rgb, int w, int h, size_t stride,
                           const cg_png_options *o, cg_buf *b)
{
    if (backend == 0) return cg_png_encode_rgb(rgb, w, h, stride, o, b);
    cg_deflate_lib *z = open_zlib_only();
    cg_status st = cg_png_encode_rgb_with(z, rgb, w, h, stride, o, b);
    cg_deflate_close(z);
    return st;
}

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

static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {1, 40}, {6, 7}, {641, 5}, {640, 360},
                               {16384, 2}};
static const int levels[] = {-1, 0, 1, 2, 3, 6, 9};
static const int filters[] = {-1, CG_PNG_FILTER_NONE, CG_PNG_FILTER_SUB, CG_PNG_FILTER_UP,
                              CG_PNG_FILTER_AVG, CG_PNG_FILTER_PAETH, CG_PNG_FILTER_ALL,
                              CG_PNG_FILTER_SUB | CG_PNG_FILTER_PAETH};

/* Loop index: sizes x levels x filters through the process's library
 * (libdeflate), then sizes x filters through the zlib fallback, each with
 * one of the levels in turn. */
START_TEST(roundtrip)
{
    const int nl = (int)(sizeof levels / sizeof levels[0]);
    const int nf = (int)(sizeof filters / sizeof filters[0]);
    const int ns = (int)(sizeof sizes / sizeof sizes[0]);
    const int backend = _i >= ns * nl * nf;
    const int j = backend ? _i - ns * nl * nf : _i;
    const int *sz = backend ? sizes[j / nf] : sizes[j / (nl * nf)];
    cg_png_options o = {levels[backend ? j % nl : j / nf % nl], filters[j % nf], -1, 0};
    size_t stride = (size_t)sz[0] * 3 + (size_t)(_i % 3) * 5; /* some padded */
    uint8_t *img = test_image(sz[0], sz[1], stride, (uint32_t)_i);
    cg_buf b = {0};
    ck_assert_int_eq(encode_by(backend, img, sz[0], sz[1], stride, &o, &b), CG_OK);
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
        cg_png_options o = {1, CG_PNG_FILTER_SUB, st, 0};
        ck_assert_int_eq(cg_png_encode_rgb(img, 33, 21, 99, &o, &b), CG_OK);
        check_roundtrip(&b, img, 33, 21, 99);
    }
    cg_png_options d = cg_png_default_options();
    ck_assert_int_eq(cg_png_encode_rgb(img, 33, 21, 99, &d, &b), CG_OK);
    check_roundtrip(&b, img, 33, 21, 99);
    cg_png_options f = cg_png_fast_options();
    ck_assert_int_eq(cg_png_encode_rgb(img, 33, 21, 99, &f, &b), CG_OK);
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

/* Encoder contexts: frames of changing size and options through one
 * encoder, through two used alternately, and through the one-shot call give
 * the same bytes, and libpng (the oracle) decodes them to the source. */
START_TEST(encoder_contexts_alternate)
{
    static const int fs[][2] = {{640, 360}, {17, 9}, {1, 40}, {641, 5}, {640, 360}, {3, 2}};
    const cg_png_options opts[] = {cg_png_default_options(), cg_png_fast_options(),
                                   {2, CG_PNG_FILTER_ALL, -1, CG_PNG_DEFLATE_OWN},
                                   cg_png_libpng_defaults()};
    cg_png_encoder *one = NULL, *two[2] = {NULL, NULL};
    ck_assert_int_eq(cg_png_encoder_create(0, &one), CG_OK);
    ck_assert_int_eq(cg_png_encoder_create(0, &two[0]), CG_OK);
    ck_assert_int_eq(cg_png_encoder_create(0, &two[1]), CG_OK);
    cg_buf a = {0}, b = {0}, c = {0};
    for (int k = 0; k < 12; k++) {
        const int w = fs[k % 6][0], h = fs[k % 6][1];
        const cg_png_options *o = &opts[k % 4];
        const size_t stride = (size_t)w * 3 + (size_t)(k % 2) * 7;
        uint8_t *img = test_image(w, h, stride, (uint32_t)k + 11);
        ck_assert_int_eq(cg_png_encoder_encode(one, img, w, h, stride, o, &a), CG_OK);
        ck_assert_int_eq(cg_png_encoder_encode(two[k % 2], img, w, h, stride, o, &b), CG_OK);
        ck_assert_int_eq(cg_png_encode_rgb(img, w, h, stride, o, &c), CG_OK);
        check_roundtrip(&a, img, w, h, stride);
        ck_assert_uint_eq(a.len, b.len);
        ck_assert_mem_eq(a.data, b.data, a.len);
        ck_assert_uint_eq(a.len, c.len);
        ck_assert_mem_eq(a.data, c.data, a.len);
        free(img);
    }
    ck_assert_uint_gt(cg_png_encoder_kept(one), 0); /* it kept its work area */
    cg_buf_free(&a);
    cg_buf_free(&b);
    cg_buf_free(&c);
    cg_png_encoder_destroy(one);
    cg_png_encoder_destroy(two[0]);
    cg_png_encoder_destroy(two[1]);
}
END_TEST

START_TEST(encoder_null_and_bad)
{
    cg_png_encoder_destroy(NULL); /* a no-op */
    ck_assert_uint_eq(cg_png_encoder_kept(NULL), 0);
    ck_assert_int_eq(cg_png_encoder_create(0, NULL), CG_E_INVALID_ARG);
    uint8_t px[3] = {1, 2, 3}, *rows = px;
    cg_buf b = {0};
    ck_assert_int_eq(cg_png_encoder_encode(NULL, px, 1, 1, 3, NULL, &b), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encoder_rows(NULL, 3, &rows), CG_E_INVALID_ARG);
    cg_png_encoder *e = NULL;
    ck_assert_int_eq(cg_png_encoder_create(0, &e), CG_OK);
    ck_assert_int_eq(cg_png_encoder_rows(e, 3, NULL), CG_E_INVALID_ARG);
    /* the one-shot call's argument checks, unchanged */
    ck_assert_int_eq(cg_png_encoder_encode(e, NULL, 1, 1, 3, NULL, &b), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encoder_encode(e, px, 0, 1, 3, NULL, &b), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encoder_encode(e, px, 16385, 1, 16385 * 3, NULL, &b), CG_E_TOO_LARGE);
    ck_assert_int_eq(cg_png_encoder_encode(e, px, 1, 1, 3, NULL, &b), CG_OK); /* still usable */
    check_roundtrip(&b, px, 1, 1, 3);
    cg_buf_free(&b);
    cg_png_encoder_destroy(e);
}
END_TEST

/* The cap: a frame whose buffers exceed it is still encoded (CG_OK, the same
 * bytes) in buffers of its own call; the encoder keeps only what fits. */
START_TEST(encoder_cap)
{
    const size_t cap = 1u << 20;
    cg_png_encoder *e = NULL;
    ck_assert_int_eq(cg_png_encoder_create(cap, &e), CG_OK);
    ck_assert_uint_eq(cg_png_encoder_kept(e), 0);
    cg_buf b = {0}, c = {0};
    /* 64x64 fits: its rows (12 KB) and work area are kept */
    uint8_t *rows = NULL;
    ck_assert_int_eq(cg_png_encoder_rows(e, 64 * 64 * 3, &rows), CG_OK);
    uint8_t *small = test_image(64, 64, 64 * 3, 5);
    memcpy(rows, small, 64 * 64 * 3);
    ck_assert_int_eq(cg_png_encoder_encode(e, rows, 64, 64, 64 * 3, NULL, &b), CG_OK);
    check_roundtrip(&b, small, 64, 64, 64 * 3);
    const size_t kept = cg_png_encoder_kept(e);
    ck_assert_uint_ge(kept, 64 * 64 * 3 + 64 * 65 * 3);
    ck_assert_uint_le(kept, 2 * cap);
    /* 1024x1024: 3 MB of rows, more work area: above the cap */
    const int W = 1024, H = 1024;
    uint8_t *big = test_image(W, H, (size_t)W * 3, 9);
    ck_assert_int_eq(cg_png_encoder_rows(e, (size_t)W * H * 3, &rows), CG_OK);
    memcpy(rows, big, (size_t)W * H * 3);
    ck_assert_int_eq(cg_png_encoder_encode(e, rows, W, H, (size_t)W * 3, NULL, &b), CG_OK);
    ck_assert_int_eq(cg_png_encode_rgb(big, W, H, (size_t)W * 3, NULL, &c), CG_OK);
    check_roundtrip(&c, big, W, H, (size_t)W * 3);
    ck_assert_uint_eq(b.len, c.len);
    ck_assert_mem_eq(b.data, c.data, b.len);
    /* the rows above the cap were the call's: the encoder keeps its work area only */
    ck_assert_uint_le(cg_png_encoder_kept(e), cap);
    ck_assert_uint_eq(cg_png_encoder_kept(e), kept - 64 * 64 * 3);
    /* and the small frame still comes out right from the kept area */
    ck_assert_int_eq(cg_png_encoder_encode(e, small, 64, 64, 64 * 3, NULL, &b), CG_OK);
    check_roundtrip(&b, small, 64, 64, 64 * 3);
    cg_png_encoder *d = NULL; /* 0: the default cap, CG_PNG_KEEP_MAX */
    ck_assert_int_eq(cg_png_encoder_create(0, &d), CG_OK);
    ck_assert_int_eq(cg_png_encoder_encode(d, big, W, H, (size_t)W * 3, NULL, &b), CG_OK);
    ck_assert_uint_gt(cg_png_encoder_kept(d), cap); /* 3 MB of work area: under 64 MB */
    ck_assert_uint_le(cg_png_encoder_kept(d), CG_PNG_KEEP_MAX);
    cg_png_encoder_destroy(d);
    cg_buf_free(&b);
    cg_buf_free(&c);
    free(small);
    free(big);
    cg_png_encoder_destroy(e);
}
END_TEST

START_TEST(bad_arguments)
{
    uint8_t img[12] = {0};
    cg_buf b = {0};
    cg_png_options o = {1, CG_PNG_FILTER_SUB, -1, 0};
    ck_assert_int_eq(cg_png_encode_rgb(NULL, 2, 2, 6, &o, &b), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encode_rgb(img, 2, 2, 6, &o, NULL), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encode_rgb(img, 0, 2, 6, &o, &b), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encode_rgb(img, 2, -1, 6, &o, &b), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encode_rgb(img, 16385, 1, 16385 * 3, &o, &b), CG_E_TOO_LARGE);
    ck_assert_int_eq(cg_png_encode_rgb(img, 2, 2, 5, &o, &b), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_png_encode_rgb(img, 2, 3, SIZE_MAX / 2, &o, &b), CG_E_OVERFLOW);
    static const cg_png_options bad[] = {
        {10, -1, -1, 0},    {-2, -1, -1, 0}, {1, 0, -1, 0},  {1, 0x01, -1, 0},
        {1, 0x100, -1, 0},  {1, -2, -1, 0},  {1, CG_PNG_FILTER_UP, 5, 0}, {1, -1, -2, 0},
        {1, -1, -1, 2},     {1, -1, -1, -1}, {0, -1, -1, 1}, {4, -1, -1, 1},
        {-2, -1, -1, 1},    {1, -1, 0, 1},   {1, 0, -1, 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_int_eq(cg_png_encode_rgb(img, 2, 2, 6, &bad[i], &b), CG_E_INVALID_ARG);
    ck_assert_ptr_null(b.data); /* nothing allocated by refused calls */
    ck_assert_int_eq(cg_png_encode_rgb(img, 2, 2, 6, &o, &b), CG_OK); /* still usable */
    check_roundtrip(&b, img, 2, 2, 6);
    cg_buf_free(&b);
}
END_TEST

/* ---- the own deflate encoder ------------------------------------------------------ */

static const int own_levels[] = {-1, 1, 2, 3};

/* kind 0: test_image (half smooth, half noise); 1: every byte equal; 2: noise;
 * 3: runs of 1..5 pixels of a few colours (matches of every length and
 * distance, lazy steps in a row). */
static uint8_t *edge_image(int kind, int w, int h, size_t stride, uint32_t seed)
{
    uint8_t *img = test_image(w, h, stride, seed);
    uint32_t s = seed | 1;
    for (size_t i = 0; kind == 1 || kind == 2 ? i < stride * (size_t)h : 0; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        img[i] = kind == 1 ? 0x5a : (uint8_t)(s >> 7);
    }
    for (int y = 0; kind == 3 && y < h; y++)
        for (int x = 0, left = 0, c = 0; x < w; x++, left--) {
            if (left <= 0) {
                s ^= s << 13, s ^= s >> 17, s ^= s << 5;
                left = 1 + (int)(s % 5);
                c = (int)(s >> 8) % 3;
            }
            for (int k = 0; k < 3; k++) img[(size_t)y * stride + (size_t)x * 3 + (size_t)k] = (uint8_t)(c * 70 + k);
        }
    return img;
}

/* Loop index: image kind x size x own level, the filter set rotating with
 * the index (every set meets every kind); decoded by libpng. */
START_TEST(roundtrip_own)
{
    const int nl = (int)(sizeof own_levels / sizeof own_levels[0]);
    const int nf = (int)(sizeof filters / sizeof filters[0]);
    const int ns = (int)(sizeof sizes / sizeof sizes[0]);
    const int kind = _i / (ns * nl), j = _i % (ns * nl);
    const int *sz = sizes[j / nl];
    cg_png_options o = {own_levels[j % nl], filters[(_i + _i / nf) % nf], -1, CG_PNG_DEFLATE_OWN};
    size_t stride = (size_t)sz[0] * 3 + (size_t)(_i % 3) * 5;
    uint8_t *img = edge_image(kind, sz[0], sz[1], stride, (uint32_t)_i);
    cg_buf b = {0};
    ck_assert_int_eq(cg_png_encode_rgb(img, sz[0], sz[1], stride, &o, &b), CG_OK);
    check_roundtrip(&b, img, sz[0], sz[1], stride);
    cg_buf_free(&b);
    free(img);
}
END_TEST

/* The zlib stream alone, inflated by zlib: noise must fall back to stored
 * blocks within the bound, runs must shrink, bad shapes are refused. */
START_TEST(own_stream)
{
    enum { ROW = 1 + 3 * 700, ROWS = 120, N = ROW * ROWS };
    uint8_t *in = calloc(1, N + CG_ZD_SLACK), *back = malloc(N);
    const size_t cap = cg_zd_bound(N);
    uint8_t *z = malloc(cap);
    ck_assert(in && back && z);
    for (int kind = 0; kind < 3; kind++) {
        uint32_t s = 99;
        for (size_t i = 0; i < N; i++) {
            s ^= s << 13, s ^= s >> 17, s ^= s << 5;
            in[i] = kind == 0 ? (uint8_t)s : kind == 1 ? 0 : (uint8_t)((i % ROW) / 40);
        }
        for (int level = CG_PNG_OWN_LEVEL_MIN; level <= CG_PNG_OWN_LEVEL_MAX; level++) {
            size_t zlen = 0;
            ck_assert_int_eq(cg_zd_compress(level, in, N, ROW, z, cap, &zlen), CG_OK);
            ck_assert_uint_le(zlen, cap);
            if (kind == 0) ck_assert_uint_gt(zlen, N);     /* noise: stored, not shrunk */
            if (kind == 1) ck_assert_uint_lt(zlen, N / 100); /* zeros: long matches */
            ck_assert_uint_eq((z[0] * 256u + z[1]) % 31, 0); /* RFC 1950 FCHECK */
            uLongf got = N;
            ck_assert_int_eq(uncompress(back, &got, z, (uLong)zlen), Z_OK);
            ck_assert_uint_eq(got, N);
            ck_assert_mem_eq(back, in, N);
        }
    }
    size_t zlen = 0;
    ck_assert_int_eq(cg_zd_compress(1, in, N, ROW, z, cap - 1, &zlen), CG_E_BUFFER_TOO_SMALL);
    ck_assert_int_eq(cg_zd_compress(1, in, N - 1, ROW, z, cap, &zlen), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_zd_compress(1, in, 6, 3, z, cap, &zlen), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_zd_compress(1, in, 6, 6, z, cap, &zlen), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_zd_compress(1, NULL, 4, 4, z, cap, &zlen), CG_E_INVALID_ARG);
    free(in);
    free(back);
    free(z);
}
END_TEST

/* Far and aliased candidates: a 90-byte random texture T in zero rows, at
 * A, again 20,000 bytes on (within deflate's 32K window: the table must
 * find it at every level, level 1's probe after the zero run included, so
 * adding that copy adds fewer than T / 2 bytes, where its literals would
 * add about T), and once more 65,536 + a few bytes after A, where a position
 * kept as its low 16 bits reads as a near one: only a compare of the bytes
 * keeps that from becoming a wrong match. zlib inflates every stream. */
START_TEST(own_stream_far)
{
    enum { ROW = 1 + 3 * 700, ROWS = 40, N = ROW * ROWS, T = 90, A = 2 * ROW + 1 + 90 };
    uint8_t *in = calloc(1, N + CG_ZD_SLACK), *back = malloc(N);
    const size_t cap = cg_zd_bound(N);
    uint8_t *z = malloc(cap);
    ck_assert(in && back && z);
    uint32_t s = 7;
    for (size_t i = 0; i < T; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        in[A + i] = (uint8_t)(s | 1); /* never a run of zeros */
    }
    /* a pixel start (offset within its row 1 mod 3) with T bytes of room */
    size_t at[2] = {A + 20000, A + 65536};
    for (int k = 0; k < 2; k++) {
        while ((at[k] % ROW) % 3 != 1 || at[k] % ROW + T > ROW) at[k]++;
        ck_assert_uint_lt(at[k] - A - (k ? 65536 : 20000), 3 * ROW);
    }
    size_t zlen[2][CG_PNG_OWN_LEVEL_MAX + 1] = {{0}};
    for (int with_near = 0; with_near < 2; with_near++) { /* the far copy; then both */
        memcpy(in + at[1 - with_near], in + A, T);
        for (int level = CG_PNG_OWN_LEVEL_MIN; level <= CG_PNG_OWN_LEVEL_MAX; level++) {
            size_t *zl = &zlen[with_near][level];
            ck_assert_int_eq(cg_zd_compress(level, in, N, ROW, z, cap, zl), CG_OK);
            uLongf got = N;
            ck_assert_int_eq(uncompress(back, &got, z, (uLong)*zl), Z_OK);
            ck_assert_uint_eq(got, N);
            ck_assert_mem_eq(back, in, N);
            if (with_near) ck_assert_uint_lt(*zl, zlen[0][level] + T / 2);
        }
    }
    free(in);
    free(back);
    free(z);
}
END_TEST

/* z (len bytes) inflates, by zlib, to exactly the n bytes want. */
static void check_inflates(const uint8_t *z, size_t len, const uint8_t *want, size_t n)
{
    uint8_t *back = malloc(n + 1);
    ck_assert_ptr_nonnull(back);
    uLongf got = (uLongf)n + 1;
    ck_assert_int_eq(uncompress(back, &got, z, (uLong)len), Z_OK);
    ck_assert_uint_eq(got, n);
    ck_assert_mem_eq(back, want, n);
    free(back);
}

/* The AVX2 + BMI2 path's stream against the portable one's (za, la): the
 * same bytes at levels 2 and 3; at level 1, where that path codes literals
 * 32 bytes at a time with a code of its own shape (nibble_lengths), one that
 * zlib inflates to the input. */
static void check_second_path(int level, const uint8_t *za, size_t la, const uint8_t *zb,
                              size_t lb, const uint8_t *in, size_t n)
{
    if (level == 1) {
        check_inflates(zb, lb, in, n);
    } else {
        ck_assert_uint_eq(lb, la);
        ck_assert_mem_eq(zb, za, la);
    }
}

/* in[0, n) (rows of row bytes) through the own deflate at level on both
 * paths: zlib inflates the portable path's stream, check_second_path takes
 * the other's; a CPU without the second path must have it refused. Returns
 * the portable path's length. */
static size_t check_both_paths(int level, const uint8_t *in, size_t n, size_t row, uint8_t *za,
                               uint8_t *zb, size_t cap)
{
    const size_t wl = cg_zd_work_size(level, row);
    void *work = malloc(wl);
    ck_assert_ptr_nonnull(work);
    size_t la = 0, lb = 0;
    ck_assert_int_eq(
        cg_zd_compress_in_path(CG_ZD_PATH_PORTABLE, work, wl, level, in, n, row, za, cap, &la),
        CG_OK);
    check_inflates(za, la, in, n);
    const cg_status sb =
        cg_zd_compress_in_path(CG_ZD_PATH_AVX2_BMI2, work, wl, level, in, n, row, zb, cap, &lb);
    if (sb == CG_E_UNSUPPORTED) {
#if defined(__x86_64__) && defined(__GNUC__)
        ck_assert(!cg_simd_available(CG_SIMD_AVX2) || !__builtin_cpu_supports("bmi2"));
#endif
    } else {
        ck_assert_int_eq(sb, CG_OK);
        check_second_path(level, za, la, zb, lb, in, n);
    }
    free(work);
    return la;
}

/* Bands of rows that move level 1 in and out of its table search on flat
 * rows: zero rows (flat, the table finds nothing beyond the runs: it stops
 * searching for a while), rows of zeros with 3-pixel motifs at shifting
 * places, each after a pixel of its own (flat, and the motifs recur at
 * distances neither the left nor the upper pixel gives), two rows of noise,
 * and again. zlib inflates every stream of every level to the rows, and the
 * two code paths write the same bytes (level 1: see check_second_path). With
 * recurring motifs (8 kinds) level 1 writes fewer than 7/8 of the bytes it
 * writes with a new random motif at each place (0.81 with the search on
 * flat rows, 0.95 without). */
START_TEST(own_stream_bands)
{
    enum { ROW = 1 + 3 * 600, ROWS = 160, N = ROW * ROWS, MOTIFS = 8 };
    uint8_t *in = calloc(1, N + CG_ZD_SLACK), *back = malloc(N);
    const size_t cap = cg_zd_bound(N);
    uint8_t *za = malloc(cap), *zb = malloc(cap);
    ck_assert(in && back && za && zb);
    size_t level1[2] = {0, 0};
    for (int unique = 0; unique < 2; unique++) {
        uint32_t s = 12345;
        uint8_t motif[MOTIFS][9];
        for (int m = 0; m < MOTIFS; m++)
            for (int k = 0; k < 9; k++) {
                s ^= s << 13, s ^= s >> 17, s ^= s << 5;
                motif[m][k] = (uint8_t)(s | 1);
            }
        memset(in, 0, N);
        for (int y = 0; y < ROWS; y++) {
            uint8_t *r = in + (size_t)y * ROW + 1;
            /* zero, motifs, two rows of noise (then zeros), motifs */
            const int band = (y / 20) % 4 == 2 && y % 20 >= 2 ? 0 : (y / 20) % 4;
            for (int x = 0; band != 0 && x + 2 <= (ROW - 1) / 3; x++) {
                s ^= s << 13, s ^= s >> 17, s ^= s << 5;
                if (band == 2) {
                    memcpy(r + 3 * x, &s, 3);
                } else if ((x + 7 * y) % 29 == 0 && x + 4 <= (ROW - 1) / 3) {
                    /* a pixel of its own, then the motif: level 1 probes
                     * its table after matches only, so it finds these
                     * with the search on flat rows alone */
                    memcpy(r + 3 * x, &s, 3);
                    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
                    if (unique)
                        for (int k = 0; k < 9; k++) r[3 * x + 3 + k] = (uint8_t)((s >> k) | 1);
                    else
                        memcpy(r + 3 * x + 3, motif[s % MOTIFS], 9);
                    x += 3;
                }
            }
        }
        for (int level = CG_PNG_OWN_LEVEL_MIN; level <= CG_PNG_OWN_LEVEL_MAX; level++) {
            const size_t wl = cg_zd_work_size(level, ROW);
            void *work = malloc(wl);
            ck_assert_ptr_nonnull(work);
            size_t la = 0, lb = 0;
            ck_assert_int_eq(cg_zd_compress_in_path(CG_ZD_PATH_PORTABLE, work, wl, level, in, N,
                                                    ROW, za, cap, &la),
                             CG_OK);
            uLongf got = N;
            ck_assert_int_eq(uncompress(back, &got, za, (uLong)la), Z_OK);
            ck_assert_uint_eq(got, N);
            ck_assert_mem_eq(back, in, N);
            const cg_status sb = cg_zd_compress_in_path(CG_ZD_PATH_AVX2_BMI2, work, wl, level, in,
                                                        N, ROW, zb, cap, &lb);
            if (sb != CG_E_UNSUPPORTED) { /* own_paths_agree checks the refusal */
                ck_assert_int_eq(sb, CG_OK);
                check_second_path(level, za, la, zb, lb, in, N);
            }
            if (level == 1) level1[unique] = la;
            free(work);
        }
    }
    ck_assert_msg(8 * level1[0] < 7 * level1[1],
                  "level 1: %zu bytes with recurring motifs, %zu with unique ones", level1[0],
                  level1[1]);
    free(in);
    free(back);
    free(za);
    free(zb);
}
END_TEST

/* Level 1's checks of 17 and 6 pixels (the AVX2 + BMI2 path) against the
 * per-pixel loop (the portable path): rows of noise with runs of 2 to 7
 * equal pixels and copies of 2 to 7 pixels of the row above (matches of 1
 * to 6 pixels: under and over the five it takes), starting at every place
 * of the checks and near the row's end, in rows of 1 to 40 pixels and of
 * 601. zlib inflates both paths' streams to the rows (a literal run cut
 * wrong fails it). */
START_TEST(own_paths_short_matches)
{
    enum { ROWS = 24, MAXW = 601 };
    const size_t nmax = (1 + 3 * (size_t)MAXW) * ROWS;
    uint8_t *in = malloc(nmax + CG_ZD_SLACK), *back = malloc(nmax);
    const size_t cap = cg_zd_bound(nmax);
    uint8_t *za = malloc(cap), *zb = malloc(cap);
    ck_assert(in && back && za && zb);
    uint32_t s = 777;
    for (int w = 1; w <= MAXW; w = w < 40 ? w + 1 : MAXW) {
        const size_t row = 1 + 3 * (size_t)w, n = row * ROWS;
        memset(in, 0, nmax + CG_ZD_SLACK);
        for (int y = 0; y < ROWS; y++) {
            uint8_t *r = in + (size_t)y * row;
            r[0] = 1;
            for (int x = 0; x < w; x++) {
                s ^= s << 13, s ^= s >> 17, s ^= s << 5;
                memcpy(r + 1 + 3 * x, &s, 3);
            }
            /* a run or a copy every 5 to 11 pixels, 2 to 7 pixels long */
            for (int x = (y * 3) % 8; x + 1 < w; x += 5 + (x + y) % 7) {
                const int len = 2 + (x + y) % 6, kind = (x / 5 + y) % 2;
                for (int k = 1; k < len && x + k < w; k++) {
                    uint8_t *px = r + 1 + 3 * (x + k);
                    memcpy(px, kind == 0 || y == 0 ? px - 3 : px - row, 3);
                }
            }
        }
        const size_t wl = cg_zd_work_size(1, row);
        void *work = malloc(wl);
        ck_assert_ptr_nonnull(work);
        size_t la = 0, lb = 0;
        ck_assert_int_eq(
            cg_zd_compress_in_path(CG_ZD_PATH_PORTABLE, work, wl, 1, in, n, row, za, cap, &la),
            CG_OK);
        uLongf got = (uLongf)n;
        ck_assert_int_eq(uncompress(back, &got, za, (uLong)la), Z_OK);
        ck_assert_uint_eq(got, n);
        ck_assert_mem_eq(back, in, n);
        const cg_status sb =
            cg_zd_compress_in_path(CG_ZD_PATH_AVX2_BMI2, work, wl, 1, in, n, row, zb, cap, &lb);
        if (sb != CG_E_UNSUPPORTED) { /* own_paths_agree checks the refusal */
            ck_assert_int_eq(sb, CG_OK);
            check_second_path(1, za, la, zb, lb, in, n);
        }
        free(work);
        if (w == MAXW) break;
    }
    free(in);
    free(back);
    free(za);
    free(zb);
}
END_TEST

/* Long matches, compared 32 bytes at a time on the AVX2 + BMI2 path:
 * runs of one pixel and copies of the row above, 1 to 100 pixels long,
 * that end at every byte of a pixel and every place of a 32-byte step,
 * up to the row's end in the last row (the input ends there, plus
 * CG_ZD_SLACK: a compare that reads past the row shows in ASan). Every
 * level, both paths: zlib inflates each stream to the rows, and levels 2
 * and 3 write the same bytes on both paths (exact lengths). */
START_TEST(own_long_matches)
{
    enum { W = 300, ROWS = 48, ROW = 1 + 3 * W, N = ROW * ROWS };
    uint8_t *in = malloc(N + CG_ZD_SLACK);
    const size_t cap = cg_zd_bound(N);
    uint8_t *za = malloc(cap), *zb = malloc(cap);
    ck_assert(in && za && zb);
    memset(in, 0, N + CG_ZD_SLACK);
    uint32_t s = 99;
    for (int y = 0; y < ROWS; y++) {
        uint8_t *r = in + (size_t)y * ROW;
        r[0] = 1;
        for (int i = 1; i < ROW; i++) {
            s ^= s << 13, s ^= s >> 17, s ^= s << 5;
            r[i] = (uint8_t)s;
        }
        /* spans of 1 to 100 pixels, alternately runs and copies of the
         * row above; the pixel after a span continues it but for one byte,
         * the first, second or third (the match ends inside that pixel);
         * the last span of the row runs to its end */
        for (int x = y % 5, k = 0; x < W; k++) {
            const int len = 1 + (y * 7 + k * 13) % 100, copy = (k + y) % 2 && y > 0;
            for (int j = 1; j <= len + 1 && x + j < W; j++) {
                uint8_t *px = r + 1 + 3 * (x + j);
                memcpy(px, copy ? px - ROW : px - 3, 3);
            }
            const int end = x + len + 1; /* the pixel after the span */
            if (end < W) r[1 + 3 * end + (y + k) % 3] ^= 0x5a;
            x = end + 1 + (k % 3);
        }
    }
    for (int level = CG_PNG_OWN_LEVEL_MIN; level <= CG_PNG_OWN_LEVEL_MAX; level++)
        check_both_paths(level, in, N, ROW, za, zb, cap);
    free(in);
    free(za);
    free(zb);
}
END_TEST

/* Level 1's literal runs on the AVX2 + BMI2 path (put_run, nibble_lengths),
 * forced, against zlib's inflate, in rows of 1 to 70 pixels and of 601
 * (runs ending at every place of a 32-byte step, the last at the input's
 * end): every byte value in turn (each step mixes the 32 bytes of short
 * codes and the groups' bytes, whose low nibbles carry into the code's
 * top); zeros with rare bytes of 1-15 and 240-255 in stretches of eight
 * (8-bit codes, eight of them: 64 bits in one lane); noise of every value
 * (codes of up to 12 bits; the block comes out larger than stored blocks
 * and is replaced by them: the stream stays within stored size). */
START_TEST(own_fast_runs)
{
    enum { ROWS = 40, MAXW = 601 };
    const size_t nmax = (1 + 3 * (size_t)MAXW) * ROWS;
    uint8_t *in = malloc(nmax + CG_ZD_SLACK);
    const size_t cap = cg_zd_bound(nmax);
    uint8_t *z = malloc(cap);
    ck_assert(in && z);
    const size_t wl = cg_zd_work_size(1, 1 + 3 * (size_t)MAXW);
    void *work = malloc(wl);
    ck_assert_ptr_nonnull(work);
    for (int kind = 0; kind < 3; kind++) {
        uint32_t s = 4242;
        for (int w = 1; w <= MAXW; w = w < 70 ? w + 1 : MAXW) {
            const size_t row = 1 + 3 * (size_t)w, n = row * ROWS;
            memset(in, 0, nmax + CG_ZD_SLACK);
            for (size_t i = 0; i < n; i++) {
                s ^= s << 13, s ^= s >> 17, s ^= s << 5;
                if (i % row == 0)
                    in[i] = 1; /* SUB */
                else if (kind == 0)
                    in[i] = (uint8_t)(i * 7 + i / 97);
                else if (kind == 1)
                    in[i] = (i / 8) % 5 == 0 ? (uint8_t)(s % 2 ? 1 + s % 15 : 240 + s % 16)
                                             : (i % 3 == 0 ? (uint8_t)(s % 3) : 0);
                else
                    in[i] = (uint8_t)s;
            }
            size_t len = 0;
            const cg_status st =
                cg_zd_compress_in_path(CG_ZD_PATH_AVX2_BMI2, work, wl, 1, in, n, row, z, cap, &len);
            if (st == CG_E_UNSUPPORTED) goto done; /* own_paths_agree checks the refusal */
            ck_assert_int_eq(st, CG_OK);
            check_inflates(z, len, in, n);
            if (kind == 2) /* header, stored blocks (5 bytes each), Adler-32 */
                ck_assert_uint_le(len, 2 + n + 5 * (n / 65535 + 1) + 4);
            if (w == MAXW) break;
        }
    }
done:
    free(work);
    free(in);
    free(z);
}
END_TEST

/* Adler-32 against zlib's adler32 (the oracle): lengths around the SIMD
 * step and the modulo span, every start offset, continuation. */
START_TEST(adler32_values)
{
    ck_assert_uint_eq(cg_adler32(1, (const uint8_t *)"Wikipedia", 9), 0x11E60398u);
    enum { N = 3 * 5552 + 100 };
    uint8_t *buf = malloc(N);
    ck_assert_ptr_nonnull(buf);
    for (int fill = 0; fill < 2; fill++) {
        uint32_t s = 7;
        for (size_t i = 0; i < N; i++) {
            s ^= s << 13, s ^= s >> 17, s ^= s << 5;
            buf[i] = fill ? 0xff : (uint8_t)s; /* 0xff: the largest sums */
        }
        static const size_t lens[] = {0, 1, 31, 32, 33, 63, 64, 65, 5551, 5552, 5553, 5600,
                                      11104, 11200, N - 40};
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
            for (size_t off = 0; off < 40; off += 13) {
                uint32_t want = (uint32_t)adler32(1, buf + off, (uInt)lens[k]);
                ck_assert_uint_eq(cg_adler32(1, buf + off, lens[k]), want);
                ck_assert_uint_eq(cg_adler32_scalar(1, buf + off, lens[k]), want);
                uint32_t half = cg_adler32(1, buf + off, lens[k] / 2);
                ck_assert_uint_eq(cg_adler32(half, buf + off + lens[k] / 2, lens[k] - lens[k] / 2),
                                  want);
            }
    }
    free(buf);
}
END_TEST

/* Kraft's sum of the lengths in units of 2^-max_bits. */
static uint32_t kraft(const uint8_t *len, int n, int max_bits)
{
    uint32_t k = 0;
    for (int s = 0; s < n; s++)
        if (len[s]) k += 1u << (max_bits - len[s]);
    return k;
}

/* Huffman's cost (sum of count x length) by the textbook method: merge the
 * two smallest weights until one is left, adding each merged weight. */
static uint64_t huffman_cost(const uint32_t *freq, int n)
{
    uint64_t w[300];
    int m = 0;
    for (int s = 0; s < n; s++)
        if (freq[s]) w[m++] = freq[s];
    uint64_t cost = 0;
    while (m > 1) {
        for (int r = 0; r < 2; r++) { /* the two smallest to the end */
            int lo = 0;
            for (int i = 1; i < m - r; i++)
                if (w[i] < w[lo]) lo = i;
            uint64_t t = w[lo];
            w[lo] = w[m - r - 1];
            w[m - r - 1] = t;
        }
        w[m - 2] += w[m - 1];
        cost += w[m - 2];
        m--;
    }
    return cost;
}

START_TEST(huffman_lengths)
{
    uint8_t len[286];
    /* by hand: counts 1 1 2 4 -> lengths 3 3 2 1; four equal -> 2 each */
    static const uint32_t a[4] = {1, 1, 2, 4}, b[4] = {5, 5, 5, 5};
    cg_zd_huff_lengths(a, 4, 15, len);
    ck_assert_int_eq(len[0], 3);
    ck_assert_int_eq(len[1], 3);
    ck_assert_int_eq(len[2], 2);
    ck_assert_int_eq(len[3], 1);
    cg_zd_huff_lengths(b, 4, 15, len);
    for (int s = 0; s < 4; s++) ck_assert_int_eq(len[s], 2);
    /* one symbol used, or none: two codes of one bit, still complete */
    static const uint32_t one[5] = {0, 0, 9, 0, 0}, none[5] = {0};
    cg_zd_huff_lengths(one, 5, 15, len);
    ck_assert_int_eq(len[2], 1);
    ck_assert_uint_eq(kraft(len, 5, 15), 1u << 15);
    cg_zd_huff_lengths(none, 5, 15, len);
    ck_assert_uint_eq(kraft(len, 5, 15), 1u << 15);
    /* Fibonacci counts: an unlimited code would be 39 deep; limited to 15
     * (and 7, as code-length codes are) with Kraft's sum exactly 1 */
    uint32_t fib[286] = {0};
    fib[0] = fib[1] = 1;
    for (int s = 2; s < 40; s++) fib[s] = fib[s - 1] + fib[s - 2];
    for (int lim = 7; lim <= 15; lim += 8) {
        int n = lim == 7 ? 19 : 286;
        cg_zd_huff_lengths(fib, n, lim, len);
        for (int s = 0; s < n; s++) {
            ck_assert_int_le(len[s], lim);
            ck_assert_int_eq(len[s] > 0, fib[s] > 0);
        }
        ck_assert_uint_eq(kraft(len, n, lim), 1u << lim);
    }
    /* random counts where the limit does not bite: exactly Huffman's cost */
    uint32_t s = 5;
    for (int round = 0; round < 200; round++) {
        uint32_t f[286] = {0};
        int n = 2 + round % 285;
        for (int i = 0; i < n; i++) {
            s ^= s << 13, s ^= s >> 17, s ^= s << 5;
            f[i] = (s % 3 == 0) ? 0 : 1 + (s >> 8) % 1000;
        }
        cg_zd_huff_lengths(f, n, 15, len);
        uint64_t cost = 0;
        int used = 0;
        for (int i = 0; i < n; i++) {
            cost += (uint64_t)f[i] * len[i];
            used += f[i] > 0;
        }
        ck_assert_uint_eq(kraft(len, n, 15), 1u << 15);
        if (used >= 2) ck_assert_uint_eq(cost, huffman_cost(f, n));
    }
}
END_TEST

/* ---- the corpus: real game frames (bench/corpus) ---------------------------------- */

enum { MAX_FRAMES = 64 };
static char corpus_names[MAX_FRAMES][1024];
static int corpus_count;

static int by_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

static void corpus_scan(void)
{
    DIR *d = opendir(CG_TEST_CORPUS);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL && corpus_count < MAX_FRAMES) {
        size_t len = strlen(e->d_name);
        if (len > 4 && len < 200 && strcmp(e->d_name + len - 4, ".png") == 0)
            snprintf(corpus_names[corpus_count++], sizeof corpus_names[0], "%.600s/%.200s",
                     CG_TEST_CORPUS, e->d_name);
    }
    if (d != NULL) closedir(d);
    /* readdir's order is the file system's: sorted, every shard process
     * (make_suite) sees the same frame at the same index. */
    qsort(corpus_names, (size_t)corpus_count, sizeof corpus_names[0], by_name);
}

/* libpng decodes the stored frame: these RGB bytes are the RAW input. */
static uint8_t *load_frame(const char *path, int *w, int *h)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    ck_assert_msg(png_image_begin_read_from_file(&im, path) != 0, "cannot read %s", path);
    im.format = PNG_FORMAT_RGB;
    uint8_t *rgb = malloc(PNG_IMAGE_SIZE(im));
    ck_assert_ptr_nonnull(rgb);
    ck_assert_int_ne(png_image_finish_read(&im, NULL, rgb, 0, NULL), 0);
    *w = (int)im.width;
    *h = (int)im.height;
    return rgb;
}

/* Every level class, every filter alone and in sets, every zlib strategy. */
static const cg_png_options corpus_opts[] = {
    {-1, -1, -1, 0},
    {0, CG_PNG_FILTER_NONE, -1, 0},
    {1, CG_PNG_FILTER_SUB, -1, 0},
    {2, CG_PNG_FILTER_UP, -1, 0},
    {3, CG_PNG_FILTER_AVG, -1, 0},
    {4, CG_PNG_FILTER_PAETH, -1, 0},
    {5, CG_PNG_FILTER_SUB | CG_PNG_FILTER_UP, -1, 0},
    {1, CG_PNG_FILTER_SUB | CG_PNG_FILTER_UP | CG_PNG_FILTER_PAETH, -1, 0},
    {9, CG_PNG_FILTER_ALL, -1, 0},
    {1, CG_PNG_FILTER_ALL, 0, 0},
    {6, CG_PNG_FILTER_AVG | CG_PNG_FILTER_PAETH, 1, 0},
    {2, CG_PNG_FILTER_UP, 2, 0},
    {1, CG_PNG_FILTER_PAETH, 3, 0},
    {3, CG_PNG_FILTER_ALL, 4, 0},
    {-1, CG_PNG_FILTER_SUB, -1, 1},
    {1, CG_PNG_FILTER_NONE, -1, 1},
    {1, CG_PNG_FILTER_SUB, -1, 1},
    {2, CG_PNG_FILTER_UP, -1, 1},
    {2, CG_PNG_FILTER_AVG, -1, 1},
    {3, CG_PNG_FILTER_PAETH, -1, 1},
    {3, CG_PNG_FILTER_ALL, -1, 1},
};
enum { N_CORPUS_OPTS = (int)(sizeof corpus_opts / sizeof corpus_opts[0]) };

/* The corpus cases' count (corpus_0 ...; tests/core/CMakeLists.txt runs
 * each as its own ctest). */
#ifndef CG_TEST_CORPUS_SHARDS
#define CG_TEST_CORPUS_SHARDS 1
#endif

/* Loop index: frame. Each frame: the default, the fast setting and
 * corpus_opts, then levels 5 and 1 through the zlib fallback. */
/* Under an emulator (cross builds) every CORPUS_STEP-th frame: the encoder's
 * other-architecture paths on real frames in seconds, not minutes; the
 * native and sanitizer runs check every frame. */
#ifndef CG_TEST_CORPUS_STEP
#define CG_TEST_CORPUS_STEP 1
#endif

START_TEST(corpus_frames)
{
    int w, h;
    uint8_t *rgb = load_frame(corpus_names[_i * CG_TEST_CORPUS_STEP], &w, &h);
    const size_t stride = (size_t)w * 3;
    cg_buf b = {0};
    cg_png_options opts[N_CORPUS_OPTS + 2];
    opts[0] = cg_png_default_options();
    opts[1] = cg_png_fast_options();
    memcpy(opts + 2, corpus_opts, sizeof corpus_opts);
    for (int k = 0; k < N_CORPUS_OPTS + 2; k++) {
        ck_assert_int_eq(cg_png_encode_rgb(rgb, w, h, stride, &opts[k], &b), CG_OK);
        check_roundtrip(&b, rgb, w, h, stride);
    }
    static const cg_png_options via_zlib[2] = {{5, CG_PNG_FILTER_SUB, -1, 0},
                                               {1, CG_PNG_FILTER_SUB, -1, 0}};
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(encode_by(1, rgb, w, h, stride, &via_zlib[k], &b), CG_OK);
        check_roundtrip(&b, rgb, w, h, stride);
    }
    cg_buf_free(&b);
    free(rgb);
}
END_TEST

/* The own deflate's two code paths (any CPU; AVX2 + BMI2) on a corpus
 * frame's SUB-filtered rows at every level: zlib inflates each stream to
 * the rows, and both paths write the same bytes at levels 2 and 3 (level
 * 1: check_second_path). Where the CPU lacks the second path it must be
 * refused, and the portable one is still checked. */
START_TEST(own_paths_agree)
{
    int w, h;
    uint8_t *rgb = load_frame(corpus_names[_i * CG_TEST_CORPUS_STEP], &w, &h);
    const size_t row = 1 + (size_t)w * 3, n = row * (size_t)h;
    uint8_t *f = calloc(1, n + CG_ZD_SLACK), *zero = calloc(1, row);
    const size_t cap = cg_zd_bound(n);
    uint8_t *za = malloc(cap), *zb = malloc(cap);
    ck_assert(f && zero && za && zb);
    for (int y = 0; y < h; y++)
        cg_png_filter_row_scalar(rgb + (size_t)y * (row - 1),
                                 y ? rgb + (size_t)(y - 1) * (row - 1) : zero, row - 1,
                                 CG_PNG_FILTER_SUB, f + (size_t)y * row);
    for (int level = CG_PNG_OWN_LEVEL_MIN; level <= CG_PNG_OWN_LEVEL_MAX; level++)
        check_both_paths(level, f, n, row, za, zb, cap);
    free(f);
    free(zero);
    free(za);
    free(zb);
    free(rgb);
}
END_TEST

/* libpng's bytes for rgb with its defaults (zlib level 6, adaptive filters:
 * the limit bench_core measures against). */
static size_t libpng_len(const uint8_t *rgb, int w, int h)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    im.width = (png_uint_32)w;
    im.height = (png_uint_32)h;
    im.format = PNG_FORMAT_RGB;
    png_alloc_size_t len = 0;
    ck_assert_int_ne(png_image_write_get_memory_size(im, len, 0, rgb, 0, NULL), 0);
    return (size_t)len;
}

/* The fast setting's size against libpng's, frame by frame: at most 1.5x.
 * Its worst frames are flat ones (bench/corpus/desert_*), where matching
 * only the pixel to the left and the one above gave 1.8-2x, and the sand at
 * 320x180 gave 1.57-1.62x (COVER_NUM in cg_png_zdeflate.c). Each frame also
 * scaled down as the resize's default (nearest pixel) does to sizes RL
 * observations have: a frame of one deflate block came out as stored blocks
 * there (up to 2.6x at 64x64), and sand scaled to 160-256 pixels wide came
 * out at 1.50-1.71x before the small rows' rules (SMALL_ROW). */
START_TEST(fast_size_bound)
{
    int w, h;
    const char *name = corpus_names[_i * CG_TEST_CORPUS_STEP];
    uint8_t *rgb = load_frame(name, &w, &h);
    /* 0: its own; then observation sizes the resize makes from it */
    static const int dims[][2] = {{0, 0}, {256, 144}, {192, 108}, {160, 90}, {128, 128}, {64, 64}};
    uint8_t *small = malloc(256 * 144 * 3);
    ck_assert_ptr_nonnull(small);
    cg_buf b = {0};
    const cg_png_options fast = cg_png_fast_options();
    for (size_t z = 0; z < sizeof dims / sizeof dims[0]; z++) {
        const int sw = dims[z][0] ? dims[z][0] : w, sh = dims[z][1] ? dims[z][1] : h;
        const uint8_t *px = rgb;
        if (dims[z][0]) {
            /* as cg_convert's nearest filter samples the bottom-up frame:
             * bottom-up row y from row y * h / sh */
            for (int y = 0; y < sh; y++)
                for (int x = 0; x < sw; x++)
                    memcpy(small + ((size_t)(sh - 1 - y) * sw + x) * 3,
                           rgb + ((size_t)(h - 1 - y * h / sh) * w + (size_t)x * w / sw) * 3, 3);
            px = small;
        }
        ck_assert_int_eq(cg_png_encode_rgb(px, sw, sh, (size_t)sw * 3, &fast, &b), CG_OK);
        check_roundtrip(&b, px, sw, sh, (size_t)sw * 3);
        const size_t lib_len = libpng_len(px, sw, sh);
        ck_assert_msg(2 * b.len <= 3 * lib_len,
                      "%s at %dx%d: the fast setting wrote %zu bytes, libpng %zu (%.3fx; at most "
                      "1.5x)",
                      name, sw, sh, b.len, lib_len, (double)b.len / (double)lib_len);
    }
    cg_buf_free(&b);
    free(small);
    free(rgb);
}
END_TEST

START_TEST(corpus_present)
{
    /* The corpus is part of the repository: an empty scan is a broken path. */
    ck_assert_int_ge(corpus_count, 12);
}
END_TEST

/* ---- filters ----------------------------------------------------------------------- */

/* Inflate the IDAT of b (one IDAT, as the encoder writes) with zlib. */
static uint8_t *inflate_idat(const cg_buf *b, size_t raw_len)
{
    ck_assert_mem_eq(b->data + 33 + 4, "IDAT", 4);
    size_t zlen = (size_t)b->data[33] << 24 | (size_t)b->data[34] << 16 |
                  (size_t)b->data[35] << 8 | b->data[36];
    uint8_t *raw = malloc(raw_len);
    ck_assert_ptr_nonnull(raw);
    uLongf got = (uLongf)raw_len;
    ck_assert_int_eq(uncompress(raw, &got, b->data + 41, (uLong)zlen), Z_OK);
    ck_assert_uint_eq(got, raw_len);
    return raw;
}

/* Rows built so that one filter's residuals are all zero; with all filters
 * allowed the heuristic must pick it (ties: the lowest type number). */
START_TEST(filter_choice)
{
    enum { W = 37, H = 6 };
    uint8_t img[H][W * 3];
    for (int x = 0; x < W * 3; x++) {
        img[0][x] = 0;                          /* zeros: None (type 0) */
        img[1][x] = (uint8_t)(x / 3 * 7 + 100);  /* left neighbour + 7: Sub's residual is 7 */
        img[2][x] = img[1][x];                   /* the row above: Up */
        img[3][x] = (uint8_t)((x * 37) ^ 0x5a); /* noise, then */
        img[4][x] = (uint8_t)(img[3][x] + 1);    /* noise + 1: Up's residual is 1 */
    }
    /* Avg exactly: x = (a + b) / 2 needs a left value; build left to right. */
    for (int x = 0; x < W * 3; x++) {
        int a = x >= 3 ? img[5][x - 3] : 0;
        img[5][x] = (uint8_t)((a + img[4][x]) >> 1);
    }
    static const int want[H] = {0, 1, 2, -1, 2, 3};
    cg_png_options o = {6, CG_PNG_FILTER_ALL, -1, 0};
    cg_buf b = {0};
    for (int backend = 0; backend < 2; backend++) {
        ck_assert_int_eq(encode_by(backend, &img[0][0], W, H, W * 3, &o, &b), CG_OK);
        check_roundtrip(&b, &img[0][0], W, H, W * 3);
        uint8_t *raw = inflate_idat(&b, (size_t)H * (W * 3 + 1));
        for (int y = 0; y < H; y++)
            if (want[y] >= 0) ck_assert_int_eq(raw[(size_t)y * (W * 3 + 1)], want[y]);
        free(raw);
    }
    /* a single filter in the mask: every row uses it */
    for (int t = 0; t < 5; t++) {
        cg_png_options one = {1, CG_PNG_FILTER_NONE << t, -1, 0};
        ck_assert_int_eq(cg_png_encode_rgb(&img[0][0], W, H, W * 3, &one, &b), CG_OK);
        uint8_t *raw = inflate_idat(&b, (size_t)H * (W * 3 + 1));
        for (int y = 0; y < H; y++) ck_assert_int_eq(raw[(size_t)y * (W * 3 + 1)], t);
        free(raw);
    }
    cg_buf_free(&b);
}
END_TEST

/* The SIMD filter path against the scalar one, byte for byte: every mask,
 * row lengths around the 16- and 32-byte steps, noisy and smooth rows. */
START_TEST(filter_simd_matches_scalar)
{
    const cg_png_filter_fn best = cg_png_filter_best();
    enum { MAXN = 3 * 70 };
    uint8_t row[MAXN], prev[MAXN], a[MAXN + 1], b[MAXN + 1];
    uint32_t s = 12345;
    for (int n = 3; n <= MAXN; n += 3)
        for (int mask = CG_PNG_FILTER_NONE; mask <= CG_PNG_FILTER_ALL; mask += CG_PNG_FILTER_NONE)
            for (int kind = 0; kind < 3; kind++) {
                for (int i = 0; i < n; i++) {
                    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
                    row[i] = kind == 0 ? (uint8_t)s : (uint8_t)(i * 3 + (int)(s & 3));
                    prev[i] = kind == 2 ? (uint8_t)(255 - i) : (uint8_t)(s >> 8);
                }
                int ta = cg_png_filter_row_scalar(row, prev, (size_t)n, mask, a);
                int tb = best(row, prev, (size_t)n, mask, b);
                ck_assert_int_eq(ta, tb);
                ck_assert_mem_eq(a, b, (size_t)n + 1);
                ck_assert(mask & (CG_PNG_FILTER_NONE << ta));
            }
}
END_TEST

/* ---- CRC-32 and the container ----------------------------------------------------- */

START_TEST(crc32_values)
{
    /* The CRC-32 check value (ISO 3309 / ITU-T V.42) and PNG's IEND CRC. */
    ck_assert_uint_eq(cg_crc32(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
    ck_assert_uint_eq(cg_crc32(0, (const uint8_t *)"IEND", 4), 0xAE426082u);
    ck_assert_uint_eq(cg_crc32(0, NULL, 0), 0);
    /* slice-by-8 against the bytewise table at every length and offset */
    uint8_t buf[200];
    for (int i = 0; i < 200; i++) buf[i] = (uint8_t)(i * 131 + 7);
    for (size_t off = 0; off < 8; off++)
        for (size_t n = 0; off + n <= 200; n += 7) {
            ck_assert_uint_eq(cg_crc32(0, buf + off, n), cg_crc32_bytewise(0, buf + off, n));
            ck_assert_uint_eq(cg_crc32(cg_crc32(0, buf, off), buf + off, n),
                              cg_crc32(0, buf, off + n)); /* continuation */
        }
}
END_TEST

/* The folding paths (64 and, where the CPU has VPCLMULQDQ, 128 bytes a step)
 * against zlib's crc32 at every length to 1,100 bytes and sampled to 40K, at
 * 16 offsets, from a nonzero CRC: each lane count, tail and start. */
START_TEST(crc32_long_against_zlib)
{
    enum { N = 40000 };
    uint8_t *buf = malloc(N);
    ck_assert_ptr_nonnull(buf);
    uint32_t s = 99;
    for (int i = 0; i < N; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        buf[i] = (uint8_t)s;
    }
    for (size_t off = 0; off < 16; off++)
        for (size_t n = 0; off + n <= N; n += n < 1100 ? 1 : 997)
            ck_assert_uint_eq(cg_crc32(0x89abcdefu, buf + off, n),
                              (uint32_t)crc32(0x89abcdefu, buf + off, (uInt)n));
    free(buf);
}
END_TEST

START_TEST(container_bytes)
{
    /* A 1x1 PNG: signature, IHDR exactly as the spec lays it out, IEND last. */
    static const uint8_t ihdr[] = {0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1,
                                   8, 2,       0,   0,   0};
    static const uint8_t iend[] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    uint8_t px[3] = {1, 2, 3};
    cg_buf b = {0};
    ck_assert_int_eq(cg_png_encode_rgb(px, 1, 1, 3, NULL, &b), CG_OK);
    ck_assert_mem_eq(b.data + 8, ihdr, sizeof ihdr);
    ck_assert_uint_eq(b.len, 33 + 12 + (size_t)b.data[36] + 12);
    ck_assert_mem_eq(b.data + b.len - 12, iend, sizeof iend);
    check_roundtrip(&b, px, 1, 1, 3);
    cg_buf_free(&b);
}
END_TEST

/* ---- loading the deflate library -------------------------------------------------- */

START_TEST(deflate_loading)
{
    cg_deflate_lib *lib = NULL;
    /* neither library: PNG is unsupported, and says so */
    ck_assert_int_eq(cg_deflate_open("libcg-no-such-1.so", "libcg-no-such-2.so", &lib),
                     CG_E_UNSUPPORTED);
    ck_assert_ptr_null(lib);
    ck_assert_int_eq(cg_deflate_open(NULL, NULL, &lib), CG_E_UNSUPPORTED);
    /* a library without the functions (libm) is not taken for one */
    ck_assert_int_eq(cg_deflate_open("libm.so.6", "libm.so.6", &lib), CG_E_UNSUPPORTED);
    uint8_t px[3] = {1, 2, 3};
    cg_buf b = {0};
    const cg_png_options via_lib = cg_png_libpng_defaults();
    ck_assert_int_eq(cg_png_encode_rgb_with(NULL, px, 1, 1, 3, &via_lib, &b), CG_E_UNSUPPORTED);
    ck_assert_uint_eq(b.len, 0);
    /* the own encoder needs no library */
    ck_assert_int_eq(cg_png_encode_rgb_with(NULL, px, 1, 1, 3, NULL, &b), CG_OK);
    check_roundtrip(&b, px, 1, 1, 3);
    /* bad arguments come first, with or without a library */
    ck_assert_int_eq(cg_png_encode_rgb_with(NULL, NULL, 1, 1, 3, NULL, &b), CG_E_INVALID_ARG);
    cg_deflate_close(NULL);

    /* zlib alone: the fallback */
    cg_deflate_lib *z = open_zlib_only();
    ck_assert_int_eq(cg_png_encode_rgb_with(z, px, 1, 1, 3, NULL, &b), CG_OK);
    check_roundtrip(&b, px, 1, 1, 3);
    cg_deflate_close(z);

    /* this machine has libdeflate (scripts/install-deps.sh): it is preferred */
    ck_assert_int_eq(cg_deflate_open("libdeflate.so.0", "libz.so.1", &lib), CG_OK);
    ck_assert_int_eq(cg_deflate_lib_kind(lib), CG_DEFLATE_LIBDEFLATE);
    cg_deflate_close(lib);
    ck_assert_ptr_null(cg_png_unavailable_reason());
    ck_assert_str_eq(cg_png_deflate_name(), "libdeflate");
    /* a zlib strategy asks for zlib, which alone has them */
    ck_assert_int_eq(cg_deflate_lib_kind(cg_deflate_for_strategy(-1)), CG_DEFLATE_LIBDEFLATE);
    for (int st = 0; st <= 4; st++)
        ck_assert_int_eq(cg_deflate_lib_kind(cg_deflate_for_strategy(st)), CG_DEFLATE_ZLIB);
    cg_buf_free(&b);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("png");
    TCase *core = test_tcase("core");
    const int n_rt = (int)(sizeof sizes / sizeof sizes[0] * sizeof filters / sizeof filters[0]);
    tcase_add_loop_test(core, roundtrip, 0,
                        n_rt * (int)(sizeof levels / sizeof levels[0]) + n_rt);
    tcase_add_loop_test(core, roundtrip_own, 0,
                        4 * (int)(sizeof sizes / sizeof sizes[0] * sizeof own_levels /
                                  sizeof own_levels[0]));
    tcase_add_test(core, strategies_and_defaults);
    tcase_add_test(core, buffer_reused);
    tcase_add_test(core, encoder_contexts_alternate);
    tcase_add_test(core, encoder_null_and_bad);
    tcase_add_test(core, encoder_cap);
    suite_add_tcase(s, core);
    corpus_scan();
    /* The corpus in CG_TEST_CORPUS_SHARDS cases corpus_0, corpus_1, ... of
     * consecutive frames: ctest runs one case each (CK_RUN_CASE,
     * tests/core/CMakeLists.txt), in parallel. */
    const int frames = (corpus_count + CG_TEST_CORPUS_STEP - 1) / CG_TEST_CORPUS_STEP;
    for (int k = 0; k < CG_TEST_CORPUS_SHARDS; k++) {
        static char names[CG_TEST_CORPUS_SHARDS][16];
        snprintf(names[k], sizeof names[k], "corpus_%d", k);
        TCase *corpus = test_tcase(names[k]);
        if (k == 0) tcase_add_test(corpus, corpus_present);
        int lo = frames * k / CG_TEST_CORPUS_SHARDS, hi = frames * (k + 1) / CG_TEST_CORPUS_SHARDS;
        tcase_add_loop_test(corpus, corpus_frames, lo, hi);
        tcase_add_loop_test(corpus, own_paths_agree, lo, hi);
        tcase_add_loop_test(corpus, fast_size_bound, lo, hi);
        suite_add_tcase(s, corpus);
    }
    TCase *parts = test_tcase("parts");
    tcase_add_test(parts, filter_choice);
    tcase_add_test(parts, filter_simd_matches_scalar);
    tcase_add_test(parts, crc32_values);
    tcase_add_test(parts, crc32_long_against_zlib);
    tcase_add_test(parts, adler32_values);
    tcase_add_test(parts, huffman_lengths);
    tcase_add_test(parts, own_stream);
    tcase_add_test(parts, own_stream_far);
    tcase_add_test(parts, own_stream_bands);
    tcase_add_test(parts, own_paths_short_matches);
    tcase_add_test(parts, own_fast_runs);
    tcase_add_test(parts, own_long_matches);
    tcase_add_test(parts, container_bytes);
    tcase_add_test(parts, deflate_loading);
    suite_add_tcase(s, parts);
    TCase *limits = test_tcase("limits");
    tcase_add_test(limits, bad_arguments);
    suite_add_tcase(s, limits);
    return s;
}
