/*
 * cg_gl_check.h - the one GL call checker of src/gl_capture (module-private).
 *
 * Every GL call whose failure matters goes through CG_GL_CALL, which records
 * the expression, the GL error name and code, file and line in a context's
 * cg_err (the shape every GPU checker shares, cg_err.h) and returns CG_E_GL
 * from the enclosing function. Nothing here prints, aborts or exits.
 */
#ifndef CG_GL_CHECK_H
#define CG_GL_CHECK_H

#include <stddef.h>

#include "cg_err.h"
#include "cg_status.h"

/* "GL_INVALID_OPERATION" etc.; "GL_UNKNOWN_ERROR" otherwise. Never NULL. */
const char *cg_gl_error_name(unsigned err);

/* Discard every pending GL error (GL cannot tell them apart from ours). */
void cg_gl_drain_errors(void);

/* After a GL call: CG_OK when glGetError reports nothing; otherwise records
 * "<expr> failed: <NAME> (<code>) at <file>:<line>" in err and returns
 * CG_E_GL. The remaining queued errors are drained. */
cg_status cg_gl_check_call(cg_err *err, const char *expr, const char *file, int line);

/* Level 0 of GL_TEXTURE_2D `tex`: size and internal format, the binding of
 * the active unit left as found. CG_E_BAD_TEXTURE (reason in err) when the
 * name is 0, not a texture, or not usable as GL_TEXTURE_2D. The one texture
 * check of every GL path. */
cg_status cg_gl_texture_level0(unsigned tex, int *w, int *h, int *internal_format,
                               cg_err *err);

/* The same check for a caller that saved the active unit's GL_TEXTURE_2D
 * binding and will restore it, with no GL error pending (it drained them):
 * `tex` is left bound there (on failure the binding is unspecified). Three
 * GL calls fewer than cg_gl_texture_level0, on the per-frame paths. */
cg_status cg_gl_texture_level0_bind(unsigned tex, int *w, int *h, int *internal_format,
                                    cg_err *err);

/* The current EGL or GLX context (cg_gl_current_context's key) without its
 * version checks, or NULL when none is current. Calls no GL function. */
void *cg_gl_current_key(void);

/* `sym` from the first of `libs` (NULL-terminated) the process has already
 * loaded (RTLD_NOLOAD: nothing is loaded here), or NULL. The window-system
 * libraries, EGL's and GLX's (libGLX, else libGL), in cg_egl_libs and
 * cg_glx_libs. A dlopen per call: not for per-frame use. */
void *cg_gl_loaded_sym(const char *const *libs, const char *sym);
extern const char *const cg_egl_libs[];
extern const char *const cg_glx_libs[];

/* The thread's current EGL or GLX binding (display, draw and read surfaces,
 * context; for EGL also the bound client API), as the game left it. Some
 * drivers drop it from under the game: NVIDIA's (580) vkDestroyInstance
 * leaves no EGL context current on the calling thread. Code that tears down
 * another API on the game's GL thread saves the binding first and restores
 * it after. Calls no GL function; finds EGL/GLX only where the process has
 * loaded them (RTLD_NOLOAD). Not for per-frame use (a dlopen per call). */
typedef struct cg_gl_binding {
    int api; /* 0: nothing current, 1: EGL, 2: GLX */
    void *display, *draw, *read, *context;
    unsigned long glx_draw, glx_read; /* GLX drawables are XIDs */
    unsigned egl_client_api;
} cg_gl_binding;

void cg_gl_binding_save(cg_gl_binding *b);

/* Make b current again if it no longer is. Returns 0 when it still was (or
 * nothing was current at save), 1 when it was made current again, -1 when
 * that failed (the game's context is then not current: nothing more can be
 * done from here). */
int cg_gl_binding_restore(const cg_gl_binding *b);

/* Run a GL call and return CG_E_GL (text in buf) when it raised an error. */
#define CG_GL_CALL(err, expr) CG_GL_CALL_AS(err, expr, #expr)

/* The same with the expression's text given: a wrapper macro passes #expr
 * itself, since an argument handed on to CG_GL_CALL is macro-expanded
 * first (libepoxy's glReadPixels -> epoxy_glReadPixels, GL_RGB -> 0x1907). */
#define CG_GL_CALL_AS(err, expr, text)                                          \
    do {                                                                        \
        expr;                                                                   \
        CG_TRY(cg_gl_check_call((err), (text), __FILE__, __LINE__));            \
    } while (0)

#endif /* CG_GL_CHECK_H */
