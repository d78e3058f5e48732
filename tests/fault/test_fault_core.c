/*
 * Allocation failures in the pixel core's allocating part, the PNG path
 * (encoder structures, its compressor, the cg_buf growth): with
 * libcg_failalloc.so preloaded, the Nth allocation made by this program's
 * code or by libpng/zlib fails, for N = 1, 2, ... until a call makes fewer
 * than N. Every failure must be a clean status (CG_E_NO_MEMORY, or
 * CG_E_PNG where the encoder reports its own failure), never a crash; the
 * next call must work (decoded by libpng, the oracle) and nothing may stay
 * allocated (the shim's in-scope count, and LSan in the sanitizer build).
 * Both a fresh cg_buf and one already grown by an earlier call are swept,
 * and a call through an encoder context (cg_png_encoder: created, used and
 * destroyed inside the armed call, so its own allocations and its kept work
 * area are swept too). cg_png_encode_rgb keeps nothing between calls.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_failalloc.h"
#include "cg_frame.h"

enum { W = 61, H = 37 };

static int decodes_to(const cg_buf *png, const uint8_t *rgb)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&im, png->data, png->len)) return 0;
    im.format = PNG_FORMAT_RGB;
    static uint8_t dec[W * H * 3];
    int ok = im.width == W && im.height == H &&
             png_image_finish_read(&im, NULL, dec, 0, NULL) && memcmp(dec, rgb, sizeof dec) == 0;
    png_image_free(&im);
    return ok;
}

/* One encode: plain (variants 0 and 1) or through a fresh encoder (2). */
static cg_status encode(int variant, const uint8_t *rgb, const cg_png_options *opt, cg_buf *b)
{
    if (variant < 2) return cg_png_encode_rgb(rgb, W, H, W * 3, opt, b);
    cg_png_encoder *e = NULL;
    cg_status st = cg_png_encoder_create(0, &e);
    if (st == CG_OK) st = cg_png_encoder_encode(e, rgb, W, H, W * 3, opt, b);
    cg_png_encoder_destroy(e);
    return st;
}

int main(void)
{
    cg_failalloc_api fa;
    CHECK(cg_failalloc_load(&fa) == 0, "run with LD_PRELOAD=libcg_failalloc.so (ctest does)");
    static uint8_t rgb[W * H * 3];
    for (size_t i = 0; i < sizeof rgb; i++) rgb[i] = (uint8_t)(i * 7 + i / 97);
    cg_png_options opt = cg_png_default_options();

    cg_buf probe = {0};
    cg_status st = cg_png_encode_rgb(rgb, W, H, W * 3, &opt, &probe);
    if (st == CG_E_UNSUPPORTED) {
        printf("built without PNG: nothing allocates in the core\n");
        return 0;
    }
    CHECK(st == CG_OK && decodes_to(&probe, rgb), "plain encode: %s", cg_strerror(st));
    cg_buf_free(&probe);

    CHECK(fa.arm(0, "exe,libpng,libz") == 0, "arm"); /* start counting */
    for (int reuse = 0; reuse < 3; reuse++) {
        int n = 1, no_memory = 0, png_err = 0;
        for (;; n++) {
            const long base = fa.live();
            cg_buf b = {0};
            if (reuse == 1) { /* grown by an earlier call, as the JNI layer reuses it */
                CHECK(cg_png_encode_rgb(rgb, W, H, W * 3, &opt, &b) == CG_OK, "warm-up");
            }
            CHECK(fa.arm(n, "exe,libpng,libz") == 0, "arm");
            st = encode(reuse, rgb, &opt, &b);
            int fired = fa.fired();
            fa.disarm();
            if (!fired) {
                CHECK(st == CG_OK && decodes_to(&b, rgb), "n=%d: %s", n, cg_strerror(st));
                cg_buf_free(&b);
                CHECK(fa.live() == base, "n=%d: %ld allocations left", n, fa.live() - base);
                break;
            }
            CHECK(st == CG_E_NO_MEMORY || st == CG_E_PNG,
                  "allocation %d failed: status %s, expected CG_E_NO_MEMORY or CG_E_PNG", n,
                  cg_strerror(st));
            no_memory += st == CG_E_NO_MEMORY;
            png_err += st == CG_E_PNG;
            /* The next call, same buffer, works. */
            st = encode(reuse, rgb, &opt, &b);
            CHECK(st == CG_OK && decodes_to(&b, rgb), "after failing allocation %d: %s", n,
                  cg_strerror(st));
            cg_buf_free(&b);
            CHECK(fa.live() == base, "failing allocation %d left %ld allocations behind", n,
                  fa.live() - base);
        }
        printf("PNG encode (%s): each of its %d allocations failed in turn: %d "
               "CG_E_NO_MEMORY, %d CG_E_PNG; every next call exact, nothing left allocated\n",
               reuse == 2 ? "fresh buffer, through an encoder"
               : reuse    ? "reused buffer"
                          : "fresh buffer",
               n - 1, no_memory, png_err);
        CHECK(n > 1, "no allocation seen: is the scope right?");
    }
    return 0;
}
