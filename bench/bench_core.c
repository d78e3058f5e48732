/*
 * bench_core: per-frame median times of the pixel core, each printed with
 * its ratio to a limit measured in the same run, timed the same way.
 *
 * RAW limit: a streaming read of exactly the source bytes the output needs
 * (for each destination row, the whole cache lines of its source row from
 * the first to the last pixel used) plus a write of the output bytes. No
 * conversion can do less memory traffic than that. Rows are read in memory
 * order (upwards), whatever the flip.
 *
 * Cold source: the same cases with the source in no cache before every
 * frame, as a GPU readback buffer is after the DMA wrote it; the limit is
 * made cold the same way (see make_cold).
 * PNG limit: libpng's default settings on the same frame, on the frames of
 * bench/corpus (real Minetest frames, see its README).
 *
 * Box limit: a streaming read of the whole source plus the output write.
 *
 * Usage: bench_core [scale]
 *        [raw|cold|box|png|png-table|png-peers|png-peers-quick|png-small|png-stage]
 *        [corpus-dir]
 *   scale multiplies the repetitions (default 1); raw, cold, box or png runs
 *   one part;
 *   png-table: the per-frame PNG tables without the options sweep;
 *   png-peers: this tree's settings beside libpng, fpnge, fpng, libspng and
 *   stb_image_write (those built: bench/core.cmake) on the corpus;
 *   png-peers-quick: the same, only this tree and the first peer timed, with
 *   each frame's ratios;
 *   png-small: png-peers-quick's encoders on the corpus frames scaled down
 *   (nearest pixel) to the sizes RL observations often have: 64x64,
 *   128x128, 160x90, 256x144 and 320x180 (one table per size, no per-frame
 *   lines);
 *   png-stage: this tree's deflate beside the deflate library, zstd and lz4
 *   (those found) on the same SUB-filtered rows (png_stage_table).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

#include "bench_util.h"
#include "cg_frame.h"

/* ---- the limit: read the needed source lines, write the output ------------- */

static volatile uint64_t sink;

/* a, b: 64-byte aligned [a, b). Eight independent accumulators so the
 * compiler vectorises this into full-width loads. */
static inline __attribute__((always_inline)) uint64_t read_lines_body(const uint8_t *a,
                                                                      const uint8_t *b)
{
    uint64_t acc[8] = {0};
    for (const uint64_t *p = (const uint64_t *)(const void *)a;
         p < (const uint64_t *)(const void *)b; p += 8)
        for (int k = 0; k < 8; k++) acc[k] ^= p[k];
    return acc[0] ^ acc[1] ^ acc[2] ^ acc[3] ^ acc[4] ^ acc[5] ^ acc[6] ^ acc[7];
}

static uint64_t read_lines_plain(const uint8_t *a, const uint8_t *b)
{
    return read_lines_body(a, b);
}

typedef uint64_t (*read_lines_fn)(const uint8_t *a, const uint8_t *b);

/* The widest loads this CPU has, chosen at run time like cg_convert's own
 * levels: an AVX2 instruction on a CPU without it would kill the bench. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static uint64_t read_lines_avx2(const uint8_t *a,
                                                                const uint8_t *b)
{
    return read_lines_body(a, b);
}

static read_lines_fn read_lines_pick(void)
{
    return cg_simd_available(CG_SIMD_AVX2) ? read_lines_avx2 : read_lines_plain;
}
#else
static read_lines_fn read_lines_pick(void)
{
    return read_lines_plain;
}
#endif

static void limit_pass(const cg_convert_params *p, uint8_t *dst)
{
    const size_t drow = (size_t)p->dst_w * 3;
    /* The first and last source byte the output needs, same on every row. */
    const size_t first = 0;
    const size_t last = (size_t)((int64_t)(p->dst_w - 1) * p->src_w / p->dst_w) * 4 + 3;
    const read_lines_fn read_lines = read_lines_pick();
    uint64_t acc = 0;
    /* Rows in the order that reads memory upwards (the fastest order for a
     * cold source: the one the hardware prefetcher follows). */
    const int step = p->flip ? -1 : 1;
    for (int i = 0, y = p->flip ? p->dst_h - 1 : 0; i < p->dst_h; i++, y += step) {
        int iy = (int)((int64_t)y * p->src_h / p->dst_h);
        int mrow = p->flip ? p->src_h - 1 - iy : iy;
        const uint8_t *row = p->src + (size_t)mrow * p->src_stride;
        uintptr_t a = ((uintptr_t)(row + first)) & ~(uintptr_t)63;
        uintptr_t b = ((uintptr_t)(row + last) + 64) & ~(uintptr_t)63;
        acc ^= read_lines((const uint8_t *)a, (const uint8_t *)b);
        memset(dst + (size_t)y * drow, (int)(acc & 0xff), drow);
    }
    sink ^= acc;
}

/* ---- timing ------------------------------------------------------------------- */

typedef void (*frame_fn)(void *ctx);

/* Median per-frame time over `reps` frames after `reps/4 + 2` warm-ups. */
static double time_median(frame_fn fn, void *ctx, int reps)
{
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (t == NULL) return -1.0;
    for (int i = 0; i < reps / 4 + 2; i++) fn(ctx);
    for (int i = 0; i < reps; i++) {
        double t0 = bench_now_us();
        fn(ctx);
        t[i] = bench_now_us() - t0;
    }
    double m = bench_median(t, reps);
    free(t);
    return m;
}

/* Interleave the case and its limit in rounds, so that both see the same
 * machine state (frequency, other load); medians over all rounds. */
static void time_pair(frame_fn a, void *actx, frame_fn b, void *bctx, int reps, double *ma,
                      double *mb)
{
    enum { ROUNDS = 5 };
    double ra[ROUNDS], rb[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        ra[r] = time_median(a, actx, reps / ROUNDS + 1);
        rb[r] = time_median(b, bctx, reps / ROUNDS + 1);
    }
    *ma = bench_median(ra, ROUNDS);
    *mb = bench_median(rb, ROUNDS);
}

/* ---- the frames ----------------------------------------------------------------- */

static uint32_t hash4(int a, int b, int c, int d)
{
    uint32_t h = (uint32_t)a * 0x9e3779b1u ^ (uint32_t)b * 0x85ebca77u ^
                 (uint32_t)c * 0xc2b2ae3du ^ (uint32_t)d * 0x27d4eb2fu;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return h;
}

