/*
 * cg_gl_ring_shape.c - a GL ring's description checked (cg_gl_ring_shape.h).
 */
#include "cg_gl_ring_shape.h"

#include <string.h>

#include "cg_frame.h" /* cg_depth_check_planes */
#include "cg_size.h"
#include "cg_vk_rgb.h" /* cg_vk_rgb_slot_size: the shader's layout */

/* The eyes and depth planes asked for (cg_gl_ring_desc): valid, RGB8 only. */
static cg_status check_planes(const cg_gl_ring_desc *d, uint32_t eyes, cg_err *err)
{
    if (eyes > CG_ZC_MAX_EYES)
        return cg_fail(err, CG_E_INVALID_ARG, "eyes %u: 1 or %d (0: 1)", eyes, CG_ZC_MAX_EYES);
    if (d->depth != CG_ZC_DEPTH_NONE && d->depth != CG_ZC_DEPTH_LINEAR &&
        d->depth != CG_ZC_DEPTH_RAW)
        return cg_fail(err, CG_E_INVALID_ARG, "depth encoding %d: 0 (none), 1 (linear) or 2 (raw)",
                       (int)d->depth);
    if ((eyes > 1 || d->depth) && d->slot_format != CG_VK_SLOT_RGB8)
        return cg_fail(err, CG_E_INVALID_ARG,
                       "eyes %u, depth encoding %d: eyes and depth planes need the RGB8 slot "
                       "format",
                       eyes, (int)d->depth);
    if (d->depth == CG_ZC_DEPTH_LINEAR && cg_depth_check_planes(d->near_plane, d->far_plane))
        return cg_fail(err, CG_E_INVALID_ARG,
                       "linear depth needs finite 0 < near < far; got near=%g far=%g",
                       (double)d->near_plane, (double)d->far_plane);
    return CG_OK;
}

cg_status cg_gl_ring_shape_of(const cg_gl_ring_desc *d, cg_gl_ring_shape *out, cg_err *err)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    if (!d) return cg_fail(err, CG_E_INVALID_ARG, "no description");
    if (d->mode != CG_GL_RING_MODE_AUTO && d->mode != CG_ZC_MODE_SEMAPHORE &&
        d->mode != CG_ZC_MODE_FENCE)
        return cg_fail(err, CG_E_INVALID_ARG, "mode %d: 0 (auto), 1 (semaphore) or 2 (fence)",
                       d->mode);
    if (d->signal != CG_GL_RING_SIGNAL_AUTO && d->signal != CG_GL_RING_SIGNAL_BRIDGE &&
        d->signal != CG_GL_RING_SIGNAL_GL_TIMELINE)
        return cg_fail(err, CG_E_INVALID_ARG, "signal %d: 0 (auto), 1 (bridge) or 2 (GL timeline)",
                       (int)d->signal);
    if (d->slots > CG_ZC_MAX_SLOTS)
        return cg_fail(err, CG_E_INVALID_ARG, "%u slots: at most %d", d->slots, CG_ZC_MAX_SLOTS);
    size_t bytes;
    cg_status st = cg_image_size(d->width, d->height, 4, &bytes);
    if (st != CG_OK)
        return cg_fail(err, st, "ring size %dx%d (1..%d per side)", d->width, d->height, CG_MAX_DIM);
    if (d->slot_format != CG_VK_SLOT_COPY && d->slot_format != CG_VK_SLOT_RGB8)
        return cg_fail(err, CG_E_INVALID_ARG, "slot format %d: 0 (copy) or 1 (RGB8)",
                       (int)d->slot_format);
    int tw = d->target_width, th = d->target_height;
    if (d->slot_format == CG_VK_SLOT_COPY && (tw || th))
        return cg_fail(err, CG_E_INVALID_ARG,
                       "target size %dx%d: resizing needs the RGB8 slot format", tw, th);
    if (!tw && !th) {
        tw = d->width;
        th = d->height;
    }
    uint32_t eyes = d->eyes ? d->eyes : 1;
    CG_TRY(check_planes(d, eyes, err));
    int planes = eyes > 1 || d->depth;
    cg_zc_planes layout;
    memset(&layout, 0, sizeof layout);
    if (d->slot_format == CG_VK_SLOT_RGB8) {
        uint64_t rgb_bytes = 0;
        st = cg_vk_rgb_slot_size(tw, th, &rgb_bytes);
        if (st == CG_OK && planes) st = cg_zc_planes_layout(tw, th, eyes, d->depth != 0, &layout);
        if (st != CG_OK)
            return cg_fail(err, st, "target size %dx%d (1..%d per side, or 0x0 for the texture's)",
                           d->target_width, d->target_height, CG_MAX_DIM);
        /* Without planes the slot is the RGB picture alone, as before. */
        bytes = (size_t)(planes ? layout.frame_bytes : rgb_bytes);
    }
    *out = (cg_gl_ring_shape){tw, th, eyes, planes, layout, bytes};
    return CG_OK;
}
