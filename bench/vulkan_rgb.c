/*
 * vulkan_rgb.c - GPU cost of the zero-copy ring's RGB slot format
 * (docs/zero-copy-v2/protocol.md, "The RGB slot format") against the plain copy,
 * measured with GPU timestamps (vkCmdWriteTimestamp) around exactly what
 * the ring records for one frame (fence mode: into this process's command
 * buffer, as a game's), same image, same run.
 *
 * Per size: the copy ring's GPU time (the limit), then the RGB ring's
 * (UNORM image: one dispatch; SRGB image: one dispatch where the ring's
 * probe of the view's decode passes, "(view)", else the staging copy +
 * dispatch, "(staging)"; a downscale to 640x360 too), each a median over `iters` frames and
 * printed as a ratio to the copy's; the target is RGB/copy <= 1.5. The
 * cursor is drawn in every RGB frame. Also the compute copy (the copy
 * ring told the image is SAMPLED: cg_vk_copy.comp, the same bytes; SRGB:
 * where its probe passed, else the line says why not) and the same run's
 * bandwidth floor, vkCmdCopyBuffer of the
 * frame's bytes between two device-local slot buffers (read + write 4
 * bytes a pixel); issue 23's target: compute copy <= 3x that floor, or
 * <= 4 us at 640x360 / 10 us at 1920x1080, whichever is larger. And an RGB-D ring
 * (docs/zero-copy-v2/protocol.md, "Depth and stereo planes"; one eye, linear depth from a D32_SFLOAT
 * image, the mod's two parts per frame): the depth dispatch's GPU time beside the RGB
 * dispatch's in the same frames (issue 24's target: depth <= 1.5x RGB), and the game's host
 * time per published RGB-D frame (the ring's calls: record_depth + record_eye in fence mode;
 * record_depth + publish_eye in semaphore mode where the device exports timelines; target
 * <= 25 us). Runs on any Vulkan device with
 * external memory (lavapipe: the code path, not the figures).
 * Usage: bench_vulkan_rgb [iters]   (exit 77 without a Vulkan device)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cg_vk_ring.h"
#include "depth_ref.h"
#include "vkt.h"
#include "vkt_export.h"
#include "zc_test.h"

static vkt T;
static char socket_dir[] = "/tmp/cg-rgb-bench-XXXXXX";
static VkQueryPool pool;
static double tick_ns;
static uint64_t ts_mask;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed frame: the command buffer begun, the first timestamp written. */
static void timed_begin(void)
{
    VKT_FN(&T, vkResetCommandBuffer)(T.cmd, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VKT_FN(&T, vkBeginCommandBuffer)(T.cmd, &bi);
    VKT_FN(&T, vkCmdResetQueryPool)(T.cmd, pool, 0, 3);
    VKT_FN(&T, vkCmdWriteTimestamp)(T.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 0);
}

/* The second timestamp, submit, wait: the GPU microseconds between the two
 * (< 0 when the submit or the query failed). */
static double timed_end(void)
{
    VKT_FN(&T, vkCmdWriteTimestamp)(T.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 1);
    uint64_t q[2];
    if (vkt_submit_wait(&T) ||
        VKT_FN(&T, vkGetQueryPoolResults)(T.dev, pool, 0, 2, sizeof q, q, sizeof q[0],
                                          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) !=
            VK_SUCCESS)
        return -1;
    return (double)((q[1] - q[0]) & ts_mask) * tick_ns / 1000.0;
}

static double median_of(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    double m = n ? t[n / 2] : -1;
    free(t);
    return m;
}

/* Median GPU microseconds of what the ring records for one frame. */
static double gpu_us(cg_vk_ring *r, VkImage img, VkImageLayout layout, int iters, int rgb)
{
    double *t = calloc((size_t)iters, sizeof *t);
    if (!t) return -1;
    int n = 0;
    for (int i = 0; i < iters; i++) {
        timed_begin();
        uint8_t desc[192];
        /* A cursor that moves, as a player's does. */
        cg_cursor c = {rgb, 10 + i % 100, 20 + i % 50};
        cg_status st = cg_vk_ring_record_cursor(r, T.cmd, img, layout, rgb ? &c : NULL, desc);
        double us = st == CG_OK ? timed_end() : -1;
        if (us < 0) {
            fprintf(stderr, "frame %d: %s %s\n", i, cg_status_name(st), cg_vk_ring_last_error(r));
            break;
        }
        t[n++] = us;
    }
    return median_of(t, n);
}

/* Median GPU microseconds of vkCmdCopyBuffer of `bytes` from a to b. */
static double d2d_us(VkBuffer a, VkBuffer b, VkDeviceSize bytes, int iters)
{
    double *t = calloc((size_t)iters, sizeof *t);
    if (!t) return -1;
    int n = 0;
    for (int i = 0; i < iters; i++) {
        timed_begin();
        VkBufferCopy reg = {0, 0, bytes};
        VKT_FN(&T, vkCmdCopyBuffer)(T.cmd, a, b, 1, &reg);
        double us = timed_end();
        if (us < 0) break;
        t[n++] = us;
    }
    return median_of(t, n);
}

static cg_vk_ring *make_ring(VkFormat fmt, int w, int h, int rgb, int tw, int th)
{
    cg_vk_ring_desc d = vkt_ring_desc(&T, w, h, CG_ZC_MODE_FENCE);
    d.format = fmt;
    if (rgb < 0) /* the compute copy: the image's real usage (vkt_image_ex's + SAMPLED) */
        d.image_usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
    d.slots = 3;
    d.socket_dir = socket_dir;
    if (rgb > 0) {
        d.slot_format = CG_VK_SLOT_RGB8;
        d.target_width = tw;
        d.target_height = th;
        d.flip = 1;
    }
    cg_vk_ring *r = NULL;
    cg_err e = {""};
    if (cg_vk_ring_create(&d, &r, &e) != CG_OK) fprintf(stderr, "ring: %s\n", e.text);
    return r;
}

static int run_size(int w, int h, int iters)
{
    static const VkFormat fmts[2] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB};
    static const char *names[2] = {"UNORM", "SRGB"};
    const VkImageLayout lay = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    uint8_t *px = malloc((size_t)w * (size_t)h * 4);
    if (!px) return 1;
    zc_pattern(px, w, h, 1);
    int rc = 0;
    for (int f = 0; f < 2; f++) {
        VkImage img;
        VkDeviceMemory mem;
        if (vkt_image_ex(&T, w, h, fmts[f], VK_IMAGE_USAGE_SAMPLED_BIT, -1, 0, &img, &mem) ||
            vkt_upload(&T, img, w, h, px, lay)) {
            rc = 1;
            break;
        }
        cg_vk_ring *copy = make_ring(fmts[f], w, h, 0, 0, 0);
        cg_vk_ring *same = make_ring(fmts[f], w, h, 1, w, h);
        cg_vk_ring *down = make_ring(fmts[f], w, h, 1, 640, 360);
        if (!copy || !same || !down) rc = 1;
        else {
            /* Warm-up (pipeline, views, caches), then measure. */
            gpu_us(copy, img, lay, 3, 0);
            gpu_us(same, img, lay, 3, 1);
            gpu_us(down, img, lay, 3, 1);
            double c = gpu_us(copy, img, lay, iters, 0);
            double s = gpu_us(same, img, lay, iters, 1);
            double d = gpu_us(down, img, lay, iters, 1);
            cg_vk_ring_info si;
            cg_vk_ring_get_info(same, &si);
            const char *how = f == 0 ? ""
                              : si.rgb_read == CG_VK_RGB_READ_VIEW ? " (view)" : " (staging)";
            printf("%4dx%-4d %-5s%s copy (limit) %8.1f us | RGB %dx%d %8.1f us = %.2fx copy (target "
                   "<= 1.5: %s) | RGB 640x360 %8.1f us = %.2fx copy\n",
                   w, h, names[f], how, c, w, h, s, s / c, s / c <= 1.5 ? "met" : "NOT met", d,
                   d / c);
            if (c <= 0 || s <= 0 || d <= 0) rc = 1;
        }
        if (copy) { /* the compute copy beside its floor (SRGB: where its probe passed) */
            cg_vk_ring *cc = make_ring(fmts[f], w, h, -1, 0, 0);
            cg_vk_ring *floor = make_ring(fmts[f], w, h, 0, 0, 0); /* its slots: never framed */
            cg_vk_ring_info ci, fi;
            cg_vk_ring_get_info(cc, &ci);
            cg_vk_ring_get_info(floor, &fi);
            if (cc && f == 1 && ci.copy_path != CG_VK_COPY_PATH_COMPUTE) {
                printf("%4dx%-4d SRGB  compute copy: not taken (%s)\n", w, h, ci.srgb_fallback);
            } else if (!cc || !floor || ci.copy_path != CG_VK_COPY_PATH_COMPUTE) {
                fprintf(stderr, "compute copy ring: not made or not on the compute path\n");
                rc = 1;
            } else {
                VkDeviceSize bytes = (VkDeviceSize)w * (VkDeviceSize)h * 4;
                gpu_us(cc, img, lay, 3, 0);
                d2d_us(fi.buffers[0], fi.buffers[1], bytes, 3);
                double c = gpu_us(copy, img, lay, iters, 0);
                double k = gpu_us(cc, img, lay, iters, 0);
                double fl = d2d_us(fi.buffers[0], fi.buffers[1], bytes, iters);
                double abs_us = w * h > 640 * 360 ? 10.0 : 4.0;
                double lim = 3 * fl > abs_us ? 3 * fl : abs_us;
                printf("%4dx%-4d %-5s compute copy %8.1f us = %.2fx copy, %.2fx D2D floor %.1f us "
                       "(limit max(3x floor, %.0f us) = %.1f us: %s)\n",
                       w, h, names[f], k, k / c, k / fl, fl, abs_us, lim, k <= lim ? "met" : "NOT met");
                if (k <= 0 || fl <= 0) rc = 1;
            }
            cg_vk_ring_destroy(cc);
            cg_vk_ring_destroy(floor);
        }
        cg_vk_ring_destroy(copy);
        cg_vk_ring_destroy(same);
        cg_vk_ring_destroy(down);
        vkt_image_free(&T, img, mem);
    }
    free(px);
    return rc;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Median GPU microseconds of the depth part and of the colour part of an
 * RGB-D frame (fence mode, both recorded into one command buffer, a
 * timestamp before, between and after), and of the ring calls' host time. */
static int rgbd_gpu(cg_vk_ring *r, VkImage img, VkImage depth, int iters, double *depth_us,
                    double *rgb_us, double *host_us)
{
    double *td = calloc((size_t)iters, sizeof *td), *tc = calloc((size_t)iters, sizeof *tc),
           *th = calloc((size_t)iters, sizeof *th);
    if (!td || !tc || !th) return 1;
    int n = 0, rc = 0;
    for (int i = 0; i < iters; i++) {
        timed_begin();
        uint8_t desc[CG_ZC_DESC_MAX_SIZE];
        size_t len = 0, len2 = 0;
        double h0 = now_us();
        cg_status st = cg_vk_ring_record_depth(r, T.cmd, depth, VK_IMAGE_LAYOUT_GENERAL, 0, NULL,
                                               desc, &len);
        double h1 = now_us();
        VKT_FN(&T, vkCmdWriteTimestamp)(T.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 2);
        cg_cursor c = {1, 10 + i % 100, 20 + i % 50};
        double h2 = now_us();
        if (st == CG_OK)
            st = cg_vk_ring_record_eye(r, T.cmd, img, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 0, &c,
                                       desc, &len2);
        double h3 = now_us();
        double all = st == CG_OK ? timed_end() : -1;
        uint64_t q[3];
        if (all < 0 || len2 == 0 ||
            VKT_FN(&T, vkGetQueryPoolResults)(T.dev, pool, 0, 3, sizeof q, q, sizeof q[0],
                                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) !=
                VK_SUCCESS) {
            fprintf(stderr, "RGB-D frame %d: %s %s\n", i, cg_status_name(st), cg_vk_ring_last_error(r));
            rc = 1;
            break;
        }
        td[n] = (double)((q[2] - q[0]) & ts_mask) * tick_ns / 1000.0;
        tc[n] = (double)((q[1] - q[2]) & ts_mask) * tick_ns / 1000.0;
        th[n] = (h1 - h0) + (h3 - h2);
        n++;
    }
    *depth_us = median_of(td, n);
    *rgb_us = median_of(tc, n);
    *host_us = median_of(th, n);
    return rc;
}

/* The RGB-D ring the mod makes: one eye, linear depth (0.05 / 1000), the
 * image's size, flipped (a Vulkan render target); semaphore mode reuses
 * its recordings. NULL on error (printed). */
static cg_vk_ring *make_rgbd_ring(int w, int h, cg_zc_mode mode)
{
    cg_vk_ring_desc d = vkt_ring_desc(&T, w, h, mode);
    d.slots = 3;
    d.socket_dir = socket_dir;
    d.slot_format = CG_VK_SLOT_RGB8;
    d.flip = 1;
    d.depth = CG_ZC_DEPTH_LINEAR;
    d.near_plane = 0.05f;
    d.far_plane = 1000.0f;
    d.reuse_recordings = mode == CG_ZC_MODE_SEMAPHORE;
    cg_vk_ring *r = NULL;
    cg_err e = {""};
    if (cg_vk_ring_create(&d, &r, &e) != CG_OK) fprintf(stderr, "RGB-D ring: %s\n", e.text);
    return r;
}

/* Semaphore mode (a device that exports timelines): the game's host time
 * per RGB-D frame, record_depth into its command buffer + publish_eye after
 * its submit (the submit itself is the game's). Median us, < 0: not run. */
static double rgbd_semaphore_host(int w, int h, VkImage img, VkImage depth, int iters)
{
    if (!T.has_timeline || !T.has_sem_fd) return -1;
    cg_vk_ring *r = make_rgbd_ring(w, h, CG_ZC_MODE_SEMAPHORE);
    if (!r) return -1;
    double *t = calloc((size_t)iters, sizeof *t);
    int n = 0;
    for (int i = 0; t && i < iters + 3; i++) {
        VKT_FN(&T, vkResetCommandBuffer)(T.cmd, 0);
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        VKT_FN(&T, vkBeginCommandBuffer)(T.cmd, &bi);
        uint8_t desc[CG_ZC_DESC_MAX_SIZE];
        size_t len = 0;
        double h0 = now_us();
        cg_status st = cg_vk_ring_record_depth(r, T.cmd, depth, VK_IMAGE_LAYOUT_GENERAL, 0, NULL,
                                               desc, &len);
        double h1 = now_us();
        if (vkt_submit_wait(&T)) st = CG_E_VULKAN;
        double h2 = now_us();
        if (st == CG_OK)
            st = cg_vk_ring_publish_eye(r, img, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 0, NULL,
                                        desc, &len);
        double h3 = now_us();
        if (st != CG_OK || !len) {
            fprintf(stderr, "RGB-D semaphore frame %d: %s\n", i, cg_vk_ring_last_error(r));
            break;
        }
        if (i >= 3) t[n++] = (h1 - h0) + (h3 - h2); /* after the warm-up */
        VKT_FN(&T, vkQueueWaitIdle)(T.queue);
    }
    cg_vk_ring_destroy(r);
    return t ? median_of(t, n) : -1;
}

/* The RGB-D ring at w x h (target the image's size): depth vs RGB dispatch,
 * host time per frame. */
static int run_rgbd(int w, int h, int iters)
{
    const VkImageLayout lay = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    size_t n = (size_t)w * (size_t)h;
    uint8_t *px = malloc(n * 4);
    float *dv = malloc(n * 4);
    if (!px || !dv) return 1;
    zc_pattern(px, w, h, 1);
    depth_scene(dv, w, h, 1);
    VkImage img, depth;
    VkDeviceMemory mem, dmem;
    int rc = 0;
    if (vkt_image_ex(&T, w, h, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT, -1, 0, &img,
                     &mem) ||
        vkt_upload(&T, img, w, h, px, lay) || vkt_depth_image(&T, w, h, &depth, &dmem) ||
        vkt_upload_depth(&T, depth, w, h, dv, VK_IMAGE_LAYOUT_GENERAL)) {
        free(px);
        free(dv);
        return 1;
    }
    cg_vk_ring *r = make_rgbd_ring(w, h, CG_ZC_MODE_FENCE);
    if (!r) {
        rc = 1;
    } else {
        double du, cu, hu;
        rgbd_gpu(r, img, depth, 3, &du, &cu, &hu); /* warm-up */
        rc = rgbd_gpu(r, img, depth, iters, &du, &cu, &hu);
        double sh = rgbd_semaphore_host(w, h, img, depth, iters);
        char sem[96] = "semaphore mode: not on this device";
        if (sh >= 0)
            snprintf(sem, sizeof sem, "semaphore mode %.1f us (target <= 25: %s)", sh,
                     sh <= 25 ? "met" : "NOT met");
        printf("%4dx%-4d RGB-D depth dispatch %8.1f us = %.2fx the RGB dispatch %8.1f us (target "
               "<= 1.5: %s) | host per published RGB-D frame: fence mode %.1f us, %s\n",
               w, h, du, du / cu, cu, du / cu <= 1.5 ? "met" : "NOT met", hu, sem);
        if (du <= 0 || cu <= 0) rc = 1;
    }
    cg_vk_ring_destroy(r);
    vkt_image_free(&T, img, mem);
    vkt_image_free(&T, depth, dmem);
    free(px);
    free(dv);
    return rc;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    if (iters < 1) iters = 1;
    char why[256] = "";
    int rc = vkt_init(&T, why, sizeof why);
    if (rc == VKT_SKIP) {
        printf("skipped: %s\n", why);
        return 77;
    }
    if (rc || !mkdtemp(socket_dir)) return 1;
    PFN_vkGetPhysicalDeviceProperties props =
        (PFN_vkGetPhysicalDeviceProperties)T.gipa(T.inst, "vkGetPhysicalDeviceProperties");
    PFN_vkGetPhysicalDeviceQueueFamilyProperties qprops =
        (PFN_vkGetPhysicalDeviceQueueFamilyProperties)T.gipa(
            T.inst, "vkGetPhysicalDeviceQueueFamilyProperties");
    VkPhysicalDeviceProperties p;
    props(T.phys, &p);
    VkQueueFamilyProperties qf[16];
    uint32_t nq = 16;
    qprops(T.phys, &nq, qf);
    uint32_t bits = T.qfam < nq ? qf[T.qfam].timestampValidBits : 0;
    if (!bits || p.limits.timestampPeriod <= 0) {
        printf("skipped: %s has no timestamps on queue family %u\n", T.device_name, T.qfam);
        vkt_ring_fini(&T);
        rmdir(socket_dir);
        return 77;
    }
    tick_ns = p.limits.timestampPeriod;
    ts_mask = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 3;
    if (VKT_FN(&T, vkCreateQueryPool)(T.dev, &qi, NULL, &pool) != VK_SUCCESS) return 1;
    printf("RGB slot format vs plain copy, GPU timestamps, median of %d frames, %s\n", iters,
           T.device_name);
    rc = run_size(640, 360, iters) | run_size(1920, 1080, iters);
    rc |= run_rgbd(640, 360, iters) | run_rgbd(1920, 1080, iters);
    VKT_FN(&T, vkDestroyQueryPool)(T.dev, pool, NULL);
    vkt_ring_fini(&T);
    rmdir(socket_dir);
    return rc;
}
