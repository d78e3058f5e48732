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
#include "cg_frame.h"
#include "cg_gl.h"
#include "cg_gl_check.h"

struct cg_gl_cuda {
    int live;
    int every_frame; /* benchmark: the predecessor's register-per-frame */
    cg_cuda_shared shared;
    struct cudaGraphicsResource *res;
    unsigned res_tex;        /* texture id registered in res */
    int res_w, res_h;        /* its storage size at registration */
    uint8_t *cursor_dev;     /* 16x16 RGBA8 arrow on the device */
    char err[512];
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
    return g ? g->err : "";
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
    CG_TRY(CG_CUDA_CHECK(g->err, cudaMalloc((void **)&g->cursor_dev, sizeof px)));
    return CG_CUDA_CHECK(g->err, cudaMemcpy(g->cursor_dev, px, sizeof px, cudaMemcpyHostToDevice));
}

cg_status cg_gl_cuda_init(cg_gl_cuda *g, int width, int height,
                          uint8_t handle[CG_GL_CUDA_HANDLE_SIZE])
{
    CG_RETURN_IF(!g || !handle, CG_E_INVALID_ARG);
    CG_TRY(cg_check_dims(width, height));
    CG_RETURN_IF(g->live, CG_E_ALREADY_INITIALIZED);
    g->err[0] = '\0';
    CG_TRY(cg_gl_current_context(NULL));
    int ndev = 0;
    CG_TRY(cg_cuda_device_count(&ndev, g->err, sizeof g->err));
    unsigned count = 0;
    int devs[8];
    CG_TRY(CG_CUDA_CHECK(g->err, cudaGLGetDevices(&count, devs, 8, cudaGLDeviceListAll)));
    if (count == 0) {
        snprintf(g->err, sizeof g->err,
                 "cudaGLGetDevices: the current GL context is not rendered by a CUDA device");
        return CG_E_NO_DEVICE;
    }
    cg_status st = cg_cuda_shared_alloc(&g->shared, devs[0], width, height, handle, g->err,
                                        sizeof g->err);
    if (st == CG_OK) st = upload_cursor(g);
    if (st != CG_OK) {
        cg_gl_cuda_reset(g);
        return st;
    }
    g->live = 1;
    return CG_OK;
}

/* Size and format of a GL_TEXTURE_2D, leaving the binding as found. */
static cg_status texture_info(cg_gl_cuda *g, unsigned tex, int *w, int *h, int *fmt)
{
    if (!tex || !glIsTexture(tex)) {
        snprintf(g->err, sizeof g->err, "texture %u is not a texture name", tex);
        return CG_E_BAD_TEXTURE;
    }
    cg_gl_drain_errors(); /* the game's pending errors are not ours */
    GLint prev = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &prev);
    glBindTexture(GL_TEXTURE_2D, tex);
    GLint tw = 0, th = 0, tf = 0;
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &tw);
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &th);
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_INTERNAL_FORMAT, &tf);
    glBindTexture(GL_TEXTURE_2D, (GLuint)prev);
    /* The module's one GL checker records the error; an error here means the
     * name is not a usable GL_TEXTURE_2D (e.g. bound before as another
     * target), so it is a bad texture rather than a GL failure. */
    if (cg_gl_check_call(g->err, sizeof g->err,
                         "glBindTexture(GL_TEXTURE_2D, tex) + glGetTexLevelParameteriv", __FILE__,
                         __LINE__) != CG_OK) {
        size_t n = strlen(g->err);
        snprintf(g->err + n, sizeof g->err - n, " (texture %u)", tex);
        return CG_E_BAD_TEXTURE;
    }
    *w = tw;
    *h = th;
    *fmt = tf;
    return CG_OK;
}

