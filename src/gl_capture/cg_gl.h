/*
 * cg_gl.h - color and depth readback of the game's GL textures (libepoxy).
 *
 * Thread affinity: every function that takes a cg_gl_reader, and
 * cg_gl_current_context, must be called on the thread whose GL context is
 * current. The GL objects a reader owns (two framebuffers, optional pack
 * buffers) live in the context current when it made them; a call with
 * another context current (cg_gl_current_context's key differs) forgets
 * them and makes fresh ones there (a ring starts filling again). The
 * desktop GL 3.0 check runs once per context the reader sees. A context
 * destroyed and another created at the same address cannot be told apart
 * by the key; framebuffer names are then checked before they are modified.
 *
 * State: a read leaves the caller's GL state as it found it. It restores
 * the read framebuffer binding, the pixel-pack buffer binding, the pack
 * alignment / row length / skip rows / skip pixels / swap bytes, and the
 * GL_TEXTURE_2D binding of the active texture unit. The draw framebuffer
 * binding is touched (and restored) only in the call that creates one of
 * the reader's two framebuffers. GL errors pending before a call are drained and discarded:
 * GL cannot tell them apart from the library's own.
 *
 * Framebuffer cache: the texture is attached to the reader's framebuffer
 * once and re-attached only when the texture name or the requested size
 * changes (completeness is checked on every read). Caveat: GL keeps a
 * deleted texture alive while a framebuffer that is not bound holds it, and
 * may hand its name out again; a texture deleted and re-created under the
 * same name at the same size is therefore still read from the old storage.
 * When the game recreates its targets at an unchanged size, destroy and
 * recreate the reader.
 *
 * Row order: glReadPixels returns rows bottom-up (row 0 is the bottom row of
 * the texture). The wire format (docs/wire-format.md, RAW) is bottom-up too, so
 * the readback is converted without a flip: destination row 0 is the bottom
 * row of the texture, exactly as the Python side expects before it flips.
 */
#ifndef CG_GL_H
#define CG_GL_H

#include <stddef.h>
#include <stdint.h>

#include "cg_cursor.h"
#include "cg_err.h"
#include "cg_frame.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_gl_reader cg_gl_reader;

/* Largest accepted pack-buffer ring. */
#define CG_GL_MAX_RING 8

/* How a synchronous color read gets RGB8 out of GL (cg_gl_reader_config's
 * pack). Every mode gives byte-identical output; they differ in speed,
 * which depends on the driver (measured by bench_gl, see README).
 * The modes other than RGBA apply when the output size equals tex_w x
 * tex_h; a resizing read always uses RGBA (the resize needs the scratch). */
typedef enum cg_gl_pack {
    /* Chosen per context by cg_gl_auto_pack from GL_VENDOR/GL_RENDERER,
     * from bench_gl's figures (README, "GL readback"): CG_GL_PACK_RGB on
     * the NVIDIA driver, where an RGBA scratch is cold after the driver's
     * copy and converting it is a second pass over memory, and bands are a
     * GPU round trip each; CG_GL_PACK_BANDS on Mesa llvmpipe, whose
     * glReadPixels is a CPU copy, so a band is still in L2 when it is
     * converted, while Mesa packs GL_RGB more slowly than the library
     * converts; CG_GL_PACK_RGBA elsewhere (not measured). */
    CG_GL_PACK_AUTO = 0,
    /* glReadPixels GL_RGBA into the reader's scratch, then cg_convert. */
    CG_GL_PACK_RGBA = 1,
    /* glReadPixels GL_RGB (GL_PACK_ALIGNMENT 1) straight into dst: the
     * driver's copy is the only pass; the cursor is drawn afterwards over
     * the up to 16 rows it covers (cg_draw_cursor_rgb). */
    CG_GL_PACK_RGB = 2,
    /* glReadPixels GL_RGBA in bands of rows small enough to stay in L2,
     * each converted while it is still in cache. */
    CG_GL_PACK_BANDS = 3,
    /* glReadPixels GL_RGBA into a pixel-pack buffer, mapped (waiting for
     * it) and converted from the mapping: no driver-side copy. */
    CG_GL_PACK_PBO = 4,
    /* glReadPixels GL_RGB into a pixel-pack buffer, mapped and copied. */
    CG_GL_PACK_PBO_RGB = 5
} cg_gl_pack;

