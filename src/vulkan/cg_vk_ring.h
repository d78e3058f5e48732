/*
 * cg_vk_ring.h - the producer of zero-copy v2 (docs/zero-copy-v2/producer.md): the
 * game copies each frame on its own Vulkan queue into a ring of exportable
 * buffers; a learner process imports the ring once and reads every frame.
 * No CUDA in the game process.
 *
 * Given the game's instance, physical device, device, queue family and
 * queue (and its vkGetInstanceProcAddr: VK_NO_PROTOTYPES, no loader
 * linked), create_ makes N device-local buffers (OPAQUE_FD exportable, each
 * holding one frame as tightly packed 4-byte texels in the source image's
 * row order), in semaphore mode one exportable timeline semaphore, per slot
 * a command pool, command buffer and fence (cg_vk_slots.h), the control
 * block, and the hand-off socket (cg_zc_producer.h). Nothing is allocated per frame and no
 * call waits for the GPU.
 *
 * Needs VK_KHR_external_memory_fd on the device; semaphore mode also
 * VK_KHR_external_semaphore_fd and the timelineSemaphore feature. With
 * debug_utils set (VK_EXT_debug_utils on the instance) every object is
 * named "cg ring ..." and each copy is inside a command (and, semaphore
 * mode, queue) label.
 *
 * Threading: call publish/record on the thread that owns the game's queue
 * (Vulkan's external synchronisation of VkQueue and VkCommandBuffer). A
 * ring whose dispatch would read an SRGB image submits its probe to that
 * queue at create and waits for it (one small submit, once):
 * create such a ring on that thread too.
 *
 * Lease words: the ring keeps its own view of each slot (what it last
 * wrote). A learner may only move PUBLISHED(F) -> ACTIVE(F) -> RELEASED(F);
 * any other word found in the control block (WRITING, CLOSED, a state out
 * of the table, another frame) is put back to the ring's view at the next
 * frame call and never holds a slot, and after every learner connect and
 * disconnect every slot the ring does not hold is put back so.
 * States: usable after create; failed after a Vulkan call of publish/record
 * failed (every later call: CG_E_BAD_STATE; destroy and create again);
 * destroyed by destroy. Linux only.
 */
#ifndef CG_VK_RING_H
#define CG_VK_RING_H

#include <stdint.h>

#include "cg_cursor.h"
#include "cg_vk_device.h" /* vulkan.h without prototypes, cg_err.h */
#include "cg_zc_parts.h" /* cg_zc_depth_params */
#include "cg_zc_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_vk_ring cg_vk_ring;

/* What a slot holds (docs/zero-copy-v2/protocol.md). */
typedef enum cg_vk_slot_format {
    /* The game image copied as it is: 4-byte texels of `format`, the
     * image's size and row order (descriptor format 37/43/44/50). */
    CG_VK_SLOT_COPY = 0,
    /* The RAW observation upright: R, G, B bytes, tightly packed, at the
     * target size, nearest resize and cursor as the wire format defines
     * them, made by one compute dispatch (descriptor format 23; "The RGB
     * slot format"). The image needs VK_IMAGE_USAGE_SAMPLED_BIT: it is
     * read through a view of its own format (the ring keeps a view of
     * each image it is given, at most 8: keep them alive while the ring
     * lives). An SRGB image's view decodes to linear and the shader
     * encodes it back, which create checks once with a probe of every
     * byte value on the ring's queue; where that probe fails, or where
     * image_usage is given without SAMPLED, the image is instead copied as
     * stored into a staging buffer first (a second pass that costs more,
     * needing TRANSFER_SRC). cg_vk_ring_info.rgb_read says which. */
    CG_VK_SLOT_RGB8 = 1
} cg_vk_slot_format;

/* How a copy ring writes its slots (cg_vk_ring_info.copy_path; chosen once
 * at create from the image's format and usage, never per frame;
 * docs/zero-copy-v2/producer.md, "The compute copy"). The bytes are the same. */
