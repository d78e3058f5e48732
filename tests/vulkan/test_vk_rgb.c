/*
 * test_vk_rgb.c - the zero-copy ring's RGB slot format on a real driver
 * (lavapipe here): every slot the compute dispatch writes must equal,
 * byte for byte, the CPU converter's RAW output (cg_convert, the scalar
 * reference: an independent implementation) for the same frame, flip,
 * resize and cursor, with its rows reversed (RAW is bottom-up, the slot
 * upright; docs/zero-copy-v2/protocol.md, "The RGB slot format").
 *
 * Usage: test_vk_rgb CASE   (one ctest per case; 77 = SKIPPED)
 *   fence       the sweep (sizes, ratios, cursors, 4 formats, flip) in fence mode
 *   semaphore   the same sweep in semaphore mode, and recording reuse with a
 *               changing cursor (needs exportable timeline semaphores: the
 *               GPU machine; SKIPPED on lavapipe)
 *   exact       every byte value of every channel through texelFetch of a
 *               UNORM view (unorm8 -> float -> round(x * 255)) and of an
 *               SRGB view (decode, the shader's encode, round), which on
 *               lavapipe must pass the ring's probe (rgb_read VIEW)
 *   bad_input   refusals: slot format, target size, cursor on a copy ring,
 *               a ninth image; and the template descriptor (version 2)
 *   copy_fence  the compute copy of the RGBA slot formats (docs/zero-copy-v2/producer.md,
 *               "The compute copy"): sizes (1x1, 1xN, Nx1, odd, 640x360,
 *               1920x1080), the 4 formats, images with and without SAMPLED
 *               and image_usage 0: every slot equals the bytes uploaded into
 *               the image (what the transfer copy gives, checked the same
 *               way), and each compute slot also equals a transfer ring's
 *               slot of the same frame; the path reported is the one the
 *               rule picks (SRGB with SAMPLED: compute, its probe passing
 *               on lavapipe)
 *   copy_semaphore  the same in semaphore mode (SKIPPED on lavapipe)
 *   srgb_fallback  the probe of the SRGB decode forced to fail
 *               (cg_vk_rgb_fail_probe_for_tests): the RGB sweep, exact and
 *               the copy sweep again, SRGB rings now reporting the old path
 *               (rgb_read STAGING, copy_path TRANSFER, srgb_fallback says
 *               why) with the same bytes; and an RGB8 ring told a usage
 *               without SAMPLED keeps the staging copy
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg_frame.h"
#include "cg_vk_rgb.h" /* cg_vk_rgb_fail_probe_for_tests: internal, for tests */
#include "cg_vk_ring.h"
#include "cg_zc_proto.h"
#include "rgb_sweep.h"
#include "vkt.h"
#include "vkt_export.h"
#include "zc_test.h"

static int failures;
static vkt T;
static char socket_dir[] = "/tmp/cg-rgb-test-XXXXXX";

#define SKIP 77

static const VkFormat FORMATS[4] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM,
                                    VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_SRGB};

static int is_bgra(VkFormat f)
{
    return f == VK_FORMAT_B8G8R8A8_UNORM || f == VK_FORMAT_B8G8R8A8_SRGB;
}

static int is_srgb(VkFormat f)
{
    return f == VK_FORMAT_R8G8B8A8_SRGB || f == VK_FORMAT_B8G8R8A8_SRGB;
}

/* Set by srgb_fallback: every probe of an SRGB decode fails. */
static int probe_forced;

/* Does an SRGB ring's probe pass here? On lavapipe it must (its decode
 * round-trips every byte: what this change relies on); elsewhere the
 * ring's report decides and the bytes are checked either way. -1: either. */
static int probe_should_pass(void)
{
    if (probe_forced) return 0;
    return strstr(T.device_name, "llvmpipe") ? 1 : -1;
}

/* The report of an RGB8 ring of `fmt` (image_usage as told): how it reads
 * the image, and srgb_fallback set exactly when that is the staging copy. */
static void check_rgb_read(const cg_vk_ring_info *info, VkFormat fmt, int staging_told)
{
    int pass = probe_should_pass();
    int want = !is_srgb(fmt) ? CG_VK_RGB_READ_VIEW
               : staging_told || pass == 0 ? CG_VK_RGB_READ_STAGING
               : pass == 1 ? CG_VK_RGB_READ_VIEW : (int)info->rgb_read;
    CHECK((int)info->rgb_read == want, "format %d: rgb_read %d, want %d (%s)", (int)fmt,
          (int)info->rgb_read, want, info->srgb_fallback);
    CHECK((info->rgb_read == CG_VK_RGB_READ_STAGING) == (info->srgb_fallback[0] != 0),
          "format %d: srgb_fallback \"%s\" with rgb_read %d", (int)fmt, info->srgb_fallback,
          (int)info->rgb_read);
    if (pass == 0 && !staging_told && is_srgb(fmt))
        CHECK(strstr(info->srgb_fallback, "probe") != NULL, "the fallback names the probe: %s",
              info->srgb_fallback);
}

