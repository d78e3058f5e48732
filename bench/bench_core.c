/*
 * bench_core: per-frame median times of the pixel core, each printed with
 * its ratio to a limit measured in the same run, timed the same way.
 *
 * RAW limit: a streaming read of exactly the source bytes the output needs
 * (for each destination row, the whole cache lines of its source row from
 * the first to the last pixel used) plus a write of the output bytes. No
 * conversion can do less memory traffic than that.
 * PNG limit: libpng's default settings on the same frame.
 *
 * Box limit: a streaming read of the whole source plus the output write.
 *
 * Usage: bench_core [scale] [raw|box|png]
 *   scale multiplies the repetitions (default 1); raw, box or png runs one part.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    for (int y = 0; y < p->dst_h; y++) {
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

static void raw_case(const char *name, int sw, int sh, int dw, int dh, int flip, int reps)
{
    uint8_t *src = game_frame(sw, sh);
    raw_ctx r;
    memset(&r, 0, sizeof r);
    r.p.src = src;
    r.p.src_stride = (size_t)sw * 4;
    r.p.src_w = sw;
    r.p.src_h = sh;
    r.p.dst_w = dw;
    r.p.dst_h = dh;
    r.p.flip = flip;
    r.p.draw_cursor = 1;
    r.p.cursor_x = dw / 2;
    r.p.cursor_y = dh / 2;
    r.dst_len = (size_t)dw * (size_t)dh * 3;
    r.dst = malloc(r.dst_len);
    if (src == NULL || r.dst == NULL) abort();
    time_levels(name, &r, run_limit, reps);
    free(r.dst);
    free(src);
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
    memset(&r, 0, sizeof r);
    r.dst_len = (size_t)dw * (size_t)dh * 3;
    r.dst = malloc(r.dst_len);
    if (src == NULL || r.dst == NULL) abort();
    /* Noise: game_frame needs frames at least 8 pixels wide. */
    for (size_t i = 0; i < src_len; i++) src[i] = (uint8_t)hash4((int)i, 1, 2, 3);
    r.p.src = src;
    r.p.src_stride = (size_t)sw * 4;
    r.p.src_w = sw;
    r.p.src_h = sh;
    r.p.dst_w = dw;
    r.p.dst_h = dh;
    r.p.filter = CG_FILTER_BOX;
    r.p.draw_cursor = 1;
    r.p.cursor_x = dw / 2;
    r.p.cursor_y = dh / 2;
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

/* ---- PNG --------------------------------------------------------------------------- */

typedef struct png_ctx {
    raw_ctx raw; /* conversion into raw.dst first, as the JNI layer does */
    cg_png_options opt;
    cg_buf out;
} png_ctx;

static void run_png(void *c)
{
    png_ctx *g = c;
    run_convert(&g->raw);
    if (cg_png_encode_rgb(g->raw.dst, g->raw.p.dst_w, g->raw.p.dst_h,
                          (size_t)g->raw.p.dst_w * 3, &g->opt, &g->out) != CG_OK)
        abort();
}

static void png_setup(png_ctx *g, uint8_t *src, int w, int h)
{
    memset(g, 0, sizeof *g);
    g->raw.p.src = src;
    g->raw.p.src_stride = (size_t)w * 4;
    g->raw.p.src_w = g->raw.p.dst_w = w;
    g->raw.p.src_h = g->raw.p.dst_h = h;
    g->raw.p.flip = 1;
    g->raw.dst_len = (size_t)w * (size_t)h * 3;
    g->raw.dst = malloc(g->raw.dst_len);
    g->raw.level = cg_simd_best();
    if (g->raw.dst == NULL) abort();
}

static const char *filter_name(int f)
{
    switch (f) {
    case -1: return "default";
    case CG_PNG_FILTER_NONE: return "none";
    case CG_PNG_FILTER_SUB: return "sub";
    case CG_PNG_FILTER_UP: return "up";
    case CG_PNG_FILTER_PAETH: return "paeth";
    case CG_PNG_FILTER_ALL: return "all";
    }
    return "?";
}

static const char *strategy_name(int s)
{
    static const char *const names[] = {"default", "filtered", "huffman", "rle", "fixed"};
    return s >= 0 && s <= 4 ? names[s] : "default";
}

