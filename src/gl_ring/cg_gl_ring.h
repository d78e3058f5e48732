/*
 * cg_gl_ring.h - the zero-copy v2 producer for the GL backend
 * (docs/zero-copy-v2/producer.md, "The GL producer"): the game's GL texture goes,
 * with GPU commands only, into a ring of buffers that a learner process
 * imports once. No CUDA in the game process.
 *
 * create_, on the thread whose GL context is current (the game's):
 * checks GL_EXT_memory_object and GL_EXT_memory_object_fd, reads the GL
 * device's GL_DEVICE_UUID_EXT, takes the process's own Vulkan instance
 * (cg_vk_instance.h: libvulkan.so.1, made once, kept for the process's
 * life) and makes the ring's own device on the physical device whose
 * deviceUUID equals it (no match: CG_E_NO_DEVICE, never another GPU), makes
 * the ring's exported device-local buffers there (cg_vk_slots.h; and, in
 * semaphore mode, its timeline semaphore), the protocol's control block,
 * hand-off socket and leases (src/zc, cg_zc_producer.h) and imports every
 * slot's memory into GL once (glImportMemoryFdEXT + a buffer object on it).
 *
 * Per frame (publish): a pack of the texture into the claimed slot's
 * buffer (glReadPixels into it bound as GL_PIXEL_PACK_BUFFER, RGBA8, tight
 * rows, GL's row order: bottom row first) or, where desc.texture_format
 * allows it, the compute copy writing the same bytes (below), then the
 * completion:
 * - semaphore mode (GL_EXT_semaphore_fd, and a Vulkan device with
 *   VK_KHR_external_semaphore_fd and timeline semaphores): GL signals the
 *   slot's binary semaphore (made in Vulkan, imported into GL once), glFlush,
 *   and one submit without commands on the library's own queue waits for it
 *   and signals the ring's timeline to the frame number, with the slot's
 *   fence. The host never waits; the fence tells a later claim that GL's
 *   write of that slot is over. Or (desc.signal, GL_NV_timeline_semaphore)
 *   GL signals the ring's timeline to the frame number itself: no Vulkan
 *   call per frame; GL executes its writes of a slot in order, so a slot
 *   rewritten while GL's last write is queued needs no fence.
 * - fence mode (GL without semaphores, e.g. Mesa llvmpipe): a GL fence and
 *   glClientWaitSync before the descriptor is returned: the CPU observes
 *   completion. The fallback, not the fast path.
 * The caller's GL state is saved and restored by the readback path
 * (cg_gl_read_rgba_to_buffer, cg_gl.h). No glFinish anywhere but destroy.
 *
 * The RGB slot format (desc.slot_format = CG_VK_SLOT_RGB8; docs/zero-copy-v2/protocol.md,
 * "The RGB slot format"): each slot holds the RAW observation upright, R, G,
 * B bytes at the target size (nearest resize, the frame's cursor), equal to
 * what the CPU converter gives for the same frame with its rows reversed;
 * descriptor format 23, no ROWS_BOTTOM_UP. Made per frame by one GL compute
 * dispatch in place of the pack: the Vulkan ring's shader source
 * (cg_vk_rgb.comp), compiled by GL once at create (GL 4.3 needed), reads
 * the texture with texelFetch (unit 0, the ring's nearest sampler) and
 * writes the slot's buffer bound as a shader storage buffer; the cursor
 * bitmap (cg_cursor_bits) is uploaded once. The state it touches is saved
 * and restored (cg_gl_dispatch_compute, cg_gl.h). Then the same completion.
 *
 * The compute copy (docs/zero-copy-v2/producer.md, "The compute copy"): a copy ring
 * whose desc.texture_format is GL_RGBA8 runs cg_vk_copy.comp in place of
 * the pack where GL runs compute shaders: texelFetch of each texel,
 * written back as its stored bytes into the slot bound as a shader storage
 * buffer, row y of the texture (GL's y: the bottom row first) at row y of
 * the slot, so the bytes, descriptor (ROWS_BOTTOM_UP) and completion are
 * the pack's. Which path writes the slots is chosen once at create and
 * reported (cg_gl_ring_info.copy_path).
 *
 * Depth and stereo planes (desc.eyes, desc.depth; docs/zero-copy-v2/protocol.md,
 * "Depth and stereo planes"; the RGB slot format only): a slot holds, per
 * eye, its RGB plane and (with depth) its depth plane, where
 * cg_zc_planes_layout puts them; the descriptor is version 3. Such a ring
 * takes each frame in parts (cg_gl_ring_publish_depth, _eye below): each
 * part one GL compute dispatch into its plane (the RGB shader bound at the
 * eye's plane; the depth plane pass, cg_gl_depth_pass in cg_gl.h), the
 * completion once, at the frame's last part.
 *
 * Threading and context: every call on the thread where the GL context
 * that create_ saw is current; publish refuses another context
 * (CG_E_BAD_STATE) or none (CG_E_NO_CONTEXT). States: usable after create;
 * failed after a GL or Vulkan call of publish failed (CG_E_BAD_STATE from
 * then on; destroy and create again). Linux only.
 */
