/*
 * gl_scene.h - test scenes rendered the way a game renders its main target:
 * an FBO with an RGBA8 color texture and a DEPTH_COMPONENT32F depth texture,
 * cleared, then flat quads drawn with a tiny GLSL 330 shader.
 *
 * Quads are pixel rectangles [x0,x1) x [y0,y1) counted from the bottom-left;
 * their edges fall on pixel boundaries so rasterisation is exact and the
 * expected pixels follow from the rectangles alone (gl_scene_expect_rgb).
 * Call everything with the scene's GL context current.
 */
#ifndef GL_SCENE_H
#define GL_SCENE_H

#include <stdint.h>

typedef struct gl_quad {
    int x0, y0, x1, y1;  /* pixels, bottom-left origin, half-open */
    uint8_t rgb[3];      /* color quads */
    double eye_z;        /* depth quads: eye distance, near <= eye_z <= far */
} gl_quad;

typedef struct gl_scene {
    unsigned fbo, color, depth, prog, vao, vbo;
    int w, h;
} gl_scene;

/* Create the target textures (w x h) and program. 0 = ok, else GL error. */
int gl_scene_create(gl_scene *s, int w, int h);
/* Reallocate both textures at a new size, keeping their names. */
int gl_scene_resize(gl_scene *s, int w, int h);
void gl_scene_destroy(gl_scene *s);

/* Clear color to `clear`, depth to 0 (reverse-Z far), draw the quads in
 * order (later ones on top). Restores the draw framebuffer binding to 0. */
int gl_scene_draw_color(gl_scene *s, const uint8_t clear[3], const gl_quad *q, int n);

/* Clear depth to 0 and draw depth quads through a reverse-Z perspective
 * projection with the given planes, GL_GREATER depth test. zero_to_one:
 * glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE) for the draw (restored);
 * returns 2 when clip control is not available. */
int gl_scene_draw_depth(gl_scene *s, const gl_quad *q, int n, double near_plane,
                        double far_plane, int zero_to_one);

/* Expected pixel (x, y) of a color scene: the last quad covering it, else
 * the clear color. */
void gl_scene_expect_rgb(const uint8_t clear[3], const gl_quad *q, int n, int x, int y,
                         uint8_t out[3]);

/* Expected eye distance at (x, y) of a depth scene (far where no quad). */
double gl_scene_expect_eye_z(const gl_quad *q, int n, double far_plane, int x, int y);

/* Window depth (reverse-Z, 1 = near, 0 = far) of eye distance z, derived
 * from the projection, for both clip conventions. */
double gl_scene_window_depth(double z, double near_plane, double far_plane, int zero_to_one);

/* Upload w x h RGBA8 pixels (data row 0 = GL's row 0, the bottom) into
 * level 0 of GL_TEXTURE_2D `tex`; the texture binding and unpack alignment
 * are restored. 0 = ok, else the GL error. */
int gl_scene_upload(unsigned tex, int w, int h, const uint8_t *rgba);

/* Nonzero when the current context has glClipControl (GL 4.5 or
 * GL_ARB_clip_control), which the [0,1] depth scenes need. */
int gl_scene_has_clip_control(void);

#endif /* GL_SCENE_H */