typedef enum cg_vk_copy_path {
    /* vkCmdCopyImageToBuffer (needs TRANSFER_SRC). Where image_usage lacks
     * VK_IMAGE_USAGE_SAMPLED_BIT or is 0 (unknown), the build has no
     * compute pass (no glslangValidator), or the format is SRGB and the
     * probe of its decode failed (cg_vk_ring_info.srgb_fallback says why). */
    CG_VK_COPY_PATH_TRANSFER = 0,
    /* One compute dispatch (cg_vk_copy.comp) reading the image through a
     * view of its own format, image_usage including SAMPLED: UNORM, or
     * SRGB whose decode, encoded back in the shader, the probe at create
     * found exact for every byte value (else the transfer copy). The ring
     * keeps a view of each image it is given, at most 8 (a ninth:
     * CG_E_INVALID_ARG, the frame not recorded); keep them alive while the
     * ring lives. The RGB8 slot format reports this too. */
    CG_VK_COPY_PATH_COMPUTE = 1
} cg_vk_copy_path;

/* How an RGB8 ring reads its image (cg_vk_ring_info.rgb_read; chosen once
 * at create, never per frame). The slot's bytes are the same. */
typedef enum cg_vk_rgb_read {
    /* The dispatch reads the image through a view of its own format: every
     * UNORM image; an SRGB one whose decode the probe found exact. Copy
     * rings report this too. */
    CG_VK_RGB_READ_VIEW = 0,
    /* SRGB: vkCmdCopyImageToBuffer into a staging buffer first, which the
     * dispatch reads (the probe failed, or image_usage lacks SAMPLED;
     * cg_vk_ring_info.srgb_fallback says which). */
    CG_VK_RGB_READ_STAGING = 1
} cg_vk_rgb_read;

#define CG_VK_RING_DEFAULT_SLOTS 3

typedef struct cg_vk_ring_desc {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    uint32_t queue_family; /* family of `queue` */
    VkQueue queue;         /* the game's queue: copies are submitted to it */
    int width, height;     /* pixels, 1..CG_MAX_DIM: the game image's size */
    VkFormat format;       /* R8G8B8A8/B8G8R8A8 UNORM or SRGB; UNDEFINED = R8G8B8A8_UNORM */
    uint32_t slots;        /* 1..CG_ZC_MAX_SLOTS; 0 = CG_VK_RING_DEFAULT_SLOTS */
    cg_zc_mode mode;       /* CG_ZC_MODE_SEMAPHORE or CG_ZC_MODE_FENCE */
    uint64_t wait_ns;      /* when every slot is held: poll this long, then skip (0: skip at once) */
    int debug_utils;       /* nonzero: name objects, label copies (VK_EXT_debug_utils) */
    /* Semaphore mode, nonzero: a slot whose last copy came from the same
     * image in the same layout submits its recorded commands again instead
     * of recording them (a game alternates between a few images). The
     * caller then keeps every image it published alive while the ring
     * lives: destroy the ring before destroying or recreating its images. */
    int reuse_recordings;
    const char *socket_dir; /* NULL: the protocol's rule; tests give their own */
    /* CG_VK_SLOT_COPY (0, the default) or CG_VK_SLOT_RGB8. RGB8 only: */
    cg_vk_slot_format slot_format;
    int target_width, target_height; /* the slot's size, 1..CG_MAX_DIM; 0, 0: the image's */
    int flip; /* the RAW path's flip: nonzero when the image's row 0 is the top
               * (a Vulkan render target), 0 when it is the bottom; either way
               * the slot comes out upright */
    /* The VkImageUsageFlags every image given to publish/record was created
     * with (they share one). Copy rings: with VK_IMAGE_USAGE_SAMPLED_BIT the
     * slots are written by the compute copy (CG_VK_COPY_PATH_COMPUTE; SRGB
     * formats where their probe passes), else by vkCmdCopyImageToBuffer;
     * 0 = not known: the transfer copy. Never assumed. Nonzero usage that
     * allows neither (no TRANSFER_SRC, and no SAMPLED on a UNORM format; an
     * SRGB format always needs TRANSFER_SRC, the copy its probe may fall
     * back to): CG_E_INVALID_ARG at create. RGB8 rings: 0 means the image
     * has SAMPLED, as the format requires; nonzero without SAMPLED keeps an
     * SRGB image on the staging copy. */
    VkImageUsageFlags image_usage;
    /* RGB8 only (docs/zero-copy-v2/protocol.md, "Depth and stereo planes"): eyes 1
     * or 2 (0: 1) in each slot, and with depth != CG_ZC_DEPTH_NONE a depth
     * plane per eye, written from the game's VK_FORMAT_D32_SFLOAT image
     * (usage SAMPLED, the size of the colour image; read with the ring's
     * flip) by cg_vk_ring_record_depth. LINEAR: near_plane, far_plane and
     * z_zero_to_one are every frame's unless its depth call gives its own
     * (finite 0 < near < far, else CG_E_INVALID_ARG). A ring with eyes > 1
     * or depth writes descriptor version 3 (256 bytes) and takes its frames
     * part by part (cg_vk_ring_record_depth, cg_vk_ring_publish_eye /
     * cg_vk_ring_record_eye); publish/record(_cursor) refuse it. */
    uint32_t eyes;
    cg_zc_depth_encoding depth;
    float near_plane, far_plane;
    int z_zero_to_one;
} cg_vk_ring_desc;

