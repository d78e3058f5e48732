/* cg_gl_pack.c - names and the per-driver choice of the GL reader's pack
 * modes: no GL calls. */
#include <string.h>

#include "cg_gl.h"

const char *cg_gl_pack_name(cg_gl_pack pack)
{
    switch (pack) {
    case CG_GL_PACK_AUTO: return "auto";
    case CG_GL_PACK_RGBA: return "rgba";
    case CG_GL_PACK_RGB: return "rgb";
    case CG_GL_PACK_BANDS: return "bands";
    case CG_GL_PACK_PBO: return "pbo";
    case CG_GL_PACK_PBO_RGB: return "pbo_rgb";
    }
    return "unknown";
}

cg_gl_pack cg_gl_auto_pack(const char *vendor, const char *renderer)
{
    if (vendor && strstr(vendor, "NVIDIA")) return CG_GL_PACK_RGB;
    if (renderer && strstr(renderer, "llvmpipe")) return CG_GL_PACK_BANDS;
    return CG_GL_PACK_RGBA;
}