static cg_status ensure_registered(cg_gl_cuda *g, unsigned tex)
{
    int tw = 0, th = 0, tf = 0;
    CG_TRY(texture_info(g, tex, &tw, &th, &tf));
    if (tf != GL_RGBA8 && tf != GL_SRGB8_ALPHA8) {
        snprintf(g->err, sizeof g->err, "texture %u has internal format 0x%04x, not RGBA8", tex, tf);
        return CG_E_BAD_TEXTURE;
    }
    if (tw < g->shared.width || th < g->shared.height) {
        snprintf(g->err, sizeof g->err, "texture %u is %dx%d, smaller than the %dx%d buffer", tex,
                 tw, th, g->shared.width, g->shared.height);
        return CG_E_BAD_TEXTURE;
    }
    /* Register again only when the id or its storage changed. */
    if (g->res && g->res_tex == tex && g->res_w == tw && g->res_h == th) return CG_OK;
    unregister(g);
    CG_TRY(CG_CUDA_CHECK(g->err, cudaGraphicsGLRegisterImage(&g->res, tex, GL_TEXTURE_2D,
                                                             cudaGraphicsRegisterFlagsReadOnly)));
    g->res_tex = tex;
    g->res_w = tw;
    g->res_h = th;
    return CG_OK;
}

/* Copy the non-transparent runs of each cursor row into the buffer. The
 * buffer is bottom-up: cursor row r lands on row height-1-(cursor_y+r). */
static cg_status draw_cursor(cg_gl_cuda *g, int cx, int cy)
{
    cg_cuda_shared *sb = &g->shared;
    for (int r = 0; r < CG_CURSOR_SIZE; r++) {
        long long top = (long long)cy + r;
        if (top < 0 || top >= sb->height) continue;
        size_t row = (size_t)(sb->height - 1 - top);
        int x = 0;
        while (x < CG_CURSOR_SIZE) {
            while (x < CG_CURSOR_SIZE && cg_cursor_rows[r][x] == '.') x++;
            int x0 = x;
            while (x < CG_CURSOR_SIZE && cg_cursor_rows[r][x] != '.') x++;
            long long a = (long long)cx + x0, b = (long long)cx + x;
            if (a < 0) a = 0;
            if (b > sb->width) b = sb->width;
            if (b <= a) continue;
            uint8_t *dst = (uint8_t *)sb->ptr + row * sb->row_bytes + (size_t)a * 4;
            const uint8_t *src = g->cursor_dev + ((size_t)r * CG_CURSOR_SIZE +
                                                  (size_t)(a - cx)) * 4;
            CG_TRY(CG_CUDA_CHECK(g->err, cudaMemcpyAsync(dst, src, (size_t)(b - a) * 4,
                                                         cudaMemcpyDeviceToDevice, sb->stream)));
        }
    }
    return CG_OK;
}

cg_status cg_gl_cuda_capture(cg_gl_cuda *g, const cg_gl_cuda_frame *f)
{
    CG_RETURN_IF(!g || !f, CG_E_INVALID_ARG);
    CG_RETURN_IF(!g->live, CG_E_NOT_INITIALIZED);
    CG_TRY(cg_gl_current_context(NULL));
    CG_TRY(CG_CUDA_CHECK(g->err, cudaSetDevice(g->shared.device)));
    CG_TRY(ensure_registered(g, f->texture));
    cudaStream_t s = g->shared.stream;
    CG_TRY(CG_CUDA_CHECK(g->err, cudaGraphicsMapResources(1, &g->res, s)));
    cudaArray_t arr = NULL;
    cg_status st = CG_CUDA_CHECK(g->err, cudaGraphicsSubResourceGetMappedArray(&arr, g->res, 0, 0));
    if (st == CG_OK) st = cg_cuda_shared_copy_from_array(&g->shared, arr, g->err, sizeof g->err);
    cg_status ust = CG_CUDA_CHECK(g->err, cudaGraphicsUnmapResources(1, &g->res, s));
    if (st == CG_OK) st = ust;
    if (st == CG_OK && f->draw_cursor) st = draw_cursor(g, f->cursor_x, f->cursor_y);
    if (st == CG_OK) st = cg_cuda_shared_sync(&g->shared, g->err, sizeof g->err);
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
