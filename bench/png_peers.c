/*
 * png_peers.c - the C peers (libspng, stb_image_write) and the table of all
 * peers; the C++ ones (fpnge, fpng) are in png_peers_cxx.cc. See
 * png_peers.h.
 */
#include "png_peers.h"

#include <stdlib.h>
#include <string.h>

/* Copy n bytes to *out, growing it. */
static size_t give(const void *p, size_t n, uint8_t **out, size_t *cap)
{
    if (*cap < n) {
        uint8_t *q = realloc(*out, n);
        if (q == NULL) return 0;
        *out = q;
        *cap = n;
    }
    memcpy(*out, p, n);
    return n;
}

#ifdef CG_BENCH_SPNG
#include <spng.h>

/* libspng's defaults: zlib's default level, the filter chosen per row. */
static size_t enc_spng(const uint8_t *rgb, int w, int h, uint8_t **out, size_t *cap)
{
    spng_ctx *c = spng_ctx_new(SPNG_CTX_ENCODER);
    if (c == NULL) return 0;
    size_t n = 0;
    struct spng_ihdr ihdr = {0};
    ihdr.width = (uint32_t)w;
    ihdr.height = (uint32_t)h;
    ihdr.bit_depth = 8;
    ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR;
    if (spng_set_option(c, SPNG_ENCODE_TO_BUFFER, 1) == 0 && spng_set_ihdr(c, &ihdr) == 0 &&
        spng_encode_image(c, rgb, (size_t)w * h * 3, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE) == 0) {
        int err = 0;
        size_t len = 0;
        void *png = spng_get_png_buffer(c, &len, &err);
        if (png != NULL && err == 0) n = give(png, len, out, cap);
        free(png);
    }
    spng_ctx_free(c);
    return n;
}
#endif

#ifdef CG_BENCH_STB
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wcast-qual"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wcast-align"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* stb_image_write's defaults: its own deflate at level 8, the filter per row. */
static size_t enc_stb(const uint8_t *rgb, int w, int h, uint8_t **out, size_t *cap)
{
    int len = 0;
    unsigned char *png = stbi_write_png_to_mem(rgb, w * 3, w, h, 3, &len);
    if (png == NULL) return 0;
    const size_t n = give(png, (size_t)len, out, cap);
    STBIW_FREE(png);
    return n;
}
#endif

/* The C++ peers (png_peers_cxx.cc), when built. */
#ifdef CG_BENCH_FPNGE
size_t cg_bench_fpnge(const uint8_t *rgb, int w, int h, uint8_t **out, size_t *cap);
#endif
#ifdef CG_BENCH_FPNG
size_t cg_bench_fpng(const uint8_t *rgb, int w, int h, uint8_t **out, size_t *cap);
#endif

const png_peer *png_peers(int *count)
{
    static const png_peer peers[] = {
#ifdef CG_BENCH_FPNGE
        {"fpnge default", NULL, cg_bench_fpnge, CG_BENCH_FPNGE_BUILT},
#else
        {"fpnge default", "CG_BENCH_FPNGE_DIR (github.com/veluca93/fpnge)", NULL, NULL},
#endif
#ifdef CG_BENCH_FPNG
        {"fpng default", NULL, cg_bench_fpng, NULL},
#else
        {"fpng default", "CG_BENCH_FPNG_DIR (github.com/richgel999/fpng)", NULL, NULL},
#endif
#ifdef CG_BENCH_SPNG
        {"libspng default", NULL, enc_spng, NULL},
#else
        {"libspng default", "CG_BENCH_SPNG_DIR (github.com/randy408/libspng)", NULL, NULL},
#endif
#ifdef CG_BENCH_STB
        {"stb_image_write", NULL, enc_stb, NULL},
#else
        {"stb_image_write", "CG_BENCH_STB_DIR (a folder with stb_image_write.h)", NULL, NULL},
#endif
    };
    *count = (int)(sizeof peers / sizeof peers[0]);
    return peers;
}
