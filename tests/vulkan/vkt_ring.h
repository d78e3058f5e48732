/*
 * vkt_ring.h - test-only glue between the vkt harness and the zero-copy v2
 * ring: a cg_vk_ring_desc for the harness's device and queue (the tests and
 * benchmarks then set their own mode, format, slots and socket folder).
 */
#ifndef VKT_RING_H
#define VKT_RING_H

#include <string.h>

#include "cg_vk_ring.h"
#include "vkt.h"

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

#endif /* VKT_RING_H */
