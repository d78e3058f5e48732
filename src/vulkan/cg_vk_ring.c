/*
 * cg_vk_ring.c - the zero-copy v2 producer (cg_vk_ring.h): creation and
 * the frame path (claim, record, submit, publish). Entry points come from
 * the caller's vkGetInstanceProcAddr into a per-ring table (cg_vk_device.h);
 * the exported slots are cg_vk_slots.c's, the protocol's side and a part
 * call's protocol half src/zc's (cg_zc_producer.h), a colour part's
 * commands cg_vk_ring_copy.c's, the deferred frees of fence mode
 * cg_vk_ring_deferred.c's.
 */
#include "cg_vk_ring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cg_frame.h" /* cg_depth_check_planes */
#include "cg_size.h"
#include "cg_vk_internal.h"
#include "cg_vk_rgb.h"
#include "cg_vk_ring_copy.h"
#include "cg_vk_ring_deferred.h"
#include "cg_vk_slots.h"
#include "cg_zc_producer.h"

struct cg_vk_ring {
    cg_vk_ring_desc d;
    cg_vk_device vk; /* the caller's instance and device; debug_utils: names, labels */

    cg_vk_slots slots; /* the exported buffers, timeline, per-slot commands and fences */
    /* Its colour parts' commands and per-slot state (cg_vk_ring_copy.h). */
    cg_vk_ring_copy copy;
    /* The protocol's side (src/zc, cg_zc_producer.h): the descriptor's
     * constant fields, the control block, the socket, and the producer's own
     * view of the lease words, the slot search and the frame number. */
    cg_zc_producer zc;
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
    cg_vk_rgb_read rgb_read;            /* RGB8: the image through its view or the staging copy */
    char srgb_fallback[CG_ERR_SIZE];    /* why an SRGB image is not read through its view */
    cg_cursor cursor; /* the frame being recorded's */
    /* The frame being assembled from its parts (cg_zc_parts.h): one part
     * (colour) for a ring of one eye without depth. */
    cg_zc_parts parts;
    uint32_t parts_count;
    cg_zc_planes planes; /* the slot's planes (RGB8) */
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
    gd.srgb_staging = !copy && r->rgb_read == CG_VK_RGB_READ_STAGING;
    if (!copy) {
        gd.eyes = r->parts.eyes;
        gd.color_eye_stride = r->planes.color_eye_stride;
        gd.depth = r->parts.depth;
        gd.depth_offset = r->planes.depth_offset;
        gd.depth_eye_stride = r->planes.depth_eye_stride;
    }
    VkBuffer bufs[CG_ZC_MAX_SLOTS];
    for (uint32_t i = 0; i < r->d.slots; i++) bufs[i] = r->slots.slot[i].buffer;
    gd.slot_buffers = bufs;
    return cg_vk_rgb_create(&gd, &r->rgb, &r->err);
}

/* The pass of an RGB8 ring or of the compute copy. One that reads an SRGB
 * image through a view is kept only if its probe (cg_vk_rgb_probe: every
 * byte value through the pass, on the ring's queue) gives every byte back;
 * otherwise, decided here once and reported (copy_path, rgb_read,
 * srgb_fallback), an RGB8 ring reads through the staging copy and a copy
 * ring takes the transfer copy: today's bytes either way. */
