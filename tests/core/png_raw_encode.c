/*
 * png_raw_encode [--no-deflate-library] OUT_DIR: for each RGBA frame (the
 * synthetic edge cases below, and the frames OUT_DIR/inputs.txt names,
 * "name w h" per line, each in OUT_DIR/<name>.rgba, top row first) writes
 * the frame as the RAW path makes it (OUT_DIR/<name>.raw: cg_convert with
 * flip, RGB, bottom-up) and that RAW image encoded as PNG with each setting
 * (OUT_DIR/<name>.<setting>.png), and lists them in OUT_DIR/manifest.txt.
 * png_raw_check.py then decodes every PNG with Python's PIL (an independent
 * decoder) and compares it with the RAW bytes, and the RAW bytes with its own
 * flip of the RGBA frame. Needs no PNG library, so a cross build runs it
 * under its emulator (Wine, qemu-user) and the check runs on the host.
 * --no-deflate-library: this build loads no deflate library (Windows):
 * CG_PNG_DEFLATE_LIBRARY must be refused with CG_E_UNSUPPORTED while the
 * default encoder works.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_frame.h"
#include "test_files.h"

static FILE *manifest;
static int failures;

static void fail(const char *what, const char *name, cg_status st)
{
    fprintf(stderr, "png_raw_encode: %s: %s (%s)\n", name, what, cg_strerror(st));
    failures++;
}

typedef struct setting {
    const char *tag;
    cg_png_options opt;
    size_t pad; /* bytes after each row of the encoder's input */
} setting;

static void encode_all(const char *dir, const char *name, const uint8_t *rgba, int w, int h)
{
    const size_t row = (size_t)w * 3, raw_len = row * (size_t)h;
    uint8_t *raw = malloc(raw_len);
    uint8_t *padded = malloc((row + 7) * (size_t)h);
    if (raw == NULL || padded == NULL) {
        fail("out of memory", name, CG_E_NO_MEMORY);
        free(raw);
        free(padded);
        return;
    }
    cg_convert_params p = {0};
    p.src = rgba;
    p.src_stride = (size_t)w * 4;
    p.src_w = p.dst_w = w;
    p.src_h = p.dst_h = h;
    p.flip = 1;
    cg_status st = cg_convert(&p, raw, raw_len);
    if (st != CG_OK || !cg_test_write_file(dir, name, "rgba", rgba, (size_t)w * 4 * (size_t)h) ||
        !cg_test_write_file(dir, name, "raw", raw, raw_len)) {
        fail("RAW conversion or its files", name, st);
        free(raw);
        free(padded);
        return;
    }
    for (int y = 0; y < h; y++) {
        memcpy(padded + (size_t)y * (row + 7), raw + (size_t)y * row, row);
        memset(padded + (size_t)y * (row + 7) + row, 0xa5, 7); /* must not reach the PNG */
    }
    cg_png_options own = cg_png_default_options();
    own.filters = -1;
    setting s[] = {
        {"default", cg_png_default_options(), 0},
        {"fast", cg_png_fast_options(), 0},
        {"own1_all", own, 0},
        {"own2_all", own, 0},
        {"own3_all", own, 0},
        {"own2_none", own, 0},
        {"own2_up", own, 0},
        {"own2_avg", own, 0},
        {"own2_paeth", own, 0},
        {"default_stride", cg_png_default_options(), 7},
    };
    s[2].opt.level = 1;
    s[3].opt.level = 2;
    s[4].opt.level = 3;
    for (int k = 5; k <= 8; k++) s[k].opt.level = 2;
    s[5].opt.filters = CG_PNG_FILTER_NONE;
    s[6].opt.filters = CG_PNG_FILTER_UP;
    s[7].opt.filters = CG_PNG_FILTER_AVG;
    s[8].opt.filters = CG_PNG_FILTER_PAETH;

    cg_buf b = {0};
    fprintf(manifest, "%s %d %d", name, w, h);
    for (size_t k = 0; k < sizeof s / sizeof s[0]; k++) {
        char ext[64];
        snprintf(ext, sizeof ext, "%s.png", s[k].tag);
        st = cg_png_encode_rgb(s[k].pad ? padded : raw, w, h, row + s[k].pad, &s[k].opt, &b);
        if (st != CG_OK || !cg_test_write_file(dir, name, ext, b.data, b.len)) {
            fail(s[k].tag, name, st);
            continue;
        }
        fprintf(manifest, " %s", s[k].tag);
    }
    /* The deflate library's path: works where one loads, refused where none does. */
    cg_png_options lib = cg_png_libpng_defaults();
    st = cg_png_encode_rgb(raw, w, h, row, &lib, &b);
    if (cg_png_deflate_name() == NULL) {
        if (st != CG_E_UNSUPPORTED || b.len != 0) fail("library path not refused", name, st);
    } else if (st != CG_OK || !cg_test_write_file(dir, name, "library.png", b.data, b.len)) {
        fail("library", name, st);
    } else {
        fprintf(manifest, " library");
    }
    fprintf(manifest, "\n");
    cg_buf_free(&b);
    free(raw);
    free(padded);
}

