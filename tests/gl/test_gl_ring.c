/*
 * test_gl_ring.c - the GL producer of zero-copy v2 (cg_gl_ring.h) on a real
 * GL + Vulkan pair: Mesa llvmpipe (EGL) and lavapipe here, whose
 * GL_DEVICE_UUID_EXT and deviceUUID agree ("mesa<version>"), and the
 * NVIDIA driver on the GPU machine.
 *
 * Usage: test_gl_ring CASE LEARNER   or   test_gl_ring serve ... (below)
 *   LEARNER: test_zc_ring's path; `LEARNER child-vk-learner <hex desc>...`
 *   is a second process that connects to the ring's socket, imports every
 *   slot's fd through Vulkan, and compares each frame byte for byte with
 *   zc_pattern(frame) (tests/vulkan/zc_test.h), computed by formula.
 * Cases (one ctest each, 77 = SKIPPED with the reason):
 *   frames       publish through the auto-picked mode (fence on llvmpipe),
 *                frames across every slot read by the learner, lease
 *                states (all held -> skipped frame, a released slot taken),
 *                the caller's GL state unchanged, descriptor fields
 *   semaphore    forced semaphore mode (GL_EXT_semaphore_fd; GPU machine):
 *                the ring's timeline reaches each frame's value, then the
 *                learner reads it (GL -> binary semaphore -> bridge submit)
 *   timeline     the same with GL signalling the timeline itself
 *                (GL_NV_timeline_semaphore)
 *   bad_input    no context, bad sizes/modes/slots, no Vulkan loader, bad
 *                textures, another context, publish without a context
 *   lifecycle    a window resize as a GL game does it (no Vulkan instance
 *                of the test's own): destroy + create at new sizes three
 *                times and after a create that failed past the Vulkan
 *                device, the game's context current, made current again
 *                and drawing after each; destroy off the ring's context
 *                refused with the ring kept
 *   uuid         the device rule: a match picks its index, no match is
 *                CG_E_NO_DEVICE naming both sides
 *   no_memory_object  GL without GL_EXT_memory_object_fd (hidden with
 *                Mesa's MESA_EXTENSION_OVERRIDE): CG_E_UNSUPPORTED naming it
 *   rgb          the RGB slot format (fence mode): for many texture and
 *                target sizes and cursor positions every slot equals the
 *                CPU converter's RAW output (cg_convert, scalar) with its
 *                rows reversed, read back from the slot's GL buffer; three
 *                frames also through the learner process (ZC_LEARNER_DUMP);
 *                every GL state the dispatch touches unchanged
 *   rgb_semaphore  the same in semaphore mode (GPU machine)
 *   rgb_bad_input  bad target sizes and formats, a cursor on a copying
 *                ring, a texture that is not 8-bit RGBA
 *   rgb_ext         GL 4.2 + GL_ARB_compute_shader (MESA_GL_VERSION_OVERRIDE): the rgb
 *                sweep through the shader's extension form
 *   rgb_no_compute  GL 4.2 without GL_ARB_compute_shader (Mesa's overrides): CG_E_UNSUPPORTED
 *                naming GL 4.3; a copy ring told GL_RGBA8 falls back to glReadPixels
 *   copy         the compute copy (docs/zero-copy-v2/producer.md, "The compute copy"):
 *                sizes 1x1 .. 1920x1080 (1xN, Nx1, odd), a ring told GL_RGBA8
 *                (compute) and one told nothing (glReadPixels) on the same
 *                texture: every slot equals the uploaded bytes in GL's row
 *                order, descriptor the same (format 37, ROWS_BOTTOM_UP); an
 *                sRGB texture refused by the compute ring, kept by the other
 */
#define _GNU_SOURCE
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg_egl_headless.h"
#include "cg_frame.h"
#include "cg_gl.h"
#include "cg_gl_check.h"
#include "cg_gl_ring.h"
#include "cg_zc_server.h"
#include "gl_scene.h"
#include "gl_state.h"
#include "depth_check.h"
#include "rgb_sweep.h"
#include "zc_test.h"

#define SKIP 77

extern char **environ;
static int failures;
static const char *learner_exe;
static char test_dir[96];

/* The learner process on n descriptors of lens[i] bytes each (192 or 256). */
static int spawn_learner(int n, const uint8_t *const *descs, const size_t *lens)
{
    static char hex[8][2 * CG_ZC_DESC_MAX_SIZE + 1];
    char *argv[12];
    argv[0] = (char *)learner_exe;
    argv[1] = "child-vk-learner";
    for (int i = 0; i < n && i < 8; i++) {
        for (size_t k = 0; k < lens[i]; k++) sprintf(hex[i] + 2 * k, "%02x", descs[i][k]);
        argv[2 + i] = hex[i];
    }
    argv[2 + (n < 8 ? n : 8)] = NULL;
    pid_t pid;
    if (posix_spawn(&pid, learner_exe, NULL, NULL, argv, environ) != 0) return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int run_learner(int n, uint8_t descs[][CG_ZC_DESC_SIZE])
{
    const uint8_t *d[8];
    size_t lens[8];
    for (int i = 0; i < n && i < 8; i++) {
        d[i] = descs[i];
        lens[i] = CG_ZC_DESC_SIZE;
    }
    return spawn_learner(n, d, lens);
}

/* Upload frame f of the pattern into the texture: row 0 of the data is GL's
 * row 0 (the bottom), which the ring keeps first. */
static void upload(unsigned tex, int w, int h, int f)
{
    uint8_t *px = malloc((size_t)w * h * 4);
    zc_pattern(px, w, h, f);
    CHECK(gl_scene_upload(tex, w, h, px) == 0, "upload frame %d", f);
    free(px);
}

static cg_gl_ring_desc ring_desc(int w, int h, int mode)
{
    cg_gl_ring_desc d;
    memset(&d, 0, sizeof d);
    d.width = w;
    d.height = h;
    d.mode = mode;
    d.socket_dir = test_dir;
    return d;
}

static int publish_frame(cg_gl_ring *r, unsigned tex, int w, int h, int f, uint8_t *desc)
{
    upload(tex, w, h, f);
    return (int)cg_gl_ring_publish(r, tex, desc);
}

/* A scene and a ring of its size; *st gets create's status (e.text: why). */
static cg_gl_ring *open_ring(gl_scene *sc, int w, int h, int mode, cg_gl_ring_signal signal,
                             cg_status *st, cg_err *e, cg_gl_ring_info *gi, cg_vk_ring_info *vi)
{
    CHECK(gl_scene_create(sc, w, h) == 0, "scene");
    cg_gl_ring *r = NULL;
    cg_gl_ring_desc d = ring_desc(w, h, mode);
    d.signal = signal;
    /* A slot whose bridge submit is still in flight is waited for (polled),
     * not skipped; all slots held still skips, after this long. */
    d.wait_ns = 100000000u;
    *st = cg_gl_ring_create(&d, &r, e);
    if (!r) return NULL;
    cg_gl_ring_get_info(r, gi);
    cg_gl_ring_get_ring_info(r, vi);
    return r;
}

/* Semaphore mode: the learner's GPU wait for frame `value`, done on the host
 * here through the ring's own device. Fence mode: complete already. */
static int wait_frame(const cg_gl_ring_info *gi, const cg_vk_ring_info *vi, uint64_t value)
{
    if (gi->mode != CG_ZC_MODE_SEMAPHORE) return 1;
    PFN_vkWaitSemaphores wait =
        (PFN_vkWaitSemaphores)gi->get_device_proc_addr(gi->device, "vkWaitSemaphores");
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wi.semaphoreCount = 1;
    wi.pSemaphores = &vi->semaphore;
    wi.pValues = &value;
    return wait && wait(gi->device, &wi, 5000000000ull) == VK_SUCCESS;
}

/* Destroy the ring; the game's context must still be current afterwards
 * (NVIDIA's vkDestroyInstance drops it unless the ring restores it). */
static void destroy_keeps_context(cg_gl_ring *r)
{
    void *before = cg_gl_current_key();
    cg_gl_ring_destroy(r);
    CHECK(before && cg_gl_current_key() == before,
          "the game's GL context is still current after destroy");
    if (cg_gl_current_key() != before) exit(1); /* no GL call can follow */
}

static int case_frames(void)
{
    const int w = 37, h = 23;
    gl_scene sc;
    cg_err e = {{0}};
    cg_status st;
    cg_gl_ring_info gi;
    cg_vk_ring_info vi;
    cg_gl_ring *r = open_ring(&sc, w, h, CG_GL_RING_MODE_AUTO, CG_GL_RING_SIGNAL_BRIDGE, &st, &e, &gi, &vi);
    CHECK(st == CG_OK, "create: %s %s", cg_status_name(st), e.text);
    if (!r) return 1;
    printf("gl ring on %s, %s mode\n", gi.device_name,
           gi.mode == CG_ZC_MODE_SEMAPHORE ? "semaphore" : "fence");
    CHECK(vi.slots == 3 && vi.row_pitch == (uint32_t)w * 4 && vi.slot_size >= (uint64_t)w * h * 4,
          "info: %u slots, pitch %u", vi.slots, vi.row_pitch);
    uint8_t tmpl[CG_ZC_DESC_SIZE];
    cg_zc_desc dd;
    CHECK(cg_gl_ring_template(r, tmpl, sizeof tmpl) == CG_OK &&
              cg_zc_desc_decode(tmpl, sizeof tmpl, &dd, &e) == CG_OK && dd.frame == 0 &&
              dd.width == (uint32_t)w && dd.height == (uint32_t)h && dd.format == 37,
          "template");

    /* The caller's state, far from the defaults, must survive a publish. */
    GLuint fbo = 0, pbo = 0, other_tex = 0;
    glGenFramebuffers(1, &fbo);
    glGenBuffers(1, &pbo);
    glGenTextures(1, &other_tex);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, sc.fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pbo);
    glBindTexture(GL_TEXTURE_2D, other_tex);
    glPixelStorei(GL_PACK_ALIGNMENT, 8);
    glPixelStorei(GL_PACK_ROW_LENGTH, 101);
    glPixelStorei(GL_PACK_SKIP_ROWS, 3);
    glPixelStorei(GL_PACK_SKIP_PIXELS, 5);
    glPixelStorei(GL_PACK_SWAP_BYTES, GL_TRUE);
    glPixelStorei(GL_PACK_IMAGE_HEIGHT, 7);
    glPixelStorei(GL_PACK_SKIP_IMAGES, 2);
    glClampColor(GL_CLAMP_READ_COLOR, GL_TRUE);
    gl_state before, after;
    read_state(&before);

    /* Frames 1..3: one per slot, read by a second process. */
    uint8_t descs[4][CG_ZC_DESC_SIZE];
    for (int f = 1; f <= 3; f++) {
        CHECK(publish_frame(r, sc.color, w, h, f, descs[f - 1]) == CG_OK, "frame %d: %s", f,
              cg_gl_ring_last_error(r));
        read_state(&after);
        for (int i = 0; i < 12; i++)
            CHECK(after.v[i] == before.v[i], "frame %d: GL state %d is %d, was %d", f, i,
                  after.v[i], before.v[i]);
        CHECK(glGetError() == GL_NO_ERROR, "no GL error left behind");
    }
    for (int f = 1; f <= 3; f++) {
        CHECK(cg_zc_desc_decode(descs[f - 1], CG_ZC_DESC_SIZE, &dd, &e) == CG_OK, "decode: %s",
              e.text);
        CHECK(dd.frame == (uint64_t)f && dd.slot == (uint32_t)(f - 1) && dd.mode == (uint32_t)gi.mode &&
                  dd.width == (uint32_t)w && dd.row_pitch == (uint32_t)w * 4 &&
                  strcmp(dd.socket_path, vi.socket_path) == 0 && dd.ring_id == vi.ring_id &&
                  memcmp(dd.device_uuid, gi.device_uuid, 16) == 0 &&
                  dd.flags == CG_ZC_FLAG_ROWS_BOTTOM_UP && descs[f - 1][4] == 2 &&
                  descs[f - 1][68] == 1,
              "descriptor of frame %d (version 2, flags 1 at offset 68: rows bottom-up)", f);
    }
    CHECK(wait_frame(&gi, &vi, 3), "frame 3 complete");
    CHECK(run_learner(3, descs) == 0, "learner process: frames 1..3 byte-exact");
    for (uint32_t i = 0; i < 3; i++)
        CHECK(CG_ZC_WORD_STATE(cg_zc_lease_load(vi.control, i)) == CG_ZC_RELEASED,
              "slot %u RELEASED by the learner", i);

    /* Every slot held (acquired here, as a learner would): skip at once. */
    uint8_t d4[CG_ZC_DESC_SIZE];
    for (int f = 4; f <= 6; f++) {
        CHECK(publish_frame(r, sc.color, w, h, f, d4) == CG_OK, "frame %d", f);
        cg_zc_desc_decode(d4, sizeof d4, &dd, &e);
        CHECK(cg_zc_acquire(vi.control, dd.slot, dd.frame, &e) == CG_OK, "acquire %d: %s", f, e.text);
    }
    CHECK(publish_frame(r, sc.color, w, h, 7, d4) == CG_E_RING_FULL, "all held: skipped");
    CHECK(strstr(cg_gl_ring_last_error(r), "skipped") != NULL, "%s", cg_gl_ring_last_error(r));
    /* Frame 5's slot released: the next frame (7 again) goes there. */
    cg_zc_desc_decode(d4, sizeof d4, &dd, &e);
    uint32_t slot5 = 1; /* frames 4, 5, 6 went to slots 0, 1, 2 */
    CHECK(cg_zc_release(vi.control, slot5, 5, &e) == CG_OK, "release frame 5: %s", e.text);
    CHECK(publish_frame(r, sc.color, w, h, 7, descs[0]) == CG_OK, "after release: %s",
          cg_gl_ring_last_error(r));
    cg_zc_desc_decode(descs[0], CG_ZC_DESC_SIZE, &dd, &e);
    CHECK(dd.slot == slot5 && dd.frame == 7, "frame 7 in the released slot (slot %u frame %llu)",
          dd.slot, (unsigned long long)dd.frame);
    CHECK(CG_ZC_WORD_STATE(cg_zc_lease_load(vi.control, 0)) == CG_ZC_ACTIVE &&
              CG_ZC_WORD_FRAME(cg_zc_lease_load(vi.control, 0)) == 4,
          "a held slot is never written: slot 0 still holds frame 4");
    cg_zc_release(vi.control, 0, 4, &e);
    cg_zc_release(vi.control, 2, 6, &e);
    /* Frames 7 and 8 through a new learner process (the old one left). */
    CHECK(publish_frame(r, sc.color, w, h, 8, descs[1]) == CG_OK, "frame 8");
    CHECK(wait_frame(&gi, &vi, 8), "frame 8 complete");
    CHECK(run_learner(2, descs) == 0, "learner process: frames 7, 8 byte-exact");
    read_state(&after);
    CHECK(memcmp(&after, &before, sizeof after) == 0, "GL state unchanged after every publish");
    CHECK(!zc_libcuda_mapped(), "no libcuda in the game process");

    destroy_keeps_context(r);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glDeleteFramebuffers(1, &fbo);
    glDeleteBuffers(1, &pbo);
    glDeleteTextures(1, &other_tex);
    gl_scene_destroy(&sc);
    return failures ? 1 : 0;
}

