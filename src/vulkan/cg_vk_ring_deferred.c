/*
 * cg_vk_ring_deferred.c - deferred frees of fence-mode rings
 * (cg_vk_ring_deferred.h, cg_vk_ring_destroy).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "cg_vk_ring.h"
#include "cg_vk_ring_deferred.h"

static pthread_mutex_t g_grave_lock = PTHREAD_MUTEX_INITIALIZER;
static cg_vk_grave *g_graves;
static _Atomic uint32_t g_grave_count; /* rings in the graveyard or covered lists */

uint32_t cg_vk_ring_deferred_count(void)
{
    return atomic_load(&g_grave_count);
}

void cg_vk_grave_free(cg_vk_grave *g)
{
    cg_vk_slots_free_memory(g->slots);
    cg_vk_rgb_destroy(g->rgb);
    free(g->block);
}

void cg_vk_grave_bury(cg_vk_grave *g)
{
    pthread_mutex_lock(&g_grave_lock);
    g->next = g_graves;
    g_graves = g;
    atomic_fetch_add(&g_grave_count, 1);
    pthread_mutex_unlock(&g_grave_lock);
}

static void free_covered(cg_vk_grave_cover *c)
{
    while (c->covered) {
        cg_vk_grave *z = c->covered;
        c->covered = z->next;
        cg_vk_grave_free(z);
        atomic_fetch_sub(&g_grave_count, 1);
    }
    c->pending = 0;
}

uint32_t cg_vk_ring_free_deferred(VkDevice device)
{
    uint32_t n = 0;
    pthread_mutex_lock(&g_grave_lock);
    for (cg_vk_grave **p = &g_graves; *p;) {
        cg_vk_grave *z = *p;
        if (z->vk->device != device) {
            p = &z->next;
            continue;
        }
        *p = z->next;
        cg_vk_grave_free(z);
        atomic_fetch_sub(&g_grave_count, 1);
        n++;
    }
    pthread_mutex_unlock(&g_grave_lock);
    return n;
}

cg_status cg_vk_grave_cover_init(cg_vk_grave_cover *c, const cg_vk_device *vk, cg_err *err)
{
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CG_TRY(CG_VK_CHECK(err, vk->vkCreateFence(vk->device, &fci, NULL, &c->fence)));
    CG_VK_NAME(vk, VK_OBJECT_TYPE_FENCE, c->fence, "cg ring deferred-free fence");
    return CG_OK;
}

void cg_vk_grave_cover_drain(cg_vk_grave_cover *c, const cg_vk_device *vk, VkQueue queue)
{
    VkDevice dev = vk->device;
    if (c->pending) {
        if (vk->vkGetFenceStatus(dev, c->fence) != VK_SUCCESS) return; /* later */
        free_covered(c);
    }
    if (!atomic_load(&g_grave_count)) return;
    pthread_mutex_lock(&g_grave_lock);
    for (cg_vk_grave **p = &g_graves; *p;) {
        cg_vk_grave *z = *p;
        if (z->vk->device == dev && z->queue == queue) {
            *p = z->next;
            z->next = c->covered;
            c->covered = z;
        } else {
            p = &z->next;
        }
    }
    pthread_mutex_unlock(&g_grave_lock);
    if (!c->covered) return;
    /* Zero batches: the fence still signals when all work submitted to the
     * queue before it has completed (vkQueueSubmit). */
    if (vk->vkResetFences(dev, 1, &c->fence) == VK_SUCCESS &&
        vk->vkQueueSubmit(queue, 0, NULL, c->fence) == VK_SUCCESS) {
        c->pending = 1;
        return;
    }
    pthread_mutex_lock(&g_grave_lock); /* back, for a later try */
    while (c->covered) {
        cg_vk_grave *z = c->covered;
        c->covered = z->next;
        z->next = g_graves;
        g_graves = z;
    }
    pthread_mutex_unlock(&g_grave_lock);
}

void cg_vk_grave_cover_fini(cg_vk_grave_cover *c, const cg_vk_device *vk)
{
    /* Rings this one covered: their fence is submitted, so it signals. */
    if (c->pending) (void)vk->vkWaitForFences(vk->device, 1, &c->fence, VK_TRUE, UINT64_MAX);
    free_covered(c);
    if (c->fence && vk->vkDestroyFence) vk->vkDestroyFence(vk->device, c->fence, NULL);
    c->fence = VK_NULL_HANDLE;
}
