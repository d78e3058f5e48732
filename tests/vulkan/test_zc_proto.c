/*
 * test_zc_proto.c - zero-copy v2 descriptor version 3 (depth and stereo
 * planes, docs/zero-copy-v2/protocol.md "Depth and stereo planes") against
 * hand-written golden bytes, every refusal the document lists, the slot
 * layout against values computed by hand, and the frame-parts order
 * (cg_zc_parts.h) in every order a producer may see. No GPU: pure protocol.
 *
 * The learner's map of a received control block (cg_zc_control_map) against
 * hostile producers: a block without the seals the document names
 * (shrinking and growing) or a file that is no block is refused at connect,
 * never a SIGBUS at the next lease.
 *
 * Usage: test_zc_proto CASE   (descriptor3 | refusals3 | layout | parts | control)
 */
#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cg_zc_parts.h"
#include "cg_zc_proto.h"
#include "zc_test.h"

static int failures;

/* ---- golden bytes ----------------------------------------------------------- */

/* clang-format off */
/* Bytes 0..191 of every version 3 golden below, written by hand from the
 * table in docs/zero-copy-v2/protocol.md: version 3, length 256, format 23, 640x360,
 * pitch 1920 (0x780), 3 slots, mode 1, UUID 00 01 .. 0f, ring id
 * 0x1122334455667788, slot size patched per case (offset 56), slot 2,
 * flags 0, frame 0x0102030405, path "/run/x.sock". */
static const uint8_t HEAD3[80] = {
    'C', 'G', 'Z', '2', 3, 0, 0x00, 0x01,               /* magic, version 3, length 256 */
    23, 0, 0, 0, 0x80, 0x02, 0, 0,                      /* format 23, width 640 */
    0x68, 0x01, 0, 0, 0x80, 0x07, 0, 0,                 /* height 360, pitch 1920 */
    3, 0, 0, 0, 1, 0, 0, 0,                             /* slots 3, mode 1 */
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, /* device UUID */
    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,     /* ring id */
    0, 0, 0, 0, 0, 0, 0, 0,                             /* slot size: per case */
    2, 0, 0, 0, 0, 0, 0, 0,                             /* slot 2, flags 0 */
    0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0,              /* frame */
};

/* Bytes 192..255 (eyes .. reserved) of each case. */
/* A: 1 eye, linear depth, Z_ZERO_TO_ONE, near 0.05 (0x3D4CCCCD), far 1000
 * (0x447A0000); colour eye stride 691200 (0x0A8C00), depth at 691200,
 * depth eye stride 921600 (0x0E1000), depth pitch 2560; slot 1612800 (0x189C00). */
static const uint8_t TAIL_LINEAR[64] = {
    1, 0, 0, 0, 100, 0, 0, 0,          /* eyes 1, depth_format 100 */
    0x00, 0x8C, 0x0A, 0, 0, 0, 0, 0,   /* color_eye_stride 691200 */
    0x00, 0x8C, 0x0A, 0, 0, 0, 0, 0,   /* depth_offset 691200 */
    0x00, 0x10, 0x0E, 0, 0, 0, 0, 0,   /* depth_eye_stride 921600 */
    0x00, 0x0A, 0, 0, 1, 0, 0, 0,      /* depth_row_pitch 2560, encoding 1 linear */
    1, 0, 0, 0, 0xCD, 0xCC, 0x4C, 0x3D, /* depth_flags Z_ZERO_TO_ONE, near 0.05 */
    0x00, 0x00, 0x7A, 0x44, 0, 0, 0, 0, /* far 1000, reserved */
    0, 0, 0, 0, 0, 0, 0, 0,            /* reserved */
};
static const uint8_t SLOT_LINEAR[3] = {0x00, 0x9C, 0x18};

/* B: 2 eyes, no depth: colour eye stride 691200; slot 1382400 (0x151800). */
static const uint8_t TAIL_STEREO[64] = {
    2, 0, 0, 0, 0, 0, 0, 0,            /* eyes 2, depth_format 0 */
    0x00, 0x8C, 0x0A, 0, 0, 0, 0, 0,   /* color_eye_stride 691200 */
};
static const uint8_t SLOT_STEREO[3] = {0x00, 0x18, 0x15};

/* C: 2 eyes, raw depth: depth at 1382400 (0x151800), depth eye stride
 * 921600, pitch 2560, encoding 2, flags 0, near/far 0; slot 3225600 (0x313800). */
static const uint8_t TAIL_STEREO_RAW[64] = {
    2, 0, 0, 0, 100, 0, 0, 0,          /* eyes 2, depth_format 100 */
    0x00, 0x8C, 0x0A, 0, 0, 0, 0, 0,   /* color_eye_stride 691200 */
    0x00, 0x18, 0x15, 0, 0, 0, 0, 0,   /* depth_offset 1382400 */
    0x00, 0x10, 0x0E, 0, 0, 0, 0, 0,   /* depth_eye_stride 921600 */
    0x00, 0x0A, 0, 0, 2, 0, 0, 0,      /* depth_row_pitch 2560, encoding 2 raw */
};
static const uint8_t SLOT_STEREO_DEPTH[3] = {0x00, 0x38, 0x31};

/* D: 2 eyes, linear depth, classic [-1, 1] clip (flags 0), near 0.05, far
 * 1000; the layout of C. */
static const uint8_t TAIL_STEREO_LINEAR[64] = {
    2, 0, 0, 0, 100, 0, 0, 0,
    0x00, 0x8C, 0x0A, 0, 0, 0, 0, 0,
    0x00, 0x18, 0x15, 0, 0, 0, 0, 0,
    0x00, 0x10, 0x0E, 0, 0, 0, 0, 0,
    0x00, 0x0A, 0, 0, 1, 0, 0, 0,      /* encoding 1 linear */
    0, 0, 0, 0, 0xCD, 0xCC, 0x4C, 0x3D, /* depth_flags 0, near 0.05 */
    0x00, 0x00, 0x7A, 0x44, 0, 0, 0, 0, /* far 1000 */
};
/* clang-format on */

