/*
 * bench_gl: GL readback cost per frame, synchronous vs the pack-buffer ring,
 * as ratios to a plain glReadPixels into client memory measured in the same
 * run (the limit: what any readback of these pixels costs).
 *
 * For each size a scene is rendered every frame (a clear and 64 quads, a
 * different colour each frame) and exactly one method is timed on it, round
 * robin, so every method sees the same kind of frame. Two situations:
 *   idle:   glFinish after rendering, then the timed read: the transfer alone;
 *   render: the timed read right after the draw calls were issued, as in a
 *           game: a synchronous read waits for the frame, the ring does not.
 * Each figure is the median over its frames (microseconds) and its ratio to
 * the limit's median in the same situation.
 *
 * Usage: bench_gl [frames per method, default 40]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <epoxy/gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cg_egl_headless.h"
#include "cg_gl.h"

enum { QUADS = 64 };

/* Methods 0 and last are plain GL; the others are cg_gl_read_color RAW
 * with a reader configured as listed (method 1: cg_gl_read_rgba). */
static const struct {
    const char *name;
    cg_gl_reader_config cfg;
} k_method[] = {
    {"glReadPixels RGBA (limit)", {0}},
    {"cg_gl_read_rgba (sync)", {0}},
    {"RAW sync default (auto)", {.pack = CG_GL_PACK_AUTO}},
    {"RAW sync pack=rgba", {.pack = CG_GL_PACK_RGBA}},
    {"RAW sync pack=rgb", {.pack = CG_GL_PACK_RGB}},
    {"RAW sync pack=bands 256K", {.pack = CG_GL_PACK_BANDS}},
    {"RAW sync pack=bands 64K", {.pack = CG_GL_PACK_BANDS, .band_bytes = 64 * 1024}},
    {"RAW sync pack=pbo", {.pack = CG_GL_PACK_PBO}},
    {"RAW sync pack=pbo_rgb", {.pack = CG_GL_PACK_PBO_RGB}},
    {"RAW ring 3", {.ring = 3}},
    {"glReadPixels RGB (driver packs)", {0}},
};
#define METHODS ((int)(sizeof k_method / sizeof k_method[0]))

typedef struct bench_target {
    GLuint fbo, tex, prog, vao, vbo;
    GLint u_color;
    int w, h;
} bench_target;