static cg_status make_pass(cg_vk_ring *r, int copy)
{
    CG_TRY(create_rgb(r, copy));
    cg_err why = {{0}};
    if (cg_vk_rgb_probe(r->rgb, r->d.queue, &why) == CG_OK) return CG_OK;
    snprintf(r->srgb_fallback, sizeof r->srgb_fallback, "%s", why.text);
    cg_vk_rgb_destroy(r->rgb); /* nothing recorded; the probe waited for its submit */
    r->rgb = NULL;
    if (copy) {
        r->copy_path = CG_VK_COPY_PATH_TRANSFER;
        return CG_OK;
    }
    r->rgb_read = CG_VK_RGB_READ_STAGING;
    return create_rgb(r, 0);
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
    if (r->parts_count > 1) {
        /* Planes (docs/zero-copy-v2/protocol.md, "Depth and stereo planes"): version 3. */
        const cg_zc_planes *pl = &r->planes;
        frame_bytes = pl->frame_bytes;
        t->eyes = r->parts.eyes;
        t->color_eye_stride = pl->color_eye_stride;
        if (r->parts.depth) {
            t->depth_format = CG_ZC_FORMAT_R32_SFLOAT;
            t->depth_offset = pl->depth_offset;
            t->depth_eye_stride = pl->depth_eye_stride;
            t->depth_row_pitch = t->width * 4;
            t->depth_encoding = (uint32_t)r->d.depth;
            if (r->d.depth == CG_ZC_DEPTH_LINEAR) {
                t->depth_flags = r->d.z_zero_to_one ? CG_ZC_DEPTH_Z_ZERO_TO_ONE : 0u;
                t->near_plane = r->d.near_plane;
                t->far_plane = r->d.far_plane;
            }
        }
    } else if (rgb) {
        /* One eye, no depth: version 2, as it always was. */
        CG_TRY(cg_vk_rgb_slot_size(r->d.target_width, r->d.target_height, &frame_bytes));
    } else {
        size_t n;
        CG_TRY(cg_image_size(r->d.width, r->d.height, 4, &n));
        frame_bytes = n;
    }
    cg_vk_slots_desc sd = {&r->vk, r->d.queue_family, r->d.slots, (VkDeviceSize)frame_bytes,
                           r->usage, r->d.mode == CG_ZC_MODE_SEMAPHORE, r->parts.eyes};
    CG_TRY(cg_vk_slots_create(&r->slots, &sd, &r->err));
    if (r->copy_path == CG_VK_COPY_PATH_COMPUTE) CG_TRY(make_pass(r, !rgb)); /* RGB8: always */
    cg_vk_ring_copy *c = &r->copy;
    c->vk = &r->vk;
    c->slots = &r->slots;
    c->rgb = r->rgb;
    c->queue = r->d.queue;
    c->queue_family = r->d.queue_family;
    c->width = r->d.width;
    c->height = r->d.height;
    c->named_parts = r->parts_count > 1;
    c->reuse_recordings = r->d.reuse_recordings;
    CG_TRY(cg_vk_grave_cover_init(&r->cover, &r->vk, &r->err));
    t->slot_size = r->slots.slot_size;
    cg_oshandle h[CG_ZC_MAX_SLOTS];
    for (uint32_t i = 0; i < r->d.slots; i++) h[i] = r->slots.slot[i].memory_handle;
    cg_zc_producer_desc pd = {t, h, r->slots.semaphore_handle, r->d.socket_dir, r->d.wait_ns};
    CG_TRY(cg_zc_producer_open(&r->zc, &pd, &r->err));
    return CG_OK;
}

/* Once, at create (cg_vk_copy_path): the compute copy where the image can
 * be sampled, the transfer copy otherwise. An SRGB image's compute copy
 * still has to pass its probe (make_pass). */
static cg_vk_copy_path pick_copy_path(const cg_vk_ring *r)
{
    if (r->d.slot_format == CG_VK_SLOT_RGB8) return CG_VK_COPY_PATH_COMPUTE;
    if (!(r->d.image_usage & VK_IMAGE_USAGE_SAMPLED_BIT) || !cg_vk_rgb_built())
        return CG_VK_COPY_PATH_TRANSFER;
    return CG_VK_COPY_PATH_COMPUTE;
}

/* Once, at create (cg_vk_rgb_read): an RGB8 ring reads an SRGB image
 * through its view unless image_usage says it cannot be sampled (0: the
 * SAMPLED the format requires) or the probe fails later (make_pass). */
static cg_vk_rgb_read pick_rgb_read(cg_vk_ring *r)
{
    VkImageUsageFlags u = r->d.image_usage;
    if (r->d.slot_format != CG_VK_SLOT_RGB8 || !cg_vk_rgb_is_srgb(r->d.format) || !u ||
        (u & VK_IMAGE_USAGE_SAMPLED_BIT))
        return CG_VK_RGB_READ_VIEW;
    snprintf(r->srgb_fallback, sizeof r->srgb_fallback,
             "image_usage 0x%x has no VK_IMAGE_USAGE_SAMPLED_BIT: the SRGB image is copied to "
             "a staging buffer first", (unsigned)u);
    return CG_VK_RGB_READ_STAGING;
}

/* A copy ring told its images' usage (nonzero) must be able to read them
 * one way: SAMPLED for the compute copy (UNORM formats; an SRGB one may
 * fall back to the transfer copy at create), else TRANSFER_SRC. */
