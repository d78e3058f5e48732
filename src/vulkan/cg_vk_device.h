/*
 * cg_vk_device.h - the library's one Vulkan function table, its one
 * VkResult checker and its one object namer (internal to the library:
 * src/vulkan, src/gl_ring).
 *
 * Every entry point comes from the caller's vkGetInstanceProcAddr
 * (VK_NO_PROTOTYPES; the loader is never linked), loaded once per device
 * into a cg_vk_device, the way volk's VolkDeviceTable and Mesa's
 * vk_device_dispatch_table do it: instance-level entries through
 * vkGetInstanceProcAddr, device-level ones through vkGetDeviceProcAddr.
 * The lists below are X-macros: a new entry point is one line. Core
 * entries (Vulkan 1.1, plus VK_KHR_external_memory_fd, which every user
 * enables) are required; optional ones are NULL when absent, and the user
 * that needs one says so with CG_E_UNSUPPORTED.
 *
 * The exporter (v1), the ring (v2), its RGB pass and the GL ring each keep
 * a table of their own (a fence-mode ring may outlive its caller's call,
 * in the graveyard), and their functions take a `const cg_vk_device *`.
 * The GL ring's own instance and device (a GL game has neither) are made
 * by cg_vk_own_device_open (cg_vk_device_own.c).
 */
#ifndef CG_VK_DEVICE_H
#define CG_VK_DEVICE_H

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <stdint.h>

#include "cg_err.h"
#include "cg_size.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Instance-level, required (Vulkan 1.1 core). */
#define CG_VK_INSTANCE_FUNCS(X)                                                 \
    X(vkGetDeviceProcAddr)                                                      \
    X(vkEnumeratePhysicalDevices)                                               \
    X(vkEnumerateDeviceExtensionProperties)                                     \
    X(vkCreateDevice)                                                           \
    X(vkGetPhysicalDeviceProperties2)                                           \
    X(vkGetPhysicalDeviceFeatures2)                                             \
    X(vkGetPhysicalDeviceMemoryProperties)                                      \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                 \
    X(vkGetPhysicalDeviceImageFormatProperties2)                                \
    X(vkGetPhysicalDeviceExternalBufferProperties)

/* Instance-level, optional: VK_EXT_debug_utils, loaded only with
 * debug_utils set (NULL otherwise, so that nothing calls them unasked). */
#define CG_VK_DEBUG_FUNCS(X)                                                    \
    X(vkSetDebugUtilsObjectNameEXT)                                             \
    X(vkCmdBeginDebugUtilsLabelEXT)                                             \
    X(vkCmdEndDebugUtilsLabelEXT)                                               \
    X(vkQueueBeginDebugUtilsLabelEXT)                                           \
    X(vkQueueEndDebugUtilsLabelEXT)

