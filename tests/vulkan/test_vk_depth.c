/*
 * test_vk_depth.c - the depth plane of the RGB slot format (cg_vk_depth.comp
 * through the ring's pass, cg_vk_rgb.h) on a real driver (lavapipe here),
 * with two eyes in one slot, the way the ring records a stereo RGB-D frame
 * (depth(0), colour(0), depth(1), colour(1): the first part acquires the
 * slot, the last releases it). Every depth plane is compared with a scalar
 * reference written here from docs/wire-format.md "Depth" (the formula in
 * double for the frame's zZeroToOne, then rounded to float) sampled by the
 * mapping of docs/zero-copy-v2/protocol.md ("The depth plane"): linear within 2
 * float ulps (the largest distance seen is printed), raw bit for bit. The
 * colour planes of both eyes must equal the CPU converter's RAW output
 * (cg_convert, rows reversed), so planes neither overlap nor move.
 *
 * Usage: test_vk_depth CASE   (one ctest per case; 77 = SKIPPED)
 *   linear  sizes 1x1 .. 1920x1080 (rgb_sweep.h: up, down, non-integer
 *           ratios), both flips, near/far 0.05/1000, 0.1/100, 1/2, 16/16.5,
 *           both zZeroToOne; depth content: reverse-Z scenes with a
 *           background of 0 (eye 0), and 0, 1, subnormals, values next to 1
 *           and random values of [0, 1] (eye 1); the source images cycle
 *           through the layouts a game keeps them in and come back unchanged
 *   raw     the same sizes and content, raw encoding: bit-exact
 *   quick   both encodings on the sizes under 100000 pixels (for the
 *           validation layer run)
 */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_frame.h"
#include "cg_vk_rgb.h"
#include "depth_ref.h"
#include "rgb_sweep.h"
#include "vkt.h"
#include "zc_test.h"

static int failures;
static vkt T;
static cg_vk_device VK;

#define SKIP 77
#ifndef DEPTH_MAX_ULP
#define DEPTH_MAX_ULP 2 /* the contract: within 2 float ulps of the double formula */
#endif

static const struct {
    float n, f;
} PLANES[] = {{0.05f, 1000.0f}, {0.1f, 100.0f}, {1.0f, 2.0f}, {16.0f, 16.5f}};

/* The slot's planes as docs/zero-copy-v2/protocol.md's example layout puts them
 * (the producer's choice; the test only needs offsets that are multiples
 * of 256 and do not overlap). */
typedef struct planes {
    uint64_t color_stride, depth_offset, depth_stride, bytes;
} planes;

static uint64_t up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

static planes layout_of(int w, int h)
{
    planes p;
    uint64_t px = (uint64_t)w * (uint64_t)h;
    p.color_stride = up(up(px * 3, 12), 256);
    p.depth_offset = 2 * p.color_stride;
    p.depth_stride = up(px * 4, 256);
    p.bytes = p.depth_offset + 2 * p.depth_stride;
    return p;
}

static void noise(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(depth_xorshift(&x) >> 11);
}

typedef struct sweep_stats {
    uint32_t max_ulp;
    uint64_t values, frames;
} sweep_stats;

/* Compare eye e's depth plane with the reference of `src` (the image's
 * rows, row 0 first). Returns the number of mismatches reported. */