/* Deterministic bytes (xorshift32), alpha included: alpha must be dropped. */
static void noise(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)(x >> 11);
    }
}

/* The oracle: cg_convert (scalar reference, RAW: nearest, flip, cursor) of
 * the frame as R, G, B, A bytes, then the rows reversed. `stored` is what
 * the image holds (B, G, R, A for the BGRA formats). */
static int expected_slot(const uint8_t *stored, VkFormat fmt, int sw, int sh, int dw, int dh,
                         int flip, const cg_cursor *cur, uint8_t *out)
{
    size_t n = (size_t)sw * (size_t)sh * 4;
    uint8_t *rgba = malloc(n);
    if (!rgba) return 1;
    memcpy(rgba, stored, n);
    if (is_bgra(fmt))
        for (size_t i = 0; i < n; i += 4) {
            uint8_t t = rgba[i];
            rgba[i] = rgba[i + 2];
            rgba[i + 2] = t;
        }
    int rc = rgb_oracle(rgba, sw, sh, dw, dh, flip, cur, out);
    free(rgba);
    return rc;
}

/* What every ring of these tests shares: 2 slots, the test's socket dir. */
static cg_vk_ring_desc base_desc(VkFormat fmt, int sw, int sh, cg_zc_mode mode)
{
    cg_vk_ring_desc d = vkt_ring_desc(&T, sw, sh, mode);
    d.format = fmt;
    d.slots = 2;
    d.debug_utils = T.has_debug_utils;
    d.socket_dir = socket_dir;
    return d;
}

/* The ring of d (a failure counted) and its info (zeros without a ring). */
static cg_vk_ring *make_ring(const cg_vk_ring_desc *d, cg_vk_ring_info *info)
{
    cg_vk_ring *r = NULL;
    cg_err e = {{0}};
    CHECK(cg_vk_ring_create(d, &r, &e) == CG_OK, "create: %s", e.text);
    memset(info, 0, sizeof *info);
    if (r) cg_vk_ring_get_info(r, info);
    return r;
}

static cg_vk_ring_desc ring_desc(VkFormat fmt, int sw, int sh, int dw, int dh, int flip,
                                 cg_zc_mode mode)
{
    cg_vk_ring_desc d = base_desc(fmt, sw, sh, mode);
    d.slot_format = CG_VK_SLOT_RGB8;
    d.target_width = dw;
    d.target_height = dh;
    d.flip = flip;
    return d;
}

/* One frame through the ring (fence mode: recorded into the harness's
 * command buffer, submitted and waited as a game would), then the slot
 * read back. Returns the slot or -1. */
static int run_frame(cg_vk_ring *r, cg_zc_mode mode, VkImage img, VkImageLayout layout,
                     const cg_cursor *cur, uint8_t *desc)
{
    cg_status st;
    if (mode == CG_ZC_MODE_FENCE) {
        VKT_FN(&T, vkResetCommandBuffer)(T.cmd, 0);
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        VKT_FN(&T, vkBeginCommandBuffer)(T.cmd, &bi);
        st = cg_vk_ring_record_cursor(r, T.cmd, img, layout, cur, desc);
        CHECK(vkt_submit_wait(&T) == 0, "the game's submit");
    } else {
        st = cg_vk_ring_publish_cursor(r, img, layout, cur, desc);
        VKT_FN(&T, vkQueueWaitIdle)(T.queue);
    }
    if (st != CG_OK) {
        CHECK(0, "publish: %s: %s", cg_status_name(st), cg_vk_ring_last_error(r));
        return -1;
    }
    cg_zc_desc d;
    cg_err e = {{0}};
    if (cg_zc_desc_decode(desc, CG_ZC_DESC_SIZE, &d, &e) != CG_OK) {
        CHECK(0, "descriptor: %s", e.text);
        return -1;
    }
    /* The learner's side of the lease, so the slot can be written again. */
    cg_vk_ring_info info;
    cg_vk_ring_get_info(r, &info);
    CHECK(cg_zc_acquire(info.control, d.slot, d.frame, &e) == CG_OK, "acquire: %s", e.text);
    CHECK(cg_zc_release(info.control, d.slot, d.frame, &e) == CG_OK, "release: %s", e.text);
    return (int)d.slot;
}

