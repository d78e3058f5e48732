/*
 * cg_gl_compute.c - compute work in the caller's GL context (cg_gl.h): a
 * program from GLSL compute source, small uniform buffers, and one
 * dispatch with the caller's state saved and restored (the GL producer's
 * RGB slot format). The reader's context rules are shared with
 * cg_gl_reader.c through cg_gl_reader_internal.h.
 */
#include <epoxy/gl.h>
#include <string.h>

#include "cg_gl.h"
#include "cg_gl_check.h"
#include "cg_gl_reader_internal.h"

/* ---- program and buffers ------------------------------------------------------ */

cg_status cg_gl_compute_program(const char *source, unsigned *program, cg_err *err)
{
    CG_RETURN_IF(!source || !program, CG_E_INVALID_ARG);
    *program = 0;
    GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
    if (!sh) {
        cg_gl_drain_errors();
        return cg_fail(err, CG_E_GL, "glCreateShader(GL_COMPUTE_SHADER) returned 0");
    }
    /* GL 4.3 takes the source as it is. An older context with the
     * extensions that make up compute gets them named in
     * place of the "#version 430" line (cg_gl_has_compute). */
    static const char version_line[] = "#version 430\n";
    static const char extensions[] = "#version 330\n"
                                     "#extension GL_ARB_compute_shader : require\n"
                                     "#extension GL_ARB_shader_storage_buffer_object : require\n"
                                     "#extension GL_ARB_shading_language_420pack : require\n"
                                     /* precise (the depth plane) */
                                     "#extension GL_ARB_gpu_shader5 : enable\n";
    const GLchar *src[2] = {extensions, source};
    int n = 1;
    if (epoxy_gl_version() >= 43) {
        src[0] = source;
    } else if (strncmp(source, version_line, sizeof version_line - 1) == 0) {
        src[1] = source + sizeof version_line - 1;
        n = 2;
    } else {
        glDeleteShader(sh);
        return cg_fail(err, CG_E_GL, "the compute shader does not start with %s",
                       "#version 430");
    }
    glShaderSource(sh, n, src, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    char log[512] = "";
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        glDeleteShader(sh);
        return cg_fail(err, CG_E_GL, "the compute shader did not compile: %s", log);
    }
    *program = glCreateProgram();
    glAttachShader(*program, sh);
    glLinkProgram(*program);
    glDeleteShader(sh); /* freed with the program */
    glGetProgramiv(*program, GL_LINK_STATUS, &ok);
    if (!ok) {
        glGetProgramInfoLog(*program, sizeof log, NULL, log);
        return cg_fail(err, CG_E_GL, "the compute program did not link: %s", log);
    }
    return cg_gl_check_call(err, "glLinkProgram(compute)", __FILE__, __LINE__);
}

cg_status cg_gl_uniform_buffer(unsigned *buf, const void *data, size_t bytes, cg_err *err)
{
    CG_RETURN_IF(!buf, CG_E_INVALID_ARG);
    GLint old = 0;
    glGetIntegerv(GL_UNIFORM_BUFFER_BINDING, &old);
    glGenBuffers(1, buf);
    glBindBuffer(GL_UNIFORM_BUFFER, *buf);
    glBufferData(GL_UNIFORM_BUFFER, (GLsizeiptr)bytes, data, GL_DYNAMIC_DRAW);
    cg_status st = cg_gl_check_call(err, "glBufferData(GL_UNIFORM_BUFFER)", __FILE__, __LINE__);
    glBindBuffer(GL_UNIFORM_BUFFER, (GLuint)old);
    return st;
}

/* ---- the dispatch (cg_gl_dispatch_compute) ------------------------------------ */

/* The caller's state a dispatch changes (cg_gl.h lists it). */
typedef struct cg_gl_saved_compute {
    GLint program, active_unit, tex2d, sampler, generic_ubo, generic_ssbo;
    GLint buffer[CG_GL_DISPATCH_BINDINGS];
    GLint64 start[CG_GL_DISPATCH_BINDINGS], size[CG_GL_DISPATCH_BINDINGS];
} cg_gl_saved_compute;

