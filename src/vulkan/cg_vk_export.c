/*
 * cg_vk_export.c - exportable destination image, fd/semaphore export and
 * the per-frame copy (cg_vk_export.h). Entry points come from the caller's
 * vkGetInstanceProcAddr into a per-context table (cg_vk_device.h); nothing
 * here links the Vulkan loader or CUDA.
 */
#include "cg_vk_export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_size.h"
#include "cg_vk_internal.h"

struct cg_vk_export {
    cg_vk_export_desc d;
    cg_vk_device vk; /* the caller's instance and device */
    VkQueue queue;
    VkImage image;
    VkDeviceMemory memory;
    VkSemaphore semaphore;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    int fence_pending; /* a submitted copy not yet waited for */
    uint64_t timeline_value;
    uint8_t uuid[CG_DEVICE_UUID_SIZE];
    uint64_t alloc_size;
    cg_err err;
    int failed; /* a per-frame copy failed: refused until destroyed */
};

#define fail(e, st, ...) cg_fail(&(e)->err, (st), __VA_ARGS__)

static cg_status load_functions(cg_vk_export *e)
{
    cg_vk_device_desc dd = {e->d.get_instance_proc_addr, e->d.instance, e->d.physical_device,
                            e->d.device, e->d.debug_utils};
    CG_TRY(cg_vk_device_load(&e->vk, &dd, &e->err));
    if (e->d.sync != CG_VK_SYNC_FENCE && !e->vk.vkGetSemaphoreFdKHR)
        return fail(e, CG_E_UNSUPPORTED,
                    "vkGetSemaphoreFdKHR is missing: enable VK_KHR_external_semaphore_fd");
    return CG_OK;
}

static cg_status query_device(cg_vk_export *e)
{
    VkPhysicalDeviceIDProperties idp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &idp;
    e->vk.vkGetPhysicalDeviceProperties2(e->d.physical_device, &p2);
    memcpy(e->uuid, idp.deviceUUID, CG_DEVICE_UUID_SIZE);

    /* Can this format/usage be exported as OPAQUE_FD, and must it be dedicated? */
    VkPhysicalDeviceExternalImageFormatInfo ext = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO};
    ext.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkPhysicalDeviceImageFormatInfo2 fi = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2};
    fi.pNext = &ext;
    fi.format = e->d.format;
    fi.type = VK_IMAGE_TYPE_2D;
    fi.tiling = VK_IMAGE_TILING_OPTIMAL;
    fi.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
               VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    VkExternalImageFormatProperties eprops = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
    VkImageFormatProperties2 props = {.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2};
    props.pNext = &eprops;
    VkResult r = e->vk.vkGetPhysicalDeviceImageFormatProperties2(e->d.physical_device, &fi, &props);
    /* Only FORMAT_NOT_SUPPORTED means "cannot export"; any other failure
     * (out of memory, device lost) is reported as itself. */
    if (r != VK_SUCCESS && r != VK_ERROR_FORMAT_NOT_SUPPORTED)
        return cg_vk_check_result(&e->err, r, "vkGetPhysicalDeviceImageFormatProperties2(export image)",
                                  __FILE__, __LINE__);
    if (r == VK_ERROR_FORMAT_NOT_SUPPORTED ||
        !(eprops.externalMemoryProperties.externalMemoryFeatures &
          VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
        return fail(e, CG_E_UNSUPPORTED,
                    "this device cannot export an OPTIMAL image of format %d as an OPAQUE_FD",
                    (int)e->d.format);
    if ((uint32_t)e->d.width > props.imageFormatProperties.maxExtent.width ||
        (uint32_t)e->d.height > props.imageFormatProperties.maxExtent.height)
        return fail(e, CG_E_TOO_LARGE, "%dx%d exceeds the device's image limit", e->d.width,
                    e->d.height);
    return CG_OK;
}

static cg_status create_image(cg_vk_export *e)
{
    VkExternalMemoryImageCreateInfo ext = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
    ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkImageCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ci.pNext = &ext;
    ci.imageType = VK_IMAGE_TYPE_2D;
    ci.format = e->d.format;
    ci.extent.width = (uint32_t)e->d.width;
    ci.extent.height = (uint32_t)e->d.height;
    ci.extent.depth = 1;
    ci.mipLevels = 1;
    ci.arrayLayers = 1;
    ci.samples = VK_SAMPLE_COUNT_1_BIT;
    ci.tiling = VK_IMAGE_TILING_OPTIMAL;
    ci.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
               VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkCreateImage(e->d.device, &ci, NULL, &e->image)));
    CG_VK_NAME(&e->vk, VK_OBJECT_TYPE_IMAGE, e->image, "cg zero-copy export image");

    VkImageMemoryRequirementsInfo2 ri = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2};
    ri.image = e->image;
    VkMemoryRequirements2 req = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
    e->vk.vkGetImageMemoryRequirements2(e->d.device, &ri, &req);

    uint32_t type = cg_vk_memory_type(&e->vk, req.memoryRequirements.memoryTypeBits,
                                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type == UINT32_MAX)
        return fail(e, CG_E_UNSUPPORTED, "no device-local memory type for the export image");

    /* Dedicated: the CUDA import then passes cudaExternalMemoryDedicated. */
    VkMemoryDedicatedAllocateInfo ded = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    ded.image = e->image;
    VkExportMemoryAllocateInfo exp = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    exp.pNext = &ded;
    exp.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = &exp;
    ai.allocationSize = req.memoryRequirements.size;
    ai.memoryTypeIndex = type;
    CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkAllocateMemory(e->d.device, &ai, NULL, &e->memory)));
    CG_VK_NAME(&e->vk, VK_OBJECT_TYPE_DEVICE_MEMORY, e->memory, "cg zero-copy export memory");
    e->alloc_size = req.memoryRequirements.size;
    return CG_VK_CHECK(&e->err, e->vk.vkBindImageMemory(e->d.device, e->image, e->memory, 0));
}

