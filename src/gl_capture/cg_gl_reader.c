/*
 * cg_gl_reader.c - color/depth readback of GL textures through a cached
 * framebuffer, synchronous or through a ring of pixel-pack buffers.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_gl.h"
#include "cg_gl_api.h"
#include "cg_gl_check.h"
#include "cg_gl_reader_internal.h"

typedef struct cg_gl_slot {
    GLuint pbo;
    size_t cap;  /* bytes allocated in pbo */
    int w, h;    /* frame held, valid when filled */
    int bpp;     /* 4: GL_RGBA, 3: GL_RGB (alignment 1) */
    int filled;
    unsigned long long serial; /* call number that filled it */
} cg_gl_slot;

struct cg_gl_reader {
    void *gl_ctx; /* key of the context its GL objects live in; NULL: none yet */
    cg_gl_target color, depth;
    int ring;
    cg_gl_pack pack;   /* as configured; AUTO is resolved per call */
    size_t band_bytes; /* CG_GL_PACK_BANDS: scratch bytes per band */
    int next; /* slot the next call fills */
    unsigned long long calls;
    cg_gl_slot slots[CG_GL_MAX_RING];
    uint8_t *scratch; /* synchronous reads land here before conversion */
    size_t scratch_cap;
    unsigned caps; /* CG_GL_CAP_* of the context in gl_ctx */
    cg_err err;
    int failed; /* a GL call failed: refuse until cg_gl_reader_reset */
};

#define GLC(r, expr) CG_GL_CALL_AS(&(r)->err, expr, #expr)

/* Record why a call fails and return st. */
#define cg_gl_fail(r, st, ...) cg_fail(&(r)->err, (st), __VA_ARGS__)

static void cg_gl_delete_objects(cg_gl_reader *r);

/* Bands of RGBA rows of at most this many bytes: well inside the L2 of any
 * CPU this runs on, so each band is converted while it is still cached. */
#define CG_GL_BAND_BYTES_DEFAULT (256u * 1024u)

cg_status cg_gl_reader_create(const cg_gl_reader_config *cfg, cg_gl_reader **out)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = NULL;
    int ring = cfg ? cfg->ring : 0;
    cg_gl_pack pack = cfg ? cfg->pack : CG_GL_PACK_AUTO;
    CG_RETURN_IF(ring < 0 || ring > CG_GL_MAX_RING, CG_E_INVALID_ARG);
    CG_RETURN_IF((int)pack < CG_GL_PACK_AUTO || (int)pack > CG_GL_PACK_PBO_RGB,
                 CG_E_INVALID_ARG);
    cg_gl_reader *r = calloc(1, sizeof *r);
    CG_RETURN_IF(!r, CG_E_NO_MEMORY);
    r->ring = ring >= 2 ? ring : 0;
    r->pack = pack;
    r->band_bytes = cfg && cfg->band_bytes ? cfg->band_bytes : CG_GL_BAND_BYTES_DEFAULT;
    *out = r;
    return CG_OK;
}

void cg_gl_reader_forget_gl(cg_gl_reader *r)
{
    if (!r) return;
    r->gl_ctx = NULL;
    memset(&r->color, 0, sizeof r->color);
    memset(&r->depth, 0, sizeof r->depth);
    memset(r->slots, 0, sizeof r->slots);
    r->next = 0;
    r->calls = 0;
    r->failed = 0; /* fresh objects in a fresh context */
}

void cg_gl_reader_destroy(cg_gl_reader *r)
{
    if (!r) return;
    cg_gl_delete_objects(r);
    free(r->scratch);
    free(r);
}

const char *cg_gl_reader_last_error(const cg_gl_reader *r)
{
    return r ? cg_err_text(&r->err) : "no reader";
}

const cg_err *cg_gl_reader_error(const cg_gl_reader *r)
{
    return r ? &r->err : NULL;
}

/* Every entry point starts here: a reader whose GL objects are in an
 * unknown state after a failed GL call refuses work until reset. */
cg_status cg_gl_usable(cg_gl_reader *r)
{
    if (r->failed)
        return cg_gl_fail(r, CG_E_BAD_STATE,
                          "an earlier GL call failed; cg_gl_reader_reset the reader first");
    cg_err_clear(&r->err);
    return CG_OK;
}

