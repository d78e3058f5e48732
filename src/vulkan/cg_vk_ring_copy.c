/*
 * cg_vk_ring_copy.c - a Vulkan ring's colour part as commands
 * (cg_vk_ring_copy.h): recorded into a command buffer, submitted in
 * semaphore mode, fenced when its frame ends otherwise.
 */
#include "cg_vk_ring_copy.h"

#include <stdio.h>
#include <string.h>

#include "cg_vk_internal.h"

/* A label around the commands of one part (debug_utils). */
void cg_vk_ring_copy_label(const cg_vk_ring_copy *c, VkCommandBuffer cmd, const char *what,
                           uint32_t eye, uint32_t slot, uint64_t frame)
{
    if (!c->vk->vkCmdBeginDebugUtilsLabelEXT) return;
    char name[96];
    char part[32] = "";
    if (c->named_parts) snprintf(part, sizeof part, " %s eye %u", what, eye);
    if (frame)
        snprintf(name, sizeof name, "cg ring: frame %llu%s -> slot %u", (unsigned long long)frame,
                 part, slot);
    else /* a recording reused by later frames names no frame */
        snprintf(name, sizeof name, "cg ring: copy%s -> slot %u", part, slot);
    VkDebugUtilsLabelEXT l = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
    l.pLabelName = name;
    c->vk->vkCmdBeginDebugUtilsLabelEXT(cmd, &l);
}

void cg_vk_ring_copy_label_end(const cg_vk_ring_copy *c, VkCommandBuffer cmd)
{
    if (c->vk->vkCmdEndDebugUtilsLabelEXT) c->vk->vkCmdEndDebugUtilsLabelEXT(cmd);
}

/* Record barrier + copy + release of eye `eye`'s colour into cmd (part:
 * CG_VK_PART_*; a copy ring's frames are one part, acquire and release
 * included). The first barrier's first synchronization scope is every
 * command earlier in submission order (ALL_COMMANDS, MEMORY_WRITE): that
 * is what orders the copy after the game's rendering (and the frame's
 * earlier parts), in both modes (see cg_vk_ring_publish). */
void cg_vk_ring_copy_record(const cg_vk_ring_copy *c, uint32_t slot, uint32_t eye,
                            VkCommandBuffer cmd, VkImage src, VkImageLayout src_layout,
                            const cg_cursor *cursor, uint64_t frame, unsigned part)
{
    cg_vk_ring_copy_label(c, cmd, "colour", eye, slot, frame);
    if (c->rgb) { /* the RGB slot format or the compute copy: one dispatch */
        cg_vk_rgb_record_eye(c->rgb, cmd, slot, eye, src, src_layout, cursor, part);
        cg_vk_ring_copy_label_end(c, cmd);
        return;
    }
    VkBuffer buffer = c->slots->slot[slot].buffer;
    int move = src_layout != VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    VkImageMemoryBarrier ib =
        cg_vk_image_barrier(src, src_layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                            VK_ACCESS_MEMORY_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    /* The slot's old contents are dropped (fully overwritten); after an
     * earlier release to the external consumer the buffer is acquired back. */
    VkBufferMemoryBarrier bb =
        (part & CG_VK_PART_ACQUIRE)
            ? cg_vk_buffer_barrier(buffer, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
                                   VK_QUEUE_FAMILY_EXTERNAL, c->queue_family)
            : cg_vk_buffer_barrier(buffer, VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_MEMORY_READ_BIT,
                                   VK_ACCESS_TRANSFER_WRITE_BIT, VK_QUEUE_FAMILY_IGNORED,
                                   VK_QUEUE_FAMILY_IGNORED);
    /* A global barrier too when the image stays in its layout: the game's
     * writes must still be made visible to the transfer read. */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    c->vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                VK_PIPELINE_STAGE_TRANSFER_BIT, 0, move ? 0 : 1, &mb, 1, &bb,
                                move ? 1 : 0, &ib);
    VkBufferImageCopy reg;
    memset(&reg, 0, sizeof reg);
    reg.bufferRowLength = 0; /* tightly packed, rows in the image's order */
    reg.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    reg.imageSubresource.layerCount = 1;
    reg.imageExtent.width = (uint32_t)c->width;
    reg.imageExtent.height = (uint32_t)c->height;
    reg.imageExtent.depth = 1;
    c->vk->vkCmdCopyImageToBuffer(cmd, src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1, &reg);
    /* Release to the external consumer (the learner's CUDA context). */
    VkBufferMemoryBarrier rel = cg_vk_buffer_barrier(buffer, VK_ACCESS_TRANSFER_WRITE_BIT, 0,
                                               c->queue_family, VK_QUEUE_FAMILY_EXTERNAL);
    /* The game's later commands on its image (any stage, reads or writes)
     * wait for this read and the layout change back: its own barriers need
     * not know about the copy. (A release ignores the second scope.) */
    VkImageMemoryBarrier back =
        cg_vk_image_barrier(src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, src_layout,
                            VK_ACCESS_TRANSFER_READ_BIT,
                            VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    c->vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 1, &rel,
                                move ? 1 : 0, &back);
    cg_vk_ring_copy_label_end(c, cmd);
}

