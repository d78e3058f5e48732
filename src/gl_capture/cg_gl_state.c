/*
 * cg_gl_state.c - what a read does to the caller's GL state, and the
 * reader's framebuffers (cg_gl_reader_internal.h): the read state saved,
 * set to what the reads need and restored; a texture attached to one of
 * the reader's framebuffers, checked complete.
 */
#include <string.h>

#include "cg_gl.h"
#include "cg_gl_api.h"
#include "cg_gl_check.h"
#include "cg_gl_reader_internal.h"

#define GLC(err, expr) CG_GL_CALL_AS((err), expr, #expr)

/* Pixel transfer scale/bias pairs (compatibility profile) and the value
 * each has by default: scales 1, biases 0. */
static const GLenum k_transfer[10] = {
    GL_RED_SCALE,   GL_RED_BIAS,   GL_GREEN_SCALE, GL_GREEN_BIAS, GL_BLUE_SCALE,
    GL_BLUE_BIAS,   GL_ALPHA_SCALE, GL_ALPHA_BIAS, GL_DEPTH_SCALE, GL_DEPTH_BIAS,
};

/* The optional read state this context has (GL answers, desktop GL 3.0+). */
unsigned cg_gl_read_caps(void)
{
    unsigned caps = 0;
    if (cg_gl_has_extension("GL_MESA_pack_invert")) caps |= CG_GL_CAP_PACK_INVERT;
    if (cg_gl_has_extension("GL_ANGLE_pack_reverse_row_order"))
        caps |= CG_GL_CAP_REVERSE_ROWS;
    /* 3.0 has no profiles (all compatibility); 3.1 has it through
     * GL_ARB_compatibility; 3.2+ says so in the profile mask. */
    GLint mask = 0;
    if (cg_gl_version() >= 32) glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
    if (cg_gl_version() < 31 || (mask & GL_CONTEXT_COMPATIBILITY_PROFILE_BIT) ||
        (cg_gl_version() == 31 && cg_gl_has_extension("GL_ARB_compatibility")))
        caps |= CG_GL_CAP_COMPAT;
    if (cg_gl_has_compute(NULL)) caps |= CG_GL_CAP_COMPUTE;
    cg_gl_drain_errors();
    return caps;
}

void cg_gl_save(cg_gl_saved *s, unsigned caps)
{
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &s->read_fbo);
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &s->draw_fbo);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &s->pack_buffer);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->tex2d);
    glGetIntegerv(GL_PACK_ALIGNMENT, &s->align);
    glGetIntegerv(GL_PACK_ROW_LENGTH, &s->row_length);
    glGetIntegerv(GL_PACK_SKIP_ROWS, &s->skip_rows);
    glGetIntegerv(GL_PACK_SKIP_PIXELS, &s->skip_pixels);
    glGetIntegerv(GL_PACK_SWAP_BYTES, &s->swap_bytes);
    glGetIntegerv(GL_PACK_LSB_FIRST, &s->lsb_first);
    glGetIntegerv(GL_PACK_IMAGE_HEIGHT, &s->image_height);
    glGetIntegerv(GL_PACK_SKIP_IMAGES, &s->skip_images);
    glGetIntegerv(GL_CLAMP_READ_COLOR, &s->clamp_read);
    s->srgb = glIsEnabled(GL_FRAMEBUFFER_SRGB);
    s->invert = s->reverse_rows = 0;
    if (caps & CG_GL_CAP_PACK_INVERT) glGetIntegerv(GL_PACK_INVERT_MESA, &s->invert);
    if (caps & CG_GL_CAP_REVERSE_ROWS)
        glGetIntegerv(GL_PACK_REVERSE_ROW_ORDER_ANGLE, &s->reverse_rows);
    s->map_color = GL_FALSE;
    if (caps & CG_GL_CAP_COMPAT) {
        GLint map = 0;
        glGetIntegerv(GL_MAP_COLOR, &map);
        s->map_color = map != 0;
        for (int i = 0; i < 10; i++) glGetFloatv(k_transfer[i], &s->transfer[i]);
    }
    s->caps = caps;
    s->draw_touched = 0;
}

/* Default of k_transfer[i]: scales (even i) 1, biases 0. */
static GLfloat cg_gl_transfer_default(int i)
{
    return (i & 1) ? 0.0f : 1.0f;
}

/* Pixel-store values the reads need (alignment 4 for RGBA and depth rows,
 * 1 for tightly packed RGB rows); set only where they differ. */
void cg_gl_set_pack(const cg_gl_saved *s, GLint align)
{
    if (s->align != align) glPixelStorei(GL_PACK_ALIGNMENT, align);
    if (s->row_length != 0) glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    if (s->skip_rows != 0) glPixelStorei(GL_PACK_SKIP_ROWS, 0);
    if (s->skip_pixels != 0) glPixelStorei(GL_PACK_SKIP_PIXELS, 0);
    if (s->swap_bytes != 0) glPixelStorei(GL_PACK_SWAP_BYTES, GL_FALSE);
    if (s->lsb_first != 0) glPixelStorei(GL_PACK_LSB_FIRST, GL_FALSE);
    if (s->image_height != 0) glPixelStorei(GL_PACK_IMAGE_HEIGHT, 0);
    if (s->skip_images != 0) glPixelStorei(GL_PACK_SKIP_IMAGES, 0);
    if (s->invert != 0) glPixelStorei(GL_PACK_INVERT_MESA, GL_FALSE);
    if (s->reverse_rows != 0) glPixelStorei(GL_PACK_REVERSE_ROW_ORDER_ANGLE, GL_FALSE);
    if (s->clamp_read != GL_FIXED_ONLY) glClampColor(GL_CLAMP_READ_COLOR, GL_FIXED_ONLY);
    if (s->srgb) glDisable(GL_FRAMEBUFFER_SRGB);
    if (s->caps & CG_GL_CAP_COMPAT) {
        if (s->map_color) glPixelTransferi(GL_MAP_COLOR, GL_FALSE);
        for (int i = 0; i < 10; i++) {
            if (s->transfer[i] != cg_gl_transfer_default(i))
                glPixelTransferf(k_transfer[i], cg_gl_transfer_default(i));
        }
    }
}

