/*
 * cg_vk_ring.c - the zero-copy v2 producer (cg_vk_ring.h). Entry points
 * come from the caller's vkGetInstanceProcAddr into a per-ring table
 * (cg_vk_device.h).
 */
#define _GNU_SOURCE /* getrandom */
#include "cg_vk_ring.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cg_size.h"
#include "cg_vk_internal.h"
#include "cg_vk_rgb.h"
#include "cg_zc_leases.h"
#include "cg_zc_server.h"

typedef struct ring_slot {
    VkBuffer buffer;
    VkDeviceMemory memory;
    int memory_fd;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    int pending;  /* a submitted copy whose fence was not seen signalled */
    int released; /* released to VK_QUEUE_FAMILY_EXTERNAL by an earlier copy */
    /* What `cmd` holds, recorded (semaphore mode): a game alternates between
     * a few images, so the same copy is submitted again without recording. */
    VkImage rec_src;
    VkImageLayout rec_layout;
    int rec_acquire; /* recorded with the acquire from the external family */
    cg_cursor rec_cursor; /* RGB8: the cursor recorded */
} ring_slot;

struct cg_vk_ring {
    cg_vk_ring_desc d;
    cg_vk_device vk; /* the caller's instance and device; debug_utils: names, labels */

    ring_slot slot[CG_ZC_MAX_SLOTS];
    /* The producer's own view of the lease words, the slot search and the
     * frame number (src/zc, cg_zc_leases.h). */
    cg_zc_leases leases;
    /* Fence mode: a copy was recorded into a game command buffer, whose
     * completion the ring cannot see; destroy then defers freeing the slot
     * memory (and the RGB pass) that such a copy targets (see "deferred"
     * below). */
    int recorded;
    VkFence grave_fence;     /* covers the game's submits before it (deferred frees) */
    int grave_pending;       /* grave_fence submitted, not yet seen signalled */
    struct cg_vk_ring *covered;     /* deferred rings freed when grave_fence signals */
    struct cg_vk_ring *next_grave;  /* link in the graveyard or a covered list */
    VkSemaphore semaphore;
    int semaphore_fd;
    cg_zc_control control;
    cg_zc_server *server;
    cg_zc_desc tmpl; /* the descriptor's constant fields */
    uint64_t slot_size;
    cg_err err;
    int failed;
    VkBufferUsageFlags usage; /* of the slot buffers */
    cg_vk_rgb *rgb;           /* RGB8 slot format or the compute copy: the pass (cg_vk_rgb.c) */
    cg_vk_copy_path copy_path;
    cg_cursor cursor; /* the frame being recorded's */
};

static cg_status load_functions(cg_vk_ring *r)
{
    cg_vk_device_desc dd = {r->d.get_instance_proc_addr, r->d.instance, r->d.physical_device,
                            r->d.device, r->d.debug_utils};
    CG_TRY(cg_vk_device_load(&r->vk, &dd, &r->err));
    if (r->d.mode == CG_ZC_MODE_SEMAPHORE && !r->vk.vkGetSemaphoreFdKHR)
        return cg_fail(&r->err, CG_E_UNSUPPORTED,
                       "semaphore mode needs VK_KHR_external_semaphore_fd (vkGetSemaphoreFdKHR "
                       "is missing): use fence mode");
    return CG_OK;
}

static uint32_t device_local_type(cg_vk_ring *r, uint32_t bits)
{
    VkPhysicalDeviceMemoryProperties mp;
    r->vk.vkGetPhysicalDeviceMemoryProperties(r->d.physical_device, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
            return i;
    return UINT32_MAX;
}

#define RING_BUFFER_USAGE (VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT)

static cg_status check_exportable(cg_vk_ring *r)
{
    VkPhysicalDeviceExternalBufferInfo bi = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    bi.usage = r->usage;
    bi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkExternalBufferProperties ep = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    r->vk.vkGetPhysicalDeviceExternalBufferProperties(r->d.physical_device, &bi, &ep);
    VkExternalMemoryFeatureFlags f = ep.externalMemoryProperties.externalMemoryFeatures;
    if (!(f & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
        return cg_fail(&r->err, CG_E_UNSUPPORTED, "this device cannot export a buffer as OPAQUE_FD");
    if (f & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT)
        return cg_fail(&r->err, CG_E_UNSUPPORTED,
                       "this device exports buffers only as dedicated allocations, which protocol "
                       "version 1 does not describe");
    return CG_OK;
}

static cg_status create_slot(cg_vk_ring *r, uint32_t i, VkDeviceSize size)
{
    ring_slot *s = &r->slot[i];
    VkDevice dev = r->d.device;
    VkExternalMemoryBufferCreateInfo eb = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    eb.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.pNext = &eb;
    bci.size = size;
    bci.usage = r->usage;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkCreateBuffer(dev, &bci, NULL, &s->buffer)));
    CG_VK_NAME(&r->vk, VK_OBJECT_TYPE_BUFFER, s->buffer, "cg ring slot %d buffer", (int)i);
    VkMemoryRequirements req;
    r->vk.vkGetBufferMemoryRequirements(dev, s->buffer, &req);
    uint32_t type = device_local_type(r, req.memoryTypeBits);
    if (type == UINT32_MAX)
        return cg_fail(&r->err, CG_E_UNSUPPORTED, "no device-local memory type for the ring buffers");
    VkExportMemoryAllocateInfo ex = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    ex.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = &ex;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkAllocateMemory(dev, &ai, NULL, &s->memory)));
    CG_VK_NAME(&r->vk, VK_OBJECT_TYPE_DEVICE_MEMORY, s->memory, "cg ring slot %d memory", (int)i);
    r->slot_size = req.size; /* the same for every slot: same size and usage */
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkBindBufferMemory(dev, s->buffer, s->memory, 0)));
    VkMemoryGetFdInfoKHR gi = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    gi.memory = s->memory;
    gi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkGetMemoryFdKHR(dev, &gi, &s->memory_fd)));

    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pci.queueFamilyIndex = r->d.queue_family;
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkCreateCommandPool(dev, &pci, NULL, &s->pool)));
    CG_VK_NAME(&r->vk, VK_OBJECT_TYPE_COMMAND_POOL, s->pool, "cg ring slot %d command pool", (int)i);
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = s->pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkAllocateCommandBuffers(dev, &cai, &s->cmd)));
    CG_VK_NAME(&r->vk, VK_OBJECT_TYPE_COMMAND_BUFFER, s->cmd, "cg ring slot %d copy", (int)i);
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkCreateFence(dev, &fci, NULL, &s->fence)));
    CG_VK_NAME(&r->vk, VK_OBJECT_TYPE_FENCE, s->fence, "cg ring slot %d fence", (int)i);
    return CG_OK;
}

