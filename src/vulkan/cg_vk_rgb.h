/*
 * cg_vk_rgb.h - internal to src/vulkan: the RGB slot format of the ring
 * (docs/zero-copy-v2/protocol.md, "The RGB slot format"). One compute dispatch on
 * the game's queue writes the RAW observation (nearest resize, cursor),
 * rows upright, 3 bytes a pixel, into a slot buffer in place of the copy.
 *
 * Made once with the ring: the pipeline (SPIR-V compiled from
 * cg_vk_rgb.comp at build time and embedded), its layouts, a descriptor
 * pool with a set per slot (slot buffer + cursor bitmap) and a set per
 * source, a nearest sampler, the cursor bitmap (from cg_cursor_rows,
 * written once into a small host-visible uniform buffer) and, for SRGB
 * images with desc.srgb_staging, a staging buffer. Per frame: barriers,
 * binds, push constants, one dispatch. Images are read through a view of
 * their own format (needs VK_IMAGE_USAGE_SAMPLED_BIT), made the first
 * time an image is seen and kept until destroy: at most
 * CG_VK_RGB_MAX_SOURCES distinct images. A view of an SRGB format decodes
 * to linear (a UNORM view of the image would need MUTABLE_FORMAT, which
 * the ring cannot see), so for SRGB the shader's _srgb variant encodes
 * each colour channel back to its stored byte; that is exact only where
 * the driver's decode is accurate enough, which cg_vk_rgb_probe checks
 * once. With desc.srgb_staging (the RGB format's fallback) an SRGB image
 * is instead first copied as stored into the staging buffer.
 *
 * The same pass, made with desc.copy, is the ring's compute copy of the
 * RGBA slot formats (docs/zero-copy-v2/producer.md, "The compute copy";
 * cg_vk_copy.comp): 4 stored bytes a pixel, the image's size and row
 * order, no cursor, one invocation a pixel; for SRGB images the ring
 * keeps vkCmdCopyImageToBuffer where cg_vk_rgb_probe fails.
 *
 * With desc.depth the pass also writes the depth plane (cg_vk_depth.comp;
 * docs/zero-copy-v2/protocol.md, "The depth plane"): a second pipeline reading a
 * VK_FORMAT_D32_SFLOAT image (usage SAMPLED) through a view of its depth
 * aspect, one float32 a pixel at the target size, upright, the RGB plane's
 * nearest mapping and flip, linear (eye distance / far) or raw. A slot may
 * hold two eyes (desc.eyes): each plane (colour or depth of an eye) has a
 * descriptor set per slot that binds the slot buffer at the plane's offset,
 * so neither shader knows about planes. A frame made of several parts
 * (depth, then colour, per eye) acquires the slot in its first part and
 * releases it in its last (CG_VK_PART_*).
 *
 * cg_vk_rgb_none.c stands in when the build has no glslangValidator:
 * create returns CG_E_UNSUPPORTED.
 */
#ifndef CG_VK_RGB_H
#define CG_VK_RGB_H

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <stdint.h>

#include "cg_err.h"
#include "cg_status.h"
#include "cg_vk_device.h"
#include "cg_cursor.h"
#include "cg_vk_ring.h"
#include "cg_zc_proto.h"

typedef struct cg_vk_rgb cg_vk_rgb;

#define CG_VK_RGB_MAX_SOURCES 8

/* One of the SRGB formats the ring takes (R8G8B8A8/B8G8R8A8_SRGB): a view of
 * its own format decodes to linear (the probe's case, cg_vk_rgb_probe). */
static inline int cg_vk_rgb_is_srgb(VkFormat f)
{
    return f == VK_FORMAT_R8G8B8A8_SRGB || f == VK_FORMAT_B8G8R8A8_SRGB;
}

typedef struct cg_vk_rgb_desc {
    const cg_vk_device *vk; /* the ring's table: outlives the pass (names with debug_utils) */
    uint32_t queue_family;
    VkFormat format;    /* the game image's: R8G8B8A8/B8G8R8A8, UNORM or SRGB */
    int src_w, src_h;   /* the game image */
    int dst_w, dst_h;   /* the slot */
    int flip;           /* the RAW path's flip: nonzero when the image's row 0 is the top */
    uint32_t slots;
    const VkBuffer *slot_buffers; /* slots buffers of cg_vk_rgb_slot_size bytes, STORAGE usage */
    /* Nonzero: the compute copy (cg_vk_copy.comp): dst = src size, no flip;
     * slots of w*h*4 bytes. */
    int copy;
    /* RGB only (with copy: CG_E_INVALID_ARG), an SRGB format: read the
     * image through the staging copy (vkCmdCopyImageToBuffer, usage
     * TRANSFER_SRC) instead of a view. */
    int srgb_staging;
    /* The slot's planes (RGB only; cg_zc_planes_layout computes them):
     * eyes 1..CG_VK_RGB_MAX_EYES (0: 1), eye e's colour at
     * e * color_eye_stride; depth nonzero: the depth pipeline too, eye e's
     * depth plane at depth_offset + e * depth_eye_stride. Every offset a
     * multiple of 256 (Vulkan's largest minStorageBufferOffsetAlignment). */
    uint32_t eyes;
    uint64_t color_eye_stride;
    int depth;
    uint64_t depth_offset, depth_eye_stride;
} cg_vk_rgb_desc;

#define CG_VK_RGB_MAX_EYES 2