static int case_semaphore(cg_gl_ring_signal signal)
{
    const char *name = signal == CG_GL_RING_SIGNAL_GL_TIMELINE ? "gl_ring_timeline" : "gl_ring_semaphore";
    const char *ext = signal == CG_GL_RING_SIGNAL_GL_TIMELINE ? "GL_NV_timeline_semaphore" : "GL_EXT_semaphore_fd";
    if (!epoxy_has_gl_extension("GL_EXT_semaphore_fd") || !epoxy_has_gl_extension(ext)) {
        printf("SKIP %s: this GL (%s) lacks %s; the GPU machine runs it\n", name,
               (const char *)glGetString(GL_RENDERER), ext);
        return SKIP;
    }
    const int w = 64, h = 48;
    gl_scene sc;
    cg_err e = {{0}};
    cg_status st;
    cg_gl_ring_info gi;
    cg_vk_ring_info vi;
    cg_gl_ring *r = open_ring(&sc, w, h, CG_ZC_MODE_SEMAPHORE, signal, &st, &e, &gi, &vi);
    if (st == CG_E_UNSUPPORTED) {
        printf("SKIP %s: %s\n", name, e.text);
        gl_scene_destroy(&sc);
        return SKIP;
    }
    CHECK(st == CG_OK, "create: %s %s", cg_status_name(st), e.text);
    if (!r) return 1;
    CHECK(gi.mode == CG_ZC_MODE_SEMAPHORE && gi.signal == signal && vi.semaphore != VK_NULL_HANDLE,
          "semaphore mode, signal %d", (int)signal);
    /* Six frames back to back, no wait: 4..6 take the slots of 1..3 again
     * once the claim sees them free (the bridge's fences, polled: open_ring
     * gives wait_ns). Then the learner's wait for 6, and its read. */
    uint8_t descs[6][CG_ZC_DESC_SIZE];
    for (int f = 1; f <= 6; f++)
        CHECK(publish_frame(r, sc.color, w, h, f, descs[f - 1]) == CG_OK, "frame %d: %s", f,
              cg_gl_ring_last_error(r));
    CHECK(wait_frame(&gi, &vi, 6), "timeline reached 6");
    CHECK(run_learner(3, descs + 3) == 0, "learner process: frames 4..6 byte-exact");
    destroy_keeps_context(r);
    gl_scene_destroy(&sc);
    return failures ? 1 : 0;
}

static int case_bad_input(cg_egl_headless *egl)
{
    cg_err e = {{0}};
    cg_gl_ring *r = NULL;
    cg_gl_ring_desc d = ring_desc(32, 16, CG_GL_RING_MODE_AUTO);
    /* No context current. */
    cg_egl_headless_release(egl);
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_E_NO_CONTEXT && !r, "no context: %s", e.text);
    cg_egl_headless_make_current(egl);
    d.mode = 7;
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_E_INVALID_ARG && strstr(e.text, "mode 7"), "mode 7: %s", e.text);
    d = ring_desc(0, 16, 0);
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_E_INVALID_ARG, "width 0: %s", e.text);
    d = ring_desc(16385, 16, 0);
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_E_TOO_LARGE, "width 16385: %s", e.text);
    d = ring_desc(32, 16, 0);
    d.slots = 17;
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_E_INVALID_ARG, "17 slots: %s", e.text);
    d = ring_desc(32, 16, 0);
    d.vulkan_library = "libvulkan-not-there.so.9";
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_E_UNSUPPORTED && strstr(e.text, "Vulkan loader"),
          "no loader: %s", e.text);
    CHECK(cg_gl_ring_create(NULL, &r, &e) == CG_E_INVALID_ARG, "no desc");
    d = ring_desc(32, 16, 0);
    d.signal = (cg_gl_ring_signal)5;
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_E_INVALID_ARG && strstr(e.text, "signal 5"),
          "signal 5: %s", e.text);
    CHECK(cg_gl_ring_create(&d, NULL, &e) == CG_E_INVALID_ARG, "no out");

    d = ring_desc(32, 16, CG_ZC_MODE_FENCE);
    cg_status st = cg_gl_ring_create(&d, &r, &e);
    CHECK(st == CG_OK, "create: %s", e.text);
    if (!r) return 1;
    uint8_t desc[CG_ZC_DESC_SIZE];
    gl_scene small, big;
    CHECK(gl_scene_create(&small, 16, 16) == 0 && gl_scene_create(&big, 32, 16) == 0, "scenes");
    CHECK(cg_gl_ring_publish(r, 0, desc) == CG_E_BAD_TEXTURE, "texture 0: %s", cg_gl_ring_last_error(r));
    CHECK(cg_gl_ring_publish(r, 987654, desc) == CG_E_BAD_TEXTURE, "no such texture: %s",
          cg_gl_ring_last_error(r));
    CHECK(cg_gl_ring_publish(r, small.color, desc) == CG_E_BAD_TEXTURE &&
              strstr(cg_gl_ring_last_error(r), "smaller"),
          "texture smaller than the ring: %s", cg_gl_ring_last_error(r));
    CHECK(cg_gl_ring_publish(r, big.color, NULL) == CG_E_INVALID_ARG, "no descriptor buffer");
    CHECK(cg_gl_ring_publish(NULL, big.color, desc) == CG_E_INVALID_ARG, "no ring");
    cg_egl_headless_release(egl);
    CHECK(cg_gl_ring_publish(r, big.color, desc) == CG_E_NO_CONTEXT, "publish without a context");
    cg_egl_headless *other = NULL;
    char why[256];
    if (cg_egl_headless_open(&other, why, sizeof why) == 0) {
        CHECK(cg_gl_ring_publish(r, big.color, desc) == CG_E_BAD_STATE &&
                  strstr(cg_gl_ring_last_error(r), "another GL context"),
              "another context: %s", cg_gl_ring_last_error(r));
        cg_egl_headless_close(other);
    }
    cg_egl_headless_make_current(egl);
    /* Still usable after every refusal: frame 1 (no frame was used up). */
    CHECK(cg_gl_ring_publish(r, big.color, desc) == CG_OK, "usable after bad input: %s",
          cg_gl_ring_last_error(r));
    cg_zc_desc dd;
    CHECK(cg_zc_desc_decode(desc, sizeof desc, &dd, &e) == CG_OK && dd.frame == 1, "frame 1");
    cg_gl_ring_destroy(r);
    cg_gl_ring_destroy(NULL);
    gl_scene_destroy(&small);
    gl_scene_destroy(&big);
    return failures ? 1 : 0;
}

/* The game after a ring went: its context current, made current again by
 * the game's own call (NVIDIA's EGL_BAD_CONTEXT showed here), and drawing. */
static void game_still_draws(cg_egl_headless *egl, void *game, gl_scene *sc, int round)
{
    CHECK(cg_gl_current_key() == game, "round %d: the game's context is still current", round);
    CHECK(cg_egl_headless_release(egl) == 0 && cg_egl_headless_make_current(egl) == 0 &&
              cg_gl_current_key() == game,
          "round %d: the game makes its own context current again (eglMakeCurrent)", round);
    if (cg_gl_current_key() != game) exit(1); /* no GL call can follow */
    const uint8_t clear[3] = {(uint8_t)(40 + round), 90, 200};
    const gl_quad q = {2, 1, 9, 5, {250, (uint8_t)(10 * round), 7}, 0};
    CHECK(gl_scene_draw_color(sc, clear, &q, 1) == 0, "round %d: the game draws", round);
    uint8_t px[16 * 8 * 4];
    glBindFramebuffer(GL_READ_FRAMEBUFFER, sc->fbo);
    glReadPixels(0, 0, 16, 8, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    int bad = glGetError() != GL_NO_ERROR;
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 16; x++) {
            uint8_t want[3];
            gl_scene_expect_rgb(clear, &q, 1, x, y, want);
            bad += memcmp(px + (y * 16 + x) * 4, want, 3) != 0;
        }
    CHECK(bad == 0, "round %d: the game's drawing reads back as drawn (%d pixels differ)", round,
          bad);
}

/* A window resize as a GL game does it, with no Vulkan instance of the
 * process's own (the test makes none): destroy + create at a new size,
 * three times, frames read by the learner each time; then a create that
 * fails after the Vulkan device was made (an unusable socket folder);
 * then the ring again. After each destroy or failure the game's context
 * must be current and drawing. Also: destroy off the ring's context is
 * refused and keeps the ring usable. */
