/*
 * cg_vk_slots.h - the exported memory of a zero-copy v2 ring
 * (docs/zero-copy-v2/protocol.md): N device-local buffers, each with its own
 * allocation exported as an OS handle (cg_oshandle: OPAQUE_FD here, the
 * one external handle type of this file), optionally one exportable timeline
 * semaphore, and per slot a fence (and, for a producer that records
 * commands, one or two command buffers, each in a pool of its own: a
 * stereo ring's colour parts of one slot are two recordings). Internal to the library: the
 * Vulkan ring (cg_vk_ring.c) makes it on the game's device, the GL ring
 * (src/gl_ring) on its own (cg_vk_own_device_open).
 *
 * No GPU API but Vulkan, no protocol: the caller hands the handles to its
 * producer (src/zc, cg_zc_producer_open) and writes the descriptor. Made once, nothing
 * allocated per frame, nothing here waits but cg_vk_slots_release.
 */
#ifndef CG_VK_SLOTS_H
#define CG_VK_SLOTS_H

#include <stdint.h>

#include "cg_oshandle.h"
#include "cg_vk_device.h" /* vulkan.h without prototypes, cg_err.h */
#include "cg_zc_proto.h"  /* CG_ZC_MAX_SLOTS */

#ifdef __cplusplus
extern "C" {
#endif

/* Every ring slot's buffer usage (a compute writer adds
 * CG_VK_RGB_SLOT_USAGE, cg_vk_rgb.h). */
#define CG_VK_SLOT_USAGE (VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT)

/* Command buffers a slot may have (one per eye). */
#define CG_VK_SLOT_COMMANDS 2

typedef struct cg_vk_slot {
    VkBuffer buffer;
    VkDeviceMemory memory;
    cg_oshandle memory_handle; /* exported, owned here (import a cg_oshandle_dup of it) */
    VkCommandPool pool[CG_VK_SLOT_COMMANDS]; /* the first desc.commands only */
    VkCommandBuffer cmd[CG_VK_SLOT_COMMANDS];
    VkFence fence;          /* signalled by the slot's last submit */
    int pending;            /* a submit whose fence was not seen signalled */
} cg_vk_slot;

typedef struct cg_vk_slots_desc {
    const cg_vk_device *vk;   /* must outlive the slots */
    uint32_t queue_family;    /* of the command pools */
    uint32_t count;           /* 1..CG_ZC_MAX_SLOTS */
    VkDeviceSize size;        /* bytes each buffer holds */
    VkBufferUsageFlags usage; /* of every buffer */
    int timeline;             /* nonzero: one exportable timeline semaphore */
    uint32_t commands;        /* command buffers (each with its pool) per slot: 0..CG_VK_SLOT_COMMANDS */
} cg_vk_slots_desc;

typedef struct cg_vk_slots {
    const cg_vk_device *vk;
    uint32_t count;
    uint64_t slot_size; /* bytes of each slot's allocation (the memory requirement) */
    cg_vk_slot slot[CG_ZC_MAX_SLOTS];
    VkSemaphore semaphore; /* desc.timeline: the exported timeline, else VK_NULL_HANDLE */
    cg_oshandle semaphore_handle; /* its export, owned here; CG_OSHANDLE_INVALID without */
} cg_vk_slots;

/* Make everything d asks for. CG_E_UNSUPPORTED: the device cannot export
 * such a buffer as a non-dedicated OPAQUE_FD, or has no device-local memory
 * type for it; CG_E_VULKAN (err gets the call). On failure what was made is
 * in *s for cg_vk_slots_destroy. Objects are named "cg ring ...". */
cg_status cg_vk_slots_create(cg_vk_slots *s, const cg_vk_slots_desc *d, cg_err *err);

/* Is slot i's last submit finished? Never waits; *idle = 0: not yet. */
cg_status cg_vk_slots_idle(cg_vk_slots *s, uint32_t i, int *idle, cg_err *err);

/* One submit without commands on `queue`: wait for the binary semaphore
 * `wait` (a writer of another API signals it after its writes), signal the
 * timeline to `frame`, and slot i's fence. */
cg_status cg_vk_slots_bridge(cg_vk_slots *s, uint32_t i, VkQueue queue, VkSemaphore wait,
                             uint64_t frame, cg_err *err);

/* Wait for every pending submit; destroy the fences, command pools and the
 * semaphore; close the handles. The buffers and their memory stay (a copy in
 * a game's command buffer may still target them: cg_vk_ring_deferred.c). */
void cg_vk_slots_release(cg_vk_slots *s);

/* The buffers and their memory (after cg_vk_slots_release). */
void cg_vk_slots_free_memory(cg_vk_slots *s);

/* Both. A failed *s: whatever was made; a zeroed one (never created): no-op. */
void cg_vk_slots_destroy(cg_vk_slots *s);

#ifdef __cplusplus
}
#endif

#endif /* CG_VK_SLOTS_H */
