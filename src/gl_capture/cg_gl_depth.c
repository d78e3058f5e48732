/*
 * cg_gl_depth.c - the depth plane pass (cg_gl.h, cg_gl_depth_pass): the
 * game's depth texture into a buffer object as float32 rows, upright, by
 * one compute dispatch (cg_gl_dispatch_compute, so the caller's state is
 * saved and restored as for the RGB plane).
 */
#include <epoxy/gl.h>
#include <stdlib.h>
#include <string.h>

#include "cg_gl.h"
#include "cg_gl_check.h"
#include "cg_gl_depth_source.h" /* cg_gl_depth_source: src/vulkan/cg_vk_depth.comp's text */
#include "cg_shader_layout.h"
#include "cg_size.h"

/* The shader's Params block (std140: its nine 4-byte members, padded to 48). */
typedef struct dp_params {
    cg_depth_shader_params p;
    uint32_t pad[3];
} dp_params;

struct cg_gl_depth_pass {
    void *gl_ctx; /* the context its objects live in */
    GLuint program, sampler, params_ubo;
    dp_params params; /* in params_ubo now */
    GLint64 max_block;
    GLint ssbo_align;
};

cg_status cg_gl_depth_pass_create(cg_gl_depth_pass **out, cg_err *err)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = NULL;
    void *key = cg_gl_current_key();
    if (!key) return cg_fail(err, CG_E_NO_CONTEXT, "no GL context is current on this thread");
    const char *missing = NULL;
    if (!cg_gl_has_compute(&missing))
        return cg_fail(err, CG_E_UNSUPPORTED,
                       "the depth plane needs GL 4.3 (compute shaders) or %s; this context is "
                       "GL %d.%d without it",
                       missing, epoxy_gl_version() / 10, epoxy_gl_version() % 10);
    /* `precise`: the linear depth's exact products and sums must not be
     * reassociated or contracted. */
    if (epoxy_gl_version() < 40 && !epoxy_has_gl_extension("GL_ARB_gpu_shader5"))
        return cg_fail(err, CG_E_UNSUPPORTED,
                       "the depth plane needs GL 4.0 or GL_ARB_gpu_shader5 (precise); this "
                       "context is GL %d.%d without it",
                       epoxy_gl_version() / 10, epoxy_gl_version() % 10);
    cg_gl_depth_pass *p = calloc(1, sizeof *p);
    CG_RETURN_IF(!p, CG_E_NO_MEMORY);
    p->gl_ctx = key;
    cg_gl_drain_errors();
    cg_status st = cg_gl_compute_program(cg_gl_depth_source, &p->program, err);
    if (st == CG_OK) {
        /* The plane's own sampler: texelFetch of a sampler2D whose texture
         * compares (a shadow setup of the game's) is undefined; the
         * sampler object's compare mode replaces the texture's. */
        glGenSamplers(1, &p->sampler);
        glSamplerParameteri(p->sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glSamplerParameteri(p->sampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glSamplerParameteri(p->sampler, GL_TEXTURE_COMPARE_MODE, GL_NONE);
        glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &p->max_block);
        glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &p->ssbo_align);
        st = cg_gl_check_call(err, "glGenSamplers, glSamplerParameteri, glGetInteger*",
                              __FILE__, __LINE__);
    }
    if (st == CG_OK)
        st = cg_gl_uniform_buffer(&p->params_ubo, &p->params, sizeof p->params, err);
    if (st != CG_OK) {
        cg_gl_depth_pass_destroy(p);
        return st;
    }
    *out = p;
    return CG_OK;
}

void cg_gl_depth_pass_destroy(cg_gl_depth_pass *p)
{
    if (!p) return;
    if (p->gl_ctx && cg_gl_current_key() == p->gl_ctx) {
        if (p->params_ubo) glDeleteBuffers(1, &p->params_ubo);
        if (p->sampler) glDeleteSamplers(1, &p->sampler);
        if (p->program) glDeleteProgram(p->program);
        cg_gl_drain_errors();
    }
    free(p);
}