static int case_lifecycle(cg_egl_headless *egl)
{
    void *game = cg_gl_current_key();
    gl_scene sc;
    CHECK(game && gl_scene_create(&sc, 16, 8) == 0, "the game's scene");
    if (!game) return 1;
    static const int sizes[4][2] = {{64, 48}, {96, 40}, {33, 77}, {20, 20}};
    for (int round = 0; round < 4; round++) {
        int w = sizes[round][0], h = sizes[round][1];
        gl_scene tex;
        CHECK(gl_scene_create(&tex, w, h) == 0, "round %d: texture %dx%d", round, w, h);
        cg_gl_ring_desc d = ring_desc(w, h, CG_GL_RING_MODE_AUTO);
        d.wait_ns = 100000000u;
        cg_err e = {{0}};
        cg_gl_ring *r = NULL;
        cg_status st = cg_gl_ring_create(&d, &r, &e);
        CHECK(st == CG_OK, "round %d: create at %dx%d: %s", round, w, h, e.text);
        if (!r) {
            gl_scene_destroy(&tex);
            continue;
        }
        cg_gl_ring_info gi;
        cg_vk_ring_info vi;
        cg_gl_ring_get_info(r, &gi);
        cg_gl_ring_get_ring_info(r, &vi);
        uint8_t desc[1][CG_ZC_DESC_SIZE];
        CHECK(publish_frame(r, tex.color, w, h, 1, desc[0]) == CG_OK && wait_frame(&gi, &vi, 1),
              "round %d: frame 1: %s", round, cg_gl_ring_last_error(r));
        CHECK(run_learner(1, desc) == 0, "round %d: the learner reads frame 1 at %dx%d", round,
              w, h);
        if (round == 1) {
            /* Off the ring's context: refused, the ring kept and usable. */
            cg_egl_headless_release(egl);
            CHECK(cg_gl_ring_destroy_current(r, &e) == CG_E_NO_CONTEXT &&
                      strstr(e.text, "render thread") && strstr(e.text, "kept"),
                  "destroy with no context current is refused: %s", e.text);
            cg_egl_headless *other = NULL;
            char why[256];
            if (cg_egl_headless_open(&other, why, sizeof why) == 0) {
                CHECK(cg_gl_ring_destroy_current(r, &e) == CG_E_BAD_STATE &&
                          strstr(e.text, "another GL context"),
                      "destroy with another context current is refused: %s", e.text);
                cg_egl_headless_close(other);
            }
            cg_egl_headless_make_current(egl);
            CHECK(publish_frame(r, tex.color, w, h, 2, desc[0]) == CG_OK &&
                      wait_frame(&gi, &vi, 2) && run_learner(1, desc) == 0,
                  "the ring still publishes after the refused destroys: %s",
                  cg_gl_ring_last_error(r));
        }
        CHECK(cg_gl_ring_destroy_current(r, &e) == CG_OK, "round %d: destroy: %s", round, e.text);
        gl_scene_destroy(&tex);
        game_still_draws(egl, game, &sc, round);
        if (round == 2) {
            /* A create that fails once the Vulkan device exists. */
            cg_gl_ring_desc bad = ring_desc(24, 24, CG_GL_RING_MODE_AUTO);
            bad.socket_dir = "/proc/self/cg-not-a-folder";
            r = NULL;
            st = cg_gl_ring_create(&bad, &r, &e);
            CHECK(st != CG_OK && !r, "a create with an unusable socket folder fails: %s %s",
                  cg_status_name(st), e.text);
            game_still_draws(egl, game, &sc, 10 + round);
        }
    }
    gl_scene_destroy(&sc);
    return failures ? 1 : 0;
}

static int case_uuid(void)
{
    const uint8_t gl[16] = {0x10, 0xde, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
    uint8_t vk[3][16];
    memset(vk, 0, sizeof vk);
    memcpy(vk[0], "mesa22.3.6", 10);
    memcpy(vk[2], gl, 16);
    memcpy(vk[1], gl, 16);
    vk[1][15] ^= 1; /* one bit off: not the same GPU */
    const char *names[3] = {"llvmpipe", "GPU A", "GPU B"};
    uint32_t k = 99;
    cg_err e = {{0}};
    CHECK(cg_gl_ring_match_device(gl, (const uint8_t(*)[16])vk, names, 3, &k, &e) == CG_OK && k == 2,
          "the equal UUID is taken (index %u)", k);
    CHECK(cg_gl_ring_match_device(gl, (const uint8_t(*)[16])vk, names, 2, &k, &e) == CG_E_NO_DEVICE,
          "no match: refused");
    CHECK(strstr(e.text, "10de0102030405060708090a0b0c0d0e") && strstr(e.text, "GPU A") &&
              strstr(e.text, "10de0102030405060708090a0b0c0d0f") && strstr(e.text, "never falls back"),
          "the error names GL's UUID and each Vulkan device: %s", e.text);
    CHECK(cg_gl_ring_match_device(gl, NULL, NULL, 0, &k, &e) == CG_E_NO_DEVICE &&
              strstr(e.text, "none"),
          "no Vulkan device at all: %s", e.text);
    return failures ? 1 : 0;
}

/* ---- the RGB slot format ---------------------------------------------------- */

/* Deterministic bytes (xorshift), alpha included. */
static void noise(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)(x >> 11);
    }
}

/* The sweep of test_vk_rgb (rgb_sweep.h), then a target of 0x0 (the
 * texture's size). */
static const sweep_size SAME_SIZE = {37, 23, 0, 0};
#define RGB_CONFIGS (sizeof SIZES / sizeof SIZES[0] + 1)
#define STATE_CONFIG 8 /* 41x23 -> 19x29: under the game's state, and the learner's */

static cg_gl_ring *open_rgb(gl_scene *sc, const sweep_size *z, int mode, cg_status *st, cg_err *e,
                            cg_gl_ring_info *gi, cg_vk_ring_info *vi)
{
    CHECK(gl_scene_create(sc, z->sw, z->sh) == 0, "scene %dx%d", z->sw, z->sh);
    cg_gl_ring_desc d = ring_desc(z->sw, z->sh, mode);
    d.slot_format = CG_VK_SLOT_RGB8;
    d.target_width = z->dw;
    d.target_height = z->dh;
    d.wait_ns = 100000000u;
    cg_gl_ring *r = NULL;
    *st = cg_gl_ring_create(&d, &r, e);
    if (!r) return NULL;
    cg_gl_ring_get_info(r, gi);
    cg_gl_ring_get_ring_info(r, vi);
    return r;
}

/* The slot's bytes through GL (glGetNamedBufferSubData on its buffer:
 * ordered after the dispatch by GL, its barrier included). */
static int read_slot_gl(const cg_gl_ring_info *gi, uint32_t slot, uint8_t *out, size_t n)
{
    glGetNamedBufferSubData(gi->buffers[slot], 0, (GLsizeiptr)n, out);
    return glGetError() == GL_NO_ERROR ? 0 : 1;
}

/* Publish with the cursor, read the slot back and compare; returns 1 when
 * the frame matched. */
static int rgb_frame(cg_gl_ring *r, const cg_gl_ring_info *gi, const cg_vk_ring_info *vi,
                     gl_scene *sc, const sweep_size *z, const uint8_t *rgba, int dw, int dh,
                     const cg_cursor *cur, uint8_t *desc, uint8_t *want, uint8_t *got)
{
    cg_status st = cg_gl_ring_publish_cursor(r, sc->color, cur, desc);
    CHECK(st == CG_OK, "%dx%d -> %dx%d cursor (%d,%d,%d): %s %s", z->sw, z->sh, dw, dh, cur->draw,
          cur->x, cur->y, cg_status_name(st), cg_gl_ring_last_error(r));
    if (st != CG_OK) return 0;
    cg_zc_desc dd;
    cg_err e = {{0}};
    CHECK(cg_zc_desc_decode(desc, CG_ZC_DESC_SIZE, &dd, &e) == CG_OK, "decode: %s", e.text);
    CHECK(wait_frame(gi, vi, dd.frame), "frame %llu complete", (unsigned long long)dd.frame);
    size_t n = (size_t)dw * (size_t)dh * 3;
    CHECK(rgb_oracle(rgba, z->sw, z->sh, dw, dh, 0, cur, want) == 0, "oracle");
    /* The shader writes whole 12-byte groups: the tail past the picture is 0. */
    size_t groups = (n + 11) / 12 * 12;
    CHECK(read_slot_gl(gi, dd.slot, got, groups) == 0, "read slot %u", dd.slot);
    size_t bad = 0, first = n;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ == 0) first = i;
    for (size_t i = n; i < groups; i++) bad += got[i] != 0;
    CHECK(bad == 0, "%dx%d -> %dx%d cursor (%d,%d,%d): %zu bytes differ (first at %zu: %u, want %u)",
          z->sw, z->sh, dw, dh, cur->draw, cur->x, cur->y, bad, first,
          first < n ? got[first] : 0u, first < n ? want[first] : 0u);
    return bad == 0;
}