static void check_depth(const sweep_size *z, int flip, const float *src, const uint8_t *slot,
                        const planes *pl, int eye, const cg_vk_depth_params *p, int z01,
                        sweep_stats *st)
{
    const uint8_t *plane = slot + pl->depth_offset + (uint64_t)eye * pl->depth_stride;
    int bad = 0;
    for (int y = 0; y < z->dh && bad < 3; y++)
        for (int x = 0; x < z->dw && bad < 3; x++) {
            size_t at = depth_source_index(x, y, z->sw, z->sh, z->dw, z->dh, flip);
            float d = src[at];
            float got;
            memcpy(&got, plane + ((size_t)y * (size_t)z->dw + (size_t)x) * 4, 4);
            st->values++;
            if (p->raw) {
                if (depth_bits(got) != depth_bits(d)) {
                    CHECK(0, "%dx%d -> %dx%d flip %d eye %d raw: (%d, %d) is 0x%08x, the image "
                          "holds 0x%08x at index %zu",
                          z->sw, z->sh, z->dw, z->dh, flip, eye, x, y, depth_bits(got), depth_bits(d),
                          at);
                    bad++;
                }
                continue;
            }
            float want = depth_reference(d, p->near_plane, p->far_plane, z01);
            uint32_t u = depth_ulps(got, want);
            if (u > st->max_ulp) st->max_ulp = u;
            if (u > DEPTH_MAX_ULP) {
                CHECK(0, "%dx%d -> %dx%d flip %d eye %d near %g far %g z01 %d: (%d, %d) of d = "
                      "%.9g (0x%08x) is %.9g, the formula says %.9g (%u ulps)",
                      z->sw, z->sh, z->dw, z->dh, flip, eye, (double)p->near_plane,
                      (double)p->far_plane, z01, x, y, (double)d, depth_bits(d), (double)got,
                      (double)want, u);
                bad++;
            }
        }
}

static void check_color(const sweep_size *z, int flip, const uint8_t *rgba, const uint8_t *slot,
                        const planes *pl, int eye, uint8_t *want)
{
    CHECK(rgb_oracle(rgba, z->sw, z->sh, z->dw, z->dh, flip, NULL, want) == 0, "oracle");
    size_t n = (size_t)z->dw * (size_t)z->dh * 3;
    const uint8_t *got = slot + (uint64_t)eye * pl->color_stride;
    if (memcmp(got, want, n) != 0) {
        size_t at = 0;
        while (got[at] == want[at]) at++;
        CHECK(0, "%dx%d -> %dx%d flip %d eye %d: colour byte %zu is %u, RAW says %u", z->sw, z->sh,
              z->dw, z->dh, flip, eye, at, got[at], want[at]);
    }
}

typedef struct frame_cfg {
    cg_vk_depth_params p;
    int z01;
} frame_cfg;