#ifndef CG_GL_RING_H
#define CG_GL_RING_H

#include <stdint.h>

#include "cg_err.h"
#include "cg_status.h"
#include "cg_vk_ring.h" /* cg_vk_slot_format, cg_vk_copy_path, cg_vk_ring_info */
#include "cg_zc_parts.h" /* cg_zc_depth_params */
#include "cg_zc_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_gl_ring cg_gl_ring;

/* desc.mode: 0 picks semaphore mode where GL and Vulkan have what it
 * needs, else fence mode; CG_ZC_MODE_SEMAPHORE / CG_ZC_MODE_FENCE force
 * one (semaphore mode without its extensions: CG_E_UNSUPPORTED). */
#define CG_GL_RING_MODE_AUTO 0

/* desc.signal, semaphore mode: how GL's completion reaches the timeline. */
typedef enum cg_gl_ring_signal {
    /* GL_TIMELINE where GL has GL_NV_timeline_semaphore, else BRIDGE. On
     * the H200 (bench_zerocopy_gl_ring) the bridge's submit costs the game
     * 20 us a frame at 640x360 and 400 us at 1920x1080 (the driver holds
     * it until GL's signal is submitted); GL signalling the timeline costs
     * 15 and 22 us. */
    CG_GL_RING_SIGNAL_AUTO = 0,
    /* GL signals the slot's binary semaphore; a command-less submit on the
     * library's queue waits for it and signals the timeline (any driver
     * with GL_EXT_semaphore_fd). */
    CG_GL_RING_SIGNAL_BRIDGE = 1,
    /* GL signals the ring's timeline semaphore itself, imported once
     * (GL_NV_timeline_semaphore): no Vulkan call per frame. CG_E_UNSUPPORTED
     * where GL lacks it. */
    CG_GL_RING_SIGNAL_GL_TIMELINE = 2
} cg_gl_ring_signal;

typedef struct cg_gl_ring_desc {
    int width, height;     /* the texture's size, fixed for the ring's life: 1..CG_MAX_DIM */
    uint32_t slots;        /* 1..CG_ZC_MAX_SLOTS; 0 = CG_VK_RING_DEFAULT_SLOTS */
    int mode;              /* CG_GL_RING_MODE_AUTO, CG_ZC_MODE_SEMAPHORE or CG_ZC_MODE_FENCE */
    uint64_t wait_ns;      /* every slot held: poll this long, then skip (cg_vk_ring_desc) */
    const char *socket_dir; /* NULL: the protocol's rule */
    const char *vulkan_library; /* NULL: "libvulkan.so.1" */
    cg_gl_ring_signal signal;   /* semaphore mode only; 0 = CG_GL_RING_SIGNAL_AUTO */
    cg_vk_slot_format slot_format; /* CG_VK_SLOT_COPY (0) or CG_VK_SLOT_RGB8 */
    int target_width, target_height; /* RGB8: the slot's size, 1..CG_MAX_DIM; 0, 0: the texture's */
    /* The GL internal format of every texture given to publish (they share
     * one). A copy ring with GL_RGBA8 (0x8058), in a GL that runs compute
     * shaders (cg_gl_has_compute) and whose storage blocks hold a slot, is
     * written by the compute copy (cg_vk_copy.comp: the same bytes as
     * glReadPixels, GL's bottom-up rows; CG_VK_COPY_PATH_COMPUTE), and a
     * texture of another format is then refused per frame
     * (CG_E_BAD_TEXTURE, nothing published); anything else, 0 (not known)
     * included: glReadPixels. Never assumed. */
    unsigned texture_format;
    /* Depth and stereo planes (docs/zero-copy-v2/protocol.md, "Depth and stereo
     * planes"; the RGB8 slot format only, else CG_E_INVALID_ARG): eyes 1 or
     * 2 (0: 1); depth CG_ZC_DEPTH_NONE (0), _LINEAR or _RAW: a depth plane
     * per eye at the target size, from a depth texture of the colour
     * texture's size. LINEAR: near_plane / far_plane (finite, 0 < near <
     * far, cg_depth_check_planes) and z_zero_to_one are the frames'
     * parameters unless a depth call overrides them. A ring with eyes > 1
     * or a depth plane writes descriptor version 3 (256 bytes) and takes
     * its frames in parts (cg_gl_ring_publish_depth / _eye). */
    uint32_t eyes;
    cg_zc_depth_encoding depth;
    float near_plane, far_plane;
    int z_zero_to_one;
} cg_gl_ring_desc;

