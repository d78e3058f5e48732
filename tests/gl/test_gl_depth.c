/*
 * test_gl_depth.c - the GL depth plane pass (cg_gl.h, cg_gl_depth_pass) on a
 * real GL context (Mesa llvmpipe through EGL here, the NVIDIA driver on the
 * GPU machine), without a ring: the pass writes a plane into a buffer
 * object of the test's own, read back with glGetBufferSubData.
 *
 * Usage: test_gl_depth CASE (one ctest each, 77 = SKIPPED with the reason)
 *   sweep      every accepted depth format (32F, 24, DEPTH_COMPONENT and
 *              the two depth-stencil ones) with known content (reverse-Z,
 *              background 0, values across [0, 1]), sizes 1x1 .. 1920x1080,
 *              up, down and non-integer resizes, planes at offsets 0 and
 *              k*256 of a larger buffer: raw planes bit for bit against
 *              glReadPixels(GL_DEPTH_COMPONENT, GL_FLOAT); linear planes for
 *              the near/far pairs 0.05/1000, 0.1/100, 1/2, 16/16.5, each
 *              zZeroToOne 0 and 1, within 2 ulps of captureDepthImpl's C
 *              core (cg_gl_read_depth + cg_depth_linearize) mapped by the
 *              spec's rule (the largest distance printed); the buffer
 *              outside the plane untouched; a texture set to compare
 *              (GL_COMPARE_REF_TO_TEXTURE) read through the pass's own
 *              sampler as stored; a rendered reverse-Z scene
 *              (gl_scene_draw_depth, both clip conventions); every GL state
 *              the dispatch touches the game's again
 *   bad_input  a colour texture, another size, texture 0, bad near/far, an
 *              offset off the alignment, a depth-stencil texture set to
 *              read stencil, no buffer: refused with the reason, the pass
 *              still usable; no context at create
 *   ext        the sweep through the shader's extension form (GL 4.2 with
 *              GL_ARB_compute_shader, MESA_GL_VERSION_OVERRIDE)
 */
#define _GNU_SOURCE
#include <epoxy/gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_egl_headless.h"
#include "cg_frame.h"
#include "cg_gl.h"
#include "depth_check.h"
#include "gl_scene.h"
#include "gl_state.h"
#include "zc_test.h" /* CHECK */

#define SKIP 77

static int failures;

typedef struct size4 {
    int sw, sh, dw, dh;
} size4;

/* 1x1, odd, up, down, non-integer ratios, to 1x1, 1xN / Nx1, 360p, 1080p. */
static const size4 SIZES[] = {
    {1, 1, 1, 1},     {7, 5, 7, 5},     {5, 3, 13, 11},      {64, 48, 21, 17},
    {33, 20, 1, 1},   {17, 9, 6, 4},    {3, 2, 2, 1},        {1, 37, 5, 1},
    {41, 23, 19, 29}, {65, 1, 65, 1},   {640, 360, 640, 360}, {1920, 1080, 640, 360},
    {1920, 1080, 1920, 1080},
};
#define SIZE_COUNT (sizeof SIZES / sizeof SIZES[0])
#define STATE_SIZE 8 /* 41x23 -> 19x29 runs under the game's state */

/* A buffer of `bytes` filled with 0xee (the plane's surroundings). */
static GLuint sentinel_buffer(size_t bytes)
{
    uint8_t *fill = malloc(bytes);
    memset(fill, 0xee, bytes);
    GLuint b = 0;
    GLint prev = 0;
    glGetIntegerv(GL_COPY_WRITE_BUFFER_BINDING, &prev);
    glGenBuffers(1, &b);
    glBindBuffer(GL_COPY_WRITE_BUFFER, b);
    glBufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)bytes, fill, GL_DYNAMIC_COPY);
    glBindBuffer(GL_COPY_WRITE_BUFFER, (GLuint)prev);
    free(fill);
    return b;
}

static void read_buffer(GLuint b, size_t bytes, void *out)
{
    GLint prev = 0;
    glGetIntegerv(GL_COPY_READ_BUFFER_BINDING, &prev);
    glBindBuffer(GL_COPY_READ_BUFFER, b);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, (GLsizeiptr)bytes, out);
    glBindBuffer(GL_COPY_READ_BUFFER, (GLuint)prev);
}

typedef struct ctx {
    cg_gl_depth_pass *pass;
    cg_gl_reader *pass_reader, *oracle;
} ctx;