static uint8_t clamp8(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* A frame that looks like Minecraft, top-down RGBA: a sky gradient with flat
 * clouds; a ground plane of 16x16-texel blocks in perspective (grass, dirt,
 * stone, flat water), each texel with its own noise, far texels averaged as
 * mipmaps do, distance fog; a few textured pillars; a flat hotbar. */
static uint8_t *game_frame(int w, int h)
{
    uint8_t *f = malloc((size_t)w * (size_t)h * 4);
    if (f == NULL) return NULL;
    static const int kinds[4][3] = {{95, 159, 53}, {134, 96, 67}, {125, 125, 125}, {50, 80, 210}};
    const int horizon = h * 2 / 5;
    const double focal = w * 0.6, eye = 1.7;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *px = f + ((size_t)y * (size_t)w + (size_t)x) * 4;
            int sky_r = 120 + 60 * y / (horizon + 1), sky_g = 165 + 50 * y / (horizon + 1);
            /* sun glow: a smooth 2-D gradient, so sky rows are not copies */
            double dx = (x - w * 0.7) / w, dy = (double)(y - horizon / 3) / h;
            int glow = (int)(60.0 / (1.0 + 40.0 * (dx * dx + dy * dy)));
            sky_r += glow;
            sky_g += glow;
            int r = sky_r, g = sky_g, b = 255;
            if (y < horizon) {
                /* flat clouds: big axis-aligned blobs */
                if (hash4(x / 40, y / 12, 7, 7) % 5 == 0 && y < horizon / 2) r = g = b = 245;
            } else {
                double z = eye * focal / (double)(y - horizon + 1);
                double wx = ((double)x - w / 2.0) * z / focal + 1000.0, wz = z + 1000.0;
                int bx = (int)wx, bz = (int)wz;
                int kind = (int)(hash4(bx, bz, 1, 2) % 16);
                kind = kind < 9 ? 0 : kind < 12 ? 1 : kind < 14 ? 2 : 3;
                int tx = (int)((wx - bx) * 16), tz = (int)((wz - bz) * 16);
                double texels_per_px = z / focal * 16.0;
                int n = kind == 3 ? 0
                        : texels_per_px < 1.0 ? (int)(hash4(bx, bz, tx, tz) % 48) - 24
                                              : (int)(hash4(bx, bz, 3, 3) % 16) - 8;
                /* smooth light: darker towards block edges (ambient occlusion) */
                double ex = wx - bx - 0.5, ez = wz - bz - 0.5;
                n -= (int)(24.0 * (ex * ex + ez * ez));
                double fog = z > 60.0 ? 1.0 : z / 60.0;
                r = (int)((kinds[kind][0] + n) * (1.0 - fog) + sky_r * fog);
                g = (int)((kinds[kind][1] + n) * (1.0 - fog) + sky_g * fog);
                b = (int)((kinds[kind][2] + n) * (1.0 - fog) + 255 * fog);
            }
            /* pillars: textured stone columns standing on the ground */
            int col = x / (w / 8), cx = x % (w / 8);
            if (col % 3 == 1 && cx > w / 40 && cx < w / 13 && y > h / 5 && y < horizon + h / 4) {
                int n = (int)(hash4(x / 3, y / 3, col, 9) % 40) - 20;
                r = 110 + n;
                g = 100 + n;
                b = 90 + n;
            }
            /* hotbar: 9 slots centred at the bottom */
            int hb_w = w / 2, hb_h = h / 12, hx = x - (w - hb_w) / 2, hy = y - (h - hb_h - 2);
            if (hx >= 0 && hx < hb_w && hy >= 0 && hy < hb_h) {
                int slot = hb_w / 9, edge = hx % slot < 2 || hy < 2 || hy >= hb_h - 2;
                r = g = b = edge ? 30 : 139;
            }
            px[0] = clamp8(r);
            px[1] = clamp8(g);
            px[2] = clamp8(b);
            px[3] = 255;
        }
    return f;
}

/* ---- RAW cases -------------------------------------------------------------------- */

typedef struct raw_ctx {
    cg_convert_params p;
    uint8_t *dst;
    size_t dst_len;
    cg_simd_level level;
} raw_ctx;

static void run_convert(void *c)
{
    raw_ctx *r = c;
    if (cg_convert_with(&r->p, r->dst, r->dst_len, r->level) != CG_OK) abort();
}

static void run_limit(void *c)
{
    raw_ctx *r = c;
    limit_pass(&r->p, r->dst);
}

/* r at every SIMD level this CPU has, each against `limit`. */
static void time_levels(const char *name, raw_ctx *r, frame_fn limit, int reps)
{
    for (int lvl = CG_SIMD_SCALAR; lvl <= CG_SIMD_NEON; lvl++) {
        if (!cg_simd_available((cg_simd_level)lvl)) continue;
        r->level = (cg_simd_level)lvl;
        double t, lim;
        time_pair(run_convert, r, limit, r, reps, &t, &lim);
        printf("%-34s %-6s %9.1f us   limit %8.1f us   ratio %5.2f%s\n", name,
               cg_simd_name((cg_simd_level)lvl), t, lim, t / lim,
               lvl == (int)cg_simd_best() ? "   <- default" : "");
    }
}

/* A convert case over src (sw x sh RGBA) into dw x dh, cursor at the centre;
 * allocates the output (freed by the caller). */
static void case_init(raw_ctx *r, const uint8_t *src, int sw, int sh, int dw, int dh,
                      cg_filter filter, int flip)
{
    memset(r, 0, sizeof *r);
    r->p.src = src;
    r->p.src_stride = (size_t)sw * 4;
    r->p.src_w = sw;
    r->p.src_h = sh;
    r->p.dst_w = dw;
    r->p.dst_h = dh;
    r->p.filter = filter;
    r->p.flip = flip;
    r->p.cursor.draw = 1;
    r->p.cursor.x = dw / 2;
    r->p.cursor.y = dh / 2;
    r->dst_len = (size_t)dw * (size_t)dh * 3;
    r->dst = malloc(r->dst_len);
    if (src == NULL || r->dst == NULL) abort();
}

static void raw_case(const char *name, int sw, int sh, int dw, int dh, int flip, int reps)
{
    uint8_t *src = game_frame(sw, sh);
    raw_ctx r;
    case_init(&r, src, sw, sh, dw, dh, CG_FILTER_NEAREST, flip);
    time_levels(name, &r, run_limit, reps);
    free(r.dst);
    free(src);
}

/* ---- cold source ------------------------------------------------------------------ */

/* Put [a, a + n) in no cache. x86: clflush of its lines, the faithful model
 * of memory a device wrote by DMA (a mapped readback buffer). Elsewhere: a
 * write of a buffer larger than any last-level cache, which evicts it too. */
static void make_cold(const uint8_t *a, size_t n)
{
#if defined(__x86_64__) || defined(__i386__)
    const uint8_t *p = (const uint8_t *)((uintptr_t)a & ~(uintptr_t)63);
    for (; p < a + n; p += 64) _mm_clflush(p);
    _mm_mfence();
#else
    enum { EVICT = 64 << 20 };
    static uint8_t *big;
    if (big == NULL && (big = malloc(EVICT)) == NULL) abort();
    static uint8_t v;
    memset(big, ++v, EVICT);
    (void)a;
    (void)n;
#endif
}

/* Median per-frame times, the source made cold before every frame (not
 * timed), of n functions run in turn frame by frame, so that all of them
 * see the same machine state. */
static void time_cold(frame_fn *fn, void **ctx, int n, const uint8_t *src, size_t src_len,
                      int reps, double *median)
{
    double *t = malloc(sizeof(double) * (size_t)reps * (size_t)n);
    if (t == NULL) abort();
    for (int k = 0; k < n; k++) fn[k](ctx[k]); /* page in, warm the code */
    for (int i = 0; i < reps; i++)
        for (int k = 0; k < n; k++) {
            make_cold(src, src_len);
            double t0 = bench_now_us();
            fn[k](ctx[k]);
            t[(size_t)k * (size_t)reps + (size_t)i] = bench_now_us() - t0;
        }
    for (int k = 0; k < n; k++) median[k] = bench_median(t + (size_t)k * (size_t)reps, reps);
    free(t);
}

/* sw x sh -> dw x dh at the default level, flipped and not, each against
 * the limit (read of the needed source lines in memory order + write of
 * the output), every one of them with a cold source. The destination is
 * the same buffer for all (as warm as a converter's reused output is). */
static void cold_case(const char *name, int sw, int sh, int dw, int dh, int reps)
{
    uint8_t *src = game_frame(sw, sh);
    raw_ctx flip, plain;
    case_init(&flip, src, sw, sh, dw, dh, CG_FILTER_NEAREST, 1);
    case_init(&plain, src, sw, sh, dw, dh, CG_FILTER_NEAREST, 0);
    free(plain.dst);
    plain.dst = flip.dst;
    flip.level = plain.level = cg_simd_best();
    frame_fn fn[3] = {run_limit, run_convert, run_convert};
    void *ctx[3] = {&plain, &flip, &plain};
    double m[3];
    time_cold(fn, ctx, 3, src, (size_t)sw * (size_t)sh * 4, reps, m);
    printf("%-34s %-6s %9.1f us   limit %8.1f us   ratio %5.2f\n", name, "flip", m[1], m[0],
           m[1] / m[0]);
    printf("%-34s %-6s %9.1f us   limit %8.1f us   ratio %5.2f\n", name, "plain", m[2], m[0],
           m[2] / m[0]);
    free(flip.dst);
    free(src);
}

