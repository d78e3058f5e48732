/*
 * test_cuda_gl.c - GL -> CUDA on the NVIDIA EGL device: a texture filled
 * with a known pattern (changing every frame) is captured into the shared
 * buffer and read back with cudaMemcpy, byte-exact, in GL row order; the
 * cursor lands where docs/wire-format.md says; a second texture id is
 * registered again; a texture that is too small or not RGBA8 is refused;
 * register-every-frame gives the same bytes; re-initialisation at another
 * size works. Exits 77 without a CUDA device or an EGL context.
 */
#include <epoxy/gl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_egl_headless.h"
#include "cg_frame.h"
#include "cg_gl_cuda.h"
#include "cursor_spec.h"
#include "cuda_probe.h"
#include "zc_test.h"

static int failures;

static GLuint texture(int w, int h, GLenum ifmt, const uint8_t *px)
{
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexImage2D(GL_TEXTURE_2D, 0, (GLint)ifmt, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    return t;
}

static void upload(GLuint t, int w, int h, const uint8_t *px)
{
    glBindTexture(GL_TEXTURE_2D, t);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glBindTexture(GL_TEXTURE_2D, 0);
    glFinish();
}

/* Expected RGBA buffer with the cursor, from the spec's bitmap
 * (tests/common/cursor_spec.h): nothing when the hot spot is outside,
 * else bitmap row r at buffer row h-1-(cy+r), clipped. */
static void draw_expected_cursor(uint8_t *buf, int w, int h, int cx, int cy)
{
    if (cx < 0 || cy < 0 || cx >= w || cy >= h) return;
    for (int r = 0; r < SPEC_CURSOR_SIZE; r++)
        for (int c = 0; c < SPEC_CURSOR_SIZE; c++) {
            char k = spec_cursor[r][c];
            int x = cx + c, ytop = cy + r;
            if (k == '.' || x >= w || ytop >= h) continue;
            uint8_t *q = buf + ((size_t)(h - 1 - ytop) * (size_t)w + (size_t)x) * 4;
            uint8_t v = k == 'W' ? 255 : 0;
            q[0] = q[1] = q[2] = v;
            q[3] = 255;
        }
}

static int compare(cg_gl_cuda *g, const uint8_t *want, int w, int h, uint8_t *got)
{
    size_t n = (size_t)w * (size_t)h * 4;
    memset(got, 0x33, n);
    cudaMemcpy(got, cg_gl_cuda_shared_ptr(g), n, cudaMemcpyDeviceToHost);
    return memcmp(want, got, n) == 0;
}

static void run_size(int w, int h, int frames)
{
    cg_gl_cuda *g = NULL;
    cg_gl_cuda_create(&g);
    uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE];
    cg_status st = cg_gl_cuda_init(g, w, h, handle);
    CHECK(st == CG_OK, "init %dx%d: %s %s", w, h, cg_status_name(st), cg_gl_cuda_last_error(g));
    if (st != CG_OK) {
        cg_gl_cuda_destroy(g);
        return;
    }
    CHECK(cg_gl_cuda_init(g, w, h, handle) == CG_E_ALREADY_INITIALIZED, "double init");
    size_t n = (size_t)w * (size_t)h * 4;
    uint8_t *want = malloc(n), *got = malloc(n);
    /* The game's texture is larger than the capture: the bottom-left region. */
    GLuint big = texture(w + 3, h + 2, GL_RGBA8, NULL);
    GLuint tex = texture(w, h, GL_RGBA8, NULL);
    int bad = 0;
    for (int f = 0; f < frames && !bad; f++) {
        zc_pattern(want, w, h, f);
        upload(tex, w, h, want);
        cg_gl_cuda_frame fr = {tex, {0, 0, 0}};
        st = cg_gl_cuda_capture(g, &fr);
        CHECK(st == CG_OK, "capture: %s", cg_gl_cuda_last_error(g));
        bad = !compare(g, want, w, h, got);
        CHECK(!bad, "%dx%d frame %d differs", w, h, f);
    }
    /* Cursor at a few places, including partly outside. */
    int spots[4][2] = {{3, 2}, {w - 5, h - 7}, {-6, -3}, {w / 2, -10}};
    for (int i = 0; i < 4; i++) {
        zc_pattern(want, w, h, 100 + i);
        upload(tex, w, h, want);
        cg_gl_cuda_frame fr = {tex, {1, spots[i][0], spots[i][1]}};
        CHECK(cg_gl_cuda_capture(g, &fr) == CG_OK, "cursor capture");
        draw_expected_cursor(want, w, h, spots[i][0], spots[i][1]);
        CHECK(compare(g, want, w, h, got), "%dx%d cursor at (%d,%d) differs", w, h, spots[i][0],
              spots[i][1]);
    }
    /* Another texture id: registered again, bottom-left region copied. */
    uint8_t *bigpx = malloc((size_t)(w + 3) * (size_t)(h + 2) * 4);
    zc_pattern(bigpx, w + 3, h + 2, 7);
    upload(big, w + 3, h + 2, bigpx);
    for (int y = 0; y < h; y++)
        memcpy(want + (size_t)y * (size_t)w * 4, bigpx + (size_t)y * (size_t)(w + 3) * 4,
               (size_t)w * 4);
    cg_gl_cuda_frame fb = {big, {0, 0, 0}};
    CHECK(cg_gl_cuda_capture(g, &fb) == CG_OK, "larger texture: %s", cg_gl_cuda_last_error(g));
    CHECK(compare(g, want, w, h, got), "larger texture: region differs");
    /* Register every frame (the predecessor's pattern): same bytes. */
    cg_gl_cuda_set_register_every_frame(g, 1);
    zc_pattern(want, w, h, 9);
    upload(tex, w, h, want);
    cg_gl_cuda_frame ft = {tex, {0, 0, 0}};
    CHECK(cg_gl_cuda_capture(g, &ft) == CG_OK && compare(g, want, w, h, got),
          "register-every-frame capture");
    cg_gl_cuda_set_register_every_frame(g, 0);
    /* Refused textures; the context stays usable. */
    GLuint small = texture(w > 1 ? w - 1 : 1, h, GL_RGBA8, NULL);
    cg_gl_cuda_frame fs = {small, {0, 0, 0}};
    if (w > 1) CHECK(cg_gl_cuda_capture(g, &fs) == CG_E_BAD_TEXTURE, "too small texture");
    GLuint f16 = texture(w, h, GL_RGBA16F, NULL);
    cg_gl_cuda_frame ff = {f16, {0, 0, 0}};
    CHECK(cg_gl_cuda_capture(g, &ff) == CG_E_BAD_TEXTURE, "RGBA16F texture");
    cg_gl_cuda_frame fn = {424242, {0, 0, 0}};
    CHECK(cg_gl_cuda_capture(g, &fn) == CG_E_BAD_TEXTURE, "not a texture");
    CHECK(cg_gl_cuda_capture(g, &ft) == CG_OK && compare(g, want, w, h, got), "usable afterwards");
    printf("GL->CUDA %dx%d: %d frames, cursor, re-registration %s\n", w, h, frames,
           bad ? "DIFFER" : "byte-exact");
    GLuint del[4] = {big, tex, small, f16};
    cg_gl_cuda_destroy(g);
    glDeleteTextures(4, del);
    free(bigpx);
    free(want);
    free(got);
}

int main(void)
{
    cuda_probe_or_skip();
    cg_egl_headless *ctx = NULL;
    char why[512];
    if (cg_egl_headless_open(&ctx, why, sizeof why) != 0) {
        printf("SKIP: no EGL context: %s\n", why);
        return 77;
    }
    printf("%s\n", cg_egl_headless_describe(ctx));
    cg_gl_cuda *g = NULL;
    cg_gl_cuda_create(&g);
    cg_gl_cuda_frame f0 = {1, {0, 0, 0}};
    CHECK(cg_gl_cuda_capture(g, &f0) == CG_E_NOT_INITIALIZED, "capture before init");
    cg_gl_cuda_destroy(g);
    run_size(640, 360, 30);
    run_size(31, 17, 5);      /* re-initialised at another, odd size */
    run_size(1920, 1080, 10);
    cg_egl_headless_close(ctx);
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