/* GL_UNIFORM_BUFFER or GL_SHADER_STORAGE_BUFFER: the queries of its
 * indexed bindings. */
static void cg_gl_binding_queries(GLenum target, GLenum q[3])
{
    int ubo = target == GL_UNIFORM_BUFFER;
    q[0] = ubo ? GL_UNIFORM_BUFFER_BINDING : GL_SHADER_STORAGE_BUFFER_BINDING;
    q[1] = ubo ? GL_UNIFORM_BUFFER_START : GL_SHADER_STORAGE_BUFFER_START;
    q[2] = ubo ? GL_UNIFORM_BUFFER_SIZE : GL_SHADER_STORAGE_BUFFER_SIZE;
}

/* Leaves unit 0 active. Every call counts: a publish makes this save and
 * restore each frame, and with 8 GL games on one GPU each GL call took
 * 0.3-1.3 us of the game's CPU on the H200 (docs/benchmarks.md), so a query
 * or a bind that cannot change anything is not made: an indexed binding's
 * range only where a buffer is bound there (binding 0 resets it), the
 * active unit only when it is not unit 0 already. */
static void cg_gl_save_compute(cg_gl_saved_compute *s, const cg_gl_dispatch *d)
{
    glGetIntegerv(GL_CURRENT_PROGRAM, &s->program);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &s->active_unit);
    glGetIntegerv(GL_UNIFORM_BUFFER_BINDING, &s->generic_ubo);
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &s->generic_ssbo);
    for (int i = 0; i < CG_GL_DISPATCH_BINDINGS; i++) {
        if (!d->bind[i].target) continue;
        GLenum q[3];
        cg_gl_binding_queries(d->bind[i].target, q);
        s->buffer[i] = 0;
        s->start[i] = s->size[i] = 0;
        glGetIntegeri_v(q[0], d->bind[i].index, &s->buffer[i]);
        if (!s->buffer[i]) continue;
        glGetInteger64i_v(q[1], d->bind[i].index, &s->start[i]);
        glGetInteger64i_v(q[2], d->bind[i].index, &s->size[i]);
    }
    if (s->active_unit != GL_TEXTURE0) glActiveTexture(GL_TEXTURE0);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->tex2d);
    glGetIntegerv(GL_SAMPLER_BINDING, &s->sampler);
}

/* Unit 0 is still the active one (the dispatch binds on it only). */
static void cg_gl_restore_compute(const cg_gl_saved_compute *s, const cg_gl_dispatch *d)
{
    glUseProgram((GLuint)s->program);
    /* Indexed bindings first: binding one also sets the generic binding. */
    for (int i = 0; i < CG_GL_DISPATCH_BINDINGS; i++) {
        if (!d->bind[i].target) continue;
        if (s->buffer[i] && s->size[i] > 0)
            glBindBufferRange(d->bind[i].target, d->bind[i].index, (GLuint)s->buffer[i],
                              (GLintptr)s->start[i], (GLsizeiptr)s->size[i]);
        else
            glBindBufferBase(d->bind[i].target, d->bind[i].index, (GLuint)s->buffer[i]);
    }
    glBindBuffer(GL_UNIFORM_BUFFER, (GLuint)s->generic_ubo);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, (GLuint)s->generic_ssbo);
    glBindSampler(0, (GLuint)s->sampler);
    glBindTexture(GL_TEXTURE_2D, (GLuint)s->tex2d);
    if (s->active_unit != GL_TEXTURE0) glActiveTexture((GLenum)s->active_unit);
    cg_gl_drain_errors();
}

/* Level 0 holds 8-bit RGB(A) texels that texelFetch returns as stored. An
 * sRGB texture is not one: texelFetch decoded it to linear even with
 * GL_SKIP_DECODE_EXT set on the texture (Mesa 22.3), while glReadPixels
 * gives its stored bytes. */