static void cold_cases(int scale)
{
    printf("cold source (flushed before every frame, the limit too), default level %s\n",
           cg_simd_name(cg_simd_best()));
    cold_case("640x360 RAW cold", 640, 360, 640, 360, 600 * scale);
    cold_case("1920x1080 RAW cold", 1920, 1080, 1920, 1080, 80 * scale);
    cold_case("1920x1080 -> 640x360 RAW cold", 1920, 1080, 640, 360, 200 * scale);
    printf("\n");
}

/* ---- box filter -------------------------------------------------------------------- */

/* Box limit: the box reads every source pixel once and writes the output, so
 * the limit is a streaming read of the whole source plus that write; a box
 * filter whose cost is O(source + output) stays within a small ratio of it
 * whatever the shapes. */
static void run_box_limit(void *c)
{
    raw_ctx *r = c;
    const uint8_t *a = (const uint8_t *)((uintptr_t)r->p.src & ~(uintptr_t)63);
    const uint8_t *end = r->p.src + r->p.src_stride * (size_t)r->p.src_h;
    const uint8_t *b = (const uint8_t *)(((uintptr_t)end + 63) & ~(uintptr_t)63);
    uint64_t acc = read_lines_pick()(a, b);
    memset(r->dst, (int)(acc & 0xff), r->dst_len);
    sink ^= acc;
}

static void box_case(const char *name, int sw, int sh, int dw, int dh, int reps)
{
    /* 64-byte aligned, so the limit's whole-line read stays inside. */
    size_t src_len = ((size_t)sw * (size_t)sh * 4 + 63) & ~(size_t)63;
    uint8_t *src = aligned_alloc(64, src_len);
    raw_ctx r;
    case_init(&r, src, sw, sh, dw, dh, CG_FILTER_BOX, 0);
    /* Noise: game_frame needs frames at least 8 pixels wide. */
    for (size_t i = 0; i < src_len; i++) src[i] = (uint8_t)hash4((int)i, 1, 2, 3);
    time_levels(name, &r, run_box_limit, reps);
    free(r.dst);
    free(src);
}

static void box_cases(int scale)
{
    printf("box filter; limit = read of the whole source + write of the output\n");
    box_case("854x480 -> 128x128 box", 854, 480, 128, 128, 200 * scale);
    box_case("1x16384 -> 16384x1 box", 1, 16384, 16384, 1, 10 * scale);
    box_case("16384x1 -> 1x16384 box", 16384, 1, 1, 16384, 10 * scale);
    box_case("1x16384 -> 4096x4096 box", 1, 16384, 4096, 4096, 5 * scale);
    box_case("64x64 -> 16384x64 box", 64, 64, 16384, 64, 10 * scale);
    printf("\n");
}

/* ---- PNG on the corpus -------------------------------------------------------------- */

/* The PNG limit is libpng itself with its defaults (zlib level 6, adaptive
 * filters), called here directly: the library's encoder does not use libpng.
 * Each frame runs as the JNI layer runs it: RGBA (as mapped from the GPU
 * readback, bottom-up) -> RGB flipped upright -> PNG. */

typedef struct png_frame {
    char name[64];
    int w, h;
    uint8_t *rgba; /* bottom-up, as glReadPixels gives it */
} png_frame;

#ifdef CG_BENCH_LIBPNG
typedef struct png_ctx {
    raw_ctx raw; /* conversion into raw.dst first, as the JNI layer does */
    cg_png_options opt;
    cg_png_encoder *enc; /* kept across frames, as the JNI layer keeps one per thread */
    cg_buf out;
} png_ctx;

static void run_png(void *c)
{
    png_ctx *g = c;
    run_convert(&g->raw);
    if (cg_png_encoder_encode(g->enc, g->raw.dst, g->raw.p.dst_w, g->raw.p.dst_h,
                              (size_t)g->raw.p.dst_w * 3, &g->opt, &g->out) != CG_OK)
        abort();
}

#include <png.h>

#include "cg_png_internal.h" /* the encoder's passes, timed one by one */
#include "png_peers.h"

/* libpng's defaults on w x h top-down RGB rows into *out (grown to *cap as
 * needed); returns the length. */
static size_t libpng_write(const uint8_t *rgb, int w, int h, uint8_t **out, size_t *cap)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    im.width = (png_uint_32)w;
    im.height = (png_uint_32)h;
    im.format = PNG_FORMAT_RGB;
    png_alloc_size_t len = *cap;
    if (len == 0 || !png_image_write_to_memory(&im, *out, &len, 0, rgb, 0, NULL)) {
        /* first call, or too small: size it, then write */
        len = 0;
        if (!png_image_write_to_memory(&im, NULL, &len, 0, rgb, 0, NULL)) abort();
        free(*out);
        *out = malloc(len);
        *cap = len;
        if (*out == NULL || !png_image_write_to_memory(&im, *out, &len, 0, rgb, 0, NULL))
            abort();
    }
    return len;
}

static void run_libpng(void *c)
{
    png_ctx *g = c;
    run_convert(&g->raw);
    g->out.len = libpng_write(g->raw.dst, g->raw.p.dst_w, g->raw.p.dst_h, &g->out.data,
                              &g->out.cap);
}

static int load_png(const char *path, png_frame *f)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, path)) return 0;
    im.format = PNG_FORMAT_RGBA;
    f->w = (int)im.width;
    f->h = (int)im.height;
    f->rgba = malloc(PNG_IMAGE_SIZE(im));
    /* negative stride: bottom-up rows, as a GL readback */
    if (f->rgba == NULL ||
        !png_image_finish_read(&im, NULL, f->rgba, -(png_int_32)PNG_IMAGE_ROW_STRIDE(im), NULL)) {
        png_image_free(&im);
        free(f->rgba);
        return 0;
    }
    return 1;
}

static void png_setup(png_ctx *g, const png_frame *f)
{
    memset(g, 0, sizeof *g);
    g->raw.p.src = f->rgba;
    g->raw.p.src_stride = (size_t)f->w * 4;
    g->raw.p.src_w = g->raw.p.dst_w = f->w;
    g->raw.p.src_h = g->raw.p.dst_h = f->h;
    g->raw.p.flip = 1;
    g->raw.dst_len = (size_t)f->w * (size_t)f->h * 3;
    g->raw.dst = malloc(g->raw.dst_len);
    g->raw.level = cg_simd_best();
    if (g->raw.dst == NULL || cg_png_encoder_create(0, &g->enc) != CG_OK) abort();
}

static void png_teardown(png_ctx *g)
{
    cg_buf_free(&g->out);
    cg_png_encoder_destroy(g->enc);
    free(g->raw.dst);
}

/* This thread's CPU time in microseconds. The PNG tables use it rather than
 * wall time: on a shared machine (2 cores, other jobs) wall time counts
 * whole time slices of other processes; on an idle one the two agree for
 * this single-threaded work. */
static double cpu_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double time_median_cpu(frame_fn fn, void *ctx, int reps)
{
    double t[16];
    if (reps > 16) reps = 16;
    fn(ctx);
    for (int i = 0; i < reps; i++) {
        double t0 = cpu_now_us();
        fn(ctx);
        t[i] = cpu_now_us() - t0;
    }
    return bench_median(t, reps);
}

/* Median times of `o` and of libpng's defaults on one frame, interleaved
 * frame by frame so both see the same machine state; sizes too. */
typedef struct png_meas {
    double t, t_lib;
    size_t bytes, bytes_lib;
} png_meas;

static png_meas png_measure(const png_frame *f, cg_png_options o, int reps, int with_lib)
{
    png_ctx c, lib;
    png_setup(&c, f);
    png_setup(&lib, f);
    c.opt = o;
    double *t = malloc(sizeof(double) * 2 * (size_t)reps);
    if (t == NULL) abort();
    run_png(&c);
    run_libpng(&lib);
    for (int i = 0; i < reps; i++) {
        double t0 = cpu_now_us();
        run_png(&c);
        double t1 = cpu_now_us();
        if (with_lib) run_libpng(&lib);
        t[i] = t1 - t0;
        t[reps + i] = cpu_now_us() - t1;
    }
    png_meas m = {bench_median(t, reps), bench_median(t + reps, reps), c.out.len, lib.out.len};
    free(t);
    png_teardown(&c);
    png_teardown(&lib);
    return m;
}

