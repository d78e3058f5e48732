/*
 * cg_metal_gl_apple.c - GL texture -> IOSurface-backed rectangle texture
 * (macOS GL 4.1 through CGL). See cg_metal_gl.h.
 *
 * Compiled only when CMake targets Apple; on Linux CI it is compiled with
 * -fsyntax-only against libepoxy's GL headers and tests/metal/apple_decls.
 * Not run on a Mac by this project.
 *
 * GL calls go through one checker (CG_METAL_GL_CALL) and CGL calls through
 * CG_CGL_CALL; both record the call in the shared shape of cg_err.h
 * (expression, error name and code, file:line) and return a status.
 */
#include <epoxy/gl.h>
#include <OpenGL/OpenGL.h>
#include <OpenGL/CGLIOSurface.h>
#include <IOSurface/IOSurfaceRef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_cursor.h"
#include "cg_err.h"
#include "cg_metal_gl.h"

struct cg_metal_gl {
    cg_metal_surface *surface;
    CGLContextObj ctx;     /* the context everything was created in */
    GLuint texture;        /* GL_TEXTURE_RECTANGLE on the surface */
    GLuint dst_fbo;        /* texture as color attachment 0 */
    GLuint src_fbo;        /* the game's texture, attached on demand */
    GLuint attached;       /* texture id attached to src_fbo; 0 = none */
    int width, height;
    cg_err err;
};

static const char *gl_error_name(GLenum e)
{
    switch (e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "unknown GL error";
    }
}

#define fail(g, ...) ((void)cg_fail(&(g)->err, CG_E_GL, __VA_ARGS__))

/* CG_OK when no GL error is pending after `expr`; otherwise records it. */
static cg_status gl_check(cg_metal_gl *g, cg_status st, const char *expr, const char *file,
                          int line)
{
    GLenum e = glGetError();
    if (e == GL_NO_ERROR) return CG_OK;
    return cg_fail_call(&g->err, st, expr, gl_error_name(e), (long long)e, file, line);
}

/* Run a GL call; its error, if any, is status `st`. */
#define CG_METAL_GL_CALL_AS(g, st, expr) ((expr), gl_check((g), (st), #expr, __FILE__, __LINE__))
#define CG_METAL_GL_CALL(g, expr) CG_METAL_GL_CALL_AS(g, CG_E_GL, expr)

static cg_status cgl_check(cg_metal_gl *g, CGLError e, const char *expr, const char *file,
                           int line)
{
    if (e == kCGLNoError) return CG_OK;
    const char *name = CGLErrorString(e);
    return cg_fail_call(&g->err, CG_E_PLATFORM, expr, name != NULL ? name : "?", (long long)e,
                        file, line);
}

#define CG_CGL_CALL(g, expr) cgl_check((g), (expr), #expr, __FILE__, __LINE__)

/* Errors the game left pending are not ours: drain them (bounded, as a
 * context without a current GL may never return GL_NO_ERROR). */
static void drain_gl_errors(void)
{
    for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; i++) {
    }
}

/* ---- state the calls touch, saved and restored --------------------------- */

typedef struct saved_state {
    GLint read_fbo, draw_fbo, tex_2d, tex_rect;
    GLboolean scissor_on;
    GLint scissor[4];
    GLfloat clear_color[4];
    GLboolean color_mask[4];
} saved_state;

static void save_state(saved_state *s)
{
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &s->read_fbo);
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &s->draw_fbo);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->tex_2d);
    glGetIntegerv(GL_TEXTURE_BINDING_RECTANGLE, &s->tex_rect);
    s->scissor_on = glIsEnabled(GL_SCISSOR_TEST);
    glGetIntegerv(GL_SCISSOR_BOX, s->scissor);
    glGetFloatv(GL_COLOR_CLEAR_VALUE, s->clear_color);
    glGetBooleanv(GL_COLOR_WRITEMASK, s->color_mask);
}

static void restore_state(const saved_state *s)
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)s->read_fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)s->draw_fbo);
    glBindTexture(GL_TEXTURE_2D, (GLuint)s->tex_2d);
    glBindTexture(GL_TEXTURE_RECTANGLE, (GLuint)s->tex_rect);
    if (s->scissor_on) {
        glEnable(GL_SCISSOR_TEST);
    } else {
        glDisable(GL_SCISSOR_TEST);
    }
    glScissor(s->scissor[0], s->scissor[1], s->scissor[2], s->scissor[3]);
    glClearColor(s->clear_color[0], s->clear_color[1], s->clear_color[2], s->clear_color[3]);
    glColorMask(s->color_mask[0], s->color_mask[1], s->color_mask[2], s->color_mask[3]);
}

/* ---- create / destroy ---------------------------------------------------- */