static cg_status cg_gl_check_rgba8(cg_gl_reader *r, unsigned tex, int format)
{
    switch (format) {
    case GL_RGBA8: case GL_RGB8: case GL_RGBA: case GL_RGB: return CG_OK;
    case GL_SRGB8_ALPHA8: case GL_SRGB8:
        return cg_fail(cg_gl_reader_err(r), CG_E_BAD_TEXTURE,
                          "texture %u is sRGB: a compute shader reads it decoded to linear, not "
                          "as stored (use the plain copy for sRGB targets)",
                          tex);
    default:
        return cg_fail(cg_gl_reader_err(r), CG_E_BAD_TEXTURE,
                          "texture %u's internal format 0x%04x is not 8-bit RGB(A) "
                          "(GL_RGBA8, GL_RGB8 or their sRGB forms)",
                          tex, (unsigned)format);
    }
}

/* A depth format texelFetch of a sampler2D reads as depth. Depth-stencil
 * textures read depth unless GL_DEPTH_STENCIL_TEXTURE_MODE (GL 4.3 or
 * GL_ARB_stencil_texturing; always depth without them) says stencil. The
 * texture is bound to unit 0's GL_TEXTURE_2D (cg_gl_check_texture). */
static cg_status cg_gl_check_depth(cg_gl_reader *r, unsigned tex, int format)
{
    switch (format) {
    case GL_DEPTH_COMPONENT32F: case GL_DEPTH_COMPONENT24: case GL_DEPTH_COMPONENT16:
    case GL_DEPTH_COMPONENT:
        return CG_OK;
    case GL_DEPTH24_STENCIL8: case GL_DEPTH32F_STENCIL8: break;
    case GL_DEPTH_COMPONENT32:
        /* Mesa's texelFetch of 32-bit fixed-point depth keeps about 24 bits
         * (values near 0 read as 0; glReadPixels keeps them): refused
         * rather than written imprecisely. */
        return cg_fail(cg_gl_reader_err(r), CG_E_BAD_TEXTURE,
                       "texture %u is GL_DEPTH_COMPONENT32 (32-bit fixed point), which a "
                       "shader does not read at full precision on every driver: use "
                       "GL_DEPTH_COMPONENT32F or GL_DEPTH_COMPONENT24",
                       tex);
    default:
        return cg_fail(cg_gl_reader_err(r), CG_E_BAD_TEXTURE,
                       "texture %u's internal format 0x%04x is not a depth format "
                       "(GL_DEPTH_COMPONENT32F, GL_DEPTH_COMPONENT24, GL_DEPTH_COMPONENT16, "
                       "GL_DEPTH_COMPONENT, GL_DEPTH24_STENCIL8 or GL_DEPTH32F_STENCIL8)",
                       tex, (unsigned)format);
    }
    GLint mode = GL_DEPTH_COMPONENT;
    if (epoxy_gl_version() >= 43 || epoxy_has_gl_extension("GL_ARB_stencil_texturing"))
        glGetTexParameteriv(GL_TEXTURE_2D, GL_DEPTH_STENCIL_TEXTURE_MODE, &mode);
    if (mode != GL_DEPTH_COMPONENT)
        return cg_fail(cg_gl_reader_err(r), CG_E_BAD_TEXTURE,
                       "depth-stencil texture %u is set to read its stencil "
                       "(GL_DEPTH_STENCIL_TEXTURE_MODE GL_STENCIL_INDEX): set "
                       "GL_DEPTH_COMPONENT for the depth plane",
                       tex);
    return CG_OK;
}

static cg_status cg_gl_check_kind(cg_gl_reader *r, const cg_gl_dispatch *d)
{
    int format = 0, w = 0, h = 0;
    if (d->kind == CG_GL_TEXTURE_RGBA8) {
        CG_TRY(cg_gl_check_texture(r, d->texture, d->tex_w, d->tex_h, &format));
        return cg_gl_check_rgba8(r, d->texture, format);
    }
    CG_TRY(cg_gl_texture_level0_bind(d->texture, &w, &h, &format, cg_gl_reader_err(r)));
    CG_TRY(cg_gl_check_depth(r, d->texture, format));
    if (w != d->tex_w || h != d->tex_h)
        return cg_fail(cg_gl_reader_err(r), CG_E_BAD_TEXTURE,
                       "depth texture %u is %dx%d; this depth plane reads %dx%d (the colour "
                       "source's size)",
                       d->texture, w, h, d->tex_w, d->tex_h);
    return CG_OK;
}