/* Device-level, required (Vulkan 1.1 core and VK_KHR_external_memory_fd). */
#define CG_VK_DEVICE_FUNCS(X)                                                   \
    X(vkDestroyDevice)                                                          \
    X(vkDeviceWaitIdle)                                                         \
    X(vkGetDeviceQueue)                                                         \
    X(vkQueueSubmit)                                                            \
    X(vkGetMemoryFdKHR)                                                         \
    X(vkAllocateMemory)                                                         \
    X(vkFreeMemory)                                                             \
    X(vkMapMemory)                                                              \
    X(vkUnmapMemory)                                                            \
    X(vkCreateBuffer)                                                           \
    X(vkDestroyBuffer)                                                          \
    X(vkGetBufferMemoryRequirements)                                            \
    X(vkBindBufferMemory)                                                       \
    X(vkCreateImage)                                                            \
    X(vkDestroyImage)                                                           \
    X(vkGetImageMemoryRequirements2)                                            \
    X(vkBindImageMemory)                                                        \
    X(vkCreateImageView)                                                        \
    X(vkDestroyImageView)                                                       \
    X(vkCreateSampler)                                                          \
    X(vkDestroySampler)                                                         \
    X(vkCreateSemaphore)                                                        \
    X(vkDestroySemaphore)                                                       \
    X(vkCreateFence)                                                            \
    X(vkDestroyFence)                                                           \
    X(vkGetFenceStatus)                                                         \
    X(vkWaitForFences)                                                          \
    X(vkResetFences)                                                            \
    X(vkCreateCommandPool)                                                      \
    X(vkDestroyCommandPool)                                                     \
    X(vkResetCommandPool)                                                       \
    X(vkAllocateCommandBuffers)                                                 \
    X(vkBeginCommandBuffer)                                                     \
    X(vkEndCommandBuffer)                                                       \
    X(vkResetCommandBuffer)                                                     \
    X(vkCreateShaderModule)                                                     \
    X(vkDestroyShaderModule)                                                    \
    X(vkCreateDescriptorSetLayout)                                              \
    X(vkDestroyDescriptorSetLayout)                                             \
    X(vkCreatePipelineLayout)                                                   \
    X(vkDestroyPipelineLayout)                                                  \
    X(vkCreateComputePipelines)                                                 \
    X(vkDestroyPipeline)                                                        \
    X(vkCreateDescriptorPool)                                                   \
    X(vkDestroyDescriptorPool)                                                  \
    X(vkAllocateDescriptorSets)                                                 \
    X(vkUpdateDescriptorSets)                                                   \
    X(vkCmdPipelineBarrier)                                                     \
    X(vkCmdCopyImage)                                                           \
    X(vkCmdCopyImageToBuffer)                                                   \
    X(vkCmdCopyBufferToImage)                                                   \
    X(vkCmdBindPipeline)                                                        \
    X(vkCmdBindDescriptorSets)                                                  \
    X(vkCmdPushConstants)                                                       \
    X(vkCmdDispatch)

/* Device-level, optional: VK_KHR_external_semaphore_fd. */
#define CG_VK_DEVICE_OPT_FUNCS(X) X(vkGetSemaphoreFdKHR)

/* What a table is loaded from: the caller's handles. */
typedef struct cg_vk_device_desc {
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device; /* VK_NULL_HANDLE: instance level only (cg_vk_device_load_device later) */
    int debug_utils; /* nonzero: VK_EXT_debug_utils is enabled: name objects, label */
} cg_vk_device_desc;

typedef struct cg_vk_device {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    int debug_utils;
#define CG_VK_MEMBER_(fn) PFN_##fn fn;
    CG_VK_INSTANCE_FUNCS(CG_VK_MEMBER_)
    CG_VK_DEBUG_FUNCS(CG_VK_MEMBER_)
    CG_VK_DEVICE_FUNCS(CG_VK_MEMBER_)
    CG_VK_DEVICE_OPT_FUNCS(CG_VK_MEMBER_)
#undef CG_VK_MEMBER_
} cg_vk_device;

/* Fill *vk from d (every entry: instance and, when d->device is set,
 * device level). CG_E_INVALID_ARG: no gipa or instance; CG_E_UNSUPPORTED:
 * a required entry point is missing (err names it). *vk is zeroed first,
 * so on failure the entries not loaded are NULL. */
cg_status cg_vk_device_load(cg_vk_device *vk, const cg_vk_device_desc *d, cg_err *err);

/* The device-level half, for a table whose device was made after
 * cg_vk_device_load (the GL ring's own device). */
cg_status cg_vk_device_load_device(cg_vk_device *vk, VkPhysicalDevice pd, VkDevice dev,
                                   cg_err *err);

/* The VkResult's symbolic name ("VK_ERROR_OUT_OF_DEVICE_MEMORY"). */
const char *cg_vk_result_name(VkResult r);

/* Record a failed Vulkan call in the shared shape (cg_err.h); CG_OK for
 * VK_SUCCESS. Out of host memory is CG_E_NO_MEMORY, the rest CG_E_VULKAN.
 * The one VkResult checker of every Vulkan user in the library; CG_VK_CHECK
 * names the expression, file and line. */
