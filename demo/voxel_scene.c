/*
 * The demo's scene (voxel_scene.h): the world, its mesh with the shading
 * baked into the vertex colours, the camera flight and the GL targets.
 * Demo-only: one scene per process, in globals.
 */
#include "voxel_scene.h"

#include <epoxy/gl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_egl_headless.h"

const float VS_SKY[3] = {0.53f, 0.81f, 0.92f};

typedef struct vertex {
    float pos[3], color[3];
} vertex;

static struct {
    cg_egl_headless *ctx;
    GLuint fbo, color, depth, prog, vao, vbo;
    GLint u_mvp;
    int w, h, zero_to_one;
    GLsizei nverts;
} g;

/* The shading is in the vertex colours (voxel_scene.h); fog per fragment. */
static const char *const vs_src =
    "#version 330 core\n"
    "layout(location = 0) in vec3 pos;\n"
    "layout(location = 1) in vec3 color;\n"
    "uniform mat4 mvp;\n"
    "out vec3 v_color;\n"
    "out float v_dist;\n"
    "void main() {\n"
    "  v_color = color;\n"
    "  gl_Position = mvp * vec4(pos, 1.0);\n"
    "  v_dist = gl_Position.w;\n"
    "}\n";
static const char *const fs_src =
    "#version 330 core\n"
    "in vec3 v_color;\n"
    "in float v_dist;\n"
    "uniform vec4 fog;\n" /* start, range, unused, unused */
    "uniform vec3 sky;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "  float f = clamp((v_dist - fog.x) / fog.y, 0.0, 1.0);\n"
    "  frag = vec4(mix(v_color, sky, f), 1.0);\n"
    "}\n";

int vs_height_at(int x, int z)
{
    if (x < 0 || z < 0 || x >= VS_WORLD || z >= VS_WORLD) return 0;
    double v = 5.0 + 3.0 * sin(x * 0.21) * cos(z * 0.17) + 2.0 * sin((x + z) * 0.11) +
               1.5 * cos(x * 0.05 - z * 0.31);
    int h = (int)floor(v);
    return h < 1 ? 1 : (h > VS_MAX_H ? VS_MAX_H : h);
}

void vs_block_color(int y, int top, int is_top_face, float out[3])
{
    static const float grass[3] = {0.36f, 0.66f, 0.24f}, grass_side[3] = {0.45f, 0.55f, 0.25f},
                       dirt[3] = {0.55f, 0.38f, 0.22f}, stone[3] = {0.5f, 0.5f, 0.52f},
                       sand[3] = {0.86f, 0.80f, 0.55f};
    const float *c = stone;
    if (y == top - 1) c = top <= 3 ? sand : (is_top_face ? grass : grass_side);
    else if (y >= top - 3) c = dirt;
    memcpy(out, c, sizeof grass);
}

static int solid(int x, int y, int z)
{
    return y >= 0 && y < vs_height_at(x, z);
}

/* The corners of each face of the unit cube, counter-clockwise seen from
 * outside (GL's front faces), indexed by axis * 2 + (side < 0). */
static const int k_quads[6][4][3] = {
    {{1, 0, 0}, {1, 1, 0}, {1, 1, 1}, {1, 0, 1}}, /* +x */
    {{0, 0, 1}, {0, 1, 1}, {0, 1, 0}, {0, 0, 0}}, /* -x */
    {{0, 1, 1}, {1, 1, 1}, {1, 1, 0}, {0, 1, 0}}, /* +y */
    {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}}, /* -y */
    {{1, 0, 1}, {1, 1, 1}, {0, 1, 1}, {0, 0, 1}}, /* +z */
    {{0, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}}, /* -z */
};

/* The occlusion factor of corner q of the face of block b facing `side`
 * along `axis` (voxel_scene.h): the blocks in front of the face touching it. */
static float corner_ao(const int b[3], int axis, int side, const int q[3])
{
    int t1 = (axis + 1) % 3, t2 = (axis + 2) % 3;
    int front[3] = {b[0], b[1], b[2]};
    front[axis] += side;
    int e1[3] = {front[0], front[1], front[2]}, e2[3] = {front[0], front[1], front[2]};
    e1[t1] += q[t1] ? 1 : -1;
    e2[t2] += q[t2] ? 1 : -1;
    int s1 = solid(e1[0], e1[1], e1[2]), s2 = solid(e2[0], e2[1], e2[2]);
    int cn[3] = {e1[0], e1[1], e1[2]};
    cn[t2] = e2[t2];
    int occ = s1 && s2 ? 3 : s1 + s2 + solid(cn[0], cn[1], cn[2]);
    return 1.0f - VS_AO_STEP * (float)occ;
}

