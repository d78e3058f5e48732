/* The GL call checker and the texture check of src/gl_capture, the same
 * on every platform (the context probe is cg_gl_context_egl_glx.c on Linux,
 * cg_gl_wgl.c on Windows). */
#include "cg_gl_check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cg_gl.h"
#include "cg_gl_api.h"

const char *cg_gl_error_name(unsigned err)
{
    switch (err) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    case GL_CONTEXT_LOST: return "GL_CONTEXT_LOST";
    default: return "GL_UNKNOWN_ERROR";
    }
}

/* A lost context keeps reporting GL_CONTEXT_LOST; bound the loop. */
enum { CG_GL_MAX_DRAIN = 64 };

void cg_gl_drain_errors(void)
{
    for (int i = 0; i < CG_GL_MAX_DRAIN && glGetError() != GL_NO_ERROR; i++) {
    }
}

cg_status cg_gl_check_call(cg_err *err, const char *expr, const char *file, int line)
{
    GLenum e = glGetError();
    if (e == GL_NO_ERROR) return CG_OK;
    cg_fail_call(err, CG_E_GL, expr, cg_gl_error_name(e), (long long)e, file, line);
    cg_gl_drain_errors();
    return CG_E_GL;
}

cg_status cg_gl_texture_level0_bind(unsigned tex, int *w, int *h, int *internal_format,
                                    cg_err *err)
{
    if (tex == 0 || !glIsTexture(tex))
        return cg_fail(err, CG_E_BAD_TEXTURE, "texture %u is not a texture object", tex);
    GLint tw = 0, th = 0, tf = 0;
    glBindTexture(GL_TEXTURE_2D, tex);
    /* An error here means the name is not a usable GL_TEXTURE_2D (bound
     * before as another target): a bad texture, not a GL failure. */
    if (glGetError() != GL_NO_ERROR) {
        cg_gl_drain_errors();
        return cg_fail(err, CG_E_BAD_TEXTURE, "texture %u is not a GL_TEXTURE_2D", tex);
    }
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &tw);
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &th);
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_INTERNAL_FORMAT, &tf);
    if (cg_gl_check_call(err, "glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, ...)", __FILE__,
                         __LINE__) != CG_OK)
        return CG_E_BAD_TEXTURE;
    if (w) *w = tw;
    if (h) *h = th;
    if (internal_format) *internal_format = tf;
    return CG_OK;
}

cg_status cg_gl_texture_level0(unsigned tex, int *w, int *h, int *internal_format,
                               cg_err *err)
{
    cg_gl_drain_errors(); /* the game's pending errors are not ours */
    GLint prev = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &prev);
    cg_status st = cg_gl_texture_level0_bind(tex, w, h, internal_format, err);
    glBindTexture(GL_TEXTURE_2D, (GLuint)prev);
    return st;
}
