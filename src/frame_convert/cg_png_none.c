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

void cg_png_thread_release(void)
{
}
