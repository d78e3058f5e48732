/*
 * cg_gl_ring.c - the GL producer of zero-copy v2 (cg_gl_ring.h): the
 * library's own Vulkan device on GL's GPU makes the ring; GL writes it.
 * The description's checks are cg_gl_ring_shape.c's, a part call's
 * protocol half src/zc's (cg_zc_producer_part_begin).
 */
#include "cg_gl_ring.h"

#include <epoxy/gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_cursor.h"
#include "cg_gl.h"
#include "cg_gl_check.h"
#include "cg_gl_extmem.h"
#include "cg_gl_ring_compute.h" /* the RGB slot format's and the compute copy's writer */
#include "cg_gl_ring_shape.h"   /* the description checked: sizes, eyes, planes */
#include "cg_vk_device.h" /* cg_vk_own_device_open, CG_VK_CHECK */
#include "cg_vk_rgb.h"    /* CG_VK_RGB_SLOT_USAGE */
#include "cg_vk_slots.h"  /* the exported slot memory, timeline and fences */
#include "cg_zc_parts.h"    /* the order of a frame's parts (eyes, depth planes) */
#include "cg_zc_producer.h" /* the protocol's side: template, control block, socket, leases */

struct cg_gl_ring {
    cg_gl_ring_desc d;
    void *gl_ctx; /* key of the context the GL objects live in */
    cg_zc_mode mode;
    size_t frame_bytes;
    /* Vulkan: the process's own instance (kept for the process's life,
     * cg_vk_instance.h), the ring's own device on GL's GPU */
    cg_vk_own_device own;
    cg_vk_slots slots;  /* on the own device: what the learner imports */
    cg_zc_producer zc;  /* the descriptor's constant fields, control block, socket, leases */
    /* per slot */
    VkSemaphore vk_sem[CG_ZC_MAX_SLOTS]; /* semaphore mode: GL signals, the bridge waits */
    cg_gl_ring_signal signal;            /* what pick_mode chose (never AUTO) */
    GLuint gl_sem[CG_ZC_MAX_SLOTS];
    cg_gl_imported mem[CG_ZC_MAX_SLOTS]; /* the slots' memory as GL buffers */
    /* GL_NV_timeline_semaphore: the ring's timeline imported into GL */
    cg_gl_timeline timeline;
    cg_gl_reader *reader;
    /* RGB8 slot format or the compute copy: its GL compute writer. */
    cg_vk_copy_path copy_path;
    cg_gl_ring_compute compute;
    /* Eyes and depth planes (planes: eyes > 1 or a depth plane, descriptor
     * version 3): where they lie, the frame being assembled, the depth
     * planes' pass. */
    int planes;
    cg_zc_planes layout;
    cg_zc_parts parts;
    cg_gl_depth_pass *depth_pass;
    cg_err err;
    int failed;
};

/* ---- the device rule ------------------------------------------------------ */

static void hex16(const uint8_t *u, char out[33])
{
    for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", u[i]);
}

cg_status cg_gl_ring_match_device(const uint8_t gl_uuid[CG_DEVICE_UUID_SIZE],
                                  const uint8_t (*vk_uuids)[CG_DEVICE_UUID_SIZE],
                                  const char *const *names, uint32_t n, uint32_t *index,
                                  cg_err *err)
{
    CG_RETURN_IF(!gl_uuid || (n && !vk_uuids) || !index, CG_E_INVALID_ARG);
    for (uint32_t i = 0; i < n; i++)
        if (memcmp(gl_uuid, vk_uuids[i], CG_DEVICE_UUID_SIZE) == 0) {
            *index = i;
            return CG_OK;
        }
    char want[33], have[33], list[CG_ERR_SIZE / 2] = "";
    size_t used = 0;
    hex16(gl_uuid, want);
    for (uint32_t i = 0; i < n && used < sizeof list; i++) {
        hex16(vk_uuids[i], have);
        int k = snprintf(list + used, sizeof list - used, "%s%s %s", i ? ", " : "",
                         names && names[i] ? names[i] : "?", have);
        if (k < 0) break;
        used += (size_t)k;
    }
    return cg_fail(err, CG_E_NO_DEVICE,
                   "no Vulkan device renders GL's GPU (GL_DEVICE_UUID_EXT %s); Vulkan has %u: "
                   "%s (zero-copy v2 never falls back to another GPU)",
                   want, n, n ? list : "none");
}

