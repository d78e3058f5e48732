/*
 * A C program built only against the installed library (headers, archive,
 * CMake package or pkg-config file): converts a hand-written 2x2 frame and
 * checks the bytes. Exit 0 when every byte is as written below.
 */
#include <stdio.h>
#include <string.h>

#include <cg_frame.h>
#include <cg_version.h>

static int failures;

static void expect_bytes(const char *what, const uint8_t *got, const uint8_t *want, size_t n)
{
    if (memcmp(got, want, n) != 0) {
        fprintf(stderr, "FAIL %s:", what);
        for (size_t i = 0; i < n; i++) fprintf(stderr, " %u/%u", got[i], want[i]);
        fprintf(stderr, " (got/want)\n");
        failures++;
    }
}

int main(void)
{
    /* 2x2 RGBA, row 0 first in memory; alpha must be dropped. */
    static const uint8_t src[16] = {1, 2, 3, 255, 4, 5, 6, 250,
                                    7, 8, 9, 0,   10, 11, 12, 1};
    /* Flipped: row 1 first. */
    static const uint8_t want_flip[12] = {7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6};
    /* 2x2 -> 1x1 nearest: source pixel (0, 0). */
    static const uint8_t want_small[3] = {1, 2, 3};
    uint8_t out[12 + 4];

    cg_convert_params p;
    memset(&p, 0, sizeof p);
    p.src = src;
    p.src_stride = 8;
    p.src_w = p.src_h = 2;
    p.dst_w = p.dst_h = 2;
    p.flip = 1;
    p.filter = CG_FILTER_NEAREST;
    memset(out, 0xee, sizeof out);
    cg_status st = cg_convert(&p, out, 12);
    if (st != CG_OK) {
        fprintf(stderr, "FAIL cg_convert: %s\n", cg_strerror(st));
        return 1;
    }
    expect_bytes("flip", out, want_flip, 12);
    if (out[12] != 0xee) {
        fprintf(stderr, "FAIL wrote past 12 bytes\n");
        failures++;
    }

    p.flip = 0;
    p.dst_w = p.dst_h = 1;
    st = cg_convert(&p, out, 3);
    if (st != CG_OK) {
        fprintf(stderr, "FAIL cg_convert 1x1: %s\n", cg_strerror(st));
        return 1;
    }
    expect_bytes("resize", out, want_small, 3);

    p.dst_w = 0;
    st = cg_convert(&p, out, 3);
    if (st != CG_E_INVALID_ARG || strcmp(cg_status_name(st), "CG_E_INVALID_ARG") != 0) {
        fprintf(stderr, "FAIL width 0 gave %s\n", cg_status_name(st));
        failures++;
    }
    /* The installed header's version is the installed library's. */
    if (cg_version() != CG_VERSION_NUMBER || strcmp(cg_version_string(), CG_VERSION_STRING) != 0) {
        fprintf(stderr, "FAIL cg_version %u (%s), header %d (%s)\n", cg_version(),
                cg_version_string(), CG_VERSION_NUMBER, CG_VERSION_STRING);
        failures++;
    }
    if (failures) return 1;
    printf("consumer: installed library converts as expected (%s path)\n",
           cg_simd_name(cg_simd_best()));
    return 0;
}