static void golden3(uint8_t out[CG_ZC_DESC_V3_SIZE], const uint8_t slot[3], const uint8_t tail[64])
{
    memset(out, 0, CG_ZC_DESC_V3_SIZE);
    memcpy(out, HEAD3, sizeof HEAD3);
    memcpy(out + 56, slot, 3);
    memcpy(out + 80, "/run/x.sock", 11);
    memcpy(out + 192, tail, 64);
}

/* The fields each golden holds, written out separately from the bytes. */
static cg_zc_desc fields(uint32_t eyes, uint32_t depth_format, uint64_t slot_size)
{
    cg_zc_desc d;
    memset(&d, 0, sizeof d);
    d.format = 23;
    d.width = 640;
    d.height = 360;
    d.row_pitch = 1920;
    d.slot_count = 3;
    d.mode = CG_ZC_MODE_SEMAPHORE;
    for (int i = 0; i < 16; i++) d.device_uuid[i] = (uint8_t)i;
    d.ring_id = 0x1122334455667788ull;
    d.slot_size = slot_size;
    d.slot = 2;
    d.frame = 0x0102030405ull;
    snprintf(d.socket_path, sizeof d.socket_path, "/run/x.sock");
    d.eyes = eyes;
    d.depth_format = depth_format;
    d.color_eye_stride = 691200;
    return d;
}

static cg_zc_desc fields_linear(void)
{
    cg_zc_desc d = fields(1, 100, 1612800);
    d.depth_offset = 691200;
    d.depth_eye_stride = 921600;
    d.depth_row_pitch = 2560;
    d.depth_encoding = CG_ZC_DEPTH_LINEAR;
    d.depth_flags = CG_ZC_DEPTH_Z_ZERO_TO_ONE;
    d.near_plane = 0.05f;
    d.far_plane = 1000.0f;
    return d;
}

static cg_zc_desc fields_stereo_depth(uint32_t encoding)
{
    cg_zc_desc d = fields(2, 100, 3225600);
    d.depth_offset = 1382400;
    d.depth_eye_stride = 921600;
    d.depth_row_pitch = 2560;
    d.depth_encoding = encoding;
    if (encoding == CG_ZC_DEPTH_LINEAR) {
        d.near_plane = 0.05f;
        d.far_plane = 1000.0f;
    }
    return d;
}

static int same_fields(const cg_zc_desc *a, const cg_zc_desc *b)
{
    return a->format == b->format && a->width == b->width && a->height == b->height &&
           a->row_pitch == b->row_pitch && a->slot_count == b->slot_count && a->mode == b->mode &&
           a->flags == b->flags && memcmp(a->device_uuid, b->device_uuid, 16) == 0 &&
           a->ring_id == b->ring_id && a->slot_size == b->slot_size && a->slot == b->slot &&
           a->frame == b->frame && strcmp(a->socket_path, b->socket_path) == 0 &&
           a->eyes == b->eyes && a->depth_format == b->depth_format &&
           a->color_eye_stride == b->color_eye_stride && a->depth_offset == b->depth_offset &&
           a->depth_eye_stride == b->depth_eye_stride && a->depth_row_pitch == b->depth_row_pitch &&
           a->depth_encoding == b->depth_encoding && a->depth_flags == b->depth_flags &&
           memcmp(&a->near_plane, &b->near_plane, 4) == 0 &&
           memcmp(&a->far_plane, &b->far_plane, 4) == 0;
}