/* ---- GL --------------------------------------------------------------------- */

/* Which mode: what GL and Vulkan offer, and what the caller asked. */
static cg_status pick_mode(cg_gl_ring *r)
{
    int gl_sem = epoxy_has_gl_extension("GL_EXT_semaphore") &&
                 epoxy_has_gl_extension("GL_EXT_semaphore_fd");
    int can = gl_sem && r->own.timeline && r->own.vk.vkGetSemaphoreFdKHR;
    if (r->d.mode == CG_ZC_MODE_SEMAPHORE && !can)
        return cg_fail(&r->err, CG_E_UNSUPPORTED,
                       "semaphore mode needs %s: use fence mode",
                       !gl_sem ? "GL_EXT_semaphore_fd in GL"
                               : "VK_KHR_external_semaphore_fd and timeline semaphores in Vulkan");
    r->mode = r->d.mode == CG_ZC_MODE_FENCE || !can ? CG_ZC_MODE_FENCE : CG_ZC_MODE_SEMAPHORE;
    r->signal = r->d.signal;
    if (r->mode != CG_ZC_MODE_SEMAPHORE || r->signal == CG_GL_RING_SIGNAL_BRIDGE) return CG_OK;
    int timeline = cg_gl_timeline_available(&r->timeline);
    if (r->signal == CG_GL_RING_SIGNAL_AUTO)
        r->signal = timeline ? CG_GL_RING_SIGNAL_GL_TIMELINE : CG_GL_RING_SIGNAL_BRIDGE;
    else if (!timeline)
        return cg_fail(&r->err, CG_E_UNSUPPORTED,
                       "GL signalling the timeline needs GL_NV_timeline_semaphore: use the bridge");
    return CG_OK;
}

/* Slot i's memory as a GL buffer object (and, semaphore mode, its binary
 * semaphore made in Vulkan and imported into GL). */
