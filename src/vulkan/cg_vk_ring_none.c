/*
 * cg_vk_ring_none.c - the zero-copy v2 producer (cg_vk_ring.h) in a build
 * without the protocol's transport (src/zc: memfd, SCM_RIGHTS; not Linux)
 * or without the target's Vulkan headers (third_party's serve the
 * declarations only):
 * create refuses with CG_E_UNSUPPORTED saying what to use instead. No ring
 * is ever made, so the calls on one are never reached; they refuse too.
 */
#include <string.h>

#include "cg_vk_ring.h"

static const char k_unsupported[] =
    "zero-copy v2 needs Linux (memfd, SCM_RIGHTS) and a build with the Vulkan headers; this build "
    "has neither: use VulkanCudaZerocopy";

cg_status cg_vk_ring_create(const cg_vk_ring_desc *d, cg_vk_ring **out, cg_err *err)
{
    (void)d;
    if (out) *out = NULL;
    return cg_fail(err, CG_E_UNSUPPORTED, "%s", k_unsupported);
}

void cg_vk_ring_destroy(cg_vk_ring *r)
{
    (void)r;
}

/* Nothing is ever deferred without rings. */
uint32_t cg_vk_ring_free_deferred(VkDevice device)
{
    (void)device;
    return 0;
}

uint32_t cg_vk_ring_deferred_count(void)
{
    return 0;
}

const char *cg_vk_ring_last_error(const cg_vk_ring *r)
{
    (void)r;
    return "";
}

const cg_err *cg_vk_ring_error(const cg_vk_ring *r)
{
    (void)r;
    return NULL;
}

void cg_vk_ring_get_info(const cg_vk_ring *r, cg_vk_ring_info *info)
{
    (void)r;
    if (info) memset(info, 0, sizeof *info);
}

void cg_vk_ring_get_counters(const cg_vk_ring *r, uint64_t out[CG_ZC_COUNTERS])
{
    (void)r;
    if (out) memset(out, 0, CG_ZC_COUNTERS * sizeof out[0]);
}

cg_status cg_vk_ring_template(const cg_vk_ring *r, uint8_t *out, size_t cap)
{
    (void)r, (void)out, (void)cap;
    return CG_E_UNSUPPORTED;
}

cg_status cg_vk_ring_publish(cg_vk_ring *r, VkImage src, VkImageLayout src_layout,
                             uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    (void)r, (void)src, (void)src_layout, (void)desc_out;
    return CG_E_UNSUPPORTED;
}

cg_status cg_vk_ring_record(cg_vk_ring *r, VkCommandBuffer cmd, VkImage src,
                            VkImageLayout src_layout, uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    (void)r, (void)cmd, (void)src, (void)src_layout, (void)desc_out;
    return CG_E_UNSUPPORTED;
}

cg_status cg_vk_ring_publish_cursor(cg_vk_ring *r, VkImage src, VkImageLayout src_layout,
                                    const cg_cursor *cursor, uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    (void)r, (void)src, (void)src_layout, (void)cursor, (void)desc_out;
    return CG_E_UNSUPPORTED;
}

cg_status cg_vk_ring_record_cursor(cg_vk_ring *r, VkCommandBuffer cmd, VkImage src,
                                   VkImageLayout src_layout, const cg_cursor *cursor,
                                   uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    (void)r, (void)cmd, (void)src, (void)src_layout, (void)cursor, (void)desc_out;
    return CG_E_UNSUPPORTED;
}

cg_status cg_vk_ring_record_depth(cg_vk_ring *r, VkCommandBuffer cmd, VkImage depth,
                                  VkImageLayout layout, uint32_t eye,
                                  const cg_zc_depth_params *p,
                                  uint8_t desc_out[CG_ZC_DESC_MAX_SIZE], size_t *desc_len)
{
    (void)r, (void)cmd, (void)depth, (void)layout, (void)eye, (void)p, (void)desc_out;
    if (desc_len) *desc_len = 0;
    return CG_E_UNSUPPORTED;
}

cg_status cg_vk_ring_publish_eye(cg_vk_ring *r, VkImage src, VkImageLayout src_layout,
                                 uint32_t eye, const cg_cursor *cursor,
                                 uint8_t desc_out[CG_ZC_DESC_MAX_SIZE], size_t *desc_len)
{
    (void)r, (void)src, (void)src_layout, (void)eye, (void)cursor, (void)desc_out;
    if (desc_len) *desc_len = 0;
    return CG_E_UNSUPPORTED;
}

cg_status cg_vk_ring_record_eye(cg_vk_ring *r, VkCommandBuffer cmd, VkImage src,
                                VkImageLayout src_layout, uint32_t eye, const cg_cursor *cursor,
                                uint8_t desc_out[CG_ZC_DESC_MAX_SIZE], size_t *desc_len)
{
    (void)r, (void)cmd, (void)src, (void)src_layout, (void)eye, (void)cursor, (void)desc_out;
    if (desc_len) *desc_len = 0;
    return CG_E_UNSUPPORTED;
}