static int case_descriptor3(void)
{
    struct {
        const char *what;
        const uint8_t *slot, *tail;
        cg_zc_desc want;
    } cases[] = {
        {"1 eye, linear depth", SLOT_LINEAR, TAIL_LINEAR, fields_linear()},
        {"2 eyes, no depth", SLOT_STEREO, TAIL_STEREO, fields(2, 0, 1382400)},
        {"2 eyes, raw depth", SLOT_STEREO_DEPTH, TAIL_STEREO_RAW,
         fields_stereo_depth(CG_ZC_DEPTH_RAW)},
        {"2 eyes, linear depth", SLOT_STEREO_DEPTH, TAIL_STEREO_LINEAR,
         fields_stereo_depth(CG_ZC_DEPTH_LINEAR)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t g[CG_ZC_DESC_V3_SIZE], enc[CG_ZC_DESC_MAX_SIZE + 8];
        golden3(g, cases[i].slot, cases[i].tail);
        cg_zc_desc o;
        cg_err e = {{0}};
        CHECK(cg_zc_desc_decode(g, sizeof g, &o, &e) == CG_OK, "%s: decode: %s", cases[i].what,
              e.text);
        CHECK(same_fields(&o, &cases[i].want), "%s: decoded fields", cases[i].what);
        memset(enc, 0xEE, sizeof enc);
        CHECK(cg_zc_desc_encode(&cases[i].want, enc, sizeof enc) == CG_OK &&
                  memcmp(enc, g, sizeof g) == 0,
              "%s: encodes to the golden bytes", cases[i].what);
        CHECK(enc[CG_ZC_DESC_V3_SIZE] == 0xEE, "%s: nothing written past 256 bytes", cases[i].what);
        CHECK(cg_zc_desc_length(enc) == CG_ZC_DESC_V3_SIZE, "%s: length 256", cases[i].what);
        CHECK(cg_zc_desc_encode(&cases[i].want, enc, CG_ZC_DESC_V3_SIZE - 1) ==
                  CG_E_BUFFER_TOO_SMALL,
              "%s: a 255-byte buffer is too small", cases[i].what);
        CHECK(cg_zc_desc_decode(g, CG_ZC_DESC_V3_SIZE - 1, &o, &e) == CG_E_BUFFER_TOO_SMALL,
              "%s: 255 bytes given", cases[i].what);
        CHECK(cg_zc_desc_decode(g, CG_ZC_DESC_SIZE, &o, &e) == CG_E_BUFFER_TOO_SMALL,
              "%s: only 192 bytes given", cases[i].what);
    }

    /* 1 eye without depth stays version 2, 192 bytes, whatever eyes 0/1 and
     * the (unused) stride say: the golden of test_zc_ring's v2 RGB case. */
    uint8_t v2[CG_ZC_DESC_SIZE];
    memset(v2, 0, sizeof v2);
    memcpy(v2, HEAD3, sizeof HEAD3);
    v2[4] = 2, v2[6] = 192, v2[7] = 0;
    v2[56] = 0x00, v2[57] = 0x8C, v2[58] = 0x0A; /* slot size 691200 */
    memcpy(v2 + 80, "/run/x.sock", 11);
    for (uint32_t eyes = 0; eyes <= 1; eyes++) {
        cg_zc_desc d = fields(eyes, 0, 691200);
        uint8_t enc[CG_ZC_DESC_MAX_SIZE];
        memset(enc, 0xEE, sizeof enc);
        CHECK(cg_zc_desc_encode(&d, enc, CG_ZC_DESC_SIZE) == CG_OK &&
                  memcmp(enc, v2, sizeof v2) == 0,
              "eyes %u without depth encodes as the version 2 bytes", eyes);
        CHECK(enc[CG_ZC_DESC_SIZE] == 0xEE && cg_zc_desc_length(enc) == CG_ZC_DESC_SIZE,
              "eyes %u: 192 bytes written", eyes);
        cg_zc_desc o;
        cg_err e = {{0}};
        CHECK(cg_zc_desc_decode(enc, CG_ZC_DESC_SIZE, &o, &e) == CG_OK && o.eyes == 1 &&
                  o.depth_format == 0 && o.color_eye_stride == 0,
              "version 2 decodes with eyes 1 and no depth: %s", e.text);
    }
    /* eyes 0 with depth: encoded as eyes 1. */
    cg_zc_desc d = fields_linear();
    d.eyes = 0;
    uint8_t enc[CG_ZC_DESC_MAX_SIZE], g[CG_ZC_DESC_V3_SIZE];
    golden3(g, SLOT_LINEAR, TAIL_LINEAR);
    CHECK(cg_zc_desc_encode(&d, enc, sizeof enc) == CG_OK && memcmp(enc, g, sizeof g) == 0,
          "eyes 0 with depth encodes as eyes 1");
    /* A reserved byte set is ignored when read. */
    g[250] = 0x5A;
    g[190] = 0x5A;
    cg_zc_desc o;
    cg_err e = {{0}};
    CHECK(cg_zc_desc_decode(g, sizeof g, &o, &e) == CG_OK, "reserved bytes are ignored: %s",
          e.text);
    return failures ? 1 : 0;
}

/* ---- refusals --------------------------------------------------------------- */

typedef struct patch {
    int off, size; /* size 0: end of the list */
    uint64_t val;
} patch;

static void put_le(uint8_t *p, int size, uint64_t v)
{
    for (int i = 0; i < size; i++) p[i] = (uint8_t)(v >> (8 * i));
}

enum { LIN, STE, RAW };

static int case_refusals3(void)
{
    const uint64_t HUGE4 = 0xFFFFFFFFFFFFFFFCull;
    /* clang-format off */
    struct {
        const char *what;
        int base;
        patch p[3];
        const char *names; /* text the error must contain */
        cg_status want;
    } bad[] = {
        {"length 192", LIN, {{6, 2, 192}}, "length", CG_E_PROTOCOL},
        {"length 257", LIN, {{6, 2, 257}}, "length", CG_E_PROTOCOL},
        {"format 37 (pitch 2560)", LIN, {{8, 4, 37}, {20, 4, 2560}}, "format 37", CG_E_PROTOCOL},
        {"ROWS_BOTTOM_UP", LIN, {{68, 4, 1}}, "ROWS_BOTTOM_UP", CG_E_PROTOCOL},
        {"version 4", LIN, {{4, 2, 4}}, "version 4", CG_E_UNSUPPORTED},
        {"eyes 0", STE, {{192, 4, 0}}, "eyes 0", CG_E_PROTOCOL},
        {"eyes 3", STE, {{192, 4, 3}}, "eyes 3", CG_E_PROTOCOL},
        {"depth_format 99", LIN, {{196, 4, 99}}, "depth_format 99", CG_E_PROTOCOL},
        {"depth_format 101", LIN, {{196, 4, 101}}, "depth_format 101", CG_E_PROTOCOL},
        {"depth_format 23", STE, {{196, 4, 23}}, "depth_format 23", CG_E_PROTOCOL},
        /* No depth plane: every depth field must be 0. */
        {"no depth, encoding 1", STE, {{228, 4, 1}}, "depth_encoding 1", CG_E_PROTOCOL},
        {"no depth, offset 4", STE, {{208, 8, 4}}, "depth_offset 4", CG_E_PROTOCOL},
        {"no depth, stride 4", STE, {{216, 8, 4}}, "depth_eye_stride 4", CG_E_PROTOCOL},
        {"no depth, pitch 2560", STE, {{224, 4, 2560}}, "depth_row_pitch 2560", CG_E_PROTOCOL},
        {"no depth, flags 1", STE, {{232, 4, 1}}, "depth_flags 0x1", CG_E_PROTOCOL},
        {"no depth, near 1.0", STE, {{236, 4, 0x3F800000}}, "near bits 0x3f800000", CG_E_PROTOCOL},
        {"no depth, far -0.0", STE, {{240, 4, 0x80000000}}, "far bits 0x80000000", CG_E_PROTOCOL},
        /* With a depth plane. */
        {"encoding 0", LIN, {{228, 4, 0}}, "depth_encoding 0", CG_E_PROTOCOL},
        {"encoding 3", RAW, {{228, 4, 3}}, "depth_encoding 3", CG_E_PROTOCOL},
        {"depth pitch 2556", LIN, {{224, 4, 2556}}, "depth_row_pitch 2556", CG_E_PROTOCOL},
        {"depth pitch 2564", RAW, {{224, 4, 2564}}, "depth_row_pitch 2564", CG_E_PROTOCOL},
        {"depth pitch 0", RAW, {{224, 4, 0}}, "depth_row_pitch 0", CG_E_PROTOCOL},
        {"depth offset % 4", LIN, {{208, 8, 691202}}, "depth_offset 691202", CG_E_PROTOCOL},
        {"depth stride % 4", RAW, {{216, 8, 921601}}, "depth_eye_stride 921601", CG_E_PROTOCOL},
        {"depth stride < W*H*4", RAW, {{216, 8, 921596}}, "depth_eye_stride 921596", CG_E_PROTOCOL},
        {"depth stride 0, 2 eyes", RAW, {{216, 8, 0}}, "depth_eye_stride 0", CG_E_PROTOCOL},
        {"linear near 0", LIN, {{236, 4, 0}}, "near 0", CG_E_PROTOCOL},
        {"linear near -1", LIN, {{236, 4, 0xBF800000}}, "near -1", CG_E_PROTOCOL},
        {"linear near == far", LIN, {{236, 4, 0x447A0000}}, "near 1000, far 1000", CG_E_PROTOCOL},
        {"linear near > far", LIN, {{240, 4, 0x3C23D70A}}, "far 0.01", CG_E_PROTOCOL},
        {"linear near NaN", LIN, {{236, 4, 0x7FC00000}}, "near nan", CG_E_PROTOCOL},
        {"linear far +inf", LIN, {{240, 4, 0x7F800000}}, "far inf", CG_E_PROTOCOL},
        {"raw with flag 1", RAW, {{232, 4, 1}}, "depth_flags 0x1", CG_E_PROTOCOL},
        {"raw with near 0.05", RAW, {{236, 4, 0x3D4CCCCD}}, "near bits 0x3d4ccccd", CG_E_PROTOCOL},
        {"raw with far 1000", RAW, {{240, 4, 0x447A0000}}, "far bits 0x447a0000", CG_E_PROTOCOL},
        {"raw with far -0.0", RAW, {{240, 4, 0x80000000}}, "far bits 0x80000000", CG_E_PROTOCOL},
        {"depth flag bit 1", LIN, {{232, 4, 3}}, "depth_flags 0x3", CG_E_PROTOCOL},
        {"depth flag bit 31", STE, {{232, 4, 0x80000000}}, "depth_flags 0x80000000", CG_E_PROTOCOL},
        {"color stride < W*H*3", STE, {{200, 8, 691199}}, "color_eye_stride 691199", CG_E_PROTOCOL},
        {"color stride 0, 2 eyes", RAW, {{200, 8, 0}}, "color_eye_stride 0", CG_E_PROTOCOL},
        /* Planes outside the slot, sums that would wrap in 64 bits, overlaps. */
        {"RGB eyes past the slot", STE, {{56, 8, 1382399}}, "slot_size 1382399", CG_E_PROTOCOL},
        {"color stride 2^64-1", STE, {{200, 8, ~0ull}}, "color_eye_stride 18446744073709551615",
         CG_E_PROTOCOL},
        {"color stride near 2^64, 1 eye ignored", LIN, {{200, 8, ~0ull}}, NULL, CG_OK},
        {"depth past the slot", RAW, {{56, 8, 3225599}}, "slot_size 3225599", CG_E_PROTOCOL},
        {"1-eye depth past the slot", LIN, {{56, 8, 1612799}}, "slot_size 1612799", CG_E_PROTOCOL},
        {"depth offset 2^64-4", RAW, {{208, 8, HUGE4}}, "depth_offset 18446744073709551612",
         CG_E_PROTOCOL},
        {"depth stride 2^64-4", RAW, {{216, 8, HUGE4}}, "depth_eye_stride 18446744073709551612",
         CG_E_PROTOCOL},
        {"depth offset + stride wraps", RAW, {{208, 8, 1382400}, {216, 8, HUGE4 - 1382396}},
         "depth planes", CG_E_PROTOCOL},
        {"depth overlaps eye 1's RGB", RAW, {{208, 8, 1382396}}, "depth_offset 1382396 overlaps",
         CG_E_PROTOCOL},
        {"depth overlaps the RGB", LIN, {{208, 8, 691196}}, "depth_offset 691196 overlaps",
         CG_E_PROTOCOL},
        {"depth at 0", LIN, {{208, 8, 0}}, "depth_offset 0 overlaps", CG_E_PROTOCOL},
        /* Limits that are allowed: planes ending exactly at the slot's end,
         * packed planes with no padding, a slot larger than the planes. */
        {"RGB planes packed", STE, {{200, 8, 691200}, {56, 8, 1382400}}, NULL, CG_OK},
        {"depth right after the RGB", LIN, {{208, 8, 691200}, {56, 8, 691200 + 921600}}, NULL, CG_OK},
        {"packed stereo depth", RAW, {{216, 8, 921600}, {56, 8, 3225600}}, NULL, CG_OK},
        {"slot larger", RAW, {{56, 8, 4000000}}, NULL, CG_OK},
        {"linear classic clip", LIN, {{232, 4, 0}}, NULL, CG_OK},
        {"1 eye without depth in version 3", STE, {{192, 4, 1}}, NULL, CG_OK},
        {"near tiny, far huge", LIN, {{236, 4, 0x00000001}, {240, 4, 0x7F7FFFFF}}, NULL, CG_OK},
    };
    /* clang-format on */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t b[CG_ZC_DESC_V3_SIZE + 4];
        memset(b, 0, sizeof b);
        if (bad[i].base == LIN) golden3(b, SLOT_LINEAR, TAIL_LINEAR);
        if (bad[i].base == STE) golden3(b, SLOT_STEREO, TAIL_STEREO);
        if (bad[i].base == RAW) golden3(b, SLOT_STEREO_DEPTH, TAIL_STEREO_RAW);
        for (int k = 0; k < 3 && bad[i].p[k].size; k++)
            put_le(b + bad[i].p[k].off, bad[i].p[k].size, bad[i].p[k].val);
        cg_zc_desc o;
        cg_err e = {{0}};
        cg_status st = cg_zc_desc_decode(b, sizeof b, &o, &e);
        if (bad[i].want == CG_OK) {
            CHECK(st == CG_OK, "%s: allowed, got %s (%s)", bad[i].what, cg_status_name(st), e.text);
            continue;
        }
        CHECK(st == bad[i].want && strstr(e.text, bad[i].names),
              "%s: got %s (%s), want %s naming \"%s\"", bad[i].what, cg_status_name(st), e.text,
              cg_status_name(bad[i].want), bad[i].names);
    }
    return failures ? 1 : 0;
}

