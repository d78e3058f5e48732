/* cg_gl_compute_none.c - the compute half of cg_gl.h where it is not built
 * (Windows: its only users are the zero-copy v2 GL ring and the depth plane
 * pass, which need Linux): no compute, every call CG_E_UNSUPPORTED. The
 * readback (cg_gl_reader.c) is built there and does not need it. */
#include <stddef.h>

#include "cg_gl.h"

static const char k_why[] = "GL compute is built on Linux only (the zero-copy v2 GL ring)";

int cg_gl_has_compute(const char **missing)
{
    if (missing) *missing = k_why;
    return 0;
}

cg_status cg_gl_dispatch_compute(cg_gl_reader *r, const cg_gl_dispatch *d)
{
    (void)r, (void)d;
    return CG_E_UNSUPPORTED;
}

cg_status cg_gl_compute_program(const char *source, unsigned *program, cg_err *err)
{
    (void)source;
    if (program) *program = 0;
    return cg_fail(err, CG_E_UNSUPPORTED, "%s", k_why);
}

cg_status cg_gl_uniform_buffer(unsigned *buf, const void *data, size_t bytes, cg_err *err)
{
    (void)buf, (void)data, (void)bytes;
    return cg_fail(err, CG_E_UNSUPPORTED, "%s", k_why);
}

cg_status cg_gl_depth_pass_create(cg_gl_depth_pass **out, cg_err *err)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = NULL;
    return cg_fail(err, CG_E_UNSUPPORTED, "%s", k_why);
}

void cg_gl_depth_pass_destroy(cg_gl_depth_pass *p)
{
    (void)p;
}

cg_status cg_gl_depth_pass_run(cg_gl_depth_pass *p, cg_gl_reader *r, const cg_gl_depth_job *j,
                               cg_err *err)
{
    (void)p, (void)r, (void)j;
    return cg_fail(err, CG_E_UNSUPPORTED, "%s", k_why);
}