/* One ring per (size, format, flip); every cursor through it. The source
 * image's layout cycles through those a game leaves an image in. */
static int sweep(cg_zc_mode mode, int reuse)
{
    static const VkImageLayout LAYOUTS[] = {
        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL};
    int frames = 0, configs = 0;
    for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; si++) {
        const sweep_size *z = &SIZES[si];
        int big = (size_t)z->sw * (size_t)z->sh > 100000;
        size_t src_bytes = (size_t)z->sw * (size_t)z->sh * 4;
        uint64_t slot_bytes = (uint64_t)z->dw * (uint64_t)z->dh * 3;
        uint8_t *stored = malloc(src_bytes);
        uint64_t groups_bytes = (slot_bytes + 11) / 12 * 12; /* the shader writes whole groups */
        uint8_t *want = malloc(slot_bytes), *got = malloc(groups_bytes);
        if (!stored || !want || !got) return 1;
        for (int fi = 0; fi < 4; fi++) {
            /* The 1080p sources: two formats (one per read path), both flips. */
            if (big && fi != 0 && fi != 3) continue;
            for (int flip = 0; flip < 2; flip++) {
                VkFormat fmt = FORMATS[fi];
                VkImageLayout lay = LAYOUTS[(si + (size_t)fi + (size_t)flip) % 4];
                noise(stored, src_bytes, (uint32_t)(si * 8 + (size_t)fi * 2 + (size_t)flip));
                VkImage img;
                VkDeviceMemory mem;
                if (vkt_image_ex(&T, z->sw, z->sh, fmt, VK_IMAGE_USAGE_SAMPLED_BIT, -1, 0, &img, &mem)) {
                    CHECK(0, "image %dx%d format %d", z->sw, z->sh, (int)fmt);
                    continue;
                }
                CHECK(vkt_upload(&T, img, z->sw, z->sh, stored, lay) == 0, "upload");
                cg_vk_ring_desc d = ring_desc(fmt, z->sw, z->sh, z->dw, z->dh, flip, mode);
                d.reuse_recordings = reuse;
                cg_vk_ring *r = NULL;
                cg_err e = {{0}};
                cg_status st = cg_vk_ring_create(&d, &r, &e);
                CHECK(st == CG_OK, "create: %s", e.text);
                if (st != CG_OK) {
                    vkt_image_free(&T, img, mem);
                    continue;
                }
                configs++;
                cg_vk_ring_info info;
                cg_vk_ring_get_info(r, &info);
                CHECK(info.format == 23 && info.width == (uint32_t)z->dw &&
                          info.height == (uint32_t)z->dh && info.row_pitch == (uint32_t)z->dw * 3,
                      "ring info: format 23, target size, pitch");
                check_rgb_read(&info, fmt, 0);
                cg_cursor cur[10];
                int nc = cursors(z->dw, z->dh, cur);
                if (big) nc = 2;
                /* With reuse, each cursor twice (the second submits the
                 * recorded commands again) and back to the first. */
                for (int k = 0; k < nc * (reuse ? 2 : 1) + (reuse ? 1 : 0); k++) {
                    const cg_cursor *c = &cur[reuse ? (k / 2) % nc : k];
                    uint8_t desc[CG_ZC_DESC_SIZE];
                    int slot = run_frame(r, mode, img, lay, c, desc);
                    if (slot < 0) break;
                    CHECK(vkt_read_buffer(&T, info.buffers[slot], groups_bytes, got, 1) == 0,
                          "read slot");
                    for (uint64_t b = slot_bytes; b < groups_bytes; b++)
                        CHECK(got[b] == 0, "tail byte %llu of the last group is %u, not 0",
                              (unsigned long long)b, got[b]);
                    CHECK(expected_slot(stored, fmt, z->sw, z->sh, z->dw, z->dh, flip, c, want) == 0,
                          "oracle");
                    frames++;
                    if (memcmp(got, want, slot_bytes) != 0) {
                        size_t at = 0;
                        while (got[at] == want[at]) at++;
                        size_t px = at / 3;
                        CHECK(0,
                              "%dx%d -> %dx%d format %d flip %d layout %d cursor (%d, %d, %d): "
                              "byte %zu (pixel x %zu, row %zu from the top) is %u, RAW says %u",
                              z->sw, z->sh, z->dw, z->dh, (int)fmt, flip, (int)lay, c->draw, c->x,
                              c->y, at, px % (size_t)z->dw, px / (size_t)z->dw, got[at], want[at]);
                    }
                }
                cg_vk_ring_destroy(r);
                /* The image is the game's again, unchanged, in its layout. */
                if (si < 3) {
                    uint8_t *back = malloc(src_bytes);
                    CHECK(back && vkt_download(&T, img, lay, z->sw, z->sh, back) == 0 &&
                              memcmp(back, stored, src_bytes) == 0,
                          "source image unchanged");
                    free(back);
                }
                vkt_image_free(&T, img, mem);
            }
        }
        free(stored);
        free(want);
        free(got);
    }
    printf("%d rings, %d frames compared byte for byte with cg_convert (RAW), %s mode%s%s\n",
           configs, frames, mode == CG_ZC_MODE_FENCE ? "fence" : "semaphore",
           reuse ? ", recordings reused" : "", probe_forced ? ", SRGB probe failed" : "");
    CHECK(frames > 100, "the sweep ran (%d frames)", frames);
    return failures ? 1 : 0;
}