typedef struct cg_gl_reader_config {
    /* 0 or 1: synchronous color reads (the default): glReadPixels straight
     * into client memory; the returned frame is the one just rendered.
     * 2..CG_GL_MAX_RING: a ring of that many pixel-pack buffers. Each call
     * starts an asynchronous read of the current frame into the next buffer
     * and returns the frame started ring-1 calls earlier (see
     * cg_gl_read_color's frame_lag), so the CPU never waits for the frame
     * the GPU is still drawing. */
    int ring;
    /* Synchronous reads only (ignored with a ring): see cg_gl_pack. 0 (a
     * zeroed config) is CG_GL_PACK_AUTO. */
    cg_gl_pack pack;
    /* CG_GL_PACK_BANDS: bytes of RGBA rows per band (at least one row);
     * 0: 256 KiB. */
    size_t band_bytes;
} cg_gl_reader_config;

/* Allocate a reader; no GL call is made (GL objects are created on first
 * use, in the context current then). cfg may be NULL (synchronous, AUTO).
 * Errors: CG_E_INVALID_ARG (out NULL, ring outside 0..CG_GL_MAX_RING, pack
 * not a cg_gl_pack), CG_E_NO_MEMORY. */
cg_status cg_gl_reader_create(const cg_gl_reader_config *cfg, cg_gl_reader **out);

/* Free the reader. When the context its GL objects were made in is current,
 * they are deleted there; otherwise (none current, or another context) they
 * are not touched: they die with their context. NULL is a no-op. */
void cg_gl_reader_destroy(cg_gl_reader *r);

/* Forget the reader's GL object names without deleting them, for when its
 * context was destroyed (a later read creates fresh objects). NULL: no-op. */
void cg_gl_reader_forget_gl(cg_gl_reader *r);

/* What the last failing call was doing and the GL error name, e.g.
 * "glReadPixels(...) failed: GL_INVALID_OPERATION (0x0502) at
 * cg_gl_reader.c:210". Empty string when the last call succeeded. Never
 * NULL; valid until the next call on r. */
const char *cg_gl_reader_last_error(const cg_gl_reader *r);
/* The same as the cg_err it is (NULL for NULL), for cg_fail_from. */
const cg_err *cg_gl_reader_error(const cg_gl_reader *r);

/* States: usable after create; FAILED after a read returned CG_E_GL (its GL
 * objects are then in an unknown state), when every read returns
 * CG_E_BAD_STATE until cg_gl_reader_reset (or a read in another context,
 * which starts with fresh objects); destroyed by cg_gl_reader_destroy. */
int cg_gl_reader_failed(const cg_gl_reader *r);

/* Delete the reader's GL objects (when their context is current), forget
 * them, and leave the FAILED state. The reader is usable again. */
void cg_gl_reader_reset(cg_gl_reader *r);

/* CG_OK when a GL context is current on this thread (EGL or GLX) and it is
 * desktop GL 3.0 or newer; *key (may be NULL) then gets an opaque value
 * identifying the context. CG_E_NO_CONTEXT when none is current;
 * CG_E_UNSUPPORTED for GLES or GL below 3.0. Never aborts, never loads a GL
 * library that the process has not loaded already (except libEGL, which
 * libepoxy probes itself). */
cg_status cg_gl_current_context(void **key);

/* One color capture: what to read and how to convert it. */
typedef struct cg_gl_color_request {
    unsigned texture; /* GL_TEXTURE_2D name of the color target */
    int tex_w, tex_h; /* region read: [0,tex_w) x [0,tex_h) from the bottom-left;
                         the texture must be at least this large */
    int dst_w, dst_h; /* output size; differs from tex_*: resize (cg_convert) */
    cg_filter filter;
    cg_cursor cursor; /* as cg_convert_params */
} cg_gl_color_request;