static int case_rgb(int mode)
{
    const char *name = mode == CG_ZC_MODE_SEMAPHORE ? "gl_ring_rgb_semaphore" : "gl_ring_rgb";
    if (mode == CG_ZC_MODE_SEMAPHORE && !epoxy_has_gl_extension("GL_EXT_semaphore_fd")) {
        printf("SKIP %s: this GL (%s) lacks GL_EXT_semaphore_fd; the GPU machine runs it\n", name,
               (const char *)glGetString(GL_RENDERER));
        return SKIP;
    }
    int rings = 0, frames = 0;
    for (size_t si = 0; si < RGB_CONFIGS; si++) {
        const sweep_size *z = si < RGB_CONFIGS - 1 ? &SIZES[si] : &SAME_SIZE;
        int dw = z->dw ? z->dw : z->sw, dh = z->dh ? z->dh : z->sh;
        gl_scene sc;
        cg_err e = {{0}};
        cg_status st;
        cg_gl_ring_info gi;
        cg_vk_ring_info vi;
        cg_gl_ring *r = open_rgb(&sc, z, mode, &st, &e, &gi, &vi);
        if (st == CG_E_UNSUPPORTED && mode == CG_ZC_MODE_SEMAPHORE) {
            printf("SKIP %s: %s\n", name, e.text);
            gl_scene_destroy(&sc);
            return SKIP;
        }
        CHECK(st == CG_OK, "create %dx%d -> %dx%d: %s %s", z->sw, z->sh, dw, dh,
              cg_status_name(st), e.text);
        if (!r) {
            gl_scene_destroy(&sc);
            return 1;
        }
        rings++;
        uint8_t tmpl[CG_ZC_DESC_SIZE];
        cg_zc_desc dd;
        CHECK(cg_gl_ring_template(r, tmpl, sizeof tmpl) == CG_OK &&
                  cg_zc_desc_decode(tmpl, sizeof tmpl, &dd, &e) == CG_OK && dd.format == 23 &&
                  tmpl[4] == 2 && dd.flags == 0 && dd.width == (uint32_t)dw &&
                  dd.height == (uint32_t)dh && dd.row_pitch == (uint32_t)dw * 3 &&
                  vi.slot_size >= ((uint64_t)dw * dh * 3 + 11) / 12 * 12,
              "template: format 23, version 2, upright (no ROWS_BOTTOM_UP), %dx%d pitch %u", dw,
              dh, dd.row_pitch);
        size_t src_bytes = (size_t)z->sw * z->sh * 4, n = (size_t)dw * dh * 3;
        uint8_t *rgba = malloc(src_bytes), *want = malloc(n), *got = malloc(n + 12);
        cg_cursor cur[10];
        int nc = cursors(dw, dh, cur);
        if ((size_t)z->sw * z->sh > 100000) nc = 3; /* 1080p: inside, corner, corner */
        int big = (size_t)z->sw * z->sh > 100000;
        game_objs g;
        rgb_state before, after;
        /* One ring under the game's non-default state; the others under the
         * scene's own (unit 0 active, nothing at the shader's buffer indices:
         * the dispatch's save skips the queries and binds that cannot change
         * anything there, cg_gl_compute.c). Either must be the game's again. */
        if (si == STATE_CONFIG) set_game_state(&g);
        read_rgb_state(&before);
        if (si != STATE_CONFIG)
            CHECK(before.active == GL_TEXTURE0 && !before.bind[0] && !before.bind[1] &&
                      !before.bind[2],
                  "the scene's state: unit 0 active, no buffer at UBO 0, SSBO 2, UBO 3");
        uint8_t desc[CG_ZC_DESC_SIZE];
        for (int c = 0; c < nc; c++) {
            noise(rgba, src_bytes, (uint32_t)(si * 16 + c + 1));
            CHECK(gl_scene_upload(sc.color, z->sw, z->sh, rgba) == 0, "upload");
            frames += rgb_frame(r, &gi, &vi, &sc, z, rgba, dw, dh, &cur[c], desc, want, got);
            read_rgb_state(&after);
            CHECK(same_state(&before, &after), "cursor %d: every GL state the dispatch touches "
                  "is the game's again (%s state)", c,
                  si == STATE_CONFIG ? "the game's non-default" : "the scene's");
            CHECK(glGetError() == GL_NO_ERROR, "no GL error left behind");
        }
        if (si == STATE_CONFIG) clear_game_state(&g);
        /* Three frames through the learner process: its own Vulkan device
         * imports the slots from the socket and dumps what it reads. */
        if (si == STATE_CONFIG && !big) {
            uint8_t descs[3][CG_ZC_DESC_SIZE], *wants = malloc(3 * n);
            for (int f = 0; f < 3; f++) {
                noise(rgba, src_bytes, (uint32_t)(900 + f));
                gl_scene_upload(sc.color, z->sw, z->sh, rgba);
                cg_cursor c1 = {1, 2 + 3 * f, 5};
                rgb_oracle(rgba, z->sw, z->sh, dw, dh, 0, &c1, wants + (size_t)f * n);
                CHECK(cg_gl_ring_publish_cursor(r, sc.color, &c1, descs[f]) == CG_OK, "learner frame %d", f);
            }
            cg_zc_desc_decode(descs[2], CG_ZC_DESC_SIZE, &dd, &e);
            CHECK(wait_frame(&gi, &vi, dd.frame), "last frame complete");
            setenv("ZC_LEARNER_DUMP", test_dir, 1);
            CHECK(run_learner(3, descs) == 0, "learner process read 3 RGB frames");
            unsetenv("ZC_LEARNER_DUMP");
            for (int f = 0; f < 3; f++) {
                cg_zc_desc_decode(descs[f], CG_ZC_DESC_SIZE, &dd, &e);
                char path[160];
                snprintf(path, sizeof path, "%s/frame-%llu.bin", test_dir, (unsigned long long)dd.frame);
                FILE *fp = fopen(path, "rb");
                size_t got_n = fp ? fread(got, 1, n + 1, fp) : 0;
                if (fp) fclose(fp);
                unlink(path);
                CHECK(got_n == n && memcmp(got, wants + (size_t)f * n, n) == 0,
                      "learner's frame %llu equals the CPU converter's (%zu of %zu bytes read)",
                      (unsigned long long)dd.frame, got_n, n);
            }
            free(wants);
        }
        free(rgba);
        free(want);
        free(got);
        destroy_keeps_context(r);
        gl_scene_destroy(&sc);
    }
    printf("%d rings, %d frames byte-exact against cg_convert (RAW), %s mode\n", rings, frames,
           mode == CG_ZC_MODE_SEMAPHORE ? "semaphore" : "fence");
    return failures ? 1 : 0;
}

static int case_rgb_bad_input(void)
{
    cg_err e = {{0}};
    cg_gl_ring *r = NULL;
    cg_gl_ring_desc d = ring_desc(32, 16, CG_ZC_MODE_FENCE);
    d.slot_format = (cg_vk_slot_format)7;
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_E_INVALID_ARG && strstr(e.text, "slot format 7"),
          "slot format 7: %s", e.text);
    d.slot_format = CG_VK_SLOT_COPY;
    d.target_width = 8;
    d.target_height = 8;
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_E_INVALID_ARG && strstr(e.text, "RGB8"),
          "a copy does not resize: %s", e.text);
    d.slot_format = CG_VK_SLOT_RGB8;
    d.target_width = 0;
    d.target_height = 5;
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_E_INVALID_ARG, "target 0x5: %s", e.text);
    d.target_width = 16385;
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_E_TOO_LARGE, "target 16385 wide: %s", e.text);
    d.target_width = -2;
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_E_INVALID_ARG, "target -2: %s", e.text);
    CHECK(!r, "nothing made");

    /* A copying ring refuses a cursor; frame 1 still follows. */
    gl_scene sc, odd;
    CHECK(gl_scene_create(&sc, 32, 16) == 0, "scene");
    d = ring_desc(32, 16, CG_ZC_MODE_FENCE);
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_OK, "copy ring: %s", e.text);
    uint8_t desc[CG_ZC_DESC_SIZE];
    cg_cursor cur = {1, 3, 3}, off = {0, 3, 3};
    cg_zc_desc dd;
    if (r) {
        CHECK(cg_gl_ring_publish_cursor(r, sc.color, &cur, desc) == CG_E_INVALID_ARG &&
                  strstr(cg_gl_ring_last_error(r), "RGB"),
              "cursor on a copy: %s", cg_gl_ring_last_error(r));
        CHECK(cg_gl_ring_publish_cursor(r, sc.color, &off, desc) == CG_OK &&
                  cg_zc_desc_decode(desc, sizeof desc, &dd, &e) == CG_OK && dd.frame == 1,
              "cursor off on a copy: frame 1");
        cg_gl_ring_destroy(r);
        r = NULL;
    }
    /* An RGB ring: a texture that is not 8-bit RGBA is refused, the ring
     * stays usable. */
    d.slot_format = CG_VK_SLOT_RGB8;
    d.target_width = 10;
    d.target_height = 7;
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_OK, "RGB ring: %s", e.text);
    if (!r) return 1;
    /* RGBA16F is not 8-bit; sRGB would be read decoded (RAW reads it as
     * stored). */
    static const GLenum bad_formats[2] = {GL_RGBA16F, GL_SRGB8_ALPHA8};
    static const char *const why[2] = {"8-bit", "sRGB"};
    GLuint bad_tex[2] = {0, 0};
    glGenTextures(2, bad_tex);
    for (int i = 0; i < 2; i++) {
        glBindTexture(GL_TEXTURE_2D, bad_tex[i]);
        glTexStorage2D(GL_TEXTURE_2D, 1, bad_formats[i], 32, 16);
        glBindTexture(GL_TEXTURE_2D, 0);
        CHECK(cg_gl_ring_publish_cursor(r, bad_tex[i], &cur, desc) == CG_E_BAD_TEXTURE &&
                  strstr(cg_gl_ring_last_error(r), why[i]),
              "texture format 0x%04x: %s", bad_formats[i], cg_gl_ring_last_error(r));
    }
    glDeleteTextures(2, bad_tex);
    CHECK(cg_gl_ring_publish_cursor(r, 0, &cur, desc) == CG_E_BAD_TEXTURE, "texture 0");
    CHECK(gl_scene_create(&odd, 31, 16) == 0, "small scene");
    CHECK(cg_gl_ring_publish_cursor(r, odd.color, &cur, desc) == CG_E_BAD_TEXTURE &&
              strstr(cg_gl_ring_last_error(r), "smaller"),
          "texture smaller than the ring: %s", cg_gl_ring_last_error(r));
    CHECK(cg_gl_ring_publish_cursor(r, sc.color, &cur, NULL) == CG_E_INVALID_ARG, "no descriptor");
    CHECK(cg_gl_ring_publish_cursor(r, sc.color, &cur, desc) == CG_OK &&
              cg_zc_desc_decode(desc, sizeof desc, &dd, &e) == CG_OK && dd.frame == 1 &&
              dd.format == 23,
          "usable after bad input: %s", cg_gl_ring_last_error(r));
    CHECK(glGetError() == GL_NO_ERROR, "no GL error left behind");
    cg_gl_ring_destroy(r);
    gl_scene_destroy(&sc);
    gl_scene_destroy(&odd);
    return failures ? 1 : 0;
}

/* ---- eyes and depth planes (descriptor version 3) ---------------------------- */

/* One ring of the planes sweep: source (texture) and target sizes, eyes,
 * the depth encoding, init's near/far, the depth textures' format. */
typedef struct planes_cfg {
    int sw, sh, dw, dh;
    uint32_t eyes;
    cg_zc_depth_encoding depth;
    float near_plane, far_plane;
    int z01;
    GLenum depth_format;
} planes_cfg;

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* The producer's layout as docs/zero-copy-v2/protocol.md gives it, computed here
 * (the ring takes it from cg_zc_planes_layout). */
static int layout_as_documented(const planes_cfg *c, const cg_zc_desc *d)
{
    uint64_t px = (uint64_t)c->dw * (uint64_t)c->dh;
    uint64_t ces = round_up(round_up(px * 3, 12), 256), doff = c->depth ? c->eyes * ces : 0;
    uint64_t des = c->depth ? round_up(px * 4, 256) : 0;
    uint64_t frame = c->depth ? doff + c->eyes * des : c->eyes * ces;
    int depth_ok = c->depth ? d->depth_format == CG_ZC_FORMAT_R32_SFLOAT &&
                                  d->depth_row_pitch == (uint32_t)c->dw * 4 &&
                                  d->depth_encoding == (uint32_t)c->depth
                            : d->depth_format == 0 && d->depth_encoding == 0;
    return d->eyes == c->eyes && d->color_eye_stride == ces && d->depth_offset == doff &&
           d->depth_eye_stride == des && d->slot_size >= frame && depth_ok && d->format == 23 &&
           d->flags == 0 && d->width == (uint32_t)c->dw && d->height == (uint32_t)c->dh &&
           d->row_pitch == (uint32_t)c->dw * 3;
}

/* What one frame's planes must hold, per eye. */
typedef struct planes_want {
    uint8_t *rgb[2];
    float *depth[2];
    uint32_t ulps; /* the depth planes' allowance */
} planes_want;

static uint32_t planes_worst_ulps;

static cg_gl_ring *open_planes(const planes_cfg *c, int mode, cg_status *st, cg_err *e)
{
    cg_gl_ring_desc d = ring_desc(c->sw, c->sh, mode);
    d.slot_format = CG_VK_SLOT_RGB8;
    d.target_width = c->dw;
    d.target_height = c->dh;
    d.eyes = c->eyes;
    d.depth = c->depth;
    d.near_plane = c->near_plane;
    d.far_plane = c->far_plane;
    d.z_zero_to_one = c->z01;
    d.wait_ns = 100000000u;
    cg_gl_ring *r = NULL;
    *st = cg_gl_ring_create(&d, &r, e);
    return r;
}

/* One frame in parts: per eye new colour noise (with its own cursor) and new
 * depth content, the parts in order, the expected planes from the oracles
 * (the CPU converter; captureDepthImpl's core or glReadPixels). `lin`: this
 * frame's override at depth(0) and depth(1) (NULL: the ring's). The last
 * part's status; *len its descriptor's length. */