/* Every byte value in every channel: 256x1, pixel i = (i, 255 - i, i ^ 0x5a,
 * i * 7), identity size, no flip, no cursor. The expected bytes are written
 * here, not computed by cg_convert: slot pixel i is (i, 255 - i, i ^ 0x5a). */
static int case_exact(void)
{
    uint8_t rgba[256 * 4], stored[256 * 4], got[256 * 3];
    for (int i = 0; i < 256; i++) {
        rgba[i * 4 + 0] = (uint8_t)i;
        rgba[i * 4 + 1] = (uint8_t)(255 - i);
        rgba[i * 4 + 2] = (uint8_t)(i ^ 0x5a);
        rgba[i * 4 + 3] = (uint8_t)(i * 7);
    }
    for (int fi = 0; fi < 4; fi++) {
        VkFormat fmt = FORMATS[fi];
        memcpy(stored, rgba, sizeof rgba);
        if (is_bgra(fmt))
            for (int i = 0; i < 256; i++) {
                stored[i * 4 + 0] = rgba[i * 4 + 2];
                stored[i * 4 + 2] = rgba[i * 4 + 0];
            }
        VkImage img;
        VkDeviceMemory mem;
        CHECK(vkt_image_ex(&T, 256, 1, fmt, VK_IMAGE_USAGE_SAMPLED_BIT, -1, 0, &img, &mem) == 0, "image");
        CHECK(vkt_upload(&T, img, 256, 1, stored, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL) == 0, "upload");
        cg_vk_ring_desc d = ring_desc(fmt, 256, 1, 0, 0, 0, CG_ZC_MODE_FENCE);
        cg_vk_ring *r = NULL;
        cg_err e = {{0}};
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "create (target 0x0 = the image's): %s", e.text);
        if (!r) continue;
        cg_vk_ring_info info;
        cg_vk_ring_get_info(r, &info);
        CHECK(info.width == 256 && info.height == 1, "target 0x0 means the image's size");
        check_rgb_read(&info, fmt, 0);
        uint8_t desc[CG_ZC_DESC_SIZE];
        int slot = run_frame(r, CG_ZC_MODE_FENCE, img, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                             NULL, desc);
        if (slot >= 0) {
            CHECK(vkt_read_buffer(&T, info.buffers[slot], sizeof got, got, 1) == 0, "read");
            int bad = 0;
            for (int i = 0; i < 256 && !bad; i++)
                if (got[i * 3] != i || got[i * 3 + 1] != 255 - i || got[i * 3 + 2] != (i ^ 0x5a)) {
                    CHECK(0, "format %d: value %d came back as %u %u %u", (int)fmt, i, got[i * 3],
                          got[i * 3 + 1], got[i * 3 + 2]);
                    bad = 1;
                }
        }
        cg_vk_ring_destroy(r);
        vkt_image_free(&T, img, mem);
    }
    return failures ? 1 : 0;
}