static cg_status create_sync(cg_vk_export *e)
{
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = e->d.queue_family;
    CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkCreateCommandPool(e->d.device, &pi, NULL, &e->pool)));
    CG_VK_NAME(&e->vk, VK_OBJECT_TYPE_COMMAND_POOL, e->pool, "cg zero-copy command pool");
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = e->pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkAllocateCommandBuffers(e->d.device, &ai, &e->cmd)));
    CG_VK_NAME(&e->vk, VK_OBJECT_TYPE_COMMAND_BUFFER, e->cmd, "cg zero-copy command buffer");
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkCreateFence(e->d.device, &fi, NULL, &e->fence)));
    CG_VK_NAME(&e->vk, VK_OBJECT_TYPE_FENCE, e->fence, "cg zero-copy fence");
    e->vk.vkGetDeviceQueue(e->d.device, e->d.queue_family, e->d.queue_index, &e->queue);
    if (e->d.sync == CG_VK_SYNC_FENCE) return CG_OK;

    VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    ti.initialValue = 0;
    VkExportSemaphoreCreateInfo es = {.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    es.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    if (e->d.sync == CG_VK_SYNC_TIMELINE) es.pNext = &ti;
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    si.pNext = &es;
    CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkCreateSemaphore(e->d.device, &si, NULL, &e->semaphore)));
    CG_VK_NAME(&e->vk, VK_OBJECT_TYPE_SEMAPHORE, e->semaphore,
            e->d.sync == CG_VK_SYNC_TIMELINE ? "cg zero-copy timeline semaphore"
                                             : "cg zero-copy binary semaphore");
    return CG_OK;
}