/* One pass per (size, flip); every frame configuration through it. */
static int sweep(int raw_too, int linear_too, size_t max_pixels, sweep_stats *st)
{
    static const VkImageLayout LAYOUTS[] = {
        VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
        VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
    frame_cfg cfg[1 + 2 * sizeof PLANES / sizeof PLANES[0]];
    int ncfg = 0;
    if (raw_too) cfg[ncfg++] = (frame_cfg){{1, 0.0f, 0.0f}, 0};
    for (size_t k = 0; linear_too && k < sizeof PLANES / sizeof PLANES[0]; k++)
        for (int z01 = 0; z01 < 2; z01++) cfg[ncfg++] = (frame_cfg){{0, PLANES[k].n, PLANES[k].f}, z01};
    for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; si++) {
        const sweep_size *z = &SIZES[si];
        size_t spx = (size_t)z->sw * (size_t)z->sh;
        if (spx > max_pixels) continue;
        planes pl = layout_of(z->dw, z->dh);
        float *depth[2] = {malloc(spx * 4), malloc(spx * 4)};
        uint8_t *rgba[2] = {malloc(spx * 4), malloc(spx * 4)};
        uint8_t *slot = malloc(pl.bytes), *want = malloc((size_t)z->dw * (size_t)z->dh * 3);
        float *back = malloc(spx * 4);
        if (!depth[0] || !depth[1] || !rgba[0] || !rgba[1] || !slot || !want || !back) return 1;
        for (int flip = 0; flip < 2; flip++) {
            VkImageLayout lay = LAYOUTS[(si + (size_t)flip) % 4];
            VkImageLayout clay = VK_IMAGE_LAYOUT_GENERAL;
            VkImage dimg[2], cimg[2];
            VkDeviceMemory dmem[2], cmem[2];
            VkBuffer buf;
            VkDeviceMemory bmem;
            depth_scene(depth[0], z->sw, z->sh, (uint32_t)(si * 2 + (size_t)flip));
            depth_edges(depth[1], spx, (uint32_t)(si * 2 + (size_t)flip));
            for (int e = 0; e < 2; e++) {
                noise(rgba[e], spx * 4, (uint32_t)(si * 4 + (size_t)flip * 2 + (size_t)e));
                CHECK(vkt_depth_image(&T, z->sw, z->sh, &dimg[e], &dmem[e]) == 0, "depth image");
                CHECK(vkt_upload_depth(&T, dimg[e], z->sw, z->sh, depth[e], lay) == 0, "upload depth");
                CHECK(vkt_image_ex(&T, z->sw, z->sh, VK_FORMAT_R8G8B8A8_UNORM,
                                   VK_IMAGE_USAGE_SAMPLED_BIT, -1, 0, &cimg[e], &cmem[e]) == 0,
                      "colour image");
                CHECK(vkt_upload(&T, cimg[e], z->sw, z->sh, rgba[e], clay) == 0, "upload colour");
            }
            CHECK(vkt_buffer(&T, pl.bytes, CG_VK_RGB_SLOT_USAGE, &buf, &bmem) == 0, "slot buffer");
            cg_vk_rgb_desc d;
            memset(&d, 0, sizeof d);
            d.vk = &VK;
            d.queue_family = T.qfam;
            d.format = VK_FORMAT_R8G8B8A8_UNORM;
            d.src_w = z->sw;
            d.src_h = z->sh;
            d.dst_w = z->dw;
            d.dst_h = z->dh;
            d.flip = flip;
            d.slots = 1;
            d.slot_buffers = &buf;
            d.eyes = 2;
            d.color_eye_stride = pl.color_stride;
            d.depth = 1;
            d.depth_offset = pl.depth_offset;
            d.depth_eye_stride = pl.depth_stride;
            cg_vk_rgb *g = NULL;
            cg_err e = {{0}};
            cg_status s = cg_vk_rgb_create(&d, &g, &e);
            CHECK(s == CG_OK, "create: %s", e.text);
            for (int k = 0; g && k < 2; k++) {
                CHECK(cg_vk_rgb_prepare_depth(g, dimg[k], &e) == CG_OK, "prepare depth: %s", e.text);
                CHECK(cg_vk_rgb_prepare(g, cimg[k], &e) == CG_OK, "prepare colour: %s", e.text);
            }
            int released = 0;
            for (int c = 0; g && c < ncfg; c++) {
                VKT_FN(&T, vkResetCommandBuffer)(T.cmd, 0);
                VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
                VKT_FN(&T, vkBeginCommandBuffer)(T.cmd, &bi);
                for (uint32_t eye = 0; eye < 2; eye++) {
                    unsigned first = eye == 0 && released ? CG_VK_PART_ACQUIRE : 0u;
                    cg_vk_rgb_record_depth(g, T.cmd, 0, eye, dimg[eye], lay, &cfg[c].p, first);
                    cg_vk_rgb_record_eye(g, T.cmd, 0, eye, cimg[eye], clay, NULL,
                                         eye == 1 ? CG_VK_PART_RELEASE : 0u);
                }
                CHECK(vkt_submit_wait(&T) == 0, "submit");
                released = 1;
                CHECK(vkt_read_buffer(&T, buf, pl.bytes, slot, 1) == 0, "read slot");
                for (int eye = 0; eye < 2; eye++) {
                    check_depth(z, flip, depth[eye], slot, &pl, eye, &cfg[c].p, cfg[c].z01, st);
                    if (c == 0) check_color(z, flip, rgba[eye], slot, &pl, eye, want);
                }
                st->frames++;
            }
            /* The depth images are the game's again, unchanged, in their layout. */
            for (int k = 0; g && k < 2 && spx <= 100000; k++) {
                CHECK(vkt_download_depth(&T, dimg[k], lay, z->sw, z->sh, back) == 0 &&
                          memcmp(back, depth[k], spx * 4) == 0,
                      "%dx%d: depth image %d unchanged", z->sw, z->sh, k);
            }
            cg_vk_rgb_destroy(g);
            vkt_buffer_free(&T, buf, bmem);
            for (int k = 0; k < 2; k++) {
                vkt_image_free(&T, dimg[k], dmem[k]);
                vkt_image_free(&T, cimg[k], cmem[k]);
            }
        }
        free(depth[0]);
        free(depth[1]);
        free(rgba[0]);
        free(rgba[1]);
        free(slot);
        free(want);
        free(back);
    }
    return failures ? 1 : 0;
}

