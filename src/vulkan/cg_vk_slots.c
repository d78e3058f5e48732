/*
 * cg_vk_slots.c - a ring's exported slot memory, timeline semaphore and
 * per-slot fences (cg_vk_slots.h).
 */
#include "cg_vk_slots.h"

#include <string.h>

/* The external handle types of the slots and the semaphore, which
 * create_slot and create_semaphore export as a cg_oshandle (an fd here:
 * vkGetMemoryFdKHR, vkGetSemaphoreFdKHR). Nothing else in the slots knows
 * the kind; a platform whose handles are not fds exports its own there
 * (VK_KHR_external_memory_win32: OPAQUE_WIN32 and
 * vkGetMemoryWin32HandleKHR, that extension and its entry points enabled
 * in cg_vk_device.h instead of the _fd ones). */
#define SLOT_MEMORY_HANDLE VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT
#define SLOT_SEMAPHORE_HANDLE VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT

static cg_status check_exportable(const cg_vk_device *vk, VkBufferUsageFlags usage, cg_err *err)
{
    VkPhysicalDeviceExternalBufferInfo bi = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    bi.usage = usage;
    bi.handleType = SLOT_MEMORY_HANDLE;
    VkExternalBufferProperties ep = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vk->vkGetPhysicalDeviceExternalBufferProperties(vk->physical_device, &bi, &ep);
    VkExternalMemoryFeatureFlags f = ep.externalMemoryProperties.externalMemoryFeatures;
    if (!(f & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
        return cg_fail(err, CG_E_UNSUPPORTED, "this device cannot export a buffer as OPAQUE_FD");
    if (f & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT)
        return cg_fail(err, CG_E_UNSUPPORTED,
                       "this device exports buffers only as dedicated allocations, which protocol "
                       "version 1 does not describe");
    return CG_OK;
}

/* Command buffer k of slot i, in a pool of its own (reset with it). */
static cg_status create_commands(cg_vk_slots *s, uint32_t i, uint32_t k, uint32_t queue_family,
                                 cg_err *err)
{
    const cg_vk_device *vk = s->vk;
    cg_vk_slot *sl = &s->slot[i];
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pci.queueFamilyIndex = queue_family;
    CG_TRY(CG_VK_CHECK(err, vk->vkCreateCommandPool(vk->device, &pci, NULL, &sl->pool[k])));
    CG_VK_NAME(vk, VK_OBJECT_TYPE_COMMAND_POOL, sl->pool[k], "cg ring slot %d command pool %d",
               (int)i, (int)k);
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = sl->pool[k];
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    CG_TRY(CG_VK_CHECK(err, vk->vkAllocateCommandBuffers(vk->device, &cai, &sl->cmd[k])));
    CG_VK_NAME(vk, VK_OBJECT_TYPE_COMMAND_BUFFER, sl->cmd[k], "cg ring slot %d copy %d", (int)i,
               (int)k);
    return CG_OK;
}

static cg_status create_slot(cg_vk_slots *s, uint32_t i, const cg_vk_slots_desc *d, cg_err *err)
{
    const cg_vk_device *vk = s->vk;
    cg_vk_slot *sl = &s->slot[i];
    VkDevice dev = vk->device;
    VkExternalMemoryBufferCreateInfo eb = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    eb.handleTypes = SLOT_MEMORY_HANDLE;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.pNext = &eb;
    bci.size = d->size;
    bci.usage = d->usage;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    CG_TRY(CG_VK_CHECK(err, vk->vkCreateBuffer(dev, &bci, NULL, &sl->buffer)));
    CG_VK_NAME(vk, VK_OBJECT_TYPE_BUFFER, sl->buffer, "cg ring slot %d buffer", (int)i);
    VkMemoryRequirements req;
    vk->vkGetBufferMemoryRequirements(dev, sl->buffer, &req);
    uint32_t type =
        cg_vk_memory_type(vk, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type == UINT32_MAX)
        return cg_fail(err, CG_E_UNSUPPORTED, "no device-local memory type for the ring buffers");
    VkExportMemoryAllocateInfo ex = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    ex.handleTypes = SLOT_MEMORY_HANDLE;
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = &ex;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    CG_TRY(CG_VK_CHECK(err, vk->vkAllocateMemory(dev, &ai, NULL, &sl->memory)));
    CG_VK_NAME(vk, VK_OBJECT_TYPE_DEVICE_MEMORY, sl->memory, "cg ring slot %d memory", (int)i);
    s->slot_size = req.size; /* the same for every slot: same size and usage */
    CG_TRY(CG_VK_CHECK(err, vk->vkBindBufferMemory(dev, sl->buffer, sl->memory, 0)));
    VkMemoryGetFdInfoKHR gi = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    gi.memory = sl->memory;
    gi.handleType = SLOT_MEMORY_HANDLE;
    CG_TRY(CG_VK_CHECK(err, vk->vkGetMemoryFdKHR(dev, &gi, &sl->memory_handle)));
    for (uint32_t k = 0; k < d->commands; k++) CG_TRY(create_commands(s, i, k, d->queue_family, err));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CG_TRY(CG_VK_CHECK(err, vk->vkCreateFence(dev, &fci, NULL, &sl->fence)));
    CG_VK_NAME(vk, VK_OBJECT_TYPE_FENCE, sl->fence, "cg ring slot %d fence", (int)i);
    return CG_OK;
}

static cg_status create_semaphore(cg_vk_slots *s, cg_err *err)
{
    const cg_vk_device *vk = s->vk;
    VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    ti.initialValue = 0;
    VkExportSemaphoreCreateInfo es = {.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    es.pNext = &ti;
    es.handleTypes = SLOT_SEMAPHORE_HANDLE;
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    si.pNext = &es;
    CG_TRY(CG_VK_CHECK(err, vk->vkCreateSemaphore(vk->device, &si, NULL, &s->semaphore)));
    CG_VK_NAME(vk, VK_OBJECT_TYPE_SEMAPHORE, s->semaphore, "cg ring timeline semaphore");
    VkSemaphoreGetFdInfoKHR gi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    gi.semaphore = s->semaphore;
    gi.handleType = SLOT_SEMAPHORE_HANDLE;
    return CG_VK_CHECK(err, vk->vkGetSemaphoreFdKHR(vk->device, &gi, &s->semaphore_handle));
}

cg_status cg_vk_slots_create(cg_vk_slots *s, const cg_vk_slots_desc *d, cg_err *err)
{
    CG_RETURN_IF(!s || !d || !d->vk || !d->count || d->count > CG_ZC_MAX_SLOTS ||
                     d->commands > CG_VK_SLOT_COMMANDS,
                 CG_E_INVALID_ARG);
    memset(s, 0, sizeof *s);
    s->vk = d->vk;
    s->semaphore_handle = CG_OSHANDLE_INVALID;
    for (uint32_t i = 0; i < CG_ZC_MAX_SLOTS; i++) s->slot[i].memory_handle = CG_OSHANDLE_INVALID;
    CG_TRY(check_exportable(d->vk, d->usage, err));
    for (uint32_t i = 0; i < d->count; i++) {
        s->count = i + 1; /* what destroy looks at */
        CG_TRY(create_slot(s, i, d, err));
    }
    if (d->timeline) CG_TRY(create_semaphore(s, err));
    return CG_OK;
}

cg_status cg_vk_slots_idle(cg_vk_slots *s, uint32_t i, int *idle, cg_err *err)
{
    cg_vk_slot *sl = &s->slot[i];
    *idle = 1;
    if (!sl->pending) return CG_OK;
    VkResult res = s->vk->vkGetFenceStatus(s->vk->device, sl->fence);
    if (res == VK_NOT_READY) {
        *idle = 0;
        return CG_OK;
    }
    CG_TRY(CG_VK_CHECK(err, res));
    sl->pending = 0;
    return CG_OK;
}

cg_status cg_vk_slots_bridge(cg_vk_slots *s, uint32_t i, VkQueue queue, VkSemaphore wait,
                             uint64_t frame, cg_err *err)
{
    const cg_vk_device *vk = s->vk;
    cg_vk_slot *sl = &s->slot[i];
    CG_TRY(CG_VK_CHECK(err, vk->vkResetFences(vk->device, 1, &sl->fence)));
    const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    const uint64_t ignored = 0; /* a binary wait's value is ignored */
    VkTimelineSemaphoreSubmitInfo ts = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    ts.waitSemaphoreValueCount = 1;
    ts.pWaitSemaphoreValues = &ignored;
    ts.signalSemaphoreValueCount = 1;
    ts.pSignalSemaphoreValues = &frame;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.pNext = &ts;
    si.waitSemaphoreCount = 1;
    si.pWaitSemaphores = &wait;
    si.pWaitDstStageMask = &stage;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &s->semaphore;
    CG_TRY(CG_VK_CHECK(err, vk->vkQueueSubmit(queue, 1, &si, sl->fence)));
    sl->pending = 1;
    return CG_OK;
}

void cg_vk_slots_release(cg_vk_slots *s)
{
    if (!s || !s->vk) return;
    const cg_vk_device *vk = s->vk;
    VkDevice dev = vk->device;
    for (uint32_t i = 0; i < s->count; i++) {
        cg_vk_slot *sl = &s->slot[i];
        /* Teardown is the one place that waits: the slot's own submits
         * must finish before its buffer goes. */
        if (sl->pending && vk->vkWaitForFences)
            (void)vk->vkWaitForFences(dev, 1, &sl->fence, VK_TRUE, UINT64_MAX);
        sl->pending = 0;
        if (sl->fence && vk->vkDestroyFence) vk->vkDestroyFence(dev, sl->fence, NULL);
        for (uint32_t k = 0; k < CG_VK_SLOT_COMMANDS; k++) {
            if (sl->pool[k] && vk->vkDestroyCommandPool) vk->vkDestroyCommandPool(dev, sl->pool[k], NULL);
            sl->pool[k] = VK_NULL_HANDLE;
            sl->cmd[k] = VK_NULL_HANDLE;
        }
        sl->fence = VK_NULL_HANDLE;
        cg_oshandle_close(sl->memory_handle);
        sl->memory_handle = CG_OSHANDLE_INVALID;
    }
    if (s->semaphore && vk->vkDestroySemaphore) vk->vkDestroySemaphore(dev, s->semaphore, NULL);
    s->semaphore = VK_NULL_HANDLE;
    cg_oshandle_close(s->semaphore_handle);
    s->semaphore_handle = CG_OSHANDLE_INVALID;
}

void cg_vk_slots_free_memory(cg_vk_slots *s)
{
    if (!s || !s->vk) return;
    const cg_vk_device *vk = s->vk;
    for (uint32_t i = 0; i < s->count; i++) {
        cg_vk_slot *sl = &s->slot[i];
        if (sl->buffer && vk->vkDestroyBuffer) vk->vkDestroyBuffer(vk->device, sl->buffer, NULL);
        if (sl->memory && vk->vkFreeMemory) vk->vkFreeMemory(vk->device, sl->memory, NULL);
        sl->buffer = VK_NULL_HANDLE;
        sl->memory = VK_NULL_HANDLE;
    }
}

void cg_vk_slots_destroy(cg_vk_slots *s)
{
    cg_vk_slots_release(s);
    cg_vk_slots_free_memory(s);
}