static cg_status create_semaphore(cg_vk_ring *r)
{
    VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    ti.initialValue = 0;
    VkExportSemaphoreCreateInfo es = {.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    es.pNext = &ti;
    es.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    si.pNext = &es;
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkCreateSemaphore(r->d.device, &si, NULL, &r->semaphore)));
    CG_VK_NAME(&r->vk, VK_OBJECT_TYPE_SEMAPHORE, r->semaphore, "cg ring timeline semaphore");
    VkSemaphoreGetFdInfoKHR gi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    gi.semaphore = r->semaphore;
    gi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    return CG_VK_CHECK(&r->err, r->vk.vkGetSemaphoreFdKHR(r->d.device, &gi, &r->semaphore_fd));
}

static uint64_t new_ring_id(void)
{
    uint64_t id = 0;
    if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id) {
        /* No entropy source: time and pid still differ between rings. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        id = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 16);
    }
    return id ? id : 1;
}

static cg_status create_rgb(cg_vk_ring *r, int copy)
{
    cg_vk_rgb_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.copy = copy;
    gd.vk = &r->vk;
    gd.queue_family = r->d.queue_family;
    gd.format = r->d.format;
    gd.src_w = r->d.width;
    gd.src_h = r->d.height;
    gd.dst_w = copy ? r->d.width : r->d.target_width;
    gd.dst_h = copy ? r->d.height : r->d.target_height;
    gd.flip = r->d.flip;
    gd.slots = r->d.slots;
    VkBuffer bufs[CG_ZC_MAX_SLOTS];
    for (uint32_t i = 0; i < r->d.slots; i++) bufs[i] = r->slot[i].buffer;
    gd.slot_buffers = bufs;
    return cg_vk_rgb_create(&gd, &r->rgb, &r->err);
}

/* The queue family names one the device has (a command pool of another
 * family is undefined behaviour, which drivers need not catch). */
static cg_status check_queue_family(cg_vk_ring *r)
{
    uint32_t n = 0;
    r->vk.vkGetPhysicalDeviceQueueFamilyProperties(r->d.physical_device, &n, NULL);
    if (r->d.queue_family >= n)
        return cg_fail(&r->err, CG_E_INVALID_ARG,
                       "queue family %u: the device has %u queue families (0..%u)",
                       r->d.queue_family, n, n ? n - 1 : 0);
    return CG_OK;
}

static cg_status setup(cg_vk_ring *r)
{
    CG_TRY(load_functions(r));
    CG_TRY(check_queue_family(r));
    CG_TRY(check_exportable(r));
    VkPhysicalDeviceIDProperties idp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &idp;
    r->vk.vkGetPhysicalDeviceProperties2(r->d.physical_device, &p2);

    cg_zc_desc *t = &r->tmpl;
    int rgb = r->d.slot_format == CG_VK_SLOT_RGB8;
    t->format = rgb ? CG_ZC_FORMAT_R8G8B8_UNORM : (uint32_t)r->d.format;
    t->width = (uint32_t)(rgb ? r->d.target_width : r->d.width);
    t->height = (uint32_t)(rgb ? r->d.target_height : r->d.height);
    t->row_pitch = t->width * (rgb ? 3 : 4);
    t->slot_count = r->d.slots;
    t->mode = (uint32_t)r->d.mode;
    t->flags = r->d.desc_flags;
    memcpy(t->device_uuid, idp.deviceUUID, CG_DEVICE_UUID_SIZE);
    t->ring_id = new_ring_id();
    uint64_t frame_bytes;
    if (rgb) {
        CG_TRY(cg_vk_rgb_slot_size(r->d.target_width, r->d.target_height, &frame_bytes));
    } else {
        size_t n;
        CG_TRY(cg_image_size(r->d.width, r->d.height, 4, &n));
        frame_bytes = n;
    }
    for (uint32_t i = 0; i < r->d.slots; i++)
        CG_TRY(create_slot(r, i, (VkDeviceSize)frame_bytes + r->d.slot_slack));
    if (rgb && !r->d.external_writer) CG_TRY(create_rgb(r, 0));
    if (r->copy_path == CG_VK_COPY_PATH_COMPUTE && !rgb) CG_TRY(create_rgb(r, 1));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkCreateFence(r->d.device, &fci, NULL, &r->grave_fence)));
    CG_VK_NAME(&r->vk, VK_OBJECT_TYPE_FENCE, r->grave_fence, "cg ring deferred-free fence");
    t->slot_size = r->slot_size;
    if (r->d.mode == CG_ZC_MODE_SEMAPHORE) CG_TRY(create_semaphore(r));
    CG_TRY(cg_zc_control_create(r->d.slots, t->ring_id, &r->control, &r->err));

    int fds[CG_ZC_MAX_FDS];
    uint32_t n = 0;
    fds[n++] = r->control.fd;
    for (uint32_t i = 0; i < r->d.slots; i++) fds[n++] = r->slot[i].memory_fd;
    if (r->semaphore_fd >= 0) fds[n++] = r->semaphore_fd;
    cg_zc_server_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.fds = fds;
    sd.fd_count = n;
    sd.hello.ring_id = t->ring_id;
    sd.hello.slot_count = r->d.slots;
    sd.hello.slot_size = r->slot_size;
    sd.hello.mode = t->mode;
    sd.hello.control_size = CG_ZC_CONTROL_SIZE;
    sd.control = &r->control;
    sd.dir = r->d.socket_dir;
    CG_TRY(cg_zc_server_create(&sd, &r->server, &r->err));
    snprintf(t->socket_path, sizeof t->socket_path, "%s", cg_zc_server_path(r->server));
    cg_zc_leases_init(&r->leases, &r->control, r->server, r->d.slots, r->d.wait_ns);
    return CG_OK;
}

