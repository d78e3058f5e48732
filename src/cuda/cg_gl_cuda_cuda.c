/*
 * cg_gl_cuda_cuda.c - GL texture -> CUDA shared buffer (cg_gl_cuda.h).
 * Registered once per texture id; map / copy / unmap per frame.
 */
#include "cg_gl_cuda.h"

#include <epoxy/gl.h>
/* After epoxy: cuda_gl_interop.h includes <GL/gl.h>, which epoxy's guard
 * turns into a no-op. */
#include <cuda_gl_interop.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_cuda_share.h"
#include "cg_cursor.h"
#include "cg_size.h"
#include "cg_gl.h"
#include "cg_gl_check.h"

/* cudaGLGetDevices lists at most this many devices for one context (an SLI
 * group); the first is the one the buffer lives on. */
#define CG_GL_CUDA_MAX_DEVICES 8

struct cg_gl_cuda {
    int live;
    int failed;      /* a capture failed in CUDA or GL: refuse until reset */
    int every_frame; /* benchmark: the predecessor's register-per-frame */
    cg_cuda_shared shared;
    struct cudaGraphicsResource *res;
    unsigned res_tex;        /* texture id registered in res */
    int res_w, res_h;        /* its storage size at registration */
    uint8_t *cursor_dev;     /* 16x16 RGBA8 arrow on the device */
    cg_err err;
};

cg_status cg_gl_cuda_create(cg_gl_cuda **out)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = calloc(1, sizeof **out);
    return *out ? CG_OK : CG_E_NO_MEMORY;
}

void cg_gl_cuda_destroy(cg_gl_cuda *g)
{
    if (!g) return;
    cg_gl_cuda_reset(g);
    free(g);
}

const char *cg_gl_cuda_last_error(const cg_gl_cuda *g)
{
    return g ? cg_err_text(&g->err) : "";
}

const cg_err *cg_gl_cuda_error(const cg_gl_cuda *g)
{
    return g ? &g->err : NULL;
}

int cg_gl_cuda_is_initialized(const cg_gl_cuda *g)
{
    return g && g->live;
}

static void unregister(cg_gl_cuda *g)
{
    if (g->res) (void)cudaGraphicsUnregisterResource(g->res);
    g->res = NULL;
    g->res_tex = 0;
}

void cg_gl_cuda_reset(cg_gl_cuda *g)
{
    if (!g) return;
    if (g->shared.stream) {
        (void)cudaSetDevice(g->shared.device);
        (void)cudaStreamSynchronize(g->shared.stream);
    }
    unregister(g);
    if (g->cursor_dev) (void)cudaFree(g->cursor_dev);
    g->cursor_dev = NULL;
    cg_cuda_shared_free(&g->shared);
    (void)cudaGetLastError();
    g->live = 0;
    g->failed = 0;
}

void cg_gl_cuda_set_register_every_frame(cg_gl_cuda *g, int on)
{
    if (g) g->every_frame = on != 0;
}

static cg_status upload_cursor(cg_gl_cuda *g)
{
    uint8_t px[CG_CURSOR_SIZE * CG_CURSOR_SIZE * 4];
    for (int y = 0; y < CG_CURSOR_SIZE; y++)
        for (int x = 0; x < CG_CURSOR_SIZE; x++) {
            uint8_t v = cg_cursor_rows[y][x] == 'W' ? 255 : 0;
            uint8_t *p = px + (y * CG_CURSOR_SIZE + x) * 4;
            p[0] = p[1] = p[2] = v;
            p[3] = 255;
        }
    CG_TRY(CG_CUDA_CHECK(&g->err, cudaMalloc((void **)&g->cursor_dev, sizeof px)));
    return CG_CUDA_CHECK(&g->err, cudaMemcpy(g->cursor_dev, px, sizeof px, cudaMemcpyHostToDevice));
}

cg_status cg_gl_cuda_init(cg_gl_cuda *g, int width, int height,
                          uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE])
{
    CG_RETURN_IF(!g || !handle, CG_E_INVALID_ARG);
    CG_TRY(cg_check_dims(width, height));
    CG_RETURN_IF(g->live, CG_E_ALREADY_INITIALIZED);
    cg_err_clear(&g->err);
    CG_TRY(cg_gl_current_context(NULL));
    int ndev = 0;
    CG_TRY(cg_cuda_device_count(&ndev, &g->err));
    unsigned count = 0;
    int devs[CG_GL_CUDA_MAX_DEVICES];
    CG_TRY(CG_CUDA_CHECK(&g->err, cudaGLGetDevices(&count, devs, CG_GL_CUDA_MAX_DEVICES,
                                                   cudaGLDeviceListAll)));
    if (count == 0)
        return cg_fail(&g->err, CG_E_NO_DEVICE,
                       "cudaGLGetDevices: the current GL context is not rendered by a CUDA "
                       "device");
    cg_status st = cg_cuda_shared_alloc(&g->shared, devs[0], width, height, handle, &g->err);
    if (st == CG_OK) st = upload_cursor(g);
    if (st != CG_OK) {
        cg_gl_cuda_reset(g);
        return st;
    }
    g->live = 1;
    return CG_OK;
}

