/*
 * cg_err.h - the one error-detail buffer and the one way to fill it.
 *
 * A context keeps a cg_err next to its state; when a call fails, the layer
 * writes what failed into it and returns a cg_status, and jni/ puts the text
 * into the Java exception's message. Because the buffer is a struct, its
 * size travels with its type: no caller passes a pointer where an array's
 * sizeof was meant.
 *
 * Every GPU API call the library checks is reported in one shape, whatever
 * the API (GL, Vulkan, CUDA, CGL):
 *     "<expression> failed: <API error name> (<code>) at <file>:<line>"
 * Each API's checker macro (CG_GL_CALL, CG_VK_CHECK, CG_CUDA_CHECK, ...) is
 * a thin wrapper that turns its native error into a name and calls
 * cg_fail_call. Nothing here prints, aborts or exits.
 */
#ifndef CG_ERR_H
#define CG_ERR_H

#include <stddef.h>

#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Room for an expression, an error name and a path. */
#define CG_ERR_SIZE 600

typedef struct cg_err {
    char text[CG_ERR_SIZE]; /* NUL-terminated; "" when nothing failed */
} cg_err;

#if defined(__GNUC__)
#define CG_PRINTF_(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CG_PRINTF_(fmt, args)
#endif

/* Empty the text. NULL: no-op. */
void cg_err_clear(cg_err *e);

/* The text; "" for NULL. Never NULL. */
const char *cg_err_text(const cg_err *e);

/* Replace the text with a printf-style message and return `st` (so a
 * failing path reads `return cg_fail(&ctx->err, CG_E_..., "...", ...)`).
 * NULL e: only returns st. */
cg_status cg_fail(cg_err *e, cg_status st, const char *fmt, ...) CG_PRINTF_(3, 4);

/* Copy another error's text (NULL src: empty). Returns st. */
cg_status cg_fail_from(cg_err *e, cg_status st, const cg_err *src);

/* Record a failed API call in the shared shape and return `st`. `file` is
 * shortened to its base name. */
cg_status cg_fail_call(cg_err *e, cg_status st, const char *expr, const char *api_error,
                       long long code, const char *file, int line);

#ifdef __cplusplus
}
#endif

#endif /* CG_ERR_H */