static cg_status import_slot(cg_gl_ring *r, uint32_t i, uint64_t slot_size)
{
    cg_oshandle h = cg_oshandle_dup(r->slots.slot[i].memory_handle);
    if (!cg_oshandle_valid(h))
        return cg_fail(&r->err, CG_E_PLATFORM, "dup of slot %u's memory fd failed", i);
    CG_TRY(cg_gl_import_buffer(h, slot_size, r->frame_bytes, &r->mem[i], &r->err));
    if (r->mode != CG_ZC_MODE_SEMAPHORE || r->signal == CG_GL_RING_SIGNAL_GL_TIMELINE)
        return CG_OK;
    const cg_vk_device *vk = &r->own.vk;
    VkExportSemaphoreCreateInfo es = {.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    es.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    si.pNext = &es;
    CG_TRY(CG_VK_CHECK(&r->err, vk->vkCreateSemaphore(vk->device, &si, NULL, &r->vk_sem[i])));
    VkSemaphoreGetFdInfoKHR gi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    gi.semaphore = r->vk_sem[i];
    gi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    cg_oshandle sh = CG_OSHANDLE_INVALID;
    CG_TRY(CG_VK_CHECK(&r->err, vk->vkGetSemaphoreFdKHR(vk->device, &gi, &sh)));
    return cg_gl_import_semaphore(sh, &r->gl_sem[i], &r->err);
}

/* GL_NV_timeline_semaphore: the ring's timeline semaphore, exported again
 * and imported into GL as a timeline. */
static cg_status import_timeline(cg_gl_ring *r, VkSemaphore timeline)
{
    const cg_vk_device *vk = &r->own.vk;
    VkSemaphoreGetFdInfoKHR gi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    gi.semaphore = timeline;
    gi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    cg_oshandle h = CG_OSHANDLE_INVALID;
    CG_TRY(CG_VK_CHECK(&r->err, vk->vkGetSemaphoreFdKHR(vk->device, &gi, &h)));
    return cg_gl_timeline_import(&r->timeline, h, &r->err);
}

/* ---- the RGB slot format -------------------------------------------------- */

/* Once, at create (cg_vk_copy_path, docs/zero-copy-v2/producer.md "The compute
 * copy"): a copy ring dispatches cg_vk_copy.comp where the caller says its
 * textures are GL_RGBA8, GL runs compute shaders and a slot fits one
 * storage block; else glReadPixels. */
static cg_vk_copy_path pick_copy_path(cg_gl_ring *r)
{
    GLint64 max_block;
    if (r->d.slot_format == CG_VK_SLOT_RGB8) return CG_VK_COPY_PATH_COMPUTE;
    if (r->d.texture_format != GL_RGBA8 || !cg_gl_has_compute(NULL) ||
        !cg_gl_ring_fits_block(r->frame_bytes, &max_block))
        return CG_VK_COPY_PATH_TRANSFER;
    return CG_VK_COPY_PATH_COMPUTE;
}

/* The compute writer of the RGB slot format or (copy_path COMPUTE) the
 * compute copy. */
static cg_status compute_setup(cg_gl_ring *r)
{
    cg_gl_ring_compute *c = &r->compute;
    c->copy = r->d.slot_format == CG_VK_SLOT_COPY;
    c->src_w = r->d.width;
    c->src_h = r->d.height;
    c->dst_w = r->d.target_width;
    c->dst_h = r->d.target_height;
    c->slots = r->zc.tmpl.slot_count;
    /* A ring with planes binds one plane a dispatch, else the whole slot. */
    size_t block = r->frame_bytes;
    if (r->planes) {
        uint64_t depth_bytes = r->d.depth ? (uint64_t)c->dst_w * (uint64_t)c->dst_h * 4u : 0;
        block = (size_t)(r->layout.rgb_bytes > depth_bytes ? r->layout.rgb_bytes : depth_bytes);
    }
    return cg_gl_ring_compute_setup(c, block, &r->err);
}

/* The ring on the library's own device: the exported slots (cg_vk_slots.h)
 * and the protocol's side (cg_zc_producer.h), the bytes and descriptor a
 * Vulkan ring of the same size and slot format would have, with GL's rows. */
static cg_status make_ring(cg_gl_ring *r)
{
    int rgb = r->d.slot_format == CG_VK_SLOT_RGB8;
    uint32_t slots = r->d.slots ? r->d.slots : CG_VK_RING_DEFAULT_SLOTS;
    cg_vk_slots_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.vk = &r->own.vk;
    sd.queue_family = r->own.queue_family;
    sd.count = slots;
    /* Mesa's llvmpipe places a buffer object in imported memory only when
     * the memory is larger than the buffer by its padding (32 bytes in Mesa
     * 22.3; GL_OUT_OF_MEMORY otherwise). A little slack costs nothing. */
    sd.size = (VkDeviceSize)r->frame_bytes + 256;
    sd.usage = CG_VK_SLOT_USAGE | (rgb ? CG_VK_RGB_SLOT_USAGE : 0);
    sd.timeline = r->mode == CG_ZC_MODE_SEMAPHORE; /* the bridge's submits need no commands */
    CG_TRY(cg_vk_slots_create(&r->slots, &sd, &r->err));

    cg_zc_desc t;
    memset(&t, 0, sizeof t);
    t.format = rgb ? CG_ZC_FORMAT_R8G8B8_UNORM : CG_ZC_FORMAT_R8G8B8A8_UNORM;
    t.width = (uint32_t)(rgb ? r->d.target_width : r->d.width);
    t.height = (uint32_t)(rgb ? r->d.target_height : r->d.height);
    t.row_pitch = t.width * (rgb ? 3 : 4);
    t.slot_count = slots;
    t.slot_size = r->slots.slot_size;
    t.mode = (uint32_t)r->mode;
    /* A copy keeps GL's row order (row 0 is the picture's bottom); the RGB
     * slot is upright. */
    t.flags = rgb ? 0u : CG_ZC_FLAG_ROWS_BOTTOM_UP;
    memcpy(t.device_uuid, r->own.uuid, CG_DEVICE_UUID_SIZE);
    if (r->planes) { /* version 3: where the planes lie, the init's depth parameters */
        t.eyes = r->d.eyes;
        t.color_eye_stride = r->layout.color_eye_stride;
    }
    if (r->d.depth) {
        t.depth_format = CG_ZC_FORMAT_R32_SFLOAT;
        t.depth_offset = r->layout.depth_offset;
        t.depth_eye_stride = r->layout.depth_eye_stride;
        t.depth_row_pitch = t.width * 4;
        t.depth_encoding = (uint32_t)r->d.depth;
    }
    if (r->d.depth == CG_ZC_DEPTH_LINEAR) {
        t.depth_flags = r->d.z_zero_to_one ? CG_ZC_DEPTH_Z_ZERO_TO_ONE : 0u;
        t.near_plane = r->d.near_plane;
        t.far_plane = r->d.far_plane;
    }
    cg_oshandle h[CG_ZC_MAX_SLOTS];
    for (uint32_t i = 0; i < slots; i++) h[i] = r->slots.slot[i].memory_handle;
    cg_zc_producer_desc pd = {&t, h, r->slots.semaphore_handle, r->d.socket_dir, r->d.wait_ns};
    return cg_zc_producer_open(&r->zc, &pd, &r->err);
}

static cg_status setup(cg_gl_ring *r)
{
    CG_TRY(cg_gl_current_context(&r->gl_ctx));
    cg_gl_drain_errors();
    const char *missing = NULL;
    if (r->d.slot_format == CG_VK_SLOT_RGB8 && !cg_gl_has_compute(&missing))
        return cg_fail(&r->err, CG_E_UNSUPPORTED,
                       "the RGB slot format needs GL 4.3 (compute shaders) or %s; this context "
                       "(%s) is GL %d.%d without it: use the plain copy",
                       missing, (const char *)glGetString(GL_RENDERER), epoxy_gl_version() / 10,
                       epoxy_gl_version() % 10);
    uint8_t gl_uuid[CG_DEVICE_UUID_SIZE];
    CG_TRY(cg_gl_extmem_device(gl_uuid, &r->err));

    cg_vk_own_desc od = {r->d.vulkan_library, gl_uuid, cg_gl_ring_match_device};
    CG_TRY(cg_vk_own_device_open(&od, &r->own, &r->err));
    CG_TRY(pick_mode(r));

    CG_TRY(make_ring(r));
    for (uint32_t i = 0; i < r->zc.tmpl.slot_count; i++)
        CG_TRY(import_slot(r, i, r->slots.slot_size));
    if (r->mode == CG_ZC_MODE_SEMAPHORE && r->signal == CG_GL_RING_SIGNAL_GL_TIMELINE)
        CG_TRY(import_timeline(r, r->slots.semaphore));
    CG_TRY(cg_gl_reader_create(NULL, &r->reader));
    r->copy_path = pick_copy_path(r);
    if (r->copy_path == CG_VK_COPY_PATH_COMPUTE) CG_TRY(compute_setup(r));
    CG_TRY(cg_zc_parts_init(&r->parts, r->d.eyes, r->d.depth != CG_ZC_DEPTH_NONE));
    if (r->d.depth == CG_ZC_DEPTH_LINEAR) {
        cg_zc_depth_params ring = {r->d.near_plane, r->d.far_plane, r->d.z_zero_to_one};
        cg_zc_parts_set_linear(&r->parts, &ring);
    }
    if (r->d.depth) CG_TRY(cg_gl_depth_pass_create(&r->depth_pass, &r->err));
    return CG_OK;
}

cg_status cg_gl_ring_create(const cg_gl_ring_desc *d, cg_gl_ring **out, cg_err *err)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = NULL;
    cg_err_clear(err);
    cg_gl_ring_shape sh;
    CG_TRY(cg_gl_ring_shape_of(d, &sh, err));
    cg_gl_ring *r = calloc(1, sizeof *r);
    CG_RETURN_IF(!r, CG_E_NO_MEMORY);
    r->d = *d;
    r->d.target_width = sh.target_width; /* a copy's: the texture's size (the compute copy's) */
    r->d.target_height = sh.target_height;
    r->d.eyes = sh.eyes;
    r->frame_bytes = sh.frame_bytes;
    r->planes = sh.planes;
    r->layout = sh.layout;
    cg_zc_producer_init(&r->zc);
    /* The game's GL binding survives whatever the Vulkan driver does to it
     * (cg_gl_binding_save: NVIDIA's vkDestroyInstance drops it). */
    cg_gl_binding game;
    cg_gl_binding_save(&game);
    cg_status st = setup(r);
    r->d.socket_dir = r->d.vulkan_library = NULL; /* the caller's strings are not kept */
    if (st != CG_OK) {
        cg_fail_from(err, st, &r->err);
        cg_gl_ring_destroy(r);
    }
    if (cg_gl_binding_restore(&game) < 0 && st == CG_OK) {
        cg_gl_ring_destroy(r);
        (void)cg_gl_binding_restore(&game);
        return cg_fail(err, CG_E_GL, "the Vulkan driver left the game's GL context not current, "
                                     "and making it current again failed");
    }
    if (st != CG_OK) return st;
    *out = r;
    return CG_OK;
}