/* A GL failure leaves the reader failed. */
cg_status cg_gl_mark(cg_gl_reader *r, cg_status st)
{
    if (st == CG_E_GL) r->failed = 1;
    return st;
}

static void cg_gl_delete_objects(cg_gl_reader *r)
{
    void *key = NULL;
    if (r->gl_ctx && cg_gl_current_context(&key) == CG_OK && key == r->gl_ctx) {
        GLuint fbos[2] = {r->color.fbo, r->depth.fbo};
        glDeleteFramebuffers(2, fbos); /* zero names are ignored */
        for (int i = 0; i < CG_GL_MAX_RING; i++) {
            if (r->slots[i].pbo) glDeleteBuffers(1, &r->slots[i].pbo);
        }
        cg_gl_drain_errors();
    }
}

void cg_gl_reader_reset(cg_gl_reader *r)
{
    if (!r) return;
    cg_gl_delete_objects(r);
    cg_gl_reader_forget_gl(r);
    cg_err_clear(&r->err);
}

int cg_gl_reader_failed(const cg_gl_reader *r)
{
    return r && r->failed;
}

/* A context must be current. When it is not the one the reader's GL objects
 * were made in, their names mean nothing (or another object) here: forget
 * them, and make fresh ones in this context. The full check (desktop GL
 * 3.0+, about 2 us) runs once per context; after that only
 * whether GL still answers (a lost context does not). */
cg_status cg_gl_enter(cg_gl_reader *r)
{
    void *key = cg_gl_current_key();
    if (key && key == r->gl_ctx && glGetString(GL_VERSION) != NULL) return CG_OK;
    CG_TRY(cg_gl_current_context(&key));
    if (key != r->gl_ctx) {
        cg_gl_reader_forget_gl(r);
        r->gl_ctx = key;
        r->caps = cg_gl_read_caps();
    }
    return CG_OK;
}

/* The texture must be a GL_TEXTURE_2D at least w x h at level 0. Binds it to
 * GL_TEXTURE_2D of the active unit (restored by cg_gl_restore). Both callers
 * drained the game's errors and saved that binding first. */
cg_status cg_gl_check_texture(cg_gl_reader *r, GLuint tex, int w, int h, int *format)
{
    int tw = 0, th = 0;
    CG_TRY(cg_gl_texture_level0_bind(tex, &tw, &th, format, &r->err));
    if (tw < w || th < h) {
        return cg_gl_fail(r, CG_E_BAD_TEXTURE, "texture %u is %dx%d, smaller than the %dx%d asked",
                          tex, tw, th, w, h);
    }
    return CG_OK;
}

static cg_status cg_gl_convert(cg_gl_reader *r, const cg_gl_color_request *q,
                               const uint8_t *src, int w, int h, uint8_t *dst, size_t dst_len)
{
    cg_convert_params p = {
        .src = src, .src_stride = (size_t)w * 4, .src_w = w, .src_h = h,
        .dst_w = q->dst_w, .dst_h = q->dst_h, .flip = 0, .filter = q->filter,
        .cursor = q->cursor,
    };
    cg_status st = cg_convert(&p, dst, dst_len);
    if (st != CG_OK) return cg_gl_fail(r, st, "cg_convert: %s", cg_strerror(st));
    return CG_OK;
}

/* dst already holds the packed RGB frame: draw the cursor over it. */
static cg_status cg_gl_cursor(cg_gl_reader *r, const cg_gl_color_request *q, uint8_t *dst,
                              size_t dst_len)
{
    if (!q->cursor.draw) return CG_OK;
    cg_status st = cg_draw_cursor_rgb(dst, dst_len, q->dst_w, q->dst_h, q->cursor.x,
                                      q->cursor.y);
    if (st != CG_OK) return cg_gl_fail(r, st, "cg_draw_cursor_rgb: %s", cg_strerror(st));
    return CG_OK;
}

/* The reader's client-memory scratch, at least `bytes` long. */
static cg_status cg_gl_scratch(cg_gl_reader *r, size_t bytes)
{
    if (r->scratch_cap < bytes) {
        uint8_t *p = realloc(r->scratch, bytes);
        if (!p) return cg_gl_fail(r, CG_E_NO_MEMORY, "%zu bytes for the readback", bytes);
        r->scratch = p;
        r->scratch_cap = bytes;
    }
    return CG_OK;
}