/* Append one face (two triangles) of the unit cube at (x, y, z). */
static void face(vertex *v, size_t *n, int x, int y, int z, int axis, int side, const float c[3])
{
    const int b[3] = {x, y, z};
    const int(*q)[3] = k_quads[axis * 2 + (side < 0)];
    float shade = axis == 1 ? VS_SHADE_TOP : (axis == 2 ? VS_SHADE_Z : VS_SHADE_X), ao[4];
    for (int i = 0; i < 4; i++) ao[i] = corner_ao(b, axis, side, q[i]);
    /* Split along the brighter diagonal, so that an occluded corner's
     * shadow does not leak across the whole face. */
    static const int diag02[6] = {0, 1, 2, 0, 2, 3}, diag13[6] = {0, 1, 3, 1, 2, 3};
    const int *order = ao[0] + ao[2] >= ao[1] + ao[3] ? diag02 : diag13;
    for (int i = 0; i < 6; i++) {
        int k = order[i];
        vertex *o = &v[(*n)++];
        for (int j = 0; j < 3; j++) {
            o->pos[j] = (float)(b[j] + q[k][j]);
            o->color[j] = c[j] * shade * ao[k];
        }
    }
}

/* Visible faces only: tops, and sides where the neighbour column is lower. */
static vertex *build_mesh(size_t *count)
{
    size_t cap = (size_t)VS_WORLD * VS_WORLD * (1 + 4 * VS_MAX_H) * 6;
    vertex *v = malloc(cap * sizeof *v);
    if (!v) return NULL;
    size_t n = 0;
    for (int x = 0; x < VS_WORLD; x++) {
        for (int z = 0; z < VS_WORLD; z++) {
            int top = vs_height_at(x, z);
            float c[3];
            vs_block_color(top - 1, top, 1, c);
            face(v, &n, x, top - 1, z, 1, 1, c);
            const int nb[4][4] = {{1, 0, 0, 1}, {-1, 0, 0, -1}, {0, 1, 2, 1}, {0, -1, 2, -1}};
            for (int k = 0; k < 4; k++) {
                int other = vs_height_at(x + nb[k][0], z + nb[k][1]);
                for (int y = other; y < top; y++) {
                    vs_block_color(y, top, 0, c);
                    face(v, &n, x, y, z, nb[k][2], nb[k][3], c);
                }
            }
        }
    }
    *count = n;
    return v;
}

/* Column-major 4x4 helpers. */
static void mat_mul(const float a[16], const float b[16], float out[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            float s = 0;
            for (int k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
            out[c * 4 + r] = s;
        }
}

/* Reverse-Z perspective: eye distance near -> depth 1, far -> 0. */
static void perspective_reverse_z(float fovy, float aspect, float n, float f, int zero_to_one,
                                  float m[16])
{
    float t = 1.0f / tanf(fovy * 0.5f);
    memset(m, 0, 16 * sizeof *m);
    m[0] = t / aspect;
    m[5] = t;
    m[11] = -1.0f;
    if (zero_to_one) {
        m[10] = n / (f - n);
        m[14] = n * f / (f - n);
    } else {
        m[10] = (n + f) / (f - n);
        m[14] = 2.0f * n * f / (f - n);
    }
}

static void look_at(const float eye[3], const float at[3], float m[16])
{
    float f[3] = {at[0] - eye[0], at[1] - eye[1], at[2] - eye[2]};
    float fl = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int i = 0; i < 3; i++) f[i] /= fl;
    float s[3] = {-f[2], 0.0f, f[0]}; /* f x up(0,1,0) */
    float sl = sqrtf(s[0] * s[0] + s[2] * s[2]);
    s[0] /= sl;
    s[2] /= sl;
    float u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
    const float r[16] = {s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0,
                         -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]),
                         -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]),
                         f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2], 1};
    memcpy(m, r, sizeof r);
}