void cg_gl_ring_destroy(cg_gl_ring *r)
{
    if (!r) return;
    cg_gl_binding game; /* see cg_gl_ring_create */
    cg_gl_binding_save(&game);
    if (r->gl_ctx && cg_gl_current_key() == r->gl_ctx) {
        /* Teardown is the one place that waits: GL's writes into the
         * imported memory end before it goes. */
        glFinish();
        for (uint32_t i = 0; i < CG_ZC_MAX_SLOTS; i++) {
            cg_gl_imported_delete(&r->mem[i]);
            cg_gl_semaphore_delete(&r->gl_sem[i]);
        }
        cg_gl_semaphore_delete(&r->timeline.sem);
        cg_gl_ring_compute_delete(&r->compute);
        cg_gl_drain_errors();
    }
    cg_gl_depth_pass_destroy(r->depth_pass); /* its GL objects as the ring's */
    cg_gl_reader_destroy(r->reader);
    cg_zc_producer_close(&r->zc);     /* learners see CLOSED */
    cg_vk_slots_destroy(&r->slots); /* waits for its bridge submits */
    if (r->own.vk.device && r->own.vk.vkDestroySemaphore) {
        (void)r->own.vk.vkDeviceWaitIdle(r->own.vk.device);
        for (uint32_t i = 0; i < CG_ZC_MAX_SLOTS; i++)
            if (r->vk_sem[i]) r->own.vk.vkDestroySemaphore(r->own.vk.device, r->vk_sem[i], NULL);
    }
    cg_vk_own_device_close(&r->own); /* not the instance: it is the process's */
    free(r);
    (void)cg_gl_binding_restore(&game);
}