/* Once, at create (cg_vk_copy_path): the compute copy where the image can
 * be read by it as stored, the transfer copy otherwise. */
static cg_vk_copy_path pick_copy_path(const cg_vk_ring *r)
{
    if (r->d.external_writer) return CG_VK_COPY_PATH_TRANSFER; /* the writer's to say */
    if (r->d.slot_format == CG_VK_SLOT_RGB8) return CG_VK_COPY_PATH_COMPUTE;
    int unorm = r->d.format == VK_FORMAT_R8G8B8A8_UNORM || r->d.format == VK_FORMAT_B8G8R8A8_UNORM;
    if (!unorm || !(r->d.image_usage & VK_IMAGE_USAGE_SAMPLED_BIT) ||
        !cg_vk_rgb_built())
        return CG_VK_COPY_PATH_TRANSFER;
    return CG_VK_COPY_PATH_COMPUTE;
}

/* A copy ring told its images' usage (nonzero) must be able to read them
 * one way: SAMPLED for the compute copy (UNORM formats), else TRANSFER_SRC. */
static cg_status check_image_usage(const cg_vk_ring_desc *d, VkFormat fmt, cg_err *err)
{
    VkImageUsageFlags u = d->image_usage;
    if (!u || d->slot_format != CG_VK_SLOT_COPY || d->external_writer) return CG_OK;
    int unorm = fmt == VK_FORMAT_R8G8B8A8_UNORM || fmt == VK_FORMAT_B8G8R8A8_UNORM;
    if (u & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) return CG_OK;
    if (unorm && (u & VK_IMAGE_USAGE_SAMPLED_BIT) && cg_vk_rgb_built()) return CG_OK;
    return cg_fail(err, CG_E_INVALID_ARG,
                   "image usage 0x%x (format %d): the ring reads the image through "
                   "VK_IMAGE_USAGE_SAMPLED_BIT (0x4; UNORM formats) or TRANSFER_SRC (0x1); it "
                   "has %s",
                   (unsigned)u, (int)fmt,
                   unorm && (u & VK_IMAGE_USAGE_SAMPLED_BIT) ? "SAMPLED, but this build has no "
                                                               "compute copy"
                                                             : "neither usable");
}