/* ---- layout ----------------------------------------------------------------- */

static int case_layout(void)
{
    /* Computed by hand from the spec's formula:
     * rgb = round_up(W*H*3, 12), ces = round_up(rgb, 256),
     * des = round_up(W*H*4, 256), depth_offset = eyes*ces,
     * frame = depth ? depth_offset + eyes*des : eyes*ces. */
    struct {
        int w, h;
        uint32_t eyes;
        int depth;
        uint64_t rgb, ces, doff, des, frame;
    } L[] = {
        {1, 1, 1, 0, 12, 256, 0, 0, 256},     /* 3 -> 12 -> 256 */
        {1, 1, 1, 1, 12, 256, 256, 256, 512}, /* depth 4 -> 256 */
        {1, 1, 2, 1, 12, 256, 512, 256, 1024},
        {3, 1, 1, 0, 12, 256, 0, 0, 256}, /* 9 -> 12 */
        {3, 1, 2, 0, 12, 256, 0, 0, 512},
        {3, 1, 2, 1, 12, 256, 512, 256, 1024},          /* depth 12 -> 256 */
        {5, 3, 2, 1, 48, 256, 512, 256, 1024},          /* 45 -> 48; depth 60 -> 256 */
        {640, 360, 1, 0, 691200, 691200, 0, 0, 691200}, /* 230400 px: all exact */
        {640, 360, 1, 1, 691200, 691200, 691200, 921600, 1612800},
        {640, 360, 2, 0, 691200, 691200, 0, 0, 1382400},
        {640, 360, 2, 1, 691200, 691200, 1382400, 921600, 3225600},
        /* 231401 px: 694203 -> 694212 -> 694272 (2712*256); 925604 -> 925696 (3616*256) */
        {641, 361, 2, 1, 694212, 694272, 1388544, 925696, 3239936},
        {1920, 1080, 1, 0, 6220800, 6220800, 0, 0, 6220800},
        {1920, 1080, 1, 1, 6220800, 6220800, 6220800, 8294400, 14515200},
        {1920, 1080, 2, 1, 6220800, 6220800, 12441600, 8294400, 29030400},
    };
    for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
        cg_zc_planes p;
        cg_status st = cg_zc_planes_layout(L[i].w, L[i].h, L[i].eyes, L[i].depth, &p);
        CHECK(st == CG_OK && p.rgb_bytes == L[i].rgb && p.color_eye_stride == L[i].ces &&
                  p.depth_offset == L[i].doff && p.depth_eye_stride == L[i].des &&
                  p.frame_bytes == L[i].frame,
              "%dx%d eyes %u depth %d: %s rgb %llu ces %llu doff %llu des %llu frame %llu", L[i].w,
              L[i].h, L[i].eyes, L[i].depth, cg_status_name(st), (unsigned long long)p.rgb_bytes,
              (unsigned long long)p.color_eye_stride, (unsigned long long)p.depth_offset,
              (unsigned long long)p.depth_eye_stride, (unsigned long long)p.frame_bytes);
        CHECK(p.color_eye_stride % 256 == 0 && p.depth_offset % 256 == 0 &&
                  p.depth_eye_stride % 256 == 0,
              "%dx%d: offsets are multiples of 256", L[i].w, L[i].h);
    }
    /* The largest: 16384^2 = 2^28 px; 3 * 2^28 = 805306368 (a multiple of
     * 12 and 256), 4 * 2^28 = 1073741824; stereo with depth 3758096384 bytes,
     * past 32 bits: a 32-bit size_t is CG_E_OVERFLOW. */
    cg_zc_planes p;
    cg_status st = cg_zc_planes_layout(16384, 16384, 2, 1, &p);
    if (SIZE_MAX > 0xFFFFFFFFu)
        CHECK(st == CG_OK && p.rgb_bytes == 805306368ull && p.color_eye_stride == 805306368ull &&
                  p.depth_offset == 1610612736ull && p.depth_eye_stride == 1073741824ull &&
                  p.frame_bytes == 3758096384ull,
              "16384x16384 stereo depth: %s frame %llu", cg_status_name(st),
              (unsigned long long)p.frame_bytes);
    else
        CHECK(st == CG_E_OVERFLOW, "16384x16384 stereo depth on 32 bits: %s", cg_status_name(st));
    st = cg_zc_planes_layout(16384, 16384, 1, 0, &p);
    CHECK(st == CG_OK && p.frame_bytes == 805306368ull, "16384x16384 RGB: %s", cg_status_name(st));

    struct {
        int w, h;
        uint32_t eyes;
        cg_status want;
    } bad[] = {
        {0, 1, 1, CG_E_INVALID_ARG},   {1, 0, 1, CG_E_INVALID_ARG},
        {-1, 5, 1, CG_E_INVALID_ARG},  {16385, 1, 1, CG_E_TOO_LARGE},
        {1, 16385, 1, CG_E_TOO_LARGE}, {64, 64, 0, CG_E_INVALID_ARG},
        {64, 64, 3, CG_E_INVALID_ARG}, {64, 64, 0xFFFFFFFFu, CG_E_INVALID_ARG},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&p, 0x5A, sizeof p);
        st = cg_zc_planes_layout(bad[i].w, bad[i].h, bad[i].eyes, 1, &p);
        CHECK(st == bad[i].want && p.frame_bytes == 0, "%dx%d eyes %u: %s", bad[i].w, bad[i].h,
              bad[i].eyes, cg_status_name(st));
    }
    CHECK(cg_zc_planes_layout(1, 1, 1, 0, NULL) == CG_E_INVALID_ARG, "out NULL");
    return failures ? 1 : 0;
}

