/* The GL call checker and current-context probe of src/gl_capture. */
#include "cg_gl_check.h"

#include <dlfcn.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <stdio.h>
#include <string.h>

#include "cg_gl.h"

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

cg_status cg_gl_check_call(char *buf, size_t len, const char *expr, const char *file,
                           int line)
{
    GLenum e = glGetError();
    if (e == GL_NO_ERROR) return CG_OK;
    const char *base = strrchr(file, '/');
    if (buf && len) {
        snprintf(buf, len, "%s failed: %s (0x%04x) at %s:%d", expr, cg_gl_error_name(e),
                 (unsigned)e, base ? base + 1 : file, line);
    }
    cg_gl_drain_errors();
    return CG_E_GL;
}

/* A GLX context can only be current when the process already loaded a GLX
 * library, so look it up with RTLD_NOLOAD: libepoxy's own GLX dispatch would
 * abort in a process without libGL. */
static void *cg_glx_current_context(void)
{
    static const char *const libs[] = {"libGLX.so.0", "libGL.so.1"};
    void *ctx = NULL;
    for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !ctx; i++) {
        void *h = dlopen(libs[i], RTLD_LAZY | RTLD_NOLOAD);
        if (!h) continue;
        void *sym = dlsym(h, "glXGetCurrentContext");
        if (sym) {
            void *(*fn)(void);
            memcpy(&fn, &sym, sizeof fn); /* object -> function pointer, C11-clean */
            ctx = fn();
        }
        dlclose(h);
    }
    return ctx;
}

void *cg_gl_current_key(void)
{
    void *ctx = NULL;
    if (epoxy_has_egl()) ctx = (void *)eglGetCurrentContext();
    if (!ctx) ctx = cg_glx_current_context();
    return ctx;
}

cg_status cg_gl_current_context(void **key)
{
    void *ctx = cg_gl_current_key();
    if (!ctx) return CG_E_NO_CONTEXT;
    /* A context object can exist while GL is unusable (e.g. lost); only call
     * epoxy's version helpers once GL answers, since they abort otherwise. */
    if (glGetString(GL_VERSION) == NULL) return CG_E_NO_CONTEXT;
    if (!epoxy_is_desktop_gl() || epoxy_gl_version() < 30) return CG_E_UNSUPPORTED;
    if (key) *key = ctx;
    return CG_OK;
}