static void delete_gl_objects(cg_metal_gl *g)
{
    if (g->src_fbo != 0) glDeleteFramebuffers(1, &g->src_fbo);
    if (g->dst_fbo != 0) glDeleteFramebuffers(1, &g->dst_fbo);
    if (g->texture != 0) glDeleteTextures(1, &g->texture);
    g->src_fbo = g->dst_fbo = g->texture = 0;
    g->attached = 0;
}

/* Texture on the surface, destination framebuffer, source framebuffer. */
static cg_status make_gl_objects(cg_metal_gl *g)
{
    IOSurfaceRef io = (IOSurfaceRef)cg_metal_surface_handle(g->surface);
    CG_TRY(CG_METAL_GL_CALL(g, glGenTextures(1, &g->texture)));
    CG_TRY(CG_METAL_GL_CALL(g, glBindTexture(GL_TEXTURE_RECTANGLE, g->texture)));
    CG_TRY(CG_CGL_CALL(g, CGLTexImageIOSurface2D(g->ctx, GL_TEXTURE_RECTANGLE, GL_RGBA,
                                                 (GLsizei)g->width, (GLsizei)g->height, GL_BGRA,
                                                 GL_UNSIGNED_INT_8_8_8_8_REV, io, 0)));
    CG_TRY(CG_METAL_GL_CALL(g, glGenFramebuffers(1, &g->dst_fbo)));
    CG_TRY(CG_METAL_GL_CALL(g, glBindFramebuffer(GL_DRAW_FRAMEBUFFER, g->dst_fbo)));
    CG_TRY(CG_METAL_GL_CALL(g, glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                                                      GL_TEXTURE_RECTANGLE, g->texture, 0)));
    GLenum fb = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER);
    if (fb != GL_FRAMEBUFFER_COMPLETE) {
        fail(g, "IOSurface framebuffer incomplete: glCheckFramebufferStatus = 0x%04x", (unsigned)fb);
        return CG_E_GL;
    }
    CG_TRY(CG_METAL_GL_CALL(g, glGenFramebuffers(1, &g->src_fbo)));
    return CG_OK;
}

cg_status cg_metal_gl_create(const cg_metal_platform *pf, int w, int h, cg_metal_gl **out,
                             cg_err *err)
{
    cg_err_clear(err);
    if (out == NULL || pf == NULL) return CG_E_INVALID_ARG;
    *out = NULL;
    CG_TRY(cg_check_dims(w, h));
    CGLContextObj ctx = CGLGetCurrentContext();
    if (ctx == NULL) {
        (void)cg_fail(err, CG_OK, "CGLGetCurrentContext() is NULL");
        return CG_E_NO_CONTEXT;
    }
    cg_metal_gl *g = calloc(1, sizeof *g);
    if (g == NULL) return CG_E_NO_MEMORY;
    g->ctx = ctx;
    g->width = w;
    g->height = h;
    cg_status st = cg_metal_surface_create(pf, w, h, CG_METAL_FORMAT_BGRA, &g->surface, err);
    if (st != CG_OK) {
        free(g);
        return st;
    }
    saved_state saved;
    drain_gl_errors();
    save_state(&saved);
    st = make_gl_objects(g);
    restore_state(&saved);
    if (st != CG_OK) {
        (void)cg_fail_from(err, CG_OK, &g->err);
        cg_metal_gl_destroy(g);
        return st;
    }
    *out = g;
    return CG_OK;
}

void cg_metal_gl_destroy(cg_metal_gl *g)
{
    if (g == NULL) return;
    /* GL names belong to their context: delete them only there. */
    if (CGLGetCurrentContext() == g->ctx) delete_gl_objects(g);
    cg_metal_surface_destroy(g->surface);
    free(g);
}

cg_status cg_metal_gl_export_port(cg_metal_gl *g, int pid, uint32_t *port)
{
    if (g == NULL) return CG_E_INVALID_ARG;
    cg_status st = cg_metal_surface_export_port(g->surface, pid, port);
    if (st != CG_OK) (void)cg_fail_from(&g->err, st, cg_metal_surface_error(g->surface));
    return st;
}

const cg_metal_surface *cg_metal_gl_surface(const cg_metal_gl *g)
{
    return g != NULL ? g->surface : NULL;
}

const char *cg_metal_gl_last_error(const cg_metal_gl *g)
{
    return g != NULL ? g->err.text : "";
}

const cg_err *cg_metal_gl_error(const cg_metal_gl *g)
{
    return g != NULL ? &g->err : NULL;
}

/* ---- per frame ------------------------------------------------------------ */