static const char *filter_name(int f)
{
    static char buf[8][32];
    static int next;
    if (f == -1) return "all";
    char *s = buf[next++ % 8];
    s[0] = 0;
    static const char *const names[] = {"none", "sub", "up", "avg", "paeth"};
    if (f == CG_PNG_FILTER_ALL) return "all";
    for (int t = 0; t < 5; t++)
        if (f & (CG_PNG_FILTER_NONE << t)) {
            if (s[0]) strcat(s, "+");
            strcat(s, names[t]);
        }
    return s;
}

static const char *deflate_name(cg_png_options o)
{
    static const char *const names[] = {"zlib", "zlib-filt", "zlib-huff", "zlib-rle", "zlib-fix"};
    if (o.deflate == CG_PNG_DEFLATE_OWN) return "own";
    return o.strategy >= 0 && o.strategy <= 4 ? names[o.strategy] : cg_png_deflate_name();
}

static int reps_for(const png_frame *f, int level, int scale)
{
    double mpix = (double)f->w * f->h / 1e6;
    int r = (int)(12.0 / (mpix + 0.1) / (level >= 7 ? 6 : level >= 4 ? 2 : 1));
    return (r < 3 ? 3 : r) * scale;
}

static double mpix_s(const png_frame *f, double us)
{
    return (double)f->w * f->h / us;
}

/* Per frame, one options set: time, Mpix/s, bytes, both ratios. Returns the
 * medians over the frames of a size class (w == 0: all frames). */
static void png_frame_table(const char *title, const png_frame *fr, int n, cg_png_options o,
                            int scale)
{
    printf("\n%s: level %d, filters %s, deflate %s (each frame: convert + encode, "
           "interleaved with libpng's defaults; thread CPU time)\n",
           title, o.level, filter_name(o.filters), deflate_name(o));
    printf("%-22s %10s %8s %9s %9s %9s %8s\n", "frame", "time us", "Mpix/s", "bytes", "libpng",
           "size/lib", "t/lib");
    double *sr = malloc(sizeof(double) * (size_t)n * 3), *tr = sr + n, *mp = sr + 2 * n;
    if (sr == NULL) abort();
    double worst = 0;
    for (int i = 0; i < n; i++) {
        png_meas m = png_measure(&fr[i], o, reps_for(&fr[i], o.level, scale), 1);
        sr[i] = (double)m.bytes / (double)m.bytes_lib;
        tr[i] = m.t / m.t_lib;
        mp[i] = mpix_s(&fr[i], m.t);
        if (sr[i] > worst) worst = sr[i];
        printf("%-22s %10.0f %8.1f %9zu %9zu %9.3f %8.3f\n", fr[i].name, m.t, mp[i], m.bytes,
               m.bytes_lib, sr[i], tr[i]);
    }
    static const int classes[][2] = {{640, 360}, {854, 480}, {1920, 1080}};
    for (size_t k = 0; k < 3; k++) {
        double v[64];
        int c = 0;
        for (int i = 0; i < n && c < 64; i++)
            if (fr[i].w == classes[k][0] && fr[i].h == classes[k][1]) v[c++] = mp[i];
        if (c) printf("  median Mpix/s at %dx%d (%d frames): %.1f\n", classes[k][0], classes[k][1], c, bench_median(v, c));
    }
    printf("  median size/libpng %.3f (worst %.3f), median time/libpng %.3f\n",
           bench_median(sr, n), worst, bench_median(tr, n));
    free(sr);
}

/* Where the time goes: each pass of the encoder alone on each frame (thread
 * CPU time, medians), per size class, with libpng's whole frame as the limit.
 * Filter: SUB on every row; deflate: the zlib stream of those filtered rows
 * (Adler-32 included, shown alone too); the container (CRC-32) is the rest. */
typedef struct pass_ctx {
    png_ctx g;
    uint8_t *filtered;
    size_t flen, row, zcap, zlen;
    uint8_t *z;
    int level, own;
} pass_ctx;

static void run_filter(void *c)
{
    pass_ctx *p = c;
    const cg_png_filter_fn f = cg_png_filter_best();
    const uint8_t *prev = p->filtered + p->flen; /* the zero row */
    for (int y = 0; y < p->g.raw.p.dst_h; y++) {
        const uint8_t *cur = p->g.raw.dst + (size_t)y * (p->row - 1);
        f(cur, prev, p->row - 1, CG_PNG_FILTER_SUB, p->filtered + (size_t)y * p->row);
        prev = cur;
    }
}

static void run_adler(void *c)
{
    pass_ctx *p = c;
    p->zlen = cg_adler32(1, p->filtered, p->flen);
}

static void run_deflate(void *c)
{
    pass_ctx *p = c;
    cg_status st = p->own ? cg_zd_compress(p->level, p->filtered, p->flen, p->row, p->z, p->zcap,
                                           &p->zlen)
                          : cg_deflate_zlib(cg_deflate_default(), p->level, -1, p->filtered,
                                            p->flen, p->z, p->zcap, &p->zlen);
    if (st != CG_OK) abort();
}

static void png_passes(const png_frame *fr, int n)
{
    enum { NP = 8 };
    static const char *const names[NP] = {"convert", "filter sub", "adler-32", "own 1",
                                          "own 2",   "own 3",      "libdeflate 1", "libdeflate 5"};
    static const int classes[][2] = {{640, 360}, {854, 480}, {1920, 1080}};
    printf("\nPNG passes alone (thread CPU time, medians over the frames of a size; "
           "x = share of libpng's whole frame)\n%-14s", "pass");
    for (int k = 0; k < 3; k++) printf(" %9dx%-4d %6s", classes[k][0], classes[k][1], "x");
    printf("\n");
    double t[NP][3][64], lib[3][64];
    int cnt[3] = {0};
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < 3 && !(fr[i].w == classes[k][0] && fr[i].h == classes[k][1])) k++;
        if (k == 3 || cnt[k] >= 64) continue;
        pass_ctx p;
        memset(&p, 0, sizeof p);
        png_setup(&p.g, &fr[i]);
        p.row = (size_t)fr[i].w * 3 + 1;
        p.flen = p.row * (size_t)fr[i].h;
        p.filtered = calloc(1, p.flen + p.row + CG_ZD_SLACK);
        p.zcap = cg_zd_bound(p.flen) + cg_deflate_bound(cg_deflate_default(), p.flen);
        p.z = malloc(p.zcap);
        if (p.filtered == NULL || p.z == NULL) abort();
        const int reps = fr[i].w >= 1920 ? 5 : 9;
        lib[k][cnt[k]] = time_median_cpu(run_libpng, &p.g, 5);
        t[0][k][cnt[k]] = time_median_cpu(run_convert, &p.g.raw, reps);
        t[1][k][cnt[k]] = time_median_cpu(run_filter, &p, reps);
        t[2][k][cnt[k]] = time_median_cpu(run_adler, &p, reps);
        for (int j = 3; j < NP; j++) {
            p.own = j <= 5;
            p.level = p.own ? j - 2 : (j == 6 ? 1 : 5);
            t[j][k][cnt[k]] = time_median_cpu(run_deflate, &p, reps);
        }
        cnt[k]++;
        free(p.filtered);
        free(p.z);
        png_teardown(&p.g);
    }
    double lm[3];
    for (int k = 0; k < 3; k++) lm[k] = cnt[k] ? bench_median(lib[k], cnt[k]) : 0;
    for (int j = 0; j < NP; j++) {
        printf("%-14s", names[j]);
        for (int k = 0; k < 3; k++) {
            double m = cnt[k] ? bench_median(t[j][k], cnt[k]) : 0;
            printf(" %11.0f us %6.3f", m, lm[k] > 0 ? m / lm[k] : 0.0);
        }
        printf("\n");
    }
    printf("%-14s", "libpng frame");
    for (int k = 0; k < 3; k++) printf(" %11.0f us %6.3f", lm[k], 1.0);
    printf("\n");
}

