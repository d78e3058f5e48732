/* The compute shaders' dispatch shape and parameter block (cg_shader_layout.h). */
#include <string.h>

#include "cg_shader_layout.h"

void cg_shader_groups_64x4(int w, int h, uint32_t *groups_x, uint32_t *groups_y)
{
    *groups_x = ((uint32_t)w + 63) / 64;
    *groups_y = ((uint32_t)h + 3) / 4;
}

void cg_rgb_shader_params_make(int src_w, int src_h, int dst_w, int dst_h, int flip,
                               uint32_t bgra, const cg_cursor *cursor, cg_rgb_shader_params *out)
{
    cg_rgb_shader_params p = {(uint32_t)src_w, (uint32_t)src_h, (uint32_t)dst_w, (uint32_t)dst_h,
                              flip ? 1u : 0u, bgra, 0u, 0, 0};
    *out = p;
    if (cursor && cursor->draw && cursor->x >= 0 && cursor->y >= 0 && cursor->x < dst_w &&
        cursor->y < dst_h) {
        out->cursor_on = 1;
        out->cursor_x = cursor->x;
        out->cursor_y = cursor->y;
    }
}

void cg_depth_shader_params_make(int src_w, int src_h, int dst_w, int dst_h, int flip, int raw,
                                 float near_plane, float far_plane, cg_depth_shader_params *out)
{
    memset(out, 0, sizeof *out);
    out->src_w = (uint32_t)src_w;
    out->src_h = (uint32_t)src_h;
    out->dst_w = (uint32_t)dst_w;
    out->dst_h = (uint32_t)dst_h;
    out->flip = flip ? 1u : 0u;
    out->raw = raw ? 1u : 0u;
    if (!raw) {
        /* f - n in double (exact unless far/near is beyond 2^29); hi + lo
         * holds it to 48 bits, enough for the shader's float denominator. */
        double range = (double)far_plane - (double)near_plane;
        out->near_plane = near_plane;
        out->range_hi = (float)range;
        out->range_lo = (float)(range - (double)out->range_hi);
    }
}