static int case_bad_input(void)
{
    cg_vk_ring *r = NULL;
    cg_err e = {{0}};
    cg_vk_ring_desc d = ring_desc(VK_FORMAT_R8G8B8A8_UNORM, 32, 16, 8, 4, 1, CG_ZC_MODE_FENCE);
    d.slot_format = (cg_vk_slot_format)7;
    CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_INVALID_ARG && !r, "slot format 7: %s", e.text);
    d = ring_desc(VK_FORMAT_R8G8B8A8_UNORM, 32, 16, -3, 4, 1, CG_ZC_MODE_FENCE);
    CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_INVALID_ARG, "target -3x4: %s", e.text);
    d = ring_desc(VK_FORMAT_R8G8B8A8_UNORM, 32, 16, 16385, 4, 1, CG_ZC_MODE_FENCE);
    CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_TOO_LARGE, "target 16385x4: %s", e.text);
    d = ring_desc(VK_FORMAT_R8G8B8A8_UNORM, 32, 16, 8, 0, 1, CG_ZC_MODE_FENCE);
    CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_INVALID_ARG, "target 8x0: %s", e.text);
    d = ring_desc(VK_FORMAT_R8G8B8A8_UNORM, 32, 16, 8, 4, 1, CG_ZC_MODE_FENCE);
    d.slot_format = CG_VK_SLOT_COPY;
    CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_INVALID_ARG && strstr(e.text, "RGB8"),
          "target size on a copy ring: %s", e.text);

    d.target_width = d.target_height = 0;
    CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_INVALID_ARG && strstr(e.text, "flip"),
          "flip on a copy ring: %s", e.text);
    /* A copy ring refuses a cursor; a plain publish still works. */
    d.flip = 0;
    CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "copy ring: %s", e.text);
    VkImage img[10];
    VkDeviceMemory mem[10];
    for (int i = 0; i < 10; i++)
        CHECK(vkt_image_ex(&T, 32, 16, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT, -1, 0,
                           &img[i], &mem[i]) == 0,
              "image %d", i);
    uint8_t pat[32 * 16 * 4];
    zc_pattern(pat, 32, 16, 1);
    for (int i = 0; i < 10; i++)
        CHECK(vkt_upload(&T, img[i], 32, 16, pat, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL) == 0, "upload");
    uint8_t desc[CG_ZC_DESC_SIZE];
    cg_cursor cur = {1, 2, 2};
    VKT_FN(&T, vkResetCommandBuffer)(T.cmd, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VKT_FN(&T, vkBeginCommandBuffer)(T.cmd, &bi);
    CHECK(cg_vk_ring_record_cursor(r, T.cmd, img[0], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, &cur,
                                   desc) == CG_E_INVALID_ARG &&
              strstr(cg_vk_ring_last_error(r), "RGB"),
          "cursor on a copy ring: %s", cg_vk_ring_last_error(r));
    cur.draw = 0;
    CHECK(cg_vk_ring_record_cursor(r, T.cmd, img[0], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, &cur,
                                   desc) == CG_OK,
          "cursor off on a copy ring: %s", cg_vk_ring_last_error(r));
    VKT_FN(&T, vkEndCommandBuffer)(T.cmd);
    cg_zc_desc dd;
    CHECK(cg_zc_desc_decode(desc, sizeof desc, &dd, &e) == CG_OK && dd.format == 37 &&
              desc[4] == 1,
          "a copy ring's descriptor stays version 1, format 37");
    cg_vk_ring_destroy(r);

    /* The RGB ring's template: version 2, format 23, target size, pitch w*3. */
    d = ring_desc(VK_FORMAT_R8G8B8A8_UNORM, 32, 16, 7, 3, 1, CG_ZC_MODE_FENCE);
    CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "RGB ring: %s", e.text);
    CHECK(cg_vk_ring_template(r, desc, sizeof desc) == CG_OK, "template");
    CHECK(desc[4] == 2 && desc[8] == 23 && desc[12] == 7 && desc[16] == 3 && desc[20] == 21 &&
              desc[68] == 0,
          "template bytes: version 2, format 23, 7x3, pitch 21, flags 0");
    cg_vk_ring_info info;
    cg_vk_ring_get_info(r, &info);
    CHECK(info.slot_size >= 7 * 3 * 3 + 3, "slot holds whole 12-byte groups (%llu bytes)",
          (unsigned long long)info.slot_size);
    /* Eight images are fine, the ninth is refused without consuming a frame. */
    for (int i = 0; i < 8; i++)
        CHECK(run_frame(r, CG_ZC_MODE_FENCE, img[i], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, NULL,
                        desc) >= 0,
              "image %d", i);
    VKT_FN(&T, vkResetCommandBuffer)(T.cmd, 0);
    VKT_FN(&T, vkBeginCommandBuffer)(T.cmd, &bi);
    CHECK(cg_vk_ring_record_cursor(r, T.cmd, img[8], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, NULL,
                                   desc) == CG_E_INVALID_ARG &&
              strstr(cg_vk_ring_last_error(r), "at most 8"),
          "ninth image: %s", cg_vk_ring_last_error(r));
    VKT_FN(&T, vkEndCommandBuffer)(T.cmd);
    CHECK(run_frame(r, CG_ZC_MODE_FENCE, img[3], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, NULL, desc) >= 0,
          "a known image still works after the refusal");
    CHECK(cg_zc_desc_decode(desc, sizeof desc, &dd, &e) == CG_OK && dd.frame == 9,
          "the refused frame consumed no frame number (frame %llu)", (unsigned long long)dd.frame);
    cg_vk_ring_destroy(r);
    for (int i = 0; i < 10; i++) vkt_image_free(&T, img[i], mem[i]);
    return failures ? 1 : 0;
}

