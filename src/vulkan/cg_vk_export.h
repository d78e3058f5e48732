/*
 * cg_vk_export.h - the Vulkan (producer) half of the zero-copy path.
 *
 * For a native Vulkan user (and the tests): given the caller's VkInstance,
 * VkPhysicalDevice, VkDevice and vkGetInstanceProcAddr, create an RGBA8
 * destination image whose memory is exportable (dedicated allocation,
 * OPAQUE_FD), export its fd and the device UUID (for cg_cuda_import_init),
 * copy the game's image into it each frame, and optionally export a
 * semaphore that the copy signals (for cg_cuda_import_semaphore).
 *
 * Needs no CUDA and links no Vulkan loader: every entry point is fetched
 * through the caller's vkGetInstanceProcAddr (VK_NO_PROTOTYPES). The
 * device must have VK_KHR_external_memory_fd enabled, plus
 * VK_KHR_external_semaphore_fd (and the timelineSemaphore feature) for the
 * semaphore modes. With debug_utils set (VK_EXT_debug_utils enabled on the
 * instance) every object the library creates gets a name starting "cg ".
 *
 * Threading: a context is used by one thread at a time; the queue it
 * submits to must not be used concurrently by another thread (Vulkan's
 * external synchronisation rule for VkQueue).
 */
#ifndef CG_VK_EXPORT_H
#define CG_VK_EXPORT_H

#include <stdint.h>

#include "cg_vk_device.h" /* vulkan.h without prototypes, cg_err.h, cg_vk_result_name */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_vk_export cg_vk_export;

/* How the consumer learns that a frame's copy is complete. */
typedef enum cg_vk_sync {
    CG_VK_SYNC_FENCE = 0,   /* cg_vk_export_copy waits on a fence before returning */
    CG_VK_SYNC_BINARY = 1,  /* copy signals an exportable binary semaphore */
    CG_VK_SYNC_TIMELINE = 2 /* copy signals an exportable timeline semaphore */
} cg_vk_sync;

typedef struct cg_vk_export_desc {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    uint32_t queue_family; /* family of the queue the copies are submitted to */
    uint32_t queue_index;  /* index of that queue within the family */
    int width, height;     /* pixels, 1..CG_MAX_DIM; the game image must match */
    VkFormat format;       /* a 4-byte RGBA format; VK_FORMAT_UNDEFINED = R8G8B8A8_UNORM */
    cg_vk_sync sync;
    int debug_utils;       /* nonzero: name every created object (VK_EXT_debug_utils) */
} cg_vk_export_desc;

/* What the consumer needs to import the image (cg_ext_memory_desc). */
typedef struct cg_vk_export_info {
    uint8_t device_uuid[CG_DEVICE_UUID_SIZE]; /* VkPhysicalDeviceIDProperties.deviceUUID */
    uint64_t allocation_size; /* VkMemoryRequirements.size */
    int dedicated;            /* always 1: the allocation is dedicated */
    int color_attachment;     /* always 1: usage includes COLOR_ATTACHMENT */
    int width, height;
    VkFormat format;
    VkImage image;            /* owned by the context */
    VkDeviceMemory memory;    /* owned by the context */
    VkSemaphore semaphore;    /* VK_NULL_HANDLE in fence mode */
} cg_vk_export_info;

/* Create the exportable image, its memory, a command pool/buffer, a fence
 * and (semaphore modes) the exportable semaphore. *out = NULL on error.
 * Errors: CG_E_INVALID_ARG / dims; CG_E_UNSUPPORTED (an entry point or
 * extension is missing, or the format cannot be exported as OPAQUE_FD);
 * CG_E_VULKAN (a call failed: err, if non-NULL, receives the text);
 * CG_E_NO_MEMORY. Everything created is destroyed on failure. */
cg_status cg_vk_export_create(const cg_vk_export_desc *d, cg_vk_export **out, cg_err *err);

/* Wait for the last copy, destroy everything created. NULL: no-op. */
void cg_vk_export_destroy(cg_vk_export *e);

/* Text of the last failure: VkResult name, expression, file, line. */
const char *cg_vk_export_last_error(const cg_vk_export *e);

void cg_vk_export_get_info(const cg_vk_export *e, cg_vk_export_info *info);

/* A new fd for the image memory (vkGetMemoryFdKHR); the caller owns it
 * (hand it to cg_cuda_import_init, which consumes or closes it). */
cg_status cg_vk_export_memory_fd(cg_vk_export *e, int *fd);

/* A new fd for the semaphore (semaphore modes only; else CG_E_BAD_STATE). */
cg_status cg_vk_export_semaphore_fd(cg_vk_export *e, int *fd);

/* Record into the caller's command buffer: `src` (an RGBA8 image of the
 * same size, currently in src_layout, usage including TRANSFER_SRC) is
 * copied into the export image, and src is returned to src_layout. The
 * export image ends in GENERAL layout, released to VK_QUEUE_FAMILY_EXTERNAL.
 * Row order is unchanged. */
cg_status cg_vk_export_record_copy(cg_vk_export *e, VkCommandBuffer cmd, VkImage src,
                                   VkImageLayout src_layout);

/* Record the copy into the context's own command buffer and submit it to
 * the queue. FENCE mode: returns after the fence signalled. Semaphore
 * modes: returns after submission; the semaphore is signalled when the
 * copy completes (timeline: with the value written to *signal_value, which
 * increases by one per call; binary: *signal_value = 0). signal_value may
 * be NULL. Waits for the previous copy's fence before re-recording. A
 * binary semaphore's signal must be consumed (cg_cuda_import_copy waits on
 * it) before the next copy signals it again.
 *
 * States: usable after create; FAILED after a copy failed (the command
 * buffer and fence are then in an unknown state), when every copy returns
 * CG_E_BAD_STATE; destroyed by cg_vk_export_destroy. */
cg_status cg_vk_export_copy(cg_vk_export *e, VkImage src, VkImageLayout src_layout,
                            uint64_t *signal_value);

#ifdef __cplusplus
}
#endif

#endif /* CG_VK_EXPORT_H */