/* What one depth part writes (cg_vk_rgb_record_depth). */
typedef struct cg_vk_depth_params {
    int raw;                    /* nonzero: the stored float, bit for bit */
    float near_plane, far_plane; /* linear: finite 0 < near < far (cg_depth_check_planes) */
} cg_vk_depth_params;

/* Which barriers a part of a frame records (cg_vk_rgb_record_eye/_depth). */
#define CG_VK_PART_ACQUIRE 0x1u /* the frame's first part, the slot was released before:
                                   acquire it back from VK_QUEUE_FAMILY_EXTERNAL */
#define CG_VK_PART_RELEASE 0x2u /* the frame's last part: release it to the learner */

/* Bytes a slot of dst_w x dst_h needs: w*h*3 rounded up to a whole group
 * of 4 pixels (12 bytes). CG_E_OVERFLOW / dims errors as cg_image_size. */
cg_status cg_vk_rgb_slot_size(int dst_w, int dst_h, uint64_t *bytes);

/* The dispatch for a dst_w x dst_h slot (valid dims): work groups in x
 * and y, as cg_vk_rgb.comp indexes them (4 pixels an invocation, 64
 * invocations a group). This and the slot size (cg_vk_rgb_layout.c) serve
 * every writer of the slot, Vulkan's and GL's. */
void cg_vk_rgb_groups(int dst_w, int dst_h, uint32_t *groups_x, uint32_t *groups_y);


/* Extra buffer usage the slots need. */
#define CG_VK_RGB_SLOT_USAGE VK_BUFFER_USAGE_STORAGE_BUFFER_BIT

/* 1 where the pass was built (cg_vk_rgb.c), 0 in cg_vk_rgb_none.c. */
int cg_vk_rgb_built(void);

cg_status cg_vk_rgb_create(const cg_vk_rgb_desc *d, cg_vk_rgb **out, cg_err *err);
/* The caller has waited for every command that used it. NULL: no-op. */
void cg_vk_rgb_destroy(cg_vk_rgb *g);

/* Once after create, before any frame, for a pass that reads an SRGB
 * image through a view (CG_OK at once for any other): an image of the
 * pass's format (256x1, every byte value in each channel) through the
 * pass's own pipeline into a host-visible buffer, submitted to `queue` (of
 * desc.queue_family; the caller owns its external synchronisation) and
 * waited for. CG_OK: every byte came back as stored. CG_E_UNSUPPORTED
 * (err: the first value that did not) or a Vulkan error: the pass cannot
 * be trusted with SRGB; destroy it and use the staging or transfer copy.
 * Everything the probe made is freed before it returns. */
cg_status cg_vk_rgb_probe(cg_vk_rgb *g, VkQueue queue, cg_err *err);

/* Tests only (an internal header, no environment): nonzero makes every
 * later cg_vk_rgb_probe fail after it ran, so the fallbacks can be
 * checked on a driver whose decode is exact. Not thread-safe: set it
 * before creating rings. */
void cg_vk_rgb_fail_probe_for_tests(int fail);

/* Before recording a frame of `src`: find or make its view and set.
 * CG_E_INVALID_ARG when CG_VK_RGB_MAX_SOURCES other images were seen. */
cg_status cg_vk_rgb_prepare(cg_vk_rgb *g, VkImage src, cg_err *err);

/* Record the frame into cmd (outside a render pass): the same scopes as
 * the plain copy (first barrier: every earlier command's writes; the image
 * goes back to src_layout; the slot is released to
 * VK_QUEUE_FAMILY_EXTERNAL, and acquired back first when acquire is
 * nonzero). Leaves cmd's compute pipeline, descriptor sets and push
 * constants bound to the ring's. cg_vk_rgb_prepare(src) must have
 * succeeded. */
void cg_vk_rgb_record(cg_vk_rgb *g, VkCommandBuffer cmd, uint32_t slot, VkImage src,
                      VkImageLayout src_layout, const cg_cursor *cursor, int acquire);

/* The same for the colour of `eye` (< eyes) as one part of a frame: the
 * first barrier as above (acquiring when part has CG_VK_PART_ACQUIRE), the
 * slot released only with CG_VK_PART_RELEASE. */
void cg_vk_rgb_record_eye(cg_vk_rgb *g, VkCommandBuffer cmd, uint32_t slot, uint32_t eye,
                          VkImage src, VkImageLayout src_layout, const cg_cursor *cursor,
                          unsigned part);

/* Before recording the depth of `depth` (a D32_SFLOAT image of the source
 * size, usage SAMPLED): find or make its depth-aspect view and set, at most
 * CG_VK_RGB_MAX_SOURCES depth images (CG_E_INVALID_ARG past them);
 * CG_E_BAD_STATE when the pass was made without depth. */
cg_status cg_vk_rgb_prepare_depth(cg_vk_rgb *g, VkImage depth, cg_err *err);

/* Record the depth plane of `eye` from `depth` (in depth_layout, returned
 * to it) into cmd, outside a render pass, with the colour part's barrier
 * rules (part as above). p must have been checked (linear: valid planes).
 * Leaves cmd's compute pipeline, sets and push constants the ring's. */
void cg_vk_rgb_record_depth(cg_vk_rgb *g, VkCommandBuffer cmd, uint32_t slot, uint32_t eye,
                            VkImage depth, VkImageLayout depth_layout,
                            const cg_vk_depth_params *p, unsigned part);

#endif /* CG_VK_RGB_H */
