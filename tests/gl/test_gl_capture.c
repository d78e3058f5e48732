/*
 * GL capture on a real headless context (EGL; Mesa llvmpipe here, the
 * NVIDIA EGL device where present). Scenes are rendered as a game renders
 * its main target; expected pixels come from the scene's rectangles
 * (gl_scene_expect_*), expected depth from the eye distances the quads were
 * placed at. Exits 77 when no EGL context can be made.
 *
 * Depth tolerances: raw window depth within 1e-6 of the projection's value
 * (DEPTH_COMPONENT32F, float math in GL); linearised depth (eye distance /
 * far) within 1e-6 for the [0,1] clip range and 1e-4 for [-1,1], whose
 * window transform (z+1)/2 loses float precision near the far plane.
 *
 * Check runs in CK_NOFORK mode: a forked child must not inherit a GL context.
 */
#include <check.h>

#include "check_tcase.h"
#include <epoxy/gl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg_egl_headless.h"
#include "cursor_spec.h"
#include "cg_gl.h"
#include "gl_hostile.h"
#include "gl_scene.h"

static cg_egl_headless *g_ctx;

static const uint8_t k_clear[3] = {10, 20, 30};

/* Three quads, clipped by GL where the target is smaller. */
static int scene_quads(int w, int h, gl_quad *q)
{
    const gl_quad a = {0, 0, (w + 1) / 2, (h + 1) / 2, {255, 0, 0}, 0};
    const gl_quad b = {w / 3, h / 3, w, h, {0, 255, 0}, 0};
    const gl_quad c = {w / 4, 0, w / 4 + 1, h, {1, 2, 253}, 0}; /* one column */
    q[0] = a;
    q[1] = b;
    q[2] = c;
    return 3;
}

/* A reader with a ring of `ring` pack buffers (0: synchronous), reading
 * synchronously with `pack` in bands of `band_bytes` (0: default). */
static cg_gl_reader *new_reader_with(int ring, cg_gl_pack pack, size_t band_bytes)
{
    cg_gl_reader *r = NULL;
    cg_gl_reader_config cfg = {.ring = ring, .pack = pack, .band_bytes = band_bytes};
    ck_assert_int_eq(cg_gl_reader_create(&cfg, &r), CG_OK);
    ck_assert_ptr_nonnull(r);
    return r;
}

static cg_gl_reader *new_reader(int ring)
{
    return new_reader_with(ring, CG_GL_PACK_AUTO, 0);
}

/* A w x h target with the standard scene drawn; returns the quad count. */
static int standard_scene(gl_scene *s, int w, int h, gl_quad q[3])
{
    ck_assert_int_eq(gl_scene_create(s, w, h), 0);
    int n = scene_quads(w, h, q);
    ck_assert_int_eq(gl_scene_draw_color(s, k_clear, q, n), 0);
    return n;
}

/* got (dst_w x dst_h RGB, bottom-up) against the scene rendered at fw x fh,
 * through the wire format's nearest mapping. */
static void expect_scene(const uint8_t *got, int dst_w, int dst_h, const gl_quad *q, int n,
                         int fw, int fh)
{
    for (int y = 0; y < dst_h; y++) {
        for (int x = 0; x < dst_w; x++) {
            int sx = (int)((long long)x * fw / dst_w), sy = (int)((long long)y * fh / dst_h);
            uint8_t e[3];
            gl_scene_expect_rgb(k_clear, q, n, sx, sy, e);
            const uint8_t *g = got + ((size_t)y * (size_t)dst_w + (size_t)x) * 3;
            ck_assert_msg(memcmp(g, e, 3) == 0,
                          "%dx%d->%dx%d pixel (%d,%d): got %u,%u,%u want %u,%u,%u", fw, fh,
                          dst_w, dst_h, x, y, g[0], g[1], g[2], e[0], e[1], e[2]);
        }
    }
}

/* Render the standard scene and compare a capture (dst_w x dst_h, nearest)
 * with the analytic expectation. */
static void check_color(cg_gl_reader *r, gl_scene *s, int dst_w, int dst_h)
{
    gl_quad q[3];
    int n = scene_quads(s->w, s->h, q);
    ck_assert_int_eq(gl_scene_draw_color(s, k_clear, q, n), 0);
    size_t len = (size_t)dst_w * (size_t)dst_h * 3;
    uint8_t *got = malloc(len);
    ck_assert_ptr_nonnull(got);
    cg_gl_color_request rq = {s->color, s->w, s->h, dst_w, dst_h, CG_FILTER_NEAREST, {0, 0, 0}};
    int lag = -1;
    cg_status st = cg_gl_read_color(r, &rq, got, len, &lag);
    ck_assert_msg(st == CG_OK, "read %dx%d -> %dx%d: %s (%s)", s->w, s->h, dst_w, dst_h,
                  cg_strerror(st), cg_gl_reader_last_error(r));
    ck_assert_int_eq(lag, 0);
    expect_scene(got, dst_w, dst_h, q, n, s->w, s->h);
    free(got);
}

static const int k_sizes[][2] = {{1, 1}, {37, 19}, {64, 64}, {640, 360}, {17, 1}, {1, 23}, {2, 3}};

START_TEST(color_exact_sizes)
{
    gl_scene s;
    ck_assert_int_eq(gl_scene_create(&s, k_sizes[_i][0], k_sizes[_i][1]), 0);
    cg_gl_reader *r = new_reader(0);
    check_color(r, &s, s.w, s.h);
    cg_gl_reader_destroy(r);
    gl_scene_destroy(&s);
}
END_TEST

/* The unconverted RGBA readback jni/ uses: bottom-up, alpha 255. */
START_TEST(rgba_readback)
{
    gl_scene s;
    gl_quad q[3];
    int n = standard_scene(&s, 29, 13, q);
    cg_gl_reader *r = new_reader(0);
    const uint8_t *px = NULL;
    ck_assert_int_eq(cg_gl_read_rgba(r, s.color, s.w, s.h, &px), CG_OK);
    for (int y = 0; y < s.h; y++) {
        for (int x = 0; x < s.w; x++) {
            uint8_t e[4] = {0, 0, 0, 255};
            gl_scene_expect_rgb(k_clear, q, n, x, y, e);
            ck_assert_mem_eq(px + ((size_t)y * (size_t)s.w + (size_t)x) * 4, e, 4);
        }
    }
    ck_assert_int_eq(cg_gl_read_rgba(r, 0, s.w, s.h, &px), CG_E_BAD_TEXTURE);
    ck_assert_int_eq(cg_gl_read_rgba(r, s.color, 0, s.h, &px), CG_E_INVALID_ARG);
    cg_gl_reader_destroy(r);
    gl_scene_destroy(&s);
}
END_TEST

START_TEST(color_resize_targets)
{
    gl_scene s;
    ck_assert_int_eq(gl_scene_create(&s, 37, 19), 0);
    cg_gl_reader *r = new_reader(0);
    check_color(r, &s, 20, 10);  /* down */
    check_color(r, &s, 80, 41);  /* up, odd */
    check_color(r, &s, 1, 1);
    cg_gl_reader_destroy(r);
    gl_scene_destroy(&s);
}
END_TEST