/* What tests and C consumers may look at. Handles stay owned by the ring. */
typedef struct cg_vk_ring_info {
    uint64_t ring_id;
    uint64_t slot_size; /* bytes of each slot's allocation */
    uint32_t slots, row_pitch;
    uint32_t format; /* the descriptor's: a VkFormat number (23 for RGB8) */
    uint32_t width, height; /* the slot's picture */
    cg_vk_copy_path copy_path; /* how publish/record write a slot */
    cg_vk_rgb_read rgb_read;   /* RGB8: how the dispatch reads the image */
    /* SRGB formats: why the dispatch does not read the image through its
     * view though the ring would have (the probe's failure, or RGB8's
     * image_usage without SAMPLED); "" otherwise. Owned by the ring. */
    const char *srgb_fallback;
    uint8_t device_uuid[CG_DEVICE_UUID_SIZE];
    const char *socket_path;
    VkBuffer buffers[CG_ZC_MAX_SLOTS];
    VkSemaphore semaphore; /* VK_NULL_HANDLE in fence mode */
    cg_zc_control *control;
    struct cg_zc_server *server;
} cg_vk_ring_info;

/* Errors: CG_E_INVALID_ARG / dims (bad handle, mode, format, slot count);
 * CG_E_UNSUPPORTED (an extension's entry point is missing, or the buffer
 * cannot be exported as a non-dedicated OPAQUE_FD); CG_E_VULKAN (err gets
 * the call and VkResult); CG_E_PLATFORM / CG_E_PROTOCOL (socket, its
 * directory, memfd); CG_E_NO_MEMORY. Everything made is freed on error. */
cg_status cg_vk_ring_create(const cg_vk_ring_desc *d, cg_vk_ring **out, cg_err *err);

/* Stop the socket, close the control block (learners see CLOSED), wait for
 * the ring's own submitted copies, destroy everything. NULL: no-op. Any
 * thread, at any time (not during another call on the same ring).
 *
 * Fence mode: a copy cg_vk_ring_record put into a game command buffer may
 * be submitted after destroy (the ring cannot see the game's fence). So a
 * fence-mode ring that recorded a copy keeps its slot buffers and memory
 * (and the RGB pass) in a process-wide list; the first frame call of a
 * later ring on the same device and queue submits an empty batch with a
 * fence of its own to that queue, and once that fence signals (seen by a
 * later frame call, or waited at that ring's destroy) they are freed. This
 * relies on the game submitting (or resetting) each command buffer it
 * recorded a copy into before its next frame call (record/publish)
 * on a ring of that queue: what every frame loop does. The caller keeps
 * the game image it recorded alive until that submit completes, and the
 * device alive while memory of it is deferred: before vkDestroyDevice
 * (after the game's vkDeviceWaitIdle), call cg_vk_ring_free_deferred. */
