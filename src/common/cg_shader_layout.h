/*
 * cg_shader_layout.h - what the library's compute shaders take, with no
 * GPU API, for every API that runs them (the Vulkan ring, and GL through
 * the same GLSL source): the dispatch shape of the per-pixel shaders
 * (cg_vk_copy.comp, cg_vk_depth.comp) and the parameter blocks of the RGB
 * and copy shaders and of the depth shader (push constants in Vulkan, a
 * std140 uniform block in GL).
 */
#ifndef CG_SHADER_LAYOUT_H
#define CG_SHADER_LAYOUT_H

#include <stdint.h>

#include "cg_cursor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Work groups of 64 x 4 pixels (the per-pixel shaders' local size) for a
 * w x h grid of valid dims: at most 256 x 4096 for CG_MAX_DIM, inside the
 * 65535 every API guarantees. */
void cg_shader_groups_64x4(int w, int h, uint32_t *groups_x, uint32_t *groups_y);

/* cg_vk_rgb.comp's and cg_vk_copy.comp's Params, in their order: nine
 * 4-byte words (GL's std140 block rounds it up to 48 bytes). */
typedef struct cg_rgb_shader_params {
    uint32_t src_w, src_h, dst_w, dst_h, flip, bgra, cursor_on;
    int32_t cursor_x, cursor_y;
} cg_rgb_shader_params;

/* The RGB (or copy) shader's parameters for a src -> dst frame; cursor may
 * be NULL. The wire format's rule: a hot spot outside the target draws
 * nothing (cursor_on 0). */
void cg_rgb_shader_params_make(int src_w, int src_h, int dst_w, int dst_h, int flip,
                               uint32_t bgra, const cg_cursor *cursor, cg_rgb_shader_params *out);

/* cg_vk_depth.comp's Params, in its order: nine 4-byte words. */
typedef struct cg_depth_shader_params {
    uint32_t src_w, src_h, dst_w, dst_h, flip, raw;
    float near_plane, range_hi, range_lo;
} cg_depth_shader_params;

/* The depth shader's parameters for a src -> dst plane; raw: the stored
 * float, else linear with near/far (valid: cg_depth_check_planes), f - n
 * taken in double and split into two floats (range_hi + range_lo) for the
 * shader's float arithmetic. */
void cg_depth_shader_params_make(int src_w, int src_h, int dst_w, int dst_h, int flip, int raw,
                                 float near_plane, float far_plane, cg_depth_shader_params *out);

#ifdef __cplusplus
}
#endif

#endif /* CG_SHADER_LAYOUT_H */