static cg_status cg_gl_run_dispatch(cg_gl_reader *r, const cg_gl_dispatch *d)
{
    CG_TRY(cg_gl_check_kind(r, d));
    /* One error check for the lot: a glGetError per call would be a round
     * trip to a threaded driver each. */
    glUseProgram(d->program);
    glBindSampler(0, d->sampler);
    for (int i = 0; i < CG_GL_DISPATCH_BINDINGS; i++) {
        if (!d->bind[i].target) continue;
        if (d->bind[i].size)
            glBindBufferRange(d->bind[i].target, d->bind[i].index, d->bind[i].buffer,
                              (GLintptr)d->bind[i].offset, (GLsizeiptr)d->bind[i].size);
        else
            glBindBufferBase(d->bind[i].target, d->bind[i].index, d->bind[i].buffer);
    }
    if (d->update_size) {
        glBindBuffer(GL_UNIFORM_BUFFER, d->update_buffer);
        glBufferSubData(GL_UNIFORM_BUFFER, 0, (GLsizeiptr)d->update_size, d->update);
    }
    /* A depth texture set to compare (GL_COMPARE_REF_TO_TEXTURE, as a shadow
     * map is) reads as comparison results on NVIDIA's driver even through
     * the ring's sampler object (compare mode NONE) with texelFetch: the
     * texture's own mode is set to NONE for the dispatch and put back after
     * it (the texture is bound to unit 0 by cg_gl_check_kind). */
    GLint compare = GL_NONE;
    if (d->kind != CG_GL_TEXTURE_RGBA8) {
        glGetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, &compare);
        if (compare != GL_NONE) glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_NONE);
    }
    glDispatchCompute(d->groups_x, d->groups_y, 1);
    if (compare != GL_NONE) glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, compare);
    if (d->barriers) glMemoryBarrier(d->barriers);
    return cg_gl_check_call(cg_gl_reader_err(r),
                            "glUseProgram, glBindSampler, glBindBuffer{Base,Range}, "
                            "glBufferSubData, glDispatchCompute, glMemoryBarrier",
                            __FILE__, __LINE__);
}

int cg_gl_has_compute(const char **missing)
{
    static const char *const need[] = {"GL_ARB_compute_shader",
                                       "GL_ARB_shader_storage_buffer_object",
                                       "GL_ARB_shading_language_420pack"};
    const char *dummy;
    if (!missing) missing = &dummy;
    *missing = NULL;
    if (epoxy_gl_version() >= 43) return 1;
    *missing = "GL 3.3 with GL_ARB_compute_shader";
    if (epoxy_gl_version() < 33) return 0;
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!epoxy_has_gl_extension(need[i])) {
            *missing = need[i];
            return 0;
        }
    *missing = NULL;
    return 1;
}

cg_status cg_gl_dispatch_compute(cg_gl_reader *r, const cg_gl_dispatch *d)
{
    CG_RETURN_IF(!r || !d || !d->program || !d->groups_x || !d->groups_y, CG_E_INVALID_ARG);
    CG_RETURN_IF(d->kind != CG_GL_TEXTURE_RGBA8 && d->kind != CG_GL_TEXTURE_DEPTH,
                 CG_E_INVALID_ARG);
    CG_TRY(cg_gl_usable(r));
    CG_TRY(cg_check_dims(d->tex_w, d->tex_h));
    CG_TRY(cg_gl_enter(r));
    if (!cg_gl_reader_can_compute(r))
        return cg_fail(cg_gl_reader_err(r), CG_E_UNSUPPORTED,
                          "a compute dispatch needs GL 4.3 (compute shaders) or GL 3.3 with its "
                          "extensions; this context is GL %d.%d",
                          epoxy_gl_version() / 10, epoxy_gl_version() % 10);
    cg_gl_drain_errors();
    cg_gl_saved_compute saved;
    cg_gl_save_compute(&saved, d);
    cg_status st = cg_gl_run_dispatch(r, d);
    cg_gl_restore_compute(&saved, d);
    return cg_gl_mark(r, st);
}
