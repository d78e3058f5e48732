/* cg_gl_none.c - GL capture in a build without libepoxy (Windows, where
 * this project builds no libepoxy): the API of cg_gl.h, every GL operation
 * CG_E_UNSUPPORTED, so the natives throw UnsupportedOperationException. */
#include <stddef.h>

#include "cg_gl.h"

struct cg_gl_reader {
    int unused;
};

cg_status cg_gl_reader_create(const cg_gl_reader_config *cfg, cg_gl_reader **out)
{
    (void)cfg;
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = NULL;
    return CG_E_UNSUPPORTED;
}

void cg_gl_reader_destroy(cg_gl_reader *r)
{
    (void)r;
}

void cg_gl_reader_forget_gl(cg_gl_reader *r)
{
    (void)r;
}

const char *cg_gl_reader_last_error(const cg_gl_reader *r)
{
    (void)r;
    return "GL capture is not built for this platform (no libepoxy)";
}

const cg_err *cg_gl_reader_error(const cg_gl_reader *r)
{
    (void)r;
    return NULL; /* none is ever made */
}

cg_status cg_gl_current_context(void **key)
{
    if (key) *key = NULL;
    return CG_E_UNSUPPORTED;
}

cg_status cg_gl_read_color(cg_gl_reader *r, const cg_gl_color_request *q, uint8_t *dst,
                           size_t dst_len, int *frame_lag)
{
    (void)r, (void)q, (void)dst, (void)dst_len, (void)frame_lag;
    return CG_E_UNSUPPORTED;
}

cg_status cg_gl_reader_pack_for(cg_gl_reader *r, int tex_w, int tex_h, int dst_w, int dst_h,
                                cg_gl_pack *out)
{
    (void)r, (void)tex_w, (void)tex_h, (void)dst_w, (void)dst_h, (void)out;
    return CG_E_UNSUPPORTED;
}

cg_status cg_gl_reader_depth_count(cg_gl_reader *r, int tex_w, int tex_h, size_t *count)
{
    (void)r, (void)tex_w, (void)tex_h, (void)count;
    return CG_E_UNSUPPORTED;
}

cg_status cg_gl_read_rgba(cg_gl_reader *r, unsigned texture, int tex_w, int tex_h,
                          const uint8_t **rgba)
{
    (void)r, (void)texture, (void)tex_w, (void)tex_h, (void)rgba;
    return CG_E_UNSUPPORTED;
}

cg_status cg_gl_read_rgba_to_buffer(cg_gl_reader *r, unsigned texture, int tex_w, int tex_h,
                                    unsigned buffer)
{
    (void)r, (void)texture, (void)tex_w, (void)tex_h, (void)buffer;
    return CG_E_UNSUPPORTED;
}

int cg_gl_has_compute(const char **missing)
{
    if (missing) *missing = "GL (this build has no GL capture)";
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
    return cg_fail(err, CG_E_UNSUPPORTED, "this build has no GL capture");
}

cg_status cg_gl_uniform_buffer(unsigned *buf, const void *data, size_t bytes, cg_err *err)
{
    (void)buf, (void)data, (void)bytes;
    return cg_fail(err, CG_E_UNSUPPORTED, "this build has no GL capture");
}

cg_status cg_gl_read_depth(cg_gl_reader *r, unsigned texture, int tex_w, int tex_h,
                           const cg_gl_depth_linear *lin, float *dst, size_t dst_count)
{
    (void)r, (void)texture, (void)tex_w, (void)tex_h, (void)lin, (void)dst, (void)dst_count;
    return CG_E_UNSUPPORTED;
}

int cg_gl_reader_failed(const cg_gl_reader *r)
{
    (void)r;
    return 0;
}

void cg_gl_reader_reset(cg_gl_reader *r)
{
    (void)r;
}

cg_status cg_gl_depth_pass_create(cg_gl_depth_pass **out, cg_err *err)
{
    (void)err;
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = NULL;
    return CG_E_UNSUPPORTED;
}

void cg_gl_depth_pass_destroy(cg_gl_depth_pass *p)
{
    (void)p;
}

cg_status cg_gl_depth_pass_run(cg_gl_depth_pass *p, cg_gl_reader *r, const cg_gl_depth_job *j,
                               cg_err *err)
{
    (void)p, (void)r, (void)j, (void)err;
    return CG_E_UNSUPPORTED;
}