/* The same texture name reallocated at another size between calls. */
START_TEST(texture_resized_between_calls)
{
    gl_scene s;
    ck_assert_int_eq(gl_scene_create(&s, 64, 32), 0);
    cg_gl_reader *r = new_reader(0);
    check_color(r, &s, 64, 32);
    ck_assert_int_eq(gl_scene_resize(&s, 33, 45), 0);
    check_color(r, &s, 33, 45);
    ck_assert_int_eq(gl_scene_resize(&s, 128, 72), 0);
    check_color(r, &s, 128, 72);
    cg_gl_reader_destroy(r);
    gl_scene_destroy(&s);
}
END_TEST

/* The game deletes its texture and makes a new one of the same size that
 * gets the same name (NVIDIA hands a freed name out again at once; here the
 * name is bound again by hand, which a compatibility context allows): the
 * read must give the new texture's pixels, never the deleted one's (a
 * cached framebuffer attachment kept reading the deleted texture). */
START_TEST(texture_recreated_under_its_name)
{
    char why[256];
    cg_egl_headless *c = NULL;
    ck_assert_msg(cg_egl_headless_open_compat(&c, why, sizeof why) == 0,
                  "a compatibility context (to reuse a texture name by hand): %s", why);
    cg_gl_reader *r = new_reader(0);
    enum { W = 8, H = 4 };
    uint8_t px[W * H * 4], got[W * H * 3];
    GLuint tex = 0;
    for (int round = 0; round < 2; round++) {
        if (round == 0) {
            glGenTextures(1, &tex);
        } else {
            glDeleteTextures(1, &tex);
            while (glGetError() != GL_NO_ERROR) {
            }
        }
        glBindTexture(GL_TEXTURE_2D, tex); /* round 1: a new object under the old name */
        if (round == 1 && (glGetError() != GL_NO_ERROR || !glIsTexture(tex))) {
            GLuint fresh = 0;
            glGenTextures(1, &fresh);
            ck_assert_msg(fresh == tex, "this context neither binds a freed name nor hands it "
                                        "out again (got %u for %u): the check cannot run",
                          fresh, tex);
            glBindTexture(GL_TEXTURE_2D, fresh);
        }
        for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(round ? 200 - i : 3 * i + 1);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, W, H, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glBindTexture(GL_TEXTURE_2D, 0);
        ck_assert_int_eq(glGetError(), GL_NO_ERROR);
        cg_gl_color_request rq = {tex, W, H, W, H, CG_FILTER_NEAREST, {0, 0, 0}};
        int lag = -1;
        ck_assert_int_eq(cg_gl_read_color(r, &rq, got, sizeof got, &lag), CG_OK);
        for (int i = 0; i < W * H; i++) /* RAW: bottom-up, as uploaded */
            ck_assert_msg(memcmp(got + i * 3, px + i * 4, 3) == 0,
                          "round %d pixel %d: got %u,%u,%u want %u,%u,%u", round, i, got[i * 3],
                          got[i * 3 + 1], got[i * 3 + 2], px[i * 4], px[i * 4 + 1], px[i * 4 + 2]);
    }
    glDeleteTextures(1, &tex);
    cg_gl_reader_destroy(r);
    cg_egl_headless_close(c);
    ck_assert_int_eq(cg_egl_headless_make_current(g_ctx), 0);
}
END_TEST

/* Frame k has clear color (k, 2k, 3k) and no quads; with a ring of 3 the
 * call that renders frame k returns frame max(0, k - 2). */
START_TEST(ring_returns_older_frames)
{
    gl_scene s;
    ck_assert_int_eq(gl_scene_create(&s, 31, 17), 0);
    cg_gl_reader *r = new_reader(3);
    uint8_t got[16 * 9 * 3];
    for (int k = 0; k < 12; k++) {
        const uint8_t c[3] = {(uint8_t)k, (uint8_t)(2 * k), (uint8_t)(3 * k)};
        ck_assert_int_eq(gl_scene_draw_color(&s, c, NULL, 0), 0);
        cg_gl_color_request rq = {s.color, s.w, s.h, 16, 9, CG_FILTER_NEAREST, {0, 0, 0}};
        int lag = -1;
        cg_status st = cg_gl_read_color(r, &rq, got, sizeof got, &lag);
        ck_assert_msg(st == CG_OK, "%s", cg_gl_reader_last_error(r));
        int want = k < 2 ? 0 : k - 2;
        ck_assert_int_eq(lag, k - want);
        for (size_t i = 0; i < sizeof got; i += 3) {
            ck_assert_uint_eq(got[i], (unsigned)want);
            ck_assert_uint_eq(got[i + 1], (unsigned)(2 * want));
            ck_assert_uint_eq(got[i + 2], (unsigned)(3 * want));
        }
    }
    cg_gl_reader_destroy(r);
    gl_scene_destroy(&s);
}
END_TEST

/* A ring keeps working across a texture size change (same texture name). */
START_TEST(ring_matches_sync_content)
{
    gl_scene s;
    ck_assert_int_eq(gl_scene_create(&s, 40, 24), 0);
    cg_gl_reader *r = new_reader(2);
    /* Static scene: every frame is the same, so the ring's output must equal
     * the analytic scene even though it is one frame behind. */
    const int sizes[2][2] = {{40, 24}, {23, 11}};
    for (int z = 0; z < 2; z++) {
        ck_assert_int_eq(gl_scene_resize(&s, sizes[z][0], sizes[z][1]), 0);
        for (int k = 0; k < 3; k++) {
            gl_quad q[3];
            int n = scene_quads(s.w, s.h, q);
            ck_assert_int_eq(gl_scene_draw_color(&s, k_clear, q, n), 0);
            uint8_t got[40 * 24 * 3];
            cg_gl_color_request rq = {s.color, s.w, s.h, s.w, s.h, CG_FILTER_NEAREST, {0, 0, 0}};
            ck_assert_int_eq(cg_gl_read_color(r, &rq, got, sizeof got, NULL), CG_OK);
            /* The first call after the resize returns the previous frame,
             * rendered at the old size, resized to the new target. */
            int fw = s.w, fh = s.h;
            if (z == 1 && k == 0) {
                fw = sizes[0][0];
                fh = sizes[0][1];
                n = scene_quads(fw, fh, q);
            }
            expect_scene(got, s.w, s.h, q, n, fw, fh);
        }
    }
    cg_gl_reader_destroy(r);
    gl_scene_destroy(&s);
}
END_TEST