cg_status cg_gl_ring_destroy_current(cg_gl_ring *r, cg_err *err)
{
    if (!r) return CG_OK;
    void *key = cg_gl_current_key();
    if (key != r->gl_ctx)
        return cg_fail(err, key ? CG_E_BAD_STATE : CG_E_NO_CONTEXT,
                       "%s: destroy the ring on the thread where the GL context it was made in "
                       "is current (the render thread); its GL buffers, memory objects and "
                       "semaphores can only be deleted there. The ring is kept",
                       key ? "another GL context is current" : "no GL context is current");
    cg_gl_ring_destroy(r);
    return CG_OK;
}

const char *cg_gl_ring_last_error(const cg_gl_ring *r)
{
    return r ? cg_err_text(&r->err) : "";
}

const cg_err *cg_gl_ring_error(const cg_gl_ring *r)
{
    return r ? &r->err : NULL;
}

void cg_gl_ring_get_info(const cg_gl_ring *r, cg_gl_ring_info *info)
{
    if (!r || !info) return;
    memset(info, 0, sizeof *info);
    info->mode = r->mode;
    info->signal = r->signal;
    info->copy_path = r->copy_path;
    snprintf(info->device_name, sizeof info->device_name, "%s", r->own.name);
    memcpy(info->device_uuid, r->own.uuid, CG_DEVICE_UUID_SIZE);
    for (uint32_t i = 0; i < CG_ZC_MAX_SLOTS; i++) info->buffers[i] = r->mem[i].buffer;
    info->device = r->own.vk.device;
    info->get_device_proc_addr = r->own.vk.vkGetDeviceProcAddr;
}

cg_status cg_gl_ring_template(const cg_gl_ring *r, uint8_t *out, size_t cap)
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    return cg_zc_desc_encode(&r->zc.tmpl, out, cap);
}

void cg_gl_ring_get_ring_info(const cg_gl_ring *r, cg_vk_ring_info *info)
{
    if (!r || !info) return;
    memset(info, 0, sizeof *info);
    const cg_zc_desc *t = &r->zc.tmpl;
    info->ring_id = t->ring_id;
    info->slot_size = r->slots.slot_size;
    info->slots = t->slot_count;
    info->row_pitch = t->row_pitch;
    info->format = t->format;
    info->width = t->width;
    info->height = t->height;
    info->copy_path = r->copy_path;
    memcpy(info->device_uuid, t->device_uuid, CG_DEVICE_UUID_SIZE);
    info->socket_path = t->socket_path;
    for (uint32_t i = 0; i < t->slot_count; i++) info->buffers[i] = r->slots.slot[i].buffer;
    info->semaphore = r->slots.semaphore;
    info->control = (cg_zc_control *)&r->zc.control;
    info->server = r->zc.server;
}