/* The largest distances seen: linear vs the formula applied to the raw
 * plane, linear vs captureDepthImpl (float formats, fixed-point ones), raw
 * vs glReadPixels (fixed-point; float formats are bit-exact). */
static uint32_t worst_formula, worst_capture_float, worst_capture_fixed, worst_raw_fixed;

static void note(uint32_t *worst, uint32_t u)
{
    if (u > *worst) *worst = u;
}

/* One plane of texture `tex` through the pass at `offset`, read back into
 * `got` (dw*dh floats); the buffer around it must be untouched. */
static int run_plane(ctx *c, GLuint tex, GLenum format, const size4 *z,
                     const cg_gl_depth_linear *lin, uint64_t offset, float *got)
{
    size_t dn = (size_t)z->dw * z->dh, bytes = (size_t)offset + dn * 4 + 256;
    uint8_t *all = malloc(bytes);
    GLuint buf = sentinel_buffer(bytes);
    cg_gl_depth_job j = {tex, z->sw, z->sh, z->dw, z->dh, buf, offset, lin};
    cg_err e = {{0}};
    cg_status st = cg_gl_depth_pass_run(c->pass, c->pass_reader, &j, &e);
    CHECK(st == CG_OK, "%s %dx%d -> %dx%d %s: %s %s", depth_format_name(format), z->sw, z->sh,
          z->dw, z->dh, lin ? "linear" : "raw", cg_status_name(st), e.text);
    size_t outside = 0;
    if (st == CG_OK) {
        read_buffer(buf, bytes, all);
        for (size_t i = 0; i < bytes; i++)
            if ((i < offset || i >= offset + dn * 4) && all[i] != 0xee) outside++;
        CHECK(outside == 0, "%zu bytes outside the plane written", outside);
        memcpy(got, all + offset, dn * 4);
    }
    glDeleteBuffers(1, &buf);
    free(all);
    return st == CG_OK && outside == 0;
}

/* got against want within max_ulps; the largest distance into *worst. */
static int same_plane(const char *what, GLenum format, const size4 *z,
                      const cg_gl_depth_linear *lin, const float *got, const float *want,
                      uint32_t max_ulps, uint32_t *worst)
{
    depth_diff dd;
    size_t bad = depth_compare(got, want, (size_t)z->dw * z->dh, max_ulps, &dd);
    if (worst) note(worst, dd.max_ulps);
    CHECK(bad == 0,
          "%s: %s %dx%d -> %dx%d near %g far %g z01 %d: %zu values past %u ulps, first "
          "(x %zu, Y %zu) %.9g want %.9g (max %u ulps)",
          what, depth_format_name(format), z->sw, z->sh, z->dw, z->dh,
          lin ? (double)lin->near_plane : 0.0, lin ? (double)lin->far_plane : 0.0,
          lin ? lin->zero_to_one : 0, bad, max_ulps, dd.first % (size_t)z->dw,
          dd.first / (size_t)z->dw, (double)dd.got, (double)dd.want, dd.max_ulps);
    return bad == 0;
}

/* Every encoding of one texture, each plane at its own offset: raw against
 * glReadPixels; then each near/far pair both ways (the large sizes: two
 * pairs, to keep llvmpipe's time down) against the formula applied to the
 * raw plane (the 2-ulp bound) and against captureDepthImpl's core.
 * Returns the planes that matched. */
