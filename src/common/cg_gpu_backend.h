/*
 * cg_gpu_backend.h - the zero-copy GPU backend, as jni/ sees it.
 *
 * jni/ never names a GPU compute API. It asks cg_gpu_backend_get() for a table
 * of functions and calls through it; CMake links the one backend the build
 * chose (CG_GPU_BACKEND: "cuda" is src/cuda, which without the toolkit
 * reports that CUDA was not built; "metal", the default on Apple, is
 * src/metal/cg_metal_backend.c). A further backend (HIP, say) is a new
 * folder implementing cg_gpu_backend_get() plus a CMake value, with no edit
 * in jni/.
 *
 * Also here, because jni/ and every backend share them: the descriptor of an
 * exported Vulkan allocation and its one validity check.
 */
#ifndef CG_GPU_BACKEND_H
#define CG_GPU_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "cg_cursor.h"
#include "cg_err.h"
#include "cg_size.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kind of OS handle an exporter produced. */
typedef enum cg_ext_handle_type {
    CG_EXT_HANDLE_OPAQUE_FD = 0,   /* VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT */
    CG_EXT_HANDLE_OPAQUE_WIN32 = 1 /* VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_BIT */
} cg_ext_handle_type;

/* Exported memory of an RGBA8 image. */
typedef struct cg_ext_memory_desc {
    cg_ext_handle_type handle_type;
    int64_t handle;           /* the fd (or HANDLE value); ownership: see the backend */
    uint64_t allocation_size; /* VkMemoryRequirements.size of the allocation */
    uint8_t device_uuid[CG_DEVICE_UUID_SIZE]; /* VkPhysicalDeviceIDProperties.deviceUUID */
    int width, height;        /* image size in pixels; RGBA8 */
    int dedicated;            /* nonzero: the allocation was dedicated to the image */
    int color_attachment;     /* nonzero: the image has COLOR_ATTACHMENT usage */
} cg_ext_memory_desc;

/* Check a descriptor without touching any GPU API or the handle: a known
 * handle type; a handle that is a handle (not -1/0; an fd within int
 * range); dims as cg_check_dims; allocation_size >= width*height*4.
 * CG_E_INVALID_ARG / CG_E_TOO_LARGE / CG_E_BUFFER_TOO_SMALL with the
 * offending values in why (may be NULL). */
cg_status cg_ext_memory_check_desc(const cg_ext_memory_desc *d, cg_err *why);

/* Nonzero when d->handle is a value a native owns once given (not -1/0,
 * and an fd within int range): such a handle is the library's whatever the
 * outcome of the call it was given to. */
int cg_ext_memory_handle_is_valid(cg_ext_handle_type type, int64_t handle);

/* Largest IPC handle any backend writes. */
#define CG_GPU_HANDLE_MAX_SIZE 128

/* A GL frame for the GL interop path. */
typedef struct cg_gpu_gl_frame {
    unsigned texture;       /* GL_TEXTURE_2D, RGBA8, at least the buffer's size */
    cg_cursor cursor;       /* the arrow (cg_cursor.h) */
} cg_gpu_gl_frame;

/* Contexts are opaque to jni/. Every function taking one accepts NULL where
 * its backend's API does; errors are statuses, details in *_error: the
 * context's cg_err (NULL: none), for cg_fail_from. */
typedef struct cg_gpu_backend {
    const char *name;   /* "CUDA", "Metal" */
    size_t handle_size; /* bytes of the IPC handle init writes (CUDA 68, Metal 4) */

    /* Exported Vulkan memory -> shared buffer behind an IPC handle. init
     * takes ownership of a valid d->handle whatever its outcome. */
    cg_status (*import_create)(void **out);
    cg_status (*import_init)(void *ctx, const cg_ext_memory_desc *d, uint8_t *handle);
    cg_status (*import_copy)(void *ctx);
    void (*import_reset)(void *ctx);
    int (*import_live)(const void *ctx);
    const cg_err *(*import_error)(const void *ctx);

    /* GL texture of the current context -> shared buffer. init's peer_pid
     * is the consuming process (Java's pythonPid): a backend whose handle is
     * made for one process (Metal's mach port) refuses pid <= 0 with
     * CG_E_INVALID_ARG; one whose handle any process opens (CUDA) ignores
     * it. */
    cg_status (*gl_create)(void **out);
    cg_status (*gl_init)(void *ctx, int width, int height, int peer_pid, uint8_t *handle);
    cg_status (*gl_capture)(void *ctx, const cg_gpu_gl_frame *f);
    void (*gl_reset)(void *ctx);
    int (*gl_live)(const void *ctx);
    const cg_err *(*gl_error)(const void *ctx);
} cg_gpu_backend;

/* The backend this build links. Never NULL. */
const cg_gpu_backend *cg_gpu_backend_get(void);

#ifdef __cplusplus
}
#endif

#endif /* CG_GPU_BACKEND_H */
