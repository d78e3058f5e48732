/*
 * cg_vk_device.c - the one Vulkan function table, the VkResult names and
 * the object namer (cg_vk_device.h).
 */
#include "cg_vk_device.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

cg_status cg_vk_device_load(cg_vk_device *vk, const cg_vk_device_desc *d, cg_err *err)
{
    CG_RETURN_IF(!vk, CG_E_INVALID_ARG);
    memset(vk, 0, sizeof *vk);
    if (!d || !d->get_instance_proc_addr || !d->instance)
        return cg_fail(err, CG_E_INVALID_ARG, "vkGetInstanceProcAddr and an instance are required");
    PFN_vkGetInstanceProcAddr gipa = d->get_instance_proc_addr;
    vk->vkGetInstanceProcAddr = gipa;
    vk->instance = d->instance;
    vk->debug_utils = d->debug_utils;
#define CG_VK_LOAD_I_(fn)                                                       \
    vk->fn = (PFN_##fn)gipa(d->instance, #fn);                                  \
    if (!vk->fn)                                                                \
        return cg_fail(err, CG_E_UNSUPPORTED,                                   \
                       "Vulkan 1.1 instance entry point %s is missing", #fn);
    CG_VK_INSTANCE_FUNCS(CG_VK_LOAD_I_)
#undef CG_VK_LOAD_I_
    if (d->debug_utils) {
#define CG_VK_LOAD_OPT_(fn) vk->fn = (PFN_##fn)gipa(d->instance, #fn);
        CG_VK_DEBUG_FUNCS(CG_VK_LOAD_OPT_)
#undef CG_VK_LOAD_OPT_
    }
    if (!d->device) return CG_OK;
    return cg_vk_device_load_device(vk, d->physical_device, d->device, err);
}

cg_status cg_vk_device_load_device(cg_vk_device *vk, VkPhysicalDevice pd, VkDevice dev,
                                   cg_err *err)
{
    CG_RETURN_IF(!vk || !vk->vkGetDeviceProcAddr || !dev, CG_E_INVALID_ARG);
    vk->physical_device = pd;
    vk->device = dev;
    PFN_vkGetDeviceProcAddr gdpa = vk->vkGetDeviceProcAddr;
#define CG_VK_LOAD_D_(fn)                                                       \
    vk->fn = (PFN_##fn)gdpa(dev, #fn);                                          \
    if (!vk->fn)                                                                \
        return cg_fail(err, CG_E_UNSUPPORTED,                                   \
                       "device entry point %s is missing (is VK_KHR_external_memory_fd " \
                       "enabled?)",                                             \
                       #fn);
    CG_VK_DEVICE_FUNCS(CG_VK_LOAD_D_)
#undef CG_VK_LOAD_D_
#define CG_VK_LOAD_DOPT_(fn) vk->fn = (PFN_##fn)gdpa(dev, #fn);
    CG_VK_DEVICE_OPT_FUNCS(CG_VK_LOAD_DOPT_)
#undef CG_VK_LOAD_DOPT_
    return CG_OK;
}

const char *cg_vk_result_name(VkResult r)
{
    switch (r) {
#define CG_VK_R_(x) \
    case x:         \
        return #x;
        CG_VK_R_(VK_SUCCESS)
        CG_VK_R_(VK_NOT_READY)
        CG_VK_R_(VK_TIMEOUT)
        CG_VK_R_(VK_INCOMPLETE)
        CG_VK_R_(VK_ERROR_OUT_OF_HOST_MEMORY)
        CG_VK_R_(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        CG_VK_R_(VK_ERROR_INITIALIZATION_FAILED)
        CG_VK_R_(VK_ERROR_DEVICE_LOST)
        CG_VK_R_(VK_ERROR_MEMORY_MAP_FAILED)
        CG_VK_R_(VK_ERROR_LAYER_NOT_PRESENT)
        CG_VK_R_(VK_ERROR_EXTENSION_NOT_PRESENT)
        CG_VK_R_(VK_ERROR_FEATURE_NOT_PRESENT)
        CG_VK_R_(VK_ERROR_INCOMPATIBLE_DRIVER)
        CG_VK_R_(VK_ERROR_TOO_MANY_OBJECTS)
        CG_VK_R_(VK_ERROR_FORMAT_NOT_SUPPORTED)
        CG_VK_R_(VK_ERROR_FRAGMENTED_POOL)
        CG_VK_R_(VK_ERROR_UNKNOWN)
        CG_VK_R_(VK_ERROR_OUT_OF_POOL_MEMORY)
        CG_VK_R_(VK_ERROR_INVALID_EXTERNAL_HANDLE)
#undef CG_VK_R_
    default:
        return "VK_ERROR_(unnamed)";
    }
}

uint32_t cg_vk_memory_type(const cg_vk_device *vk, uint32_t bits, VkMemoryPropertyFlags props)
{
    VkPhysicalDeviceMemoryProperties mp;
    vk->vkGetPhysicalDeviceMemoryProperties(vk->physical_device, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & props) == props) return i;
    return UINT32_MAX;
}

void cg_vk_device_name(const cg_vk_device *vk, VkObjectType type, uint64_t handle,
                       const char *fmt, ...)
{
    if (!vk || !vk->debug_utils || !vk->vkSetDebugUtilsObjectNameEXT || !handle) return;
    char name[80];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    VkDebugUtilsObjectNameInfoEXT ni = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    ni.objectType = type;
    ni.objectHandle = handle;
    ni.pObjectName = name;
    /* A debugging aid: its failure must not fail the setup. */
    (void)vk->vkSetDebugUtilsObjectNameEXT(vk->device, &ni);
}
