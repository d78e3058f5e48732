/*
 * cg_vk_rgb_layout.c - the RGB slot format's layout, which every writer of
 * the slot shares whatever runs the shader (cg_vk_rgb.c in Vulkan,
 * cg_gl_ring.c in GL) and whether or not the SPIR-V was built: the slot's
 * size and the dispatch's work-group counts (cg_vk_rgb.h). The per-pixel
 * shaders' groups and the depth shader's parameters are GPU-API free in
 * src/common/cg_shader_layout.h (the GL depth pass in src/gl_capture uses
 * them too).
 */
#include "cg_vk_rgb.h"

#include "cg_size.h"

cg_status cg_vk_rgb_slot_size(int dst_w, int dst_h, uint64_t *bytes)
{
    size_t n;
    CG_TRY(cg_image_size(dst_w, dst_h, 3, &n));
    /* n <= 16384^2 * 3: rounding up to 12 cannot overflow 64 bits. */
    *bytes = ((uint64_t)n + 11) / 12 * 12;
    return CG_OK;
}

void cg_vk_rgb_groups(int dst_w, int dst_h, uint32_t *groups_x, uint32_t *groups_y)
{
    /* 4 pixels an invocation, 64 invocations a group; rows of at most
     * 65535 groups (the guaranteed minimum of Vulkan's
     * maxComputeWorkGroupCount and of GL 4.3's GL_MAX_COMPUTE_WORK_GROUP_COUNT). */
    uint64_t n = (uint64_t)dst_w * (uint64_t)dst_h;
    uint64_t groups = ((n + 3) / 4 + 63) / 64;
    *groups_x = (uint32_t)(groups < 65535 ? groups : 65535);
    *groups_y = (uint32_t)((groups + *groups_x - 1) / *groups_x);
}