cg_status cg_vk_ring_create(const cg_vk_ring_desc *d, cg_vk_ring **out, cg_err *err)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = NULL;
    cg_err_clear(err);
    if (!d || !d->instance || !d->physical_device || !d->device || !d->get_instance_proc_addr ||
        !d->queue)
        return cg_fail(err, CG_E_INVALID_ARG,
                       "instance, physical device, device, queue and vkGetInstanceProcAddr are "
                       "all required");
    if (d->mode != CG_ZC_MODE_SEMAPHORE && d->mode != CG_ZC_MODE_FENCE)
        return cg_fail(err, CG_E_INVALID_ARG, "mode %d: 1 (semaphore) or 2 (fence)", (int)d->mode);
    uint32_t slots = d->slots ? d->slots : CG_VK_RING_DEFAULT_SLOTS;
    if (slots > CG_ZC_MAX_SLOTS)
        return cg_fail(err, CG_E_INVALID_ARG, "%u slots: at most %d", slots, CG_ZC_MAX_SLOTS);
    cg_status st = cg_check_dims(d->width, d->height);
    if (st != CG_OK)
        return cg_fail(err, st, "ring size %dx%d (1..%d per side)", d->width, d->height, CG_MAX_DIM);
    VkFormat fmt = d->format == VK_FORMAT_UNDEFINED ? VK_FORMAT_R8G8B8A8_UNORM : d->format;
    if (fmt != VK_FORMAT_R8G8B8A8_UNORM && fmt != VK_FORMAT_R8G8B8A8_SRGB &&
        fmt != VK_FORMAT_B8G8R8A8_UNORM && fmt != VK_FORMAT_B8G8R8A8_SRGB)
        return cg_fail(err, CG_E_INVALID_ARG, "format %d: an 8-bit RGBA/BGRA format is needed",
                       (int)fmt);
    if (d->slot_format != CG_VK_SLOT_COPY && d->slot_format != CG_VK_SLOT_RGB8)
        return cg_fail(err, CG_E_INVALID_ARG, "slot format %d: 0 (copy) or 1 (RGB8)",
                       (int)d->slot_format);
    if (d->slot_format == CG_VK_SLOT_COPY && (d->target_width || d->target_height || d->flip))
        return cg_fail(err, CG_E_INVALID_ARG,
                       "target size %dx%d, flip %d: resizing and flipping need the RGB8 slot "
                       "format (a copy keeps the image's size and row order)",
                       d->target_width, d->target_height, d->flip);
    if (d->slot_format == CG_VK_SLOT_RGB8 && (d->target_width || d->target_height) &&
        (st = cg_check_dims(d->target_width, d->target_height)) != CG_OK)
        return cg_fail(err, st, "target size %dx%d (1..%d per side, or 0x0 for the image's)",
                       d->target_width, d->target_height, CG_MAX_DIM);

    CG_TRY(check_image_usage(d, fmt, err));

    cg_vk_ring *r = calloc(1, sizeof *r);
    CG_RETURN_IF(!r, CG_E_NO_MEMORY);
    r->d = *d;
    r->d.format = fmt;
    r->d.slots = slots;
    r->usage = RING_BUFFER_USAGE;
    r->copy_path = pick_copy_path(r);
    if (r->copy_path == CG_VK_COPY_PATH_COMPUTE) r->usage |= CG_VK_RGB_SLOT_USAGE;
    if (d->slot_format == CG_VK_SLOT_RGB8) {
        r->usage |= CG_VK_RGB_SLOT_USAGE;
        if (!d->target_width && !d->target_height) {
            r->d.target_width = d->width;
            r->d.target_height = d->height;
        }
    }
    r->semaphore_fd = -1;
    r->control.fd = -1;
    for (uint32_t i = 0; i < CG_ZC_MAX_SLOTS; i++) r->slot[i].memory_fd = -1;
    st = setup(r);
    r->d.socket_dir = NULL; /* the caller's string is not kept */
    if (st != CG_OK) {
        cg_fail_from(err, st, &r->err);
        cg_vk_ring_destroy(r);
        return st;
    }
    *out = r;
    return CG_OK;
}

/* ---- deferred frees (fence mode) ----------------------------------------------
 * In fence mode the copy sits in the game's command buffer, and the game may
 * submit it after the ring is destroyed (destroy between record and the
 * game's submit, or from another thread). No wait at destroy can help: the
 * command is not submitted yet. So a fence-mode ring that recorded a copy
 * is destroyed except for what such a copy references (the slot buffers and
 * their memory, the RGB pass): those stay in a process-wide graveyard. A
 * later ring on the same device and queue, in a frame call (the game's
 * frame loop submits the commands it recorded before it records the next
 * frame's), submits an empty batch with a fence of its own to that queue:
 * the fence signals once every earlier submission, the game's with the old
 * copy included, has completed, and the graveyard rings it covered are
 * freed then (polled by later frame calls, never waited for; waited at that
 * ring's destroy). */

static pthread_mutex_t g_grave_lock = PTHREAD_MUTEX_INITIALIZER;
static cg_vk_ring *g_graves;
static _Atomic uint32_t g_grave_count; /* rings in the graveyard or covered lists */

uint32_t cg_vk_ring_deferred_count(void)
{
    return atomic_load(&g_grave_count);
}

/* What a deferred ring still holds, then the ring itself. */
static void free_deferred(cg_vk_ring *r)
{
    VkDevice dev = r->d.device;
    for (uint32_t i = 0; i < r->d.slots; i++) {
        ring_slot *s = &r->slot[i];
        if (s->buffer && r->vk.vkDestroyBuffer) r->vk.vkDestroyBuffer(dev, s->buffer, NULL);
        if (s->memory && r->vk.vkFreeMemory) r->vk.vkFreeMemory(dev, s->memory, NULL);
    }
    cg_vk_rgb_destroy(r->rgb);
    free(r);
}

static void free_covered(cg_vk_ring *r)
{
    while (r->covered) {
        cg_vk_ring *z = r->covered;
        r->covered = z->next_grave;
        free_deferred(z);
        atomic_fetch_sub(&g_grave_count, 1);
    }
    r->grave_pending = 0;
}