/* Synchronous: glReadPixels into the reader's RGBA scratch (client memory,
 * reused across calls). */
static cg_status cg_gl_rgba_sync(cg_gl_reader *r, int w, int h)
{
    size_t bytes;
    CG_TRY(cg_image_size(w, h, 4, &bytes));
    CG_TRY(cg_gl_scratch(r, bytes));
    GLC(r, glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
    GLC(r, glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, r->scratch));
    return CG_OK;
}

/* CG_GL_PACK_RGB: the driver packs RGB8 rows (alignment 1) straight into
 * dst. Same size only; the cursor is drawn by the caller afterwards. */
static cg_status cg_gl_rgb_direct(cg_gl_reader *r, const cg_gl_color_request *q, uint8_t *dst)
{
    GLC(r, glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
    GLC(r, glReadPixels(0, 0, q->tex_w, q->tex_h, GL_RGB, GL_UNSIGNED_BYTE, dst));
    return CG_OK;
}

/* CG_GL_PACK_BANDS (same size only): bands of rows read into a scratch that
 * stays in L2 and converted at once. The cursor is placed on the whole
 * image (a hot spot outside one band may be inside the image), so the
 * caller draws it afterwards, over at most CG_CURSOR_SIZE rows. */
static cg_status cg_gl_color_bands(cg_gl_reader *r, const cg_gl_color_request *q,
                                   uint8_t *dst)
{
    const int w = q->tex_w, h = q->tex_h;
    const size_t row = (size_t)w * 4, drow = (size_t)w * 3;
    size_t rows = r->band_bytes / row;
    int band = rows < 1 ? 1 : rows > (size_t)h ? h : (int)rows;
    CG_TRY(cg_gl_scratch(r, (size_t)band * row));
    GLC(r, glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
    for (int y0 = 0; y0 < h; y0 += band) {
        const int n = h - y0 < band ? h - y0 : band;
        GLC(r, glReadPixels(0, y0, w, n, GL_RGBA, GL_UNSIGNED_BYTE, r->scratch));
        cg_gl_color_request b = *q;
        b.tex_h = b.dst_h = n;
        b.cursor.draw = 0;
        CG_TRY(cg_gl_convert(r, &b, r->scratch, w, n, dst + (size_t)y0 * drow,
                             (size_t)n * drow));
    }
    return CG_OK;
}

/* A pack buffer's contents into dst: converted (RGBA) or copied (RGB, the
 * same size as dst by construction) with the cursor drawn over it. */
static cg_status cg_gl_deliver(cg_gl_reader *r, const cg_gl_color_request *q,
                               const uint8_t *px, const cg_gl_slot *s, uint8_t *dst,
                               size_t dst_len)
{
    if (s->bpp == 4) return cg_gl_convert(r, q, px, s->w, s->h, dst, dst_len);
    if (s->w != q->dst_w || s->h != q->dst_h) {
        return cg_gl_fail(r, CG_E_BAD_STATE, "RGB pack buffer %dx%d for a %dx%d output", s->w,
                          s->h, q->dst_w, q->dst_h);
    }
    memcpy(dst, px, (size_t)s->w * (size_t)s->h * 3);
    return cg_gl_cursor(r, q, dst, dst_len);
}

/* Start a read of the current frame into slot r->next of an n-slot ring of
 * pack buffers, then map the oldest filled slot and deliver it. n == 1 is
 * the synchronous pack-buffer mode: the slot just filled is mapped, which
 * waits for it. bpp 3 reads GL_RGB (the caller set alignment 1). */
static cg_status cg_gl_color_ring(cg_gl_reader *r, const cg_gl_color_request *q, int n,
                                  int bpp, uint8_t *dst, size_t dst_len, int *frame_lag)
{
    size_t bytes;
    CG_TRY(cg_image_size(q->tex_w, q->tex_h, bpp, &bytes));
    if (r->next >= n) r->next = 0;
    cg_gl_slot *s = &r->slots[r->next];
    if (s->pbo && !glIsBuffer(s->pbo)) memset(s, 0, sizeof *s); /* context changed */
    if (!s->pbo) GLC(r, glGenBuffers(1, &s->pbo));
    GLC(r, glBindBuffer(GL_PIXEL_PACK_BUFFER, s->pbo));
    if (s->cap < bytes) {
        s->filled = 0;
        GLC(r, glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_READ));
        s->cap = bytes;
    }
    GLC(r, glReadPixels(0, 0, q->tex_w, q->tex_h, bpp == 3 ? GL_RGB : GL_RGBA,
                        GL_UNSIGNED_BYTE, NULL));
    s->w = q->tex_w;
    s->h = q->tex_h;
    s->bpp = bpp;
    s->filled = 1;
    s->serial = r->calls;
    r->next = (r->next + 1) % n;

    /* The oldest filled slot: the one the next call would overwrite, or,
     * while the ring fills, slot 0. */
    cg_gl_slot *old = &r->slots[r->next];
    if (!old->filled) old = &r->slots[0];
    size_t old_bytes = (size_t)old->w * (size_t)old->h * (size_t)old->bpp;
    GLC(r, glBindBuffer(GL_PIXEL_PACK_BUFFER, old->pbo));
    const uint8_t *px = NULL;
    GLC(r, px = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, (GLsizeiptr)old_bytes,
                                 GL_MAP_READ_BIT));
    if (!px) return cg_gl_fail(r, CG_E_GL, "glMapBufferRange returned NULL");
    cg_status st = cg_gl_deliver(r, q, px, old, dst, dst_len);
    GLboolean ok = glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    CG_TRY(st);
    CG_TRY(cg_gl_check_call(&r->err, "glUnmapBuffer", __FILE__, __LINE__));
    if (!ok) return cg_gl_fail(r, CG_E_GL, "glUnmapBuffer: pack buffer contents were lost");
    if (frame_lag) *frame_lag = (int)(r->calls - old->serial);
    return CG_OK;
}

