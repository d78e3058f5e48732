/* The error-detail buffer (see cg_err.h). */
#include "cg_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cg_err_clear(cg_err *e)
{
    if (e) e->text[0] = '\0';
}

const char *cg_err_text(const cg_err *e)
{
    return e ? e->text : "";
}

cg_status cg_fail(cg_err *e, cg_status st, const char *fmt, ...)
{
    if (e == NULL) return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
    return st;
}

cg_status cg_fail_from(cg_err *e, cg_status st, const cg_err *src)
{
    return cg_fail(e, st, "%s", cg_err_text(src));
}

cg_status cg_fail_call(cg_err *e, cg_status st, const char *expr, const char *api_error,
                       long long code, const char *file, int line)
{
    const char *base = file ? strrchr(file, '/') : NULL;
    return cg_fail(e, st, "%s failed: %s (%lld) at %s:%d", expr ? expr : "?",
                   api_error ? api_error : "?", code, base ? base + 1 : (file ? file : "?"),
                   line);
}
