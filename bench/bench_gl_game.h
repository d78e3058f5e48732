/*
 * bench_gl_game.h - the "game" frame of the GL zero-copy benchmarks
 * (zerocopy_gl.c, zerocopy_gl_ring.c, zerocopy_v2.c): frame f clears the
 * FBO-attached texture to a colour of its own, untimed, so every capture
 * reads new contents. With CG_BENCH_GL_DRAWS=K the frame also draws K small
 * triangles, each with a texture bind and a uniform of its own (about 3K GL
 * calls, the CPU side of a game's frame: a real game's capture comes right
 * after hundreds of GL calls, with the driver's code and data warm in the
 * CPU's caches, where a clear alone leaves the capture to find them cold).
 * The frame leaves its program, vertex array and texture bound, as a game
 * does; a program that does not link ends the process (stderr). Include
 * after <epoxy/gl.h>; core or compatibility profile, GL 3.3+.
 */
#ifndef BENCH_GL_GAME_H
#define BENCH_GL_GAME_H

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int draws;        /* CG_BENCH_GL_DRAWS, read once; 0: the clear only */
    GLuint program, vao, tex[4];
    GLint colour;     /* the fragment shader's uniform */
} bench_gl_scene;

static inline GLuint bench_gl_shader(GLenum kind, const char *src)
{
    GLuint s = glCreateShader(kind);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    return s;
}

/* The draws' program, vertex array and textures, made on the first frame
 * that needs them (the current context's). */
static inline bench_gl_scene *bench_gl_scene_get(void)
{
    static bench_gl_scene sc = {-1, 0, 0, {0}, -1};
    if (sc.draws >= 0) return &sc;
    const char *k = getenv("CG_BENCH_GL_DRAWS");
    sc.draws = k ? atoi(k) : 0;
    if (sc.draws <= 0) return (sc.draws = 0, &sc);
    static const char *vs =
        "#version 330 core\n"
        "uniform vec4 colour;\n"
        "void main() {\n"
        "  vec2 p = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 0.1;\n"
        "  gl_Position = vec4(p + colour.xy * 1.8 - 0.9, 0.0, 1.0);\n"
        "}\n";
    static const char *fs =
        "#version 330 core\n"
        "uniform vec4 colour;\n"
        "uniform sampler2D tex;\n"
        "out vec4 o;\n"
        "void main() { o = colour * texture(tex, vec2(0.5)); }\n";
    GLuint v = bench_gl_shader(GL_VERTEX_SHADER, vs), f = bench_gl_shader(GL_FRAGMENT_SHADER, fs);
    sc.program = glCreateProgram();
    glAttachShader(sc.program, v);
    glAttachShader(sc.program, f);
    glLinkProgram(sc.program);
    glDeleteShader(v);
    glDeleteShader(f);
    GLint linked = 0;
    glGetProgramiv(sc.program, GL_LINK_STATUS, &linked);
    if (!linked) { /* the draws would fail one by one, and the run would time no draws */
        char log[512] = "";
        glGetProgramInfoLog(sc.program, sizeof log, NULL, log);
        fprintf(stderr, "bench_gl_game: CG_BENCH_GL_DRAWS: the draws' program: %s\n", log);
        exit(1);
    }
    sc.colour = glGetUniformLocation(sc.program, "colour");
    glGenVertexArrays(1, &sc.vao);
    glGenTextures(4, sc.tex);
    for (int i = 0; i < 4; i++) {
        const unsigned char px[4] = {255, (unsigned char)(64 * i), 128, 255};
        glBindTexture(GL_TEXTURE_2D, sc.tex[i]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 1, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    return &sc;
}

static inline void bench_gl_game_frame(GLuint fbo, int f)
{
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glClearColor((float)(f % 7) / 7.0f, (float)(f % 11) / 11.0f, (float)(f % 13) / 13.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    bench_gl_scene *sc = bench_gl_scene_get();
    if (sc->draws) {
        glUseProgram(sc->program);
        glBindVertexArray(sc->vao);
        for (int i = 0; i < sc->draws; i++) {
            glBindTexture(GL_TEXTURE_2D, sc->tex[i & 3]);
            glUniform4f(sc->colour, (float)((i * 37 + f) % 101) / 101.0f,
                        (float)((i * 53) % 97) / 97.0f, 0.5f, 1.0f);
            glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
        }
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

#endif /* BENCH_GL_GAME_H */
