/*
 * cg_cuda_backend.c - the CUDA backend's table for jni/ (cg_gpu_backend.h):
 * the Vulkan-memory import (cg_cuda_import.h) and GL interop (cg_gl_cuda.h).
 * Built with and without the toolkit: without it the functions behind the
 * table are the *_nocuda.c ones, which say CUDA was not built.
 */
#include "cg_cuda_import.h"
#include "cg_gl_cuda.h"
#include "cg_gpu_backend.h"

static cg_status import_create(void **out)
{
    cg_cuda_import *ci = NULL;
    cg_status st = cg_cuda_import_create(&ci);
    if (out) *out = ci;
    return st;
}

static cg_status import_init(void *ctx, const cg_ext_memory_desc *d, uint8_t *handle)
{
    return cg_cuda_import_init(ctx, d, handle);
}

static cg_status import_copy(void *ctx)
{
    /* jni/'s producer waited on its fence: no semaphore value to wait for. */
    return cg_cuda_import_copy(ctx, 0);
}

static void import_reset(void *ctx)
{
    cg_cuda_import_reset(ctx);
}

static int import_live(const void *ctx)
{
    return cg_cuda_import_is_initialized(ctx);
}

static const cg_err *import_error(const void *ctx)
{
    return cg_cuda_import_error(ctx);
}

static cg_status gl_create(void **out)
{
    cg_gl_cuda *g = NULL;
    cg_status st = cg_gl_cuda_create(&g);
    if (out) *out = g;
    return st;
}

static cg_status gl_init(void *ctx, int width, int height, int peer_pid, uint8_t *handle)
{
    (void)peer_pid; /* the IPC handle opens in any process */
    return cg_gl_cuda_init(ctx, width, height, handle);
}

static cg_status gl_capture(void *ctx, const cg_gpu_gl_frame *f)
{
    return cg_gl_cuda_capture(ctx, f);
}

static void gl_reset(void *ctx)
{
    cg_gl_cuda_reset(ctx);
}

static int gl_live(const void *ctx)
{
    return cg_gl_cuda_is_initialized(ctx);
}

static const cg_err *gl_error(const void *ctx)
{
    return cg_gl_cuda_error(ctx);
}

static const cg_gpu_backend cuda_backend = {
    .name = "CUDA",
    .handle_size = CG_CUDA_IPC_HANDLE_SIZE,
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
    return &cuda_backend;
}
