/*
 * cg_metal_backend.c - the Metal backend's table for jni/ (cg_gpu_backend.h),
 * the one a build for Apple links (CG_GPU_BACKEND=metal):
 *   gl_*      GL texture -> IOSurface behind a mach port (cg_metal_gl.h); the
 *             handle is the port, 4 bytes little-endian (cg_metal_port_bytes),
 *             sent to the peer's pid, which gl_init therefore needs.
 *   import_*  Vulkan-memory import is CUDA's (VulkanCudaZerocopy): every call
 *             says so with CG_E_UNSUPPORTED, and a valid handle given to init
 *             is closed, as src/cuda's build without the toolkit does. macOS
 *             Vulkan goes through VulkanMetalZerocopy (cg_metal.h) instead.
 *
 * Apple only (cg_metal_gl exists only there); type-checked on Linux CI with
 * -fsyntax-only (tests/metal). Not run on a Mac by this project.
 */
#include <stdlib.h>

#include "cg_gpu_backend.h"
#include "cg_metal.h"
#include "cg_metal_gl.h"
#include "cg_metal_platform.h"
#include "cg_oshandle.h"

#define CG_METAL_NO_IMPORT_MESSAGE                                                      \
    "this libnative-lib's GPU backend is Metal: importing Vulkan memory is the CUDA "  \
    "backend's (on macOS share a Vulkan image through VulkanMetalZerocopy instead)"

/* ---- Vulkan-memory import: unsupported ---------------------------------- */

typedef struct metal_import {
    int unused;
} metal_import;

static cg_status import_create(void **out)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = calloc(1, sizeof(metal_import));
    return *out ? CG_OK : CG_E_NO_MEMORY;
}

static cg_status import_init(void *ctx, const cg_ext_memory_desc *d, uint8_t *handle)
{
    /* A valid handle is ours whatever the outcome (cg_gpu_backend.h). */
    cg_status st = (!ctx || !handle) ? CG_E_INVALID_ARG : cg_ext_memory_check_desc(d, NULL);
    if (d && cg_ext_memory_handle_is_valid(d->handle_type, d->handle))
        cg_os_handle_close(d->handle_type == CG_EXT_HANDLE_OPAQUE_WIN32, d->handle);
    return st != CG_OK ? st : CG_E_UNSUPPORTED;
}

static cg_status import_copy(void *ctx)
{
    (void)ctx;
    return CG_E_UNSUPPORTED;
}

static void import_reset(void *ctx)
{
    (void)ctx;
}

static int import_live(const void *ctx)
{
    (void)ctx;
    return 0;
}

static const cg_err *import_error(const void *ctx)
{
    static const cg_err no_import = {CG_METAL_NO_IMPORT_MESSAGE};
    (void)ctx;
    return &no_import;
}

/* ---- GL texture -> IOSurface ------------------------------------------- */

typedef struct metal_gl {
    cg_metal_gl *gl;   /* NULL until gl_init succeeds, and after gl_reset */
    int width, height; /* the surface's size, given to every capture */
    cg_err err;
} metal_gl;

static cg_status gl_create(void **out)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = calloc(1, sizeof(metal_gl));
    return *out ? CG_OK : CG_E_NO_MEMORY;
}

static cg_status gl_init(void *ctx, int width, int height, int peer_pid, uint8_t *handle)
{
    metal_gl *m = ctx;
    CG_RETURN_IF(!m || !handle, CG_E_INVALID_ARG);
    cg_err_clear(&m->err);
    if (m->gl)
        return cg_fail(&m->err, CG_E_ALREADY_INITIALIZED, "zero-copy is initialised already");
    /* The mach port is sent to this process: it must be one. */
    if (peer_pid <= 0)
        return cg_fail(&m->err, CG_E_INVALID_ARG, "pythonPid %d is not a process id", peer_pid);
    cg_metal_gl *g = NULL;
    cg_status st = cg_metal_gl_create(cg_metal_platform_native(), width, height, &g, &m->err);
    if (st != CG_OK) return st;
    uint32_t port = 0;
    st = cg_metal_gl_export_port(g, peer_pid, &port);
    if (st != CG_OK) {
        cg_fail_from(&m->err, st, cg_metal_gl_error(g));
        cg_metal_gl_destroy(g);
        return st;
    }
    cg_metal_port_bytes(port, handle);
    m->gl = g;
    m->width = width;
    m->height = height;
    return CG_OK;
}

static cg_status gl_capture(void *ctx, const cg_gpu_gl_frame *f)
{
    metal_gl *m = ctx;
    CG_RETURN_IF(!m || !f, CG_E_INVALID_ARG);
    cg_err_clear(&m->err);
    if (!m->gl) return cg_fail(&m->err, CG_E_NOT_INITIALIZED, "call initializeZerocopyImpl first");
    cg_status st = cg_metal_gl_capture(m->gl, f->texture, m->width, m->height, &f->cursor);
    if (st != CG_OK) cg_fail_from(&m->err, st, cg_metal_gl_error(m->gl));
    return st;
}

static void gl_reset(void *ctx)
{
    metal_gl *m = ctx;
    if (!m) return;
    cg_metal_gl_destroy(m->gl);
    m->gl = NULL;
}

static int gl_live(const void *ctx)
{
    const metal_gl *m = ctx;
    return m && m->gl;
}

static const cg_err *gl_error(const void *ctx)
{
    const metal_gl *m = ctx;
    return m ? &m->err : NULL;
}

static const cg_gpu_backend metal_backend = {
    .name = "Metal",
    .handle_size = CG_METAL_PORT_BYTES,
    .import_create = import_create,
    .import_init = import_init,
    .import_copy = import_copy,
    .import_reset = import_reset,
    .import_live = import_live,
    .import_error = import_error,
    .gl_create = gl_create,
    .gl_init = gl_init,
    .gl_capture = gl_capture,
    .gl_reset = gl_reset,
    .gl_live = gl_live,
    .gl_error = gl_error,
};

const cg_gpu_backend *cg_gpu_backend_get(void)
{
    return &metal_backend;
}
