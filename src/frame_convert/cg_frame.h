/*
 * cg_frame.h - the pixel core: RGBA8 frame -> RGB8 observation, PNG, depth.
 *
 * Pure C11. No JNI, no GL, no globals, no output to stdout. The caller owns
 * every buffer: ask for the size, pass the destination and its length. Every
 * function is reentrant and may be called from any thread.
 *
 * Row order conventions (docs/wire-format.md):
 *  - The source is src_h rows of src_stride bytes, row 0 first in memory.
 *  - The destination is dst_h rows of dst_w*3 bytes, tightly packed.
 *  - Without flip, destination row order equals source row order (a
 *    glReadPixels buffer is bottom-up and stays bottom-up). With flip the
 *    row order is reversed, so a top-down source comes out bottom-up.
 *  - Nearest-neighbour resize maps destination (x, y) of the bottom-up image
 *    to source (x * src_w / dst_w, y * src_h / dst_h), integer arithmetic.
 *  - The cursor is placed as cg_cursor.h says (hot spot in destination
 *    pixels from the TOP-LEFT; nothing drawn when it lies outside).
 */
#ifndef CG_FRAME_H
#define CG_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "cg_cursor.h"
#include "cg_size.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- conversion -------------------------------------------------------- */

/* CG_FILTER_BOX: destination pixel (x, y) of the bottom-up image is the
 * per-channel average, rounded half up ((sum + n/2) / n), of the bottom-up
 * source pixels [x*src_w/dst_w, (x+1)*src_w/dst_w) x
 * [y*src_h/dst_h, (y+1)*src_h/dst_h) (integer division); an empty range
 * (upscaling) is widened to its first pixel, so upscaling equals nearest. */
typedef enum cg_filter {
    CG_FILTER_NEAREST = 0, /* the wire-format default */
    CG_FILTER_BOX = 1      /* area average, opt-in */
} cg_filter;

typedef struct cg_convert_params {
    const uint8_t *src; /* RGBA8 pixels; alpha is ignored */
    size_t src_stride;  /* bytes from one row start to the next, >= src_w*4 */
    int src_w, src_h;   /* source size in pixels */
    int dst_w, dst_h;   /* destination size in pixels */
    int flip;           /* nonzero: reverse the row order */
    cg_filter filter;
    cg_cursor cursor;   /* draw: the 16x16 arrow after the resize, its hot spot in
                           destination pixels from the TOP-left; any value, clipped */
} cg_convert_params;

typedef enum cg_simd_level {
    CG_SIMD_SCALAR = 0,
    CG_SIMD_SSSE3 = 1,
    CG_SIMD_AVX2 = 2,
    CG_SIMD_NEON = 3
} cg_simd_level;

/* Best level this CPU and this build support (detected once, cached). */
cg_simd_level cg_simd_best(void);
/* Nonzero when `level` can run here. */
int cg_simd_available(cg_simd_level level);
/* "scalar", "ssse3", "avx2", "neon". */
const char *cg_simd_name(cg_simd_level level);

/* Convert in one pass; writes exactly dst_w*dst_h*3 bytes of dst, reads only
 * the source rows and pixels the output needs. Uses cg_simd_best(). dst must
 * not overlap src. Errors: CG_E_INVALID_ARG (NULL pointers, bad filter,
 * stride < src_w*4), dims as cg_check_dims, CG_E_BUFFER_TOO_SMALL when
 * dst_len < dst_w*dst_h*3. On error dst is untouched. */
cg_status cg_convert(const cg_convert_params *p, uint8_t *dst, size_t dst_len);

/* Same, forcing a path; CG_E_UNSUPPORTED when `level` is not available.
 * All levels produce byte-identical output (CG_SIMD_SCALAR is the
 * reference implementation). */
cg_status cg_convert_with(const cg_convert_params *p, uint8_t *dst, size_t dst_len,
                          cg_simd_level level);

