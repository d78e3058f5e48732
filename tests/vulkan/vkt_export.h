/*
 * vkt_export.h - test-only glue between the vkt harness and the library's
 * Vulkan producers: a cg_vk_export_desc and a cg_vk_ring_desc for the
 * harness device (callers then set their own mode, format, slots, socket
 * folder), and the cg_ext_memory_desc that imports an export (no CUDA
 * types involved).
 */
#ifndef VKT_EXPORT_H
#define VKT_EXPORT_H

#include <string.h>

#include "cg_gpu_backend.h"
#include "cg_vk_export.h"
#include "cg_vk_ring.h"
#include "vkt.h"

/* vkt_fini for a harness that made rings: the game's teardown frees the
 * memory destroyed fence-mode rings still keep (cg_vk_ring_destroy) before
 * the device goes. */
static inline void vkt_ring_fini(vkt *t)
{
    if (t->dev) (void)cg_vk_ring_free_deferred(t->dev);
    vkt_fini(t);
}

static inline cg_vk_export_desc vkt_export_desc(const vkt *t, int w, int h, cg_vk_sync sync)
{
    cg_vk_export_desc d;
    memset(&d, 0, sizeof d);
    d.instance = t->inst;
    d.physical_device = t->phys;
    d.device = t->dev;
    d.get_instance_proc_addr = t->gipa;
    d.queue_family = t->qfam;
    d.width = w;
    d.height = h;
    d.sync = sync;
    d.debug_utils = t->has_debug_utils;
    return d;
}

static inline cg_vk_ring_desc vkt_ring_desc(const vkt *t, int w, int h, cg_zc_mode mode)
{
    cg_vk_ring_desc d;
    memset(&d, 0, sizeof d);
    d.instance = t->inst;
    d.physical_device = t->phys;
    d.device = t->dev;
    d.get_instance_proc_addr = t->gipa;
    d.queue_family = t->qfam;
    d.queue = t->queue;
    d.width = w;
    d.height = h;
    d.mode = mode;
    return d;
}

/* Import descriptor for `info` with the memory fd `fd`. */
static inline cg_ext_memory_desc vkt_import_desc(const cg_vk_export_info *info, int fd)
{
    cg_ext_memory_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.handle_type = CG_EXT_HANDLE_OPAQUE_FD;
    cd.handle = fd;
    cd.allocation_size = info->allocation_size;
    memcpy(cd.device_uuid, info->device_uuid, 16);
    cd.width = info->width;
    cd.height = info->height;
    cd.dedicated = info->dedicated;
    cd.color_attachment = info->color_attachment;
    return cd;
}

#endif