typedef struct cg_gl_ring_info {
    cg_zc_mode mode;               /* the mode chosen */
    cg_gl_ring_signal signal;      /* semaphore mode: how GL signals (never AUTO) */
    cg_vk_copy_path copy_path;     /* how a slot is written, chosen at create (RGB8: COMPUTE) */
    char device_name[256];         /* the Vulkan device matched to GL's */
    uint8_t device_uuid[CG_DEVICE_UUID_SIZE];
    unsigned buffers[CG_ZC_MAX_SLOTS]; /* GL buffer names of the slots */
    VkDevice device;                   /* the library's own (tests wait on the timeline) */
    PFN_vkGetDeviceProcAddr get_device_proc_addr;
} cg_gl_ring_info;

/* Errors (err says which extension, call or device): CG_E_INVALID_ARG and
 * dims (size, target size, slots, mode, slot format); CG_E_NO_CONTEXT (no
 * current GL context); CG_E_UNSUPPORTED (GLES or GL < 3.0; RGB8 on GL < 4.3;
 * GL_EXT_memory_object(_fd) missing;
 * no Vulkan loader, Vulkan 1.1 or VK_KHR_external_memory_fd; semaphore mode
 * forced without its extensions); CG_E_NO_DEVICE (no Vulkan device has
 * GL's device UUID: err lists both sides); CG_E_GL, CG_E_VULKAN, and those
 * of the slots (cg_vk_slots_create: a buffer the device cannot export) and
 * of the protocol's side (cg_zc_producer_open: CG_E_PLATFORM /
 * CG_E_PROTOCOL for the socket, its directory, memfd). Everything made is
 * freed on error. */
cg_status cg_gl_ring_create(const cg_gl_ring_desc *d, cg_gl_ring **out, cg_err *err);

/* With the creation context current: wait for GL's writes (glFinish),
 * delete the GL objects; otherwise leave them to die with their context
 * (only the error paths do that; callers use cg_gl_ring_destroy_current).
 * Then the ring (learners see CLOSED) and the Vulkan device. The Vulkan
 * instance and loader stay: they are the process's (cg_vk_instance.h), so
 * that the game's GL context survives. The game's EGL/GLX binding is
 * saved and restored around it. NULL: no-op. */
void cg_gl_ring_destroy(cg_gl_ring *r);

/* cg_gl_ring_destroy, only on a thread where the ring's GL context is
 * current: otherwise CG_E_NO_CONTEXT (none current) or CG_E_BAD_STATE
 * (another one), err says so, and the ring is untouched and usable (a
 * destroy elsewhere would leak every GL object in its context). NULL: OK. */
cg_status cg_gl_ring_destroy_current(cg_gl_ring *r, cg_err *err);

/* Publish the current contents of `texture` (GL_TEXTURE_2D, at least the
 * ring's size; its [0,w) x [0,h) region) as the next frame: desc_out gets
 * its 192-byte descriptor. CG_E_RING_FULL: every slot was held for the
 * whole wait_ns; nothing was written, the ring stays usable. A texture
 * that is not usable: CG_E_BAD_TEXTURE, the ring stays usable. A ring
 * with eyes or depth planes takes its frames in parts instead
 * (cg_gl_ring_publish_depth / _eye; here CG_E_INVALID_ARG). */
cg_status cg_gl_ring_publish(cg_gl_ring *r, unsigned texture, uint8_t desc_out[CG_ZC_DESC_SIZE]);

/* The same with this frame's cursor (NULL: none; the wire format's rule: a
 * hot spot outside the target draws nothing). A cursor to draw needs the
 * RGB8 slot format (CG_E_INVALID_ARG otherwise, nothing published). RGB8
 * also needs the texture's level 0 to be GL_RGBA8 or GL_RGB8, not sRGB
 * (CG_E_BAD_TEXTURE). */
cg_status cg_gl_ring_publish_cursor(cg_gl_ring *r, unsigned texture,
                                    const cg_cursor *cursor,
                                    uint8_t desc_out[CG_ZC_DESC_SIZE]);