cg_status cg_vk_export_create(const cg_vk_export_desc *d, cg_vk_export **out, cg_err *err)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = NULL;
    cg_err_clear(err);
    CG_RETURN_IF(!d || !d->instance || !d->physical_device || !d->device ||
                     !d->get_instance_proc_addr,
                 CG_E_INVALID_ARG);
    CG_RETURN_IF(d->sync != CG_VK_SYNC_FENCE && d->sync != CG_VK_SYNC_BINARY &&
                     d->sync != CG_VK_SYNC_TIMELINE,
                 CG_E_INVALID_ARG);
    CG_TRY(cg_check_dims(d->width, d->height));
    VkFormat fmt = d->format == VK_FORMAT_UNDEFINED ? VK_FORMAT_R8G8B8A8_UNORM : d->format;
    CG_RETURN_IF(fmt != VK_FORMAT_R8G8B8A8_UNORM && fmt != VK_FORMAT_R8G8B8A8_SRGB &&
                     fmt != VK_FORMAT_R8G8B8A8_UINT,
                 CG_E_INVALID_ARG);

    cg_vk_export *e = calloc(1, sizeof *e);
    CG_RETURN_IF(!e, CG_E_NO_MEMORY);
    e->d = *d;
    e->d.format = fmt;
    cg_status st = load_functions(e);
    if (st == CG_OK) st = query_device(e);
    if (st == CG_OK) st = create_image(e);
    if (st == CG_OK) st = create_sync(e);
    if (st != CG_OK) {
        cg_fail_from(err, st, &e->err);
        cg_vk_export_destroy(e);
        return st;
    }
    *out = e;
    return CG_OK;
}

void cg_vk_export_destroy(cg_vk_export *e)
{
    if (!e) return;
    VkDevice dev = e->d.device;
    if (e->fence && e->fence_pending && e->vk.vkWaitForFences)
        (void)e->vk.vkWaitForFences(dev, 1, &e->fence, VK_TRUE, UINT64_MAX);
    /* Functions may be missing when loading failed half-way. */
    if (e->semaphore && e->vk.vkDestroySemaphore) e->vk.vkDestroySemaphore(dev, e->semaphore, NULL);
    if (e->fence && e->vk.vkDestroyFence) e->vk.vkDestroyFence(dev, e->fence, NULL);
    if (e->pool && e->vk.vkDestroyCommandPool) e->vk.vkDestroyCommandPool(dev, e->pool, NULL);
    if (e->image && e->vk.vkDestroyImage) e->vk.vkDestroyImage(dev, e->image, NULL);
    if (e->memory && e->vk.vkFreeMemory) e->vk.vkFreeMemory(dev, e->memory, NULL);
    free(e);
}

const char *cg_vk_export_last_error(const cg_vk_export *e)
{
    return e ? cg_err_text(&e->err) : "";
}

void cg_vk_export_get_info(const cg_vk_export *e, cg_vk_export_info *info)
{
    if (!e || !info) return;
    memset(info, 0, sizeof *info);
    memcpy(info->device_uuid, e->uuid, CG_DEVICE_UUID_SIZE);
    info->allocation_size = e->alloc_size;
    info->dedicated = 1;
    info->color_attachment = 1;
    info->width = e->d.width;
    info->height = e->d.height;
    info->format = e->d.format;
    info->image = e->image;
    info->memory = e->memory;
    info->semaphore = e->semaphore;
}

cg_status cg_vk_export_memory_fd(cg_vk_export *e, int *fd)
{
    CG_RETURN_IF(!e || !fd, CG_E_INVALID_ARG);
    *fd = -1;
    VkMemoryGetFdInfoKHR gi = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    gi.memory = e->memory;
    gi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    return CG_VK_CHECK(&e->err, e->vk.vkGetMemoryFdKHR(e->d.device, &gi, fd));
}

cg_status cg_vk_export_semaphore_fd(cg_vk_export *e, int *fd)
{
    CG_RETURN_IF(!e || !fd, CG_E_INVALID_ARG);
    *fd = -1;
    CG_RETURN_IF(!e->semaphore, CG_E_BAD_STATE);
    VkSemaphoreGetFdInfoKHR gi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    gi.semaphore = e->semaphore;
    gi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    return CG_VK_CHECK(&e->err, e->vk.vkGetSemaphoreFdKHR(e->d.device, &gi, fd));
}