static void check_depth(int zero_to_one)
{
    const double n = 0.1, f = 100.0;
    gl_scene s;
    ck_assert_int_eq(gl_scene_create(&s, 37, 19), 0);
    const gl_quad q[] = {
        {0, 0, 7, 19, {0}, 0.1},     {7, 0, 14, 19, {0}, 1.0}, {14, 0, 21, 19, {0}, 2.5},
        {21, 0, 28, 10, {0}, 10.0},  {28, 0, 33, 19, {0}, 50.0}, {21, 10, 28, 19, {0}, 99.0},
    }; /* columns 33..36 keep the cleared far depth */
    int nq = (int)(sizeof q / sizeof q[0]);
    int rc = gl_scene_draw_depth(&s, q, nq, n, f, zero_to_one);
    /* rc 2 (no clip control) cannot happen here: main() reports the
     * depth01 case SKIPPED before it runs on such a context. */
    ck_assert_int_eq(rc, 0);
    cg_gl_reader *r = new_reader(0);
    float raw[37 * 19], lin[37 * 19];
    cg_status st = cg_gl_read_depth(r, s.depth, s.w, s.h, NULL, raw, 37 * 19);
    ck_assert_msg(st == CG_OK, "%s", cg_gl_reader_last_error(r));
    cg_gl_depth_linear l = {(float)n, (float)f, zero_to_one};
    ck_assert_int_eq(cg_gl_read_depth(r, s.depth, s.w, s.h, &l, lin, 37 * 19), CG_OK);
    double tol_lin = zero_to_one ? 1e-6 : 1e-4;
    for (int y = 0; y < s.h; y++) {
        for (int x = 0; x < s.w; x++) {
            double z = gl_scene_expect_eye_z(q, nq, f, x, y);
            double d = gl_scene_window_depth(z, n, f, zero_to_one);
            size_t i = (size_t)y * (size_t)s.w + (size_t)x;
            ck_assert_msg(fabs(raw[i] - d) <= 1e-6, "raw (%d,%d) got %.9g want %.9g", x, y,
                          (double)raw[i], d);
            ck_assert_msg(fabs(lin[i] - z / f) <= tol_lin, "lin (%d,%d) got %.9g want %.9g",
                          x, y, (double)lin[i], z / f);
        }
    }
    cg_gl_reader_destroy(r);
    gl_scene_destroy(&s);
}

START_TEST(depth_neg_one_to_one) { check_depth(0); }
END_TEST

START_TEST(depth_zero_to_one) { check_depth(1); }
END_TEST

/* Everything the reader touches, as the game might have left it. */
typedef struct game_state {
    GLint read_fbo, draw_fbo, pack_buffer, tex2d, active, align, row_length, skip_rows,
        skip_pixels, swap_bytes, read_buffer, draw_buffer, unit0_tex;
} game_state;

static void query_state(game_state *g)
{
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &g->read_fbo);
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &g->draw_fbo);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &g->pack_buffer);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &g->active);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &g->tex2d);
    glGetIntegerv(GL_PACK_ALIGNMENT, &g->align);
    glGetIntegerv(GL_PACK_ROW_LENGTH, &g->row_length);
    glGetIntegerv(GL_PACK_SKIP_ROWS, &g->skip_rows);
    glGetIntegerv(GL_PACK_SKIP_PIXELS, &g->skip_pixels);
    glGetIntegerv(GL_PACK_SWAP_BYTES, &g->swap_bytes);
    glGetIntegerv(GL_READ_BUFFER, &g->read_buffer);
    glGetIntegerv(GL_DRAW_BUFFER, &g->draw_buffer);
    glActiveTexture(GL_TEXTURE0);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &g->unit0_tex);
    glActiveTexture((GLenum)g->active);
}

START_TEST(state_is_preserved)
{
    gl_scene s, other;
    ck_assert_int_eq(gl_scene_create(&other, 8, 8), 0);
    gl_quad q[3];
    int n = standard_scene(&s, 37, 19, q);

    /* A second game framebuffer with two color attachments, read buffer 1. */
    GLuint tex2, fbo2, pbo, spare;
    glGenTextures(1, &tex2);
    glBindTexture(GL_TEXTURE_2D, tex2);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 8, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glGenFramebuffers(1, &fbo2);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo2);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, other.color, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D, tex2, 0);
    glReadBuffer(GL_COLOR_ATTACHMENT1);
    const GLenum bufs[] = {GL_COLOR_ATTACHMENT1};
    glDrawBuffers(1, bufs);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, other.fbo);
    glGenBuffers(1, &pbo);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pbo);
    glBufferData(GL_PIXEL_PACK_BUFFER, 4096, NULL, GL_STREAM_READ);
    glGenTextures(1, &spare);
    glActiveTexture(GL_TEXTURE3);
    glBindTexture(GL_TEXTURE_2D, spare);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, tex2);
    glActiveTexture(GL_TEXTURE3);
    glPixelStorei(GL_PACK_ALIGNMENT, 8);
    glPixelStorei(GL_PACK_ROW_LENGTH, 100);
    glPixelStorei(GL_PACK_SKIP_ROWS, 3);
    glPixelStorei(GL_PACK_SKIP_PIXELS, 2);
    glPixelStorei(GL_PACK_SWAP_BYTES, GL_TRUE);
    ck_assert_int_eq((int)glGetError(), GL_NO_ERROR);

    game_state before, after;
    query_state(&before);
    ck_assert_int_eq(before.read_fbo, (GLint)fbo2);
    ck_assert_int_eq(before.draw_fbo, (GLint)other.fbo);
    ck_assert_int_eq(before.read_buffer, GL_COLOR_ATTACHMENT1);

    for (int mode = 0; mode <= CG_GL_PACK_PBO_RGB + 1; mode++) {
        /* Every synchronous mode, then a ring of 2. */
        int ring = mode > CG_GL_PACK_PBO_RGB ? 2 : 0;
        cg_gl_reader *r = new_reader_with(ring, ring ? CG_GL_PACK_AUTO : (cg_gl_pack)mode, 0);
        uint8_t got[37 * 19 * 3];
        float depth[37 * 19];
        cg_gl_color_request rq = {s.color, s.w, s.h, s.w, s.h, CG_FILTER_NEAREST, {0, 0, 0}};
        /* First calls create the framebuffers; later ones reuse them. */
        for (int k = 0; k < 3; k++) {
            ck_assert_int_eq(cg_gl_read_color(r, &rq, got, sizeof got, NULL), CG_OK);
            ck_assert_int_eq(cg_gl_read_depth(r, s.depth, s.w, s.h, NULL, depth, 37 * 19),
                             CG_OK);
            query_state(&after);
            ck_assert_mem_eq(&before, &after, sizeof before);
        }
        /* Pixels right despite the game's odd pack state (alignment 8 would
         * pad the 37-pixel RGB rows). */
        expect_scene(got, s.w, s.h, q, n, s.w, s.h);
        /* A failing call restores too. */
        ck_assert_int_eq(cg_gl_read_color(r, &(cg_gl_color_request){s.color, 999, 999, 4, 4,
                                                                   CG_FILTER_NEAREST, {0, 0, 0}},
                                          got, sizeof got, NULL),
                         CG_E_BAD_TEXTURE);
        query_state(&after);
        ck_assert_mem_eq(&before, &after, sizeof before);
        cg_gl_reader_destroy(r);
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteBuffers(1, &pbo);
    glDeleteFramebuffers(1, &fbo2);
    glDeleteTextures(1, &tex2);
    glDeleteTextures(1, &spare);
    glActiveTexture(GL_TEXTURE0);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glPixelStorei(GL_PACK_SKIP_ROWS, 0);
    glPixelStorei(GL_PACK_SKIP_PIXELS, 0);
    glPixelStorei(GL_PACK_SWAP_BYTES, GL_FALSE);
    gl_scene_destroy(&other);
    gl_scene_destroy(&s);
}
END_TEST

