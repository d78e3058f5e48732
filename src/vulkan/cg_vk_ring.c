/*
 * cg_vk_ring.c - the zero-copy v2 producer (cg_vk_ring.h). Entry points
 * come from the caller's vkGetInstanceProcAddr into a per-ring table
 * (cg_vk_device.h).
 */
#include "cg_vk_ring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cg_size.h"
#include "cg_vk_internal.h"
#include "cg_vk_rgb.h"
#include "cg_vk_ring_deferred.h"
#include "cg_vk_slots.h"
#include "cg_zc_producer.h"

/* The ring's own per-slot state; the slot's Vulkan objects are in
 * cg_vk_slots (cg_vk_slots.h). */
typedef struct ring_slot {
    int released; /* released to VK_QUEUE_FAMILY_EXTERNAL by an earlier copy */
    /* What the slot's command buffer holds, recorded (semaphore mode): a
     * game alternates between a few images, so the same copy is submitted
     * again without recording. */
    VkImage rec_src;
    VkImageLayout rec_layout;
    int rec_acquire; /* recorded with the acquire from the external family */
    cg_cursor rec_cursor; /* RGB8: the cursor recorded */
} ring_slot;

struct cg_vk_ring {
    cg_vk_ring_desc d;
    cg_vk_device vk; /* the caller's instance and device; debug_utils: names, labels */

    cg_vk_slots slots; /* the exported buffers, timeline, per-slot commands and fences */
    ring_slot slot[CG_ZC_MAX_SLOTS];
    /* The producer's own view of the lease words, the slot search and the
     * frame number (src/zc, cg_zc_leases.h). */
    cg_zc_producer zc; /* + the descriptor's constant fields, control block, socket */
    /* Fence mode: a copy was recorded into a game command buffer, whose
     * completion the ring cannot see; destroy then defers freeing the slot
     * memory (and the RGB pass) that such a copy targets
     * (cg_vk_ring_deferred.h). */
    int recorded;
    cg_vk_grave_cover cover; /* covers the game's submits before it (deferred frees) */
    cg_vk_grave grave;       /* what this ring leaves behind when it recorded */
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
    for (uint32_t i = 0; i < r->d.slots; i++) bufs[i] = r->slots.slot[i].buffer;
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
    VkPhysicalDeviceIDProperties idp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &idp;
    r->vk.vkGetPhysicalDeviceProperties2(r->d.physical_device, &p2);

    cg_zc_desc tmpl, *t = &tmpl;
    memset(t, 0, sizeof tmpl);
    int rgb = r->d.slot_format == CG_VK_SLOT_RGB8;
    t->format = rgb ? CG_ZC_FORMAT_R8G8B8_UNORM : (uint32_t)r->d.format;
    t->width = (uint32_t)(rgb ? r->d.target_width : r->d.width);
    t->height = (uint32_t)(rgb ? r->d.target_height : r->d.height);
    t->row_pitch = t->width * (rgb ? 3 : 4);
    t->slot_count = r->d.slots;
    t->mode = (uint32_t)r->d.mode;
    memcpy(t->device_uuid, idp.deviceUUID, CG_DEVICE_UUID_SIZE);
    uint64_t frame_bytes;
    if (rgb) {
        CG_TRY(cg_vk_rgb_slot_size(r->d.target_width, r->d.target_height, &frame_bytes));
    } else {
        size_t n;
        CG_TRY(cg_image_size(r->d.width, r->d.height, 4, &n));
        frame_bytes = n;
    }
    cg_vk_slots_desc sd = {&r->vk, r->d.queue_family, r->d.slots, (VkDeviceSize)frame_bytes,
                           r->usage, r->d.mode == CG_ZC_MODE_SEMAPHORE, 1};
    CG_TRY(cg_vk_slots_create(&r->slots, &sd, &r->err));
    if (rgb) CG_TRY(create_rgb(r, 0));
    if (r->copy_path == CG_VK_COPY_PATH_COMPUTE && !rgb) CG_TRY(create_rgb(r, 1));
    CG_TRY(cg_vk_grave_cover_init(&r->cover, &r->vk, &r->err));
    t->slot_size = r->slots.slot_size;
    int fds[CG_ZC_MAX_SLOTS];
    for (uint32_t i = 0; i < r->d.slots; i++) fds[i] = r->slots.slot[i].memory_fd;
    cg_zc_producer_desc pd = {t, fds, r->slots.semaphore_fd, r->d.socket_dir, r->d.wait_ns};
    CG_TRY(cg_zc_producer_open(&r->zc, &pd, &r->err));
    return CG_OK;
}

