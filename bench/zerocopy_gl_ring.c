/*
 * zerocopy_gl_ring.c - the GL producer of zero-copy v2 (cg_gl_ring.h): the
 * game's host time per published frame, at 640x360 and 1920x1080. Each
 * frame the "game" clears an FBO-attached RGBA8 texture to a new colour
 * (untimed); timed is one call, as the game pays it:
 *   v2 auto:      cg_gl_ring_publish in the mode the driver allows
 *                 (semaphore: pack + GL signal + flush + bridge submit, no
 *                 wait; fence: the same pack, then a CPU wait for it)
 *   v2 GL timeline: semaphore mode with GL signalling the ring's timeline
 *                 itself (GL_NV_timeline_semaphore; n/a without it)
 *   v2 fence:     the fallback, forced
 *   v2 RGB auto / fence: the RGB slot format (one compute dispatch of the
 *                 RAW observation, same size, a cursor drawn) in place of
 *                 the pack
 *   v2 RGB-D auto: a ring with a linear depth plane (1 eye): the depth part
 *                 (a DEPTH_COMPONENT32F texture of the same size) and the
 *                 colour part, both timed
 * GPU time (GL_TIME_ELAPSED around each publish, auto mode, a second pass
 * so the queries cost no host figure): the compute copy (a ring told
 * GL_RGBA8) and the RGB dispatch against the plain pack of the same frame,
 * the pack being the limit (RGB target <= 1.5x), and the depth part's
 * dispatch alone against the RGB dispatch (same run); the compute copy also
 * against issue 23's fixed limit (4 us at 640x360, 10 us at 1920x1080).
 *   GL floor:     glReadPixels into a pack buffer + glFlush, nothing else
 *                 (the least any GPU-side copy can issue; no state saved)
 *   v1 GL->CUDA:  cg_gl_cuda_capture (map + copy + unmap + sync), measured
 *                 after every v2 figure (it loads CUDA into the process)
 * Limit: the plain CPU readback (glReadPixels into client memory + RAW
 * convert), same run; every figure is a median and a ratio to it. No
 * learner reads the ring: slots cycle as PUBLISHED (each frame takes the
 * oldest one), which is the producer's cost with a learner keeping up.
 * Usage: bench_zerocopy_gl_ring [frames]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <epoxy/gl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "bench_gl_game.h"
#include "cg_egl_headless.h"
#include "cg_frame.h"
#include "cg_gl_cuda.h"
#include "cg_gl_ring.h"

static GLuint g_fbo;

static void game_clear(int f)
{
    bench_gl_game_frame(g_fbo, f);
}

/* Median over n frames of `what` (after 10 untimed ones); -1 on error. */
typedef int (*frame_fn)(void *ctx, GLuint tex);

static double time_frames(frame_fn fn, void *ctx, GLuint tex, int n)
{
    double *t = malloc(sizeof(double) * (size_t)n);
    int bad = 0;
    for (int i = -10; i < n && !bad; i++) {
        game_clear(i + 10);
        double a = bench_now_us();
        bad = fn(ctx, tex);
        if (i >= 0) t[i] = bench_now_us() - a;
    }
    double m = bad ? -1 : bench_median(t, n);
    free(t);
    return m;
}

typedef struct cpu_ctx {
    int w, h;
    uint8_t *host, *out;
} cpu_ctx;

static int cpu_frame(void *p, GLuint tex)
{
    (void)tex;
    cpu_ctx *c = p;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, g_fbo);
    glReadPixels(0, 0, c->w, c->h, GL_RGBA, GL_UNSIGNED_BYTE, c->host);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    cg_convert_params p2;
    memset(&p2, 0, sizeof p2);
    p2.src = c->host;
    p2.src_stride = (size_t)c->w * 4;
    p2.src_w = p2.dst_w = c->w;
    p2.src_h = p2.dst_h = c->h;
    return cg_convert(&p2, c->out, (size_t)c->w * (size_t)c->h * 3) != CG_OK;
}

typedef struct floor_ctx {
    int w, h;
    GLuint pbo;
} floor_ctx;