/* Restore everything cg_gl_save captured; the draw framebuffer only when a
 * framebuffer creation went through GL_FRAMEBUFFER. */
void cg_gl_restore(const cg_gl_saved *s)
{
    glPixelStorei(GL_PACK_ALIGNMENT, s->align);
    glPixelStorei(GL_PACK_ROW_LENGTH, s->row_length);
    glPixelStorei(GL_PACK_SKIP_ROWS, s->skip_rows);
    glPixelStorei(GL_PACK_SKIP_PIXELS, s->skip_pixels);
    glPixelStorei(GL_PACK_SWAP_BYTES, s->swap_bytes);
    if (s->lsb_first != 0) glPixelStorei(GL_PACK_LSB_FIRST, s->lsb_first);
    if (s->image_height != 0) glPixelStorei(GL_PACK_IMAGE_HEIGHT, s->image_height);
    if (s->skip_images != 0) glPixelStorei(GL_PACK_SKIP_IMAGES, s->skip_images);
    if (s->invert != 0) glPixelStorei(GL_PACK_INVERT_MESA, s->invert);
    if (s->reverse_rows != 0) glPixelStorei(GL_PACK_REVERSE_ROW_ORDER_ANGLE, s->reverse_rows);
    if (s->clamp_read != GL_FIXED_ONLY) glClampColor(GL_CLAMP_READ_COLOR, (GLenum)s->clamp_read);
    if (s->srgb) glEnable(GL_FRAMEBUFFER_SRGB);
    if (s->caps & CG_GL_CAP_COMPAT) {
        if (s->map_color) glPixelTransferi(GL_MAP_COLOR, GL_TRUE);
        for (int i = 0; i < 10; i++) {
            if (s->transfer[i] != cg_gl_transfer_default(i))
                glPixelTransferf(k_transfer[i], s->transfer[i]);
        }
    }
    glBindTexture(GL_TEXTURE_2D, (GLuint)s->tex2d);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)s->pack_buffer);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)s->read_fbo);
    if (s->draw_touched) glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)s->draw_fbo);
}

/* Make `t` a framebuffer with `tex` attached at `attachment`, bound to
 * GL_READ_FRAMEBUFFER and complete. */
cg_status cg_gl_bind_target(cg_err *err, cg_gl_saved *saved, cg_gl_target *t,
                            GLenum attachment, GLuint tex)
{
    if (t->fbo && !glIsFramebuffer(t->fbo)) memset(t, 0, sizeof *t); /* context changed */
    if (!t->fbo) {
        GLC(err, glGenFramebuffers(1, &t->fbo));
        saved->draw_touched = 1;
        /* Read/draw buffers are framebuffer state: set them once here. A
         * depth-only framebuffer needs GL_NONE for both to be complete on
         * GL < 4.1. The caller's draw binding is restored afterwards. */
        GLC(err, glBindFramebuffer(GL_FRAMEBUFFER, t->fbo));
        GLenum buf = attachment == GL_COLOR_ATTACHMENT0 ? GL_COLOR_ATTACHMENT0 : GL_NONE;
        GLC(err, glDrawBuffer(buf));
        GLC(err, glReadBuffer(buf));
        t->attached = 0;
    }
    GLC(err, glBindFramebuffer(GL_READ_FRAMEBUFFER, t->fbo));
    if (t->attached) {
        /* A context destroyed and recreated at the same address reuses names:
         * never modify a framebuffer whose attachment is not the one we made. */
        GLint name = 0;
        GLC(err, glGetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, attachment,
                                                     GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME,
                                                     &name));
        if ((GLuint)name != t->tex) {
            memset(t, 0, sizeof *t);
            return cg_gl_bind_target(err, saved, t, attachment, tex);
        }
    }
    /* Attached on every read, even the same name at the same size: a
     * texture the game deleted stays alive, attached here, while a new one
     * gets its name (NVIDIA hands a freed name out again at once), so a
     * cached attachment would read the deleted texture's old pixels. */
    GLC(err, glFramebufferTexture2D(GL_READ_FRAMEBUFFER, attachment, GL_TEXTURE_2D, tex, 0));
    t->tex = tex;
    t->attached = 1;
    /* Checked on every read: the game may have redefined the texture. */
    GLenum st = glCheckFramebufferStatus(GL_READ_FRAMEBUFFER);
    if (st != GL_FRAMEBUFFER_COMPLETE) {
        cg_gl_drain_errors();
        /* The texture stays attached: keep `attached` so the next call still
         * checks that the framebuffer is ours before modifying it. */
        return cg_fail(err, CG_E_BAD_TEXTURE,
                       "framebuffer with texture %u attached is incomplete (status 0x%04x)", tex,
                       (unsigned)st);
    }
    return CG_OK;
}