static cg_status planes_parts(cg_gl_ring *r, const planes_cfg *c, gl_scene sc[2],
                              cg_gl_reader *oracle, uint32_t seed, const cg_zc_depth_params *lin,
                              planes_want *w, uint8_t desc[CG_ZC_DESC_MAX_SIZE], size_t *len)
{
    size_t sn = (size_t)c->sw * c->sh;
    uint8_t *rgba = malloc(sn * 4);
    float *d = malloc(sn * 4), *src = malloc(sn * 4);
    cg_status st = CG_OK;
    for (uint32_t e = 0; e < c->eyes; e++) {
        GLuint dt = 0;
        if (c->depth) {
            depth_fill(d, c->sw, c->sh, seed * 2 + e);
            dt = depth_texture(c->depth_format, c->sw, c->sh, d);
            CHECK(dt != 0, "depth texture");
            st = cg_gl_ring_publish_depth(r, dt, e, lin, desc, len);
            CHECK(st == CG_OK && *len == 0, "depth(%u): %s %s (len %zu: more parts)", e,
                  cg_status_name(st), cg_gl_ring_last_error(r), *len);
            /* captureDepthImpl's planes: the frame's */
            const cg_gl_depth_linear use = {lin ? lin->near_plane : c->near_plane,
                                            lin ? lin->far_plane : c->far_plane,
                                            lin ? lin->z_zero_to_one : c->z01};
            if (c->depth == CG_ZC_DEPTH_LINEAR)
                CHECK(cg_gl_read_depth(oracle, dt, c->sw, c->sh, &use, src, sn) == CG_OK,
                      "captureDepthImpl's core: %s", cg_gl_reader_last_error(oracle));
            else
                CHECK(depth_read_pixels(dt, c->sw, c->sh, src) == 0, "glReadPixels");
            depth_expect(src, c->sw, c->sh, c->dw, c->dh, w->depth[e]);
        }
        noise(rgba, sn * 4, seed * 2 + e + 1000);
        CHECK(gl_scene_upload(sc[e].color, c->sw, c->sh, rgba) == 0, "upload");
        cg_cursor cur = {1, (int)(seed * 3 + e * 5) % c->dw, (int)(seed + e * 7) % c->dh};
        CHECK(rgb_oracle(rgba, c->sw, c->sh, c->dw, c->dh, 0, &cur, w->rgb[e]) == 0, "oracle");
        st = cg_gl_ring_publish_eye(r, sc[e].color, e, &cur, desc, len);
        int last = e + 1 == c->eyes;
        CHECK(st == CG_OK && *len == (last ? (size_t)CG_ZC_DESC_V3_SIZE : 0u),
              "colour(%u): %s %s (len %zu)", e, cg_status_name(st), cg_gl_ring_last_error(r),
              *len);
        if (dt) glDeleteTextures(1, &dt);
    }
    w->ulps = c->depth == CG_ZC_DEPTH_RAW && depth_fixed_point(c->depth_format) ? 1u
              : c->depth == CG_ZC_DEPTH_RAW                                     ? 0u
                                                                                : 2u;
    free(rgba);
    free(d);
    free(src);
    return st;
}

/* The slot's bytes (from its start) against the frame's planes, located
 * by the descriptor's fields as a reader does. 1: they match. */
static int planes_match(const cg_zc_desc *dd, const uint8_t *slot, const planes_want *w,
                        const planes_cfg *c, const char *who)
{
    size_t px = (size_t)c->dw * c->dh;
    int ok = 1;
    float *plane = malloc(px * 4);
    for (uint32_t e = 0; e < c->eyes; e++) {
        const uint8_t *rgb = slot + e * dd->color_eye_stride;
        size_t bad = 0;
        for (size_t i = 0; i < px * 3; i++) bad += rgb[i] != w->rgb[e][i];
        CHECK(bad == 0, "%s: frame %llu eye %u: %zu RGB bytes differ from the CPU converter's",
              who, (unsigned long long)dd->frame, e, bad);
        ok &= bad == 0;
        if (!c->depth) continue;
        memcpy(plane, slot + dd->depth_offset + e * dd->depth_eye_stride, px * 4);
        depth_diff df;
        size_t n = depth_compare(plane, w->depth[e], px, w->ulps, &df);
        if (df.max_ulps > planes_worst_ulps) planes_worst_ulps = df.max_ulps;
        CHECK(n == 0, "%s: frame %llu eye %u depth: %zu values past %u ulps, first (x %zu, Y %zu) "
                      "%.9g want %.9g",
              who, (unsigned long long)dd->frame, e, n, w->ulps, df.first % (size_t)c->dw,
              df.first / (size_t)c->dw, (double)df.got, (double)df.want);
        ok &= n == 0;
    }
    free(plane);
    return ok;
}

static size_t frame_bytes_of(const cg_zc_desc *dd, const planes_cfg *c)
{
    uint64_t px = (uint64_t)c->dw * c->dh, e1 = c->eyes - 1;
    uint64_t end = e1 * dd->color_eye_stride + px * 3;
    if (c->depth) end = dd->depth_offset + e1 * dd->depth_eye_stride + px * 4;
    return (size_t)end;
}

static void planes_want_alloc(planes_want *w, const planes_cfg *c)
{
    size_t px = (size_t)c->dw * c->dh;
    for (int e = 0; e < 2; e++) {
        w->rgb[e] = malloc(px * 3);
        w->depth[e] = malloc(px * 4);
    }
}

static void planes_want_free(planes_want *w)
{
    for (int e = 0; e < 2; e++) {
        free(w->rgb[e]);
        free(w->depth[e]);
    }
}

/* Three frames through the learner process (its own Vulkan device, the
 * slots from the socket), its dumps compared with the planes. */
static void planes_learner(cg_gl_ring *r, const planes_cfg *c, gl_scene sc[2],
                           cg_gl_reader *oracle, const cg_gl_ring_info *gi,
                           const cg_vk_ring_info *vi)
{
    uint8_t descs[3][CG_ZC_DESC_MAX_SIZE];
    size_t lens[3];
    planes_want w[3];
    cg_zc_desc dd[3];
    cg_err e = {{0}};
    for (int f = 0; f < 3; f++) {
        planes_want_alloc(&w[f], c);
        CHECK(planes_parts(r, c, sc, oracle, 900u + (uint32_t)f, NULL, &w[f], descs[f],
                           &lens[f]) == CG_OK,
              "learner frame %d", f);
        CHECK(cg_zc_desc_decode(descs[f], lens[f], &dd[f], &e) == CG_OK, "decode: %s", e.text);
    }
    CHECK(wait_frame(gi, vi, dd[2].frame), "last frame complete");
    const uint8_t *dp[3] = {descs[0], descs[1], descs[2]};
    setenv("ZC_LEARNER_DUMP", test_dir, 1);
    CHECK(spawn_learner(3, dp, lens) == 0, "learner process read 3 frames with planes");
    unsetenv("ZC_LEARNER_DUMP");
    size_t n = frame_bytes_of(&dd[0], c);
    uint8_t *got = malloc(n + 1);
    for (int f = 0; f < 3; f++) {
        char path[160];
        snprintf(path, sizeof path, "%s/frame-%llu.bin", test_dir,
                 (unsigned long long)dd[f].frame);
        FILE *fp = fopen(path, "rb");
        size_t got_n = fp ? fread(got, 1, n + 1, fp) : 0;
        if (fp) fclose(fp);
        unlink(path);
        CHECK(got_n == n, "learner's frame %llu: %zu of %zu bytes", (unsigned long long)dd[f].frame,
              got_n, n);
        if (got_n == n) planes_match(&dd[f], got, &w[f], c, "learner");
        planes_want_free(&w[f]);
    }
    free(got);
}

static int case_planes(int stereo, int mode)
{
    static const planes_cfg RGBD[] = {
        {41, 23, 19, 29, 1, CG_ZC_DEPTH_LINEAR, 0.1f, 100.0f, 0, GL_DEPTH_COMPONENT32F},
        {7, 5, 7, 5, 1, CG_ZC_DEPTH_RAW, 0, 0, 0, GL_DEPTH_COMPONENT32F},
        {5, 3, 13, 11, 1, CG_ZC_DEPTH_LINEAR, 0.05f, 1000.0f, 1, GL_DEPTH_COMPONENT24},
        {1, 1, 1, 1, 1, CG_ZC_DEPTH_LINEAR, 1.0f, 2.0f, 0, GL_DEPTH_COMPONENT32F},
        {640, 360, 640, 360, 1, CG_ZC_DEPTH_LINEAR, 1.0f, 2.0f, 1, GL_DEPTH_COMPONENT32F},
        {1920, 1080, 640, 360, 1, CG_ZC_DEPTH_RAW, 0, 0, 0, GL_DEPTH_COMPONENT24},
    };
    static const planes_cfg STEREO[] = {
        {37, 23, 37, 23, 2, CG_ZC_DEPTH_NONE, 0, 0, 0, 0},
        {41, 23, 19, 29, 2, CG_ZC_DEPTH_LINEAR, 0.1f, 100.0f, 0, GL_DEPTH_COMPONENT32F},
        {64, 48, 21, 17, 2, CG_ZC_DEPTH_RAW, 0, 0, 0, GL_DEPTH_COMPONENT24},
        {17, 9, 6, 4, 2, CG_ZC_DEPTH_LINEAR, 16.0f, 16.5f, 1, GL_DEPTH32F_STENCIL8},
        {1920, 1080, 1920, 1080, 2, CG_ZC_DEPTH_LINEAR, 0.05f, 1000.0f, 1, GL_DEPTH_COMPONENT32F},
    };
    const planes_cfg *cfgs = stereo ? STEREO : RGBD;
    size_t ncfg = stereo ? sizeof STEREO / sizeof STEREO[0] : sizeof RGBD / sizeof RGBD[0];
    const char *name = stereo ? "stereo" : "rgbd";
    if (mode == CG_ZC_MODE_SEMAPHORE && !epoxy_has_gl_extension("GL_EXT_semaphore_fd")) {
        printf("SKIP gl_ring_%s_semaphore: this GL (%s) lacks GL_EXT_semaphore_fd; the GPU "
               "machine runs it\n",
               name, (const char *)glGetString(GL_RENDERER));
        return SKIP;
    }
    cg_gl_reader *oracle = NULL;
    CHECK(cg_gl_reader_create(NULL, &oracle) == CG_OK, "oracle reader");
    int frames = 0, want_frames = 0;
    for (size_t ci = 0; ci < ncfg; ci++) {
        const planes_cfg *c = &cfgs[ci];
        int big = (size_t)c->sw * c->sh > 100000;
        want_frames += big ? 1 : 4;
        gl_scene sc[2];
        CHECK(gl_scene_create(&sc[0], c->sw, c->sh) == 0 && gl_scene_create(&sc[1], c->sw, c->sh) == 0,
              "scenes");
        cg_err e = {{0}};
        cg_status st;
        cg_gl_ring *r = open_planes(c, mode, &st, &e);
        if (st == CG_E_UNSUPPORTED && mode == CG_ZC_MODE_SEMAPHORE) {
            printf("SKIP gl_ring_%s_semaphore: %s\n", name, e.text);
            gl_scene_destroy(&sc[0]);
            gl_scene_destroy(&sc[1]);
            cg_gl_reader_destroy(oracle);
            return SKIP;
        }
        CHECK(st == CG_OK, "create %dx%d -> %dx%d, %u eyes, depth %d: %s %s", c->sw, c->sh, c->dw,
              c->dh, c->eyes, (int)c->depth, cg_status_name(st), e.text);
        if (!r) break;
        cg_gl_ring_info gi;
        cg_vk_ring_info vi;
        cg_gl_ring_get_info(r, &gi);
        cg_gl_ring_get_ring_info(r, &vi);
        uint8_t tmpl[CG_ZC_DESC_MAX_SIZE], desc[CG_ZC_DESC_MAX_SIZE];
        cg_zc_desc dd;
        CHECK(cg_gl_ring_template(r, tmpl, sizeof tmpl) == CG_OK &&
                  cg_zc_desc_length(tmpl) == CG_ZC_DESC_V3_SIZE && tmpl[4] == 3 &&
                  cg_zc_desc_decode(tmpl, sizeof tmpl, &dd, &e) == CG_OK &&
                  layout_as_documented(c, &dd),
              "template: version 3, the documented layout (%s)", e.text);
        planes_want w;
        planes_want_alloc(&w, c);
        uint8_t *slot = malloc(frame_bytes_of(&dd, c));
        int nframes = big ? 1 : 4;
        for (int f = 0; f < nframes; f++) {
            /* Frame 2 overrides the planes (and the clip convention). */
            cg_zc_depth_params over = {16.0f, 16.5f, !c->z01};
            const cg_zc_depth_params *lin = f == 2 && c->depth == CG_ZC_DEPTH_LINEAR ? &over : NULL;
            size_t len = 0;
            st = planes_parts(r, c, sc, oracle, (uint32_t)(ci * 16 + (size_t)f), lin, &w, desc, &len);
            if (st != CG_OK || len != CG_ZC_DESC_V3_SIZE) continue;
            CHECK(cg_zc_desc_decode(desc, len, &dd, &e) == CG_OK && layout_as_documented(c, &dd),
                  "frame descriptor: %s", e.text);
            float wn = lin ? lin->near_plane : c->near_plane, wf = lin ? lin->far_plane : c->far_plane;
            int wz = lin ? lin->z_zero_to_one : c->z01;
            if (c->depth == CG_ZC_DEPTH_LINEAR)
                CHECK(dd.near_plane == wn && dd.far_plane == wf &&
                          dd.depth_flags == (wz ? CG_ZC_DEPTH_Z_ZERO_TO_ONE : 0u),
                      "frame %llu carries near %g far %g z01 %d (has %g %g %u)",
                      (unsigned long long)dd.frame, (double)wn, (double)wf, wz,
                      (double)dd.near_plane, (double)dd.far_plane, dd.depth_flags);
            else
                CHECK(dd.near_plane == 0 && dd.far_plane == 0 && dd.depth_flags == 0,
                      "raw or no depth: near/far/flags 0");
            CHECK(wait_frame(&gi, &vi, dd.frame), "frame %llu complete", (unsigned long long)dd.frame);
            size_t n = frame_bytes_of(&dd, c);
            glGetNamedBufferSubData(gi.buffers[dd.slot], 0, (GLsizeiptr)n, slot);
            CHECK(glGetError() == GL_NO_ERROR, "read slot %u", dd.slot);
            frames += planes_match(&dd, slot, &w, c, "slot");
            CHECK(glGetError() == GL_NO_ERROR, "no GL error left behind");
        }
        free(slot);
        planes_want_free(&w);
        if (!big && (ci == 1 || ci == 2)) planes_learner(r, c, sc, oracle, &gi, &vi);
        uint64_t cnt[CG_ZC_COUNTERS];
        cg_gl_ring_get_counters(r, cnt);
        CHECK(cnt[CG_ZC_COUNT_SKIPPED] == 0, "no frame skipped (%llu)",
              (unsigned long long)cnt[CG_ZC_COUNT_SKIPPED]);
        destroy_keeps_context(r);
        gl_scene_destroy(&sc[0]);
        gl_scene_destroy(&sc[1]);
    }
    cg_gl_reader_destroy(oracle);
    printf("%d %s frames: RGB planes byte-exact vs cg_convert, depth planes within %u ulps of "
           "captureDepthImpl's core (linear) / glReadPixels (raw); %s mode\n",
           frames, name, planes_worst_ulps, mode == CG_ZC_MODE_SEMAPHORE ? "semaphore" : "fence");
    CHECK(frames == want_frames, "every frame matched (%d of %d)", frames, want_frames);
    return failures ? 1 : 0;
}