static int floor_frame(void *p, GLuint tex)
{
    (void)tex;
    floor_ctx *c = p;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, g_fbo);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, c->pbo);
    glReadPixels(0, 0, c->w, c->h, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    glFlush();
    return 0;
}

/* A ring being timed: RGB rings draw a cursor each frame; with q, each
 * publish is inside a GL_TIME_ELAPSED query; with a depth texture, the
 * frame is its depth part (alone inside the query) and its colour part. */
typedef struct ring_ctx {
    cg_gl_ring *r;
    int cursor;
    GLuint *q;
    int nq, i;
    GLuint depth_tex;
} ring_ctx;

static int ring_frame(void *p, GLuint tex)
{
    ring_ctx *c = p;
    uint8_t desc[CG_ZC_DESC_MAX_SIZE];
    cg_cursor cur = {c->cursor, 100, 50};
    int timed = c->q && c->i < c->nq;
    size_t len = 0;
    if (timed) glBeginQuery(GL_TIME_ELAPSED, c->q[c->i]);
    cg_status st = c->depth_tex
                       ? cg_gl_ring_publish_depth(c->r, c->depth_tex, 0, NULL, desc, &len)
                       : cg_gl_ring_publish_cursor(c->r, tex, &cur, desc);
    if (timed) glEndQuery(GL_TIME_ELAPSED);
    if (st == CG_OK && c->depth_tex) st = cg_gl_ring_publish_eye(c->r, tex, 0, &cur, desc, &len);
    if (timed) c->i++;
    if (st != CG_OK) printf("  publish: %s\n", cg_gl_ring_last_error(c->r));
    return st != CG_OK;
}

/* Median GPU time of the last n of c->nq queries, us; -1 on error. */
static double gpu_median(ring_ctx *c, int n)
{
    double *t = malloc(sizeof(double) * (size_t)n);
    for (int k = 0; k < n; k++) {
        GLuint64 ns = 0;
        glGetQueryObjectui64v(c->q[c->nq - n + k], GL_QUERY_RESULT, &ns);
        t[k] = (double)ns / 1000.0;
    }
    double m = glGetError() == GL_NO_ERROR ? bench_median(t, n) : -1;
    free(t);
    return m;
}

static int cuda_frame(void *p, GLuint tex)
{
    cg_gl_cuda_frame fr = {tex, {0, 0, 0}};
    return cg_gl_cuda_capture(p, &fr) != CG_OK;
}

/* Host time per publish; gpu_us (may be NULL): GPU time, a second pass. */
static double ring_us(GLuint tex, int w, int h, int mode, cg_gl_ring_signal signal,
                      cg_vk_slot_format fmt, unsigned texture_format, GLuint depth_tex, int n,
                      const char **mode_name, double *gpu_us)
{
    cg_gl_ring_desc d;
    memset(&d, 0, sizeof d);
    if (depth_tex) { /* a linear depth plane, Minecraft's planes */
        d.depth = CG_ZC_DEPTH_LINEAR;
        d.near_plane = 0.05f;
        d.far_plane = 1000.0f;
    }
    d.width = w;
    d.height = h;
    d.mode = mode;
    d.signal = signal;
    d.slot_format = fmt;
    d.texture_format = texture_format; /* GL_RGBA8: the compute copy; 0: glReadPixels */
    d.wait_ns = 1000000000u; /* a slot whose copy still runs: wait, do not skip */
    cg_gl_ring *r = NULL;
    cg_err e = {{0}};
    if (cg_gl_ring_create(&d, &r, &e) != CG_OK) {
        printf("  v2 ring (mode %d): %s\n", mode, e.text);
        return -1;
    }
    cg_gl_ring_info gi;
    cg_gl_ring_get_info(r, &gi);
    *mode_name = gi.mode != CG_ZC_MODE_SEMAPHORE        ? "fence"
                 : gi.signal == CG_GL_RING_SIGNAL_GL_TIMELINE ? "semaphore, GL timeline"
                                                              : "semaphore, bridge";
    ring_ctx c = {r, fmt == CG_VK_SLOT_RGB8, NULL, 0, 0, depth_tex};
    double m = time_frames(ring_frame, &c, tex, n);
    if (gpu_us && m >= 0) {
        c.nq = n + 10;
        c.q = calloc((size_t)c.nq, sizeof *c.q);
        glGenQueries(c.nq, c.q);
        *gpu_us = time_frames(ring_frame, &c, tex, n) < 0 ? -1 : gpu_median(&c, n);
        glDeleteQueries(c.nq, c.q);
        free(c.q);
    }
    cg_gl_ring_destroy(r);
    return m;
}