/* ---- frame parts -------------------------------------------------------------- */

#define D CG_ZC_PART_DEPTH
#define C CG_ZC_PART_COLOR
#define START CG_ZC_PART_START
#define NEXT CG_ZC_PART_NEXT
#define SKIP CG_ZC_PART_SKIP

/* One call of a script: the part, and what the producer would do. */
typedef struct step {
    int kind, eye;
    int want;      /* START, NEXT, SKIP, or -1: CG_E_INVALID_ARG */
    int abandoned; /* the call gives up the open frame */
    int full;      /* START: the ring is full (cg_zc_parts_full), else claim slot/frame */
    int publish;   /* after the write: cg_zc_parts_done returns 1 */
} step;

/* A stand-in producer: claims slots 0, 1, 2, ... and frames 1, 2, 3, ...;
 * checks every answer against the script and the slot it publishes or
 * gives back. */
static void run_script(const char *name, uint32_t eyes, int depth, const step *s, int n)
{
    cg_zc_parts p;
    CHECK(cg_zc_parts_init(&p, eyes, depth) == CG_OK, "%s: init", name);
    uint32_t next_slot = 0;
    uint64_t next_frame = 1;
    for (int i = 0; i < n; i++) {
        cg_zc_part_action a = (cg_zc_part_action)0;
        int ab = -1;
        uint32_t open_slot = p.slot;
        int was_open = p.open;
        cg_err e = {{0}};
        cg_status st =
            cg_zc_parts_classify(&p, (cg_zc_part_kind)s[i].kind, (uint32_t)s[i].eye, &a, &ab, &e);
        if (s[i].want < 0) {
            CHECK(st == CG_E_INVALID_ARG && e.text[0] && ab == 0 && p.open == was_open,
                  "%s step %d: invalid part: %s (%s)", name, i, cg_status_name(st), e.text);
            continue;
        }
        CHECK(st == CG_OK && (int)a == s[i].want && ab == s[i].abandoned,
              "%s step %d (kind %d eye %d): %s action %d abandoned %d, want %d %d", name, i,
              s[i].kind, s[i].eye, cg_status_name(st), (int)a, ab, s[i].want, s[i].abandoned);
        if (ab)
            CHECK(p.slot == open_slot && was_open, "%s step %d: the abandoned slot is the open one",
                  name, i);
        if (a == START) {
            if (s[i].full) {
                cg_zc_parts_full(&p);
                continue;
            }
            cg_zc_parts_claim(&p, next_slot++ % 3, next_frame++);
        }
        if (a == START || a == NEXT) {
            uint32_t slot = p.slot;
            int done = cg_zc_parts_done(&p);
            CHECK(done == s[i].publish, "%s step %d: done %d, want %d", name, i, done,
                  s[i].publish);
            if (done)
                CHECK(p.slot == slot && !p.open && p.next == 0, "%s step %d: published slot kept",
                      name, i);
        } else {
            CHECK(!s[i].publish, "%s step %d: a skipped part publishes nothing", name, i);
        }
    }
}

