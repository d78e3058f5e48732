/*
 * Fuzz target for the PNG round trip through the public API: RGB rows of
 * any small size, stride, filter set and compression setting (the deflate
 * library's levels or the own encoder's) are encoded with cg_png_encode_rgb
 * and decoded with libpng (the independent oracle); the pixels must come
 * back exactly. The same cg_buf is reused for a second encoding at another
 * setting, as the JNI layer reuses it. A build without PNG support must say
 * CG_E_UNSUPPORTED.
 */
#include <png.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decode png into w*h*3 bytes; abort when libpng refuses it or the size differs. */
static void check_decodes_to(const cg_buf *png, const uint8_t *rgb, int w, int h, size_t stride)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&im, png->data, png->len)) abort();
    if ((int)im.width != w || (int)im.height != h) abort();
    im.format = PNG_FORMAT_RGB;
    uint8_t *dec = malloc((size_t)w * (size_t)h * 3);
    if (dec == NULL) abort();
    if (!png_image_finish_read(&im, NULL, dec, 0, NULL)) abort();
    for (int y = 0; y < h; y++)
        if (memcmp(dec + (size_t)y * (size_t)w * 3, rgb + (size_t)y * stride, (size_t)w * 3) != 0)
            abort();
    free(dec);
    png_image_free(&im);
}

static void pick(cg_png_options *o, int setting, int filters)
{
    o->deflate = setting < 10 ? CG_PNG_DEFLATE_LIBRARY : CG_PNG_DEFLATE_OWN;
    o->level = setting < 10 ? setting : setting - 9;
    o->strategy = -1;
    o->filters = filters;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    /* data[1]'s top bit: frames large enough for several deflate blocks */
    const int big = data[1] >> 7;
    const int w = (data[0] % 96 + 1) * (big ? 8 : 1), h = (data[1] % 64 + 1) * (big ? 4 : 1);
    /* 0..9: the library's levels; 10..12: the own encoder's 1..3 */
    const int setting_a = data[2] % 13, setting_b = (data[2] / 13) % 13;
    const size_t stride = (size_t)w * 3 + data[3] % 8;
    const int filters = ((data[3] >> 3) % 31 + 1) << 3; /* every non-empty mask */
    data += 4;
    size -= 4;
    const size_t len = stride * (size_t)h;
    uint8_t *rgb = malloc(len);
    if (rgb == NULL) abort();
    /* Runs of the input and plain ramps, so both stored and compressed
     * blocks and every row filter get exercised. */
    for (size_t i = 0; i < len; i++) rgb[i] = size ? data[i % size] : (uint8_t)(i / 3);

    cg_png_options opt = cg_png_default_options();
    pick(&opt, setting_a, filters);
    cg_buf out = {0};
    cg_status st = cg_png_encode_rgb(rgb, w, h, stride, &opt, &out);
    if (st == CG_E_UNSUPPORTED) {
        free(rgb);
        return 0; /* built without PNG */
    }
    if (st != CG_OK) abort();
    check_decodes_to(&out, rgb, w, h, stride);
    pick(&opt, setting_b, filters);
    if (cg_png_encode_rgb(rgb, w, h, stride, &opt, &out) != CG_OK) abort();
    check_decodes_to(&out, rgb, w, h, stride);
    /* A stride shorter than a row is refused, and the buffer stays usable. */
    if (cg_png_encode_rgb(rgb, w, h, (size_t)w * 3 - 1, &opt, &out) != CG_E_INVALID_ARG) abort();
    cg_buf_free(&out);
    free(rgb);
    return 0;
}
