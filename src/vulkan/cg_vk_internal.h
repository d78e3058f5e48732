/*
 * cg_vk_internal.h - internal to src/vulkan: what the exporter (v1) and the
 * ring (v2) share: the VkResult checker and the barriers they record.
 */
#ifndef CG_VK_INTERNAL_H
#define CG_VK_INTERNAL_H

#include "cg_err.h"
#include "cg_vk_export.h" /* cg_vk_result_name, vulkan.h without prototypes */

/* Record a failed Vulkan call in the shared shape (cg_err.h); CG_OK for
 * VK_SUCCESS. Out of host memory is CG_E_NO_MEMORY, the rest CG_E_VULKAN. */
static inline cg_status cg_vk_check_result(cg_err *e, VkResult r, const char *expr,
                                           const char *file, int line)
{
    if (r == VK_SUCCESS) return CG_OK;
    return cg_fail_call(e, r == VK_ERROR_OUT_OF_HOST_MEMORY ? CG_E_NO_MEMORY : CG_E_VULKAN, expr,
                        cg_vk_result_name(r), (long long)r, file, line);
}

/* A colour image barrier on mip 0 / layer 0, no queue family transfer. */
static inline VkImageMemoryBarrier cg_vk_image_barrier(VkImage img, VkImageLayout from,
                                                       VkImageLayout to, VkAccessFlags src_access,
                                                       VkAccessFlags dst_access)
{
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = img;
    b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    b.subresourceRange.levelCount = 1;
    b.subresourceRange.layerCount = 1;
    return b;
}

/* A whole-buffer barrier, with a queue family transfer when the families
 * differ (VK_QUEUE_FAMILY_IGNORED twice: none). */
static inline VkBufferMemoryBarrier cg_vk_buffer_barrier(VkBuffer buf, VkAccessFlags src,
                                                         VkAccessFlags dst, uint32_t from_family,
                                                         uint32_t to_family)
{
    VkBufferMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    b.srcAccessMask = src;
    b.dstAccessMask = dst;
    b.srcQueueFamilyIndex = from_family;
    b.dstQueueFamilyIndex = to_family;
    b.buffer = buf;
    b.size = VK_WHOLE_SIZE;
    return b;
}

#endif /* CG_VK_INTERNAL_H */
