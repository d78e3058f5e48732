/*
 * cg_gl_ring_compute.h - internal to src/gl_ring: the GL compute writer of
 * a GL ring's slots (the RGB slot format, or a copy ring's compute copy;
 * cg_gl_ring.h). The Vulkan ring's shader source compiled by GL once, its
 * nearest sampler, the cursor bitmap and per slot the parameters of its
 * last dispatch. Every call with the ring's GL context current.
 */
#ifndef CG_GL_RING_COMPUTE_H
#define CG_GL_RING_COMPUTE_H

#include <epoxy/gl.h>
#include <stddef.h>
#include <stdint.h>

#include "cg_cursor.h"
#include "cg_err.h"
#include "cg_gl.h"
#include "cg_shader_layout.h"
#include "cg_zc_proto.h" /* CG_ZC_MAX_SLOTS */

/* The shader's Params block (std140: the nine 4-byte members, padded to 48). */
typedef struct cg_gl_ring_params {
    cg_rgb_shader_params p;
    uint32_t pad[3];
} cg_gl_ring_params;

typedef struct cg_gl_ring_compute {
    int copy;             /* cg_vk_copy.comp (a copy ring), else cg_vk_rgb.comp (RGB8) */
    int src_w, src_h;     /* the texture's size */
    int dst_w, dst_h;     /* the slot's picture (a copy's: the texture's) */
    uint32_t slots;
    GLuint program, sampler, cursor_ubo;
    GLuint params_ubo[CG_ZC_MAX_SLOTS];
    cg_gl_ring_params params[CG_ZC_MAX_SLOTS];
    uint32_t groups_x, groups_y; /* cg_shader_groups_64x4 / cg_vk_rgb_groups */
} cg_gl_ring_compute;

/* A slot of `bytes` fits one shader storage block (GL 4.3 promises
 * 16 MiB); *max_block: GL's limit. */
int cg_gl_ring_fits_block(size_t bytes, GLint64 *max_block);

/* c's copy, sizes and slots set: the program, sampler, cursor bitmap and
 * per-slot parameters. CG_E_UNSUPPORTED: block_bytes (what one dispatch
 * binds: the slot, or its largest plane) does not fit a storage block;
 * CG_E_GL. What was made stays for cg_gl_ring_compute_delete. */
cg_status cg_gl_ring_compute_setup(cg_gl_ring_compute *c, size_t block_bytes, cg_err *err);

/* The slot's pixels (slot_buffer: its imported buffer) by one dispatch of
 * `texture`, the state saved and restored by the reader. size 0: the
 * shader's block is the whole buffer; else the plane [offset, offset+size)
 * of it (an eye's RGB plane, offset a multiple of 256). */
cg_status cg_gl_ring_compute_dispatch(cg_gl_ring_compute *c, cg_gl_reader *reader,
                                      unsigned texture, uint32_t slot, GLuint slot_buffer,
                                      uint64_t offset, uint64_t size, const cg_cursor *cursor);

/* Delete what setup made (its context current). */
void cg_gl_ring_compute_delete(cg_gl_ring_compute *c);

#endif /* CG_GL_RING_COMPUTE_H */
