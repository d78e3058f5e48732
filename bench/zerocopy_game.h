/*
 * zerocopy_game.h - the "game" of the Vulkan zero-copy benchmarks: each
 * frame clears its image to a new colour on the harness's queue (outside
 * the timed part), leaving it in COLOR_ATTACHMENT_OPTIMAL. zc_game_clear
 * waits for the clear; zc_game_render_in_flight does not (a game does not
 * wait for a frame it just submitted before handing it on).
 */
#ifndef ZEROCOPY_GAME_H
#define ZEROCOPY_GAME_H

#include "vkt.h"

/* Record and submit frame f's clear; returns without waiting for it. */
static inline void zc_game_clear_submit(vkt *t, VkImage img, int f, int first)
{
    VKT_FN(t, vkResetCommandBuffer)(t->cmd, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VKT_FN(t, vkBeginCommandBuffer)(t->cmd, &bi);
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_MEMORY_READ_BIT;
    b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.oldLayout = first ? VK_IMAGE_LAYOUT_UNDEFINED : VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = img;
    b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    b.subresourceRange.levelCount = b.subresourceRange.layerCount = 1;
    VKT_FN(t, vkCmdPipelineBarrier)(t->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                     VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, 1, &b);
    VkClearColorValue c;
    c.float32[0] = (float)(f % 7) / 7.0f;
    c.float32[1] = (float)(f % 11) / 11.0f;
    c.float32[2] = (float)(f % 13) / 13.0f;
    c.float32[3] = 1.0f;
    VKT_FN(t, vkCmdClearColorImage)(t->cmd, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &c, 1,
                                     &b.subresourceRange);
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT;
    b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    b.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    VKT_FN(t, vkCmdPipelineBarrier)(t->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &b);
    VKT_FN(t, vkEndCommandBuffer)(t->cmd);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &t->cmd;
    VKT_FN(t, vkResetFences)(t->dev, 1, &t->fence);
    VKT_FN(t, vkQueueSubmit)(t->queue, 1, &si, t->fence);
}

static inline void zc_game_clear(vkt *t, VkImage img, int f, int first)
{
    zc_game_clear_submit(t, img, f, first);
    VKT_FN(t, vkWaitForFences)(t->dev, 1, &t->fence, VK_TRUE, UINT64_MAX);
}

/* As a game with a frame in flight renders: wait for the previous frame's
 * fence (long signalled in a lockstep env: the learner read that frame),
 * then submit this frame's clear without waiting for it. */
static inline void zc_game_render_in_flight(vkt *t, VkImage img, int f)
{
    if (f > 0) VKT_FN(t, vkWaitForFences)(t->dev, 1, &t->fence, VK_TRUE, UINT64_MAX);
    zc_game_clear_submit(t, img, f, f == 0);
}

#endif /* ZEROCOPY_GAME_H */
