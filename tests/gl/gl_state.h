/*
 * gl_state.h - the caller's GL state that the library's readback and
 * compute dispatches save and restore, read back for the tests'
 * before/after comparison (test_gl_ring.c, test_gl_depth.c), and a game's
 * non-default setting of it. Call with the context current.
 */
#ifndef GL_STATE_H
#define GL_STATE_H

#include <epoxy/gl.h>
#include <string.h>

/* Every state the readback path saves, read back. */
typedef struct gl_state {
    GLint v[12];
} gl_state;

static inline void read_state(gl_state *s)
{
    static const GLenum names[12] = {
        GL_READ_FRAMEBUFFER_BINDING, GL_DRAW_FRAMEBUFFER_BINDING, GL_PIXEL_PACK_BUFFER_BINDING,
        GL_TEXTURE_BINDING_2D,       GL_PACK_ALIGNMENT,           GL_PACK_ROW_LENGTH,
        GL_PACK_SKIP_ROWS,           GL_PACK_SKIP_PIXELS,         GL_PACK_SWAP_BYTES,
        GL_PACK_IMAGE_HEIGHT,        GL_PACK_SKIP_IMAGES,         GL_CLAMP_READ_COLOR,
    };
    for (int i = 0; i < 12; i++) glGetIntegerv(names[i], &s->v[i]);
}

/* Every state the dispatch touches, and the readback's, read back. */
typedef struct rgb_state {
    gl_state read;
    GLint program, active, unit0_tex, unit0_sampler, unit3_tex, ubo, ssbo;
    GLint bind[3];
    GLint64 start[3], size[3];
} rgb_state;

static inline void read_rgb_state(rgb_state *s)
{
    memset(s, 0, sizeof *s);
    read_state(&s->read);
    glGetIntegerv(GL_CURRENT_PROGRAM, &s->program);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &s->active);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->unit3_tex);
    glActiveTexture(GL_TEXTURE0);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->unit0_tex);
    glGetIntegerv(GL_SAMPLER_BINDING, &s->unit0_sampler);
    glActiveTexture((GLenum)s->active);
    glGetIntegerv(GL_UNIFORM_BUFFER_BINDING, &s->ubo);
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &s->ssbo);
    static const GLenum q[3][3] = {
        {GL_UNIFORM_BUFFER_BINDING, GL_UNIFORM_BUFFER_START, GL_UNIFORM_BUFFER_SIZE},
        {GL_SHADER_STORAGE_BUFFER_BINDING, GL_SHADER_STORAGE_BUFFER_START, GL_SHADER_STORAGE_BUFFER_SIZE},
        {GL_UNIFORM_BUFFER_BINDING, GL_UNIFORM_BUFFER_START, GL_UNIFORM_BUFFER_SIZE}};
    static const GLuint idx[3] = {0, 2, 3};
    for (int i = 0; i < 3; i++) {
        glGetIntegeri_v(q[i][0], idx[i], &s->bind[i]);
        glGetInteger64i_v(q[i][1], idx[i], &s->start[i]);
        glGetInteger64i_v(q[i][2], idx[i], &s->size[i]);
    }
}

/* The game's objects and non-default state for the state check: its own
 * program, unit 3 active, textures on units 0 and 3, a sampler on unit 0,
 * ranges at the shader's UBO 0, SSBO 2 and a buffer at UBO 3, other
 * buffers on the generic bindings. */
typedef struct game_objs {
    GLuint program, tex[2], sampler, buf[4];
} game_objs;

static inline void set_game_state(game_objs *g)
{
    static const char *src = "#version 430\nlayout(local_size_x = 1) in;\nvoid main() {}\n";
    GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(sh, 1, &src, NULL);
    glCompileShader(sh);
    g->program = glCreateProgram();
    glAttachShader(g->program, sh);
    glLinkProgram(g->program);
    glDeleteShader(sh);
    glGenTextures(2, g->tex);
    glGenSamplers(1, &g->sampler);
    glGenBuffers(4, g->buf);
    for (int i = 0; i < 4; i++) {
        glBindBuffer(GL_UNIFORM_BUFFER, g->buf[i]);
        glBufferData(GL_UNIFORM_BUFFER, 1024, NULL, GL_STATIC_DRAW);
    }
    glUseProgram(g->program);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, g->tex[0]);
    glBindSampler(0, g->sampler);
    glBindBufferRange(GL_UNIFORM_BUFFER, 0, g->buf[0], 256, 512);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 2, g->buf[1], 128, 64);
    glBindBufferBase(GL_UNIFORM_BUFFER, 3, g->buf[2]);
    glBindBuffer(GL_UNIFORM_BUFFER, g->buf[3]);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->buf[2]);
    glActiveTexture(GL_TEXTURE3);
    glBindTexture(GL_TEXTURE_2D, g->tex[1]);
}

static inline void clear_game_state(game_objs *g)
{
    glUseProgram(0);
    glActiveTexture(GL_TEXTURE0);
    glBindSampler(0, 0);
    glDeleteProgram(g->program);
    glDeleteTextures(2, g->tex);
    glDeleteSamplers(1, &g->sampler);
    glDeleteBuffers(4, g->buf);
}

static inline int same_state(const rgb_state *a, const rgb_state *b)
{
    int ok = memcmp(&a->read, &b->read, sizeof a->read) == 0 && a->program == b->program &&
             a->active == b->active && a->unit0_tex == b->unit0_tex &&
             a->unit0_sampler == b->unit0_sampler && a->unit3_tex == b->unit3_tex &&
             a->ubo == b->ubo && a->ssbo == b->ssbo;
    for (int i = 0; i < 3; i++)
        ok = ok && a->bind[i] == b->bind[i] && a->start[i] == b->start[i] && a->size[i] == b->size[i];
    return ok;
}

#endif /* GL_STATE_H */
