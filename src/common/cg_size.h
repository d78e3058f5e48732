/*
 * cg_size.h - sizes and limits every layer shares, and overflow-checked
 * size arithmetic. Widths and heights arrive from Java as int: every one is
 * checked, and every product is checked before it is used.
 */
#ifndef CG_SIZE_H
#define CG_SIZE_H

#include <stddef.h>

#include "cg_err.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest accepted width or height, source or target. */
#define CG_MAX_DIM 16384

/* A Vulkan deviceUUID / CUDA cudaDeviceProp.uuid / GL_DEVICE_UUID_EXT. */
#define CG_DEVICE_UUID_SIZE 16

/* CG_E_INVALID_ARG when w or h <= 0, CG_E_TOO_LARGE when > CG_MAX_DIM. */
cg_status cg_check_dims(int w, int h);

/* cg_check_dims with the offending values in why (may be NULL): "<what>
 * size <w>x<h> is invalid: width and height must be 1..16384". The one text
 * of a bad size, for every layer that reports one. */
cg_status cg_check_dims_named(const char *what, int w, int h, cg_err *why);

/* *out = w * h * bpp bytes; validates dims as cg_check_dims and checks the
 * product against SIZE_MAX (CG_E_OVERFLOW). bpp must be 1..16. */
cg_status cg_image_size(int w, int h, int bpp, size_t *out);

/* a * b with overflow check. */
cg_status cg_mul_size(size_t a, size_t b, size_t *out);

#ifdef __cplusplus
}
#endif

#endif /* CG_SIZE_H */