static cg_status ensure_registered(cg_gl_cuda *g, unsigned tex)
{
    int tw = 0, th = 0, tf = 0;
    CG_TRY(cg_gl_texture_level0(tex, &tw, &th, &tf, &g->err));
    if (tf != GL_RGBA8 && tf != GL_SRGB8_ALPHA8)
        return cg_fail(&g->err, CG_E_BAD_TEXTURE,
                       "texture %u has internal format 0x%04x, not RGBA8", tex, tf);
    if (tw < g->shared.width || th < g->shared.height)
        return cg_fail(&g->err, CG_E_BAD_TEXTURE,
                       "texture %u is %dx%d, smaller than the %dx%d buffer", tex, tw, th,
                       g->shared.width, g->shared.height);
    /* Register again only when the id or its storage changed. */
    if (g->res && g->res_tex == tex && g->res_w == tw && g->res_h == th) return CG_OK;
    unregister(g);
    CG_TRY(CG_CUDA_CHECK(&g->err, cudaGraphicsGLRegisterImage(&g->res, tex, GL_TEXTURE_2D,
                                                             cudaGraphicsRegisterFlagsReadOnly)));
    g->res_tex = tex;
    g->res_w = tw;
    g->res_h = th;
    return CG_OK;
}

/* Copy each run of the arrow (cg_cursor_runs) from the device copy of the
 * bitmap into the bottom-up buffer. */
static cg_status draw_cursor(cg_gl_cuda *g, int cx, int cy)
{
    cg_cuda_shared *sb = &g->shared;
    cg_cursor_run runs[CG_CURSOR_MAX_RUNS];
    const int n = cg_cursor_runs(sb->width, sb->height, cx, cy, runs);
    for (int i = 0; i < n; i++) {
        uint8_t *dst = (uint8_t *)sb->ptr + (size_t)runs[i].y * sb->row_bytes +
                       (size_t)runs[i].x * 4;
        const uint8_t *src =
            g->cursor_dev + ((size_t)runs[i].r * CG_CURSOR_SIZE + (size_t)runs[i].c) * 4;
        CG_TRY(CG_CUDA_CHECK(&g->err, cudaMemcpyAsync(dst, src, (size_t)runs[i].len * 4,
                                                      cudaMemcpyDeviceToDevice, sb->stream)));
    }
    return CG_OK;
}

static cg_status capture_frame(cg_gl_cuda *g, const cg_gl_cuda_frame *f)
{
    CG_TRY(CG_CUDA_CHECK(&g->err, cudaSetDevice(g->shared.device)));
    CG_TRY(ensure_registered(g, f->texture));
    cudaStream_t s = g->shared.stream;
    CG_TRY(CG_CUDA_CHECK(&g->err, cudaGraphicsMapResources(1, &g->res, s)));
    cudaArray_t arr = NULL;
    cg_status st =
        CG_CUDA_CHECK(&g->err, cudaGraphicsSubResourceGetMappedArray(&arr, g->res, 0, 0));
    if (st == CG_OK) st = cg_cuda_shared_copy_from_array(&g->shared, arr, &g->err);
    cg_status ust = CG_CUDA_CHECK(&g->err, cudaGraphicsUnmapResources(1, &g->res, s));
    if (st == CG_OK) st = ust;
    if (st == CG_OK && f->cursor.draw) st = draw_cursor(g, f->cursor.x, f->cursor.y);
    if (st == CG_OK) st = cg_cuda_shared_sync(&g->shared, &g->err);
    return st;
}

cg_status cg_gl_cuda_capture(cg_gl_cuda *g, const cg_gl_cuda_frame *f)
{
    CG_RETURN_IF(!g || !f, CG_E_INVALID_ARG);
    CG_RETURN_IF(!g->live, CG_E_NOT_INITIALIZED);
    if (g->failed)
        return cg_fail(&g->err, CG_E_BAD_STATE,
                       "an earlier capture failed in CUDA or GL; reset before capturing again");
    CG_TRY(cg_gl_current_context(NULL));
    cg_status st = capture_frame(g, f);
    if (st == CG_E_CUDA || st == CG_E_GL) g->failed = 1;
    if (g->every_frame) unregister(g);
    return st;
}

void *cg_gl_cuda_shared_ptr(const cg_gl_cuda *g)
{
    return g && g->live ? g->shared.ptr : NULL;
}

int cg_gl_cuda_device(const cg_gl_cuda *g)
{
    return g && g->live ? g->shared.device : -1;
}