/* The options sweep: per setting, medians over the corpus of per-frame
 * medians. libpng's time per frame is measured once up front here (the
 * per-frame tables above interleave it with every run). */
static void png_sweep(const png_frame *fr, int n, int scale)
{
    enum { SUB = CG_PNG_FILTER_SUB, UP = CG_PNG_FILTER_UP, PAETH = CG_PNG_FILTER_PAETH };
    enum { LIB = CG_PNG_DEFLATE_LIBRARY, OWN = CG_PNG_DEFLATE_OWN };
    enum { AVG = CG_PNG_FILTER_AVG, NONE = CG_PNG_FILTER_NONE, ALL = CG_PNG_FILTER_ALL };
    static const cg_png_options opts[] = {
        {1, NONE, -1, OWN}, {1, SUB, -1, OWN}, {1, UP, -1, OWN}, {1, PAETH, -1, OWN},
        {2, SUB, -1, OWN}, {2, PAETH, -1, OWN}, {2, ALL, -1, OWN},
        {3, NONE, -1, OWN}, {3, SUB, -1, OWN}, {3, UP, -1, OWN}, {3, AVG, -1, OWN},
        {3, PAETH, -1, OWN}, {3, SUB | UP, -1, OWN}, {3, ALL, -1, OWN},
        {0, NONE, -1, LIB}, {1, SUB, -1, LIB}, {1, ALL, -1, LIB},
        {2, SUB, -1, LIB}, {3, SUB, -1, LIB}, {4, SUB, -1, LIB},
        {5, SUB, -1, LIB}, {5, ALL, -1, LIB},
        {6, SUB, -1, LIB}, {6, ALL, -1, LIB}, {9, ALL, -1, LIB},
        {1, SUB, 0, LIB}, {1, SUB, 3, LIB}, {6, ALL, 0, LIB},
    };
    double lib_t[64];
    for (int i = 0; i < n && i < 64; i++) {
        png_ctx lib;
        png_setup(&lib, &fr[i]);
        lib_t[i] = time_median_cpu(run_libpng, &lib, 5);
        png_teardown(&lib);
    }
    printf("\nPNG options on the corpus (%d frames): medians over the frames; Mpix/s at "
           "640x360 and 1920x1080 (convert + encode, thread CPU time)\n", n);
    printf("%-6s %-16s %-11s %10s %10s %9s %9s %8s\n", "level", "filters", "deflate",
           "Mpix/s 360", "Mpix/s 1080", "size/lib", "worst", "t/lib");
    const cg_png_options d = cg_png_default_options(), fast = cg_png_fast_options();
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        const cg_png_options o = opts[k];
        double sr[64], tr[64], m360[64], m1080[64], worst = 0;
        int n360 = 0, n1080 = 0, nn = n < 64 ? n : 64;
        for (int i = 0; i < nn; i++) {
            png_meas m = png_measure(&fr[i], o, reps_for(&fr[i], o.level, scale) / 3 + 1, 0);
            sr[i] = (double)m.bytes / (double)m.bytes_lib;
            tr[i] = m.t / lib_t[i];
            if (sr[i] > worst) worst = sr[i];
            if (fr[i].w == 640) m360[n360++] = mpix_s(&fr[i], m.t);
            if (fr[i].w == 1920) m1080[n1080++] = mpix_s(&fr[i], m.t);
        }
        const int is_d = o.level == d.level && o.filters == d.filters &&
                         o.strategy == d.strategy && o.deflate == d.deflate;
        const int is_f = o.level == fast.level && o.filters == fast.filters &&
                         o.strategy == fast.strategy && o.deflate == fast.deflate;
        printf("%-6d %-16s %-11s %10.1f %10.1f %9.3f %9.3f %8.3f%s\n", o.level,
               filter_name(o.filters), deflate_name(o),
               n360 ? bench_median(m360, n360) : 0.0, n1080 ? bench_median(m1080, n1080) : 0.0,
               bench_median(sr, nn), worst, bench_median(tr, nn),
               is_d ? "   <- default" : is_f ? "   <- fast" : "");
    }
}

/* ---- this tree beside other PNG encoders (png_peers.h) ----------------------------- */

/* One encoder of the comparison: this tree's settings, libpng's defaults, or
 * a peer built from its sources. All start from the same top-down RGB rows
 * (no conversion timed), each output is decoded by libpng and must give the
 * frame's exact pixels. */
typedef struct cmp_enc {
    const char *name;
    png_peer_fn peer;        /* a peer's; NULL: ours or libpng */
    int own;                 /* 1: cg_png_encoder_encode with opt; 0 and no peer: libpng */
    cg_png_options opt;
    cg_png_encoder *enc;
    uint8_t *out;
    size_t cap, len;
} cmp_enc;

static size_t cmp_run(cmp_enc *e, const uint8_t *rgb, int w, int h)
{
    if (e->peer != NULL) return e->len = e->peer(rgb, w, h, &e->out, &e->cap);
    if (!e->own) return e->len = libpng_write(rgb, w, h, &e->out, &e->cap);
    cg_buf b = {e->out, 0, e->cap};
    if (cg_png_encoder_encode(e->enc, rgb, w, h, (size_t)w * 3, &e->opt, &b) != CG_OK) abort();
    e->out = b.data;
    e->cap = b.cap;
    return e->len = b.len;
}

/* Whether png decodes (libpng) to exactly the w x h RGB rows rgb. */
static int cmp_decodes_to(const uint8_t *png, size_t len, const uint8_t *rgb, int w, int h)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (len == 0 || !png_image_begin_read_from_memory(&im, png, len)) return 0;
    im.format = PNG_FORMAT_RGB;
    int ok = (int)im.width == w && (int)im.height == h;
    uint8_t *back = ok ? malloc(PNG_IMAGE_SIZE(im)) : NULL;
    ok = back != NULL && png_image_finish_read(&im, NULL, back, 0, NULL) &&
         memcmp(back, rgb, (size_t)w * h * 3) == 0;
    if (back == NULL) png_image_free(&im);
    free(back);
    return ok;
}

/* The comparison tables' timing: reps rounds over ne encoders, each round
 * starting one encoder later so that none always runs after the same one;
 * run(ctx, k) runs encoder k once and returns 0 where it is not timed. Each
 * encoder's median time (us) into med[k], added to tsum[k]. */
typedef int (*rotated_fn)(void *ctx, int k);

static void time_rotated(int ne, int reps, rotated_fn run, void *ctx, double *med, double *tsum)
{
    double *t = calloc((size_t)(reps * ne), sizeof(double));
    if (t == NULL) abort();
    for (int r = 0; r < reps; r++)
        for (int j = 0; j < ne; j++) {
            const int k = (j + r) % ne;
            const double t0 = cpu_now_us();
            if (run(ctx, k)) t[k * reps + r] = cpu_now_us() - t0;
        }
    for (int k = 0; k < ne; k++) {
        med[k] = bench_median(t + k * reps, reps);
        tsum[k] += med[k];
    }
    free(t);
}

/* One encoder's row of per-frame Mpix/s (mp[0, n)): the median per size
 * class, then the corpus's pixels over the sum of its median times. */
static void print_mpix_columns(const png_frame *fr, int n, const double *mp, double pixels,
                               double tsum)
{
    static const int classes[][2] = {{640, 360}, {854, 480}, {1920, 1080}};
    for (size_t c = 0; c < 3; c++) {
        double v[64];
        int m = 0;
        for (int i = 0; i < n; i++)
            if (fr[i].w == classes[c][0] && fr[i].h == classes[c][1]) v[m++] = mp[i];
        if (m)
            printf(" %9.1f", bench_median(v, m));
        else
            printf(" %9s", "-");
    }
    printf(" %9.1f", tsum > 0 ? pixels / tsum : 0.0);
}

typedef struct peer_run_ctx {
    cmp_enc *e;
    const uint8_t *rgb;
    int w, h, quick, ref;
} peer_run_ctx;