static long rss_kib(void)
{
    FILE *fp = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (!fp) return -1;
    if (fscanf(fp, "%ld %ld", &pages, &resident) != 2) resident = -1;
    fclose(fp);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* 10,000 captures (sync, ring, depth) leave the resident set flat: growth
 * after a warm-up stays under 4 MiB, room for driver caches; a leak of one
 * 160x90 frame per call would be 560 MiB, of 420 bytes per call 4 MiB. */
START_TEST(ten_thousand_captures_flat_rss)
{
    gl_scene s;
    gl_quad q[3];
    standard_scene(&s, 160, 90, q);
    cg_gl_reader *sync = new_reader(0), *ring = new_reader(3);
    static uint8_t out[160 * 90 * 3];
    static float depth[160 * 90];
    cg_gl_color_request rq = {s.color, s.w, s.h, 84, 84, CG_FILTER_NEAREST, {1, 5, 5}};
    long base = 0;
    for (int i = 0; i < 10000 + 200; i++) {
        if (i == 200) base = rss_kib();
        cg_gl_reader *r = (i & 1) ? ring : sync;
        ck_assert_int_eq(cg_gl_read_color(r, &rq, out, sizeof out, NULL), CG_OK);
        if (i % 10 == 0) {
            ck_assert_int_eq(cg_gl_read_depth(sync, s.depth, s.w, s.h, NULL, depth, 160 * 90),
                             CG_OK);
        }
    }
    long grown = rss_kib() - base;
    fprintf(stderr, "rss growth over 10000 captures: %ld KiB (base %ld KiB)\n", grown, base);
    ck_assert_msg(base > 0, "VmRSS could not be read");
    /* Under ASan the test runs with quarantine_size_mb=0 (tests/gl), so the
     * same bound holds: freed blocks are not kept resident. */
    ck_assert_msg(grown < 4096, "RSS grew by %ld KiB", grown);
    cg_gl_reader_destroy(sync);
    cg_gl_reader_destroy(ring);
    gl_scene_destroy(&s);
}
END_TEST

START_TEST(errors_are_statuses)
{
    gl_scene s;
    gl_quad q[3];
    int n = standard_scene(&s, 16, 8, q);
    cg_gl_reader *r = new_reader(0);
    uint8_t got[16 * 8 * 3];
    float depth[16 * 8];
    memset(got, 0xAB, sizeof got);
    cg_gl_color_request ok = {s.color, 16, 8, 16, 8, CG_FILTER_NEAREST, {0, 0, 0}};
    cg_gl_color_request rq = ok;

    /* Arguments, before any GL call. */
    ck_assert_int_eq(cg_gl_read_color(NULL, &rq, got, sizeof got, NULL), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_gl_read_color(r, NULL, got, sizeof got, NULL), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_gl_read_color(r, &rq, NULL, sizeof got, NULL), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_gl_read_color(r, &rq, got, sizeof got - 1, NULL), CG_E_BUFFER_TOO_SMALL);
    rq.tex_w = 0;
    ck_assert_int_eq(cg_gl_read_color(r, &rq, got, sizeof got, NULL), CG_E_INVALID_ARG);
    rq = ok;
    rq.dst_h = 16385;
    ck_assert_int_eq(cg_gl_read_color(r, &rq, got, sizeof got, NULL), CG_E_TOO_LARGE);
    rq = ok;
    rq.filter = (cg_filter)7;
    ck_assert_int_eq(cg_gl_read_color(r, &rq, got, sizeof got, NULL), CG_E_INVALID_ARG);
    cg_gl_depth_linear bad = {1.0f, 0.5f, 0};
    ck_assert_int_eq(cg_gl_read_depth(r, s.depth, 16, 8, &bad, depth, 16 * 8), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_gl_read_depth(r, s.depth, 16, 8, NULL, depth, 16 * 8 - 1),
                     CG_E_BUFFER_TOO_SMALL);
    int bad_ring = 0;
    cg_gl_reader_config big = {.ring = CG_GL_MAX_RING + 1};
    cg_gl_reader *nr = (cg_gl_reader *)&bad_ring;
    ck_assert_int_eq(cg_gl_reader_create(&big, &nr), CG_E_INVALID_ARG);
    ck_assert_ptr_null(nr);
    cg_gl_reader_config bad_pack = {.pack = (cg_gl_pack)(CG_GL_PACK_PBO_RGB + 1)};
    ck_assert_int_eq(cg_gl_reader_create(&bad_pack, &nr), CG_E_INVALID_ARG);
    bad_pack.pack = (cg_gl_pack)-1;
    ck_assert_int_eq(cg_gl_reader_create(&bad_pack, &nr), CG_E_INVALID_ARG);
    ck_assert_ptr_null(nr);

    /* Textures that are not complete color/depth textures that large. */
    GLuint empty, tex3d, tex_int;
    glGenTextures(1, &empty);
    glBindTexture(GL_TEXTURE_2D, empty); /* exists, no storage: 0x0 */
    glGenTextures(1, &tex3d);
    glBindTexture(GL_TEXTURE_3D, tex3d);
    glTexImage3D(GL_TEXTURE_3D, 0, GL_RGBA8, 16, 8, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glGenTextures(1, &tex_int);
    glBindTexture(GL_TEXTURE_2D, tex_int);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8UI, 16, 8, 0, GL_RGBA_INTEGER, GL_UNSIGNED_BYTE, NULL);
    glBindTexture(GL_TEXTURE_2D, 0);
    glBindTexture(GL_TEXTURE_3D, 0);
    ck_assert_int_eq((int)glGetError(), GL_NO_ERROR);

    const GLuint bad_tex[] = {0, 987654, empty, tex3d, s.depth};
    for (size_t i = 0; i < sizeof bad_tex / sizeof bad_tex[0]; i++) {
        rq = ok;
        rq.texture = bad_tex[i];
        cg_status st = cg_gl_read_color(r, &rq, got, sizeof got, NULL);
        ck_assert_msg(st == CG_E_BAD_TEXTURE, "texture %u: %s", bad_tex[i], cg_status_name(st));
        ck_assert_str_ne(cg_gl_reader_last_error(r), "");
    }
    rq = ok;
    rq.tex_w = 17; /* larger than the texture */
    ck_assert_int_eq(cg_gl_read_color(r, &rq, got, sizeof got, NULL), CG_E_BAD_TEXTURE);
    ck_assert_ptr_nonnull(strstr(cg_gl_reader_last_error(r), "smaller"));
    ck_assert_int_eq(cg_gl_read_depth(r, s.color, 16, 8, NULL, depth, 16 * 8), CG_E_BAD_TEXTURE);
    ck_assert_int_eq(cg_gl_read_depth(r, 0, 16, 8, NULL, depth, 16 * 8), CG_E_BAD_TEXTURE);
    ck_assert_int_eq(cg_gl_read_depth(r, s.depth, 16, 9, NULL, depth, 16 * 9), CG_E_BAD_TEXTURE);

    /* A complete framebuffer that glReadPixels refuses (integer format as
     * normalized RGBA): a GL error, reported with its name. */
    rq = ok;
    rq.texture = tex_int;
    ck_assert_int_eq(cg_gl_read_color(r, &rq, got, sizeof got, NULL), CG_E_GL);
    ck_assert_ptr_nonnull(strstr(cg_gl_reader_last_error(r), "glReadPixels"));
    ck_assert_ptr_nonnull(strstr(cg_gl_reader_last_error(r), "GL_INVALID_OPERATION"));
    /* The call as written in the source, not as the preprocessor expanded it. */
    ck_assert_ptr_nonnull(strstr(cg_gl_reader_last_error(r), "GL_UNSIGNED_BYTE"));
    ck_assert_ptr_null(strstr(cg_gl_reader_last_error(r), "epoxy_"));
    for (size_t i = 0; i < sizeof got; i++) ck_assert_uint_eq(got[i], 0xAB); /* untouched */

    /* A GL failure leaves the reader FAILED: it refuses work, even a good
     * request, until reset. */
    ck_assert(cg_gl_reader_failed(r));
    ck_assert_int_eq(cg_gl_read_color(r, &ok, got, sizeof got, NULL), CG_E_BAD_STATE);
    ck_assert_int_eq(cg_gl_read_depth(r, s.depth, 16, 8, NULL, depth, 16 * 8), CG_E_BAD_STATE);
    ck_assert_ptr_nonnull(strstr(cg_gl_reader_last_error(r), "reset"));
    cg_gl_reader_reset(r);
    ck_assert(!cg_gl_reader_failed(r));

    /* No current context. */
    ck_assert_int_eq(cg_egl_headless_release(g_ctx), 0);
    ck_assert_int_eq(cg_gl_current_context(NULL), CG_E_NO_CONTEXT);
    ck_assert_int_eq(cg_gl_read_color(r, &ok, got, sizeof got, NULL), CG_E_NO_CONTEXT);
    ck_assert_int_eq(cg_gl_read_depth(r, s.depth, 16, 8, NULL, depth, 16 * 8), CG_E_NO_CONTEXT);
    ck_assert_int_eq(cg_egl_headless_make_current(g_ctx), 0);
    void *key = NULL;
    ck_assert_int_eq(cg_gl_current_context(&key), CG_OK);
    ck_assert_ptr_nonnull(key);

    /* Still usable after every failure. */
    ck_assert_int_eq((int)glGetError(), GL_NO_ERROR);
    ck_assert_int_eq(cg_gl_read_color(r, &ok, got, sizeof got, NULL), CG_OK);
    ck_assert_str_eq(cg_gl_reader_last_error(r), "");
    uint8_t e[3];
    gl_scene_expect_rgb(k_clear, q, n, 15, 7, e);
    ck_assert_mem_eq(got + (7 * 16 + 15) * 3, e, 3);

    cg_gl_reader_destroy(r);
    cg_gl_reader_destroy(NULL);
    glDeleteTextures(1, &empty);
    glDeleteTextures(1, &tex3d);
    glDeleteTextures(1, &tex_int);
    gl_scene_destroy(&s);
}
END_TEST

/* ---- synchronous pack modes -------------------------------------------- */

/* Each mode forced on (whatever the renderer), and bands of one row (a band
 * per row: the band-local cursor shift on every row) and of 3 rows. */
static const struct {
    cg_gl_pack pack;
    size_t band_bytes;
} k_modes[] = {
    {CG_GL_PACK_RGBA, 0}, {CG_GL_PACK_RGB, 0},      {CG_GL_PACK_BANDS, 0}, {CG_GL_PACK_BANDS, 1},
    {CG_GL_PACK_BANDS, 3 * 4 * 37}, {CG_GL_PACK_PBO, 0}, {CG_GL_PACK_PBO_RGB, 0},
    {CG_GL_PACK_AUTO, 0},
};

/* The cursor over the expected image: tests/common/cursor_spec.h, typed in
 * from the wire format, independent of the library's drawing code. */
static void overlay_cursor(uint8_t *img, int w, int h, int cx, int cy)
{
    spec_overlay_cursor(img, w, h, cx, cy);
}

/* Scene at fw x fh read into dst_w x dst_h with the cursor at (cx, cy)
 * (draw 0: none); compared byte for byte with the analytic image. */
static void check_mode_case(cg_gl_reader *r, gl_scene *s, int dst_w, int dst_h, int draw,
                            int cx, int cy)
{
    gl_quad q[3];
    int n = scene_quads(s->w, s->h, q);
    ck_assert_int_eq(gl_scene_draw_color(s, k_clear, q, n), 0);
    size_t len = (size_t)dst_w * (size_t)dst_h * 3;
    uint8_t *got = malloc(len + 8), *want = malloc(len);
    ck_assert_ptr_nonnull(got);
    ck_assert_ptr_nonnull(want);
    memset(got, 0xCD, len + 8);
    for (int y = 0; y < dst_h; y++) {
        for (int x = 0; x < dst_w; x++) {
            int sx = (int)((long long)x * s->w / dst_w), sy = (int)((long long)y * s->h / dst_h);
            gl_scene_expect_rgb(k_clear, q, n, sx, sy, want + ((size_t)y * (size_t)dst_w + (size_t)x) * 3);
        }
    }
    if (draw) overlay_cursor(want, dst_w, dst_h, cx, cy);
    cg_gl_color_request rq = {s->color, s->w, s->h, dst_w, dst_h, CG_FILTER_NEAREST, {draw, cx, cy}};
    cg_status st = cg_gl_read_color(r, &rq, got, len, NULL);
    ck_assert_msg(st == CG_OK, "%dx%d -> %dx%d: %s (%s)", s->w, s->h, dst_w, dst_h,
                  cg_strerror(st), cg_gl_reader_last_error(r));
    for (size_t i = 0; i < len; i++) {
        if (got[i] != want[i]) {
            size_t px = i / 3;
            ck_abort_msg("%dx%d -> %dx%d cursor %d (%d,%d): pixel (%zu,%zu) byte %zu got %u want %u",
                         s->w, s->h, dst_w, dst_h, draw, cx, cy, px % (size_t)dst_w,
                         px / (size_t)dst_w, i % 3, got[i], want[i]);
        }
    }
    for (size_t i = len; i < len + 8; i++) ck_assert_uint_eq(got[i], 0xCD); /* no overrun */
    free(got);
    free(want);
}

START_TEST(pack_mode_exact)
{
    /* Odd widths (RGB rows of 3*w bytes, not a multiple of 4), 1x1, one
     * row, one column, and a frame larger than one default band. */
    static const int sizes[][2] = {{1, 1}, {37, 19}, {17, 1}, {1, 23}, {2, 3}, {641, 361}};
    cg_gl_reader *r = new_reader_with(0, k_modes[_i].pack, k_modes[_i].band_bytes);
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        gl_scene s;
        int w = sizes[z][0], h = sizes[z][1];
        ck_assert_int_eq(gl_scene_create(&s, w, h), 0);
        /* No cursor; every corner and edge, partly and fully off-screen. */
        const int cur[][2] = {{0, 0},          {w - 1, h - 1}, {-15, -15},    {w - 8, -9},
                              {-3, h - 4},     {w / 2, h / 2}, {-16, 0},      {w, h},
                              {0, h - 16},     {w - 16, 0},    {-2000000000, 5}, {3, 2000000000}};
        check_mode_case(r, &s, w, h, 0, 0, 0);
        for (size_t c = 0; c < sizeof cur / sizeof cur[0]; c++)
            check_mode_case(r, &s, w, h, 1, cur[c][0], cur[c][1]);
        /* A resizing read uses the RGBA path in every mode. */
        check_mode_case(r, &s, w + 3, h * 2, 1, 1, 1);
        check_mode_case(r, &s, (w + 1) / 2, (h + 1) / 2, 1, -4, 0);
        gl_scene_destroy(&s);
    }
    cg_gl_reader_destroy(r);
}
END_TEST