/* A frame in parts (rings with eyes > 1 or a depth plane; a plain ring
 * takes colour(0) too). The parts of a frame come in this order (cg_zc_parts.h):
 * for eye 0..eyes-1, depth(eye) when the ring has depth planes, then
 * colour(eye). The frame's first part claims a slot; each part writes its
 * plane by one GL compute dispatch (the caller's state saved and restored);
 * the last part does the completion (semaphore signal, bridge submit or
 * fence, as publish does) and publishes the slot. Returns:
 *  CG_OK, *desc_len 0: the part is written, the frame needs more parts;
 *  CG_OK, *desc_len = cg_zc_desc_length(desc_out): the frame is published,
 *         desc_out holds its descriptor (256 bytes on a ring with eyes or
 *         depth, carrying the frame's near/far; 192 on a plain ring);
 *  CG_E_RING_FULL: the frame is skipped: its first part found every slot
 *         held for wait_ns (counted once), or this part is out of order (the
 *         open frame, if any, is given up: its slot RELEASED, never
 *         published, counted as skipped); nothing written until the next
 *         first part;
 *  CG_E_INVALID_ARG, nothing changed: eye outside 0..eyes-1, a depth part on
 *         a ring without depth, bad near/far, a later eye's depth part with
 *         other parameters than the frame's (depth(0) sets them), NULL
 *         desc_out or desc_len;
 *  CG_E_BAD_TEXTURE (the frame given up, its slot RELEASED, the ring
 *         usable), CG_E_NO_CONTEXT / CG_E_BAD_STATE as publish, CG_E_GL
 *         (the ring failed).
 * A skipped or abandoned frame is never published: no learner sees a slot
 * with a plane unwritten. */

/* The depth part of `eye`: depth_texture (GL_TEXTURE_2D of a depth format,
 * cg_gl_texture_kind; level 0 exactly the ring's width x height) into that
 * eye's depth plane, nearest resize by the RGB plane's mapping, rows upright.
 * params: this frame's near/far/zZeroToOne (LINEAR rings; NULL: the ring's),
 * ignored by a RAW ring. Call it where the game's depth buffer holds the
 * eye's scene (Minecraft: right after renderLevel). */
cg_status cg_gl_ring_publish_depth(cg_gl_ring *r, unsigned depth_texture, uint32_t eye,
                                   const cg_zc_depth_params *params,
                                   uint8_t desc_out[CG_ZC_DESC_MAX_SIZE], size_t *desc_len);

/* The colour part of `eye`: texture (as publish_cursor) with that eye's
 * cursor (NULL: none) into the eye's RGB plane. The RGB8 slot format only. */
cg_status cg_gl_ring_publish_eye(cg_gl_ring *r, unsigned texture, uint32_t eye,
                                 const cg_cursor *cursor, uint8_t desc_out[CG_ZC_DESC_MAX_SIZE],
                                 size_t *desc_len);

/* The descriptor with frame 0 (as cg_vk_ring_template; cap at least
 * cg_zc_desc_length of it: 256 on a ring with eyes or depth). */
cg_status cg_gl_ring_template(const cg_gl_ring *r, uint8_t *out, size_t cap);

/* The ring's protocol side, in the Vulkan ring's terms (cg_vk_ring_info:
 * ring id, slot size and count, row pitch, the descriptor's format and
 * size, socket path, control block, server; buffers and semaphore are the
 * library's own device's). Handles stay owned by the ring. */
void cg_gl_ring_get_ring_info(const cg_gl_ring *r, cg_vk_ring_info *info);

/* The producer's counters (cg_vk_ring_get_counters' meaning), indexed by
 * cg_zc_counter; the same values are in the control block. */
void cg_gl_ring_get_counters(const cg_gl_ring *r, uint64_t out[CG_ZC_COUNTERS]);

const char *cg_gl_ring_last_error(const cg_gl_ring *r);
/* The same as the cg_err it is (NULL for NULL), for cg_fail_from. */
const cg_err *cg_gl_ring_error(const cg_gl_ring *r);
void cg_gl_ring_get_info(const cg_gl_ring *r, cg_gl_ring_info *info);

/* The one device rule: the index of the first of n Vulkan device UUIDs
 * that equals gl_uuid. CG_E_NO_DEVICE when none does (err shows GL's UUID
 * and every Vulkan device's name and UUID; names may be NULL). */
cg_status cg_gl_ring_match_device(const uint8_t gl_uuid[CG_DEVICE_UUID_SIZE],
                                  const uint8_t (*vk_uuids)[CG_DEVICE_UUID_SIZE],
                                  const char *const *names, uint32_t n, uint32_t *index,
                                  cg_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CG_GL_RING_H */