static int target_create(bench_target *t, int w, int h)
{
    static const char *vs = "#version 330 core\n"
                            "layout(location = 0) in vec2 p;\n"
                            "void main() { gl_Position = vec4(p, 0.0, 1.0); }\n";
    static const char *fs = "#version 330 core\n"
                            "uniform vec4 color;\n"
                            "out vec4 o;\n"
                            "void main() { o = color; }\n";
    char log[512];
    memset(t, 0, sizeof *t);
    t->prog = cg_gl_build_program(vs, fs, log, sizeof log);
    if (!t->prog) {
        fprintf(stderr, "bench_gl: shader: %s\n", log);
        return 1;
    }
    t->u_color = glGetUniformLocation(t->prog, "color");
    glGenTextures(1, &t->tex);
    glBindTexture(GL_TEXTURE_2D, t->tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenFramebuffers(1, &t->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t->tex, 0);
    /* Quads scattered over the frame, two triangles each. */
    float *v = malloc(QUADS * 12 * sizeof *v);
    if (!v) return 1;
    for (int i = 0; i < QUADS; i++) {
        float x = -1.0f + 0.25f * (float)(i % 8), y = -1.0f + 0.25f * (float)(i / 8);
        const float q[12] = {x, y, x + 0.2f, y, x + 0.2f, y + 0.2f,
                             x, y, x + 0.2f, y + 0.2f, x, y + 0.2f};
        memcpy(v + i * 12, q, sizeof q);
    }
    glGenVertexArrays(1, &t->vao);
    glBindVertexArray(t->vao);
    glGenBuffers(1, &t->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, t->vbo);
    glBufferData(GL_ARRAY_BUFFER, QUADS * 12 * (GLsizeiptr)sizeof *v, v, GL_STATIC_DRAW);
    free(v);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    glBindVertexArray(0);
    t->w = w;
    t->h = h;
    return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE ? 0 : 1;
}

static void target_destroy(bench_target *t)
{
    glDeleteFramebuffers(1, &t->fbo);
    glDeleteTextures(1, &t->tex);
    glDeleteBuffers(1, &t->vbo);
    glDeleteVertexArrays(1, &t->vao);
    glDeleteProgram(t->prog);
}

/* Issue one frame's draw calls; leaves the target bound for reading. */
static void render(const bench_target *t, int frame)
{
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glViewport(0, 0, t->w, t->h);
    float c = (float)(frame % 200) / 200.0f;
    glClearColor(c, 0.5f, 1.0f - c, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(t->prog);
    glBindVertexArray(t->vao);
    for (int i = 0; i < QUADS; i++) {
        glUniform4f(t->u_color, (float)i / QUADS, c, 0.3f, 1.0f);
        glDrawArrays(GL_TRIANGLES, i * 6, 6);
    }
    glBindVertexArray(0);
    glUseProgram(0);
}

static int bench_size(int w, int h, int frames_per_method)
{
    bench_target t;
    if (target_create(&t, w, h)) return 1;
    size_t rgba_len = (size_t)w * (size_t)h * 4, rgb_len = (size_t)w * (size_t)h * 3;
    /* Each method writes its own output buffer, as a caller reusing one
     * buffer per frame would: on the NVIDIA driver glReadPixels into memory
     * the CPU has just written (dirty in cache) costs up to 1.8x more at
     * 640x360 than into memory that was only read, so a shared buffer would
     * charge one method for its neighbour's writes. */
    uint8_t *client = malloc(rgba_len), *rgb_all = malloc(rgb_len * (size_t)METHODS);
    cg_gl_reader *rd[sizeof k_method / sizeof k_method[0]] = {NULL};
    if (!client || !rgb_all) return 1;
    for (int m = 1; m + 1 < METHODS; m++) {
        if (cg_gl_reader_create(&k_method[m].cfg, &rd[m]) != CG_OK) return 1;
    }
    int n = frames_per_method;
    double *samples = malloc(sizeof(double) * (size_t)n * METHODS * 2);
    if (!samples) return 1;
    cg_gl_color_request rq = {t.tex, w, h, w, h, CG_FILTER_NEAREST, {0, 0, 0}};
    int warmup = 2 * METHODS;
    for (int situation = 0; situation < 2; situation++) {
        for (int f = -warmup; f < n * METHODS; f++) {
            int m = (f + warmup) % METHODS;
            render(&t, f);
            if (situation == 0) glFinish();
            cg_status st = CG_OK;
            uint8_t *rgb = rgb_all + rgb_len * (size_t)m;
            double t0 = bench_now_us();
            switch (m) {
            case 0:
                glBindFramebuffer(GL_READ_FRAMEBUFFER, t.fbo);
                glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, client);
                break;
            case 1: {
                const uint8_t *px = NULL;
                st = cg_gl_read_rgba(rd[1], t.tex, w, h, &px);
                break;
            }
            default: st = cg_gl_read_color(rd[m], &rq, rgb, rgb_len, NULL); break;
            case METHODS - 1: /* for reference: RGB8 straight from the driver */
                glBindFramebuffer(GL_READ_FRAMEBUFFER, t.fbo);
                glPixelStorei(GL_PACK_ALIGNMENT, 1);
                glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, rgb);
                glPixelStorei(GL_PACK_ALIGNMENT, 4);
                break;
            }
            double dt = bench_now_us() - t0;
            if (st != CG_OK) {
                fprintf(stderr, "bench_gl: %s: %s (%s)\n", k_method[m].name, cg_strerror(st),
                        cg_gl_reader_last_error(rd[m]));
                return 1;
            }
            if (f >= 0) samples[(situation * METHODS + m) * n + f / METHODS] = dt;
        }
        glFinish();
        double limit = 0;
        for (int m = 0; m < METHODS; m++) {
            double med = bench_median(samples + (situation * METHODS + m) * n, n);
            if (m == 0) limit = med;
            printf("%4dx%-5d %-7s %-30s %10.1f us %7.2fx limit\n", w, h,
                   situation ? "render" : "idle", k_method[m].name, med, med / limit);
        }
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    for (int m = 0; m < METHODS; m++) cg_gl_reader_destroy(rd[m]);
    target_destroy(&t);
    free(samples);
    free(client);
    free(rgb_all);
    return 0;
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 40;
    if (frames < 1) frames = 40;
    cg_egl_headless *ctx = NULL;
    char why[256];
    if (cg_egl_headless_open(&ctx, why, sizeof why) != 0) {
        fprintf(stderr, "bench_gl: no GL context: %s\n", why);
        return 77;
    }
    printf("bench_gl: %s\n", cg_egl_headless_describe(ctx));
    cg_gl_reader *probe = NULL;
    cg_gl_pack auto_pack = CG_GL_PACK_AUTO;
    if (cg_gl_reader_create(NULL, &probe) == CG_OK &&
        cg_gl_reader_pack_for(probe, 64, 64, 64, 64, &auto_pack) == CG_OK) {
        printf("bench_gl: GL_VENDOR %s: the default (auto) reads with pack=%s\n",
               (const char *)glGetString(GL_VENDOR), cg_gl_pack_name(auto_pack));
    }
    cg_gl_reader_destroy(probe);
    printf("bench_gl: median per frame over %d frames per figure; limit = glReadPixels RGBA "
           "into client memory, same situation, same run\n", frames);
    printf("%-10s %-7s %-30s %13s %13s\n", "size", "when", "method", "median", "ratio");
    int rc = bench_size(640, 360, frames) || bench_size(1920, 1080, frames);
    cg_egl_headless_close(ctx);
    return rc;
}