/* One table row: `o` timed in alternation with libpng's defaults (lib). */
static void png_row(png_ctx *c, png_ctx *lib, cg_png_options o, int reps, size_t size_lib,
                    int is_default)
{
    double *t = malloc(sizeof(double) * 2 * (size_t)reps);
    if (t == NULL) abort();
    c->opt = o;
    run_png(c);
    for (int i = 0; i < reps; i++) {
        double t0 = bench_now_us();
        run_png(c);
        double t1 = bench_now_us();
        run_png(lib);
        t[i] = t1 - t0;
        t[reps + i] = bench_now_us() - t1;
    }
    double tc = bench_median(t, reps), tl = bench_median(t + reps, reps);
    printf("%-6d %-8s %-9s %10.0f %9zu %10.2f %9.3f%s\n", o.level, filter_name(o.filters),
           strategy_name(o.strategy), tc, c->out.len, tc / tl,
           (double)c->out.len / (double)size_lib, is_default ? "   <- cg default" : "");
    free(t);
}

static void png_cases(int scale)
{
    const int w = 640, h = 360;
    uint8_t probe[3] = {0};
    cg_buf pb = {0};
    if (cg_png_encode_rgb(probe, 1, 1, 3, NULL, &pb) == CG_E_UNSUPPORTED) {
        printf("PNG: not built into this library (CG_WITH_PNG=OFF)\n");
        return;
    }
    cg_buf_free(&pb);
    uint8_t *src = game_frame(w, h);
    if (src == NULL) abort();
    png_ctx def, lib;
    png_setup(&def, src, w, h);
    png_setup(&lib, src, w, h);
    def.opt = cg_png_default_options();
    lib.opt = cg_png_libpng_defaults();
    double t, tl;
    time_pair(run_png, &def, run_png, &lib, 40 * scale, &t, &tl);
    size_t size_def = def.out.len, size_lib = lib.out.len;
    printf("%-34s %-6s %9.1f us   limit %8.1f us   ratio %5.2f   size %zu vs %zu (%.3fx)\n",
           "640x360 PNG, cg default", "", t, tl, t / tl, size_def, size_lib,
           (double)size_def / (double)size_lib);
    printf("  (PNG limit: libpng's defaults on the same frame; both include the RAW "
           "conversion)\n");

    printf("\nPNG table, 640x360 game-like frame (convert + encode); each row timed in "
           "alternation with libpng's defaults, medians of %d (level 6: %d, 9: %d):\n",
           9 * scale, 5 * scale, 3 * scale);
    printf("%-6s %-8s %-9s %10s %9s %10s %9s\n", "level", "filter", "strategy", "time us",
           "bytes", "t/libpng", "size/lib");
    png_ctx c;
    png_setup(&c, src, w, h);
    static const int levels[] = {0, 1, 2, 3, 6, 9};
    static const int filters[] = {CG_PNG_FILTER_NONE, CG_PNG_FILTER_SUB, CG_PNG_FILTER_UP,
                                  CG_PNG_FILTER_PAETH, CG_PNG_FILTER_ALL};
    const cg_png_options d = cg_png_default_options();
    for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++)
        for (size_t fi = 0; fi < sizeof filters / sizeof filters[0]; fi++) {
            cg_png_options o = {levels[li], filters[fi], -1};
            /* level 9 takes up to 0.2 s a frame: fewer repetitions there */
            png_row(&c, &lib, o, (levels[li] >= 9 ? 3 : levels[li] >= 6 ? 5 : 9) * scale, size_lib,
                    d.level == o.level && d.filters == o.filters && d.strategy == o.strategy);
        }
    /* zlib strategies at the fast levels; and libpng's own defaults. */
    for (int lv = 1; lv <= 2; lv++)
        for (int st = 1; st <= 3; st++) {
            cg_png_options o = {lv, CG_PNG_FILTER_SUB, st};
            png_row(&c, &lib, o, 9 * scale, size_lib, 0);
        }
    png_row(&c, &lib, cg_png_libpng_defaults(), 9 * scale, size_lib, 0);
    cg_buf_free(&def.out);
    cg_buf_free(&lib.out);
    cg_buf_free(&c.out);
    free(def.raw.dst);
    free(lib.raw.dst);
    free(c.raw.dst);
    free(src);
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
    if (strcmp(part, "png") != 0 && strcmp(part, "box") != 0) {
        raw_case("640x360 -> 640x360 RAW flip", 640, 360, 640, 360, 1, 400 * scale);
        raw_case("854x480 -> 128x128 RAW", 854, 480, 128, 128, 0, 2000 * scale);
        raw_case("1920x1080 -> 640x360 RAW", 1920, 1080, 640, 360, 0, 200 * scale);
        raw_case("128x128 RAW", 128, 128, 128, 128, 0, 4000 * scale);
        printf("\n");
    }
    if (strcmp(part, "png") != 0 && strcmp(part, "raw") != 0) box_cases(scale);
    if (strcmp(part, "raw") != 0 && strcmp(part, "box") != 0) png_cases(scale);
    return 0;
}