/* Synthetic frames: kind 0 noise, 1 smooth gradient, 2 one flat colour. */
static void synthetic(const char *dir, const char *name, int w, int h, int kind)
{
    uint8_t *rgba = malloc((size_t)w * 4 * (size_t)h);
    if (rgba == NULL) {
        fail("out of memory", name, CG_E_NO_MEMORY);
        return;
    }
    uint32_t s = 0x9e3779b9u ^ (uint32_t)(w * 31 + h);
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        const int x = (int)(i % (size_t)w), y = (int)(i / (size_t)w);
        for (int c = 0; c < 4; c++) {
            uint8_t v = kind == 0   ? (uint8_t)(s >> (8 * c))
                        : kind == 1 ? (uint8_t)(x * (c + 1) + y * (3 - c))
                                    : (uint8_t)(40 + 70 * c);
            rgba[i * 4 + (size_t)c] = v;
        }
    }
    encode_all(dir, name, rgba, w, h);
    free(rgba);
}

static void listed(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/inputs.txt", dir);
    FILE *in = fopen(path, "r");
    if (in == NULL) return; /* no real frames given */
    char name[256];
    int w, h;
    while (fscanf(in, "%255s %d %d", name, &w, &h) == 3) {
        cg_status st = cg_check_dims(w, h);
        size_t n = st == CG_OK ? (size_t)w * 4 * (size_t)h : 0;
        uint8_t *rgba = n ? malloc(n) : NULL;
        snprintf(path, sizeof path, "%s/%s.rgba", dir, name);
        FILE *f = rgba ? fopen(path, "rb") : NULL;
        if (f == NULL || fread(rgba, 1, n, f) != n) {
            fail("cannot read the frame", path, st);
        } else {
            encode_all(dir, name, rgba, w, h);
        }
        if (f) fclose(f);
        free(rgba);
    }
    fclose(in);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[1], "--no-deflate-library") != 0)) {
        fprintf(stderr, "usage: png_raw_encode [--no-deflate-library] OUT_DIR\n");
        return 2;
    }
    const char *dir = argv[argc - 1];
    if (argc == 3) {
        cg_buf b = {0};
        cg_png_options lib = cg_png_libpng_defaults();
        static const uint8_t px[3] = {1, 2, 3};
        if (cg_png_deflate_name() != NULL || cg_png_unavailable_reason() != NULL ||
            cg_png_encode_rgb(px, 1, 1, 3, &lib, &b) != CG_E_UNSUPPORTED || b.len != 0) {
            fprintf(stderr, "png_raw_encode: expected no deflate library and a working PNG "
                            "encoder; deflate library %s\n",
                    cg_png_deflate_name() ? cg_png_deflate_name() : "(none)");
            failures++;
        }
        cg_buf_free(&b);
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    manifest = fopen(path, "w");
    if (manifest == NULL) {
        fprintf(stderr, "png_raw_encode: cannot write %s\n", path);
        return 1;
    }
    synthetic(dir, "one_1x1", 1, 1, 0);
    synthetic(dir, "column_1x7", 1, 7, 0);
    synthetic(dir, "row_7x1", 7, 1, 1);
    synthetic(dir, "odd_5x3", 5, 3, 0);
    synthetic(dir, "noise_333x77", 333, 77, 0);
    synthetic(dir, "gradient_301x40", 301, 40, 1);
    synthetic(dir, "flat_640x8", 640, 8, 2);
    /* A row longer than deflate's 32 KiB window: the row above is out of reach. */
    synthetic(dir, "wide_11001x3", 11001, 3, 1);
    listed(dir);
    if (fclose(manifest) != 0) failures++;
    if (failures) {
        fprintf(stderr, "png_raw_encode: %d failure(s)\n", failures);
        return 1;
    }
    return 0;
}
