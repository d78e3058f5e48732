/*
 * PNG encoding: the library writes the container (signature, IHDR, one IDAT,
 * IEND, each chunk with its CRC-32) and the row filters itself; the zlib
 * stream inside IDAT comes from the own deflate encoder (cg_png_zdeflate.c)
 * or, on request, from libdeflate or zlib loaded at first use
 * (cg_png_deflate.c). Output: 8-bit RGB, not interlaced.
 */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include <stdlib.h>
#include <string.h>

#include "cg_png_internal.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

static int grow(cg_buf *b, size_t need)
{
    if (need <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(b->data, cap);
    if (p == NULL) return 0;
    b->data = p;
    b->cap = cap;
    return 1;
}

/* The work area (filtered rows, then the own deflate's memory): up to
 * 805 MB. With 4 KiB pages every first touch is a page fault; on a VM those
 * cost about 18 us each here (27 ms for a 1920x1080 frame's 6 MB, more than
 * the encoding). From 2 MiB up, a mapping of transparent huge pages faults
 * 512 times less: 0.7 ms for the same 6 MB. Elsewhere, or if the kernel
 * refuses, plain malloc. An encoder keeps its area for its next call (below). */
typedef struct scratch {
    uint8_t *p;
    void *map;
    size_t map_len;
} scratch;

enum { HUGE_PAGE = 2 << 20 };

static int scratch_alloc(scratch *s, size_t n)
{
    s->map = NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (n >= HUGE_PAGE && n <= SIZE_MAX - 2 * (size_t)HUGE_PAGE) {
        size_t len = (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE + HUGE_PAGE;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
            uintptr_t a = ((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
            (void)madvise((void *)a, len - (a - (uintptr_t)m), MADV_HUGEPAGE); /* a hint */
            s->map = m;
            s->map_len = len;
            s->p = (uint8_t *)a;
            return 1;
        }
    }
#endif
    s->p = malloc(n);
    return s->p != NULL;
}

static void scratch_free(scratch *s)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (s->map != NULL) {
        munmap(s->map, s->map_len);
        return;
    }
#endif
    free(s->p);
}

/* A work area kept between calls (an encoder's): areas above the encoder's
 * cap are the call's own, so an encoder holds at most that much. */
typedef struct work {
    scratch sc;
    size_t cap; /* 0: none */
} work;

struct cg_png_encoder {
    size_t keep_max; /* the cap of each buffer kept between calls */
    work work;       /* the filtered rows and the own deflate's memory */
    uint8_t *rows;   /* the caller's RGB rows (cg_png_encoder_rows) */
    size_t rows_cap;
};

/* The encoder's area of at least n bytes in *sc: 1; 0 when none is kept
 * (no encoder, or above its cap: the caller allocates its own); -1 when
 * memory runs out. */
static int kept_work(cg_png_encoder *e, size_t n, scratch *sc)
{
    if (e == NULL || n > e->keep_max) return 0;
    work *w = &e->work;
    if (w->cap < n) {
        if (w->cap > 0) scratch_free(&w->sc);
        w->cap = 0;
        if (!scratch_alloc(&w->sc, n)) return -1;
        w->cap = n;
    }
    *sc = w->sc;
    return 1;
}

cg_status cg_png_encoder_create(size_t keep_max, cg_png_encoder **out)
{
    CG_RETURN_IF(out == NULL, CG_E_INVALID_ARG);
    *out = calloc(1, sizeof **out);
    CG_RETURN_IF(*out == NULL, CG_E_NO_MEMORY);
    (*out)->keep_max = keep_max ? keep_max : CG_PNG_KEEP_MAX;
    return CG_OK;
}

void cg_png_encoder_destroy(cg_png_encoder *e)
{
    if (e == NULL) return;
    if (e->work.cap > 0) scratch_free(&e->work.sc);
    free(e->rows);
    free(e);
}

cg_status cg_png_encoder_rows(cg_png_encoder *e, size_t len, uint8_t **rows)
{
    CG_RETURN_IF(e == NULL || rows == NULL, CG_E_INVALID_ARG);
    *rows = NULL;
    if (e->rows_cap < len) {
        free(e->rows);
        e->rows = malloc(len);
        e->rows_cap = e->rows != NULL ? len : 0;
        CG_RETURN_IF(e->rows == NULL, CG_E_NO_MEMORY);
    }
    *rows = e->rows;
    return CG_OK;
}

size_t cg_png_encoder_kept(const cg_png_encoder *e)
{
    return e ? e->work.cap + e->rows_cap : 0;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Chunk layout: length (4), type (4), data (len), CRC of type + data (4).
 * The data is already in place at p + 8; this fills the rest. */
static size_t finish_chunk(uint8_t *p, const char type[4], size_t len)
{
    put_be32(p, (uint32_t)len);
    memcpy(p + 4, type, 4);
    put_be32(p + 8 + len, cg_crc32(0, p + 4, len + 4));
    return len + 12;
}

static cg_status check_args(const uint8_t *rgb, int w, int h, size_t stride,
                            const cg_png_options *opt, cg_buf *out)
{
    size_t bytes;
    CG_RETURN_IF(rgb == NULL || out == NULL, CG_E_INVALID_ARG);
    CG_RETURN_IF(opt->level < -1 || opt->level > 9, CG_E_INVALID_ARG);
    CG_RETURN_IF(opt->strategy < -1 || opt->strategy > 4, CG_E_INVALID_ARG);
    CG_RETURN_IF(opt->deflate != CG_PNG_DEFLATE_LIBRARY && opt->deflate != CG_PNG_DEFLATE_OWN,
                 CG_E_INVALID_ARG);
    CG_RETURN_IF(opt->deflate == CG_PNG_DEFLATE_OWN &&
                     (opt->strategy != -1 ||
                      (opt->level != -1 &&
                       (opt->level < CG_PNG_OWN_LEVEL_MIN || opt->level > CG_PNG_OWN_LEVEL_MAX))),
                 CG_E_INVALID_ARG);
    CG_RETURN_IF(opt->filters != -1 && (opt->filters == 0 || (opt->filters & ~CG_PNG_FILTER_ALL)),
                 CG_E_INVALID_ARG);
    CG_TRY(cg_check_dims(w, h));
    CG_RETURN_IF(stride < (size_t)w * 3, CG_E_INVALID_ARG);
    return cg_mul_size(stride, (size_t)h, &bytes); /* the rows must be addressable */
}

/* The encoding, with e's kept work area (NULL: the call's own). */
static cg_status encode(cg_png_encoder *e, const cg_deflate_lib *lib, const uint8_t *rgb, int w,
                        int h, size_t stride, const cg_png_options *opt, cg_buf *out)
{
    cg_png_options dflt = cg_png_default_options();
    if (opt == NULL) opt = &dflt;
    CG_TRY(check_args(rgb, w, h, stride, opt, out));
    out->len = 0; /* replaced, not appended; stays 0 on any failure below */
    const int own = opt->deflate == CG_PNG_DEFLATE_OWN;
    CG_RETURN_IF(!own && lib == NULL, CG_E_UNSUPPORTED);

    const int level = own ? (opt->level < 0 ? CG_PNG_OWN_LEVEL_DEFAULT : opt->level)
                          : (opt->level < 0 ? 6 : opt->level); /* zlib's and libpng's */
    const int mask = opt->filters < 0 ? CG_PNG_FILTER_ALL : opt->filters;
    const size_t row = (size_t)w * 3;
    size_t filtered_len, scratch_len;
    CG_TRY(cg_mul_size(row + 1, (size_t)h, &filtered_len));
    CG_RETURN_IF(filtered_len > SIZE_MAX - row - CG_ZD_SLACK - 64, CG_E_OVERFLOW);
    /* + the zero row above the first, + what the own deflate may read past,
     * to a 64-byte boundary, + the own deflate's work memory */
    const size_t zd_at = (filtered_len + row + CG_ZD_SLACK + 63) / 64 * 64;
    const size_t zd_len = own ? cg_zd_work_size(level, row + 1) : 0;
    CG_RETURN_IF(own && zd_len == 0, CG_E_INVALID_ARG);
    CG_RETURN_IF(zd_len > SIZE_MAX - zd_at, CG_E_OVERFLOW);
    scratch_len = zd_at + zd_len;

    /* Header, IDAT's header, the stream's bound, IDAT's CRC and IEND. */
    const size_t head = 8 + 25 + 8;
    const size_t bound = own ? cg_zd_bound(filtered_len) : cg_deflate_bound(lib, filtered_len);
    CG_RETURN_IF(bound > SIZE_MAX - head - 4 - 12, CG_E_OVERFLOW);
    scratch sc;
    const int kept = kept_work(e, scratch_len, &sc);
    CG_RETURN_IF(kept < 0 || (!kept && !scratch_alloc(&sc, scratch_len)), CG_E_NO_MEMORY);
    if (!grow(out, head + bound + 4 + 12)) {
        if (!kept) scratch_free(&sc);
        return CG_E_NO_MEMORY;
    }

    uint8_t *const filtered = sc.p;
    uint8_t *zero_row = filtered + filtered_len;
    memset(zero_row, 0, row);
    const cg_png_filter_fn filter = cg_png_filter_best();
    const uint8_t *prev = zero_row;
    for (int y = 0; y < h; y++) {
        const uint8_t *cur = rgb + (size_t)y * stride;
        filter(cur, prev, row, mask, filtered + (size_t)y * (row + 1));
        prev = cur;
    }

    uint8_t *p = out->data;
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    memcpy(p, sig, 8);
    uint8_t *ihdr = p + 8 + 8;
    put_be32(ihdr, (uint32_t)w);
    put_be32(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8;  /* bit depth */
    ihdr[9] = 2;  /* colour type: RGB */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering */
    ihdr[12] = 0; /* not interlaced */
    size_t at = 8 + finish_chunk(p + 8, "IHDR", 13);

    size_t zlen = 0;
    cg_status st = own ? cg_zd_compress_in(sc.p + zd_at, zd_len, level, filtered, filtered_len,
                                           row + 1, p + at + 8, bound, &zlen)
                       : cg_deflate_zlib(lib, level, opt->strategy, filtered, filtered_len,
                                         p + at + 8, bound, &zlen);
    if (!kept) scratch_free(&sc);
    if (st == CG_OK && zlen > 0x7fffffffu) st = CG_E_TOO_LARGE; /* one chunk's limit */
    CG_TRY(st);
    at += finish_chunk(p + at, "IDAT", zlen);
    at += finish_chunk(p + at, "IEND", 0);
    out->len = at;
    return CG_OK;
}

cg_status cg_png_encode_rgb_with(const cg_deflate_lib *lib, const uint8_t *rgb, int w, int h,
                                 size_t stride, const cg_png_options *opt, cg_buf *out)
{
    return encode(NULL, lib, rgb, w, h, stride, opt, out);
}

/* encode with the deflate library opt asks for, loaded at first use. */
static cg_status encode_opt(cg_png_encoder *e, const uint8_t *rgb, int w, int h, size_t stride,
                            const cg_png_options *opt, cg_buf *out)
{
    cg_png_options dflt = cg_png_default_options();
    if (opt == NULL) opt = &dflt;
    CG_TRY(check_args(rgb, w, h, stride, opt, out));
    const cg_deflate_lib *lib =
        opt->deflate == CG_PNG_DEFLATE_OWN ? NULL : cg_deflate_for_strategy(opt->strategy);
    return encode(e, lib, rgb, w, h, stride, opt, out);
}

cg_status cg_png_encode_rgb(const uint8_t *rgb, int w, int h, size_t stride,
                            const cg_png_options *opt, cg_buf *out)
{
    return encode_opt(NULL, rgb, w, h, stride, opt, out);
}

cg_status cg_png_encoder_encode(cg_png_encoder *e, const uint8_t *rgb, int w, int h,
                                size_t stride, const cg_png_options *opt, cg_buf *out)
{
    CG_RETURN_IF(e == NULL, CG_E_INVALID_ARG);
    cg_status st = encode_opt(e, rgb, w, h, stride, opt, out);
    if (e->rows_cap > e->keep_max) { /* rows above the cap lived for this call */
        free(e->rows);
        e->rows = NULL;
        e->rows_cap = 0;
    }
    return st;
}

const char *cg_png_unavailable_reason(void)
{
    if (cg_png_default_options().deflate == CG_PNG_DEFLATE_OWN || cg_deflate_default() != NULL)
        return NULL;
    return cg_deflate_unavailable_reason();
}

const char *cg_png_deflate_name(void)
{
    const cg_deflate_lib *lib = cg_deflate_default();
    if (lib == NULL) return NULL;
    return cg_deflate_lib_kind(lib) == CG_DEFLATE_LIBDEFLATE ? "libdeflate" : "zlib";
}