/* ---- the compute copy ------------------------------------------------------ */

/* How the ring is told about the image (copy_sweep). */
typedef struct copy_usage {
    VkImageUsageFlags image_extra; /* added to vkt_image's TRANSFER_SRC|DST|COLOR_ATTACHMENT */
    int tell;                      /* image_usage = the image's real usage; 0: image_usage 0 */
    const char *name;
} copy_usage;

static const VkImageUsageFlags VKT_USAGE = VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                           VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                           VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;

/* One ring on one image: two frames with different contents, the image in
 * a different layout each time; each slot is compared with the bytes put
 * into the image and, when the ring took the compute copy, with the slot a
 * transfer ring (image_usage 0) writes from the same frame. The path it
 * reports must be want_path (-1: either, the probe's choice). */
static int copy_ring(cg_zc_mode mode, int w, int h, VkFormat fmt, const copy_usage *u,
                     uint32_t seed, int want_path, uint8_t *stored, uint8_t *got)
{
    static const VkImageLayout LAYOUTS[] = {
        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL};
    size_t n = (size_t)w * (size_t)h * 4;
    VkImage img;
    VkDeviceMemory mem;
    if (vkt_image_ex(&T, w, h, fmt, u->image_extra, -1, 0, &img, &mem)) {
        CHECK(0, "image %dx%d format %d", w, h, (int)fmt);
        return 0;
    }
    cg_vk_ring_desc d = base_desc(fmt, w, h, mode);
    d.image_usage = u->tell ? VKT_USAGE | u->image_extra : 0;
    cg_vk_ring_info info;
    cg_vk_ring *r = make_ring(&d, &info);
    cg_err e = {{0}};
    int frames = 0;
    CHECK(!r || want_path < 0 || (int)info.copy_path == want_path,
          "%dx%d format %d, %s: path %d, the rule says %d (%s)", w, h, (int)fmt, u->name,
          (int)info.copy_path, want_path, info.srgb_fallback);
    /* Only an SRGB ring that wanted the compute copy and fell back says why. */
    int fell_back = r && is_srgb(fmt) && u->tell && (u->image_extra & VK_IMAGE_USAGE_SAMPLED_BIT) &&
                    info.copy_path == CG_VK_COPY_PATH_TRANSFER;
    CHECK(!r || (info.srgb_fallback[0] != 0) == fell_back, "format %d, %s: srgb_fallback \"%s\"",
          (int)fmt, u->name, r ? info.srgb_fallback : "");
    /* The plain transfer copy of the same frames, beside a compute ring. */
    cg_vk_ring *twin = NULL;
    cg_vk_ring_info tinfo;
    uint8_t *tgot = NULL;
    if (r && info.copy_path == CG_VK_COPY_PATH_COMPUTE) {
        d.image_usage = 0;
        twin = make_ring(&d, &tinfo);
        CHECK(!twin || tinfo.copy_path == CG_VK_COPY_PATH_TRANSFER, "the twin's path is transfer");
        tgot = malloc(n);
        CHECK(tgot != NULL, "memory");
    }
    for (int f = 0; r && f < 2; f++) {
        VkImageLayout lay = LAYOUTS[(seed + (uint32_t)f) % 4];
        if (lay == VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL && !(u->image_extra & VK_IMAGE_USAGE_SAMPLED_BIT))
            lay = VK_IMAGE_LAYOUT_GENERAL; /* a layout the image may be in */
        noise(stored, n, seed * 2 + (uint32_t)f);
        CHECK(vkt_upload(&T, img, w, h, stored, lay) == 0, "upload");
        uint8_t desc[CG_ZC_DESC_SIZE];
        int slot = run_frame(r, mode, img, lay, NULL, desc);
        if (slot < 0) break;
        cg_zc_desc dd;
        CHECK(cg_zc_desc_decode(desc, sizeof desc, &dd, &e) == CG_OK && dd.format == (uint32_t)fmt &&
                  dd.width == (uint32_t)w && dd.height == (uint32_t)h &&
                  dd.row_pitch == (uint32_t)w * 4 && dd.flags == 0 && desc[4] == 1,
              "descriptor: version 1, format %d, %dx%d, pitch w*4, flags 0", (int)fmt, w, h);
        memset(got, 0xee, n);
        CHECK(vkt_read_buffer(&T, info.buffers[slot], n, got, 1) == 0, "read slot");
        frames++;
        if (memcmp(got, stored, n) != 0) {
            size_t at = 0;
            while (got[at] == stored[at]) at++;
            CHECK(0, "%dx%d format %d %s path %d layout %d: byte %zu (x %zu, row %zu) is %u, "
                     "the image holds %u",
                  w, h, (int)fmt, u->name, (int)info.copy_path, (int)lay, at,
                  at / 4 % (size_t)w, at / 4 / (size_t)w, got[at], stored[at]);
        }
        if (twin && tgot && (slot = run_frame(twin, mode, img, lay, NULL, desc)) >= 0) {
            memset(tgot, 0x11, n);
            CHECK(vkt_read_buffer(&T, tinfo.buffers[slot], n, tgot, 1) == 0, "read twin slot");
            CHECK(memcmp(got, tgot, n) == 0,
                  "%dx%d format %d %s layout %d: the compute copy differs from the transfer copy",
                  w, h, (int)fmt, u->name, (int)lay);
        }
        /* The image is the game's again, unchanged, in its layout. */
        if (n <= 64 * 48 * 4) {
            CHECK(vkt_download(&T, img, lay, w, h, got) == 0 && memcmp(got, stored, n) == 0,
                  "source image unchanged");
        }
    }
    cg_vk_ring_destroy(twin);
    free(tgot);
    cg_vk_ring_destroy(r);
    vkt_image_free(&T, img, mem);
    return frames;
}

