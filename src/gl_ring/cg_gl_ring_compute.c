/*
 * cg_gl_ring_compute.c - a GL ring's compute writer (cg_gl_ring_compute.h).
 */
#include "cg_gl_ring_compute.h"

#include <string.h>

#include "cg_gl_check.h"
#include "cg_gl_copy_source.h" /* cg_gl_copy_source: src/vulkan/cg_vk_copy.comp's text */
#include "cg_gl_rgb_source.h" /* cg_gl_rgb_source: src/vulkan/cg_vk_rgb.comp's text */
#include "cg_shader_layout.h" /* the shaders' Params and the compute copy's layout */
#include "cg_vk_rgb.h"        /* cg_vk_rgb_groups: the RGB shader's layout */

#define GR_GL(err, expr) CG_GL_CALL_AS((err), expr, #expr)

/* The frame's parameters: the texture's size, the slot's, GL's rows
 * (bottom first: the RAW path's flip is 0), the cursor by the wire
 * format's rule (a hot spot outside the target draws nothing). */
static cg_gl_ring_params rgb_params(const cg_gl_ring_compute *c, const cg_cursor *cursor)
{
    cg_gl_ring_params p;
    memset(&p, 0, sizeof p);
    cg_rgb_shader_params_make(c->src_w, c->src_h, c->dst_w, c->dst_h, 0, 0, cursor, &p.p);
    return p;
}

int cg_gl_ring_fits_block(size_t bytes, GLint64 *max_block)
{
    *max_block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, max_block);
    cg_gl_drain_errors();
    return (uint64_t)*max_block >= (uint64_t)bytes;
}

cg_status cg_gl_ring_compute_setup(cg_gl_ring_compute *c, size_t block_bytes, cg_err *err)
{
    GLint64 max_block = 0;
    if (!cg_gl_ring_fits_block(block_bytes, &max_block))
        return cg_fail(err, CG_E_UNSUPPORTED,
                       "an RGB slot (or plane) of %dx%d is %zu bytes; this GL's shader storage "
                       "blocks hold at most %lld (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)",
                       c->dst_w, c->dst_h, block_bytes, (long long)max_block);
    CG_TRY(cg_gl_compute_program(c->copy ? cg_gl_copy_source : cg_gl_rgb_source, &c->program,
                                 err));
    GR_GL(err, glGenSamplers(1, &c->sampler));
    GR_GL(err, glSamplerParameteri(c->sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST));
    GR_GL(err, glSamplerParameteri(c->sampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST));
    if (!c->copy) { /* the cursor's bits: cg_vk_rgb.comp's only (the copy draws none) */
        uint32_t rows[CG_CURSOR_SIZE]; /* std140 uvec4 rows[4]: the same 16 words */
        cg_cursor_bits(rows);
        CG_TRY(cg_gl_uniform_buffer(&c->cursor_ubo, rows, sizeof rows, err));
    }
    for (uint32_t i = 0; i < c->slots; i++) {
        c->params[i] = rgb_params(c, NULL);
        CG_TRY(cg_gl_uniform_buffer(&c->params_ubo[i], &c->params[i], sizeof c->params[i], err));
    }
    if (c->copy)
        cg_shader_groups_64x4(c->src_w, c->src_h, &c->groups_x, &c->groups_y);
    else
        cg_vk_rgb_groups(c->dst_w, c->dst_h, &c->groups_x, &c->groups_y);
    return CG_OK;
}

cg_status cg_gl_ring_compute_dispatch(cg_gl_ring_compute *c, cg_gl_reader *reader,
                                      unsigned texture, uint32_t slot, GLuint slot_buffer,
                                      uint64_t offset, uint64_t size, const cg_cursor *cursor)
{
    cg_gl_dispatch gd;
    memset(&gd, 0, sizeof gd);
    gd.program = c->program;
    gd.texture = texture;
    gd.tex_w = c->src_w;
    gd.tex_h = c->src_h;
    gd.sampler = c->sampler;
    /* cg_vk_rgb.comp's GL bindings: Params at UBO 0, the slot at SSBO 2,
     * the cursor at UBO 3; the texture at unit 0. cg_vk_copy.comp's: the
     * same but the cursor, which it has not (no cursor buffer is made for
     * it, and UBO 3 is left alone: a query and two binds fewer a frame). */
    gd.bind[0].target = GL_UNIFORM_BUFFER;
    gd.bind[0].index = 0;
    gd.bind[0].buffer = c->params_ubo[slot];
    gd.bind[1].target = GL_SHADER_STORAGE_BUFFER;
    gd.bind[1].index = 2;
    gd.bind[1].buffer = slot_buffer;
    gd.bind[1].offset = offset;
    gd.bind[1].size = size;
    if (!c->copy) {
        gd.bind[2].target = GL_UNIFORM_BUFFER;
        gd.bind[2].index = 3;
        gd.bind[2].buffer = c->cursor_ubo;
    }
    /* A slot's parameters change only with the cursor: no upload otherwise. */
    cg_gl_ring_params p = rgb_params(c, cursor);
    if (memcmp(&p, &c->params[slot], sizeof p) != 0) {
        gd.update_buffer = c->params_ubo[slot];
        gd.update = &p;
        gd.update_size = sizeof p;
    }
    gd.groups_x = c->groups_x;
    gd.groups_y = c->groups_y;
    /* The storage writes made visible to later GL reads of the buffer (the
     * next frame's writes, glGetBufferSubData); the fence or semaphore that
     * follows makes them visible outside GL. No GL_CLIENT_MAPPED_BUFFER_
     * BARRIER_BIT: a slot's storage comes from a memory object, which GL
     * cannot map (glNamedBufferStorageMemEXT takes no map flags). */
    gd.barriers = GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT;
    cg_status st = cg_gl_dispatch_compute(reader, &gd);
    /* Uploaded (a failed GL call fails the ring, and a refused texture is
     * refused before the upload). */
    if (gd.update_size && st == CG_OK) c->params[slot] = p;
    return st;
}

void cg_gl_ring_compute_delete(cg_gl_ring_compute *c)
{
    for (uint32_t i = 0; i < CG_ZC_MAX_SLOTS; i++)
        if (c->params_ubo[i]) glDeleteBuffers(1, &c->params_ubo[i]);
    if (c->cursor_ubo) glDeleteBuffers(1, &c->cursor_ubo);
    if (c->sampler) glDeleteSamplers(1, &c->sampler);
    if (c->program) glDeleteProgram(c->program);
}