static int all_encodings(ctx *c, GLuint tex, GLenum format, const size4 *z, uint64_t offset)
{
    size_t sn = (size_t)z->sw * z->sh, dn = (size_t)z->dw * z->dh;
    float *src = malloc(sn * 4), *raw = malloc(dn * 4), *want = malloc(dn * 4),
          *got = malloc(dn * 4);
    int fixed = depth_fixed_point(format), planes = 0;
    CHECK(depth_read_pixels(tex, z->sw, z->sh, src) == 0, "glReadPixels of the depth texture");
    depth_expect(src, z->sw, z->sh, z->dw, z->dh, want);
    if (!run_plane(c, tex, format, z, NULL, offset, raw)) goto done;
    planes += same_plane("raw vs glReadPixels", format, z, NULL, raw, want, fixed ? 1 : 0,
                         fixed ? &worst_raw_fixed : NULL);
    for (size_t k = 0; k < DEPTH_PLANE_COUNT; k++) {
        if (sn > 100000 && k % 2) continue;
        for (int z01 = 0; z01 < 2; z01++) {
            cg_gl_depth_linear lin = {DEPTH_PLANES[k][0], DEPTH_PLANES[k][1], z01};
            if (!run_plane(c, tex, format, z, &lin, offset + 256u * (k + 1), got)) continue;
            memcpy(want, raw, dn * 4);
            cg_depth_linearize(want, dn, lin.near_plane, lin.far_plane, z01);
            int ok = same_plane("linear vs the formula", format, z, &lin, got, want, 2,
                                &worst_formula);
            cg_status st = cg_gl_read_depth(c->oracle, tex, z->sw, z->sh, &lin, src, sn);
            CHECK(st == CG_OK, "captureDepthImpl's core: %s %s", cg_status_name(st),
                  cg_gl_reader_last_error(c->oracle));
            depth_expect(src, z->sw, z->sh, z->dw, z->dh, want);
            ok &= same_plane("linear vs captureDepthImpl", format, z, &lin, got, want,
                             2, fixed ? &worst_capture_fixed : &worst_capture_float);
            planes += ok;
        }
    }
done:
    free(src);
    free(raw);
    free(want);
    free(got);
    return planes;
}

static int open_ctx(ctx *c)
{
    memset(c, 0, sizeof *c);
    cg_err e = {{0}};
    cg_status st = cg_gl_depth_pass_create(&c->pass, &e);
    CHECK(st == CG_OK, "create: %s %s", cg_status_name(st), e.text);
    CHECK(cg_gl_reader_create(NULL, &c->pass_reader) == CG_OK &&
              cg_gl_reader_create(NULL, &c->oracle) == CG_OK,
          "readers");
    return c->pass && c->pass_reader && c->oracle ? 0 : 1;
}

static void close_ctx(ctx *c)
{
    cg_gl_depth_pass_destroy(c->pass);
    cg_gl_reader_destroy(c->pass_reader);
    cg_gl_reader_destroy(c->oracle);
}

/* A scene rendered the game's way: reverse-Z quads, GL_GREATER, cleared to 0. */
static int rendered(ctx *c, int z01)
{
    gl_scene sc;
    const size4 z = {97, 61, 50, 40};
    if (gl_scene_create(&sc, z.sw, z.sh) != 0) return 0;
    gl_quad q[3] = {
        {5, 5, 60, 40, {0}, 0.5}, {30, 20, 97, 61, {0}, 40.0}, {70, 0, 90, 10, {0}, 99.0}};
    int rc = gl_scene_draw_depth(&sc, q, 3, 0.1, 100.0, z01);
    int planes = 0;
    if (rc == 2) {
        printf("rendered scene with zZeroToOne=1 skipped: no glClipControl here\n");
    } else {
        CHECK(rc == 0, "draw depth scene");
        planes = all_encodings(c, sc.depth, GL_DEPTH_COMPONENT32F, &z, 512);
    }
    gl_scene_destroy(&sc);
    return planes;
}

static int case_sweep(void)
{
    ctx c;
    if (open_ctx(&c)) return 1;
    int planes = 0, textures = 0;
    for (size_t si = 0; si < SIZE_COUNT; si++) {
        const size4 *z = &SIZES[si];
        size_t sn = (size_t)z->sw * z->sh;
        float *d = malloc(sn * 4);
        depth_fill(d, z->sw, z->sh, (uint32_t)si + 1);
        for (size_t fi = 0; fi < DEPTH_FORMAT_COUNT; fi++) {
            GLenum f = DEPTH_FORMATS[fi];
            if (sn > 100000 && fi >= 2 && fi != 3) continue; /* 1080p: 32F, 24, 24_8 */
            GLuint tex = depth_texture(f, z->sw, z->sh, d);
            CHECK(tex != 0, "a %s texture of %dx%d", depth_format_name(f), z->sw, z->sh);
            if (!tex) continue;
            textures++;
            game_objs g;
            rgb_state before, after;
            if (si == STATE_SIZE && fi == 0) {
                set_game_state(&g);
                read_rgb_state(&before);
            }
            planes += all_encodings(&c, tex, f, z, si % 2 ? 256u * (si + 1) : 0);
            if (si == STATE_SIZE && fi == 0) {
                read_rgb_state(&after);
                CHECK(same_state(&before, &after), "every GL state the dispatch touches is the "
                                                   "game's again");
                clear_game_state(&g);
            }
            if (si == STATE_SIZE && fi == 1) {
                /* A shadow-map setup on the texture: the pass's sampler
                 * object still reads stored values. */
                glBindTexture(GL_TEXTURE_2D, tex);
                glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
                glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LESS);
                glBindTexture(GL_TEXTURE_2D, 0);
                CHECK(all_encodings(&c, tex, f, z, 0) == 1 + 2 * (int)DEPTH_PLANE_COUNT,
                      "a comparing texture read as stored");
            }
            CHECK(glGetError() == GL_NO_ERROR, "no GL error left behind");
            glDeleteTextures(1, &tex);
        }
        free(d);
    }
    planes += rendered(&c, 0);
    planes += rendered(&c, 1);
    close_ctx(&c);
    printf("%d textures, %d planes; max ulps: linear vs the formula %u, vs captureDepthImpl "
           "%u (float formats) %u (fixed-point); raw vs glReadPixels 0 (float formats) %u "
           "(fixed-point)\n",
           textures, planes, worst_formula, worst_capture_float, worst_capture_fixed,
           worst_raw_fixed);
    CHECK(planes >= 400, "the sweep ran (%d planes)", planes);
    return failures ? 1 : 0;
}

