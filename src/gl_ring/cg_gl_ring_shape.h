/*
 * cg_gl_ring_shape.h - internal to src/gl_ring: a cg_gl_ring_desc checked
 * before anything is made (no GL, no Vulkan), and what it makes: the
 * slot's picture size, the eyes, the planes' layout and a frame's bytes.
 * cg_gl_ring_create's first step; its refusals are create's.
 */
#ifndef CG_GL_RING_SHAPE_H
#define CG_GL_RING_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "cg_err.h"
#include "cg_gl_ring.h"
#include "cg_zc_proto.h" /* cg_zc_planes */

typedef struct cg_gl_ring_shape {
    int target_width, target_height; /* the RGB slot's picture; a copy's: the texture's size */
    uint32_t eyes;                   /* 1..CG_ZC_MAX_EYES */
    int planes;                      /* eyes > 1 or a depth plane: descriptor version 3 */
    cg_zc_planes layout;             /* with planes: where they lie in the slot */
    size_t frame_bytes;              /* one frame's bytes in a slot */
} cg_gl_ring_shape;

/* d's mode, signal, slots, sizes, slot format, eyes and depth checked:
 * CG_E_INVALID_ARG (or the size check's status) with err naming the value,
 * else *out. */
cg_status cg_gl_ring_shape_of(const cg_gl_ring_desc *d, cg_gl_ring_shape *out, cg_err *err);

#endif /* CG_GL_RING_SHAPE_H */
