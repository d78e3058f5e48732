/*
 * cg_metal_vk_apple.c - cg_metal surface -> VkImportMetalIOSurfaceInfoEXT.
 * Apple only. Type-checked on Linux CI against the real vulkan_metal.h
 * (whose IOSurfaceRef must be the very type IOSurfaceRef.h declares);
 * not run on a Mac by this project.
 */
#include <IOSurface/IOSurfaceRef.h>

#include "cg_metal_vk.h"

cg_status cg_metal_vk_import_info(const cg_metal_surface *s, VkImportMetalIOSurfaceInfoEXT *info)
{
    if (s == NULL || info == NULL || cg_metal_surface_handle(s) == NULL) return CG_E_INVALID_ARG;
    IOSurfaceRef surface = (IOSurfaceRef)cg_metal_surface_handle(s);
    info->sType = VK_STRUCTURE_TYPE_IMPORT_METAL_IO_SURFACE_INFO_EXT;
    info->pNext = NULL;
    info->ioSurface = surface;
    return CG_OK;
}

VkFormat cg_metal_vk_format(const cg_metal_surface *s)
{
    if (s == NULL) return VK_FORMAT_UNDEFINED;
    return cg_metal_surface_pixel_format(s) == CG_METAL_FORMAT_BGRA ? VK_FORMAT_B8G8R8A8_UNORM
                                                                     : VK_FORMAT_R8G8B8A8_UNORM;
}