static int copy_sweep(cg_zc_mode mode)
{
    static const struct { int w, h; } SZ[] = {
        {1, 1}, {1, 37}, {37, 1}, {7, 5}, {13, 11}, {65, 3}, {64, 48}, {641, 359}, {640, 360},
        {1920, 1080},
    };
    static const copy_usage USAGES[] = {
        {VK_IMAGE_USAGE_SAMPLED_BIT, 1, "SAMPLED told"},
        {0, 1, "no SAMPLED"},
        {VK_IMAGE_USAGE_SAMPLED_BIT, 0, "usage unknown (0)"},
    };
    int frames = 0, compute = 0, srgb_compute = 0;
    for (size_t si = 0; si < sizeof SZ / sizeof SZ[0]; si++) {
        int w = SZ[si].w, h = SZ[si].h;
        size_t n = (size_t)w * (size_t)h * 4;
        uint8_t *stored = malloc(n), *got = malloc(n);
        if (!stored || !got) return 1;
        int big = n > 1000000;
        for (int fi = 0; fi < 4; fi++)
            for (size_t ui = 0; ui < sizeof USAGES / sizeof USAGES[0]; ui++) {
                /* 1080p: the four formats with SAMPLED told (compute, or the
                 * SRGB fallback), and without SAMPLED (transfer) but 50. */
                if (big && (ui == 2 || (fi == 3 && ui == 1))) continue;
                VkFormat fmt = FORMATS[fi];
                int sampled = USAGES[ui].tell && (USAGES[ui].image_extra & VK_IMAGE_USAGE_SAMPLED_BIT);
                int pass = is_srgb(fmt) ? probe_should_pass() : 1;
                int want = !sampled ? 0 : pass < 0 ? -1 : pass;
                int k = copy_ring(mode, w, h, fmt, &USAGES[ui], (uint32_t)(si * 16 + (size_t)fi * 4 + ui),
                                  want, stored, got);
                frames += k;
                if (want == 1) compute += k;
                if (want == 1 && is_srgb(fmt)) srgb_compute += k;
            }
        free(stored);
        free(got);
    }
    printf("%d frames (%d by the compute copy, %d of them SRGB) equal to the image's bytes, %s "
           "mode%s\n",
           frames, compute, srgb_compute, mode == CG_ZC_MODE_FENCE ? "fence" : "semaphore",
           probe_forced ? ", SRGB probe failed" : "");
    CHECK(frames > 200 && compute >= 40, "the sweep ran (%d frames, %d compute)", frames, compute);
    CHECK(probe_should_pass() != 1 || srgb_compute >= 40, "SRGB by the compute copy: %d frames",
          srgb_compute);
    return failures ? 1 : 0;
}