START_TEST(pack_mode_resolution)
{
    gl_scene s;
    ck_assert_int_eq(gl_scene_create(&s, 8, 8), 0);
    cg_gl_pack got = CG_GL_PACK_AUTO;
    for (int m = CG_GL_PACK_RGBA; m <= CG_GL_PACK_PBO_RGB; m++) {
        cg_gl_reader *r = new_reader_with(0, (cg_gl_pack)m, 0);
        ck_assert_int_eq(cg_gl_reader_pack_for(r, 8, 8, 8, 8, &got), CG_OK);
        ck_assert_int_eq(got, m);
        ck_assert_int_eq(cg_gl_reader_pack_for(r, 8, 8, 9, 8, &got), CG_OK);
        ck_assert_int_eq(got, CG_GL_PACK_RGBA); /* resizing */
        cg_gl_reader_destroy(r);
    }
    cg_gl_reader *a = new_reader(0), *ring = new_reader_with(3, CG_GL_PACK_RGB, 0);
    ck_assert_int_eq(cg_gl_reader_pack_for(a, 8, 8, 8, 8, &got), CG_OK);
    const char *vendor = (const char *)glGetString(GL_VENDOR);
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    ck_assert_ptr_nonnull(vendor);
    ck_assert_ptr_nonnull(renderer);
    ck_assert_int_eq(got, cg_gl_auto_pack(vendor, renderer));
    fprintf(stderr, "GL_VENDOR %s, GL_RENDERER %s: AUTO reads with %s\n", vendor, renderer,
            cg_gl_pack_name(got));
    /* The rule, on the strings those drivers report. */
    ck_assert_int_eq(cg_gl_auto_pack("NVIDIA Corporation", "NVIDIA H200/PCIe/SSE2"),
                     CG_GL_PACK_RGB);
    ck_assert_int_eq(cg_gl_auto_pack("Mesa", "llvmpipe (LLVM 15.0.6, 256 bits)"),
                     CG_GL_PACK_BANDS);
    ck_assert_int_eq(cg_gl_auto_pack("AMD", "AMD Radeon RX 6800 (radeonsi, navi21)"),
                     CG_GL_PACK_RGBA);
    ck_assert_int_eq(cg_gl_auto_pack(NULL, NULL), CG_GL_PACK_RGBA);
    ck_assert_int_eq(cg_gl_reader_pack_for(ring, 8, 8, 8, 8, &got), CG_OK);
    ck_assert_int_eq(got, CG_GL_PACK_RGBA);
    ck_assert_int_eq(cg_gl_reader_pack_for(NULL, 8, 8, 8, 8, &got), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_gl_reader_pack_for(a, 8, 8, 8, 8, NULL), CG_E_INVALID_ARG);
    ck_assert_str_eq(cg_gl_pack_name(CG_GL_PACK_PBO_RGB), "pbo_rgb");
    ck_assert_str_eq(cg_gl_pack_name((cg_gl_pack)99), "unknown");
    ck_assert_int_eq(cg_egl_headless_release(g_ctx), 0);
    ck_assert_int_eq(cg_gl_reader_pack_for(a, 8, 8, 8, 8, &got), CG_E_NO_CONTEXT);
    ck_assert_int_eq(cg_egl_headless_make_current(g_ctx), 0);
    cg_gl_reader_destroy(a);
    cg_gl_reader_destroy(ring);
    gl_scene_destroy(&s);
}
END_TEST