static cg_status check_image_usage(const cg_vk_ring_desc *d, VkFormat fmt, cg_err *err)
{
    VkImageUsageFlags u = d->image_usage;
    if (!u || d->slot_format != CG_VK_SLOT_COPY) return CG_OK;
    int unorm = fmt == VK_FORMAT_R8G8B8A8_UNORM || fmt == VK_FORMAT_B8G8R8A8_UNORM;
    if (u & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) return CG_OK;
    if (unorm && (u & VK_IMAGE_USAGE_SAMPLED_BIT) && cg_vk_rgb_built()) return CG_OK;
    return cg_fail(err, CG_E_INVALID_ARG,
                   "image usage 0x%x (format %d): the ring reads the image through "
                   "VK_IMAGE_USAGE_SAMPLED_BIT (0x4; UNORM formats: an SRGB one needs "
                   "TRANSFER_SRC too, where its probe fails) or TRANSFER_SRC (0x1); it has %s",
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
    uint32_t eyes = d->eyes ? d->eyes : 1;
    if ((eyes > 1 || d->depth != CG_ZC_DEPTH_NONE) && d->slot_format != CG_VK_SLOT_RGB8)
        return cg_fail(err, CG_E_INVALID_ARG,
                       "%u eyes, depth encoding %d: eyes and a depth plane need the RGB8 slot "
                       "format",
                       eyes, (int)d->depth);
    if (eyes > CG_ZC_MAX_EYES)
        return cg_fail(err, CG_E_INVALID_ARG, "%u eyes: 1 or 2", eyes);
    if (d->depth != CG_ZC_DEPTH_NONE && d->depth != CG_ZC_DEPTH_LINEAR && d->depth != CG_ZC_DEPTH_RAW)
        return cg_fail(err, CG_E_INVALID_ARG, "depth encoding %d: 0 (none), 1 (linear) or 2 (raw)",
                       (int)d->depth);
    if (d->depth == CG_ZC_DEPTH_LINEAR && cg_depth_check_planes(d->near_plane, d->far_plane) != CG_OK)
        return cg_fail(err, CG_E_INVALID_ARG,
                       "linear depth with near %g, far %g: needs finite 0 < near < far",
                       (double)d->near_plane, (double)d->far_plane);

    cg_vk_ring *r = calloc(1, sizeof *r);
    CG_RETURN_IF(!r, CG_E_NO_MEMORY);
    r->d = *d;
    r->d.format = fmt;
    r->d.slots = slots;
    r->usage = CG_VK_SLOT_USAGE;
    r->copy_path = pick_copy_path(r);
    r->rgb_read = pick_rgb_read(r);
    if (r->copy_path == CG_VK_COPY_PATH_COMPUTE) r->usage |= CG_VK_RGB_SLOT_USAGE;
    if (d->slot_format == CG_VK_SLOT_RGB8) {
        r->usage |= CG_VK_RGB_SLOT_USAGE;
        if (!d->target_width && !d->target_height) {
            r->d.target_width = d->width;
            r->d.target_height = d->height;
        }
    }
    (void)cg_zc_parts_init(&r->parts, eyes, d->depth != CG_ZC_DEPTH_NONE);
    r->parts_count = cg_zc_parts_count(&r->parts);
    if (d->depth == CG_ZC_DEPTH_LINEAR) {
        cg_zc_depth_params ring = {d->near_plane, d->far_plane, d->z_zero_to_one};
        cg_zc_parts_set_linear(&r->parts, &ring);
    }
    if (d->slot_format == CG_VK_SLOT_RGB8 &&
        (st = cg_zc_planes_layout(r->d.target_width, r->d.target_height, eyes, r->parts.depth,
                                  &r->planes)) != CG_OK) {
        cg_fail(err, st, "slot planes of %dx%d, %u eyes%s", r->d.target_width,
                r->d.target_height, eyes, r->parts.depth ? ", depth" : "");
        free(r);
        return st;
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
    /* A frame left open with a colour part submitted: its fence, to wait for. */
    for (uint32_t i = 0; i < r->d.slots && r->slots.vk; i++)
        (void)cg_vk_ring_copy_fence(&r->copy, i, &r->err);
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
    info->rgb_read = r->rgb_read;
    info->srgb_fallback = r->srgb_fallback;
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

/* Before each claim (cg_zc_part_hooks): what rings destroyed before this
 * one left behind on its queue is freed once the GPU is past it. */
static void claiming(void *user)
{
    cg_vk_ring *r = user;
    cg_vk_grave_cover_drain(&r->cover, &r->vk, r->d.queue);
}

/* An abandoned frame's slot (cg_zc_part_hooks): its submitted parts fenced
 * before the lease is given up. */
static cg_status abandoning(void *user, uint32_t slot)
{
    cg_vk_ring *r = user;
    return cg_vk_ring_copy_fence(&r->copy, slot, &r->err);
}

/* A failed Vulkan call after the claim: the slot goes back to RELEASED so
 * no learner waits for it, and the ring refuses further work. */
static cg_status fail_frame(cg_vk_ring *r, uint32_t slot, uint64_t frame, cg_status st)
{
    (void)cg_vk_ring_copy_fence(&r->copy, slot, &r->err);
    cg_zc_leases_release(&r->zc.leases, slot, frame);
    if (st != CG_E_RING_FULL) r->failed = 1;
    return st;
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

/* What every frame call checks first: the ring, its state and mode (want:
 * the mode the call is for, 0: either), the handles. */
static cg_status check_call(cg_vk_ring *r, cg_zc_mode want, const void *handle,
                            const void *desc_out, const char *what)
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    if (!handle || !desc_out)
        return cg_fail(&r->err, CG_E_INVALID_ARG, "%s and the descriptor buffer are required", what);
    if (r->failed)
        return cg_fail(&r->err, CG_E_BAD_STATE,
                       "an earlier publish failed; destroy this ring and create a new one");
    if (want && r->d.mode != want)
        return cg_fail(&r->err, CG_E_BAD_STATE, "this ring was made for %s mode",
                       r->d.mode == CG_ZC_MODE_SEMAPHORE ? "semaphore (publish)" : "fence (record)");
    return CG_OK;
}

/* Writes one part into slot/frame (the part's barriers: CG_VK_PART_*). */
typedef cg_status (*part_write_fn)(cg_vk_ring *r, uint32_t slot, uint64_t frame, unsigned part,
                                   const void *arg);

/* One part of a frame (cg_zc_parts.h): claim at the first, write, publish
 * at the last (q: a depth part's parameters, NULL: the ring's). The call's
 * inputs are checked (nothing changed on error). */
static cg_status frame_part(cg_vk_ring *r, cg_zc_part_kind kind, uint32_t eye,
                            const cg_zc_depth_params *q, part_write_fn write, const void *arg,
                            uint8_t *desc_out, size_t *desc_len)
{
    *desc_len = 0;
    cg_zc_part_hooks hooks = {slot_idle, claiming, abandoning, r};
    int fatal = 0;
    cg_status st =
        cg_zc_producer_part_begin(&r->zc, &r->parts, kind, eye, q, &hooks, &fatal, &r->err);
    if (fatal) r->failed = 1;
    CG_TRY(st);
    uint32_t slot = r->parts.slot;
    uint64_t frame = r->parts.frame;
    int first = r->parts.next == 0, last = r->parts.next + 1 == r->parts_count;
    unsigned part = (first && r->copy.slot[slot].released ? CG_VK_PART_ACQUIRE : 0u) |
                    (last ? CG_VK_PART_RELEASE : 0u);
    st = write(r, slot, frame, part, arg);
    if (st != CG_OK) {
        cg_zc_parts_reset(&r->parts);
        return fail_frame(r, slot, frame, st);
    }
    /* Recorded parts run in order on the queue: after a part that does not
     * release it, the slot is the queue family's. */
    r->copy.slot[slot].released = last;
    if (cg_zc_parts_done(&r->parts))
        *desc_len = cg_zc_producer_publish_parts(&r->zc, &r->parts, desc_out);
    return CG_OK;
}

typedef struct color_arg {
    VkCommandBuffer cmd; /* fence mode: the game's; VK_NULL_HANDLE: submit (semaphore mode) */
    VkImage src;
    VkImageLayout layout;
    uint32_t eye;
} color_arg;

static cg_status write_color(cg_vk_ring *r, uint32_t slot, uint64_t frame, unsigned part,
                             const void *arg)
{
    const color_arg *a = arg;
    if (!a->cmd)
        return cg_vk_ring_copy_submit(&r->copy, slot, a->eye, a->src, a->layout, &r->cursor, frame,
                                      part, &r->err);
    /* Same ordering as publish, within the game's own command buffer: the
     * barrier's first scope holds the game's earlier commands. */
    cg_vk_ring_copy_record(&r->copy, slot, a->eye, a->cmd, a->src, a->layout, &r->cursor, frame,
                           part);
    r->recorded = 1; /* its submit is the game's: destroy defers the slot memory */
    return CG_OK;
}

static cg_status color_part(cg_vk_ring *r, VkCommandBuffer cmd, VkImage src, VkImageLayout layout,
                            uint32_t eye, const cg_cursor *cursor, uint8_t *desc_out,
                            size_t *desc_len)
{
    CG_TRY(check_call(r, cmd ? CG_ZC_MODE_FENCE : CG_ZC_MODE_SEMAPHORE, src, desc_out,
                      "the source image"));
    if (!desc_len) return cg_fail(&r->err, CG_E_INVALID_ARG, "desc_len is required");
    CG_TRY(frame_inputs(r, src, cursor));
    color_arg a = {cmd, src, layout, eye};
    return frame_part(r, CG_ZC_PART_COLOR, eye, NULL, write_color, &a, desc_out, desc_len);
}

/* The one-part calls: a ring of one eye without depth. */
static cg_status single_part(cg_vk_ring *r, VkCommandBuffer cmd, VkImage src, VkImageLayout layout,
                             const cg_cursor *cursor, uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    if (r->parts_count > 1)
        return cg_fail(&r->err, CG_E_BAD_STATE,
                       "this ring has %u eye%s%s: its frames go part by part (record_depth, "
                       "publish_eye / record_eye)",
                       r->parts.eyes, r->parts.eyes == 1 ? "" : "s",
                       r->parts.depth ? " and a depth plane" : "");
    size_t len;
    return color_part(r, cmd, src, layout, 0, cursor, desc_out, &len);
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
    return single_part(r, VK_NULL_HANDLE, src, src_layout, cursor, desc_out);
}

cg_status cg_vk_ring_record_cursor(cg_vk_ring *r, VkCommandBuffer cmd, VkImage src,
                                   VkImageLayout src_layout, const cg_cursor *cursor,
                                   uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    if (!cmd) return cg_fail(&r->err, CG_E_INVALID_ARG, "the game's command buffer is required");
    return single_part(r, cmd, src, src_layout, cursor, desc_out);
}

cg_status cg_vk_ring_publish_eye(cg_vk_ring *r, VkImage src, VkImageLayout src_layout,
                                 uint32_t eye, const cg_cursor *cursor,
                                 uint8_t desc_out[CG_ZC_DESC_MAX_SIZE], size_t *desc_len)
{
    return color_part(r, VK_NULL_HANDLE, src, src_layout, eye, cursor, desc_out, desc_len);
}

cg_status cg_vk_ring_record_eye(cg_vk_ring *r, VkCommandBuffer cmd, VkImage src,
                                VkImageLayout src_layout, uint32_t eye, const cg_cursor *cursor,
                                uint8_t desc_out[CG_ZC_DESC_MAX_SIZE], size_t *desc_len)
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    if (!cmd) return cg_fail(&r->err, CG_E_INVALID_ARG, "the game's command buffer is required");
    return color_part(r, cmd, src, src_layout, eye, cursor, desc_out, desc_len);
}

typedef struct depth_arg {
    VkCommandBuffer cmd;
    VkImage depth;
    VkImageLayout layout;
    uint32_t eye;
} depth_arg;

static cg_status write_depth(cg_vk_ring *r, uint32_t slot, uint64_t frame, unsigned part,
                             const void *arg)
{
    const depth_arg *a = arg;
    /* The frame's parameters (cg_zc_producer_part_begin: both eyes give the same). */
    int raw = r->d.depth == CG_ZC_DEPTH_RAW;
    cg_vk_depth_params p = {raw, raw ? 0.0f : r->parts.near_plane,
                            raw ? 0.0f : r->parts.far_plane};
    cg_vk_ring_copy_label(&r->copy, a->cmd, "depth", a->eye, slot, frame);
    cg_vk_rgb_record_depth(r->rgb, a->cmd, slot, a->eye, a->depth, a->layout, &p, part);
    cg_vk_ring_copy_label_end(&r->copy, a->cmd);
    r->recorded = 1; /* in the game's command buffer, both modes */
    return CG_OK;
}

cg_status cg_vk_ring_record_depth(cg_vk_ring *r, VkCommandBuffer cmd, VkImage depth,
                                  VkImageLayout layout, uint32_t eye,
                                  const cg_zc_depth_params *p,
                                  uint8_t desc_out[CG_ZC_DESC_MAX_SIZE], size_t *desc_len)
{
    CG_TRY(check_call(r, 0, depth, desc_out, "the depth image"));
    if (!cmd || !desc_len)
        return cg_fail(&r->err, CG_E_INVALID_ARG, "the game's command buffer and desc_len are required");
    /* The ring has depth and this eye; valid parameters, eye 1's eye 0's. */
    CG_TRY(cg_zc_parts_check(&r->parts, CG_ZC_PART_DEPTH, eye, p, &r->err));
    CG_TRY(cg_vk_rgb_prepare_depth(r->rgb, depth, &r->err));
    depth_arg a = {cmd, depth, layout, eye};
    return frame_part(r, CG_ZC_PART_DEPTH, eye, p, write_depth, &a, desc_out, desc_len);
}