/* Every slot's lease word: a PUBLISHED one names a frame the ring returned
 * a descriptor for (`returned`: bit f for frame f < 64). */
static int only_returned_published(const cg_vk_ring_info *vi, uint64_t returned)
{
    for (uint32_t i = 0; i < vi->slots; i++) {
        uint64_t w = cg_zc_lease_load(vi->control, i);
        uint64_t f = CG_ZC_WORD_FRAME(w);
        if (CG_ZC_WORD_STATE(w) == CG_ZC_PUBLISHED && (f >= 64 || !(returned & (1ull << f))))
            return 0;
    }
    return 1;
}

/* The four parts of a stereo RGB-D frame; returns the descriptor's frame
 * (0 when it was not published). */
static uint64_t stereo_frame(cg_gl_ring *r, const gl_scene *sc, GLuint dt, uint64_t *returned)
{
    uint8_t desc[CG_ZC_DESC_MAX_SIZE];
    size_t len = 1;
    cg_status st = cg_gl_ring_publish_depth(r, dt, 0, NULL, desc, &len);
    st = st == CG_OK ? cg_gl_ring_publish_eye(r, sc->color, 0, NULL, desc, &len) : st;
    st = st == CG_OK ? cg_gl_ring_publish_depth(r, dt, 1, NULL, desc, &len) : st;
    st = st == CG_OK ? cg_gl_ring_publish_eye(r, sc->color, 1, NULL, desc, &len) : st;
    cg_zc_desc dd;
    cg_err e = {{0}};
    if (st != CG_OK || len != CG_ZC_DESC_V3_SIZE || cg_zc_desc_decode(desc, len, &dd, &e) != CG_OK)
        return 0;
    if (dd.frame < 64) *returned |= 1ull << dd.frame;
    return dd.frame;
}

static uint64_t skipped_count(cg_gl_ring *r)
{
    uint64_t c[CG_ZC_COUNTERS];
    cg_gl_ring_get_counters(r, c);
    return c[CG_ZC_COUNT_SKIPPED];
}

/* The part order (cg_zc_parts.h) on a stereo RGB-D ring: out-of-order
 * parts give the open frame up (never published, counted skipped) and
 * report skipped; a frame with an eye missing is never published; bad
 * arguments change nothing; a full ring skips the whole frame once. */
static int case_parts(void)
{
    const planes_cfg c = {16, 8, 16, 8, 2, CG_ZC_DEPTH_LINEAR, 0.1f, 100.0f, 0, GL_DEPTH_COMPONENT32F};
    gl_scene sc;
    CHECK(gl_scene_create(&sc, 16, 8) == 0, "scene");
    float d[16 * 8];
    depth_fill(d, 16, 8, 5);
    GLuint dt = depth_texture(GL_DEPTH_COMPONENT32F, 16, 8, d);
    cg_err e = {{0}};
    cg_status st;
    cg_gl_ring *r = open_planes(&c, CG_ZC_MODE_FENCE, &st, &e);
    CHECK(st == CG_OK, "create: %s", e.text);
    if (!r) return 1;
    cg_vk_ring_info vi;
    cg_gl_ring_get_ring_info(r, &vi);
    uint8_t desc[CG_ZC_DESC_MAX_SIZE];
    size_t len = 7;
    uint64_t returned = 0;

    /* colour(0) twice: the open frame is given up, the part skipped. */
    CHECK(cg_gl_ring_publish_depth(r, dt, 0, NULL, desc, &len) == CG_OK && len == 0, "depth(0)");
    CHECK(cg_gl_ring_publish_eye(r, sc.color, 0, NULL, desc, &len) == CG_OK && len == 0, "colour(0)");
    st = cg_gl_ring_publish_eye(r, sc.color, 0, NULL, desc, &len);
    CHECK(st == CG_E_RING_FULL && len == 0 && strstr(cg_gl_ring_last_error(r), "out of order"),
          "colour(0) again: %s %s", cg_status_name(st), cg_gl_ring_last_error(r));
    CHECK(skipped_count(r) == 1, "the abandoned frame counts as skipped");
    CHECK(only_returned_published(&vi, returned), "nothing published");
    /* The rest of that frame, and a part with no frame open: skipped, not counted again. */
    CHECK(cg_gl_ring_publish_depth(r, dt, 1, NULL, desc, &len) == CG_E_RING_FULL, "depth(1)");
    CHECK(cg_gl_ring_publish_eye(r, sc.color, 1, NULL, desc, &len) == CG_E_RING_FULL, "colour(1)");
    CHECK(skipped_count(r) == 1, "skipped once (%llu)", (unsigned long long)skipped_count(r));
    uint64_t f1 = stereo_frame(r, &sc, dt, &returned);
    CHECK(f1 == 1, "a whole frame next is published as frame 1 (the abandoned one's number): %llu",
          (unsigned long long)f1);

    /* An eye missing: depth(0) begins the next frame, the open one is given up. */
    CHECK(cg_gl_ring_publish_depth(r, dt, 0, NULL, desc, &len) == CG_OK, "depth(0)");
    CHECK(cg_gl_ring_publish_eye(r, sc.color, 0, NULL, desc, &len) == CG_OK, "colour(0)");
    CHECK(cg_gl_ring_publish_depth(r, dt, 1, NULL, desc, &len) == CG_OK && len == 0, "depth(1)");
    uint64_t f2 = stereo_frame(r, &sc, dt, &returned);
    CHECK(f2 == 2 && skipped_count(r) == 2, "the frame without colour(1) never published: frame "
                                            "%llu, skipped %llu",
          (unsigned long long)f2, (unsigned long long)skipped_count(r));
    CHECK(only_returned_published(&vi, returned), "only frames returned are PUBLISHED");

    /* Bad arguments mid-frame change nothing. */
    cg_zc_depth_params lin = {0.5f, 50.0f, 1}, other = {0.5f, 60.0f, 1}, bad = {2.0f, 1.0f, 0};
    CHECK(cg_gl_ring_publish_depth(r, dt, 0, &lin, desc, &len) == CG_OK, "depth(0) with planes");
    st = cg_gl_ring_publish_eye(r, sc.color, 2, NULL, desc, &len);
    CHECK(st == CG_E_INVALID_ARG, "eye 2: %s %s", cg_status_name(st), cg_gl_ring_last_error(r));
    st = cg_gl_ring_publish_depth(r, dt, 0, &bad, desc, &len);
    CHECK(st == CG_E_INVALID_ARG && strstr(cg_gl_ring_last_error(r), "near"),
          "near 2 far 1: %s %s", cg_status_name(st), cg_gl_ring_last_error(r));
    CHECK(cg_gl_ring_publish_eye(r, sc.color, 0, NULL, desc, NULL) == CG_E_INVALID_ARG,
          "no length");
    CHECK(cg_gl_ring_publish_eye(r, sc.color, 0, NULL, NULL, &len) == CG_E_INVALID_ARG,
          "no descriptor");
    CHECK(cg_gl_ring_publish_cursor(r, sc.color, NULL, desc) == CG_E_INVALID_ARG &&
              strstr(cg_gl_ring_last_error(r), "parts"),
          "publish_cursor on a ring of parts: %s", cg_gl_ring_last_error(r));
    CHECK(cg_gl_ring_publish_eye(r, sc.color, 0, NULL, desc, &len) == CG_OK && len == 0,
          "colour(0) after the refusals");
    st = cg_gl_ring_publish_depth(r, dt, 1, &other, desc, &len);
    CHECK(st == CG_E_INVALID_ARG && strstr(cg_gl_ring_last_error(r), "depth(0)"),
          "depth(1) with other planes: %s %s", cg_status_name(st), cg_gl_ring_last_error(r));
    CHECK(cg_gl_ring_publish_depth(r, dt, 1, &lin, desc, &len) == CG_OK && len == 0,
          "depth(1) with the frame's planes");
    CHECK(cg_gl_ring_publish_eye(r, sc.color, 1, NULL, desc, &len) == CG_OK &&
              len == CG_ZC_DESC_V3_SIZE,
          "colour(1) publishes: %s", cg_gl_ring_last_error(r));
    cg_zc_desc dd;
    CHECK(cg_zc_desc_decode(desc, len, &dd, &e) == CG_OK && dd.frame == 3 &&
              dd.near_plane == 0.5f && dd.far_plane == 50.0f &&
              dd.depth_flags == CG_ZC_DEPTH_Z_ZERO_TO_ONE,
          "frame 3 carries depth(0)'s planes");
    returned |= 1ull << 3;

    /* A full ring: the whole frame is skipped once. */
    uint64_t held[3];
    for (int i = 0; i < 3; i++) {
        held[i] = stereo_frame(r, &sc, dt, &returned);
        CHECK(held[i] == 4u + (uint64_t)i, "frame %d", 4 + i);
        for (uint32_t k = 0; k < vi.slots; k++) {
            uint64_t w = cg_zc_lease_load(vi.control, k);
            if (CG_ZC_WORD_FRAME(w) == held[i] && CG_ZC_WORD_STATE(w) == CG_ZC_PUBLISHED)
                CHECK(cg_zc_acquire(vi.control, k, held[i], &e) == CG_OK, "hold: %s", e.text);
        }
    }
    uint64_t before = skipped_count(r);
    st = cg_gl_ring_publish_depth(r, dt, 0, NULL, desc, &len);
    CHECK(st == CG_E_RING_FULL, "depth(0) on a full ring: %s", cg_status_name(st));
    CHECK(cg_gl_ring_publish_eye(r, sc.color, 0, NULL, desc, &len) == CG_E_RING_FULL &&
              cg_gl_ring_publish_depth(r, dt, 1, NULL, desc, &len) == CG_E_RING_FULL &&
              cg_gl_ring_publish_eye(r, sc.color, 1, NULL, desc, &len) == CG_E_RING_FULL,
          "the frame's other parts skipped");
    CHECK(skipped_count(r) == before + 1, "one skipped frame");
    for (uint32_t k = 0; k < vi.slots; k++) {
        uint64_t w = cg_zc_lease_load(vi.control, k);
        if (CG_ZC_WORD_STATE(w) == CG_ZC_ACTIVE)
            CHECK(cg_zc_release(vi.control, k, CG_ZC_WORD_FRAME(w), &e) == CG_OK, "release");
    }
    CHECK(stereo_frame(r, &sc, dt, &returned) == 7, "frame 7 once slots are free");

    /* A colour texture given as depth: refused, the frame given up, the ring usable. */
    st = cg_gl_ring_publish_depth(r, sc.color, 0, NULL, desc, &len);
    CHECK(st == CG_E_BAD_TEXTURE && strstr(cg_gl_ring_last_error(r), "depth format"),
          "a colour texture as depth: %s %s", cg_status_name(st), cg_gl_ring_last_error(r));
    CHECK(cg_gl_ring_publish_eye(r, sc.color, 0, NULL, desc, &len) == CG_E_RING_FULL,
          "that frame's colour(0) skipped");
    CHECK(stereo_frame(r, &sc, dt, &returned) == 8, "frame 8");
    CHECK(only_returned_published(&vi, returned), "only frames returned are PUBLISHED");
    CHECK(glGetError() == GL_NO_ERROR, "no GL error left behind");
    destroy_keeps_context(r);

    /* A stereo ring without depth: a depth part is a bad argument. */
    const planes_cfg c2 = {16, 8, 16, 8, 2, CG_ZC_DEPTH_NONE, 0, 0, 0, 0};
    r = open_planes(&c2, CG_ZC_MODE_FENCE, &st, &e);
    CHECK(st == CG_OK, "stereo ring: %s", e.text);
    if (r) {
        st = cg_gl_ring_publish_depth(r, dt, 0, NULL, desc, &len);
        CHECK(st == CG_E_INVALID_ARG, "depth on a ring without depth: %s %s",
              cg_status_name(st), cg_gl_ring_last_error(r));
        CHECK(cg_gl_ring_publish_eye(r, sc.color, 0, NULL, desc, &len) == CG_OK && len == 0 &&
                  cg_gl_ring_publish_eye(r, sc.color, 1, NULL, desc, &len) == CG_OK &&
                  len == CG_ZC_DESC_V3_SIZE,
              "then a stereo frame");
        destroy_keeps_context(r);
    }
    glDeleteTextures(1, &dt);
    gl_scene_destroy(&sc);
    return failures ? 1 : 0;
}