static int peer_run(void *ctx, int k)
{
    peer_run_ctx *c = ctx;
    if (c->quick && !c->e[k].own && k != c->ref) return 0;
    cmp_run(&c->e[k], c->rgb, c->w, c->h);
    return 1;
}

/* Per encoder: Mpix/s (medians per size class of per-frame medians), size
 * against libpng's defaults (median, worst and its frame) and time against
 * the first peer that is built (fpnge when present). Repetitions rotate the
 * encoders' order, so none always runs after the same one. quick: only this
 * tree's settings and that peer are timed (the others run once, for their
 * size and the decode check), with twice the repetitions, and each frame's
 * ratios are printed. */
static void png_peer_table(const png_frame *fr, int n, int scale, int quick)
{
    enum { MAXE = 12 };
    cmp_enc e[MAXE];
    int ne = 0;
    memset(e, 0, sizeof e);
    e[ne++].name = "libpng default";
    e[ne].name = "this tree, default";
    e[ne].own = 1;
    e[ne++].opt = cg_png_default_options();
    e[ne].name = "this tree, fast";
    e[ne].own = 1;
    e[ne++].opt = cg_png_fast_options();
    int np = 0, ref = -1;
    const png_peer *peers = png_peers(&np);
    for (int i = 0; i < np && ne < MAXE; i++) {
        if (peers[i].encode == NULL) {
            printf("PNG peers: %s skipped (not built: set %s)\n", peers[i].name, peers[i].missing);
            continue;
        }
        if (ref < 0) ref = ne;
        if (peers[i].built != NULL)
            printf("PNG peers: %s built with %s\n", peers[i].name, peers[i].built);
        e[ne].name = peers[i].name;
        e[ne++].peer = peers[i].encode;
    }
    for (int k = 0; k < ne; k++)
        if (e[k].own && cg_png_encoder_create(0, &e[k].enc) != CG_OK) abort();
    if (n > 64) n = 64;
    double *mp = malloc(sizeof(double) * (size_t)(ne * n * 3));
    if (mp == NULL) abort();
    double *sr = mp + ne * n, *tr = sr + ne * n;
    double tsum[MAXE] = {0}, pixels = 0; /* the whole corpus: its frames' median times */
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const int w = fr[i].w, h = fr[i].h;
        uint8_t *rgb = malloc((size_t)w * h * 3);
        if (rgb == NULL) abort();
        for (int y = 0; y < h; y++) /* bottom-up RGBA to top-down RGB */
            for (int x = 0; x < w; x++)
                memcpy(rgb + ((size_t)y * w + x) * 3,
                       fr[i].rgba + ((size_t)(h - 1 - y) * w + x) * 4, 3);
        for (int k = 0; k < ne; k++) {
            /* run first: it may move e[k].out (C leaves the order of a call's
             * arguments open; clang reads the old pointer) */
            const size_t len = cmp_run(&e[k], rgb, w, h);
            if (!cmp_decodes_to(e[k].out, len, rgb, w, h)) {
                printf("PNG peers: %s: %s's output does not decode to the frame\n", fr[i].name,
                       e[k].name);
                bad = 1;
            }
        }
        const int reps = (reps_for(&fr[i], 1, scale) / 2 + 3) * (quick ? 2 : 1);
        peer_run_ctx rc = {e, rgb, w, h, quick, ref};
        double med[MAXE];
        time_rotated(ne, reps, peer_run, &rc, med, tsum);
        pixels += (double)w * h;
        for (int k = 0; k < ne; k++) {
            mp[k * n + i] = mpix_s(&fr[i], med[k]);
            sr[k * n + i] = (double)e[k].len / (double)e[0].len;
            tr[k * n + i] = ref >= 0 ? med[k] / med[ref] : 0;
        }
        if (quick == 1) {
            printf("%-22s", fr[i].name);
            for (int k = 0; k < ne; k++)
                if (e[k].own || k == ref)
                    printf("  %s %.3fx t %.3fx", e[k].name + (e[k].own ? 10 : 0), sr[k * n + i],
                           tr[k * n + i]);
            printf("\n");
        }
        free(rgb);
    }
    printf("\nPNG beside other encoders (%d frames; encode from top-down RGB, thread CPU time, "
           "medians of rotated repetitions; every output decoded by libpng to the exact "
           "pixels%s)\n",
           n, bad ? ": FAILED, see above" : "");
    printf("%-20s %9s %9s %9s %9s %9s %9s %-22s %8s\n", "encoder", "Mpix/s360", "Mpix/s480",
           "Mpix/s1080", "Mpix/sall", "size/lib", "worst", "(frame)", ref >= 0 ? "t/ref" : "");
    for (int k = 0; k < ne; k++) {
        printf("%-20s", e[k].name);
        const int timed = !quick || e[k].own || k == ref;
        for (size_t c = 0; c < 4 && !timed; c++) printf(" %9s", "-");
        if (timed) print_mpix_columns(fr, n, mp + k * n, pixels, tsum[k]);
        double s[64], worst = 0;
        int wi = 0;
        for (int i = 0; i < n; i++) {
            s[i] = sr[k * n + i];
            if (s[i] > worst) worst = s[i], wi = i;
        }
        printf(" %9.3f %9.3f %-22s", bench_median(s, n), worst, fr[wi].name);
        if (ref >= 0 && timed) printf(" %8.3f", bench_median(tr + k * n, n));
        printf("\n");
    }
    printf("  Mpix/sall: the corpus's pixels over the sum of its frames' median times\n");
    if (ref >= 0) printf("  t/ref: per-frame time over %s's, median\n", e[ref].name);
    for (int k = 0; k < ne; k++) {
        cg_png_encoder_destroy(e[k].enc);
        free(e[k].out);
    }
    free(mp);
}

/* The deflate stage beside general-purpose compressors: the same SUB-filtered
 * rows (filter byte + RGB residuals, the bytes this tree's deflate takes)
 * through this tree's levels 3, 2 and 1, the deflate library the product would
 * load, zstd and lz4 (each opened with dlopen, skipped by name when absent:
 * none is a dependency). It places the stage on the speed/size plane of
 * compressors built for speed; it is not a PNG comparison (zstd and lz4
 * write no PNG). Sizes are over libpng's whole default file (container
 * included: about 60 bytes). Every output is decompressed by the other
 * end's library and compared byte for byte. */
typedef size_t (*zstd_cctx_fn)(void *, void *, size_t, const void *, size_t, int);
typedef size_t (*zstd_bound_fn)(size_t);
typedef size_t (*zstd_dec_fn)(void *, size_t, const void *, size_t);
typedef unsigned (*zstd_err_fn)(size_t);
typedef int (*lz4_enc_fn)(const char *, char *, int, int);
typedef int (*lz4_dec_fn)(const char *, char *, int, int);
typedef int (*lz4_bound_fn)(int);
typedef int (*z_uncompress_fn)(uint8_t *, unsigned long *, const uint8_t *, unsigned long);

typedef struct stage_libs {
    void *zstd, *lz4, *z, *cctx;
    zstd_cctx_fn zstd_compress;
    zstd_bound_fn zstd_bound;
    zstd_dec_fn zstd_decompress;
    zstd_err_fn zstd_is_error;
    lz4_enc_fn lz4_compress;
    lz4_dec_fn lz4_decompress;
    lz4_bound_fn lz4_bound;
    z_uncompress_fn uncompress;
} stage_libs;

/* dlsym's object pointer as a function pointer (POSIX guarantees it works). */
#define STAGE_SYM(lib, name, var)                                                                 \
    do {                                                                                          \
        void *s_ = (lib) != NULL ? dlsym((lib), (name)) : NULL;                                   \
        memcpy(&(var), &s_, sizeof s_);                                                           \
    } while (0)