void cg_gl_ring_get_counters(const cg_gl_ring *r, uint64_t out[CG_ZC_COUNTERS])
{
    if (r) cg_zc_leases_counters(&r->zc.leases, out);
}

/* ---- per frame ---------------------------------------------------------------- */

/* Is the slot's last bridge submit finished? (cg_zc_slot_idle_fn) */
static cg_status slot_idle(void *user, uint32_t slot, int *idle)
{
    cg_gl_ring *r = user;
    return cg_vk_slots_idle(&r->slots, slot, idle, &r->err);
}

/* GL's writes of the frame reach the learner: semaphore mode signals the
 * slot's semaphore (the buffer listed, so its writes are made available
 * to the other API) and flushes, so that the signal is submitted before
 * the bridge's wait; fence mode waits on the CPU. */
static cg_status complete(cg_gl_ring *r, uint32_t slot, uint64_t frame)
{
    if (r->mode == CG_ZC_MODE_SEMAPHORE && r->timeline.sem)
        return cg_gl_signal_timeline(&r->timeline, frame, r->mem[slot].buffer, &r->err);
    if (r->mode == CG_ZC_MODE_SEMAPHORE)
        return cg_gl_signal_semaphore(r->gl_sem[slot], r->mem[slot].buffer, &r->err);
    return cg_gl_finish_fence(&r->err);
}

cg_status cg_gl_ring_publish(cg_gl_ring *r, unsigned texture, uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    return cg_gl_ring_publish_cursor(r, texture, NULL, desc_out);
}

/* What one part call writes (cg_zc_parts.h): a plane of the claimed slot. */
typedef struct gr_part {
    cg_zc_part_kind kind;
    uint32_t eye;
    unsigned texture;                 /* colour, or the depth texture */
    const cg_cursor *cursor;          /* colour: this eye's */
    const cg_zc_depth_params *params; /* depth, LINEAR: this frame's; NULL: the ring's */
} gr_part;

/* The part into the claimed slot: the pack, the RGB dispatch (at the eye's
 * plane on a ring with planes) or the depth pass. Failures with the
 * reason in r->err. */
static cg_status write_part(cg_gl_ring *r, const gr_part *p, uint32_t slot)
{
    GLuint buf = r->mem[slot].buffer;
    cg_status st;
    if (p->kind == CG_ZC_PART_DEPTH) {
        cg_gl_depth_linear lin = {r->parts.near_plane, r->parts.far_plane,
                                  (r->parts.depth_flags & CG_ZC_DEPTH_Z_ZERO_TO_ONE) != 0};
        cg_gl_depth_job j = {p->texture,
                             r->d.width,
                             r->d.height,
                             r->d.target_width,
                             r->d.target_height,
                             buf,
                             r->layout.depth_offset + p->eye * r->layout.depth_eye_stride,
                             r->d.depth == CG_ZC_DEPTH_LINEAR ? &lin : NULL};
        return cg_gl_depth_pass_run(r->depth_pass, r->reader, &j, &r->err);
    }
    if (r->compute.program) {
        uint64_t at = r->planes ? p->eye * r->layout.color_eye_stride : 0;
        st = cg_gl_ring_compute_dispatch(&r->compute, r->reader, p->texture, slot, buf, at,
                                         r->planes ? r->layout.rgb_bytes : 0, p->cursor);
    } else {
        st = cg_gl_read_rgba_to_buffer(r->reader, p->texture, r->d.width, r->d.height, buf);
    }
    if (st == CG_E_GL || st == CG_E_BAD_TEXTURE || st == CG_E_UNSUPPORTED)
        return cg_fail_from(&r->err, st, cg_gl_reader_error(r->reader));
    if (st != CG_OK) return cg_fail(&r->err, st, "texture %u: %s", p->texture, cg_strerror(st));
    return CG_OK;
}

/* Everything a per-frame call refuses before it looks at the part. */
static cg_status check_call(cg_gl_ring *r, const void *desc_out)
{
    if (!desc_out) return cg_fail(&r->err, CG_E_INVALID_ARG, "no descriptor buffer");
    if (r->failed)
        return cg_fail(&r->err, CG_E_BAD_STATE,
                       "an earlier publish failed; destroy this ring and create a new one");
    void *key = cg_gl_current_key();
    if (!key) return cg_fail(&r->err, CG_E_NO_CONTEXT, "no GL context is current on this thread");
    if (key != r->gl_ctx)
        return cg_fail(&r->err, CG_E_BAD_STATE,
                       "another GL context is current than the one the ring was made in");
    return CG_OK;
}

