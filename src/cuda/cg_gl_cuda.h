/*
 * cg_gl_cuda.h - GL texture -> CUDA shared buffer behind the 68-byte IPC
 * handle (the GL zero-copy path: initializeZerocopyImpl /
 * captureFramebufferZerocopyImpl).
 *
 * The CUDA device is the one rendering the current GL context
 * (cudaGLGetDevices); there is no fallback to device 0. The texture is
 * registered with CUDA once per texture id (and again only when the id or
 * its storage size changes), then mapped, copied and unmapped each frame
 * on the library's own stream. The buffer is height x width x 4 RGBA8,
 * tightly packed, in GL row order (bottom-up), complete when
 * cg_gl_cuda_capture returns.
 *
 * A build without CUDA links cg_gl_cuda_nocuda.c (CG_E_UNSUPPORTED).
 * Thread affinity: every call except create/last_error on the thread whose
 * GL context is current (destroy/reset too, when a texture is registered).
 */
#ifndef CG_GL_CUDA_H
#define CG_GL_CUDA_H

#include <stdint.h>

#include "cg_cuda_ipc.h"
#include "cg_err.h"
#include "cg_gpu_backend.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_gl_cuda cg_gl_cuda;

/* Allocate an idle context; no GL or CUDA call is made. */
cg_status cg_gl_cuda_create(cg_gl_cuda **out);

/* Reset, then free. NULL: no-op. */
void cg_gl_cuda_destroy(cg_gl_cuda *g);

/* Last failure: API error name, expression, file, line. Never NULL. */
const char *cg_gl_cuda_last_error(const cg_gl_cuda *g);
/* The same as the cg_err it is, for cg_fail_from (as cg_cuda_import_error). */
const cg_err *cg_gl_cuda_error(const cg_gl_cuda *g);

int cg_gl_cuda_is_initialized(const cg_gl_cuda *g);

/* Choose the device of the current context, allocate the shared
 * width x height RGBA8 buffer, write the 68-byte handle. Errors: dims
 * (CG_E_INVALID_ARG / CG_E_TOO_LARGE), CG_E_NO_CONTEXT,
 * CG_E_ALREADY_INITIALIZED, CG_E_NO_DEVICE (the context is not rendered by
 * a CUDA device), CG_E_CUDA (no driver/device, or a call failed),
 * CG_E_UNSUPPORTED (no CUDA in this build). */
cg_status cg_gl_cuda_init(cg_gl_cuda *g, int width, int height,
                          uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE]);

typedef cg_gpu_gl_frame cg_gl_cuda_frame;

/* Copy the bottom-left width x height region of the texture into the
 * shared buffer (and draw the cursor). Errors: CG_E_NOT_INITIALIZED,
 * CG_E_NO_CONTEXT, CG_E_BAD_TEXTURE (not a texture, not RGBA8, or smaller
 * than the buffer), CG_E_GL, CG_E_CUDA. GL state is left as found.
 * States: usable after init; FAILED after a capture returned CG_E_CUDA or
 * CG_E_GL, when captures return CG_E_BAD_STATE until reset; destroyed. */
cg_status cg_gl_cuda_capture(cg_gl_cuda *g, const cg_gl_cuda_frame *f);

/* Unregister, free the buffer; the context can be initialised again. */
void cg_gl_cuda_reset(cg_gl_cuda *g);

/* Benchmark only: register/unregister the texture on every frame (the
 * predecessor's pattern), to measure what registering once saves. */
void cg_gl_cuda_set_register_every_frame(cg_gl_cuda *g, int on);

/* For tests in the same process: the shared buffer and its device. */
void *cg_gl_cuda_shared_ptr(const cg_gl_cuda *g);
int cg_gl_cuda_device(const cg_gl_cuda *g);

#ifdef __cplusplus
}
#endif

#endif /* CG_GL_CUDA_H */