/* Read the texture as RGBA8 and convert it into dst (dst_w*dst_h*3 bytes
 * RGB8, bottom-up rows, see above). *frame_lag (may be NULL) gets how many
 * calls ago the returned frame was read: 0 when synchronous; ring-1 with a
 * ring once it is full, fewer while it fills (the first call returns its
 * own frame).
 * Errors: CG_E_INVALID_ARG (NULL, bad filter), dims (cg_check_dims) for both
 * sizes, CG_E_BUFFER_TOO_SMALL, CG_E_NO_CONTEXT, CG_E_UNSUPPORTED (GLES or
 * GL < 3.0), CG_E_BAD_TEXTURE (0, not a texture, not GL_TEXTURE_2D,
 * smaller than tex_w x tex_h, framebuffer incomplete with it attached),
 * CG_E_GL (a GL call failed; see cg_gl_reader_last_error), CG_E_NO_MEMORY.
 * Arguments are checked before any GL call. On error dst is untouched. */
cg_status cg_gl_read_color(cg_gl_reader *r, const cg_gl_color_request *q, uint8_t *dst,
                           size_t dst_len, int *frame_lag);

/* The mode a synchronous cg_gl_read_color of a tex_w x tex_h region into
 * dst_w x dst_h would use in the current context: never CG_GL_PACK_AUTO;
 * CG_GL_PACK_RGBA when resizing or when the reader has a ring. For callers
 * that route the RGBA mode differently (jni/ converts that one straight
 * into the Java array). Checks both sizes first, as cg_check_dims_named
 * ("texture" / "target", the values in cg_gl_reader_last_error): the one
 * size check of a capture, before any GL call or allocation. Errors:
 * CG_E_INVALID_ARG (NULL), dims, CG_E_NO_CONTEXT, CG_E_UNSUPPORTED (GLES or
 * GL < 3.0). */
cg_status cg_gl_reader_pack_for(cg_gl_reader *r, int tex_w, int tex_h, int dst_w, int dst_h,
                                cg_gl_pack *out);

/* What CG_GL_PACK_AUTO resolves to for a context whose GL_VENDOR and
 * GL_RENDERER strings are these (either may be NULL); never AUTO. */
cg_gl_pack cg_gl_auto_pack(const char *vendor, const char *renderer);

/* "auto", "rgba", "rgb", "bands", "pbo", "pbo_rgb"; "unknown" otherwise. */
const char *cg_gl_pack_name(cg_gl_pack pack);

/* Synchronous RGBA8 readback without conversion: *rgba gets tex_w*tex_h*4
 * bytes, stride tex_w*4, bottom row first, owned by the reader and valid
 * until the next call on r. For callers that convert into storage of their
 * own (jni/ converts straight into the Java array). Errors as
 * cg_gl_read_color. */
cg_status cg_gl_read_rgba(cg_gl_reader *r, unsigned texture, int tex_w, int tex_h,
                          const uint8_t **rgba);

/* GPU-only RGBA8 readback into a buffer object of the caller's (a
 * zero-copy ring slot imported from Vulkan): the texture's [0,tex_w) x
 * [0,tex_h) region, tightly packed (stride tex_w*4), bottom row first, at
 * offset 0 of `buffer` bound as the pixel-pack buffer. Nothing waits for
 * the GPU; the caller orders later users of the buffer (a fence or a
 * semaphore). The caller's state is saved and restored as by every read.
 * Errors as cg_gl_read_color (CG_E_INVALID_ARG for buffer 0; CG_E_GL when
 * the buffer is too small or not a buffer). */
cg_status cg_gl_read_rgba_to_buffer(cg_gl_reader *r, unsigned texture, int tex_w, int tex_h,
                                    unsigned buffer);

/* One compute dispatch that reads a texture and writes buffer objects (the
 * GL producer's RGB slot format, cg_gl_ring.c), with the caller's state
 * saved and restored as by every read: the current program, the active
 * texture unit, unit 0's GL_TEXTURE_2D and sampler bindings, each indexed
 * binding in bind[] (buffer, offset and size) and the generic
 * GL_UNIFORM_BUFFER / GL_SHADER_STORAGE_BUFFER bindings. Nothing waits for
 * the GPU. */
#define CG_GL_DISPATCH_BINDINGS 4

