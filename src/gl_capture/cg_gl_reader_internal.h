/*
 * cg_gl_reader_internal.h - internal to src/gl_capture: what the compute
 * dispatch (cg_gl_compute.c) and the read state and framebuffers
 * (cg_gl_state.c) share with the reader (cg_gl_reader.c), whose struct
 * stays private to it.
 */
#ifndef CG_GL_READER_INTERNAL_H
#define CG_GL_READER_INTERNAL_H

#include "cg_gl_api.h"

#include "cg_err.h"
#include "cg_gl.h"

/* A framebuffer with one texture attached (attached again on every read:
 * cg_gl_bind_target). */
typedef struct cg_gl_target {
    GLuint fbo;
    GLuint tex;
    int attached;
} cg_gl_target;

/* Optional state of the current context that changes what glReadPixels
 * returns; found once per context (cg_gl_enter). */
enum {
    CG_GL_CAP_PACK_INVERT = 1u << 0,  /* GL_MESA_pack_invert */
    CG_GL_CAP_REVERSE_ROWS = 1u << 1, /* GL_ANGLE_pack_reverse_row_order */
    CG_GL_CAP_COMPAT = 1u << 2,       /* compatibility profile: pixel transfer state */
    CG_GL_CAP_COMPUTE = 1u << 3,      /* GL 4.3: compute shaders (cg_gl_dispatch_compute) */
};

/* The CG_GL_CAP_* of the current context (GL answers, desktop GL 3.0+). */
unsigned cg_gl_read_caps(void);

/* The caller's state that a read changes, saved before and restored after.
 *
 * Every state of the GL 4.6 spec (sections 8.4.1, 18.2) and of the pack
 * extensions that changes the bytes glReadPixels returns for RGBA/RGB
 * unsigned bytes and float depth from a framebuffer object:
 * - the read framebuffer (ours) and the pixel pack buffer binding;
 * - the pack parameters: alignment, row length, skip rows/pixels, swap
 *   bytes; LSB first (bitmaps), image height and skip images (3D images)
 *   do not apply to these reads but are set too, since a driver that got
 *   them wrong would be no surprise;
 * - GL_PACK_INVERT_MESA and GL_PACK_REVERSE_ROW_ORDER_ANGLE, where their
 *   extension exists (they turn the rows upside down);
 * - GL_CLAMP_READ_COLOR and GL_FRAMEBUFFER_SRGB (float or sRGB buffers);
 * - in a compatibility profile, the pixel transfer state: colour and depth
 *   scale and bias, and the colour maps (GL_MAP_COLOR).
 * The read buffer is state of the framebuffer, and ours is set once when it
 * is made. Scissor, masks and the imaging subset's tables (absent from
 * Mesa and from core profiles) do not apply to framebuffer reads here. */
typedef struct cg_gl_saved {
    GLint read_fbo, draw_fbo, pack_buffer, tex2d;
    GLint align, row_length, skip_rows, skip_pixels, swap_bytes;
    GLint lsb_first, image_height, skip_images, invert, reverse_rows, clamp_read;
    GLboolean srgb, map_color;
    GLfloat transfer[10]; /* scale and bias of red, green, blue, alpha, depth */
    unsigned caps;
    int draw_touched; /* set when a framebuffer was created through GL_FRAMEBUFFER */
} cg_gl_saved;

/* Save what a read changes (caps: the context's CG_GL_CAP_*). */
void cg_gl_save(cg_gl_saved *s, unsigned caps);
/* Pixel-store values the reads need (alignment 4 for RGBA and depth rows,
 * 1 for tightly packed RGB rows); set only where they differ from s. */
void cg_gl_set_pack(const cg_gl_saved *s, GLint align);
/* Restore everything cg_gl_save captured; the draw framebuffer only when a
 * framebuffer creation went through GL_FRAMEBUFFER. */
void cg_gl_restore(const cg_gl_saved *s);
/* Make `t` a framebuffer with `tex` attached at `attachment`, bound to
 * GL_READ_FRAMEBUFFER and complete (CG_E_BAD_TEXTURE, err says why). */
cg_status cg_gl_bind_target(cg_err *err, cg_gl_saved *saved, cg_gl_target *t, GLenum attachment,
                            GLuint tex);

/* CG_E_BAD_STATE while the reader is failed. */
cg_status cg_gl_usable(cg_gl_reader *r);
/* A GL failure (CG_E_GL) fails the reader; returns st. */
cg_status cg_gl_mark(cg_gl_reader *r, cg_status st);
/* The current context (made the reader's; its GL objects made fresh in a
 * new one) and its capabilities. */
cg_status cg_gl_enter(cg_gl_reader *r);
/* tex is a GL_TEXTURE_2D with a level 0 of at least w x h (*format: its
 * internal format); binds it to GL_TEXTURE_2D of the active unit (the
 * caller restores that). */
cg_status cg_gl_check_texture(cg_gl_reader *r, GLuint tex, int w, int h, int *format);
/* The entered context runs compute shaders (cg_gl_has_compute). */
int cg_gl_reader_can_compute(const cg_gl_reader *r);
/* Where the reader's failures are written (cg_gl_reader_last_error). */
cg_err *cg_gl_reader_err(cg_gl_reader *r);

#endif /* CG_GL_READER_INTERNAL_H */