/* Once, at create (cg_vk_copy_path): the compute copy where the image can
 * be read by it as stored, the transfer copy otherwise. */
static cg_vk_copy_path pick_copy_path(const cg_vk_ring *r)
{
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
    if (!u || d->slot_format != CG_VK_SLOT_COPY) return CG_OK;
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
    r->usage = CG_VK_SLOT_USAGE;
    r->copy_path = pick_copy_path(r);
    if (r->copy_path == CG_VK_COPY_PATH_COMPUTE) r->usage |= CG_VK_RGB_SLOT_USAGE;
    if (d->slot_format == CG_VK_SLOT_RGB8) {
        r->usage |= CG_VK_RGB_SLOT_USAGE;
        if (!d->target_width && !d->target_height) {
            r->d.target_width = d->width;
            r->d.target_height = d->height;
        }
    }
    cg_zc_producer_init(&r->zc);
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

void cg_vk_ring_destroy(cg_vk_ring *r)
{
    if (!r) return;
    cg_zc_producer_close(&r->zc); /* learners see CLOSED */
    cg_vk_slots_release(&r->slots); /* waits for the ring's own copies */
    cg_vk_grave_cover_fini(&r->cover, &r->vk);
    r->grave = (cg_vk_grave){&r->vk, r->d.queue, &r->slots, r->rgb, r, NULL};
    if (r->recorded) /* a copy in a game command buffer may still be submitted */
        cg_vk_grave_bury(&r->grave);
    else
        cg_vk_grave_free(&r->grave); /* every fence waited above */
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
    info->ring_id = r->zc.tmpl.ring_id;
    info->slot_size = r->slots.slot_size;
    info->slots = r->d.slots;
    info->row_pitch = r->zc.tmpl.row_pitch;
    info->format = r->zc.tmpl.format;
    info->width = r->zc.tmpl.width;
    info->height = r->zc.tmpl.height;
    info->copy_path = r->copy_path;
    memcpy(info->device_uuid, r->zc.tmpl.device_uuid, CG_DEVICE_UUID_SIZE);
    info->socket_path = r->zc.tmpl.socket_path;
    for (uint32_t i = 0; i < r->d.slots; i++) info->buffers[i] = r->slots.slot[i].buffer;
    info->semaphore = r->slots.semaphore;
    info->control = (cg_zc_control *)&r->zc.control;
    info->server = r->zc.server;
}

void cg_vk_ring_get_counters(const cg_vk_ring *r, uint64_t out[CG_ZC_COUNTERS])
{
    if (r) cg_zc_leases_counters(&r->zc.leases, out);
}

cg_status cg_vk_ring_template(const cg_vk_ring *r, uint8_t *out, size_t cap)
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    return cg_zc_desc_encode(&r->zc.tmpl, out, cap);
}

/* ---- per frame ------------------------------------------------------------ */

/* Is the slot's last copy finished on the GPU? Never waits. The lease
 * search's test of a slot (cg_zc_slot_idle_fn). */
static cg_status slot_idle(void *user, uint32_t slot, int *idle)
{
    cg_vk_ring *r = user;
    return cg_vk_slots_idle(&r->slots, slot, idle, &r->err);
}