static void stage_open(stage_libs *l)
{
    memset(l, 0, sizeof *l);
    l->zstd = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    l->lz4 = dlopen("liblz4.so.1", RTLD_NOW | RTLD_LOCAL);
    l->z = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    void *(*create)(void) = NULL;
    STAGE_SYM(l->zstd, "ZSTD_createCCtx", create);
    STAGE_SYM(l->zstd, "ZSTD_compressCCtx", l->zstd_compress);
    STAGE_SYM(l->zstd, "ZSTD_compressBound", l->zstd_bound);
    STAGE_SYM(l->zstd, "ZSTD_decompress", l->zstd_decompress);
    STAGE_SYM(l->zstd, "ZSTD_isError", l->zstd_is_error);
    STAGE_SYM(l->lz4, "LZ4_compress_default", l->lz4_compress);
    STAGE_SYM(l->lz4, "LZ4_decompress_safe", l->lz4_decompress);
    STAGE_SYM(l->lz4, "LZ4_compressBound", l->lz4_bound);
    STAGE_SYM(l->z, "uncompress", l->uncompress);
    if (create != NULL && l->zstd_compress != NULL && l->zstd_bound != NULL &&
        l->zstd_decompress != NULL && l->zstd_is_error != NULL)
        l->cctx = create(); /* reused, as the encoder context is: stage_close */
    if (l->lz4_decompress == NULL || l->lz4_bound == NULL) l->lz4_compress = NULL;
}

static void stage_close(stage_libs *l)
{
    size_t (*free_cctx)(void *) = NULL;
    STAGE_SYM(l->zstd, "ZSTD_freeCCtx", free_cctx);
    if (l->cctx != NULL && free_cctx != NULL) free_cctx(l->cctx);
    void *libs[3] = {l->zstd, l->lz4, l->z};
    for (int i = 0; i < 3; i++)
        if (libs[i] != NULL) dlclose(libs[i]);
    memset(l, 0, sizeof *l);
}

enum { STAGE_OWN, STAGE_LIB, STAGE_ZSTD, STAGE_LZ4 };

typedef struct stage_enc {
    char name[32];
    int kind, level;
} stage_enc;

/* One run of e on in[0, n) into out (cap bytes); returns the length, 0 on
 * failure. */
static size_t stage_run(const stage_libs *l, const stage_enc *e, void *work, size_t work_len,
                        const uint8_t *in, size_t n, size_t row, uint8_t *out, size_t cap)
{
    size_t len = 0;
    switch (e->kind) {
    case STAGE_OWN:
        return cg_zd_compress_in(work, work_len, e->level, in, n, row, out, cap, &len) == CG_OK
                   ? len
                   : 0;
    case STAGE_LIB:
        return cg_deflate_zlib(cg_deflate_default(), e->level, -1, in, n, out, cap, &len) == CG_OK
                   ? len
                   : 0;
    case STAGE_ZSTD:
        len = l->zstd_compress(l->cctx, out, cap, in, n, e->level);
        return l->zstd_is_error(len) ? 0 : len;
    default:
        return (size_t)l->lz4_compress((const char *)in, (char *)out, (int)n, (int)cap);
    }
}

/* Whether out[0, len) decompresses to exactly in[0, n) (deflate streams
 * without zlib: 1, unchecked, which png_stage_table says). */
static int stage_round_trips(const stage_libs *l, const stage_enc *e, const uint8_t *out,
                             size_t len, const uint8_t *in, size_t n, uint8_t *back)
{
    if (len == 0) return 0;
    if (e->kind == STAGE_ZSTD) {
        const size_t got = l->zstd_decompress(back, n, out, len);
        return !l->zstd_is_error(got) && got == n && memcmp(back, in, n) == 0;
    }
    if (e->kind == STAGE_LZ4)
        return l->lz4_decompress((const char *)out, (char *)back, (int)len, (int)n) == (int)n &&
               memcmp(back, in, n) == 0;
    unsigned long got = (unsigned long)n;
    if (l->uncompress == NULL) return 1; /* said once: not checked */
    return l->uncompress(back, &got, out, (unsigned long)len) == 0 && got == n &&
           memcmp(back, in, n) == 0;
}

typedef struct stage_run_ctx {
    const stage_libs *l;
    const stage_enc *e;
    void *work;
    size_t work_len;
    const uint8_t *in;
    size_t n, row;
    uint8_t *out;
    size_t cap;
} stage_run_ctx;

static int stage_timed(void *ctx, int k)
{
    const stage_run_ctx *c = ctx;
    stage_run(c->l, &c->e[k], c->work, c->work_len, c->in, c->n, c->row, c->out, c->cap);
    return 1;
}

static void png_stage_table(const png_frame *fr, int n, int scale)
{
    enum { MAXS = 11 };
    stage_libs l;
    stage_open(&l);
    stage_enc e[MAXS];
    int ne = 0;
    memset(e, 0, sizeof e);
    e[ne++] = (stage_enc){"this tree, level 3", STAGE_OWN, 3};
    e[ne++] = (stage_enc){"this tree, level 2", STAGE_OWN, 2};
    e[ne++] = (stage_enc){"this tree, level 1", STAGE_OWN, 1};
    if (l.uncompress == NULL)
        printf("PNG stage: libz.so.1 not found: the deflate streams cannot be checked\n");
    const char *lib = cg_deflate_default() == NULL ? NULL
                      : cg_deflate_lib_kind(cg_deflate_default()) == CG_DEFLATE_LIBDEFLATE
                          ? "libdeflate"
                          : "zlib";
    if (lib == NULL)
        printf("PNG stage: deflate library skipped (%s)\n", cg_deflate_unavailable_reason());
    for (int lv = 1; lib != NULL && lv <= 6; lv += 5) {
        e[ne] = (stage_enc){"", STAGE_LIB, lv};
        snprintf(e[ne++].name, sizeof e[0].name, "%s %d", lib, lv);
    }
    if (l.cctx == NULL) printf("PNG stage: zstd skipped (libzstd.so.1 not found)\n");
    for (int lv = 1; l.cctx != NULL && lv <= 4; lv++) {
        e[ne] = (stage_enc){"", STAGE_ZSTD, lv};
        snprintf(e[ne++].name, sizeof e[0].name, "zstd %d", lv);
    }
    if (l.lz4_compress == NULL)
        printf("PNG stage: lz4 skipped (liblz4.so.1 not found)\n");
    else
        e[ne++] = (stage_enc){"lz4 default", STAGE_LZ4, 1};
    if (n > 64) n = 64;
    double *mp = malloc(sizeof(double) * (size_t)(ne * n * 3));
    if (mp == NULL) abort();
    double *sr = mp + ne * n, *tr = sr + ne * n;
    double tsum[MAXS] = {0}, pixels = 0;
    int bad = 0;
    uint8_t *png = NULL;
    size_t png_cap = 0;
    for (int i = 0; i < n; i++) {
        /* the frame converted and SUB-filtered as png_passes does it */
        pass_ctx p;
        memset(&p, 0, sizeof p);
        png_setup(&p.g, &fr[i]);
        run_convert(&p.g.raw);
        const size_t row = p.row = (size_t)fr[i].w * 3 + 1, len = p.flen = row * (size_t)fr[i].h;
        uint8_t *const in = p.filtered = calloc(1, len + row + CG_ZD_SLACK), *back = malloc(len);
        if (in != NULL) run_filter(&p);
        size_t cap = cg_zd_bound(len); /* the largest of the compressors' bounds */
        if (lib != NULL && cg_deflate_bound(cg_deflate_default(), len) > cap)
            cap = cg_deflate_bound(cg_deflate_default(), len);
        if (l.cctx != NULL && l.zstd_bound(len) > cap) cap = l.zstd_bound(len);
        if (l.lz4_compress != NULL && (size_t)l.lz4_bound((int)len) > cap)
            cap = (size_t)l.lz4_bound((int)len);
        size_t work_len = 0;
        for (int lv = 1; lv <= 3; lv++)
            if (cg_zd_work_size(lv, row) > work_len) work_len = cg_zd_work_size(lv, row);
        uint8_t *out = malloc(cap);
        void *work = malloc(work_len);
        if (in == NULL || back == NULL || out == NULL || work == NULL) abort();
        const double lib_len =
            (double)libpng_write(p.g.raw.dst, fr[i].w, fr[i].h, &png, &png_cap);
        size_t got[MAXS];
        for (int k = 0; k < ne; k++) {
            got[k] = stage_run(&l, &e[k], work, work_len, in, len, row, out, cap);
            if (!stage_round_trips(&l, &e[k], out, got[k], in, len, back)) {
                printf("PNG stage: %s: %s's output does not give the bytes back\n", fr[i].name,
                       e[k].name);
                bad = 1;
            }
        }
        stage_run_ctx rc = {&l, e, work, work_len, in, len, row, out, cap};
        double med[MAXS];
        time_rotated(ne, reps_for(&fr[i], 1, scale) / 2 + 3, stage_timed, &rc, med, tsum);
        pixels += (double)fr[i].w * fr[i].h;
        for (int k = 0; k < ne; k++) {
            mp[k * n + i] = mpix_s(&fr[i], med[k]);
            sr[k * n + i] = (double)got[k] / lib_len;
            tr[k * n + i] = med[k] / med[0];
        }
        free(work);
        free(out);
        free(back);
        free(in);
        png_teardown(&p.g);
    }
    free(png);
    printf("\nThe deflate stage beside general-purpose compressors (%d frames; the same "
           "SUB-filtered rows, thread CPU time, medians of rotated repetitions; every output "
           "%s to the exact bytes%s; size over libpng's default file)\n",
           n, l.uncompress != NULL ? "decompressed" : "but the deflate streams decompressed",
           bad ? ": FAILED, see above" : "");
    printf("%-20s %9s %9s %9s %9s %9s %9s %8s\n", "compressor", "Mpix/s360", "Mpix/s480",
           "Mpix/s1080", "Mpix/sall", "size/lib", "worst", "t/lv3");
    for (int k = 0; k < ne; k++) {
        printf("%-20s", e[k].name);
        print_mpix_columns(fr, n, mp + k * n, pixels, tsum[k]);
        double s[64], worst = 0;
        for (int i = 0; i < n; i++) {
            s[i] = sr[k * n + i];
            if (s[i] > worst) worst = s[i];
        }
        printf(" %9.4f %9.3f %8.3f\n", bench_median(s, n), worst, bench_median(tr + k * n, n));
    }
    printf("  t/lv3: per-frame time over this tree's level 3's, median\n");
    free(mp);
    stage_close(&l);
}

