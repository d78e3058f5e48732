/*
 * RGBA8 -> RGB8 conversion: flip, resize (nearest or box), cursor overlay,
 * in one pass that writes each destination row once and draws the cursor
 * into it while the row is still in L1.
 *
 * Two row paths produce byte-identical output: nearest_row_reference() is
 * the plain per-pixel definition (CG_SIMD_SCALAR); nearest_row_fast() uses
 * the architecture's row kernels and a small x-offset table. Likewise the
 * box filter: box_row() is the definition, box_row_fast() the fast levels'.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "cg_frame.h"
#include "cg_frame_internal.h"

/* Columns per x-offset table chunk: 1024 * 4 bytes of stack. */
#define CG_XCHUNK 1024

/* ---- shared helpers ----------------------------------------------------- */

/* Memory row of bottom-up image row `iy`. */
static const uint8_t *src_row(const cg_convert_params *p, int iy)
{
    int mrow = p->flip ? p->src_h - 1 - iy : iy;
    return p->src + (size_t)mrow * p->src_stride;
}

/* Paint one run of the cursor into a bottom-up RGB8 image, rows w*3 bytes. */
static void paint_run(uint8_t *img, int w, const cg_cursor_run *run)
{
    uint8_t *at = img + ((size_t)run->y * (size_t)w + (size_t)run->x) * 3;
    memset(at, run->white ? 0xff : 0x00, (size_t)run->len * 3);
}

/* Box filter: destination (x, y) averages bottom-up source
 * [x*sw/dw, (x+1)*sw/dw) x [y*sh/dh, (y+1)*sh/dh), at least one pixel. */
static void span(int i, int s, int d, int *lo, int *hi)
{
    *lo = (int)((int64_t)i * s / d);
    *hi = (int)((int64_t)(i + 1) * s / d);
    if (*hi <= *lo) *hi = *lo + 1;
}

/* When upscaling, neighbouring destination columns (rows) often have the
 * same span: their pixels are equal, and each is computed once and copied,
 * so the cost is O(source + output) whatever the shapes (without that, a
 * 1x16384 -> 16384x1 box summed 16384 rows for every one of 16384 columns).
 * Spans of downscaling are disjoint, so every source pixel is read once. */
static void box_row(const cg_convert_params *p, int y, uint8_t *out)
{
    int y0, y1;
    span(y, p->src_h, p->dst_h, &y0, &y1);
    int px0 = -1, px1 = -1, first = 0; /* first column of the current span */
    for (int x = 0; x < p->dst_w; x++) {
        int x0, x1;
        span(x, p->src_w, p->dst_w, &x0, &x1);
        if (x0 == px0 && x1 == px1) {
            memcpy(out + (size_t)x * 3, out + (size_t)first * 3, 3);
            continue;
        }
        px0 = x0;
        px1 = x1;
        first = x;
        /* Up to 16384^2 pixels of 255: needs 64 bits. */
        uint64_t sum[3] = {0, 0, 0};
        for (int iy = y0; iy < y1; iy++) {
            const uint8_t *s = src_row(p, iy) + (size_t)x0 * 4;
            for (int ix = x0; ix < x1; ix++, s += 4) {
                sum[0] += s[0];
                sum[1] += s[1];
                sum[2] += s[2];
            }
        }
        uint64_t n = (uint64_t)(y1 - y0) * (uint64_t)(x1 - x0);
        for (int c = 0; c < 3; c++) out[(size_t)x * 3 + c] = (uint8_t)((sum[c] + n / 2) / n);
    }
}

/* Box filter for the fast levels; identical output to box_row() (which the
 * tests compare it against). Spans are stepped without division, source
 * rows are read in order, and sums stay in 32 bits: per chunk of up to
 * CG_BOX_CHUNK destination columns, 4 KB of stack. Rows whose box could
 * overflow 32-bit sums (downscaling by thousands) use box_row(). */
#define CG_BOX_CHUNK 256