static void line(const char *what, double med, double limit)
{
    if (med < 0) {
        printf("  %-52s n/a\n", what);
        return;
    }
    printf("  %-52s median %8.1f us   %6.3fx limit\n", what, med, med / limit);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 300;
    if (n < 11) n = 11;
    cg_egl_headless *ctx = NULL;
    char why[256];
    if (cg_egl_headless_open(&ctx, why, sizeof why) != 0) {
        printf("bench_zerocopy_gl_ring: skipped: %s\n", why);
        return 0;
    }
    printf("bench_zerocopy_gl_ring: %s, %d frames per figure; limit = CPU readback "
           "(glReadPixels + RAW convert, same run); host time per frame\n",
           cg_egl_headless_describe(ctx), n);
    static const int sizes[2][2] = {{640, 360}, {1920, 1080}};
    double v1[2] = {-1, -1}, limits[2];
    GLuint texs[2], fbos[2];
    for (int s = 0; s < 2; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        glGenTextures(1, &texs[s]);
        glBindTexture(GL_TEXTURE_2D, texs[s]);
        glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
        glBindTexture(GL_TEXTURE_2D, 0);
        glGenFramebuffers(1, &fbos[s]);
        glBindFramebuffer(GL_FRAMEBUFFER, fbos[s]);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texs[s], 0);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        g_fbo = fbos[s];

        cpu_ctx c = {w, h, malloc((size_t)w * h * 4), malloc((size_t)w * h * 3)};
        limits[s] = time_frames(cpu_frame, &c, texs[s], n);
        free(c.host);
        free(c.out);
        floor_ctx f = {w, h, 0};
        glGenBuffers(1, &f.pbo);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, f.pbo);
        glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)w * h * 4, NULL, GL_STREAM_READ);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        double fl = time_frames(floor_frame, &f, texs[s], n);
        glDeleteBuffers(1, &f.pbo);
        const char *auto_mode = "?", *other_mode = "?";
        double gpu_copy = -1, gpu_rgb = -1;
        double v2 = ring_us(texs[s], w, h, CG_GL_RING_MODE_AUTO, CG_GL_RING_SIGNAL_AUTO,
                            CG_VK_SLOT_COPY, 0, 0, n, &auto_mode, &gpu_copy);
        double v2b = ring_us(texs[s], w, h, CG_ZC_MODE_SEMAPHORE, CG_GL_RING_SIGNAL_BRIDGE,
                             CG_VK_SLOT_COPY, 0, 0, n, &other_mode, NULL);
        double v2t = ring_us(texs[s], w, h, CG_ZC_MODE_SEMAPHORE, CG_GL_RING_SIGNAL_GL_TIMELINE,
                             CG_VK_SLOT_COPY, 0, 0, n, &other_mode, NULL);
        double v2f = ring_us(texs[s], w, h, CG_ZC_MODE_FENCE, CG_GL_RING_SIGNAL_BRIDGE,
                             CG_VK_SLOT_COPY, 0, 0, n, &other_mode, NULL);
        double gpu_cc = -1;
        double cc = ring_us(texs[s], w, h, CG_GL_RING_MODE_AUTO, CG_GL_RING_SIGNAL_AUTO,
                            CG_VK_SLOT_COPY, GL_RGBA8, 0, n, &other_mode, &gpu_cc);
        double rgb = ring_us(texs[s], w, h, CG_GL_RING_MODE_AUTO, CG_GL_RING_SIGNAL_AUTO,
                             CG_VK_SLOT_RGB8, 0, 0, n, &other_mode, &gpu_rgb);
        double rgbf = ring_us(texs[s], w, h, CG_ZC_MODE_FENCE, CG_GL_RING_SIGNAL_BRIDGE,
                              CG_VK_SLOT_RGB8, 0, 0, n, &other_mode, NULL);
        GLuint dtex;
        glGenTextures(1, &dtex);
        glBindTexture(GL_TEXTURE_2D, dtex);
        glTexStorage2D(GL_TEXTURE_2D, 1, GL_DEPTH_COMPONENT32F, w, h);
        glBindTexture(GL_TEXTURE_2D, 0);
        double gpu_depth = -1;
        double rgbd = ring_us(texs[s], w, h, CG_GL_RING_MODE_AUTO, CG_GL_RING_SIGNAL_AUTO,
                              CG_VK_SLOT_RGB8, 0, dtex, n, &other_mode, &gpu_depth);
        glDeleteTextures(1, &dtex);
        char what[80];
        printf(" %dx%d: limit (CPU readback) %.1f us\n", w, h, limits[s]);
        line("GL floor: glReadPixels into a PBO + glFlush", fl, limits[s]);
        snprintf(what, sizeof what, "v2 publish, auto (%s mode)", auto_mode);
        line(what, v2, limits[s]);
        line("v2 publish, semaphore, Vulkan bridge submit", v2b, limits[s]);
        line("v2 publish, semaphore, GL signals the timeline (NV)", v2t, limits[s]);
        line("v2 publish, fence mode (CPU waits for the pack)", v2f, limits[s]);
        line("v2 publish, auto, the compute copy (GL_RGBA8)", cc, limits[s]);
        snprintf(what, sizeof what, "v2 RGB publish, auto (%s mode), cursor", auto_mode);
        line(what, rgb, limits[s]);
        line("v2 RGB publish, fence mode", rgbf, limits[s]);
        snprintf(what, sizeof what, "v2 RGB-D publish (depth + colour parts), auto");
        line(what, rgbd, limits[s]);
        if (v2 > 0 && fl > 0) printf("  v2 auto / GL floor: %.2fx\n", v2 / fl);
        printf("  GPU time (GL_TIME_ELAPSED per publish, auto mode): limit = the plain pack\n");
        if (gpu_copy >= 0 && gpu_copy < 1.0) { /* llvmpipe: its timer queries measure nothing */
            printf("  (this driver's timer queries report %.1f us for the pack: n/a)\n", gpu_copy);
            gpu_copy = gpu_rgb = gpu_cc = gpu_depth = -1;
        }
        line("plain pack (RGBA copy)", gpu_copy, gpu_copy);
        line("compute copy (RGBA, same bytes), x the pack", gpu_cc, gpu_copy);
        /* Issue 23: <= max(3x the D2D floor, 4 us at 640x360 / 10 us at 1920x1080); the
         * D2D floor is bench_vulkan_rgb's (same GPU): the fixed part here. */
        line(w == 640 ? "compute copy, x issue 23's 4 us" : "compute copy, x issue 23's 10 us",
             gpu_cc, w == 640 ? 4.0 : 10.0);
        line("RGB dispatch (target <= 1.5x)", gpu_rgb, gpu_copy);
        line("depth dispatch (linear), x the RGB dispatch", gpu_depth, gpu_rgb);
    }
    /* v1 last: it brings a CUDA context into this process. */
    for (int s = 0; s < 2; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        g_fbo = fbos[s];
        cg_gl_cuda *g = NULL;
        uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE];
        if (cg_gl_cuda_create(&g) == CG_OK && cg_gl_cuda_init(g, w, h, handle) == CG_OK)
            v1[s] = time_frames(cuda_frame, g, texs[s], n);
        else
            printf("  v1 GL->CUDA %dx%d: %s\n", w, h, g ? cg_gl_cuda_last_error(g) : "no memory");
        cg_gl_cuda_destroy(g);
        printf(" %dx%d:\n", w, h);
        line("v1 GL->CUDA registered once (map+copy+unmap+sync)", v1[s], limits[s]);
        glDeleteFramebuffers(1, &fbos[s]);
        glDeleteTextures(1, &texs[s]);
    }
    cg_egl_headless_close(ctx);
    return 0;
}
