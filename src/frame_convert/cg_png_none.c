/* Built instead of the encoder when CG_WITH_PNG=OFF: PNG is an unsupported path. */
#include "cg_frame.h"

cg_status cg_png_encode_rgb(const uint8_t *rgb, int w, int h, size_t stride,
                            const cg_png_options *opt, cg_buf *out)
{
    (void)rgb;
    (void)w;
    (void)h;
    (void)stride;
    (void)opt;
    (void)out;
    return CG_E_UNSUPPORTED;
}

const char *cg_png_unavailable_reason(void)
{
    return "this libnative-lib.so was built without PNG encoding (CG_WITH_PNG=OFF; the "
           "encoder needs the libdeflate and zlib headers, and the tests libpng); use RAW (0), "
           "or rebuild with PNG";
}

const char *cg_png_deflate_name(void)
{
    return NULL;
}

cg_status cg_png_encoder_create(size_t keep_max, cg_png_encoder **out)
{
    (void)keep_max;
    if (out) *out = NULL;
    return out ? CG_E_UNSUPPORTED : CG_E_INVALID_ARG;
}

void cg_png_encoder_destroy(cg_png_encoder *e)
{
    (void)e; /* none is ever made */
}

cg_status cg_png_encoder_rows(cg_png_encoder *e, size_t len, uint8_t **rows)
{
    (void)e;
    (void)len;
    if (rows) *rows = NULL;
    return CG_E_INVALID_ARG;
}

cg_status cg_png_encoder_encode(cg_png_encoder *e, const uint8_t *rgb, int w, int h,
                                size_t stride, const cg_png_options *opt, cg_buf *out)
{
    (void)e;
    return cg_png_encode_rgb(rgb, w, h, stride, opt, out);
}

size_t cg_png_encoder_kept(const cg_png_encoder *e)
{
    (void)e;
    return 0;
}