static void box_row_fast(const cg_convert_params *p, int y, uint8_t *out)
{
    int y0, y1;
    span(y, p->src_h, p->dst_h, &y0, &y1);
    const int sw = p->src_w, dw = p->dst_w, q = sw / dw, r = sw % dw;
    const uint32_t rows = (uint32_t)(y1 - y0);
    if ((uint64_t)rows * (uint64_t)(q + 1) > UINT32_MAX / 256) {
        box_row(p, y, out);
        return;
    }
    /* Boxes are rows x q or rows x (q+1) pixels (rows x 1 when upscaling).
     * For those two areas divide by multiplying with ceil(2^33 / area):
     * exact for every numerator up to 255.5 * area when area <= 4096
     * (checked exhaustively); m == 0 means "use the division". */
    const uint32_t area_a = rows * (uint32_t)(q > 0 ? q : 1), area_b = rows * (uint32_t)(q + 1);
    const uint64_t m_a = area_a <= 4096 ? (((uint64_t)1 << 33) + area_a - 1) / area_a : 0;
    const uint64_t m_b = area_b <= 4096 ? (((uint64_t)1 << 33) + area_b - 1) / area_b : 0;
    uint32_t sum[CG_BOX_CHUNK * 3];
    int lo[CG_BOX_CHUNK + 1];
    int ulo[CG_BOX_CHUNK], uhi[CG_BOX_CHUNK]; /* the chunk's distinct spans, in order */
    int next = 0, rem = 0; /* x * sw / dw and its remainder; the loop below
                              leaves them at x = c0 + n, the next chunk */
    int prev_lo = -1; /* lo of the column before the chunk */
    int first = 0;    /* first column of the current span */
    for (int c0 = 0; c0 < dw; c0 += CG_BOX_CHUNK) {
        const int n = dw - c0 < CG_BOX_CHUNK ? dw - c0 : CG_BOX_CHUNK;
        for (int i = 0; i <= n; i++) {
            lo[i] = next;
            if (i == n) break;
            next += q;
            rem += r;
            if (rem >= dw) {
                rem -= dw;
                next++;
            }
        }
        /* Spans start in order and differ from the previous column's only
         * where the start moves (a repeated start is a one-pixel span). */
        int nu = 0;
        for (int i = 0; i < n; i++) {
            if (lo[i] == (i ? lo[i - 1] : prev_lo)) continue;
            ulo[nu] = lo[i];
            uhi[nu] = lo[i + 1] > lo[i] ? lo[i + 1] : lo[i] + 1;
            nu++;
        }
        memset(sum, 0, sizeof(uint32_t) * 3 * (size_t)nu);
        for (int iy = y0; iy < y1 && nu > 0; iy++) {
            const uint8_t *s = src_row(p, iy);
            for (int u = 0; u < nu; u++) {
                uint32_t a = 0, b = 0, c = 0;
                for (const uint8_t *px = s + (size_t)ulo[u] * 4, *end = s + (size_t)uhi[u] * 4;
                     px < end; px += 4) {
                    a += px[0];
                    b += px[1];
                    c += px[2];
                }
                sum[3 * u] += a;
                sum[3 * u + 1] += b;
                sum[3 * u + 2] += c;
            }
        }
        uint8_t *o = out + (size_t)c0 * 3;
        for (int i = 0, u = -1; i < n; i++) {
            if (lo[i] == (i ? lo[i - 1] : prev_lo)) {
                /* The span of column `first`: copied from there, not from the
                 * previous column, so no copy waits for the one before. */
                memcpy(o + 3 * i, out + (size_t)first * 3, 3);
                continue;
            }
            u++;
            first = c0 + i;
            const uint32_t area = rows * (uint32_t)(uhi[u] - ulo[u]);
            const uint64_t m = area == area_a ? m_a : area == area_b ? m_b : 0;
            for (int ch = 0; ch < 3; ch++) {
                const uint32_t v = sum[3 * u + ch] + area / 2;
                o[3 * i + ch] = (uint8_t)(m ? (v * m) >> 33 : v / area);
            }
        }
        prev_lo = lo[n - 1];
    }
}

/* ---- nearest-neighbour rows ---------------------------------------------------- */