/* A colour part submitted without the slot's fence (not the frame's last)
 * whose frame ends otherwise (abandoned, failed, the ring destroyed): an
 * empty submit gives the slot's fence, which signals once that part is
 * done, so its command buffer is not reset while it runs. */
cg_status cg_vk_ring_copy_fence(cg_vk_ring_copy *c, uint32_t slot, cg_err *err)
{
    cg_vk_ring_copy_slot *s = &c->slot[slot];
    cg_vk_slot *vs = &c->slots->slot[slot];
    if (!s->unfenced) return CG_OK;
    s->unfenced = 0;
    CG_TRY(CG_VK_CHECK(err, c->vk->vkResetFences(c->vk->device, 1, &vs->fence)));
    /* Zero batches: the fence signals when all earlier work on the queue is done. */
    CG_TRY(CG_VK_CHECK(err, c->vk->vkQueueSubmit(c->queue, 0, NULL, vs->fence)));
    vs->pending = 1;
    return CG_OK;
}

/* Semaphore mode: eye `eye`'s colour part into the slot's command buffer
 * for that eye, and submitted. Only the frame's last part signals the
 * timeline and carries the slot's fence. */
cg_status cg_vk_ring_copy_submit(cg_vk_ring_copy *c, uint32_t i, uint32_t eye, VkImage src,
                                 VkImageLayout layout, const cg_cursor *cursor, uint64_t frame,
                                 unsigned part, cg_err *err)
{
    cg_vk_ring_copy_slot *s = &c->slot[i];
    cg_vk_ring_copy_rec *rec = &s->rec[eye];
    cg_vk_slot *vs = &c->slots->slot[i];
    VkDevice dev = c->vk->device;
    int last = (part & CG_VK_PART_RELEASE) != 0;
    /* The slot's fence was seen signalled by the claim (slot_idle): its
     * command buffers are not in use (an earlier frame's last part, which
     * carried the fence, came after them), so each may be submitted again
     * as recorded, or reset with its pool and recorded anew. The recording
     * depends only on the source image, its layout, the part's barriers
     * (acquire from the external family, release) and the cursor. The
     * frame number lives in the submit (timeline value), not in the
     * commands. Reuse is opt-in (reuse_recordings): a destroyed image whose
     * handle value comes back for a new image would otherwise be submitted
     * from a stale recording. */
    if (!c->reuse_recordings || rec->src != src || rec->layout != layout || rec->part != part ||
        memcmp(&rec->cursor, cursor, sizeof *cursor) != 0) {
        rec->src = VK_NULL_HANDLE; /* nothing valid recorded until End succeeds */
        CG_TRY(CG_VK_CHECK(err, c->vk->vkResetCommandPool(dev, vs->pool[eye], 0)));
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        CG_TRY(CG_VK_CHECK(err, c->vk->vkBeginCommandBuffer(vs->cmd[eye], &bi)));
        cg_vk_ring_copy_record(c, i, eye, vs->cmd[eye], src, layout, cursor, 0, part);
        CG_TRY(CG_VK_CHECK(err, c->vk->vkEndCommandBuffer(vs->cmd[eye])));
        rec->src = src;
        rec->layout = layout;
        rec->part = part;
        rec->cursor = *cursor;
    }
    if (last) CG_TRY(CG_VK_CHECK(err, c->vk->vkResetFences(dev, 1, &vs->fence)));

    /* Ordering after the game's rendering (Vulkan spec, "Synchronization
     * and Cache Control" > "Implicit Synchronization Guarantees"): command
     * buffers submitted to a single queue with vkQueueSubmit are in
     * submission order, and the first synchronization scope of a pipeline
     * barrier includes every command earlier in submission order. The
     * game's frame (with the frame's depth dispatches) was submitted to
     * this queue before this call, so the barrier in cg_vk_ring_copy_record
     * (ALL_COMMANDS / MEMORY_WRITE) makes its rendering complete and
     * visible before the copy reads the image. The timeline signal's first
     * scope is every command of this batch and earlier, so value `frame`
     * means every part of the frame is complete. */
    VkTimelineSemaphoreSubmitInfo ts = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    ts.signalSemaphoreValueCount = 1;
    ts.pSignalSemaphoreValues = &frame;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.pNext = last ? &ts : NULL;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &vs->cmd[eye];
    si.signalSemaphoreCount = last ? 1 : 0;
    si.pSignalSemaphores = &c->slots->semaphore;
    if (c->vk->vkQueueBeginDebugUtilsLabelEXT) {
        VkDebugUtilsLabelEXT l = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
        l.pLabelName = "cg ring publish";
        c->vk->vkQueueBeginDebugUtilsLabelEXT(c->queue, &l);
    }
    VkResult res = c->vk->vkQueueSubmit(c->queue, 1, &si, last ? vs->fence : VK_NULL_HANDLE);
    if (c->vk->vkQueueEndDebugUtilsLabelEXT) c->vk->vkQueueEndDebugUtilsLabelEXT(c->queue);
    CG_TRY(CG_VK_CHECK(err, res));
    if (last) {
        vs->pending = 1;
        s->unfenced = 0;
    } else {
        s->unfenced = 1;
    }
    return CG_OK;
}