static cg_status dp_check_job(const cg_gl_depth_pass *p, const cg_gl_depth_job *j, cg_err *err)
{
    CG_TRY(cg_check_dims_named("depth texture", j->src_w, j->src_h, err));
    CG_TRY(cg_check_dims_named("depth plane", j->dst_w, j->dst_h, err));
    if (!j->buffer) return cg_fail(err, CG_E_INVALID_ARG, "no buffer for the depth plane");
    uint64_t bytes = (uint64_t)j->dst_w * (uint64_t)j->dst_h * 4u;
    if (bytes > (uint64_t)p->max_block)
        return cg_fail(err, CG_E_UNSUPPORTED,
                       "a %dx%d depth plane is %llu bytes; this GL's shader storage blocks hold "
                       "at most %lld (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)",
                       j->dst_w, j->dst_h, (unsigned long long)bytes, (long long)p->max_block);
    if (p->ssbo_align > 0 && j->offset % (uint64_t)p->ssbo_align)
        return cg_fail(err, CG_E_INVALID_ARG,
                       "depth plane offset %llu is not a multiple of "
                       "GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT (%d)",
                       (unsigned long long)j->offset, p->ssbo_align);
    if (j->lin) {
        cg_status st = cg_depth_check_planes(j->lin->near_plane, j->lin->far_plane);
        if (st != CG_OK)
            return cg_fail(err, st, "linear depth needs 0 < near < far, finite; got near=%g "
                                    "far=%g",
                           (double)j->lin->near_plane, (double)j->lin->far_plane);
    }
    return CG_OK;
}

cg_status cg_gl_depth_pass_run(cg_gl_depth_pass *p, cg_gl_reader *r, const cg_gl_depth_job *j,
                               cg_err *err)
{
    CG_RETURN_IF(!p || !r || !j, CG_E_INVALID_ARG);
    CG_TRY(dp_check_job(p, j, err));
    if (cg_gl_current_key() != p->gl_ctx)
        return cg_fail(err, CG_E_BAD_STATE,
                       "the depth plane pass was made in another GL context than the current one");
    dp_params q;
    memset(&q, 0, sizeof q);
    /* GL's rows are bottom first: flip 0 (the RGB plane's rule). */
    cg_depth_shader_params_make(j->src_w, j->src_h, j->dst_w, j->dst_h, 0, !j->lin,
                                j->lin ? j->lin->near_plane : 0.0f,
                                j->lin ? j->lin->far_plane : 0.0f, &q.p);
    cg_gl_dispatch gd;
    memset(&gd, 0, sizeof gd);
    gd.program = p->program;
    gd.texture = j->texture;
    gd.tex_w = j->src_w;
    gd.tex_h = j->src_h;
    gd.kind = CG_GL_TEXTURE_DEPTH;
    gd.sampler = p->sampler;
    /* cg_vk_depth.comp's GL bindings: Params at UBO 0, the plane at SSBO 2. */
    gd.bind[0].target = GL_UNIFORM_BUFFER;
    gd.bind[0].index = 0;
    gd.bind[0].buffer = p->params_ubo;
    gd.bind[1].target = GL_SHADER_STORAGE_BUFFER;
    gd.bind[1].index = 2;
    gd.bind[1].buffer = j->buffer;
    gd.bind[1].offset = j->offset;
    gd.bind[1].size = (uint64_t)j->dst_w * (uint64_t)j->dst_h * 4u;
    /* The parameters change only with the planes or the size. */
    if (memcmp(&q, &p->params, sizeof q) != 0) {
        gd.update_buffer = p->params_ubo;
        gd.update = &q;
        gd.update_size = sizeof q;
    }
    cg_shader_groups_64x4(j->dst_w, j->dst_h, &gd.groups_x, &gd.groups_y);
    /* As the RGB plane's: visible to later GL reads of the buffer; the
     * frame's fence or semaphore makes them visible outside GL. */
    gd.barriers = GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT |
                  GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT;
    cg_status st = cg_gl_dispatch_compute(r, &gd);
    if (st == CG_OK && gd.update_size) p->params = q;
    if (st != CG_OK) cg_fail_from(err, st, cg_gl_reader_error(r));
    return st;
}