/* The reference: the mapping of docs/wire-format.md ("Resize"), one pixel at a time. */
static void nearest_row_reference(const cg_convert_params *p, const uint8_t *s, uint8_t *out)
{
    for (int x = 0; x < p->dst_w; x++) {
        const uint8_t *px = s + (size_t)((int64_t)x * p->src_w / p->dst_w) * 4;
        out[(size_t)x * 3 + 0] = px[0];
        out[(size_t)x * 3 + 1] = px[1];
        out[(size_t)x * 3 + 2] = px[2];
    }
}

/* xoff[i] = byte offset of source column (x0+i)*sw/dw, stepped without
 * division (Bresenham): sx advances by q, plus one when rem wraps. */
static void fill_xoff(uint32_t *xoff, int x0, int n, int sw, int dw)
{
    int64_t start = (int64_t)x0 * sw;
    uint32_t sx = (uint32_t)(start / dw);
    int rem = (int)(start % dw);
    const uint32_t q = (uint32_t)(sw / dw);
    const int r = sw % dw;
    for (int i = 0; i < n; i++) {
        xoff[i] = sx * 4;
        sx += q;
        rem += r;
        if (rem >= dw) {
            rem -= dw;
            sx++;
        }
    }
}

/* The x-offset table of the fast path, refilled only when the chunk changes
 * (never, when the row fits in one chunk). */
typedef struct xoff_cache {
    int loaded; /* x0 of the chunk now in xoff, -1 when none */
    uint32_t xoff[CG_XCHUNK];
} xoff_cache;

/* Pixels per piece of a fast row: the next row's source for a piece is
 * prefetched just before the piece runs, so the requests are spread over
 * the row instead of bunched at its start (AMD drops software prefetches
 * when its miss buffers are full: one burst of a whole 1920-pixel row's
 * lines left the 1920x1080 -> 640x360 case at 3x its cold limit). */
#define CG_PIECE 256

/* The lines of a[lo..hi], read soon. */
static void prefetch_span(const uint8_t *a, size_t lo, size_t hi)
{
    for (size_t off = lo & ~(size_t)63; off <= hi; off += 64) __builtin_prefetch(a + off, 0, 3);
}

/* One destination row from source row s; `next` is the source row of the
 * row that comes after it (NULL for the last), whose lines are prefetched
 * piece by piece. A cold source (a readback buffer the GPU's DMA wrote) is
 * then in cache by the time its row runs, whatever rows resizing skips. */
static void nearest_row_fast(const cg_convert_params *p, const cg_row_kernels *k,
                             xoff_cache *xc, const uint8_t *s, const uint8_t *next,
                             uint8_t *out)
{
    if (p->src_w == p->dst_w) {
        for (int x = 0; x < p->dst_w; x += CG_PIECE) {
            const int n = p->dst_w - x < CG_PIECE ? p->dst_w - x : CG_PIECE;
            if (next != NULL) prefetch_span(next, (size_t)x * 4, (size_t)(x + n) * 4 - 1);
            k->pack(s + (size_t)x * 4, out + (size_t)x * 3, n);
        }
        return;
    }
    for (int x0 = 0; x0 < p->dst_w; x0 += CG_XCHUNK) {
        int n = p->dst_w - x0 < CG_XCHUNK ? p->dst_w - x0 : CG_XCHUNK;
        if (xc->loaded != x0) {
            fill_xoff(xc->xoff, x0, n, p->src_w, p->dst_w);
            xc->loaded = x0;
        }
        for (int i = 0; i < n; i += CG_PIECE) {
            const int m = n - i < CG_PIECE ? n - i : CG_PIECE;
            if (next != NULL) prefetch_span(next, xc->xoff[i], xc->xoff[i + m - 1] + 3);
            k->gather(s, xc->xoff + i, out + (size_t)(x0 + i) * 3, m);
        }
    }
}

/* ---- the one-pass driver --------------------------------------------------- */

/* The cursor over a finished w x h RGB8 image (cg_cursor.h places it). */
static void cursor_rows(uint8_t *dst, int w, int h, int cursor_x, int cursor_y)
{
    cg_cursor_run runs[CG_CURSOR_MAX_RUNS];
    int n = cg_cursor_runs(w, h, cursor_x, cursor_y, runs);
    for (int i = 0; i < n; i++) paint_run(dst, w, &runs[i]);
}

