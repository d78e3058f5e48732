/*
 * cg_vk_internal.h - internal to src/vulkan: the barriers the exporter (v1),
 * the ring (v2) and its RGB pass record. (The function table, the VkResult
 * checker and the namer are cg_vk_device.h: src/gl_ring uses them too.)
 */
#ifndef CG_VK_INTERNAL_H
#define CG_VK_INTERNAL_H

#include "cg_err.h"
#include "cg_vk_device.h" /* vulkan.h without prototypes */

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