cg_status cg_vk_export_record_copy(cg_vk_export *e, VkCommandBuffer cmd, VkImage src,
                                   VkImageLayout src_layout)
{
    CG_RETURN_IF(!e || !cmd || !src, CG_E_INVALID_ARG);
    int move_src = src_layout != VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    VkImageMemoryBarrier pre[2];
    uint32_t npre = 0;
    /* The export image's old content is discarded: it is fully overwritten. */
    pre[npre++] = cg_vk_image_barrier(e->image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                          0, VK_ACCESS_TRANSFER_WRITE_BIT);
    if (move_src)
        pre[npre++] = cg_vk_image_barrier(src, src_layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                              VK_ACCESS_MEMORY_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    e->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                            VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, npre, pre);
    VkImageCopy region;
    memset(&region, 0, sizeof region);
    region.srcSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    region.srcSubresource.layerCount = 1;
    region.dstSubresource = region.srcSubresource;
    region.extent.width = (uint32_t)e->d.width;
    region.extent.height = (uint32_t)e->d.height;
    region.extent.depth = 1;
    e->vk.vkCmdCopyImage(cmd, src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, e->image,
                      VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    VkImageMemoryBarrier post[2];
    uint32_t npost = 0;
    /* Release to the external consumer (CUDA): a queue family ownership
     * transfer to VK_QUEUE_FAMILY_EXTERNAL, as the external-memory spec asks. */
    post[npost] = cg_vk_image_barrier(e->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL,
                          VK_ACCESS_TRANSFER_WRITE_BIT, 0);
    post[npost].srcQueueFamilyIndex = e->d.queue_family;
    post[npost].dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
    npost++;
    if (move_src)
        post[npost++] = cg_vk_image_barrier(src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, src_layout,
                                VK_ACCESS_TRANSFER_READ_BIT, 0);
    e->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL, 0, NULL, npost,
                            post);
    return CG_OK;
}

static cg_status submit_copy(cg_vk_export *e, VkImage src, VkImageLayout src_layout,
                             uint64_t *signal_value);

cg_status cg_vk_export_copy(cg_vk_export *e, VkImage src, VkImageLayout src_layout,
                            uint64_t *signal_value)
{
    CG_RETURN_IF(!e || !src, CG_E_INVALID_ARG);
    if (signal_value) *signal_value = 0;
    if (e->failed)
        return fail(e, CG_E_BAD_STATE,
                    "an earlier copy failed; destroy this export and create a new one");
    cg_status st = submit_copy(e, src, src_layout, signal_value);
    if (st != CG_OK) e->failed = 1;
    return st;
}

static cg_status submit_copy(cg_vk_export *e, VkImage src, VkImageLayout src_layout,
                             uint64_t *signal_value)
{
    VkDevice dev = e->d.device;
    if (e->fence_pending) {
        CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkWaitForFences(dev, 1, &e->fence, VK_TRUE, UINT64_MAX)));
        e->fence_pending = 0;
    }
    CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkResetFences(dev, 1, &e->fence)));
    CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkResetCommandBuffer(e->cmd, 0)));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkBeginCommandBuffer(e->cmd, &bi)));
    CG_TRY(cg_vk_export_record_copy(e, e->cmd, src, src_layout));
    CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkEndCommandBuffer(e->cmd)));

    uint64_t value = e->timeline_value + 1;
    VkTimelineSemaphoreSubmitInfo ts = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    ts.signalSemaphoreValueCount = 1;
    ts.pSignalSemaphoreValues = &value;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &e->cmd;
    if (e->semaphore) {
        si.signalSemaphoreCount = 1;
        si.pSignalSemaphores = &e->semaphore;
        if (e->d.sync == CG_VK_SYNC_TIMELINE) si.pNext = &ts;
    }
    CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkQueueSubmit(e->queue, 1, &si, e->fence)));
    e->fence_pending = 1;
    if (e->d.sync == CG_VK_SYNC_TIMELINE) {
        e->timeline_value = value;
        if (signal_value) *signal_value = value;
    }
    if (e->d.sync == CG_VK_SYNC_FENCE) {
        CG_TRY(CG_VK_CHECK(&e->err, e->vk.vkWaitForFences(dev, 1, &e->fence, VK_TRUE, UINT64_MAX)));
        e->fence_pending = 0;
    }
    return CG_OK;
}
