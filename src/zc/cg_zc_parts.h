/*
 * cg_zc_parts.h - the order of a frame's parts on a ring with eyes and a
 * depth plane (docs/zero-copy-v2/producer.md, "Depth and stereo planes"), as pure
 * logic: no I/O, no GPU API, no allocation. Both producers (the Vulkan and
 * the GL ring) drive their per-part calls through it, so they accept and
 * refuse the same orders.
 *
 * A frame of a ring with E eyes and depth D is E * (1 + D) parts in this
 * fixed order: for eye 0..E-1, [depth(eye) if D], colour(eye). Part index
 * i = eye * (1 + D) + (colour ? D : 0).
 *
 * Per call for part (kind, eye), on the producer's thread (one context per
 * ring, not shared between threads). cg_zc_producer_part_begin
 * (cg_zc_producer.h) is this protocol's half for both rings; by hand:
 *
 *   cg_zc_parts_classify(p, kind, eye, &action, &abandoned, err);
 *   if (abandoned) { slot p->slot (frame p->frame) back to RELEASED, never
 *                    published; count one skipped frame }
 *   switch (action) {
 *   case CG_ZC_PART_START: claim a slot; ring full: cg_zc_parts_full(p) and
 *                          report "skipped"; else cg_zc_parts_claim(p, slot,
 *                          frame), then write the part as NEXT does;
 *   case CG_ZC_PART_NEXT:  write the part into slot p->slot; on failure
 *                          cg_zc_parts_reset(p) and release that slot;
 *                          then if (cg_zc_parts_done(p)) publish p->slot /
 *                          p->frame, else report "more parts needed";
 *   case CG_ZC_PART_SKIP:  write nothing, report "skipped".
 *   }
 */
#ifndef CG_ZC_PARTS_H
#define CG_ZC_PARTS_H

#include <stdint.h>

#include "cg_err.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cg_zc_part_kind { CG_ZC_PART_DEPTH = 0, CG_ZC_PART_COLOR = 1 } cg_zc_part_kind;

/* A depth part's linearisation (LINEAR rings): the ring's init values, or a
 * frame's own given at its depth call (they go into that frame's
 * descriptor). Finite 0 < near_plane < far_plane. */
typedef struct cg_zc_depth_params {
    float near_plane, far_plane;
    int z_zero_to_one; /* nonzero: depth_flags CG_ZC_DEPTH_Z_ZERO_TO_ONE */
} cg_zc_depth_params;

/* What the producer must do with the call for one part. */
typedef enum cg_zc_part_action {
    /* The frame's first part: claim a new slot (any open frame was
     * abandoned first: see abandoned), then write this part. */
    CG_ZC_PART_START = 1,
    /* The expected next part of the open frame: write it into p->slot. */
    CG_ZC_PART_NEXT = 2,
    /* Write nothing and report "skipped": the frame is being skipped (its
     * first part found the ring full), or the part is out of order (then
     * the open frame, if any, was abandoned). */
    CG_ZC_PART_SKIP = 3
} cg_zc_part_action;

/* The ring's parts state. Fields are read by the producer; change them only
 * through the functions below, except the depth parameters. */
typedef struct cg_zc_parts {
    uint32_t eyes;  /* the ring's: 1..CG_ZC_MAX_EYES */
    int depth;      /* the ring's: 1 with a depth plane per eye, else 0 */
    uint32_t next;  /* index of the next expected part; 0: no frame being assembled */
    int open;       /* a slot is claimed for the frame being assembled */
    int skipping;   /* the frame's first part found the ring full: its other parts are skipped */
    uint32_t slot;  /* the open frame's claim; kept after it ends (published or */
    uint64_t frame; /* abandoned) until the next cg_zc_parts_claim */
    /* This frame's depth parameters: the producer stores what its depth
     * calls give (the descriptor carries one set); nothing here reads or
     * changes them after init. */
    float near_plane, far_plane;
    uint32_t depth_flags; /* CG_ZC_DEPTH_* */
    /* A LINEAR ring's own parameters (cg_zc_parts_set_linear): a frame's
     * unless its depth part gives others. */
    int linear;
    cg_zc_depth_params ring;
} cg_zc_parts;

/* A ring of eyes eyes (0 is taken as 1; more than CG_ZC_MAX_EYES:
 * CG_E_INVALID_ARG) with a depth plane per eye when depth is nonzero. No
 * frame open, depth parameters 0. */
cg_status cg_zc_parts_init(cg_zc_parts *p, uint32_t eyes, int depth);

/* A ring whose depth planes are LINEAR: its init's parameters (valid:
 * checked at create). */
void cg_zc_parts_set_linear(cg_zc_parts *p, const cg_zc_depth_params *ring);

/* The call for part (kind, eye) checked before anything changes:
 * CG_E_INVALID_ARG, err naming the value, for what classify refuses and,
 * on a LINEAR ring, a depth part's parameters q (NULL: the ring's) that are
 * not finite 0 < near < far, or that differ from the open frame's at a
 * later eye (a descriptor carries one set: depth(0) sets them). */
cg_status cg_zc_parts_check(const cg_zc_parts *p, cg_zc_part_kind kind, uint32_t eye,
                            const cg_zc_depth_params *q, cg_err *err);

/* Parts per frame: eyes * (1 + depth). */
uint32_t cg_zc_parts_count(const cg_zc_parts *p);

/* Classify the call for part (kind, eye) and update the state: *action as
 * above; *abandoned = 1 when the frame that was open is given up by this
 * call (START while a frame is open, or an out-of-order part): the producer
 * puts p->slot back to RELEASED and counts a skipped frame; else 0. A frame
 * being skipped is not abandoned again (its skip was counted when the ring
 * was full). CG_E_INVALID_ARG, nothing changed, *abandoned = 0, err naming
 * the value: eye outside 0..eyes-1, a depth part on a ring without depth,
 * kind not a cg_zc_part_kind. */
cg_status cg_zc_parts_classify(cg_zc_parts *p, cg_zc_part_kind kind, uint32_t eye,
                               cg_zc_part_action *action, int *abandoned, cg_err *err);

/* After START: the slot claimed for the frame (p->open = 1). */
void cg_zc_parts_claim(cg_zc_parts *p, uint32_t slot, uint64_t frame);

/* After START: no slot was free; the frame's other parts are SKIP (a
 * one-part frame is over at once). */
void cg_zc_parts_full(cg_zc_parts *p);

/* After writing a START or NEXT part: 1 when it was the frame's last part
 * (publish p->slot, p->frame now; the frame is no longer open), else 0.
 * 0 without an open frame. */
int cg_zc_parts_done(cg_zc_parts *p);

/* Forget the frame being assembled (a failed write, the ring torn down):
 * returns 1 when a slot was claimed for it (p->slot: the producer puts it
 * back), else 0. */
int cg_zc_parts_reset(cg_zc_parts *p);

#ifdef __cplusplus
}
#endif

#endif /* CG_ZC_PARTS_H */