static int case_parts(void)
{
    /* Init and counts. */
    cg_zc_parts p;
    CHECK(cg_zc_parts_init(&p, 0, 0) == CG_OK && p.eyes == 1 && cg_zc_parts_count(&p) == 1,
          "eyes 0 -> 1");
    CHECK(cg_zc_parts_init(&p, 2, 7) == CG_OK && p.depth == 1 && cg_zc_parts_count(&p) == 4,
          "2 eyes depth");
    CHECK(cg_zc_parts_init(&p, 1, 1) == CG_OK && cg_zc_parts_count(&p) == 2, "1 eye depth");
    CHECK(cg_zc_parts_init(&p, 3, 0) == CG_E_INVALID_ARG, "3 eyes");
    CHECK(cg_zc_parts_init(NULL, 1, 0) == CG_E_INVALID_ARG, "NULL");

    /* clang-format off */
    /* Stereo with depth: D0 C0 D1 C1. */
    const step in_order[] = {
        {D, 0, START, 0, 0, 0}, {C, 0, NEXT, 0, 0, 0}, {D, 1, NEXT, 0, 0, 0}, {C, 1, NEXT, 0, 0, 1},
        {D, 0, START, 0, 0, 0}, {C, 0, NEXT, 0, 0, 0}, {D, 1, NEXT, 0, 0, 0}, {C, 1, NEXT, 0, 0, 1},
    };
    run_script("in order", 2, 1, in_order, 8);
    const step skipping[] = {
        /* The ring is full at the first part: the rest is skipped, never abandoned. */
        {D, 0, START, 0, 1, 0}, {C, 0, SKIP, 0, 0, 0}, {D, 1, SKIP, 0, 0, 0}, {C, 1, SKIP, 0, 0, 0},
        /* The next frame goes through. */
        {D, 0, START, 0, 0, 0}, {C, 0, NEXT, 0, 0, 0}, {D, 1, NEXT, 0, 0, 0}, {C, 1, NEXT, 0, 0, 1},
        /* Full, then a new frame starts before the skipped one's end. */
        {D, 0, START, 0, 1, 0}, {C, 0, SKIP, 0, 0, 0}, {D, 0, START, 0, 0, 0}, {C, 0, NEXT, 0, 0, 0},
        {D, 1, NEXT, 0, 0, 0}, {C, 1, NEXT, 0, 0, 1},
        /* A skipped frame's parts out of order: still skipped, nothing abandoned. */
        {D, 0, START, 0, 1, 0}, {D, 1, SKIP, 0, 0, 0}, {C, 1, SKIP, 0, 0, 0},
        {D, 0, START, 0, 0, 0}, {C, 0, NEXT, 0, 0, 0}, {D, 1, NEXT, 0, 0, 0}, {C, 1, NEXT, 0, 0, 1},
    };
    run_script("skipping", 2, 1, skipping, (int)(sizeof skipping / sizeof skipping[0]));
    const step restart[] = {
        /* The game starts a new frame half-way: the open one is abandoned. */
        {D, 0, START, 0, 0, 0}, {C, 0, NEXT, 0, 0, 0}, {D, 0, START, 1, 0, 0}, {C, 0, NEXT, 0, 0, 0},
        {D, 1, NEXT, 0, 0, 0}, {C, 1, NEXT, 0, 0, 1},
        /* Restart right after the first part, then a full ring on the restart. */
        {D, 0, START, 0, 0, 0}, {D, 0, START, 1, 1, 0}, {C, 0, SKIP, 0, 0, 0},
        {D, 0, START, 0, 0, 0}, {C, 0, NEXT, 0, 0, 0}, {D, 1, NEXT, 0, 0, 0}, {C, 1, NEXT, 0, 0, 1},
    };
    run_script("restart", 2, 1, restart, (int)(sizeof restart / sizeof restart[0]));
    const step out_of_order[] = {
        /* Colour 0 twice: the open frame is abandoned, the rest skipped till a new start. */
        {D, 0, START, 0, 0, 0}, {C, 0, NEXT, 0, 0, 0}, {C, 0, SKIP, 1, 0, 0}, {D, 1, SKIP, 0, 0, 0},
        {C, 1, SKIP, 0, 0, 0},
        /* Eye 1 before eye 0's colour. */
        {D, 0, START, 0, 0, 0}, {D, 1, SKIP, 1, 0, 0}, {C, 1, SKIP, 0, 0, 0},
        /* Colour before depth of the same eye. */
        {D, 0, START, 0, 0, 0}, {C, 0, NEXT, 0, 0, 0}, {C, 1, SKIP, 1, 0, 0},
        /* A part with no frame begun: skipped, nothing to abandon. */
        {C, 0, SKIP, 0, 0, 0}, {C, 1, SKIP, 0, 0, 0},
        /* Last part repeated after a publish: skipped. */
        {D, 0, START, 0, 0, 0}, {C, 0, NEXT, 0, 0, 0}, {D, 1, NEXT, 0, 0, 0}, {C, 1, NEXT, 0, 0, 1},
        {C, 1, SKIP, 0, 0, 0},
        /* Then in order again. */
        {D, 0, START, 0, 0, 0}, {C, 0, NEXT, 0, 0, 0}, {D, 1, NEXT, 0, 0, 0}, {C, 1, NEXT, 0, 0, 1},
    };
    run_script("out of order", 2, 1, out_of_order, (int)(sizeof out_of_order / sizeof out_of_order[0]));
    const step invalid[] = {
        /* Eye outside 0..1 and a bad kind: refused, the open frame untouched. */
        {D, 0, START, 0, 0, 0}, {C, 2, -1, 0, 0, 0}, {D, -1, -1, 0, 0, 0}, {7, 0, -1, 0, 0, 0},
        {C, 0, NEXT, 0, 0, 0}, {D, 1, NEXT, 0, 0, 0}, {C, 1, NEXT, 0, 0, 1},
    };
    run_script("invalid", 2, 1, invalid, (int)(sizeof invalid / sizeof invalid[0]));

    /* Stereo without depth: C0 C1; a depth part is invalid. */
    const step stereo[] = {
        {C, 0, START, 0, 0, 0}, {C, 1, NEXT, 0, 0, 1}, {D, 0, -1, 0, 0, 0}, {C, 1, SKIP, 0, 0, 0},
        {C, 0, START, 0, 0, 0}, {D, 1, -1, 0, 0, 0}, {C, 1, NEXT, 0, 0, 1},
        {C, 0, START, 0, 1, 0}, {C, 1, SKIP, 0, 0, 0}, {C, 0, START, 0, 0, 0}, {C, 0, START, 1, 0, 0},
        {C, 1, NEXT, 0, 0, 1},
    };
    run_script("stereo", 2, 0, stereo, (int)(sizeof stereo / sizeof stereo[0]));
    /* One eye with depth: D0 C0. */
    const step mono_depth[] = {
        {D, 0, START, 0, 0, 0}, {C, 0, NEXT, 0, 0, 1}, {C, 0, SKIP, 0, 0, 0}, {D, 1, -1, 0, 0, 0},
        {D, 0, START, 0, 1, 0}, {C, 0, SKIP, 0, 0, 0}, {D, 0, START, 0, 0, 0}, {D, 0, START, 1, 0, 0},
        {C, 0, NEXT, 0, 0, 1},
    };
    run_script("1 eye depth", 1, 1, mono_depth, (int)(sizeof mono_depth / sizeof mono_depth[0]));
    /* One eye, no depth: every colour part is a whole frame. */
    const step mono[] = {
        {C, 0, START, 0, 0, 1}, {C, 0, START, 0, 1, 0}, {C, 0, START, 0, 0, 1}, {D, 0, -1, 0, 0, 0},
        {C, 1, -1, 0, 0, 0},
    };
    run_script("1 eye", 1, 0, mono, (int)(sizeof mono / sizeof mono[0]));
    /* clang-format on */

    /* reset: a failed write gives the claimed slot back. */
    cg_zc_part_action a;
    int ab;
    CHECK(cg_zc_parts_init(&p, 2, 1) == CG_OK, "init");
    CHECK(cg_zc_parts_classify(&p, D, 0, &a, &ab, NULL) == CG_OK && a == START, "start");
    cg_zc_parts_claim(&p, 5, 42);
    CHECK(cg_zc_parts_reset(&p) == 1 && p.slot == 5 && p.frame == 42 && !p.open,
          "reset of an open frame");
    CHECK(cg_zc_parts_reset(&p) == 0, "reset with nothing open");
    CHECK(cg_zc_parts_done(&p) == 0, "done with nothing open");
    CHECK(cg_zc_parts_classify(&p, C, 0, &a, &ab, NULL) == CG_OK && a == SKIP && ab == 0,
          "after reset the frame's parts are skipped");
    /* The depth parameters are the producer's: classify leaves them alone. */
    p.near_plane = 0.5f;
    p.far_plane = 9.0f;
    p.depth_flags = 1;
    CHECK(cg_zc_parts_classify(&p, D, 0, &a, &ab, NULL) == CG_OK && p.near_plane == 0.5f &&
              p.far_plane == 9.0f && p.depth_flags == 1,
          "depth parameters kept");
    CHECK(cg_zc_parts_classify(NULL, D, 0, &a, &ab, NULL) == CG_E_INVALID_ARG, "NULL parts");

    /* cg_zc_parts_check on a LINEAR stereo ring (init near 0.1, far 100, zZeroToOne 0):
     * bad planes refused, eye 1 must give eye 0's, NULL meaning the ring's; nothing changes. */
    cg_err e;
    cg_zc_depth_params ring = {0.1f, 100.0f, 0}, bad = {2.0f, 1.0f, 0}, mine = {0.5f, 50.0f, 1};
    CHECK(cg_zc_parts_init(&p, 2, 1) == CG_OK, "init");
    CHECK(cg_zc_parts_check(&p, D, 0, &bad, &e) == CG_OK, "without set_linear nothing is checked");
    cg_zc_parts_set_linear(&p, &ring);
    CHECK(cg_zc_parts_check(&p, D, 0, NULL, &e) == CG_OK, "the ring's planes");
    CHECK(cg_zc_parts_check(&p, D, 0, &bad, &e) == CG_E_INVALID_ARG && strstr(e.text, "near"),
          "near 2 far 1 refused: %s", e.text);
    CHECK(cg_zc_parts_check(&p, C, 0, &bad, &e) == CG_OK, "a colour part's parameters ignored");
    CHECK(cg_zc_parts_check(&p, D, 2, NULL, &e) == CG_E_INVALID_ARG, "eye 2");
    /* Frame open with eye 0's own planes (what the producer stores at the claim). */
    CHECK(cg_zc_parts_classify(&p, D, 0, &a, &ab, NULL) == CG_OK && a == START, "start");
    cg_zc_parts_claim(&p, 1, 7);
    p.near_plane = 0.5f;
    p.far_plane = 50.0f;
    p.depth_flags = CG_ZC_DEPTH_Z_ZERO_TO_ONE;
    CHECK(cg_zc_parts_check(&p, D, 1, &mine, &e) == CG_OK, "eye 1 with eye 0's planes");
    CHECK(cg_zc_parts_check(&p, D, 1, NULL, &e) == CG_E_INVALID_ARG && strstr(e.text, "depth(0)"),
          "eye 1 with the ring's planes after eye 0's own: %s", e.text);
    cg_zc_depth_params flip = mine;
    flip.z_zero_to_one = 0;
    CHECK(cg_zc_parts_check(&p, D, 1, &flip, &e) == CG_E_INVALID_ARG, "eye 1, other zZeroToOne");
    CHECK(cg_zc_parts_check(&p, D, 0, &ring, &e) == CG_OK, "eye 0 begins a new frame: its own");
    CHECK(p.open && p.slot == 1 && p.frame == 7 && p.near_plane == 0.5f, "nothing changed");
    return failures ? 1 : 0;
}

