/*
 * cg_vk_ring_copy.h - internal to src/vulkan: a Vulkan ring's colour part
 * as commands (cg_vk_ring.c's frame path writes its colour parts with it).
 * Recorded into a command buffer (the game's in fence mode, the slot's own
 * in semaphore mode, then submitted), and a slot's fence given when a frame
 * whose parts were submitted without it ends otherwise. The barrier rules
 * are cg_vk_ring.h's (cg_vk_ring_publish); part is CG_VK_PART_*. One
 * context per ring, on its frame thread.
 */
#ifndef CG_VK_RING_COPY_H
#define CG_VK_RING_COPY_H

#include <stdint.h>

#include "cg_cursor.h"
#include "cg_err.h"
#include "cg_vk_device.h"
#include "cg_vk_rgb.h"
#include "cg_vk_slots.h"

/* What a slot's command buffer for one eye holds, recorded (semaphore
 * mode): a game alternates between a few images, so the same copy is
 * submitted again without recording. */
typedef struct cg_vk_ring_copy_rec {
    VkImage src;
    VkImageLayout layout;
    unsigned part;    /* CG_VK_PART_*: the acquire from the external family, the release */
    cg_cursor cursor; /* RGB8: the cursor recorded */
} cg_vk_ring_copy_rec;

/* The ring's own per-slot state; the slot's Vulkan objects are in
 * cg_vk_slots (cg_vk_slots.h). */
typedef struct cg_vk_ring_copy_slot {
    int released; /* released to VK_QUEUE_FAMILY_EXTERNAL by the last part recorded */
    cg_vk_ring_copy_rec rec[CG_ZC_MAX_EYES];
    int unfenced; /* a colour part was submitted after the slot's last fenced submit */
} cg_vk_ring_copy_slot;

typedef struct cg_vk_ring_copy {
    const cg_vk_device *vk; /* the caller's device and its table (not owned) */
    cg_vk_slots *slots;     /* the ring's slots (not owned) */
    cg_vk_rgb *rgb;         /* RGB8 or the compute copy: its pass; NULL: the transfer copy */
    VkQueue queue;
    uint32_t queue_family;
    int width, height;    /* the source image's */
    int named_parts;      /* frames of several parts: labels name the part and eye */
    int reuse_recordings; /* cg_vk_ring_desc's */
    cg_vk_ring_copy_slot slot[CG_ZC_MAX_SLOTS];
} cg_vk_ring_copy;

/* A debug_utils label around one part's commands in cmd (frame 0: a
 * recording reused by later frames names no frame); no-ops without it. */
void cg_vk_ring_copy_label(const cg_vk_ring_copy *c, VkCommandBuffer cmd, const char *what,
                           uint32_t eye, uint32_t slot, uint64_t frame);
void cg_vk_ring_copy_label_end(const cg_vk_ring_copy *c, VkCommandBuffer cmd);

/* Record barrier + copy + release of eye `eye`'s colour (src in
 * src_layout, returned to it; cursor: RGB8's) into slot's plane, in cmd. */
void cg_vk_ring_copy_record(const cg_vk_ring_copy *c, uint32_t slot, uint32_t eye,
                            VkCommandBuffer cmd, VkImage src, VkImageLayout src_layout,
                            const cg_cursor *cursor, uint64_t frame, unsigned part);

/* Semaphore mode: the part recorded into the slot's command buffer for
 * that eye (or reused as recorded) and submitted to the queue; the frame's
 * last part (CG_VK_PART_RELEASE) signals the timeline to `frame` and
 * carries the slot's fence. Vulkan errors into err. */
cg_status cg_vk_ring_copy_submit(cg_vk_ring_copy *c, uint32_t slot, uint32_t eye, VkImage src,
                                 VkImageLayout layout, const cg_cursor *cursor, uint64_t frame,
                                 unsigned part, cg_err *err);

/* A colour part submitted without the slot's fence whose frame ends
 * otherwise (abandoned, failed, the ring destroyed): an empty submit gives
 * the slot its fence. CG_OK at once when nothing is unfenced. */
cg_status cg_vk_ring_copy_fence(cg_vk_ring_copy *c, uint32_t slot, cg_err *err);

#endif /* CG_VK_RING_COPY_H */
