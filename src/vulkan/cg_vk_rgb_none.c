/*
 * cg_vk_rgb_none.c - the RGB slot format in a build without
 * glslangValidator (no SPIR-V to embed): the ring refuses it clearly and
 * the plain copy keeps working (by vkCmdCopyImageToBuffer: no compute copy).
 */
#include "cg_vk_rgb.h"

int cg_vk_rgb_built(void)
{
    return 0;
}

cg_status cg_vk_rgb_create(const cg_vk_rgb_desc *d, cg_vk_rgb **out, cg_err *err)
{
    (void)d;
    if (out) *out = NULL;
    return cg_fail(err, CG_E_UNSUPPORTED,
                   "the RGB slot format was not built (glslangValidator, Debian package "
                   "glslang-tools, was missing at build time)");
}

void cg_vk_rgb_destroy(cg_vk_rgb *g) { (void)g; }

cg_status cg_vk_rgb_probe(cg_vk_rgb *g, VkQueue queue, cg_err *err)
{
    (void)g;
    (void)queue;
    return cg_fail(err, CG_E_UNSUPPORTED, "the RGB slot format was not built");
}

void cg_vk_rgb_fail_probe_for_tests(int fail) { (void)fail; }

cg_status cg_vk_rgb_prepare(cg_vk_rgb *g, VkImage src, cg_err *err)
{
    (void)g;
    (void)src;
    return cg_fail(err, CG_E_UNSUPPORTED, "the RGB slot format was not built");
}

void cg_vk_rgb_record(cg_vk_rgb *g, VkCommandBuffer cmd, uint32_t slot, VkImage src,
                      VkImageLayout src_layout, const cg_cursor *cursor, int acquire)
{
    (void)g, (void)cmd, (void)slot, (void)src, (void)src_layout, (void)cursor, (void)acquire;
}

void cg_vk_rgb_record_eye(cg_vk_rgb *g, VkCommandBuffer cmd, uint32_t slot, uint32_t eye,
                          VkImage src, VkImageLayout src_layout, const cg_cursor *cursor,
                          unsigned part)
{
    (void)g, (void)cmd, (void)slot, (void)eye, (void)src, (void)src_layout, (void)cursor, (void)part;
}

cg_status cg_vk_rgb_prepare_depth(cg_vk_rgb *g, VkImage depth, cg_err *err)
{
    (void)g;
    (void)depth;
    return cg_fail(err, CG_E_UNSUPPORTED, "the RGB slot format was not built");
}

void cg_vk_rgb_record_depth(cg_vk_rgb *g, VkCommandBuffer cmd, uint32_t slot, uint32_t eye,
                            VkImage depth, VkImageLayout depth_layout,
                            const cg_vk_depth_params *p, unsigned part)
{
    (void)g, (void)cmd, (void)slot, (void)eye, (void)depth, (void)depth_layout, (void)p, (void)part;
}