uint32_t cg_vk_ring_free_deferred(VkDevice device)
{
    uint32_t n = 0;
    pthread_mutex_lock(&g_grave_lock);
    for (cg_vk_ring **p = &g_graves; *p;) {
        cg_vk_ring *z = *p;
        if (z->d.device != device) {
            p = &z->next_grave;
            continue;
        }
        *p = z->next_grave;
        free_deferred(z);
        atomic_fetch_sub(&g_grave_count, 1);
        n++;
    }
    pthread_mutex_unlock(&g_grave_lock);
    return n;
}

/* Game thread, at each frame call: free what an earlier fence covered, and
 * cover the graveyard rings of this device and queue with a new fence. */
static void drain_graves(cg_vk_ring *r)
{
    VkDevice dev = r->d.device;
    if (r->grave_pending) {
        if (r->vk.vkGetFenceStatus(dev, r->grave_fence) != VK_SUCCESS) return; /* later */
        free_covered(r);
    }
    if (!atomic_load(&g_grave_count)) return;
    pthread_mutex_lock(&g_grave_lock);
    for (cg_vk_ring **p = &g_graves; *p;) {
        cg_vk_ring *z = *p;
        if (z->d.device == dev && z->d.queue == r->d.queue) {
            *p = z->next_grave;
            z->next_grave = r->covered;
            r->covered = z;
        } else {
            p = &z->next_grave;
        }
    }
    pthread_mutex_unlock(&g_grave_lock);
    if (!r->covered) return;
    /* Zero batches: the fence still signals when all work submitted to the
     * queue before it has completed (vkQueueSubmit). */
    if (r->vk.vkResetFences(dev, 1, &r->grave_fence) == VK_SUCCESS &&
        r->vk.vkQueueSubmit(r->d.queue, 0, NULL, r->grave_fence) == VK_SUCCESS) {
        r->grave_pending = 1;
        return;
    }
    pthread_mutex_lock(&g_grave_lock); /* back, for a later try */
    while (r->covered) {
        cg_vk_ring *z = r->covered;
        r->covered = z->next_grave;
        z->next_grave = g_graves;
        g_graves = z;
    }
    pthread_mutex_unlock(&g_grave_lock);
}

void cg_vk_ring_destroy(cg_vk_ring *r)
{
    if (!r) return;
    VkDevice dev = r->d.device;
    /* The socket first: its thread rewrites lease words when a learner
     * leaves, and must not touch them once they say CLOSED. */
    cg_zc_server_destroy(r->server);
    r->server = NULL;
    cg_zc_control_close(&r->control);
    for (uint32_t i = 0; i < r->d.slots; i++) {
        ring_slot *s = &r->slot[i];
        /* Teardown is the one place that waits: the ring's own copies must
         * finish before their buffers go. */
        if (s->pending && r->vk.vkWaitForFences)
            (void)r->vk.vkWaitForFences(dev, 1, &s->fence, VK_TRUE, UINT64_MAX);
        if (s->fence && r->vk.vkDestroyFence) r->vk.vkDestroyFence(dev, s->fence, NULL);
        if (s->pool && r->vk.vkDestroyCommandPool) r->vk.vkDestroyCommandPool(dev, s->pool, NULL);
        if (s->memory_fd >= 0) close(s->memory_fd);
        s->memory_fd = -1;
    }
    /* Rings this one covered: their fence is submitted, so it signals. */
    if (r->grave_pending)
        (void)r->vk.vkWaitForFences(dev, 1, &r->grave_fence, VK_TRUE, UINT64_MAX);
    free_covered(r);
    if (r->grave_fence && r->vk.vkDestroyFence) r->vk.vkDestroyFence(dev, r->grave_fence, NULL);
    if (r->semaphore && r->vk.vkDestroySemaphore) r->vk.vkDestroySemaphore(dev, r->semaphore, NULL);
    if (r->semaphore_fd >= 0) close(r->semaphore_fd);
    cg_zc_control_free(&r->control);
    if (r->recorded) { /* a copy in a game command buffer may still be submitted */
        pthread_mutex_lock(&g_grave_lock);
        r->next_grave = g_graves;
        g_graves = r;
        atomic_fetch_add(&g_grave_count, 1);
        pthread_mutex_unlock(&g_grave_lock);
        return;
    }
    free_deferred(r); /* every fence waited above */
}

const char *cg_vk_ring_last_error(const cg_vk_ring *r)
{
    return r ? cg_err_text(&r->err) : "";
}

const cg_err *cg_vk_ring_error(const cg_vk_ring *r)
{
    return r ? &r->err : NULL;
}

void cg_vk_ring_get_info(const cg_vk_ring *r, cg_vk_ring_info *info)
{
    if (!r || !info) return;
    memset(info, 0, sizeof *info);
    info->ring_id = r->tmpl.ring_id;
    info->slot_size = r->slot_size;
    info->slots = r->d.slots;
    info->row_pitch = r->tmpl.row_pitch;
    info->format = r->tmpl.format;
    info->width = r->tmpl.width;
    info->height = r->tmpl.height;
    info->copy_path = r->copy_path;
    memcpy(info->device_uuid, r->tmpl.device_uuid, CG_DEVICE_UUID_SIZE);
    info->socket_path = r->tmpl.socket_path;
    for (uint32_t i = 0; i < r->d.slots; i++) info->buffers[i] = r->slot[i].buffer;
    info->semaphore = r->semaphore;
    info->control = (cg_zc_control *)&r->control;
    info->server = r->server;
}