/* cg_draw_cursor_rgb on hand-made images: a 3x2 image gets the arrow's top
 * left 3x2 corner ("B.." / "BB.", top-down) at (0,0), rows bottom-up. */
START_TEST(draw_cursor_rgb_args)
{
    uint8_t img[3 * 2 * 3];
    memset(img, 0x55, sizeof img);
    ck_assert_int_eq(cg_draw_cursor_rgb(img, sizeof img, 3, 2, 0, 0), CG_OK);
    static const uint8_t want[3 * 2 * 3] = {
        0, 0, 0, 0, 0, 0, 0x55, 0x55, 0x55,            /* bottom row: top-down row 1 "BB." */
        0, 0, 0, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,   /* top row: top-down row 0 "B.." */
    };
    ck_assert_mem_eq(img, want, sizeof want);
    memset(img, 0x55, sizeof img);
    /* A hot spot outside the image draws nothing at all. */
    ck_assert_int_eq(cg_draw_cursor_rgb(img, sizeof img, 3, 2, -1, -2), CG_OK);
    static const uint8_t want2[3 * 2 * 3] = {
        0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
        0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
    };
    ck_assert_mem_eq(img, want2, sizeof want2);
    ck_assert_int_eq(cg_draw_cursor_rgb(NULL, sizeof img, 3, 2, 0, 0), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_draw_cursor_rgb(img, sizeof img - 1, 3, 2, 0, 0), CG_E_BUFFER_TOO_SMALL);
    ck_assert_int_eq(cg_draw_cursor_rgb(img, sizeof img, 0, 2, 0, 0), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_draw_cursor_rgb(img, sizeof img, 3, 16385, 0, 0), CG_E_TOO_LARGE);
}
END_TEST

/* A reader that read in one context and is destroyed (as at the end of the
 * game's render thread) with another context current: the other context's
 * framebuffers with the same names as the reader's stay. Both contexts are
 * fresh, so the reader's names (2 and 3 on Mesa) are among the 16. */