/* Box rows: a row whose source band is the previous row's is a copy of it
 * (upscaling), so the cursor goes on afterwards, over the rows it covers.
 * k == NULL runs the definition. */
static void box_rows(const cg_convert_params *p, uint8_t *dst, const cg_row_kernels *k)
{
    const size_t drow = (size_t)p->dst_w * 3;
    int py0 = -1, py1 = -1;
    for (int y = 0; y < p->dst_h; y++) {
        uint8_t *out = dst + (size_t)y * drow;
        int y0, y1;
        span(y, p->src_h, p->dst_h, &y0, &y1);
        if (y0 == py0 && y1 == py1) {
            memcpy(out, out - drow, drow);
        } else if (k == NULL) {
            box_row(p, y, out);
        } else {
            box_row_fast(p, y, out);
        }
        py0 = y0;
        py1 = y1;
    }
    if (p->cursor.draw) cursor_rows(dst, p->dst_w, p->dst_h, p->cursor.x, p->cursor.y);
}

/* k == NULL runs the scalar reference. Rows go in the order that reads the
 * source upwards in memory: bottom row first without flip, top row first
 * with it (the flipped image's last source row is its first memory row).
 * Cold sources (a mapped readback buffer written by DMA) are fetched by the
 * hardware prefetcher only when read in that order: reading memory rows
 * last to first took 1.7x the read+write floor at 640x360 (bench_core,
 * "cold source"), in this order the flip costs what the plain copy does.
 * The destination's rows are written in that order too; stores do not wait
 * for their lines the way loads do. */
static void convert_rows(const cg_convert_params *p, uint8_t *dst, const cg_row_kernels *k)
{
    const size_t drow = (size_t)p->dst_w * 3;
    xoff_cache xc;
    xc.loaded = -1;
    if (p->filter == CG_FILTER_BOX) {
        box_rows(p, dst, k);
        return;
    }
    /* The cursor goes into each row while it is still in L1. Runs come
     * ordered by bitmap row, i.e. by descending buffer row: walk them from
     * the end as y ascends, from the start as it descends. */
    cg_cursor_run runs[CG_CURSOR_MAX_RUNS];
    const int nruns = p->cursor.draw ? cg_cursor_runs(p->dst_w, p->dst_h, p->cursor.x,
                                                      p->cursor.y, runs)
                                     : 0;
    const int step = p->flip ? -1 : 1;
    int next = p->flip ? 0 : nruns - 1;
    const int y0 = p->flip ? p->dst_h - 1 : 0;
    const uint8_t *s = src_row(p, (int)((int64_t)y0 * p->src_h / p->dst_h));
    for (int i = 0, y = y0; i < p->dst_h; i++, y += step) {
        uint8_t *out = dst + (size_t)y * drow;
        const uint8_t *ns =
            i + 1 < p->dst_h ? src_row(p, (int)((int64_t)(y + step) * p->src_h / p->dst_h)) : NULL;
        if (k == NULL) {
            nearest_row_reference(p, s, out);
        } else {
            nearest_row_fast(p, k, &xc, s, ns, out);
        }
        s = ns;
        for (; next >= 0 && next < nruns && runs[next].y == y; next -= step)
            paint_run(dst, p->dst_w, &runs[next]);
    }
}

/* ---- portable kernels ------------------------------------------------------ */

void cg_row_pack_portable(const uint8_t *src, uint8_t *dst, int n)
{
    for (int i = 0; i < n; i++) {
        dst[3 * i + 0] = src[4 * i + 0];
        dst[3 * i + 1] = src[4 * i + 1];
        dst[3 * i + 2] = src[4 * i + 2];
    }
}

void cg_row_gather_portable(const uint8_t *row, const uint32_t *xoff, uint8_t *dst, int n)
{
    /* 4-byte copies; each one's extra byte is overwritten by the next pixel. */
    int i = 0;
    for (; i + 1 < n; i++) memcpy(dst + 3 * i, row + xoff[i], 4);
    for (; i < n; i++) memcpy(dst + 3 * i, row + xoff[i], 3);
}

