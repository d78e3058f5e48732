/*
 * zerocopy_gl.c - GL -> CUDA zero-copy per frame on the GPU machine. Each
 * frame the "game" clears an FBO-attached RGBA8 texture to a new colour
 * (outside the timing); the figure times the capture until the shared CUDA
 * buffer is complete:
 *   registered once:         map + copy + unmap + sync (cg_gl_cuda_capture)
 *   register every frame:    the predecessor's pattern: register, map, copy,
 *                            unmap, unregister
 *   CPU readback:            glReadPixels into client memory + cg_convert
 *                            to RAW RGB (the CPU path's work)
 * Limit: a plain D2D cudaMemcpy of the same bytes (zerocopy_util.h).
 * Usage: bench_zerocopy_gl [frames]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <epoxy/gl.h>

#include <stdio.h>
#include <stdlib.h>

#include "bench_gl_game.h"
#include "cg_egl_headless.h"
#include "cg_frame.h"
#include "cg_gl_cuda.h"
#include "zerocopy_util.h"

static GLuint g_fbo;

static void game_clear(int f)
{
    bench_gl_game_frame(g_fbo, f);
}

static double zerocopy(GLuint tex, int w, int h, int every_frame, int n)
{
    cg_gl_cuda *g = NULL;
    cg_gl_cuda_create(&g);
    uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE];
    if (cg_gl_cuda_init(g, w, h, handle) != CG_OK) {
        printf("init: %s\n", cg_gl_cuda_last_error(g));
        cg_gl_cuda_destroy(g);
        return -1;
    }
    cg_gl_cuda_set_register_every_frame(g, every_frame);
    double *t = malloc(sizeof(double) * (size_t)n);
    cg_gl_cuda_frame fr = {tex, {0, 0, 0}};
    for (int i = -10; i < n; i++) {
        game_clear(i + 10);
        double a = bench_now_us();
        cg_status st = cg_gl_cuda_capture(g, &fr);
        if (i >= 0) t[i] = bench_now_us() - a;
        if (st != CG_OK) printf("capture: %s\n", cg_gl_cuda_last_error(g));
    }
    double m = bench_median(t, n);
    free(t);
    cg_gl_cuda_destroy(g);
    return m;
}

static double cpu_readback(int w, int h, int n)
{
    size_t rgba = (size_t)w * (size_t)h * 4, rgb = (size_t)w * (size_t)h * 3;
    uint8_t *host = malloc(rgba), *out = malloc(rgb);
    double *t = malloc(sizeof(double) * (size_t)n);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    for (int i = -10; i < n; i++) {
        game_clear(i + 10);
        double a = bench_now_us();
        glBindFramebuffer(GL_READ_FRAMEBUFFER, g_fbo);
        glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, host);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        zc_rgba_to_raw(host, w, h, 0, out);
        if (i >= 0) t[i] = bench_now_us() - a;
    }
    double m = bench_median(t, n);
    free(t);
    free(host);
    free(out);
    return m;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 300;
    if (n < 11) n = 11;
    zc_skip_without_cuda("bench_zerocopy_gl");
    cg_egl_headless *ctx = NULL;
    char why[256];
    if (cg_egl_headless_open(&ctx, why, sizeof why) != 0) {
        printf("bench_zerocopy_gl: skipped: %s\n", why);
        return 0;
    }
    printf("bench_zerocopy_gl: %s, %d frames per figure; limit = plain D2D cudaMemcpy of the "
           "frame (same run)\n",
           cg_egl_headless_describe(ctx), n);
    static const int sizes[2][2] = {{640, 360}, {1920, 1080}};
    for (int s = 0; s < 2; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        GLuint tex;
        glGenTextures(1, &tex);
        glBindTexture(GL_TEXTURE_2D, tex);
        glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
        glBindTexture(GL_TEXTURE_2D, 0);
        glGenFramebuffers(1, &g_fbo);
        glBindFramebuffer(GL_FRAMEBUFFER, g_fbo);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);

        double limit = zc_limit_d2d_us((size_t)w * (size_t)h * 4, n);
        double cpu = cpu_readback(w, h, n);
        double once = zerocopy(tex, w, h, 0, n);
        double every = zerocopy(tex, w, h, 1, n);
        printf(" %dx%d: limit (D2D cudaMemcpy + sync) %.1f us\n", w, h, limit);
        zc_print("CPU readback: glReadPixels + RAW convert", w, h, cpu, limit, 0);
        zc_print("GL->CUDA registered once: map+copy+unmap", w, h, once, limit, cpu);
        zc_print("GL->CUDA register every frame (predecessor)", w, h, every, limit, cpu);
        if (once > 0) printf("  register-every-frame / registered-once: %.2fx\n", every / once);
        glDeleteFramebuffers(1, &g_fbo);
        glDeleteTextures(1, &tex);
    }
    cg_egl_headless_close(ctx);
    return 0;
}