/* ---- the control block a learner maps ------------------------------------------- */

/* A 4096-byte memfd with the header of ring 0xabcdef's 2-slot block written by hand from the
 * table in docs/zero-copy-v2/protocol.md ("The control block"), and `seals` added (0: none). */
static int hostile_block(unsigned seals)
{
    static const uint8_t header[24] = {'C', 'G', 'Z', 'C', 1, 0, 0, 0, 2, 0, 0, 0,
                                       64,  0,   0,   0,   0xef, 0xcd, 0xab, 0, 0, 0, 0, 0};
    int fd = memfd_create("hostile-control", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, 4096) != 0 || pwrite(fd, header, sizeof header, 0) != 24 ||
        (seals && fcntl(fd, F_ADD_SEALS, seals) != 0)) {
        perror("hostile control block");
        exit(1);
    }
    return fd;
}

static int case_control(void)
{
    cg_err e = {0};
    cg_zc_control c, l;
    /* The producer's own block carries the seals, and maps. */
    CHECK(cg_zc_control_create(2, 0xabcdef, &c, &e) == CG_OK, "create: %s", e.text);
    int got = fcntl(c.handle, F_GET_SEALS);
    CHECK(got >= 0 && (got & (F_SEAL_SHRINK | F_SEAL_GROW)) == (F_SEAL_SHRINK | F_SEAL_GROW),
          "the producer's block is sealed against shrinking and growing (seals %#x)", got);
    CHECK(cg_zc_control_map(dup(c.handle), 2, 0xabcdef, &l, &e) == CG_OK, "map: %s", e.text);
    cg_zc_control_free(&l);
    cg_zc_control_free(&c);
    /* A zeroed control (a producer struct calloc'd, its create never reached) owns
     * nothing: freeing it, as the header promises is safe, closes no descriptor, fd 0
     * included. */
    int zero_fd = fcntl(0, F_GETFD) != -1 ? 0 : open("/dev/null", O_RDONLY);
    CHECK(zero_fd == 0, "fd 0 open for the check");
    cg_zc_control z;
    memset(&z, 0, sizeof z);
    cg_zc_control_free(&z);
    CHECK(fcntl(0, F_GETFD) != -1, "freeing a zeroed control closed fd 0");
    /* A producer's own memfd: every seal set but one of the two is refused. */
    static const struct {
        unsigned seals;
        cg_status want;
        const char *what;
    } cases[] = {
        {0, CG_E_PROTOCOL, "no seals"},
        {F_SEAL_SHRINK, CG_E_PROTOCOL, "shrink sealed only"},
        {F_SEAL_GROW | F_SEAL_SEAL, CG_E_PROTOCOL, "grow sealed only"},
        {F_SEAL_SHRINK | F_SEAL_GROW, CG_OK, "shrink and grow sealed"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int fd = hostile_block(cases[k].seals);
        int keep = dup(fd); /* the producer's copy, to shrink the block after the hello */
        memset(&e, 0, sizeof e);
        cg_status s = cg_zc_control_map(fd, 2, 0xabcdef, &l, &e);
        CHECK(s == cases[k].want, "%s: status %d, want %d (%s)", cases[k].what, (int)s,
              (int)cases[k].want, e.text);
        if (s != CG_OK) {
            CHECK(strstr(e.text, "sealed") != NULL, "%s: the error says why: %s", cases[k].what,
                  e.text);
        } else {
            CHECK(ftruncate(keep, 0) != 0, "%s: the producer cannot shrink it", cases[k].what);
            CHECK(cg_zc_lease_load(&l, 1) == 0, "%s: slot 1 reads EMPTY", cases[k].what);
            cg_zc_control_free(&l);
        }
        close(keep);
    }
    /* Not a memfd at all: a directory. */
    int dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK(dir >= 0 && cg_zc_control_map(dir, 2, 0xabcdef, &l, &e) == CG_E_PROTOCOL,
          "a directory is refused: %s", e.text);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s descriptor3|refusals3|layout|parts|control\n", argv[0]);
        return 2;
    }
    const char *c = argv[1];
    if (strcmp(c, "descriptor3") == 0) return case_descriptor3();
    if (strcmp(c, "refusals3") == 0) return case_refusals3();
    if (strcmp(c, "layout") == 0) return case_layout();
    if (strcmp(c, "parts") == 0) return case_parts();
    if (strcmp(c, "control") == 0) return case_control();
    fprintf(stderr, "unknown case %s\n", c);
    return 2;
}