/* Creates the program, targets and mesh; on failure writes why into `why`. */
static int setup_gl(int w, int h, char *why, size_t why_len)
{
    GLint max_size = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    if (w > max_size || h > max_size) {
        snprintf(why, why_len, "%dx%d exceeds this GL's largest texture side (GL_MAX_TEXTURE_SIZE %d)",
                 w, h, (int)max_size);
        return 1;
    }
    char log[384];
    g.prog = cg_gl_build_program(vs_src, fs_src, log, sizeof log);
    if (!g.prog) {
        snprintf(why, why_len, "shader program did not build: %s", log);
        return 1;
    }
    g.u_mvp = glGetUniformLocation(g.prog, "mvp");
    glUseProgram(g.prog);
    glUniform4f(glGetUniformLocation(g.prog, "fog"), VS_FOG_START, VS_FOG_RANGE, 0.0f, 0.0f);
    glUniform3fv(glGetUniformLocation(g.prog, "sky"), 1, VS_SKY);
    glUseProgram(0);
    glGenTextures(1, &g.color);
    glBindTexture(GL_TEXTURE_2D, g.color);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glGenTextures(1, &g.depth);
    glBindTexture(GL_TEXTURE_2D, g.depth);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT32F, w, h, 0, GL_DEPTH_COMPONENT, GL_FLOAT,
                 NULL);
    glBindTexture(GL_TEXTURE_2D, 0);
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        snprintf(why, why_len, "color/depth textures of %dx%d: GL error 0x%04x%s", w, h, err,
                 err == GL_OUT_OF_MEMORY ? " (out of memory)" : "");
        return 1;
    }
    glGenFramebuffers(1, &g.fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, g.fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, g.color, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, g.depth, 0);
    GLenum fb = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (fb != GL_FRAMEBUFFER_COMPLETE) {
        snprintf(why, why_len, "framebuffer incomplete (status 0x%04x)", fb);
        return 1;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);

    size_t n = 0;
    vertex *v = build_mesh(&n);
    if (!v) {
        snprintf(why, why_len, "out of memory for the world's mesh");
        return 1;
    }
    glGenVertexArrays(1, &g.vao);
    glBindVertexArray(g.vao);
    glGenBuffers(1, &g.vbo);
    glBindBuffer(GL_ARRAY_BUFFER, g.vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(n * sizeof *v), v, GL_STATIC_DRAW);
    free(v);
    for (GLuint i = 0; i < 2; i++) {
        glVertexAttribPointer(i, 3, GL_FLOAT, GL_FALSE, sizeof(vertex),
                              (const void *)(i * 3 * sizeof(float)));
        glEnableVertexAttribArray(i);
    }
    glBindVertexArray(0);
    g.nverts = (GLsizei)n;
    g.zero_to_one = epoxy_gl_version() >= 45 || epoxy_has_gl_extension("GL_ARB_clip_control");
    g.w = w;
    g.h = h;
    err = glGetError();
    if (err != GL_NO_ERROR) {
        snprintf(why, why_len, "mesh upload: GL error 0x%04x", err);
        return 1;
    }
    return 0;
}

int vs_open(int w, int h, char *why, size_t why_len)
{
    if (cg_egl_headless_open(&g.ctx, why, why_len) != 0) return 1;
    if (setup_gl(w, h, why, why_len) != 0) {
        vs_close();
        return 1;
    }
    return 0;
}

const char *vs_describe(void)
{
    return g.ctx ? cg_egl_headless_describe(g.ctx) : "";
}

unsigned vs_color_texture(void)
{
    return g.color;
}

unsigned vs_depth_texture(void)
{
    return g.depth;
}

int vs_zero_to_one(void)
{
    return g.zero_to_one;
}

void vs_camera(int frame, int frames, float eye[3], float at[3])
{
    float t = frames > 1 ? (float)frame / (float)(frames - 1) : 0.0f;
    float ang = 0.6f + 1.6f * t;
    const float c = VS_WORLD * 0.5f;
    eye[0] = c + 30.0f * cosf(ang);
    eye[1] = 20.0f - 6.0f * t;
    eye[2] = c + 30.0f * sinf(ang);
    at[0] = c - 6.0f * cosf(ang);
    at[1] = 4.0f;
    at[2] = c - 6.0f * sinf(ang);
}

/* One frame of a camera flying an arc over the world, finished on the GPU
 * (glFinish) so its cost is the render stage alone. */
int vs_render(int frame, int frames)
{
    float eye[3], at[3], proj[16], view[16], mvp[16];
    vs_camera(frame, frames, eye, at);
    perspective_reverse_z(VS_FOVY, (float)g.w / (float)g.h, VS_NEAR, VS_FAR, g.zero_to_one, proj);
    look_at(eye, at, view);
    mat_mul(proj, view, mvp);

    glBindFramebuffer(GL_FRAMEBUFFER, g.fbo);
    glViewport(0, 0, g.w, g.h);
    if (g.zero_to_one) glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_GREATER);
    glEnable(GL_CULL_FACE);
    glClearColor(VS_SKY[0], VS_SKY[1], VS_SKY[2], 1.0f);
    glClearDepth(0.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glUseProgram(g.prog);
    glUniformMatrix4fv(g.u_mvp, 1, GL_FALSE, mvp);
    glBindVertexArray(g.vao);
    glDrawArrays(GL_TRIANGLES, 0, g.nverts);
    glBindVertexArray(0);
    glUseProgram(0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glFinish();
    return glGetError() == GL_NO_ERROR ? 0 : 1;
}

int vs_readback(void *dst, size_t dst_len)
{
    if (!dst || dst_len < (size_t)g.w * (size_t)g.h * 4) return 1;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, g.fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, g.w, g.h, GL_RGBA, GL_UNSIGNED_BYTE, dst);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    return glGetError() == GL_NO_ERROR ? 0 : 1;
}

void vs_close(void)
{
    if (!g.ctx) return;
    glDeleteFramebuffers(1, &g.fbo);
    glDeleteTextures(1, &g.color);
    glDeleteTextures(1, &g.depth);
    glDeleteBuffers(1, &g.vbo);
    glDeleteVertexArrays(1, &g.vao);
    glDeleteProgram(g.prog);
    cg_egl_headless_close(g.ctx);
    memset(&g, 0, sizeof g);
}