/* Size of level 0 of a GL_TEXTURE_2D, or CG_E_BAD_TEXTURE. */
static cg_status source_size(cg_metal_gl *g, GLuint tex, GLint *w, GLint *h)
{
    if (tex == 0 || !glIsTexture(tex)) {
        fail(g, "texture %u is not a texture of the current context", (unsigned)tex);
        return CG_E_BAD_TEXTURE;
    }
    CG_TRY(CG_METAL_GL_CALL_AS(g, CG_E_BAD_TEXTURE, glBindTexture(GL_TEXTURE_2D, tex)));
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, w);
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, h);
    CG_TRY(gl_check(g, CG_E_BAD_TEXTURE, "glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, ...)",
                    __FILE__, __LINE__));
    if (*w <= 0 || *h <= 0) {
        fail(g, "texture %u has no level 0 image (%dx%d)", (unsigned)tex, (int)*w, (int)*h);
        return CG_E_BAD_TEXTURE;
    }
    return CG_OK;
}

static cg_status attach_source(cg_metal_gl *g, GLuint tex)
{
    CG_TRY(CG_METAL_GL_CALL(g, glBindFramebuffer(GL_READ_FRAMEBUFFER, g->src_fbo)));
    if (g->attached != tex) {
        /* Re-attach only when the game's texture changed (e.g. a resize). */
        if (CG_METAL_GL_CALL_AS(g, CG_E_BAD_TEXTURE,
                                glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                                                       GL_TEXTURE_2D, tex, 0)) != CG_OK) {
            g->attached = 0;
            return CG_E_BAD_TEXTURE;
        }
        g->attached = tex;
    }
    GLenum fb = glCheckFramebufferStatus(GL_READ_FRAMEBUFFER);
    if (fb != GL_FRAMEBUFFER_COMPLETE) {
        fail(g, "texture %u is not a complete color attachment: glCheckFramebufferStatus = 0x%04x",
             (unsigned)tex, (unsigned)fb);
        g->attached = 0;
        return CG_E_BAD_TEXTURE;
    }
    return CG_OK;
}

/* The arrow as scissored clears, one per run (no shader, no vertex state
 * to disturb); the runs come from the portable, unit-tested
 * cg_cursor_runs. */
static void draw_cursor(const cg_metal_gl *g, int cx, int cy)
{
    cg_cursor_run runs[CG_CURSOR_MAX_RUNS];
    const int n = cg_cursor_runs(g->width, g->height, cx, cy, runs);
    glEnable(GL_SCISSOR_TEST);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    for (int i = 0; i < n; i++) {
        const GLfloat v = runs[i].white ? 1.0f : 0.0f;
        glScissor(runs[i].x, runs[i].y, runs[i].len, 1);
        glClearColor(v, v, v, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
    }
}

static cg_status blit_frame(cg_metal_gl *g, GLuint tex, int draw, int cx, int cy)
{
    GLint sw = 0, sh = 0;
    CG_TRY(source_size(g, tex, &sw, &sh));
    CG_TRY(attach_source(g, tex));
    CG_TRY(CG_METAL_GL_CALL(g, glBindFramebuffer(GL_DRAW_FRAMEBUFFER, g->dst_fbo)));
    /* The scissor test applies to blits: the game's box must not crop ours. */
    glDisable(GL_SCISSOR_TEST);
    CG_TRY(CG_METAL_GL_CALL(g, glBlitFramebuffer(0, 0, sw, sh, 0, 0, g->width, g->height,
                                                 GL_COLOR_BUFFER_BIT, GL_NEAREST)));
    if (draw) {
        draw_cursor(g, cx, cy);
        CG_TRY(gl_check(g, CG_E_GL, "drawing the cursor (glScissor/glClear)", __FILE__, __LINE__));
    }
    /* The consumer reads from another process: the frame must be complete
     * when this call returns. */
    CG_TRY(CG_METAL_GL_CALL(g, glFinish()));
    return CG_OK;
}

cg_status cg_metal_gl_capture(cg_metal_gl *g, uint32_t src_texture, int w, int h,
                              const cg_cursor *cursor)
{
    if (g == NULL) return CG_E_INVALID_ARG;
    cg_err_clear(&g->err);
    if (w != g->width || h != g->height) {
        fail(g, "target %dx%d differs from the initialised %dx%d", w, h, g->width, g->height);
        return CG_E_INVALID_ARG;
    }
    CGLContextObj ctx = CGLGetCurrentContext();
    if (ctx == NULL || ctx != g->ctx) {
        fail(g, "%s", ctx == NULL ? "no current CGL context"
                                  : "the current CGL context is not the one zero-copy was initialised in");
        return CG_E_NO_CONTEXT;
    }
    saved_state saved;
    drain_gl_errors();
    save_state(&saved);
    cg_status st = blit_frame(g, (GLuint)src_texture, cursor && cursor->draw, cursor ? cursor->x : 0,
                                cursor ? cursor->y : 0);
    restore_state(&saved);
    return st;
}