/* The one size check of a color capture: both sizes, the offending values
 * in the reader's error ("texture size 0x8 is invalid: ..."), which callers
 * hand on (jni/ throws it as it is). */
static cg_status cg_gl_check_sizes(cg_gl_reader *r, int tex_w, int tex_h, int dst_w, int dst_h)
{
    CG_TRY(cg_check_dims_named("texture", tex_w, tex_h, &r->err));
    return cg_check_dims_named("target", dst_w, dst_h, &r->err);
}

static cg_status cg_gl_check_color_args(cg_gl_reader *r, const cg_gl_color_request *q,
                                        uint8_t *dst, size_t dst_len)
{
    CG_RETURN_IF(!q || !dst, CG_E_INVALID_ARG);
    CG_RETURN_IF(q->filter != CG_FILTER_NEAREST && q->filter != CG_FILTER_BOX,
                 CG_E_INVALID_ARG);
    CG_TRY(cg_gl_check_sizes(r, q->tex_w, q->tex_h, q->dst_w, q->dst_h));
    size_t need = (size_t)q->dst_w * (size_t)q->dst_h * 3; /* <= 3 * 16384^2 */
    if (dst_len < need)
        return cg_gl_fail(r, CG_E_BUFFER_TOO_SMALL,
                          "destination of %zu bytes is below the %zu a %dx%d RGB8 frame needs",
                          dst_len, need, q->dst_w, q->dst_h);
    return CG_OK;
}

/* The mode for this read; a context must be current. */
static cg_gl_pack cg_gl_resolve_pack(const cg_gl_reader *r, int tex_w, int tex_h, int dst_w,
                                     int dst_h)
{
    if (r->ring || tex_w != dst_w || tex_h != dst_h) return CG_GL_PACK_RGBA;
    if (r->pack != CG_GL_PACK_AUTO) return r->pack;
    return cg_gl_auto_pack((const char *)glGetString(GL_VENDOR),
                           (const char *)glGetString(GL_RENDERER));
}

cg_status cg_gl_reader_pack_for(cg_gl_reader *r, int tex_w, int tex_h, int dst_w, int dst_h,
                                cg_gl_pack *out)
{
    CG_RETURN_IF(!r || !out, CG_E_INVALID_ARG);
    CG_TRY(cg_gl_check_sizes(r, tex_w, tex_h, dst_w, dst_h));
    CG_TRY(cg_gl_enter(r));
    *out = cg_gl_resolve_pack(r, tex_w, tex_h, dst_w, dst_h);
    return CG_OK;
}