/* Draw the cursor exactly as cg_convert's cursor.draw does onto an RGB8
 * image already in dst: w x h pixels, tightly packed rows (w*3 bytes),
 * bottom-up (the wire's order). (cursor_x, cursor_y) in pixels from the
 * TOP-LEFT, any value, placed and clipped as cg_cursor.h says; only the up
 * to CG_CURSOR_SIZE rows the arrow covers are touched. For images that arrive already packed
 * (a GL_RGB readback). Errors: CG_E_INVALID_ARG (NULL), dims as
 * cg_check_dims, CG_E_BUFFER_TOO_SMALL when dst_len < w*h*3. */
cg_status cg_draw_cursor_rgb(uint8_t *dst, size_t dst_len, int w, int h, int cursor_x,
                             int cursor_y);

/* ---- PNG ----------------------------------------------------------------- */

/* A growable byte buffer the caller can see and owns. Start zeroed
 * ({0}); the encoder reuses data/cap across calls and sets len. */
typedef struct cg_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} cg_buf;

/* Free the storage and zero the struct; NULL is a no-op. */
void cg_buf_free(cg_buf *b);

/* PNG row filters, a bitmask (values equal libpng's PNG_FILTER_*). */
#define CG_PNG_FILTER_NONE 0x08
#define CG_PNG_FILTER_SUB 0x10
#define CG_PNG_FILTER_UP 0x20
#define CG_PNG_FILTER_AVG 0x40
#define CG_PNG_FILTER_PAETH 0x80
#define CG_PNG_FILTER_ALL 0xf8

/* One filter in the mask: every row uses it. Several: each row uses the one
 * whose residuals have the smallest sum of absolute values (libpng's
 * adaptive heuristic), among those in the mask. */
/* Which deflate encoder makes the zlib stream inside IDAT. */
#define CG_PNG_DEFLATE_LIBRARY 0 /* libdeflate, else zlib, loaded at first use */
#define CG_PNG_DEFLATE_OWN 1     /* the library's own, made for PNG rows */

/* Levels of the own encoder (matches of whole pixels): 1: the pixel to
 * the left (runs) and the pixel above only; 2: also earlier places of the
 * same two pixels from a table of 8-entry rows, reading the newest one that
 * may give three pixels; 3: up to three of them. -1 means
 * CG_PNG_OWN_LEVEL_DEFAULT. */
#define CG_PNG_OWN_LEVEL_MIN 1
#define CG_PNG_OWN_LEVEL_MAX 3
#define CG_PNG_OWN_LEVEL_DEFAULT 3

typedef struct cg_png_options {
    int level;    /* CG_PNG_DEFLATE_LIBRARY: deflate level 0..9 (libdeflate's,
                   * else zlib's), -1: 6 as libpng. CG_PNG_DEFLATE_OWN: 1..3
                   * (CG_PNG_OWN_LEVEL_*), -1: CG_PNG_OWN_LEVEL_DEFAULT */
    int filters;  /* CG_PNG_FILTER_* mask, or -1 for all five (libpng's default) */
    int strategy; /* -1: the deflate library's own; 0..4: zlib's strategy
                   * (Z_DEFAULT_STRATEGY ... Z_FIXED), which also asks for zlib
                   * rather than libdeflate (zlib alone has strategies);
                   * CG_PNG_DEFLATE_OWN takes -1 only */
    int deflate;  /* CG_PNG_DEFLATE_LIBRARY (0, so {level, filters, strategy}
                   * initialisers keep their meaning) or CG_PNG_DEFLATE_OWN */
} cg_png_options;

/* The library's default: chosen from the measured corpus table in README.md. */
cg_png_options cg_png_default_options(void);

/* The fastest setting worth having (README.md's table: larger files). */
cg_png_options cg_png_fast_options(void);

/* libpng's own defaults (level -1, filters -1, strategy -1). */
cg_png_options cg_png_libpng_defaults(void);

/* Encode w x h RGB8 rows (stride bytes apart, first row first) as an
 * 8-bit RGB PNG into out (out->len set, out->data grown as needed). With
 * CG_PNG_DEFLATE_LIBRARY the deflate library (libdeflate.so.0, else
 * libz.so.1) is loaded with dlopen at the first such call; it is never a
 * load-time dependency. Windows builds load none: there those options get
 * CG_E_UNSUPPORTED, while CG_PNG_DEFLATE_OWN works. Thread-safe; keeps nothing
 * between calls (an encoder, below, does). Errors: CG_E_INVALID_ARG, dims,
 * CG_E_NO_MEMORY, CG_E_PNG, and CG_E_UNSUPPORTED when PNG was not built in
 * or the options ask for a library that does not load
 * (cg_png_unavailable_reason says which). */