/* The corpus frames scaled down (nearest pixel, as a small observation is
 * sampled from the game's frame) to sizes RL observations often have, each
 * size through png_peer_table's quick run: the fixed cost of a frame (the
 * encoder's tables, the Huffman codes, the container) weighs more there. */
static void png_small_tables(const png_frame *fr, int n, int scale)
{
    static const int sizes[][2] = {{64, 64}, {128, 128}, {160, 90}, {256, 144}, {320, 180}};
    png_frame *sm = calloc((size_t)n, sizeof *sm);
    if (sm == NULL) abort();
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        const int w = sizes[z][0], h = sizes[z][1];
        for (int i = 0; i < n; i++) {
            sm[i].w = w;
            sm[i].h = h;
            snprintf(sm[i].name, sizeof sm[i].name, "%.40s_%dx%d", fr[i].name, w, h);
            sm[i].rgba = malloc((size_t)w * h * 4);
            if (sm[i].rgba == NULL) abort();
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    memcpy(sm[i].rgba + ((size_t)y * w + x) * 4,
                           fr[i].rgba + ((size_t)(y * fr[i].h / h) * fr[i].w +
                                         (size_t)x * fr[i].w / w) * 4,
                           4);
        }
        printf("\nThe corpus frames scaled to %dx%d (nearest pixel):\n", w, h);
        png_peer_table(sm, n, scale, 2);
        for (int i = 0; i < n; i++) free(sm[i].rgba);
    }
    free(sm);
}

static int cmp_frame(const void *a, const void *b)
{
    const png_frame *x = a, *y = b;
    long px = (long)x->w * x->h, py = (long)y->w * y->h;
    if (px != py) return px < py ? -1 : 1;
    return strcmp(x->name, y->name);
}
#endif /* CG_BENCH_LIBPNG */

static void png_cases(int scale, const char *corpus, int sweep)
{
    uint8_t probe[3] = {0};
    cg_buf pb = {0};
    cg_status st = cg_png_encode_rgb(probe, 1, 1, 3, NULL, &pb);
    cg_buf_free(&pb);
    if (st == CG_E_UNSUPPORTED) {
        printf("PNG: unavailable: %s\n", cg_png_unavailable_reason());
        return;
    }
#ifndef CG_BENCH_LIBPNG
    (void)scale;
    (void)corpus;
    (void)sweep;
    printf("PNG: bench built without libpng, the limit; no PNG table\n");
#else
    png_frame fr[64];
    int n = 0;
    DIR *d = opendir(corpus);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL && n < 64) {
        size_t len = strlen(e->d_name);
        if (len < 5 || len >= sizeof fr[n].name || strcmp(e->d_name + len - 4, ".png") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", corpus, e->d_name);
        if (!load_png(path, &fr[n])) continue;
        memcpy(fr[n].name, e->d_name, len - 4);
        fr[n].name[len - 4] = 0;
        n++;
    }
    if (d != NULL) closedir(d);
    if (n == 0) {
        printf("PNG: no corpus frames in %s\n", corpus);
        return;
    }
    qsort(fr, (size_t)n, sizeof fr[0], cmp_frame);
    printf("PNG corpus: %d frames from %s; deflate library: %s\n", n, corpus,
           cg_png_deflate_name());
    if (sweep < 0) { /* png-peers (-1), -quick (-2), png-stage (-3), png-small (-4) */
        if (sweep == -4)
            png_small_tables(fr, n, scale);
        else if (sweep == -3)
            png_stage_table(fr, n, scale);
        else
            png_peer_table(fr, n, scale, sweep == -2);
        for (int i = 0; i < n; i++) free(fr[i].rgba);
        return;
    }
    png_frame_table("PNG default", fr, n, cg_png_default_options(), scale);
    png_frame_table("PNG fast", fr, n, cg_png_fast_options(), scale);
    const cg_png_options ld5 = {5, CG_PNG_FILTER_SUB, -1, CG_PNG_DEFLATE_LIBRARY};
    png_frame_table("PNG via libdeflate (the smallest fast library setting)", fr, n, ld5, scale);
    png_passes(fr, n);
    if (sweep) png_sweep(fr, n, scale);
    for (int i = 0; i < n; i++) free(fr[i].rgba);
#endif
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    const char *part = argc > 2 ? argv[2] : "all";
    if (scale < 1) scale = 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("bench_core: per-frame medians; limit = read of the needed source lines + "
           "write of the output; default SIMD level: %s\n\n",
           cg_simd_name(cg_simd_best()));
    const int all = strcmp(part, "all") == 0;
    if (all || strcmp(part, "raw") == 0) {
        raw_case("640x360 -> 640x360 RAW flip", 640, 360, 640, 360, 1, 400 * scale);
        raw_case("854x480 -> 128x128 RAW", 854, 480, 128, 128, 0, 2000 * scale);
        raw_case("1920x1080 -> 640x360 RAW", 1920, 1080, 640, 360, 0, 200 * scale);
        raw_case("128x128 RAW", 128, 128, 128, 128, 0, 4000 * scale);
        printf("\n");
    }
    if (all || strcmp(part, "cold") == 0) cold_cases(scale);
    if (all || strcmp(part, "box") == 0) box_cases(scale);
    if (all || strncmp(part, "png", 3) == 0)
        png_cases(scale, argc > 3 ? argv[3] : CG_BENCH_CORPUS,
                  strcmp(part, "png-stage") == 0         ? -3
                  : strcmp(part, "png-peers-quick") == 0 ? -2
                  : strcmp(part, "png-small") == 0       ? -4
                  : strcmp(part, "png-peers") == 0     ? -1
                                                       : strcmp(part, "png-table") != 0);
    return 0;
}
