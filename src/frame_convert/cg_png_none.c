/* Built instead of cg_png.c when CG_WITH_PNG=OFF: PNG is an unsupported path. */
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