cg_status cg_png_encode_rgb(const uint8_t *rgb, int w, int h, size_t stride,
                            const cg_png_options *opt, cg_buf *out);

/* NULL when PNG encoding works in this process; else a sentence naming what
 * is missing (static storage). May load the deflate library. */
const char *cg_png_unavailable_reason(void);

/* "libdeflate" or "zlib": the deflate library PNG encoding uses for
 * strategy -1; NULL when none loads (always on Windows) or PNG is not built. */
const char *cg_png_deflate_name(void);

/* ---- the PNG encoder context ----------------------------------------------
 * cg_png_encode_rgb allocates its work area (the filtered rows and the
 * deflate's memory: about 1 MB for 640x360, 6.5 MB for 1920x1080) each
 * call. An encoder is the caller's object that keeps that area, and a
 * buffer for the caller's RGB rows, from one call to the next (fresh
 * buffers each call fault their pages in again: about 80 page faults a
 * 640x360 frame), as zstd's ZSTD_CCtx or libspng's spng_ctx do. Nothing is
 * kept anywhere else: one encoder per thread that encodes, or one per
 * stream behind the caller's lock; an encoder is not thread-safe, distinct
 * encoders are independent. Output bytes never depend on the encoder. */
typedef struct cg_png_encoder cg_png_encoder;

/* The default cap on each buffer an encoder keeps between calls: a frame
 * needing more is encoded in buffers of its own call, freed before the call
 * returns, so an encoder never holds more than twice its cap. */
#define CG_PNG_KEEP_MAX ((size_t)64 << 20)

/* A new encoder keeping buffers of at most keep_max bytes (0:
 * CG_PNG_KEEP_MAX). Errors: CG_E_INVALID_ARG (out NULL), CG_E_NO_MEMORY,
 * CG_E_UNSUPPORTED when PNG was not built in (cg_png_unavailable_reason). */
cg_status cg_png_encoder_create(size_t keep_max, cg_png_encoder **out);

/* Free e and what it keeps. NULL: no-op. */
void cg_png_encoder_destroy(cg_png_encoder *e);

/* A buffer of at least len bytes, e's, for the caller to write the RGB rows
 * it encodes next (*rows valid until the next call on e). One above the cap
 * is freed at the end of the next cg_png_encoder_encode. Errors:
 * CG_E_INVALID_ARG (NULL), CG_E_NO_MEMORY. */
cg_status cg_png_encoder_rows(cg_png_encoder *e, size_t len, uint8_t **rows);

/* cg_png_encode_rgb in e's kept work area: the same bytes, the same
 * errors (CG_E_INVALID_ARG also for e NULL). */
cg_status cg_png_encoder_encode(cg_png_encoder *e, const uint8_t *rgb, int w, int h,
                                size_t stride, const cg_png_options *opt, cg_buf *out);

/* Bytes e keeps between calls now (its work area and row buffer); at most
 * twice its cap after every cg_png_encoder_encode. 0 for NULL. */
size_t cg_png_encoder_kept(const cg_png_encoder *e);

/* ---- depth --------------------------------------------------------------- */

/* Linearise n reverse-Z depth values in place (1 = near, 0 = far) into eye
 * distance / far. zero_to_one: z = n*f / (n + d*(f-n)); otherwise
 * z = 2*n*f / (n + f + (2d-1)*(f-n)). Requires 0 < near < far, both finite
 * (CG_E_INVALID_ARG otherwise; cg_depth_check_planes is that check). */
cg_status cg_depth_check_planes(float near_plane, float far_plane);

cg_status cg_depth_linearize(float *depth, size_t n, float near_plane, float far_plane,
                             int zero_to_one);

#ifdef __cplusplus
}
#endif

#endif /* CG_FRAME_H */