/* ---- public entry points ------------------------------------------------- */

static cg_status check_params(const cg_convert_params *p, const uint8_t *dst, size_t dst_len)
{
    size_t need, extent;
    CG_RETURN_IF(p == NULL || dst == NULL || p->src == NULL, CG_E_INVALID_ARG);
    CG_RETURN_IF(p->filter != CG_FILTER_NEAREST && p->filter != CG_FILTER_BOX,
                 CG_E_INVALID_ARG);
    CG_TRY(cg_check_dims(p->src_w, p->src_h));
    CG_TRY(cg_check_dims(p->dst_w, p->dst_h));
    CG_RETURN_IF(p->src_stride < (size_t)p->src_w * 4, CG_E_INVALID_ARG);
    CG_TRY(cg_mul_size(p->src_stride, (size_t)(p->src_h - 1), &extent));
    CG_RETURN_IF(extent > SIZE_MAX - (size_t)p->src_w * 4, CG_E_OVERFLOW);
    extent += (size_t)p->src_w * 4;
    CG_TRY(cg_image_size(p->dst_w, p->dst_h, 3, &need));
    CG_RETURN_IF(dst_len < need, CG_E_BUFFER_TOO_SMALL);
    /* Rows are written before later source rows are read: no overlap. */
    uintptr_t s0 = (uintptr_t)p->src, d0 = (uintptr_t)dst;
    CG_RETURN_IF(d0 < s0 + extent && s0 < d0 + need, CG_E_INVALID_ARG);
    return CG_OK;
}

cg_status cg_convert_with(const cg_convert_params *p, uint8_t *dst, size_t dst_len,
                          cg_simd_level level)
{
    CG_TRY(check_params(p, dst, dst_len));
    if (level == CG_SIMD_SCALAR) {
        convert_rows(p, dst, NULL);
        return CG_OK;
    }
    cg_row_kernels k;
    CG_TRY(cg_simd_arch_kernels(level, &k));
    convert_rows(p, dst, &k);
    return CG_OK;
}

cg_status cg_convert(const cg_convert_params *p, uint8_t *dst, size_t dst_len)
{
    return cg_convert_with(p, dst, dst_len, cg_simd_best());
}

cg_status cg_draw_cursor_rgb(uint8_t *dst, size_t dst_len, int w, int h, int cursor_x,
                             int cursor_y)
{
    size_t need;
    CG_RETURN_IF(dst == NULL, CG_E_INVALID_ARG);
    CG_TRY(cg_image_size(w, h, 3, &need));
    CG_RETURN_IF(dst_len < need, CG_E_BUFFER_TOO_SMALL);
    cursor_rows(dst, w, h, cursor_x, cursor_y);
    return CG_OK;
}

/* ---- SIMD level queries ---------------------------------------------------- */

int cg_simd_available(cg_simd_level level)
{
    return level == CG_SIMD_SCALAR || cg_simd_arch_available(level);
}

cg_simd_level cg_simd_best(void)
{
    /* Detected on the first call, then one relaxed load per frame. */
    static _Atomic int best = -1;
    int b = atomic_load_explicit(&best, memory_order_relaxed);
    if (b >= 0) return (cg_simd_level)b;
    static const cg_simd_level order[] = {CG_SIMD_AVX2, CG_SIMD_NEON, CG_SIMD_SSSE3};
    b = CG_SIMD_SCALAR;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (cg_simd_arch_available(order[i])) {
            b = order[i];
            break;
        }
    atomic_store_explicit(&best, b, memory_order_relaxed);
    return (cg_simd_level)b;
}

const char *cg_simd_name(cg_simd_level level)
{
    switch (level) {
    case CG_SIMD_SCALAR: return "scalar";
    case CG_SIMD_SSSE3: return "ssse3";
    case CG_SIMD_AVX2: return "avx2";
    case CG_SIMD_NEON: return "neon";
    }
    return "unknown";
}
