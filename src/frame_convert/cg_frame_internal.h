/*
 * cg_frame_internal.h - shared between the pixel core's own files only.
 *
 * The scalar reference converter lives in cg_convert.c. The fast path is a
 * row driver (also in cg_convert.c) that calls two small per-architecture
 * row kernels; each architecture file (cg_simd_x86.c, cg_simd_neon.c,
 * cg_simd_none.c; CMake picks one) fills the kernel table for its levels.
 */
#ifndef CG_FRAME_INTERNAL_H
#define CG_FRAME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cg_frame.h"

/* RGBA8 -> RGB8 for n consecutive pixels. */
typedef void (*cg_row_pack_fn)(const uint8_t *src, uint8_t *dst, int n);

/* RGBA8 -> RGB8 for n pixels picked from `row` at byte offsets xoff[i]. */
typedef void (*cg_row_gather_fn)(const uint8_t *row, const uint32_t *xoff, uint8_t *dst,
                                 int n);

typedef struct cg_row_kernels {
    cg_row_pack_fn pack;
    cg_row_gather_fn gather;
} cg_row_kernels;

/* Nonzero when this build and this CPU can run `level` (never SCALAR). */
int cg_simd_arch_available(cg_simd_level level);

/* Kernels for an available non-scalar level; CG_E_UNSUPPORTED otherwise. */
cg_status cg_simd_arch_kernels(cg_simd_level level, cg_row_kernels *out);

/* Portable kernels, used for tails and by architectures without SIMD. */
void cg_row_pack_portable(const uint8_t *src, uint8_t *dst, int n);
void cg_row_gather_portable(const uint8_t *row, const uint32_t *xoff, uint8_t *dst, int n);

#endif /* CG_FRAME_INTERNAL_H */