/* Rings that cannot have planes, or bad planes: refused at create. */
static int case_planes_bad_input(void)
{
    static const struct {
        const char *what;
        uint32_t eyes;
        int depth;
        float n, f;
        cg_vk_slot_format format;
        const char *text;
    } bad[] = {
        {"3 eyes", 3, 0, 0, 0, CG_VK_SLOT_RGB8, "eyes 3"},
        {"depth encoding 5", 1, 5, 0, 0, CG_VK_SLOT_RGB8, "depth encoding 5"},
        {"eyes on a copy ring", 2, 0, 0, 0, CG_VK_SLOT_COPY, "RGB8"},
        {"depth on a copy ring", 1, 2, 0, 0, CG_VK_SLOT_COPY, "RGB8"},
        {"linear, near 0", 1, 1, 0.0f, 1.0f, CG_VK_SLOT_RGB8, "near"},
        {"linear, far < near", 1, 1, 2.0f, 1.0f, CG_VK_SLOT_RGB8, "near"},
        {"linear, far inf", 1, 1, 1.0f, INFINITY, CG_VK_SLOT_RGB8, "near"},
        {"linear, near NaN", 1, 1, NAN, 1.0f, CG_VK_SLOT_RGB8, "near"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cg_gl_ring_desc d = ring_desc(16, 8, CG_ZC_MODE_FENCE);
        d.slot_format = bad[i].format;
        d.eyes = bad[i].eyes;
        d.depth = (cg_zc_depth_encoding)bad[i].depth;
        d.near_plane = bad[i].n;
        d.far_plane = bad[i].f;
        cg_gl_ring *r = NULL;
        cg_err e = {{0}};
        cg_status st = cg_gl_ring_create(&d, &r, &e);
        CHECK(st == CG_E_INVALID_ARG && !r && strstr(e.text, bad[i].text), "%s: %s %s",
              bad[i].what, cg_status_name(st), e.text);
    }
    /* One eye, no depth: version 2 exactly as a ring without the fields. */
    cg_gl_ring_desc d = ring_desc(16, 8, CG_ZC_MODE_FENCE);
    d.slot_format = CG_VK_SLOT_RGB8;
    d.eyes = 1;
    cg_gl_ring *r = NULL;
    cg_err e = {{0}};
    uint8_t t[CG_ZC_DESC_MAX_SIZE];
    CHECK(cg_gl_ring_create(&d, &r, &e) == CG_OK && cg_gl_ring_template(r, t, sizeof t) == CG_OK &&
              cg_zc_desc_length(t) == CG_ZC_DESC_SIZE && t[4] == 2,
          "eyes 1 without depth: version 2 (%s)", e.text);
    cg_vk_ring_info vi;
    cg_gl_ring_get_ring_info(r, &vi);
    CHECK(vi.slot_size == round_up(16 * 8 * 3, 12) + 256, "its slot as before: %llu",
          (unsigned long long)vi.slot_size);
    gl_scene sc;
    CHECK(gl_scene_create(&sc, 16, 8) == 0, "scene");
    size_t len = 0;
    CHECK(cg_gl_ring_publish_eye(r, sc.color, 0, NULL, t, &len) == CG_OK && len == CG_ZC_DESC_SIZE,
          "colour(0) of a plain ring: a 192-byte descriptor (%zu)", len);
    cg_zc_depth_params lin = {1, 2, 0};
    CHECK(cg_gl_ring_publish_depth(r, sc.depth, 0, &lin, t, &len) == CG_E_INVALID_ARG,
          "depth on a plain ring");
    gl_scene_destroy(&sc);
    destroy_keeps_context(r);
    return failures ? 1 : 0;
}

/* A GL producer for the Python learner's tests (tests/python/test_ring.py,
 * the same command line as test_zc_ring's):
 *   serve fence|semaphore W H N STEP
 * A ring of 3 slots at WxH publishes frames 1..N of the test pattern,
 * uploaded into a GL texture, and prints each descriptor in hex, one a
 * line; with STEP=1 it reads a line from stdin before each frame. It then
 * serves until stdin closes and prints each slot's final lease state and
 * whether libcuda was ever mapped. Exit 77: no context, or the mode is not
 * available here. */
/* ---- the compute copy ------------------------------------------------------ */

/* One frame of noise through r; the slot compared with the texture's bytes
 * (glTexImage2D's row 0 is GL's row 0, which glReadPixels writes first). */
static int copy_frame(cg_gl_ring *r, gl_scene *sc, int w, int h, uint32_t seed, uint8_t *px,
                      uint8_t *got)
{
    size_t n = (size_t)w * (size_t)h * 4;
    noise(px, n, seed);
    CHECK(gl_scene_upload(sc->color, w, h, px) == 0, "upload");
    uint8_t desc[CG_ZC_DESC_SIZE];
    cg_status st = cg_gl_ring_publish(r, sc->color, desc);
    CHECK(st == CG_OK, "%dx%d: %s %s", w, h, cg_status_name(st), cg_gl_ring_last_error(r));
    if (st != CG_OK) return 0;
    cg_gl_ring_info gi;
    cg_vk_ring_info vi;
    cg_gl_ring_get_info(r, &gi);
    cg_gl_ring_get_ring_info(r, &vi);
    cg_zc_desc dd;
    cg_err e = {{0}};
    CHECK(cg_zc_desc_decode(desc, CG_ZC_DESC_SIZE, &dd, &e) == CG_OK && dd.format == 37 &&
              dd.width == (uint32_t)w && dd.height == (uint32_t)h && dd.row_pitch == (uint32_t)w * 4 &&
              dd.flags == CG_ZC_FLAG_ROWS_BOTTOM_UP,
          "descriptor: format 37, %dx%d, pitch w*4, ROWS_BOTTOM_UP", w, h);
    CHECK(wait_frame(&gi, &vi, dd.frame), "frame complete");
    memset(got, 0xee, n);
    CHECK(read_slot_gl(&gi, dd.slot, got, n) == 0, "read slot %u", dd.slot);
    /* The learner's side of the lease, so the slot can be written again. */
    CHECK(cg_zc_acquire(vi.control, dd.slot, dd.frame, &e) == CG_OK, "acquire: %s", e.text);
    CHECK(cg_zc_release(vi.control, dd.slot, dd.frame, &e) == CG_OK, "release: %s", e.text);
    if (memcmp(got, px, n) == 0) return 1;
    size_t at = 0;
    while (got[at] == px[at]) at++;
    CHECK(0, "%dx%d path %d: byte %zu (x %zu, GL row %zu) is %u, the texture holds %u", w, h,
          (int)gi.copy_path, at, at / 4 % (size_t)w, at / 4 / (size_t)w, got[at], px[at]);
    return 0;
}

static cg_gl_ring *open_copy(int w, int h, unsigned texture_format, int want_path)
{
    cg_gl_ring_desc d = ring_desc(w, h, CG_ZC_MODE_FENCE);
    d.slots = 2;
    d.texture_format = texture_format;
    cg_gl_ring *r = NULL;
    cg_err e = {{0}};
    cg_status st = cg_gl_ring_create(&d, &r, &e);
    CHECK(st == CG_OK, "create %dx%d: %s", w, h, e.text);
    cg_gl_ring_info gi;
    cg_gl_ring_get_info(r, &gi);
    CHECK(!r || (int)gi.copy_path == want_path, "%dx%d texture_format 0x%x: path %d, want %d", w,
          h, texture_format, r ? (int)gi.copy_path : -1, want_path);
    return r;
}

static int case_copy(void)
{
    static const struct { int w, h; } SZ[] = {
        {1, 1}, {1, 37}, {37, 1}, {7, 5}, {13, 11}, {65, 3}, {64, 48}, {641, 359}, {640, 360},
        {1920, 1080},
    };
    int frames = 0;
    for (size_t si = 0; si < sizeof SZ / sizeof SZ[0]; si++) {
        int w = SZ[si].w, h = SZ[si].h;
        size_t n = (size_t)w * (size_t)h * 4;
        uint8_t *px = malloc(n), *got = malloc(n);
        gl_scene sc;
        CHECK(px && got && gl_scene_create(&sc, w, h) == 0, "scene %dx%d", w, h);
        cg_gl_ring *rc = open_copy(w, h, GL_RGBA8, CG_VK_COPY_PATH_COMPUTE);
        cg_gl_ring *rt = open_copy(w, h, 0, CG_VK_COPY_PATH_TRANSFER);
        for (int f = 0; rc && rt && f < 3; f++) {
            frames += copy_frame(rc, &sc, w, h, (uint32_t)(si * 8 + (size_t)f), px, got);
            frames += copy_frame(rt, &sc, w, h, (uint32_t)(si * 8 + (size_t)f), px, got);
        }
        destroy_keeps_context(rc);
        destroy_keeps_context(rt);
        gl_scene_destroy(&sc);
        free(px);
        free(got);
    }
    /* sRGB: the compute ring refuses it per frame (texelFetch would decode
     * it), losing nothing; a ring told its format packs it as stored. */
    gl_scene sc;
    CHECK(gl_scene_create(&sc, 8, 4) == 0, "scene");
    GLuint srgb;
    uint8_t px[8 * 4 * 4], px2[8 * 4 * 4], got[8 * 4 * 4];
    noise(px, sizeof px, 99);
    glGenTextures(1, &srgb);
    glBindTexture(GL_TEXTURE_2D, srgb);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, 8, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glBindTexture(GL_TEXTURE_2D, 0);
    cg_gl_ring *rc = open_copy(8, 4, GL_RGBA8, CG_VK_COPY_PATH_COMPUTE);
    uint8_t desc[CG_ZC_DESC_SIZE];
    cg_status st = rc ? cg_gl_ring_publish(rc, srgb, desc) : CG_E_INVALID_ARG;
    CHECK(st == CG_E_BAD_TEXTURE && strstr(cg_gl_ring_last_error(rc), "sRGB"),
          "an sRGB texture on a ring told GL_RGBA8: %s %s", cg_status_name(st),
          cg_gl_ring_last_error(rc));
    frames += rc ? copy_frame(rc, &sc, 8, 4, 5, px2, got) : 0; /* still usable */
    destroy_keeps_context(rc);
    cg_gl_ring *rs = open_copy(8, 4, GL_SRGB8_ALPHA8, CG_VK_COPY_PATH_TRANSFER);
    st = rs ? cg_gl_ring_publish(rs, srgb, desc) : CG_E_INVALID_ARG;
    CHECK(st == CG_OK, "an sRGB texture on a ring told so: %s", cg_gl_ring_last_error(rs));
    cg_gl_ring_info gi;
    cg_zc_desc dd;
    cg_err e = {{0}};
    if (st == CG_OK) {
        cg_gl_ring_get_info(rs, &gi);
        CHECK(cg_zc_desc_decode(desc, CG_ZC_DESC_SIZE, &dd, &e) == CG_OK &&
                  read_slot_gl(&gi, dd.slot, got, sizeof got) == 0 && memcmp(got, px, sizeof px) == 0,
              "the sRGB texture's stored bytes");
    }
    destroy_keeps_context(rs);
    glDeleteTextures(1, &srgb);
    gl_scene_destroy(&sc);
    printf("%d copy frames equal to the texture's bytes (half by the compute copy)\n", frames);
    CHECK(frames >= 61, "the sweep ran (%d frames)", frames);
    return failures ? 1 : 0;
}

static int serve(int argc, char **argv)
{
    if (argc < 5) return 2;
    int mode = strcmp(argv[0], "semaphore") == 0 ? CG_ZC_MODE_SEMAPHORE : CG_ZC_MODE_FENCE;
    int w = atoi(argv[1]), h = atoi(argv[2]), n = atoi(argv[3]), step = atoi(argv[4]);
    cg_egl_headless *egl = NULL;
    char why[256];
    if (cg_egl_headless_open(&egl, why, sizeof why) != 0) {
        fprintf(stderr, "serve: no EGL context: %s\n", why);
        return SKIP;
    }
    gl_scene sc;
    cg_gl_ring_desc d = ring_desc(w, h, mode);
    d.socket_dir = NULL; /* the protocol's own rule */
    d.wait_ns = 1000000000; /* lockstep: the learner releases within a step */
    cg_err e = {{0}};
    cg_gl_ring *r = NULL;
    cg_status st = gl_scene_create(&sc, w, h) ? CG_E_GL : cg_gl_ring_create(&d, &r, &e);
    if (st != CG_OK) {
        fprintf(stderr, "serve: %s %s\n", cg_status_name(st), e.text);
        return st == CG_E_UNSUPPORTED ? SKIP : 1;
    }
    uint8_t desc[CG_ZC_DESC_SIZE];
    char line[64];
    for (int f = 1; f <= n; f++) {
        if (step && !fgets(line, sizeof line, stdin)) break;
        if (publish_frame(r, sc.color, w, h, f, desc) != CG_OK) {
            fprintf(stderr, "serve: frame %d: %s\n", f, cg_gl_ring_last_error(r));
            return 1;
        }
        for (int k = 0; k < CG_ZC_DESC_SIZE; k++) printf("%02x", desc[k]);
        printf("\n");
        fflush(stdout);
    }
    while (fgets(line, sizeof line, stdin)) {
    }
    cg_gl_ring_info gi;
    cg_gl_ring_get_info(r, &gi);
    cg_vk_ring_info vi;
    cg_gl_ring_get_ring_info(r, &vi);
    /* The learner has gone: wait for the hand-off thread to reclaim. */
    for (int i = 0; i < 2000; i++) {
        cg_zc_server_stats ss;
        cg_zc_server_get_stats(vi.server, &ss);
        if (!ss.connected) break;
        usleep(1000);
    }
    printf("states:");
    for (uint32_t i = 0; i < vi.slots; i++)
        printf(" %d", (int)CG_ZC_WORD_STATE(cg_zc_lease_load(vi.control, i)));
    printf("\nlibcuda: %s\n", zc_libcuda_mapped() ? "mapped" : "no");
    fflush(stdout);
    cg_gl_ring_destroy(r);
    gl_scene_destroy(&sc);
    cg_egl_headless_close(egl);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "serve") == 0) return serve(argc - 2, argv + 2);
    if (argc < 3) {
        fprintf(stderr, "usage: %s CASE LEARNER\n", argv[0]);
        return 2;
    }
    const char *c = argv[1];
    learner_exe = argv[2];
    if (strcmp(c, "uuid") == 0) return case_uuid();
    if (strcmp(c, "no_memory_object") == 0)
        setenv("MESA_EXTENSION_OVERRIDE", "-GL_EXT_memory_object_fd", 1);
    if (strcmp(c, "rgb_no_compute") == 0 || strcmp(c, "rgb_ext") == 0)
        setenv("MESA_GL_VERSION_OVERRIDE", "4.2", 1);
    if (strcmp(c, "rgb_no_compute") == 0)
        setenv("MESA_EXTENSION_OVERRIDE", "-GL_ARB_compute_shader", 1);
    cg_egl_headless *egl = NULL;
    char why[256];
    if (cg_egl_headless_open(&egl, why, sizeof why) != 0) {
        printf("SKIP gl_ring_%s: no EGL context: %s\n", c, why);
        return SKIP;
    }
    snprintf(test_dir, sizeof test_dir, "/tmp/cg-gl-ring-test-%ld", (long)getpid());
    mkdir(test_dir, 0700);
    int rc;
    if (strcmp(c, "no_memory_object") == 0) {
        if (epoxy_has_gl_extension("GL_EXT_memory_object_fd")) {
            printf("SKIP gl_ring_no_memory_object: this driver (%s) ignores "
                   "MESA_EXTENSION_OVERRIDE\n",
                   (const char *)glGetString(GL_RENDERER));
            rc = SKIP;
        } else {
            cg_err e = {{0}};
            cg_gl_ring *r = NULL;
            cg_gl_ring_desc d = ring_desc(32, 16, 0);
            cg_status st = cg_gl_ring_create(&d, &r, &e);
            CHECK(st == CG_E_UNSUPPORTED && !r && strstr(e.text, "GL_EXT_memory_object_fd"),
                  "%s: %s", cg_status_name(st), e.text);
            rc = failures ? 1 : 0;
        }
    } else if (strcmp(c, "rgb_no_compute") == 0) {
        if (epoxy_gl_version() >= 43 || epoxy_has_gl_extension("GL_ARB_compute_shader")) {
            printf("SKIP gl_ring_rgb_no_compute: this driver (%s) ignores Mesa's overrides "
                   "(GL %d, compute still there)\n",
                   (const char *)glGetString(GL_RENDERER), epoxy_gl_version());
            rc = SKIP;
        } else {
            cg_err e = {{0}};
            cg_gl_ring *r = NULL;
            cg_gl_ring_desc d = ring_desc(32, 16, CG_ZC_MODE_FENCE);
            d.slot_format = CG_VK_SLOT_RGB8;
            cg_status st = cg_gl_ring_create(&d, &r, &e);
            CHECK(st == CG_E_UNSUPPORTED && !r && strstr(e.text, "GL 4.3") &&
                      strstr(e.text, "GL_ARB_compute_shader"),
                  "%s: %s", cg_status_name(st), e.text);
            rc = failures ? 1 : 0;
        }
    } else if (!epoxy_has_gl_extension("GL_EXT_memory_object_fd")) {
        printf("SKIP gl_ring_%s: this GL (%s) lacks GL_EXT_memory_object_fd\n", c,
               (const char *)glGetString(GL_RENDERER));
        rc = SKIP;
    } else if (strcmp(c, "frames") == 0) {
        rc = case_frames();
    } else if (strcmp(c, "semaphore") == 0) {
        rc = case_semaphore(CG_GL_RING_SIGNAL_BRIDGE);
    } else if (strcmp(c, "timeline") == 0) {
        rc = case_semaphore(CG_GL_RING_SIGNAL_GL_TIMELINE);
    } else if (strcmp(c, "bad_input") == 0) {
        rc = case_bad_input(egl);
    } else if (strcmp(c, "lifecycle") == 0) {
        rc = case_lifecycle(egl);
    } else if (strcmp(c, "rgb_ext") == 0) {
        /* GL 4.2 with GL_ARB_compute_shader (NVIDIA gives a game the 3.x
         * core it asks for, with compute as extensions): the same sweep
         * through the extension form of the shader. */
        if (epoxy_gl_version() >= 43 || !epoxy_has_gl_extension("GL_ARB_compute_shader")) {
            printf("SKIP gl_ring_rgb_ext: this driver (%s) gives GL %d%s\n",
                   (const char *)glGetString(GL_RENDERER), epoxy_gl_version(),
                   epoxy_gl_version() >= 43 ? " (MESA_GL_VERSION_OVERRIDE ignored)"
                                            : " without GL_ARB_compute_shader");
            rc = SKIP;
        } else {
            rc = case_rgb(CG_ZC_MODE_FENCE);
        }
    } else if (strcmp(c, "rgb") == 0) {
        rc = case_rgb(CG_ZC_MODE_FENCE);
    } else if (strcmp(c, "rgb_semaphore") == 0) {
        rc = case_rgb(CG_ZC_MODE_SEMAPHORE);
    } else if (strcmp(c, "rgb_bad_input") == 0) {
        rc = case_rgb_bad_input();
    } else if (strcmp(c, "copy") == 0) {
        rc = case_copy();
    } else if (strcmp(c, "rgbd") == 0 || strcmp(c, "stereo") == 0) {
        rc = case_planes(c[0] == 's', CG_ZC_MODE_FENCE);
    } else if (strcmp(c, "rgbd_semaphore") == 0 || strcmp(c, "stereo_semaphore") == 0) {
        rc = case_planes(c[0] == 's', CG_ZC_MODE_SEMAPHORE);
    } else if (strcmp(c, "parts") == 0) {
        rc = case_parts();
    } else if (strcmp(c, "planes_bad_input") == 0) {
        rc = case_planes_bad_input();
    } else {
        fprintf(stderr, "unknown case %s\n", c);
        rc = 2;
    }
    cg_egl_headless_close(egl);
    rmdir(test_dir);
    return rc;
}