/* The frame of every read: drop errors the game left pending, save the
 * state the read touches, check the texture and attach it to the reader's
 * framebuffer for `attachment`, set the pack parameters. The state is saved
 * even when this fails, so cg_gl_pass_end must follow in every case. */
static cg_status cg_gl_pass_begin(cg_gl_reader *r, cg_gl_saved *saved, cg_gl_target *t,
                                  GLenum attachment, unsigned texture, int w, int h,
                                  GLint align)
{
    cg_gl_drain_errors();
    cg_gl_save(saved, r->caps);
    CG_TRY(cg_gl_check_texture(r, texture, w, h, NULL));
    CG_TRY(cg_gl_bind_target(&r->err, saved, t, attachment, texture));
    cg_gl_set_pack(saved, align);
    return CG_OK;
}

/* Restore what cg_gl_pass_begin saved and leave no error of ours behind. */
static void cg_gl_pass_end(const cg_gl_saved *saved)
{
    cg_gl_restore(saved);
    cg_gl_drain_errors();
}

/* Save state, check and attach the color texture, read with `mode`,
 * restore. q == NULL: plain RGBA readback into the scratch. The RGBA
 * scratch and RGB modes leave the CPU work (conversion, cursor) to the
 * caller, after the GL state is restored. */
static cg_status cg_gl_color_pass(cg_gl_reader *r, unsigned texture, int w, int h,
                                  const cg_gl_color_request *q, cg_gl_pack mode, uint8_t *dst,
                                  size_t dst_len, int *frame_lag)
{
    int rgb = q && (mode == CG_GL_PACK_RGB || mode == CG_GL_PACK_PBO_RGB);
    cg_gl_saved saved;
    cg_status st = cg_gl_pass_begin(r, &saved, &r->color, GL_COLOR_ATTACHMENT0, texture, w, h,
                                    rgb ? 1 : 4);
    if (st == CG_OK) {
        if (q && r->ring) {
            st = cg_gl_color_ring(r, q, r->ring, 4, dst, dst_len, frame_lag);
        } else if (q && (mode == CG_GL_PACK_PBO || mode == CG_GL_PACK_PBO_RGB)) {
            st = cg_gl_color_ring(r, q, 1, rgb ? 3 : 4, dst, dst_len, NULL);
        } else if (q && mode == CG_GL_PACK_RGB) {
            st = cg_gl_rgb_direct(r, q, dst);
        } else if (q && mode == CG_GL_PACK_BANDS) {
            st = cg_gl_color_bands(r, q, dst);
        } else {
            st = cg_gl_rgba_sync(r, w, h);
        }
        r->calls++;
    }
    cg_gl_pass_end(&saved);
    return st;
}

cg_status cg_gl_read_rgba(cg_gl_reader *r, unsigned texture, int tex_w, int tex_h,
                          const uint8_t **rgba)
{
    CG_RETURN_IF(!r || !rgba, CG_E_INVALID_ARG);
    CG_TRY(cg_gl_usable(r));
    CG_TRY(cg_check_dims_named("texture", tex_w, tex_h, &r->err));
    CG_TRY(cg_gl_enter(r));
    CG_TRY(cg_gl_mark(r, cg_gl_color_pass(r, texture, tex_w, tex_h, NULL, CG_GL_PACK_RGBA,
                                          NULL, 0, NULL)));
    *rgba = r->scratch;
    return CG_OK;
}

cg_status cg_gl_read_color(cg_gl_reader *r, const cg_gl_color_request *q, uint8_t *dst,
                           size_t dst_len, int *frame_lag)
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    CG_TRY(cg_gl_usable(r));
    CG_TRY(cg_gl_check_color_args(r, q, dst, dst_len));
    if (frame_lag) *frame_lag = 0;
    CG_TRY(cg_gl_enter(r));
    cg_gl_pack mode = cg_gl_resolve_pack(r, q->tex_w, q->tex_h, q->dst_w, q->dst_h);
    CG_TRY(cg_gl_mark(r, cg_gl_color_pass(r, q->texture, q->tex_w, q->tex_h, q, mode, dst,
                                          dst_len, frame_lag)));
    if (r->ring) return CG_OK; /* converted from the mapped pack buffer */
    switch (mode) {
    case CG_GL_PACK_RGB:
    case CG_GL_PACK_BANDS: return cg_gl_cursor(r, q, dst, dst_len);
    case CG_GL_PACK_RGBA: return cg_gl_convert(r, q, r->scratch, q->tex_w, q->tex_h, dst, dst_len);
    default: return CG_OK; /* converted from the pack buffer */
    }
}

