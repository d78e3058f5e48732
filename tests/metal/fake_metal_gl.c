/* fake_metal_gl.c - see fake_metal_gl.h. Every failure leaves a text that
 * names the fake step, so the test can see it cross into the backend. */
#include "fake_metal_gl.h"

#include <stdlib.h>
#include <string.h>

#include "cg_metal_gl.h"

fake_metal_gl_log fake_gl;

struct cg_metal_gl {
    cg_err err;
};

void fake_metal_gl_reset(void)
{
    memset(&fake_gl, 0, sizeof fake_gl);
    fake_gl.port = 0x11223344u;
}

cg_status cg_metal_gl_create(const cg_metal_platform *pf, int w, int h, cg_metal_gl **out,
                             cg_err *err)
{
    (void)pf;
    fake_gl.creates++;
    fake_gl.create_w = w;
    fake_gl.create_h = h;
    *out = NULL;
    if (fake_gl.fail_create != CG_OK)
        return cg_fail(err, fake_gl.fail_create, "fake create failed");
    *out = calloc(1, sizeof **out);
    if (!*out) return CG_E_NO_MEMORY;
    fake_gl.live++;
    return CG_OK;
}

cg_status cg_metal_gl_export_port(cg_metal_gl *g, int pid, uint32_t *port)
{
    fake_gl.export_pid = pid;
    if (fake_gl.fail_export != CG_OK)
        return cg_fail(&g->err, fake_gl.fail_export, "fake export failed");
    *port = fake_gl.port;
    return CG_OK;
}

cg_status cg_metal_gl_capture(cg_metal_gl *g, uint32_t src_texture, int w, int h,
                              const cg_cursor *cursor)
{
    fake_gl.captures++;
    fake_gl.capture_texture = src_texture;
    fake_gl.capture_w = w;
    fake_gl.capture_h = h;
    if (cursor) fake_gl.capture_cursor = *cursor;
    if (fake_gl.fail_capture != CG_OK)
        return cg_fail(&g->err, fake_gl.fail_capture, "fake capture failed");
    return CG_OK;
}

const cg_err *cg_metal_gl_error(const cg_metal_gl *g)
{
    return g ? &g->err : NULL;
}

void cg_metal_gl_destroy(cg_metal_gl *g)
{
    if (!g) return;
    fake_gl.destroys++;
    fake_gl.live--;
    free(g);
}
