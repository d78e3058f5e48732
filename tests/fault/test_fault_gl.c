/*
 * Allocation failures in the GL reader, on a real headless context (EGL,
 * llvmpipe here): with libcg_failalloc.so preloaded, the Nth allocation made
 * by this program's code (the reader is linked in statically; the driver
 * and libepoxy are outside the scope and never fail) fails, for every N a
 * sequence of reader calls reaches: create, a banded read (a band's
 * scratch), a resizing read (the scratch grown to the frame), the RGBA
 * readback, a depth read. Each failure
 * must be CG_E_NO_MEMORY with the game's pack state and bindings restored
 * and no GL error left; the same call retried must return the exact
 * pixels; after destroy nothing stays allocated. Exits 77 without EGL.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <epoxy/gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_egl_headless.h"
#include "cg_failalloc.h"
#include "cg_gl.h"
#include "gl_scene.h"

enum { W = 37, H = 19, DW = 20, DH = 10 };
static const uint8_t k_clear[3] = {10, 20, 30};
static gl_quad g_q[2];
static gl_scene g_s;
static cg_failalloc_api fa;

typedef struct game_state {
    GLint align, row_length, read_fbo, pack_buffer, tex2d;
} game_state;

static void query(game_state *g)
{
    glGetIntegerv(GL_PACK_ALIGNMENT, &g->align);
    glGetIntegerv(GL_PACK_ROW_LENGTH, &g->row_length);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &g->read_fbo);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &g->pack_buffer);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &g->tex2d);
}

/* The reader calls of one frame, as the JNI layer makes them; step k of
 * the sequence, on reader *r (created by step 0). */
enum { STEPS = 5 };

static cg_status step(int k, cg_gl_reader **r, uint8_t *rgb, size_t rgb_len, float *depth)
{
    cg_gl_color_request resize = {g_s.color, W, H, DW, DH, CG_FILTER_NEAREST, {0, 0, 0}};
    cg_gl_color_request same = {g_s.color, W, H, W, H, CG_FILTER_NEAREST, {1, 3, 2}};
    const uint8_t *px = NULL;
    switch (k) {
    case 0: {
        cg_gl_reader_config cfg = {.ring = 0, .pack = CG_GL_PACK_BANDS, .band_bytes = 4 * W * 4};
        return cg_gl_reader_create(&cfg, r);
    }
    case 1: return cg_gl_read_color(*r, &same, rgb, rgb_len, NULL); /* a band's scratch */
    case 2: return cg_gl_read_color(*r, &resize, rgb, rgb_len, NULL); /* grown to the frame */
    case 3: return cg_gl_read_rgba(*r, g_s.color, W, H, &px);
    default: return cg_gl_read_depth(*r, g_s.depth, W, H, NULL, depth, (size_t)W * H);
    }
}

/* Step k's output against the scene (colour steps) or the cleared depth. */
static void check_output(int k, const uint8_t *rgb, const float *depth)
{
    if (k == 1 || k == 2) {
        int dw = k == 2 ? DW : W, dh = k == 2 ? DH : H;
        for (int y = 0; y < dh; y++)
            for (int x = 0; x < dw; x++) {
                uint8_t e[3];
                gl_scene_expect_rgb(k_clear, g_q, 2, x * W / dw, y * H / dh, e);
                const uint8_t *g = rgb + ((size_t)y * (size_t)dw + (size_t)x) * 3;
                /* step 1 draws the cursor: only its pixels may differ */
                int cursor = k == 1 && x >= 3 && x < 3 + CG_CURSOR_SIZE && (H - 1 - y) >= 2 &&
                             (H - 1 - y) < 2 + CG_CURSOR_SIZE;
                CHECK(cursor || memcmp(g, e, 3) == 0, "step %d pixel (%d,%d) %u,%u,%u", k, x, y,
                      g[0], g[1], g[2]);
            }
    }
    if (k == 4) {
        for (int i = 0; i < W * H; i++) CHECK(depth[i] == 0.0f, "depth %d = %g", i, (double)depth[i]);
    }
}

int main(void)
{
    CHECK(cg_failalloc_load(&fa) == 0, "run with LD_PRELOAD=libcg_failalloc.so (ctest does)");
    char why[256];
    cg_egl_headless *ctx = NULL;
    if (cg_egl_headless_open(&ctx, why, sizeof why) != 0) {
        fprintf(stderr, "SKIP: %s\n", why);
        return 77;
    }
    CHECK(gl_scene_create(&g_s, W, H) == 0, "scene");
    g_q[0] = (gl_quad){0, 0, 19, 10, {255, 0, 0}, 0};
    g_q[1] = (gl_quad){12, 6, 37, 19, {0, 255, 0}, 0};
    CHECK(gl_scene_draw_color(&g_s, k_clear, g_q, 2) == 0, "draw");
    CHECK(gl_scene_draw_depth(&g_s, NULL, 0, 0.1, 100.0, 0) == 0, "depth");
    /* The game's state: odd pack values and its own bindings. */
    GLuint pbo;
    glGenBuffers(1, &pbo);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 8);
    glPixelStorei(GL_PACK_ROW_LENGTH, 100);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, g_s.fbo);
    game_state before, after;
    query(&before);

    static uint8_t rgb[W * H * 3];
    static float depth[W * H];
    CHECK(fa.arm(0, "exe") == 0, "arm"); /* start counting */
    int n = 1, failures = 0;
    for (;; n++) {
        const long base = fa.live();
        cg_gl_reader *r = NULL;
        CHECK(fa.arm(n, "exe") == 0, "arm");
        int failed_at = -1;
        for (int k = 0; k < STEPS; k++) {
            cg_status st = step(k, &r, rgb, sizeof rgb, depth);
            if (fa.fired() && failed_at < 0) {
                failed_at = k;
                fa.disarm();
                CHECK(st == CG_E_NO_MEMORY, "allocation %d failed in step %d: status %s (%s)", n,
                      k, cg_strerror(st), r ? cg_gl_reader_last_error(r) : "no reader");
                CHECK(k != 0 || r == NULL, "create failed but gave a reader");
                query(&after);
                CHECK(memcmp(&before, &after, sizeof before) == 0, "state after failing step %d", k);
                CHECK(glGetError() == GL_NO_ERROR, "GL error left by failing step %d", k);
                st = step(k, &r, rgb, sizeof rgb, depth); /* the same call again works */
            }
            CHECK(st == CG_OK, "n=%d step %d: %s (%s)", n, k, cg_strerror(st),
                  r ? cg_gl_reader_last_error(r) : "no reader");
            check_output(k, rgb, depth);
            query(&after);
            CHECK(memcmp(&before, &after, sizeof before) == 0, "state after step %d", k);
        }
        fa.disarm();
        cg_gl_reader_destroy(r);
        CHECK(fa.live() == base, "n=%d: %ld allocations left after destroy", n, fa.live() - base);
        if (failed_at < 0) break;
        failures++;
    }
    printf("GL reader: each of its %d allocations over create, banded read, resizing read, "
           "RGBA readback and depth failed in turn: CG_E_NO_MEMORY, state restored, the retry "
           "exact, nothing left after destroy\n", failures);
    CHECK(failures > 0, "no allocation seen: is the scope right?");
    glDeleteBuffers(1, &pbo);
    gl_scene_destroy(&g_s);
    cg_egl_headless_close(ctx);
    return 0;
}