void cg_vk_ring_get_counters(const cg_vk_ring *r, uint64_t out[CG_ZC_COUNTERS])
{
    if (r) cg_zc_leases_counters(&r->leases, out);
}

cg_status cg_vk_ring_template(const cg_vk_ring *r, uint8_t *out, size_t cap)
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    return cg_zc_desc_encode(&r->tmpl, out, cap);
}

/* ---- per frame ------------------------------------------------------------ */

/* Is the slot's last copy finished on the GPU? Never waits. The lease
 * search's test of a slot (cg_zc_slot_idle_fn). */
static cg_status slot_idle(void *user, uint32_t slot, int *idle)
{
    cg_vk_ring *r = user;
    ring_slot *s = &r->slot[slot];
    *idle = 1;
    if (!s->pending) return CG_OK;
    VkResult res = r->vk.vkGetFenceStatus(r->d.device, s->fence);
    if (res == VK_NOT_READY) {
        *idle = 0;
        return CG_OK;
    }
    CG_TRY(CG_VK_CHECK(&r->err, res));
    s->pending = 0;
    return CG_OK;
}

/* The next frame's number and a slot for it (publish, record and an
 * external writer's claim; the lease contract is src/zc's). A failure
 * other than a full ring fails the ring. */
static cg_status claim_next(cg_vk_ring *r, uint32_t *slot, uint64_t *frame)
{
    drain_graves(r);
    cg_status st = cg_zc_leases_claim(&r->leases, slot_idle, r, slot, frame, &r->err);
    if (st != CG_OK && st != CG_E_RING_FULL) r->failed = 1;
    return st;
}

/* Record barrier + copy + release into cmd. The first barrier's first
 * synchronization scope is every command earlier in submission order
 * (ALL_COMMANDS, MEMORY_WRITE): that is what orders the copy after the
 * game's rendering, in both modes (see cg_vk_ring_publish). */
static void record_copy(cg_vk_ring *r, ring_slot *s, uint32_t slot, VkCommandBuffer cmd,
                        VkImage src, VkImageLayout src_layout, uint64_t frame)
{
    if (r->vk.vkCmdBeginDebugUtilsLabelEXT) {
        char name[80];
        if (frame)
            snprintf(name, sizeof name, "cg ring: frame %llu -> slot %u", (unsigned long long)frame, slot);
        else /* a recording reused by later frames names no frame */
            snprintf(name, sizeof name, "cg ring: copy -> slot %u", slot);
        VkDebugUtilsLabelEXT l = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
        l.pLabelName = name;
        r->vk.vkCmdBeginDebugUtilsLabelEXT(cmd, &l);
    }
    if (r->rgb) { /* the RGB slot format or the compute copy: one dispatch */
        cg_vk_rgb_record(r->rgb, cmd, slot, src, src_layout, &r->cursor, s->released);
        s->released = 1;
        if (r->vk.vkCmdEndDebugUtilsLabelEXT) r->vk.vkCmdEndDebugUtilsLabelEXT(cmd);
        return;
    }
    int move = src_layout != VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    VkImageMemoryBarrier ib = cg_vk_image_barrier(src, src_layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                            VK_ACCESS_MEMORY_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    /* The slot's old contents are dropped (fully overwritten); after an
     * earlier release to the external consumer the buffer is acquired back. */
    VkBufferMemoryBarrier bb =
        s->released ? cg_vk_buffer_barrier(s->buffer, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
                                     VK_QUEUE_FAMILY_EXTERNAL, r->d.queue_family)
                    : cg_vk_buffer_barrier(s->buffer, VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_MEMORY_READ_BIT,
                                     VK_ACCESS_TRANSFER_WRITE_BIT, VK_QUEUE_FAMILY_IGNORED,
                                     VK_QUEUE_FAMILY_IGNORED);
    /* A global barrier too when the image stays in its layout: the game's
     * writes must still be made visible to the transfer read. */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    r->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                            0, move ? 0 : 1, &mb, 1, &bb, move ? 1 : 0, &ib);
    VkBufferImageCopy reg;
    memset(&reg, 0, sizeof reg);
    reg.bufferRowLength = 0; /* tightly packed, rows in the image's order */
    reg.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    reg.imageSubresource.layerCount = 1;
    reg.imageExtent.width = (uint32_t)r->d.width;
    reg.imageExtent.height = (uint32_t)r->d.height;
    reg.imageExtent.depth = 1;
    r->vk.vkCmdCopyImageToBuffer(cmd, src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, s->buffer, 1, &reg);
    /* Release to the external consumer (the learner's CUDA context). */
    VkBufferMemoryBarrier rel = cg_vk_buffer_barrier(s->buffer, VK_ACCESS_TRANSFER_WRITE_BIT, 0,
                                               r->d.queue_family, VK_QUEUE_FAMILY_EXTERNAL);
    /* The game's later commands on its image (any stage, reads or writes)
     * wait for this read and the layout change back: its own barriers need
     * not know about the copy. (A release ignores the second scope.) */
    VkImageMemoryBarrier back =
        cg_vk_image_barrier(src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, src_layout,
                            VK_ACCESS_TRANSFER_READ_BIT,
                            VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    r->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                            0, 0, NULL, 1, &rel, move ? 1 : 0, &back);
    s->released = 1;
    if (r->vk.vkCmdEndDebugUtilsLabelEXT) r->vk.vkCmdEndDebugUtilsLabelEXT(cmd);
}