/* What the texture of a dispatch must hold (cg_gl_dispatch's kind). */
typedef enum cg_gl_texture_kind {
    /* 8-bit RGB(A), not sRGB; level 0 at least tex_w x tex_h */
    CG_GL_TEXTURE_RGBA8 = 0,
    /* GL_DEPTH_COMPONENT32F / 24 / 16 / GL_DEPTH_COMPONENT,
     * GL_DEPTH24_STENCIL8 or GL_DEPTH32F_STENCIL8 (a depth-stencil one read
     * as depth: GL_DEPTH_STENCIL_TEXTURE_MODE not GL_STENCIL_INDEX); level 0
     * exactly tex_w x tex_h. Not GL_DEPTH_COMPONENT32 (fixed point), which
     * Mesa's texelFetch reads at about 24 bits. */
    CG_GL_TEXTURE_DEPTH = 1
} cg_gl_texture_kind;

typedef struct cg_gl_dispatch {
    unsigned program;   /* a linked compute program */
    unsigned texture;   /* GL_TEXTURE_2D read at unit 0 (see kind) */
    int tex_w, tex_h;
    cg_gl_texture_kind kind;
    unsigned sampler;   /* bound to unit 0 for the dispatch; 0: none */
    struct {
        unsigned target; /* GL_UNIFORM_BUFFER or GL_SHADER_STORAGE_BUFFER; 0: unused */
        unsigned index, buffer;
        /* size 0: the whole buffer (glBindBufferBase); else
         * glBindBufferRange(offset, size), offset a multiple of the
         * target's offset alignment (256 always is) */
        uint64_t offset, size;
    } bind[CG_GL_DISPATCH_BINDINGS];
    /* update_size nonzero: glBufferSubData(update, update_size) at offset 0
     * of update_buffer (through GL_UNIFORM_BUFFER) before the dispatch. */
    unsigned update_buffer;
    const void *update;
    size_t update_size;
    unsigned groups_x, groups_y;
    unsigned barriers; /* glMemoryBarrier bits after the dispatch; 0: none */
} cg_gl_dispatch;

/* Compute shaders as cg_gl_dispatch_compute runs them, in the current
 * context: GL 4.3, or GL 3.3+ with GL_ARB_compute_shader,
 * GL_ARB_shader_storage_buffer_object and GL_ARB_shading_language_420pack
 * (NVIDIA gives a game the 3.x core version it asks for and exposes
 * compute as these extensions; a shader then names them in place of
 * "#version 430"). 0 with *missing (when not NULL) naming the first thing
 * absent. */
int cg_gl_has_compute(const char **missing);

/* Errors: CG_E_INVALID_ARG (NULL, no program, no groups, a bad kind);
 * CG_E_UNSUPPORTED (no compute: cg_gl_has_compute); dims and
 * CG_E_BAD_TEXTURE as cg_gl_read_color, and a texture whose level 0 is not
 * of the kind: for CG_GL_TEXTURE_RGBA8 not 8-bit RGB(A) (GL_RGBA8 or
 * GL_RGB8; not sRGB, which texelFetch would decode: the shader reads stored
 * bytes, as glReadPixels does); for CG_GL_TEXTURE_DEPTH not a depth format,
 * a depth-stencil texture set to read stencil, or another size; CG_E_GL
 * (see cg_gl_reader_last_error; the reader is then failed). */
cg_status cg_gl_dispatch_compute(cg_gl_reader *r, const cg_gl_dispatch *d);

/* A linked compute program (*program) from GLSL source starting with
 * "#version 430"; in a GL 3.3 context with the compute extensions
 * (cg_gl_has_compute) they are named in place of that line. CG_E_GL with
 * the compile or link log. (cg_gl_compute.c) */
cg_status cg_gl_compute_program(const char *source, unsigned *program, cg_err *err);

/* A new uniform buffer (*buf) of `bytes` of `data`, through the generic
 * binding, restored at once. */
cg_status cg_gl_uniform_buffer(unsigned *buf, const void *data, size_t bytes, cg_err *err);

/* How to linearise depth (cg_depth_linearize); NULL: raw window depth. */
typedef struct cg_gl_depth_linear {
    float near_plane, far_plane; /* 0 < near < far, finite */
    int zero_to_one;             /* clip range [0,1] (glClipControl) vs [-1,1] */
} cg_gl_depth_linear;