/* An RGB8 ring of an SRGB image told a usage without SAMPLED: the staging
 * copy (reported), and every byte value through it exact. */
static int rgb_told_no_sampled(void)
{
    for (int fi = 2; fi < 4; fi++) {
        VkFormat fmt = FORMATS[fi];
        int w = 37, h = 23;
        uint8_t stored[37 * 23 * 4], want[37 * 23 * 3], got[37 * 23 * 3 + 12];
        noise(stored, sizeof stored, (uint32_t)fi);
        VkImage img;
        VkDeviceMemory mem;
        CHECK(vkt_image_ex(&T, w, h, fmt, VK_IMAGE_USAGE_SAMPLED_BIT, -1, 0, &img, &mem) == 0, "image");
        CHECK(vkt_upload(&T, img, w, h, stored, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL) == 0, "upload");
        cg_vk_ring_desc d = ring_desc(fmt, w, h, w, h, 1, CG_ZC_MODE_FENCE);
        d.image_usage = VKT_USAGE; /* the staging copy's TRANSFER_SRC, no SAMPLED */
        cg_vk_ring_info info;
        cg_vk_ring *r = make_ring(&d, &info);
        if (!r) {
            vkt_image_free(&T, img, mem);
            continue;
        }
        check_rgb_read(&info, fmt, 1);
        CHECK(strstr(info.srgb_fallback, "SAMPLED") != NULL, "the reason names SAMPLED: %s",
              info.srgb_fallback);
        uint8_t desc[CG_ZC_DESC_SIZE];
        int slot = run_frame(r, CG_ZC_MODE_FENCE, img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, NULL, desc);
        /* The slot holds whole 12-byte groups. */
        CHECK(slot >= 0 && vkt_read_buffer(&T, info.buffers[slot], (sizeof want + 11) / 12 * 12, got,
                                           1) == 0,
              "read");
        CHECK(expected_slot(stored, fmt, w, h, w, h, 1, NULL, want) == 0, "oracle");
        CHECK(memcmp(got, want, sizeof want) == 0, "format %d told no SAMPLED: the slot differs from RAW",
              (int)fmt);
        cg_vk_ring_destroy(r);
        vkt_image_free(&T, img, mem);
    }
    return failures ? 1 : 0;
}

/* Every probe fails (the internal hook): the old paths, reported, with the
 * same bytes as before. */
static int case_srgb_fallback(void)
{
    int rc = rgb_told_no_sampled();
    cg_vk_rgb_fail_probe_for_tests(1);
    probe_forced = 1;
    rc |= sweep(CG_ZC_MODE_FENCE, 0) | case_exact() | copy_sweep(CG_ZC_MODE_FENCE);
    cg_vk_rgb_fail_probe_for_tests(0);
    probe_forced = 0;
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_vk_rgb fence|semaphore|exact|bad_input|copy_fence|copy_semaphore|"
                        "srgb_fallback\n");
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
    if (!mkdtemp(socket_dir)) return 1;
    if ((strcmp(c, "semaphore") == 0 || strcmp(c, "copy_semaphore") == 0) &&
        !(T.has_sem_fd && T.has_timeline)) {
        printf("SKIP: %s has no exportable timeline semaphores (semaphore mode)\n", T.device_name);
        vkt_ring_fini(&T);
        rmdir(socket_dir);
        return SKIP;
    }
    if (strcmp(c, "fence") == 0) rc = sweep(CG_ZC_MODE_FENCE, 0);
    else if (strcmp(c, "semaphore") == 0) rc = sweep(CG_ZC_MODE_SEMAPHORE, 0) | sweep(CG_ZC_MODE_SEMAPHORE, 1);
    else if (strcmp(c, "exact") == 0) rc = case_exact();
    else if (strcmp(c, "bad_input") == 0) rc = case_bad_input();
    else if (strcmp(c, "copy_fence") == 0) rc = copy_sweep(CG_ZC_MODE_FENCE);
    else if (strcmp(c, "copy_semaphore") == 0) rc = copy_sweep(CG_ZC_MODE_SEMAPHORE);
    else if (strcmp(c, "srgb_fallback") == 0) rc = case_srgb_fallback();
    else {
        fprintf(stderr, "unknown case %s\n", c);
        rc = 2;
    }
    vkt_ring_fini(&T);
    rmdir(socket_dir);
    if (rc == 0 && failures == 0) printf("PASS %s\n", c);
    return rc || failures ? 1 : 0;
}
