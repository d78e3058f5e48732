/*
 * cg_metal_vk.h - hand a cg_metal surface to Vulkan (MoltenVK) through
 * VK_EXT_metal_objects. Apple only (compiled when CMake targets Apple and
 * finds Vulkan-Headers); needs VK_USE_PLATFORM_METAL_EXT, which the build
 * defines for this target.
 *
 * For a mod that does its Vulkan work natively: chain the filled struct
 * into VkImageCreateInfo.pNext of a VK_FORMAT_R8G8B8A8_UNORM image (for a
 * CG_METAL_FORMAT_RGBA surface; B8G8R8A8 for BGRA) of the surface's size,
 * and the image aliases the surface memory that the Python side maps.
 */
#ifndef CG_METAL_VK_H
#define CG_METAL_VK_H

#include <vulkan/vulkan.h>

#include "cg_metal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fill `info` (sType, pNext = NULL, ioSurface) for surface `s`.
 * CG_E_INVALID_ARG on NULL. The surface keeps ownership of the IOSurface;
 * Vulkan retains what it imports. */
cg_status cg_metal_vk_import_info(const cg_metal_surface *s, VkImportMetalIOSurfaceInfoEXT *info);

/* The VkFormat whose memory layout matches the surface's pixel format. */
VkFormat cg_metal_vk_format(const cg_metal_surface *s);

#ifdef __cplusplus
}
#endif

#endif /* CG_METAL_VK_H */