/* Refusals of the pass: eyes, depth on a copy, depth calls without depth. */
static int bad_input(void)
{
    VkBuffer buf;
    VkDeviceMemory mem;
    CHECK(vkt_buffer(&T, 4096, CG_VK_RGB_SLOT_USAGE, &buf, &mem) == 0, "buffer");
    cg_vk_rgb_desc d;
    memset(&d, 0, sizeof d);
    d.vk = &VK;
    d.queue_family = T.qfam;
    d.format = VK_FORMAT_R8G8B8A8_UNORM;
    d.src_w = d.src_h = d.dst_w = d.dst_h = 8;
    d.slots = 1;
    d.slot_buffers = &buf;
    cg_vk_rgb *g = NULL;
    cg_err e = {{0}};
    d.eyes = 3;
    CHECK(cg_vk_rgb_create(&d, &g, &e) == CG_E_INVALID_ARG && !g, "3 eyes: %s", e.text);
    d.eyes = 1;
    d.copy = 1;
    d.depth = 1;
    CHECK(cg_vk_rgb_create(&d, &g, &e) == CG_E_INVALID_ARG && !g, "depth on a copy: %s", e.text);
    d.copy = 0;
    d.depth = 0;
    CHECK(cg_vk_rgb_create(&d, &g, &e) == CG_OK, "plain: %s", e.text);
    VkImage img;
    VkDeviceMemory im;
    CHECK(vkt_depth_image(&T, 8, 8, &img, &im) == 0, "depth image");
    CHECK(cg_vk_rgb_prepare_depth(g, img, &e) == CG_E_BAD_STATE, "depth without a depth plane: %s",
          e.text);
    cg_vk_rgb_destroy(g);
    vkt_image_free(&T, img, im);
    vkt_buffer_free(&T, buf, mem);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_vk_depth linear|raw|quick|bad_input\n");
        return 2;
    }
    const char *c = argv[1];
    char why[256] = "";
    int rc = vkt_init(&T, why, sizeof why);
    if (rc == VKT_SKIP) {
        printf("SKIP: %s\n", why);
        return SKIP;
    }
    if (rc) return 1;
    cg_vk_device_desc dd = {T.gipa, T.inst, T.phys, T.dev, T.has_debug_utils};
    cg_err e = {{0}};
    if (cg_vk_device_load(&VK, &dd, &e) != CG_OK) {
        fprintf(stderr, "device table: %s\n", e.text);
        return 1;
    }
    sweep_stats st = {0, 0, 0};
    if (strcmp(c, "linear") == 0) rc = sweep(0, 1, SIZE_MAX, &st);
    else if (strcmp(c, "raw") == 0) rc = sweep(1, 0, SIZE_MAX, &st);
    else if (strcmp(c, "quick") == 0) rc = sweep(1, 1, 100000, &st);
    else if (strcmp(c, "bad_input") == 0) rc = bad_input();
    else {
        fprintf(stderr, "unknown case %s\n", c);
        rc = 2;
    }
    if (st.frames) {
        printf("%llu frames, %llu depth values compared; max distance from the formula: %u ulp%s\n",
               (unsigned long long)st.frames, (unsigned long long)st.values, st.max_ulp,
               strcmp(c, "raw") == 0 ? " (raw: bit-exact checked)" : "");
        CHECK(st.frames >= 24, "the sweep ran (%llu frames)", (unsigned long long)st.frames);
    }
    vkt_fini(&T);
    if (rc == 0 && failures == 0) printf("PASS %s\n", c);
    return rc || failures ? 1 : 0;
}
