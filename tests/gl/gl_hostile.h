/*
 * gl_hostile.h - test-only: every GL state that can change what
 * glReadPixels returns, as a game may leave it (test_gl_capture.c on EGL,
 * tests/wgl/test_gl_wgl.c on WGL under Wine): the list, the game's objects
 * for the binding cases, and setting one state on or back to its default.
 * Include after the GL headers (libepoxy's, or Windows' GL/gl.h and
 * GL/glext.h with the GL 1.2+ calls below defined to the caller's
 * function pointers). Call with the context current.
 */
#ifndef GL_HOSTILE_H
#define GL_HOSTILE_H

#ifndef GL_PACK_REVERSE_ROW_ORDER_ANGLE
#define GL_PACK_REVERSE_ROW_ORDER_ANGLE 0x93A4 /* absent from desktop GL/glext.h */
#endif

/* Every GL state that can change what glReadPixels returns, set by the game
 * to a value that would change the bytes (or, for the states that do not
 * apply to these reads, to a non-default one), one at a time. */
typedef enum { HS_STORE, HS_CLAMP, HS_ENABLE, HS_TRANSFER, HS_PACK_BUFFER, HS_READ_FBO } hs_kind;

static const struct hostile {
    const char *name;
    GLenum pname;
    hs_kind kind;
    float value, dflt;
    const char *ext; /* needed extension, or NULL */
    int compat;      /* compatibility profile only */
} k_hostile[] = {
    {"GL_PACK_ALIGNMENT", GL_PACK_ALIGNMENT, HS_STORE, 8, 4, NULL, 0},
    {"GL_PACK_ROW_LENGTH", GL_PACK_ROW_LENGTH, HS_STORE, 100, 0, NULL, 0},
    {"GL_PACK_SKIP_ROWS", GL_PACK_SKIP_ROWS, HS_STORE, 3, 0, NULL, 0},
    {"GL_PACK_SKIP_PIXELS", GL_PACK_SKIP_PIXELS, HS_STORE, 2, 0, NULL, 0},
    {"GL_PACK_SWAP_BYTES", GL_PACK_SWAP_BYTES, HS_STORE, 1, 0, NULL, 0},
    {"GL_PACK_LSB_FIRST", GL_PACK_LSB_FIRST, HS_STORE, 1, 0, NULL, 0},
    {"GL_PACK_IMAGE_HEIGHT", GL_PACK_IMAGE_HEIGHT, HS_STORE, 7, 0, NULL, 0},
    {"GL_PACK_SKIP_IMAGES", GL_PACK_SKIP_IMAGES, HS_STORE, 2, 0, NULL, 0},
    {"GL_PACK_INVERT_MESA", GL_PACK_INVERT_MESA, HS_STORE, 1, 0, "GL_MESA_pack_invert", 0},
    {"GL_PACK_REVERSE_ROW_ORDER_ANGLE", GL_PACK_REVERSE_ROW_ORDER_ANGLE, HS_STORE, 1, 0,
     "GL_ANGLE_pack_reverse_row_order", 0},
    {"GL_CLAMP_READ_COLOR", GL_CLAMP_READ_COLOR, HS_CLAMP, GL_FALSE, GL_FIXED_ONLY, NULL, 0},
    {"GL_FRAMEBUFFER_SRGB", GL_FRAMEBUFFER_SRGB, HS_ENABLE, 1, 0, NULL, 0},
    {"GL_PIXEL_PACK_BUFFER_BINDING", GL_PIXEL_PACK_BUFFER_BINDING, HS_PACK_BUFFER, 1, 0, NULL, 0},
    {"GL_READ_FRAMEBUFFER_BINDING", GL_READ_FRAMEBUFFER_BINDING, HS_READ_FBO, 1, 0, NULL, 0},
    {"GL_MAP_COLOR", GL_MAP_COLOR, HS_TRANSFER, 1, 0, NULL, 1},
    {"GL_RED_SCALE", GL_RED_SCALE, HS_TRANSFER, 0.5f, 1, NULL, 1},
    {"GL_RED_BIAS", GL_RED_BIAS, HS_TRANSFER, 0.25f, 0, NULL, 1},
    {"GL_GREEN_SCALE", GL_GREEN_SCALE, HS_TRANSFER, 0.5f, 1, NULL, 1},
    {"GL_GREEN_BIAS", GL_GREEN_BIAS, HS_TRANSFER, 0.25f, 0, NULL, 1},
    {"GL_BLUE_SCALE", GL_BLUE_SCALE, HS_TRANSFER, 0.5f, 1, NULL, 1},
    {"GL_BLUE_BIAS", GL_BLUE_BIAS, HS_TRANSFER, 0.25f, 0, NULL, 1},
    {"GL_ALPHA_SCALE", GL_ALPHA_SCALE, HS_TRANSFER, 0.5f, 1, NULL, 1},
    {"GL_ALPHA_BIAS", GL_ALPHA_BIAS, HS_TRANSFER, 0.25f, 0, NULL, 1},
    {"GL_DEPTH_SCALE", GL_DEPTH_SCALE, HS_TRANSFER, 0.5f, 1, NULL, 1},
    {"GL_DEPTH_BIAS", GL_DEPTH_BIAS, HS_TRANSFER, 0.25f, 0, NULL, 1},
};
enum { HS_COUNT = (int)(sizeof k_hostile / sizeof k_hostile[0]) };

/* The game's objects the binding cases bind: a pack buffer, and a
 * framebuffer whose read buffer is its second attachment. */
typedef struct hostile_objects {
    GLuint pbo, fbo, tex[2];
} hostile_objects;

/* The pack buffer and the framebuffer; glGetError() afterwards (0: made). */
static inline GLenum hostile_objects_create(hostile_objects *o)
{
    glGenBuffers(1, &o->pbo);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, o->pbo);
    glBufferData(GL_PIXEL_PACK_BUFFER, 1 << 16, NULL, GL_STREAM_READ);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glGenTextures(2, o->tex);
    for (int i = 0; i < 2; i++) {
        glBindTexture(GL_TEXTURE_2D, o->tex[i]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 8, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenFramebuffers(1, &o->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, o->fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, o->tex[0], 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D, o->tex[1], 0);
    glReadBuffer(GL_COLOR_ATTACHMENT1);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return glGetError();
}

static inline void hostile_objects_destroy(hostile_objects *o)
{
    glDeleteBuffers(1, &o->pbo);
    glDeleteFramebuffers(1, &o->fbo);
    glDeleteTextures(2, o->tex);
}

static inline void hostile_set(const struct hostile *h, const hostile_objects *o, int on)
{
    float v = on ? h->value : h->dflt;
    switch (h->kind) {
    case HS_STORE: glPixelStorei(h->pname, (GLint)v); break;
    case HS_CLAMP: glClampColor(GL_CLAMP_READ_COLOR, (GLenum)v); break;
    case HS_ENABLE:
        if (on) glEnable(h->pname);
        else glDisable(h->pname);
        break;
    case HS_TRANSFER:
        if (h->pname == GL_MAP_COLOR) glPixelTransferi(h->pname, on);
        else glPixelTransferf(h->pname, v);
        break;
    case HS_PACK_BUFFER: glBindBuffer(GL_PIXEL_PACK_BUFFER, on ? o->pbo : 0); break;
    case HS_READ_FBO: glBindFramebuffer(GL_READ_FRAMEBUFFER, on ? o->fbo : 0); break;
    }
}

#endif /* GL_HOSTILE_H */
