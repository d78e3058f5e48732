/*
 * cg_zc_parts.c - the order of a frame's parts (cg_zc_parts.h).
 */
#include "cg_zc_parts.h"

#include <string.h>

#include "cg_frame.h" /* cg_depth_check_planes */
#include "cg_zc_proto.h"

cg_status cg_zc_parts_init(cg_zc_parts *p, uint32_t eyes, int depth)
{
    CG_RETURN_IF(!p, CG_E_INVALID_ARG);
    memset(p, 0, sizeof *p);
    CG_RETURN_IF(eyes > CG_ZC_MAX_EYES, CG_E_INVALID_ARG);
    p->eyes = eyes ? eyes : 1;
    p->depth = depth ? 1 : 0;
    return CG_OK;
}

uint32_t cg_zc_parts_count(const cg_zc_parts *p)
{
    return p ? p->eyes * (uint32_t)(1 + p->depth) : 0;
}

/* The frame being assembled ends (published, abandoned or skipped to its end). */
static void end_frame(cg_zc_parts *p)
{
    p->next = 0;
    p->open = 0;
    p->skipping = 0;
}

void cg_zc_parts_set_linear(cg_zc_parts *p, const cg_zc_depth_params *ring)
{
    if (!p || !ring) return;
    p->linear = 1;
    p->ring = *ring;
}

/* The part exists on this ring. */
static cg_status check_part(const cg_zc_parts *p, cg_zc_part_kind kind, uint32_t eye, cg_err *err)
{
    if (kind != CG_ZC_PART_DEPTH && kind != CG_ZC_PART_COLOR)
        return cg_fail(err, CG_E_INVALID_ARG,
                       "frame part kind %d is neither depth (0) nor colour (1)", (int)kind);
    if (eye >= p->eyes)
        return cg_fail(err, CG_E_INVALID_ARG, "eye %d of a ring with %u eye%s", (int)eye, p->eyes,
                       p->eyes == 1 ? "" : "s");
    if (kind == CG_ZC_PART_DEPTH && !p->depth)
        return cg_fail(err, CG_E_INVALID_ARG, "a depth part (eye %u) on a ring without depth", eye);
    return CG_OK;
}

cg_status cg_zc_parts_check(const cg_zc_parts *p, cg_zc_part_kind kind, uint32_t eye,
                            const cg_zc_depth_params *q, cg_err *err)
{
    CG_RETURN_IF(!p, CG_E_INVALID_ARG);
    CG_TRY(check_part(p, kind, eye, err));
    if (kind != CG_ZC_PART_DEPTH || !p->linear) return CG_OK;
    if (!q) q = &p->ring;
    if (cg_depth_check_planes(q->near_plane, q->far_plane) != CG_OK)
        return cg_fail(err, CG_E_INVALID_ARG,
                       "depth(%u): linear depth needs finite 0 < near < far; got near=%g far=%g",
                       eye, (double)q->near_plane, (double)q->far_plane);
    uint32_t flags = q->z_zero_to_one ? CG_ZC_DEPTH_Z_ZERO_TO_ONE : 0u;
    if (eye > 0 && p->open &&
        (q->near_plane != p->near_plane || q->far_plane != p->far_plane || flags != p->depth_flags))
        return cg_fail(err, CG_E_INVALID_ARG,
                       "depth(%u): near=%g far=%g zZeroToOne=%d, but this frame's depth planes "
                       "use near=%g far=%g zZeroToOne=%d (set by depth(0); one set a frame)",
                       eye, (double)q->near_plane, (double)q->far_plane, q->z_zero_to_one != 0,
                       (double)p->near_plane, (double)p->far_plane,
                       (p->depth_flags & CG_ZC_DEPTH_Z_ZERO_TO_ONE) != 0);
    return CG_OK;
}

cg_status cg_zc_parts_classify(cg_zc_parts *p, cg_zc_part_kind kind, uint32_t eye,
                               cg_zc_part_action *action, int *abandoned, cg_err *err)
{
    CG_RETURN_IF(!p || !action || !abandoned, CG_E_INVALID_ARG);
    *abandoned = 0;
    CG_TRY(check_part(p, kind, eye, err));
    uint32_t idx =
        eye * (uint32_t)(1 + p->depth) + (kind == CG_ZC_PART_COLOR ? (uint32_t)p->depth : 0);
    if (idx == 0) {
        *abandoned = p->open;
        end_frame(p);
        *action = CG_ZC_PART_START;
        return CG_OK;
    }
    if (idx == p->next && (p->open || p->skipping)) {
        if (p->open) {
            *action = CG_ZC_PART_NEXT;
            return CG_OK;
        }
        if (++p->next == cg_zc_parts_count(p)) end_frame(p);
        *action = CG_ZC_PART_SKIP;
        return CG_OK;
    }
    /* Out of order (or no frame begun): what is open is never published. */
    *abandoned = p->open;
    end_frame(p);
    *action = CG_ZC_PART_SKIP;
    return CG_OK;
}

void cg_zc_parts_claim(cg_zc_parts *p, uint32_t slot, uint64_t frame)
{
    if (!p) return;
    end_frame(p);
    p->open = 1;
    p->slot = slot;
    p->frame = frame;
}

void cg_zc_parts_full(cg_zc_parts *p)
{
    if (!p) return;
    end_frame(p);
    if (cg_zc_parts_count(p) > 1) {
        p->skipping = 1;
        p->next = 1;
    }
}

int cg_zc_parts_done(cg_zc_parts *p)
{
    if (!p || !p->open) return 0;
    if (++p->next < cg_zc_parts_count(p)) return 0;
    end_frame(p);
    return 1;
}

int cg_zc_parts_reset(cg_zc_parts *p)
{
    if (!p) return 0;
    int was_open = p->open;
    end_frame(p);
    return was_open;
}