START_TEST(destroy_in_other_context_keeps_its_objects)
{
    char why[256];
    cg_egl_headless *a = NULL, *b = NULL;
    ck_assert_msg(cg_egl_headless_open(&a, why, sizeof why) == 0, "%s", why);
    gl_scene s;
    gl_quad q[3];
    standard_scene(&s, 8, 8, q);
    for (int ring = 0; ring <= 2; ring += 2) {
        cg_gl_reader *r = new_reader_with(ring, CG_GL_PACK_PBO, 0);
        uint8_t got[8 * 8 * 3];
        float depth[8 * 8];
        cg_gl_color_request rq = {s.color, 8, 8, 8, 8, CG_FILTER_NEAREST, {0, 0, 0}};
        ck_assert_int_eq(cg_gl_read_color(r, &rq, got, sizeof got, NULL), CG_OK);
        ck_assert_int_eq(cg_gl_read_depth(r, s.depth, 8, 8, NULL, depth, 8 * 8), CG_OK);

        ck_assert_msg(cg_egl_headless_open(&b, why, sizeof why) == 0, "%s", why);
        enum { GAME = 16 };
        GLuint fbos[GAME], bufs[GAME];
        glGenFramebuffers(GAME, fbos);
        glGenBuffers(GAME, bufs);
        for (int i = 0; i < GAME; i++) {
            glBindFramebuffer(GL_FRAMEBUFFER, fbos[i]);
            glBindBuffer(GL_PIXEL_PACK_BUFFER, bufs[i]);
        }
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        cg_gl_reader_destroy(r);
        for (int i = 0; i < GAME; i++) {
            ck_assert_msg(glIsFramebuffer(fbos[i]), "ring %d: framebuffer %u deleted", ring,
                          fbos[i]);
            ck_assert_msg(glIsBuffer(bufs[i]), "ring %d: buffer %u deleted", ring, bufs[i]);
        }
        /* A reader that read in the first context and then reads here makes
         * its own objects here: the game's of the same names are neither
         * attached to nor filled. */
        ck_assert_int_eq(cg_egl_headless_make_current(a), 0);
        r = new_reader_with(ring, CG_GL_PACK_PBO, 0);
        rq.texture = s.color;
        ck_assert_int_eq(cg_gl_read_color(r, &rq, got, sizeof got, NULL), CG_OK);
        ck_assert_int_eq(cg_egl_headless_make_current(b), 0);
        gl_scene sb;
        gl_quad qb[3];
        int nb = standard_scene(&sb, 8, 8, qb);
        rq.texture = sb.color;
        cg_status st = cg_gl_read_color(r, &rq, got, sizeof got, NULL);
        ck_assert_msg(st == CG_OK, "%s", cg_gl_reader_last_error(r));
        expect_scene(got, 8, 8, qb, nb, 8, 8);
        for (int i = 0; i < GAME; i++) {
            GLint type = -1, size = -1;
            glBindFramebuffer(GL_FRAMEBUFFER, fbos[i]);
            glGetFramebufferAttachmentParameteriv(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                                                  GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
            glBindBuffer(GL_PIXEL_PACK_BUFFER, bufs[i]);
            glGetBufferParameteriv(GL_PIXEL_PACK_BUFFER, GL_BUFFER_SIZE, &size);
            ck_assert_msg(type == GL_NONE, "ring %d: framebuffer %u got an attachment", ring,
                          fbos[i]);
            ck_assert_msg(size == 0, "ring %d: buffer %u got %d bytes", ring, bufs[i], size);
        }
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        cg_gl_reader_destroy(r);
        glDeleteFramebuffers(GAME, fbos);
        glDeleteBuffers(GAME, bufs);
        gl_scene_destroy(&sb);
        cg_egl_headless_close(b);
        ck_assert_int_eq(cg_egl_headless_make_current(a), 0);
    }
    gl_scene_destroy(&s);
    cg_egl_headless_close(a);
    ck_assert_int_eq(cg_egl_headless_make_current(g_ctx), 0);
}
END_TEST

/* ---- hostile read state ------------------------------------------------- */

static int hostile_applies(const struct hostile *h, int compat)
{
    if (h->compat && !compat) return 0;
    return h->ext == NULL || epoxy_has_gl_extension(h->ext);
}

/* Every applicable hostile state's value, then the bindings and pack values
 * of query_state: the reader must leave all of them as it found them. */
static void query_hostile(float *vals, game_state *g, int compat)
{
    for (int i = 0; i < HS_COUNT; i++) {
        vals[i] = -1.0f;
        if (!hostile_applies(&k_hostile[i], compat)) continue;
        if (k_hostile[i].kind == HS_ENABLE) vals[i] = glIsEnabled(k_hostile[i].pname);
        else glGetFloatv(k_hostile[i].pname, &vals[i]);
    }
    query_state(g);
}

/* One hostile state on, then colour in every pack mode (each synchronous
 * mode, bands of one row, a ring of 2) and depth: bytes as rendered, and
 * every state as the game left it. */
static void check_hostile(int i, int compat)
{
    const struct hostile *h = &k_hostile[i];
    if (!hostile_applies(h, compat)) {
        fprintf(stderr, "%s: not in this %s context, not tested\n", h->name,
                compat ? "compatibility" : "core");
        return;
    }
    enum { W = 37, H = 19 };
    gl_scene col, dep;
    gl_quad q[3];
    int n = standard_scene(&col, W, H, q);
    ck_assert_int_eq(gl_scene_create(&dep, W, H), 0);
    const double zn = 0.1, zf = 100.0;
    const gl_quad dq[] = {
        {0, 0, 9, 19, {0}, 0.5},  {9, 0, 20, 7, {0}, 3.0},  {9, 7, 20, 19, {0}, 40.0},
        {20, 12, 30, 19, {0}, 7.0},
    };
    const int ndq = (int)(sizeof dq / sizeof dq[0]);
    ck_assert_int_eq(gl_scene_draw_depth(&dep, dq, ndq, zn, zf, 0), 0);
    hostile_objects o;
    ck_assert_int_eq(hostile_objects_create(&o), GL_NO_ERROR);
    /* Defaults first: a failed case before this one may have left its state. */
    for (int j = 0; j < HS_COUNT; j++)
        if (hostile_applies(&k_hostile[j], compat)) hostile_set(&k_hostile[j], &o, 0);

    float vals_before[HS_COUNT], vals_after[HS_COUNT];
    game_state before, after;
    hostile_set(h, &o, 1);
    ck_assert_msg(glGetError() == GL_NO_ERROR, "setting %s", h->name);
    query_hostile(vals_before, &before, compat);

    static const struct {
        int ring;
        cg_gl_pack pack;
        size_t band_bytes;
    } modes[] = {
        {0, CG_GL_PACK_RGBA, 0}, {0, CG_GL_PACK_RGB, 0}, {0, CG_GL_PACK_BANDS, 0},
        {0, CG_GL_PACK_BANDS, 1}, {0, CG_GL_PACK_PBO, 0}, {0, CG_GL_PACK_PBO_RGB, 0},
        {2, CG_GL_PACK_AUTO, 0},
    };
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        cg_gl_reader *r = new_reader_with(modes[m].ring, modes[m].pack, modes[m].band_bytes);
        uint8_t got[W * H * 3 + 8];
        for (int k = 0; k < 2; k++) { /* creating the objects, then reusing them */
            memset(got, 0xCD, sizeof got);
            cg_gl_color_request rq = {col.color, W, H, W, H, CG_FILTER_NEAREST, {0, 0, 0}};
            cg_status st = cg_gl_read_color(r, &rq, got, W * H * 3, NULL);
            ck_assert_msg(st == CG_OK, "%s, %s: %s", h->name, cg_gl_pack_name(modes[m].pack),
                          cg_gl_reader_last_error(r));
            for (int y = 0; y < H; y++) {
                for (int x = 0; x < W; x++) {
                    uint8_t e[3];
                    gl_scene_expect_rgb(k_clear, q, n, x, y, e);
                    const uint8_t *g = got + ((size_t)y * W + (size_t)x) * 3;
                    ck_assert_msg(memcmp(g, e, 3) == 0,
                                  "%s, pack %s ring %d: pixel (%d,%d) got %u,%u,%u want %u,%u,%u",
                                  h->name, cg_gl_pack_name(modes[m].pack), modes[m].ring, x, y,
                                  g[0], g[1], g[2], e[0], e[1], e[2]);
                }
            }
            for (size_t b = W * H * 3; b < sizeof got; b++) ck_assert_uint_eq(got[b], 0xCD);
            query_hostile(vals_after, &after, compat);
            ck_assert_msg(memcmp(vals_before, vals_after, sizeof vals_before) == 0,
                          "%s changed by a colour read (pack %s)", h->name,
                          cg_gl_pack_name(modes[m].pack));
            ck_assert_mem_eq(&before, &after, sizeof before);

            float depth[W * H + 1];
            depth[W * H] = -7.0f;
            st = cg_gl_read_depth(r, dep.depth, W, H, NULL, depth, W * H);
            ck_assert_msg(st == CG_OK, "%s: %s", h->name, cg_gl_reader_last_error(r));
            for (int y = 0; y < H; y++) {
                for (int x = 0; x < W; x++) {
                    double want = gl_scene_window_depth(gl_scene_expect_eye_z(dq, ndq, zf, x, y),
                                                        zn, zf, 0);
                    float g = depth[(size_t)y * W + (size_t)x];
                    ck_assert_msg(fabs(g - want) <= 1e-6, "%s: depth (%d,%d) got %.9g want %.9g",
                                  h->name, x, y, (double)g, want);
                }
            }
            ck_assert(depth[W * H] == -7.0f);
            query_hostile(vals_after, &after, compat);
            ck_assert_msg(memcmp(vals_before, vals_after, sizeof vals_before) == 0,
                          "%s changed by a depth read", h->name);
            ck_assert_mem_eq(&before, &after, sizeof before);
        }
        cg_gl_reader_destroy(r);
    }
    hostile_set(h, &o, 0);
    ck_assert_int_eq((int)glGetError(), GL_NO_ERROR);
    hostile_objects_destroy(&o);
    gl_scene_destroy(&dep);
    gl_scene_destroy(&col);
}