/* One part of a frame (cg_gl_ring.h, "A frame in parts"). */
static cg_status run_part(cg_gl_ring *r, const gr_part *p, uint8_t *desc_out, size_t *desc_len)
{
    cg_zc_part_hooks hooks = {slot_idle, NULL, NULL, r};
    int fatal = 0;
    cg_status st = cg_zc_producer_part_begin(&r->zc, &r->parts, p->kind, p->eye, p->params,
                                             &hooks, &fatal, &r->err);
    if (fatal) r->failed = 1;
    CG_TRY(st);
    uint32_t slot = r->parts.slot;
    uint64_t frame = r->parts.frame;
    st = write_part(r, p, slot);
    if (st != CG_OK) { /* the frame is given up: its slot RELEASED, the ring usable */
        (void)cg_zc_parts_reset(&r->parts);
        cg_zc_leases_release(&r->zc.leases, slot, frame);
        if (st == CG_E_GL) r->failed = 1;
        return st;
    }
    if (!cg_zc_parts_done(&r->parts)) return CG_OK; /* *desc_len 0: more parts */
    st = complete(r, slot, frame);
    if (st == CG_OK && r->vk_sem[slot]) /* the bridge; none in fence mode or with the GL timeline */
        st = cg_vk_slots_bridge(&r->slots, slot, r->own.queue, r->vk_sem[slot], frame, &r->err);
    if (st != CG_OK) { /* the slot goes back to RELEASED: no learner waits for it */
        r->failed = 1;
        cg_zc_leases_release(&r->zc.leases, slot, frame);
        return st;
    }
    *desc_len = cg_zc_producer_publish_parts(&r->zc, &r->parts, desc_out);
    return CG_OK;
}

cg_status cg_gl_ring_publish_cursor(cg_gl_ring *r, unsigned texture,
                                    const cg_cursor *cursor,
                                    uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    cg_err_clear(&r->err);
    if (r->planes)
        return cg_fail(&r->err, CG_E_INVALID_ARG,
                       "this ring (%u eyes, depth encoding %d) takes its frames in parts: "
                       "cg_gl_ring_publish_depth / cg_gl_ring_publish_eye",
                       r->d.eyes, (int)r->d.depth);
    if (cursor && cursor->draw && r->d.slot_format != CG_VK_SLOT_RGB8)
        return cg_fail(&r->err, CG_E_INVALID_ARG,
                       "a cursor is drawn only in the RGB slot format (this ring copies)");
    CG_TRY(check_call(r, desc_out));
    gr_part p = {CG_ZC_PART_COLOR, 0, texture, cursor, NULL};
    size_t len = 0;
    return run_part(r, &p, desc_out, &len);
}

cg_status cg_gl_ring_publish_eye(cg_gl_ring *r, unsigned texture, uint32_t eye,
                                 const cg_cursor *cursor, uint8_t desc_out[CG_ZC_DESC_MAX_SIZE],
                                 size_t *desc_len)
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    cg_err_clear(&r->err);
    if (!desc_len) return cg_fail(&r->err, CG_E_INVALID_ARG, "no descriptor length");
    *desc_len = 0;
    if (r->d.slot_format != CG_VK_SLOT_RGB8)
        return cg_fail(&r->err, CG_E_INVALID_ARG,
                       "colour parts by eye need the RGB slot format (this ring copies: "
                       "cg_gl_ring_publish)");
    CG_TRY(check_call(r, desc_out));
    gr_part p = {CG_ZC_PART_COLOR, eye, texture, cursor, NULL};
    return run_part(r, &p, desc_out, desc_len);
}

cg_status cg_gl_ring_publish_depth(cg_gl_ring *r, unsigned depth_texture, uint32_t eye,
                                   const cg_zc_depth_params *params,
                                   uint8_t desc_out[CG_ZC_DESC_MAX_SIZE], size_t *desc_len)
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    cg_err_clear(&r->err);
    if (!desc_len) return cg_fail(&r->err, CG_E_INVALID_ARG, "no descriptor length");
    *desc_len = 0;
    CG_TRY(check_call(r, desc_out));
    gr_part p = {CG_ZC_PART_DEPTH, eye, depth_texture, NULL, params};
    return run_part(r, &p, desc_out, desc_len);
}