static int case_bad_input(cg_egl_headless *egl)
{
    cg_err e = {{0}};
    ctx c;
    if (open_ctx(&c)) return 1;
    const size4 z = {16, 8, 16, 8};
    float d[16 * 8];
    depth_fill(d, 16, 8, 3);
    GLuint tex = depth_texture(GL_DEPTH_COMPONENT32F, 16, 8, d);
    GLuint other = depth_texture(GL_DEPTH_COMPONENT32F, 17, 8, d);
    GLuint d32 = depth_texture(GL_DEPTH_COMPONENT32, 16, 8, d);
    GLuint buf = sentinel_buffer(4096);
    gl_scene sc;
    CHECK(gl_scene_create(&sc, 16, 8) == 0, "scene");
    cg_gl_depth_linear lin = {0.1f, 100.0f, 0};
    cg_gl_depth_job j = {tex, 16, 8, 16, 8, buf, 0, &lin};
    struct {
        const char *what;
        cg_gl_depth_job j;
        cg_status want;
        const char *text;
    } cases[] = {
        {"a colour texture", {sc.color, 16, 8, 16, 8, buf, 0, NULL}, CG_E_BAD_TEXTURE,
         "not a depth format"},
        {"another size", {other, 16, 8, 16, 8, buf, 0, NULL}, CG_E_BAD_TEXTURE, "17x8"},
        {"texture 0", {0, 16, 8, 16, 8, buf, 0, NULL}, CG_E_BAD_TEXTURE, "texture 0"},
        {"32-bit fixed point", {d32, 16, 8, 16, 8, buf, 0, NULL}, CG_E_BAD_TEXTURE,
         "GL_DEPTH_COMPONENT32 "},
        {"no buffer", {tex, 16, 8, 16, 8, 0, 0, NULL}, CG_E_INVALID_ARG, "buffer"},
        {"plane size 0x8", {tex, 16, 8, 0, 8, buf, 0, NULL}, CG_E_INVALID_ARG, "depth plane"},
        {"texture size -1", {tex, -1, 8, 16, 8, buf, 0, NULL}, CG_E_INVALID_ARG, "depth texture"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cg_status st = cg_gl_depth_pass_run(c.pass, c.pass_reader, &cases[i].j, &e);
        CHECK(st == cases[i].want && strstr(e.text, cases[i].text), "%s: %s %s", cases[i].what,
              cg_status_name(st), e.text);
    }
    static const float bad_planes[][2] = {{0, 1}, {2, 1}, {1, 1}, {-1, 1}, {1, INFINITY}, {NAN, 1}};
    for (size_t i = 0; i < sizeof bad_planes / sizeof bad_planes[0]; i++) {
        cg_gl_depth_linear b = {bad_planes[i][0], bad_planes[i][1], 1};
        j.lin = &b;
        cg_status st = cg_gl_depth_pass_run(c.pass, c.pass_reader, &j, &e);
        CHECK(st == CG_E_INVALID_ARG && strstr(e.text, "near"), "near %g far %g: %s %s",
              (double)b.near_plane, (double)b.far_plane, cg_status_name(st), e.text);
    }
    j.lin = &lin;
    GLint align = 0;
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &align);
    if (align > 1) {
        j.offset = (uint64_t)align / 2;
        cg_status st = cg_gl_depth_pass_run(c.pass, c.pass_reader, &j, &e);
        CHECK(st == CG_E_INVALID_ARG && strstr(e.text, "ALIGNMENT"), "offset %d: %s %s",
              align / 2, cg_status_name(st), e.text);
        j.offset = 0;
    }
    /* A depth-stencil texture set to read its stencil. */
    GLuint ds = depth_texture(GL_DEPTH24_STENCIL8, 16, 8, d);
    glBindTexture(GL_TEXTURE_2D, ds);
    glTexParameteri(GL_TEXTURE_2D, GL_DEPTH_STENCIL_TEXTURE_MODE, GL_STENCIL_INDEX);
    glBindTexture(GL_TEXTURE_2D, 0);
    cg_gl_depth_job js = {ds, 16, 8, 16, 8, buf, 0, NULL};
    cg_status st = cg_gl_depth_pass_run(c.pass, c.pass_reader, &js, &e);
    CHECK(st == CG_E_BAD_TEXTURE && strstr(e.text, "stencil"), "stencil mode: %s %s",
          cg_status_name(st), e.text);
    CHECK(cg_gl_depth_pass_run(NULL, c.pass_reader, &j, &e) == CG_E_INVALID_ARG, "NULL pass");
    CHECK(cg_gl_depth_pass_run(c.pass, c.pass_reader, NULL, &e) == CG_E_INVALID_ARG, "NULL job");
    CHECK(glGetError() == GL_NO_ERROR, "no GL error left behind");
    /* Still usable, and correct. */
    CHECK(all_encodings(&c, tex, GL_DEPTH_COMPONENT32F, &z, 0) == 1 + 2 * (int)DEPTH_PLANE_COUNT,
          "usable after bad input");
    CHECK(!cg_gl_reader_failed(c.pass_reader), "the reader is not failed by refused input");
    /* No context: create refused, nothing made. */
    cg_gl_depth_pass *p = (cg_gl_depth_pass *)&c;
    CHECK(cg_egl_headless_release(egl) == 0, "release the context");
    st = cg_gl_depth_pass_create(&p, &e);
    CHECK(st == CG_E_NO_CONTEXT && !p, "create without a context: %s %s", cg_status_name(st),
          e.text);
    CHECK(cg_egl_headless_make_current(egl) == 0, "make the context current again");
    CHECK(cg_gl_depth_pass_create(NULL, &e) == CG_E_INVALID_ARG, "NULL out");
    glDeleteTextures(1, &tex);
    glDeleteTextures(1, &other);
    glDeleteTextures(1, &d32);
    glDeleteTextures(1, &ds);
    glDeleteBuffers(1, &buf);
    gl_scene_destroy(&sc);
    close_ctx(&c);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s sweep|bad_input|ext\n", argv[0]);
        return 2;
    }
    const char *c = argv[1];
    if (strcmp(c, "ext") == 0) setenv("MESA_GL_VERSION_OVERRIDE", "4.2", 1);
    cg_egl_headless *egl = NULL;
    char why[256];
    if (cg_egl_headless_open(&egl, why, sizeof why) != 0) {
        printf("SKIP gl_depth_%s: no EGL context: %s\n", c, why);
        return SKIP;
    }
    int rc;
    if (!cg_gl_has_compute(NULL)) {
        printf("SKIP gl_depth_%s: this GL (%s, GL %d) has no compute shaders\n", c,
               (const char *)glGetString(GL_RENDERER), epoxy_gl_version());
        rc = SKIP;
    } else if (strcmp(c, "ext") == 0) {
        if (epoxy_gl_version() >= 43) {
            printf("SKIP gl_depth_ext: this driver (%s) gives GL %d (MESA_GL_VERSION_OVERRIDE "
                   "ignored)\n",
                   (const char *)glGetString(GL_RENDERER), epoxy_gl_version());
            rc = SKIP;
        } else {
            rc = case_sweep();
        }
    } else if (strcmp(c, "sweep") == 0) {
        rc = case_sweep();
    } else if (strcmp(c, "bad_input") == 0) {
        rc = case_bad_input(egl);
    } else {
        fprintf(stderr, "unknown case %s\n", c);
        rc = 2;
    }
    cg_egl_headless_close(egl);
    return rc;
}
