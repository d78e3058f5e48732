/*
 * PNG encoding through libpng into a caller-owned growable buffer.
 * libpng reports errors by calling our error function, which longjmps back
 * to encode_rows() without printing anything; warnings are dropped.
 */
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "cg_frame.h"

typedef struct png_sink {
    cg_buf *out;
    volatile int oom; /* set before longjmp, read after it */
} png_sink;

static int grow(cg_buf *b, size_t need)
{
    if (need <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(b->data, cap);
    if (p == NULL) return 0;
    b->data = p;
    b->cap = cap;
    return 1;
}

static void write_cb(png_structp png, png_bytep data, size_t len)
{
    png_sink *s = png_get_io_ptr(png);
    cg_buf *b = s->out;
    if (len > SIZE_MAX - b->len || !grow(b, b->len + len)) {
        s->oom = 1;
        png_error(png, "out of memory");
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
}

static void flush_cb(png_structp png)
{
    (void)png;
}

static void error_cb(png_structp png, png_const_charp msg)
{
    (void)msg;
    png_longjmp(png, 1);
}

static void warning_cb(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* Everything after setjmp lives here, reading only its (unchanged)
 * parameters, so no local can be clobbered by the longjmp. */
static cg_status encode_rows(png_structp png, png_infop info, png_sink *sink,
                             const uint8_t *rgb, int w, int h, size_t stride,
                             const cg_png_options *opt)
{
    if (setjmp(png_jmpbuf(png))) return sink->oom ? CG_E_NO_MEMORY : CG_E_PNG;
    png_set_write_fn(png, sink, write_cb, flush_cb);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (opt->level >= 0) png_set_compression_level(png, opt->level);
    if (opt->filters >= 0) png_set_filter(png, PNG_FILTER_TYPE_BASE, opt->filters);
    if (opt->strategy >= 0) png_set_compression_strategy(png, opt->strategy);
    png_write_info(png, info);
    for (int y = 0; y < h; y++) png_write_row(png, rgb + (size_t)y * stride);
    png_write_end(png, NULL);
    return CG_OK;
}

cg_status cg_png_encode_rgb(const uint8_t *rgb, int w, int h, size_t stride,
                            const cg_png_options *opt, cg_buf *out)
{
    cg_png_options dflt = cg_png_default_options();
    size_t row;
    CG_RETURN_IF(rgb == NULL || out == NULL, CG_E_INVALID_ARG);
    if (opt == NULL) opt = &dflt;
    CG_RETURN_IF(opt->level < -1 || opt->level > 9, CG_E_INVALID_ARG);
    CG_RETURN_IF(opt->strategy < -1 || opt->strategy > 4, CG_E_INVALID_ARG);
    CG_RETURN_IF(opt->filters != -1 && (opt->filters == 0 || (opt->filters & ~CG_PNG_FILTER_ALL)),
                 CG_E_INVALID_ARG);
    CG_TRY(cg_check_dims(w, h));
    CG_RETURN_IF(stride < (size_t)w * 3, CG_E_INVALID_ARG);
    CG_TRY(cg_mul_size(stride, (size_t)h, &row)); /* the rows must be addressable */

    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, error_cb, warning_cb);
    CG_RETURN_IF(png == NULL, CG_E_NO_MEMORY);
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_write_struct(&png, NULL);
        return CG_E_NO_MEMORY;
    }
    png_sink sink = {out, 0};
    out->len = 0;
    cg_status st = encode_rows(png, info, &sink, rgb, w, h, stride, opt);
    png_destroy_write_struct(&png, &info);
    if (st != CG_OK) out->len = 0;
    return st;
}