void cg_vk_ring_destroy(cg_vk_ring *r);

/* The device is idle and no command buffer with a recorded copy will be
 * submitted any more (the game's teardown, after vkDeviceWaitIdle): free
 * every deferred allocation of destroyed rings on it now. Returns how many
 * rings' memory was freed. Without it, a device destroyed with deferred
 * memory frees that memory itself, but a later device that gets the same
 * handle value would have the old handles freed on it. */
uint32_t cg_vk_ring_free_deferred(VkDevice device);

/* Rings destroyed in fence mode whose slot memory is still deferred (see
 * cg_vk_ring_destroy): for tests and diagnostics. */
uint32_t cg_vk_ring_deferred_count(void);

const char *cg_vk_ring_last_error(const cg_vk_ring *r);
/* The same as the cg_err it is (NULL for NULL), for cg_fail_from. */
const cg_err *cg_vk_ring_error(const cg_vk_ring *r);
void cg_vk_ring_get_info(const cg_vk_ring *r, cg_vk_ring_info *info);

/* The producer's counters, indexed by cg_zc_counter (frames published and
 * skipped, ns spent polling for a slot, learners accepted, leases
 * reclaimed); the same values are in the control block for the learner
 * (docs/zero-copy-v2/protocol.md, "Counters"), refreshed at every frame call's
 * outcome. */
void cg_vk_ring_get_counters(const cg_vk_ring *r, uint64_t out[CG_ZC_COUNTERS]);

/* The descriptor with frame 0 and slot 0: it names no frame, but carries
 * everything a learner needs to connect before the first frame. */
cg_status cg_vk_ring_template(const cg_vk_ring *r, uint8_t *out, size_t cap);

/* Semaphore mode. Call right after the game's vkQueueSubmit of the frame
 * that renders `src` (usage includes TRANSFER_SRC, or SAMPLED with the
 * compute copy; RGBA8 of the ring's
 * size, in src_layout when the game's work completes; it is returned to
 * src_layout). Submits the copy into a free slot and a timeline signal of
 * the frame number to the same queue, writes the frame's descriptor (192
 * bytes) to desc_out, and returns without waiting for the GPU.
 * CG_E_RING_FULL: every slot was held for the whole wait_ns; nothing was
 * submitted, the ring stays usable. */
cg_status cg_vk_ring_publish(cg_vk_ring *r, VkImage src, VkImageLayout src_layout,
                             uint8_t desc_out[CG_ZC_DESC_SIZE]);

/* Fence mode. Record the copy into the game's command buffer `cmd` (in the
 * recording state, after the commands that render `src`); the game's
 * submit and fence wait complete it. Send desc_out to the learner only
 * after that fence wait. Same CG_E_RING_FULL rule. */
cg_status cg_vk_ring_record(cg_vk_ring *r, VkCommandBuffer cmd, VkImage src,
                            VkImageLayout src_layout, uint8_t desc_out[CG_ZC_DESC_SIZE]);

/* The same two, with this frame's cursor (cg_cursor.h; NULL: none). A cursor to draw
 * needs the RGB8 slot format (CG_E_INVALID_ARG otherwise). In fence mode
 * with RGB8 or the compute copy, `cmd`'s compute pipeline, descriptor sets
 * and push constants are the ring's afterwards (the game rebinds its own);
 * record outside a render pass. CG_E_INVALID_ARG when such a ring is given
 * a ninth distinct image (the frame is not recorded; the ring stays usable).
 * These four are a ring of one eye without depth's (one part a frame):
 * CG_E_BAD_STATE on a ring with eyes or a depth plane (below). */
