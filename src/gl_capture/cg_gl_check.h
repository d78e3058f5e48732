/*
 * cg_gl_check.h - the one GL call checker of src/gl_capture (module-private).
 *
 * Every GL call whose failure matters goes through CG_GL_CALL, which records
 * the expression, file, line and the GL error name in a context's last-error
 * text and returns CG_E_GL from the enclosing function. Nothing here prints,
 * aborts or exits.
 */
#ifndef CG_GL_CHECK_H
#define CG_GL_CHECK_H

#include <stddef.h>

#include "cg_status.h"

/* "GL_INVALID_OPERATION" etc.; "GL_UNKNOWN_ERROR" otherwise. Never NULL. */
const char *cg_gl_error_name(unsigned err);

/* Discard every pending GL error (GL cannot tell them apart from ours). */
void cg_gl_drain_errors(void);

/* After a GL call: CG_OK when glGetError reports nothing; otherwise writes
 * "<expr> failed: <NAME> (0x....) at <file>:<line>" into buf and returns
 * CG_E_GL. The remaining queued errors are drained. */
cg_status cg_gl_check_call(char *buf, size_t len, const char *expr, const char *file,
                           int line);

/* The current EGL or GLX context (cg_gl_current_context's key) without its
 * version checks, or NULL when none is current. Calls no GL function. */
void *cg_gl_current_key(void);

/* Run a GL call and return CG_E_GL (text in buf) when it raised an error. */
#define CG_GL_CALL(buf, len, expr) CG_GL_CALL_AS(buf, len, expr, #expr)

/* The same with the expression's text given: a wrapper macro passes #expr
 * itself, since an argument handed on to CG_GL_CALL is macro-expanded
 * first (libepoxy's glReadPixels -> epoxy_glReadPixels, GL_RGB -> 0x1907). */
#define CG_GL_CALL_AS(buf, len, expr, text)                                     \
    do {                                                                        \
        expr;                                                                   \
        CG_TRY(cg_gl_check_call((buf), (len), (text), __FILE__, __LINE__));     \
    } while (0)

#endif /* CG_GL_CHECK_H */