START_TEST(hostile_state_core) { check_hostile(_i, 0); }
END_TEST

/* The same in a compatibility-profile context, where the pixel transfer
 * state exists too (a game on a legacy profile). */
START_TEST(hostile_state_compat)
{
    char why[256];
    cg_egl_headless *c = NULL;
    if (cg_egl_headless_open_compat(&c, why, sizeof why) != 0) {
        fprintf(stderr, "no compatibility context (%s): compat cases not run\n", why);
        ck_assert_int_eq(cg_egl_headless_make_current(g_ctx), 0);
        return;
    }
    check_hostile(_i, 1);
    cg_egl_headless_close(c);
    ck_assert_int_eq(cg_egl_headless_make_current(g_ctx), 0);
}
END_TEST

static Suite *gl_suite(void)
{
    Suite *su = suite_create("gl_capture");
    TCase *core = test_tcase("core");
    tcase_add_loop_test(core, color_exact_sizes, 0, (int)(sizeof k_sizes / sizeof k_sizes[0]));
    tcase_add_test(core, rgba_readback);
    tcase_add_test(core, color_resize_targets);
    tcase_add_test(core, texture_resized_between_calls);
    tcase_add_test(core, texture_recreated_under_its_name);
    tcase_add_test(core, ring_returns_older_frames);
    tcase_add_test(core, ring_matches_sync_content);
    tcase_add_test(core, depth_neg_one_to_one);
    suite_add_tcase(su, core);
    /* Its own case: ctest runs it as gl_capture_depth_zero_to_one
     * (CK_RUN_CASE=depth01), SKIPPED where glClipControl is missing. */
    TCase *depth01 = test_tcase("depth01");
    tcase_add_test(depth01, depth_zero_to_one);
    suite_add_tcase(su, depth01);
    TCase *pack = test_tcase("pack");
    tcase_add_loop_test(pack, pack_mode_exact, 0, (int)(sizeof k_modes / sizeof k_modes[0]));
    tcase_add_test(pack, pack_mode_resolution);
    tcase_add_test(pack, draw_cursor_rgb_args);
    suite_add_tcase(su, pack);
    TCase *state = test_tcase("state");
    tcase_add_test(state, state_is_preserved);
    tcase_add_test(state, errors_are_statuses);
    tcase_add_test(state, ten_thousand_captures_flat_rss);
    tcase_add_test(state, destroy_in_other_context_keeps_its_objects);
    tcase_add_loop_test(state, hostile_state_core, 0, HS_COUNT);
    tcase_add_loop_test(state, hostile_state_compat, 0, HS_COUNT);
    suite_add_tcase(su, state);
    return su;
}

int main(void)
{
    /* No context before one is made: the probe must say so, not abort. */
    if (cg_gl_current_context(NULL) != CG_E_NO_CONTEXT) {
        fprintf(stderr, "a context is current before any was made\n");
        return 1;
    }
    char why[256];
    if (cg_egl_headless_open(&g_ctx, why, sizeof why) != 0) {
        fprintf(stderr, "SKIP: %s\n", why);
        return 77;
    }
    fprintf(stderr, "context: %s\n", cg_egl_headless_describe(g_ctx));
    const char *only = getenv("CK_RUN_CASE");
    if (only && strcmp(only, "depth01") == 0 && !gl_scene_has_clip_control()) {
        fprintf(stderr, "SKIP: glClipControl (GL 4.5 or GL_ARB_clip_control) is missing: the "
                        "[0,1] depth case cannot run\n");
        cg_egl_headless_close(g_ctx);
        return 77;
    }
    SRunner *sr = srunner_create(gl_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    cg_egl_headless_close(g_ctx);
    return failed == 0 ? 0 : 1;
}