static cg_status begin_frame(cg_vk_ring *r, VkImage src, uint8_t *desc_out, cg_zc_mode want,
                             uint32_t *slot, uint64_t *frame)
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    if (!src || !desc_out) return cg_fail(&r->err, CG_E_INVALID_ARG, "source image and descriptor buffer are required");
    if (r->failed)
        return cg_fail(&r->err, CG_E_BAD_STATE,
                       "an earlier publish failed; destroy this ring and create a new one");
    if (r->d.mode != want)
        return cg_fail(&r->err, CG_E_BAD_STATE, "this ring was made for %s mode",
                       r->d.mode == CG_ZC_MODE_SEMAPHORE ? "semaphore (publish)" : "fence (record)");
    return claim_next(r, slot, frame);
}

static void end_frame(cg_vk_ring *r, uint32_t slot, uint64_t frame, uint8_t *desc_out)
{
    cg_zc_desc d = r->tmpl;
    d.slot = slot;
    d.frame = frame;
    (void)cg_zc_desc_encode(&d, desc_out, CG_ZC_DESC_SIZE);
    cg_zc_leases_publish(&r->leases, slot, frame);
}

/* A failed Vulkan call after the claim: the slot goes back to RELEASED so
 * no learner waits for it, and the ring refuses further work. */
static cg_status fail_frame(cg_vk_ring *r, uint32_t slot, uint64_t frame, cg_status st)
{
    cg_zc_leases_release(&r->leases, slot, frame);
    if (st != CG_E_RING_FULL) r->failed = 1;
    return st;
}

static cg_status submit_copy(cg_vk_ring *r, uint32_t i, VkImage src, VkImageLayout layout,
                             uint64_t frame)
{
    ring_slot *s = &r->slot[i];
    VkDevice dev = r->d.device;
    /* The slot's fence was seen signalled by the claim (slot_idle): its command
     * buffer is not in use, so it may be submitted again as recorded, or
     * reset with its pool and recorded anew. The recording depends only on
     * the source image, its layout and whether the buffer comes back from
     * the external family (every copy after the first). The frame number
     * lives in the submit (timeline value), not in the commands. Reuse is
     * opt-in (reuse_recordings): a destroyed image whose handle value comes
     * back for a new image would otherwise be submitted from a stale
     * recording. */
    if (!r->d.reuse_recordings || s->rec_src != src || s->rec_layout != layout ||
        s->rec_acquire != s->released ||
        memcmp(&s->rec_cursor, &r->cursor, sizeof r->cursor) != 0) {
        s->rec_src = VK_NULL_HANDLE; /* nothing valid recorded until End succeeds */
        CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkResetCommandPool(dev, s->pool, 0)));
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkBeginCommandBuffer(s->cmd, &bi)));
        int acquire = s->released;
        record_copy(r, s, i, s->cmd, src, layout, 0);
        CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkEndCommandBuffer(s->cmd)));
        s->rec_src = src;
        s->rec_layout = layout;
        s->rec_acquire = acquire;
        s->rec_cursor = r->cursor;
    }
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkResetFences(dev, 1, &s->fence)));

    /* Ordering after the game's rendering (Vulkan spec, "Synchronization
     * and Cache Control" > "Implicit Synchronization Guarantees"): command
     * buffers submitted to a single queue with vkQueueSubmit are in
     * submission order, and the first synchronization scope of a pipeline
     * barrier includes every command earlier in submission order. The
     * game's frame was submitted to this queue before this call, so the
     * barrier in record_copy (ALL_COMMANDS / MEMORY_WRITE) makes its
     * rendering complete and visible before the copy reads the image. The
     * timeline signal's first scope is every command of this batch and
     * earlier, so value `frame` means the copy is complete. */
    VkTimelineSemaphoreSubmitInfo ts = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    ts.signalSemaphoreValueCount = 1;
    ts.pSignalSemaphoreValues = &frame;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.pNext = &ts;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &s->cmd;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &r->semaphore;
    if (r->vk.vkQueueBeginDebugUtilsLabelEXT) {
        VkDebugUtilsLabelEXT l = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
        l.pLabelName = "cg ring publish";
        r->vk.vkQueueBeginDebugUtilsLabelEXT(r->d.queue, &l);
    }
    VkResult res = r->vk.vkQueueSubmit(r->d.queue, 1, &si, s->fence);
    if (r->vk.vkQueueEndDebugUtilsLabelEXT) r->vk.vkQueueEndDebugUtilsLabelEXT(r->d.queue);
    CG_TRY(CG_VK_CHECK(&r->err, res));
    s->pending = 1;
    return CG_OK;
}

/* Per-frame cursor (RGB8 only) and the source's view (RGB8), before a
 * slot is claimed: neither failure consumes a frame or fails the ring. */