/* Read a depth texture (any GL_DEPTH_COMPONENT* / GL_DEPTH*_STENCIL*
 * format) as floats: dst gets tex_w*tex_h values in glReadPixels row order
 * (bottom row first), raw window depth in [0,1] or, with lin, reverse-Z
 * depth linearised to eye distance / far. Synchronous.
 * Errors: as cg_gl_read_color (CG_E_BUFFER_TOO_SMALL when dst_count <
 * tex_w*tex_h; CG_E_INVALID_ARG for bad near/far, checked before GL). */
cg_status cg_gl_read_depth(cg_gl_reader *r, unsigned texture, int tex_w, int tex_h,
                           const cg_gl_depth_linear *lin, float *dst, size_t dst_count);

/* The depth plane pass (cg_gl_depth.c): a compute program, compiled once
 * in the current context, that writes a depth texture into a buffer
 * object as float32 values, rows upright (row 0 is the picture's top),
 * dst_w*4 bytes a row, tightly packed, nearest resize by the RGB plane's
 * mapping (docs/zero-copy-v2/protocol.md): plane pixel (x, Y) is texel
 * (x*src_w/dst_w, (dst_h-1-Y)*src_h/dst_h) of level 0. Raw: the texel as
 * texelFetch gives it, bit for bit (a float format's stored value; a
 * fixed-point one's conversion k / (2^b-1), which may differ from
 * glReadPixels' by one ulp: Mesa's does for 24 bits); linear (lin):
 * reverse-Z depth to eye distance / far, within 2 float ulps of
 * cg_depth_linearize of that texel (0 on llvmpipe). Used by the GL ring
 * (zero-copy v2's depth planes). Thread affinity and state as
 * cg_gl_dispatch_compute; nothing waits for the GPU. */
typedef struct cg_gl_depth_pass cg_gl_depth_pass;

/* Errors: CG_E_INVALID_ARG (NULL), CG_E_NO_CONTEXT, CG_E_UNSUPPORTED (no
 * compute, cg_gl_has_compute; GL below 4.0 without GL_ARB_gpu_shader5,
 * whose `precise` the shader needs),
 * CG_E_GL (the program, with its log), CG_E_NO_MEMORY. */
cg_status cg_gl_depth_pass_create(cg_gl_depth_pass **out, cg_err *err);

/* Free the pass; its GL objects are deleted when the context it was made
 * in is current, else left to die with it. NULL is a no-op. */
void cg_gl_depth_pass_destroy(cg_gl_depth_pass *p);

typedef struct cg_gl_depth_job {
    unsigned texture;           /* GL_TEXTURE_2D, a depth format (cg_gl_texture_kind) */
    int src_w, src_h;           /* its level 0's size, exactly */
    int dst_w, dst_h;           /* the plane's */
    unsigned buffer;            /* the plane at `offset`, dst_w*dst_h*4 bytes */
    uint64_t offset;            /* a multiple of 256 */
    const cg_gl_depth_linear *lin; /* NULL: raw */
} cg_gl_depth_job;

/* One dispatch through r (its context rules and state saving). Errors: as
 * cg_gl_dispatch_compute (CG_E_BAD_TEXTURE for a texture that is not a
 * depth one of src_w x src_h), dims (cg_check_dims_named "depth texture" /
 * "depth plane"), CG_E_INVALID_ARG (no buffer, bad near/far, an offset off
 * GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT), CG_E_UNSUPPORTED (a plane
 * larger than one shader storage block), CG_E_BAD_STATE (another context
 * than the pass's). Text in err. */
cg_status cg_gl_depth_pass_run(cg_gl_depth_pass *p, cg_gl_reader *r, const cg_gl_depth_job *j,
                               cg_err *err);

/* *count = tex_w * tex_h, the floats cg_gl_read_depth writes, after the
 * size check (cg_check_dims_named "depth texture", the values in
 * cg_gl_reader_last_error) that cg_gl_read_depth itself makes. Calls no GL
 * function; for callers that size the destination first. */
cg_status cg_gl_reader_depth_count(cg_gl_reader *r, int tex_w, int tex_h, size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* CG_GL_H */
