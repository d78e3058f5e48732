/*
 * cg_vk_ring_deferred.h - internal to src/vulkan: the process-wide list of
 * what destroyed fence-mode rings still hold (cg_vk_ring_destroy says why),
 * and the fence a live ring covers it with. cg_vk_ring_free_deferred and
 * cg_vk_ring_deferred_count (cg_vk_ring.h) are implemented with it.
 *
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
 * ring's destroy).
 */
#ifndef CG_VK_RING_DEFERRED_H
#define CG_VK_RING_DEFERRED_H

#include "cg_vk_device.h"
#include "cg_vk_rgb.h"
#include "cg_vk_slots.h"

/* What a destroyed ring still holds. It lives inside the block it frees
 * (the ring), so burying it allocates nothing. */
typedef struct cg_vk_grave {
    const cg_vk_device *vk; /* the ring's table (in the same block) */
    VkQueue queue;          /* the game's queue the copies went to */
    cg_vk_slots *slots;     /* the buffers and memory (already released) */
    cg_vk_rgb *rgb;         /* the RGB pass or compute copy, or NULL */
    void *block;            /* freed last */
    struct cg_vk_grave *next;
} cg_vk_grave;

/* A live ring's fence over the graves of its device and queue. */
typedef struct cg_vk_grave_cover {
    VkFence fence;
    int pending;          /* fence submitted, not yet seen signalled */
    cg_vk_grave *covered; /* freed when the fence signals */
} cg_vk_grave_cover;

/* The cover's fence, named "cg ring deferred-free fence". */
cg_status cg_vk_grave_cover_init(cg_vk_grave_cover *c, const cg_vk_device *vk, cg_err *err);

/* Game thread, at each frame call: free what an earlier fence covered, and
 * cover the graves of this device and queue with a new fence. */
void cg_vk_grave_cover_drain(cg_vk_grave_cover *c, const cg_vk_device *vk, VkQueue queue);

/* At the ring's destroy: wait for the cover's fence (it is submitted, so it
 * signals), free what it covered, destroy the fence. */
void cg_vk_grave_cover_fini(cg_vk_grave_cover *c, const cg_vk_device *vk);

/* Free what g holds now, then g->block. */
void cg_vk_grave_free(cg_vk_grave *g);

/* Put g in the graveyard (a copy in a game command buffer may still be
 * submitted). */
void cg_vk_grave_bury(cg_vk_grave *g);

#endif /* CG_VK_RING_DEFERRED_H */