static cg_status frame_inputs(cg_vk_ring *r, VkImage src, const cg_cursor *cursor)
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    if (r->d.external_writer)
        return cg_fail(&r->err, CG_E_BAD_STATE,
                       "this ring's slots are written by an external writer (claim/commit)");
    memset(&r->cursor, 0, sizeof r->cursor);
    if (cursor && cursor->draw) {
        if (r->d.slot_format != CG_VK_SLOT_RGB8)
            return cg_fail(&r->err, CG_E_INVALID_ARG,
                           "a cursor is drawn only in the RGB slot format (this ring copies)");
        r->cursor.draw = 1;
        r->cursor.x = cursor->x;
        r->cursor.y = cursor->y;
    }
    if (r->rgb && src && !r->failed) return cg_vk_rgb_prepare(r->rgb, src, &r->err);
    return CG_OK;
}

cg_status cg_vk_ring_publish(cg_vk_ring *r, VkImage src, VkImageLayout src_layout,
                             uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    return cg_vk_ring_publish_cursor(r, src, src_layout, NULL, desc_out);
}

cg_status cg_vk_ring_record(cg_vk_ring *r, VkCommandBuffer cmd, VkImage src,
                            VkImageLayout src_layout, uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    return cg_vk_ring_record_cursor(r, cmd, src, src_layout, NULL, desc_out);
}

cg_status cg_vk_ring_publish_cursor(cg_vk_ring *r, VkImage src, VkImageLayout src_layout,
                                    const cg_cursor *cursor,
                                    uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    uint32_t slot = 0;
    uint64_t frame = 0;
    CG_TRY(frame_inputs(r, src, cursor));
    CG_TRY(begin_frame(r, src, desc_out, CG_ZC_MODE_SEMAPHORE, &slot, &frame));
    cg_status st = submit_copy(r, slot, src, src_layout, frame);
    if (st != CG_OK) return fail_frame(r, slot, frame, st);
    end_frame(r, slot, frame, desc_out);
    return CG_OK;
}

cg_status cg_vk_ring_record_cursor(cg_vk_ring *r, VkCommandBuffer cmd, VkImage src,
                                   VkImageLayout src_layout, const cg_cursor *cursor,
                                   uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    if (!cmd) return cg_fail(&r->err, CG_E_INVALID_ARG, "the game's command buffer is required");
    uint32_t slot = 0;
    uint64_t frame = 0;
    CG_TRY(frame_inputs(r, src, cursor));
    CG_TRY(begin_frame(r, src, desc_out, CG_ZC_MODE_FENCE, &slot, &frame));
    /* Same ordering as publish, within the game's own command buffer: the
     * barrier's first scope holds the game's earlier commands. */
    record_copy(r, &r->slot[slot], slot, cmd, src, src_layout, frame);
    r->recorded = 1; /* its submit is the game's: destroy defers the slot memory */
    end_frame(r, slot, frame, desc_out);
    return CG_OK;
}

/* ---- an external writer ---------------------------------------------------- */

int cg_vk_ring_slot_fd(const cg_vk_ring *r, uint32_t slot)
{
    return r && slot < r->d.slots ? r->slot[slot].memory_fd : -1;
}

cg_status cg_vk_ring_claim(cg_vk_ring *r, uint32_t *slot, uint64_t *frame)
{
    CG_RETURN_IF(!r || !slot || !frame, CG_E_INVALID_ARG);
    if (r->failed)
        return cg_fail(&r->err, CG_E_BAD_STATE,
                       "an earlier frame failed; destroy this ring and create a new one");
    return claim_next(r, slot, frame);
}

/* One submit without commands: wait for the writer's binary semaphore,
 * signal the timeline to `frame`, and the slot's fence. */
static cg_status submit_bridge(cg_vk_ring *r, ring_slot *s, VkSemaphore wait, uint64_t frame)
{
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkResetFences(r->d.device, 1, &s->fence)));
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
    si.pSignalSemaphores = &r->semaphore;
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkQueueSubmit(r->d.queue, 1, &si, s->fence)));
    s->pending = 1;
    return CG_OK;
}

cg_status cg_vk_ring_commit(cg_vk_ring *r, uint32_t slot, uint64_t frame, VkSemaphore wait,
                            uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    /* The producer's own view, not the shared word: a learner may have
     * written anything there meanwhile. */
    if (slot >= r->d.slots || !desc_out || frame != r->leases.frame + 1 ||
        !cg_zc_leases_claimed(&r->leases, slot, frame))
        return cg_fail(&r->err, CG_E_INVALID_ARG,
                       "slot %u frame %llu was not claimed (or no descriptor buffer)", slot,
                       (unsigned long long)frame);
    if (wait && r->d.mode != CG_ZC_MODE_SEMAPHORE)
        return cg_fail(&r->err, CG_E_INVALID_ARG, "a fence-mode ring has no timeline to bridge to");
    if (wait) {
        cg_status st = submit_bridge(r, &r->slot[slot], wait, frame);
        if (st != CG_OK) return fail_frame(r, slot, frame, st);
    }
    end_frame(r, slot, frame, desc_out);
    return CG_OK;
}

void cg_vk_ring_abandon(cg_vk_ring *r, uint32_t slot, uint64_t frame)
{
    if (!r || slot >= r->d.slots || !cg_zc_leases_claimed(&r->leases, slot, frame)) return;
    cg_zc_leases_release(&r->leases, slot, frame);
}