/* The next frame's number and a slot for it (publish and record; the
 * lease contract is src/zc's). A failure
 * other than a full ring fails the ring. */
static cg_status claim_next(cg_vk_ring *r, uint32_t *slot, uint64_t *frame)
{
    cg_vk_grave_cover_drain(&r->cover, &r->vk, r->d.queue);
    cg_status st = cg_zc_leases_claim(&r->zc.leases, slot_idle, r, slot, frame, &r->err);
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
    VkBuffer buffer = r->slots.slot[slot].buffer;
    int move = src_layout != VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    VkImageMemoryBarrier ib = cg_vk_image_barrier(src, src_layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                            VK_ACCESS_MEMORY_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    /* The slot's old contents are dropped (fully overwritten); after an
     * earlier release to the external consumer the buffer is acquired back. */
    VkBufferMemoryBarrier bb =
        s->released ? cg_vk_buffer_barrier(buffer, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
                                     VK_QUEUE_FAMILY_EXTERNAL, r->d.queue_family)
                    : cg_vk_buffer_barrier(buffer, VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_MEMORY_READ_BIT,
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
    r->vk.vkCmdCopyImageToBuffer(cmd, src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1, &reg);
    /* Release to the external consumer (the learner's CUDA context). */
    VkBufferMemoryBarrier rel = cg_vk_buffer_barrier(buffer, VK_ACCESS_TRANSFER_WRITE_BIT, 0,
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

/* A failed Vulkan call after the claim: the slot goes back to RELEASED so
 * no learner waits for it, and the ring refuses further work. */
static cg_status fail_frame(cg_vk_ring *r, uint32_t slot, uint64_t frame, cg_status st)
{
    cg_zc_leases_release(&r->zc.leases, slot, frame);
    if (st != CG_E_RING_FULL) r->failed = 1;
    return st;
}

static cg_status submit_copy(cg_vk_ring *r, uint32_t i, VkImage src, VkImageLayout layout,
                             uint64_t frame)
{
    ring_slot *s = &r->slot[i];
    cg_vk_slot *vs = &r->slots.slot[i];
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
        CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkResetCommandPool(dev, vs->pool, 0)));
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkBeginCommandBuffer(vs->cmd, &bi)));
        int acquire = s->released;
        record_copy(r, s, i, vs->cmd, src, layout, 0);
        CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkEndCommandBuffer(vs->cmd)));
        s->rec_src = src;
        s->rec_layout = layout;
        s->rec_acquire = acquire;
        s->rec_cursor = r->cursor;
    }
    CG_TRY(CG_VK_CHECK(&r->err, r->vk.vkResetFences(dev, 1, &vs->fence)));

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
    si.pCommandBuffers = &vs->cmd;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &r->slots.semaphore;
    if (r->vk.vkQueueBeginDebugUtilsLabelEXT) {
        VkDebugUtilsLabelEXT l = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
        l.pLabelName = "cg ring publish";
        r->vk.vkQueueBeginDebugUtilsLabelEXT(r->d.queue, &l);
    }
    VkResult res = r->vk.vkQueueSubmit(r->d.queue, 1, &si, vs->fence);
    if (r->vk.vkQueueEndDebugUtilsLabelEXT) r->vk.vkQueueEndDebugUtilsLabelEXT(r->d.queue);
    CG_TRY(CG_VK_CHECK(&r->err, res));
    vs->pending = 1;
    return CG_OK;
}

/* Per-frame cursor (RGB8 only) and the source's view (RGB8), before a
 * slot is claimed: neither failure consumes a frame or fails the ring. */
static cg_status frame_inputs(cg_vk_ring *r, VkImage src, const cg_cursor *cursor)
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
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
    cg_zc_producer_publish(&r->zc, slot, frame, desc_out);
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
    cg_zc_producer_publish(&r->zc, slot, frame, desc_out);
    return CG_OK;
}