cg_status cg_gl_read_rgba_to_buffer(cg_gl_reader *r, unsigned texture, int tex_w, int tex_h,
                                    unsigned buffer)
{
    CG_RETURN_IF(!r || !buffer, CG_E_INVALID_ARG);
    CG_TRY(cg_gl_usable(r));
    CG_TRY(cg_check_dims_named("texture", tex_w, tex_h, &r->err));
    CG_TRY(cg_gl_enter(r));
    cg_gl_saved saved;
    cg_status st = cg_gl_pass_begin(r, &saved, &r->color, GL_COLOR_ATTACHMENT0, texture, tex_w,
                                    tex_h, 4);
    if (st == CG_OK) {
        glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer);
        glReadPixels(0, 0, tex_w, tex_h, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        st = cg_gl_check_call(&r->err, "glReadPixels(GL_RGBA) into the pack buffer", __FILE__,
                              __LINE__);
    }
    cg_gl_pass_end(&saved);
    return cg_gl_mark(r, st);
}

cg_status cg_gl_reader_depth_count(cg_gl_reader *r, int tex_w, int tex_h, size_t *count)
{
    CG_RETURN_IF(!r || !count, CG_E_INVALID_ARG);
    CG_TRY(cg_check_dims_named("depth texture", tex_w, tex_h, &r->err));
    *count = (size_t)tex_w * (size_t)tex_h; /* <= 16384^2 */
    return CG_OK;
}

static cg_status cg_gl_check_depth_args(cg_gl_reader *r, int w, int h,
                                        const cg_gl_depth_linear *lin, const float *dst,
                                        size_t dst_count)
{
    CG_RETURN_IF(!dst, CG_E_INVALID_ARG);
    size_t n;
    CG_TRY(cg_gl_reader_depth_count(r, w, h, &n));
    if (dst_count < n)
        return cg_gl_fail(r, CG_E_BUFFER_TOO_SMALL,
                          "destination of %zu floats is below the %zu of a %dx%d depth texture",
                          dst_count, n, w, h);
    if (lin) CG_TRY(cg_depth_check_planes(lin->near_plane, lin->far_plane));
    return CG_OK;
}

cg_status cg_gl_read_depth(cg_gl_reader *r, unsigned texture, int tex_w, int tex_h,
                           const cg_gl_depth_linear *lin, float *dst, size_t dst_count)
{
    CG_RETURN_IF(!r, CG_E_INVALID_ARG);
    CG_TRY(cg_gl_usable(r));
    CG_TRY(cg_gl_check_depth_args(r, tex_w, tex_h, lin, dst, dst_count));
    CG_TRY(cg_gl_enter(r));

    cg_gl_saved saved;
    cg_status st = cg_gl_pass_begin(r, &saved, &r->depth, GL_DEPTH_ATTACHMENT, texture, tex_w,
                                    tex_h, 4);
    if (st == CG_OK) {
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        glReadPixels(0, 0, tex_w, tex_h, GL_DEPTH_COMPONENT, GL_FLOAT, dst);
        st = cg_gl_check_call(&r->err, "glReadPixels(GL_DEPTH_COMPONENT, GL_FLOAT)", __FILE__,
                              __LINE__);
    }
    cg_gl_pass_end(&saved);
    cg_gl_mark(r, st);
    if (st == CG_OK && lin) {
        st = cg_depth_linearize(dst, (size_t)tex_w * (size_t)tex_h, lin->near_plane,
                                lin->far_plane, lin->zero_to_one);
        if (st != CG_OK) cg_gl_fail(r, st, "cg_depth_linearize: %s", cg_strerror(st));
    }
    return st;
}

/* ---- for cg_gl_compute.c (cg_gl_reader_internal.h) ------------------------ */

int cg_gl_reader_can_compute(const cg_gl_reader *r)
{
    return (r->caps & CG_GL_CAP_COMPUTE) != 0;
}

cg_err *cg_gl_reader_err(cg_gl_reader *r)
{
    return &r->err;
}