cg_status cg_vk_ring_publish_cursor(cg_vk_ring *r, VkImage src, VkImageLayout src_layout,
                                    const cg_cursor *cursor,
                                    uint8_t desc_out[CG_ZC_DESC_SIZE]);
cg_status cg_vk_ring_record_cursor(cg_vk_ring *r, VkCommandBuffer cmd, VkImage src,
                                   VkImageLayout src_layout, const cg_cursor *cursor,
                                   uint8_t desc_out[CG_ZC_DESC_SIZE]);

/* ---- frames of parts: depth and stereo ---------------------------------------
 * A ring with E eyes and a depth plane D takes each frame as E * (1 + D)
 * parts in this order: for eye 0..E-1, [depth(eye) if D], colour(eye)
 * (cg_zc_parts.h). The first part claims a slot, the last publishes it;
 * a frame is never published half-written. Every call returns:
 *   CG_OK, *desc_len 0: the part is written, the frame needs more parts;
 *   CG_OK, *desc_len > 0: this part completed the frame: its descriptor
 *     (*desc_len bytes: 256, or 192 on a ring of one eye without depth) is
 *     in desc_out;
 *   CG_E_RING_FULL: the part was not written: its frame is skipped (its
 *     first part found every slot held for wait_ns, or this part came out
 *     of order: then the open frame was abandoned, its slot never
 *     published, and counted skipped);
 *   CG_E_INVALID_ARG, nothing changed: eye >= eyes, a depth call on a ring
 *     without depth, invalid near/far, a missing handle, a ninth image;
 *   CG_E_BAD_STATE: the wrong mode's call, or a failed ring.
 * Record outside a render pass; the command buffer's compute pipeline,
 * descriptor sets and push constants are the ring's afterwards. */

/* Record eye `eye`'s depth plane from `depth` (in `layout` when the game's
 * earlier commands complete; returned to it) into the game's command
 * buffer `cmd` (both modes), at the mod's depth point (after the level is
 * rendered, before the depth is cleared). p: this frame's linearisation
 * (NULL: the ring's; ignored for RAW); a stereo frame's two depth parts
 * must give the same (CG_E_INVALID_ARG otherwise). The game submits cmd;
 * in semaphore mode before the colour part of the same eye. */
cg_status cg_vk_ring_record_depth(cg_vk_ring *r, VkCommandBuffer cmd, VkImage depth,
                                  VkImageLayout layout, uint32_t eye,
                                  const cg_zc_depth_params *p,
                                  uint8_t desc_out[CG_ZC_DESC_MAX_SIZE], size_t *desc_len);

/* Semaphore mode: eye `eye`'s colour, as cg_vk_ring_publish_cursor, right
 * after the game's submit of that eye's frame (which carries its depth
 * part). Submitted to the queue; only the frame's last colour part signals
 * the timeline (to the frame number: its first scope covers the game's
 * earlier submits with the depth dispatches) and the slot's fence. */
cg_status cg_vk_ring_publish_eye(cg_vk_ring *r, VkImage src, VkImageLayout src_layout,
                                 uint32_t eye, const cg_cursor *cursor,
                                 uint8_t desc_out[CG_ZC_DESC_MAX_SIZE], size_t *desc_len);

/* Fence mode: eye `eye`'s colour recorded into the game's command buffer,
 * as cg_vk_ring_record_cursor. The descriptor of the last part goes to the
 * learner after the game's fence wait. */
cg_status cg_vk_ring_record_eye(cg_vk_ring *r, VkCommandBuffer cmd, VkImage src,
                                VkImageLayout src_layout, uint32_t eye, const cg_cursor *cursor,
                                uint8_t desc_out[CG_ZC_DESC_MAX_SIZE], size_t *desc_len);

#ifdef __cplusplus
}
#endif

#endif /* CG_VK_RING_H */