static inline cg_status cg_vk_check_result(cg_err *e, VkResult r, const char *expr,
                                           const char *file, int line)
{
    if (r == VK_SUCCESS) return CG_OK;
    return cg_fail_call(e, r == VK_ERROR_OUT_OF_HOST_MEMORY ? CG_E_NO_MEMORY : CG_E_VULKAN, expr,
                        cg_vk_result_name(r), (long long)r, file, line);
}
#define CG_VK_CHECK(err, expr) cg_vk_check_result((err), (expr), #expr, __FILE__, __LINE__)

/* The first of vk's physical device's memory types in `bits` (a
 * VkMemoryRequirements' memoryTypeBits) whose flags hold all of `props`;
 * UINT32_MAX when there is none. The library's one memory-type choice. */
uint32_t cg_vk_memory_type(const cg_vk_device *vk, uint32_t bits, VkMemoryPropertyFlags props);

/* Name a Vulkan object (VK_EXT_debug_utils) with the printf-style text
 * fmt: a debugging aid, so nothing happens without debug_utils, for a null
 * handle, and its failure fails nothing. The one namer of the library;
 * CG_VK_NAME takes the handle of any type. */
void cg_vk_device_name(const cg_vk_device *vk, VkObjectType type, uint64_t handle,
                       const char *fmt, ...) CG_PRINTF_(4, 5);
#define CG_VK_NAME(vk, type, obj, ...) \
    cg_vk_device_name((vk), (type), (uint64_t)(uintptr_t)(obj), __VA_ARGS__)

/* ---- the library's own instance and device (cg_vk_device_own.c) ----------- */

/* The one device rule of a producer whose GPU is named by a UUID: the
 * index of the first of n Vulkan device UUIDs that equals want (the GL
 * ring's cg_gl_ring_match_device: its error says whose UUID it is). */
typedef cg_status (*cg_vk_match_fn)(const uint8_t want[CG_DEVICE_UUID_SIZE],
                                    const uint8_t (*uuids)[CG_DEVICE_UUID_SIZE],
                                    const char *const *names, uint32_t n, uint32_t *index,
                                    cg_err *err);

typedef struct cg_vk_own_desc {
    const char *library;  /* the loader; NULL: "libvulkan.so.1" (cg_vk_instance.h) */
    const uint8_t *uuid;  /* CG_DEVICE_UUID_SIZE bytes: the GPU wanted */
    cg_vk_match_fn match; /* picks among the instance's physical devices */
} cg_vk_own_desc;

typedef struct cg_vk_own_device {
    cg_vk_device vk; /* the process's instance (never destroyed), the own device */
    VkQueue queue;   /* queue 0 of the first family that has one: its submits carry no commands */
    uint32_t queue_family;
    int semaphore_fd; /* VK_KHR_external_semaphore_fd is enabled */
    int timeline;     /* ... and timeline semaphores too */
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    uint8_t uuid[CG_DEVICE_UUID_SIZE];
} cg_vk_own_device;

/* Make a VkDevice of the process's own instance (cg_vk_instance_get) on
 * the GPU that d->match picks, with VK_KHR_external_memory_fd (required),
 * VK_KHR_external_semaphore_fd and timeline semaphores (when the device
 * has them), one queue. On failure whatever was made is in *out for
 * cg_vk_own_device_close. */
cg_status cg_vk_own_device_open(const cg_vk_own_desc *d, cg_vk_own_device *out, cg_err *err);

/* Wait for the device, destroy it (not the instance: it is the process's,
 * cg_vk_instance.h says why). Objects made on it must be destroyed first.
 * A device never made: no-op. */
void cg_vk_own_device_close(cg_vk_own_device *o);

#ifdef __cplusplus
}
#endif

#endif /* CG_VK_DEVICE_H */
