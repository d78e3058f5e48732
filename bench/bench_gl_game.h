/*
 * bench_gl_game.h - the "game" frame of the GL zero-copy benchmarks
 * (zerocopy_gl.c, zerocopy_gl_ring.c): frame f clears the FBO-attached
 * texture to a colour of its own, untimed, so every capture reads new
 * contents. Include after <epoxy/gl.h>.
 */
#ifndef BENCH_GL_GAME_H
#define BENCH_GL_GAME_H

static inline void bench_gl_game_frame(GLuint fbo, int f)
{
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glClearColor((float)(f % 7) / 7.0f, (float)(f % 11) / 11.0f, (float)(f % 13) / 13.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

#endif /* BENCH_GL_GAME_H */
