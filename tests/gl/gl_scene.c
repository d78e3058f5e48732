/* Test scenes: see gl_scene.h. */
#include "gl_scene.h"

#include <epoxy/gl.h>
#include <stddef.h>

#include "cg_egl_headless.h"

static const char *const vs_src =
    "#version 330 core\n"
    "layout(location = 0) in vec4 clip_pos;\n"
    "void main() { gl_Position = clip_pos; }\n";
static const char *const fs_src =
    "#version 330 core\n"
    "uniform vec4 color;\n"
    "out vec4 frag;\n"
    "void main() { frag = color; }\n";

static int gl_scene_alloc(gl_scene *s, int w, int h)
{
    glBindTexture(GL_TEXTURE_2D, s->color);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, s->depth);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT32F, w, h, 0, GL_DEPTH_COMPONENT,
                 GL_FLOAT, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    s->w = w;
    s->h = h;
    return glGetError() == GL_NO_ERROR ? 0 : 1;
}

int gl_scene_create(gl_scene *s, int w, int h)
{
    char log[512];
    s->prog = cg_gl_build_program(vs_src, fs_src, log, sizeof log);
    if (!s->prog) return 1;
    glGenTextures(1, &s->color);
    glGenTextures(1, &s->depth);
    if (gl_scene_alloc(s, w, h)) return 1;
    glGenFramebuffers(1, &s->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, s->fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, s->color, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, s->depth, 0);
    GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (st != GL_FRAMEBUFFER_COMPLETE) return 1;
    glGenVertexArrays(1, &s->vao);
    glGenBuffers(1, &s->vbo);
    glBindVertexArray(s->vao);
    glBindBuffer(GL_ARRAY_BUFFER, s->vbo);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return glGetError() == GL_NO_ERROR ? 0 : 1;
}

int gl_scene_resize(gl_scene *s, int w, int h)
{
    return gl_scene_alloc(s, w, h);
}

void gl_scene_destroy(gl_scene *s)
{
    glDeleteFramebuffers(1, &s->fbo);
    glDeleteTextures(1, &s->color);
    glDeleteTextures(1, &s->depth);
    glDeleteBuffers(1, &s->vbo);
    glDeleteVertexArrays(1, &s->vao);
    glDeleteProgram(s->prog);
}

/* Two triangles of a pixel rectangle at clip depth z, clip w. */
static void gl_scene_quad(const gl_scene *s, const gl_quad *q, float z, float w)
{
    float x0 = (2.0f * (float)q->x0 / (float)s->w - 1.0f) * w;
    float x1 = (2.0f * (float)q->x1 / (float)s->w - 1.0f) * w;
    float y0 = (2.0f * (float)q->y0 / (float)s->h - 1.0f) * w;
    float y1 = (2.0f * (float)q->y1 / (float)s->h - 1.0f) * w;
    const float v[6][4] = {{x0, y0, z, w}, {x1, y0, z, w}, {x1, y1, z, w},
                           {x0, y0, z, w}, {x1, y1, z, w}, {x0, y1, z, w}};
    glBufferData(GL_ARRAY_BUFFER, sizeof v, v, GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, 6);
}

static void gl_scene_begin(const gl_scene *s)
{
    glBindFramebuffer(GL_FRAMEBUFFER, s->fbo);
    glViewport(0, 0, s->w, s->h);
    glUseProgram(s->prog);
    glBindVertexArray(s->vao);
    glBindBuffer(GL_ARRAY_BUFFER, s->vbo);
}

static int gl_scene_end(void)
{
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glUseProgram(0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glFinish();
    return glGetError() == GL_NO_ERROR ? 0 : 1;
}

int gl_scene_draw_color(gl_scene *s, const uint8_t clear[3], const gl_quad *q, int n)
{
    gl_scene_begin(s);
    glDisable(GL_DEPTH_TEST);
    glClearColor(clear[0] / 255.0f, clear[1] / 255.0f, clear[2] / 255.0f, 1.0f);
    glClearDepth(0.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    GLint loc = glGetUniformLocation(s->prog, "color");
    for (int i = 0; i < n; i++) {
        glUniform4f(loc, q[i].rgb[0] / 255.0f, q[i].rgb[1] / 255.0f, q[i].rgb[2] / 255.0f,
                    1.0f);
        gl_scene_quad(s, &q[i], 0.0f, 1.0f);
    }
    return gl_scene_end();
}

double gl_scene_window_depth(double z, double n, double f, int zero_to_one)
{
    /* Reverse-Z projection: eye distance n -> 1, f -> 0. With [0,1] clip
     * range window depth is z_ndc = n (f - z) / (z (f - n)); with [-1,1] the
     * projection puts n at z_ndc = 1 and f at -1 with the same 1/z shape. */
    if (zero_to_one) return n * (f - z) / (z * (f - n));
    double ndc = (2.0 * n * f / z - n - f) / (f - n);
    return (ndc + 1.0) * 0.5;
}

int gl_scene_draw_depth(gl_scene *s, const gl_quad *q, int n, double near_plane,
                        double far_plane, int zero_to_one)
{
    if (zero_to_one && !gl_scene_has_clip_control()) return 2;
    gl_scene_begin(s);
    if (zero_to_one) glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_GREATER);
    glClearDepth(0.0);
    glClear(GL_DEPTH_BUFFER_BIT);
    for (int i = 0; i < n; i++) {
        double d = gl_scene_window_depth(q[i].eye_z, near_plane, far_plane, zero_to_one);
        double w = q[i].eye_z; /* perspective: clip w is the eye distance */
        double ndc = zero_to_one ? d : 2.0 * d - 1.0;
        gl_scene_quad(s, &q[i], (float)(ndc * w), (float)w);
    }
    glDisable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    if (zero_to_one) glClipControl(GL_LOWER_LEFT, GL_NEGATIVE_ONE_TO_ONE);
    return gl_scene_end();
}

void gl_scene_expect_rgb(const uint8_t clear[3], const gl_quad *q, int n, int x, int y,
                         uint8_t out[3])
{
    const uint8_t *c = clear;
    for (int i = 0; i < n; i++) {
        if (x >= q[i].x0 && x < q[i].x1 && y >= q[i].y0 && y < q[i].y1) c = q[i].rgb;
    }
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
}

double gl_scene_expect_eye_z(const gl_quad *q, int n, double far_plane, int x, int y)
{
    double z = far_plane;
    for (int i = 0; i < n; i++) {
        if (x >= q[i].x0 && x < q[i].x1 && y >= q[i].y0 && y < q[i].y1 && q[i].eye_z < z)
            z = q[i].eye_z;
    }
    return z;
}

int gl_scene_has_clip_control(void)
{
    return epoxy_gl_version() >= 45 || epoxy_has_gl_extension("GL_ARB_clip_control");
}

int gl_scene_upload(unsigned tex, int w, int h, const uint8_t *rgba)
{
    GLint old_tex = 0, old_align = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &old_tex);
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &old_align);
    glBindTexture(GL_TEXTURE_2D, (GLuint)tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glPixelStorei(GL_UNPACK_ALIGNMENT, old_align);
    glBindTexture(GL_TEXTURE_2D, (GLuint)old_tex);
    return (int)glGetError();
}
