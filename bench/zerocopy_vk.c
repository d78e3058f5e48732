/*
 * zerocopy_vk.c - Vulkan -> CUDA zero-copy, per frame, on the GPU machine.
 * Each frame the "game" clears its image to a new colour (submitted and
 * fenced outside the timing), then the figure times what the library does
 * until the shared CUDA buffer is complete:
 *   fence path:     cg_vk_export_copy (vkCmdCopyImage, submit, fence wait)
 *                   + cg_cuda_import_copy (D2D copy, stream sync)
 *   semaphore path: cg_vk_export_copy (submit, signals a timeline semaphore)
 *                   + cg_cuda_import_copy (GPU-side wait, copy, sync)
 *   CPU readback:   vkCmdCopyImageToBuffer into host memory, fence wait,
 *                   cg_convert to RAW RGB (flipped to bottom-up)
 * Host time = wall time the calling thread spends in those calls (it blocks
 * until the buffer is complete, so it is also the frame's copy latency);
 * the stage medians split it. Limit: a plain D2D cudaMemcpy of the same
 * bytes (zerocopy_util.h). Usage: bench_zerocopy_vk [frames]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>

#include "cg_cuda_import.h"
#include "cg_frame.h"
#include "cg_vk_export.h"
#include "vkt.h"
#include "vkt_export.h"
#include "zerocopy_game.h"
#include "zerocopy_util.h"

static vkt T;

typedef struct result {
    double total, stage1, stage2;
} result;

static int zerocopy(int w, int h, cg_vk_sync sync, int n, result *r)
{
    cg_err err = {""};
    cg_vk_export_desc d = vkt_export_desc(&T, w, h, sync);
    d.debug_utils = 0;
    cg_vk_export *e = NULL;
    if (cg_vk_export_create(&d, &e, &err) != CG_OK) {
        printf("export: %s\n", err.text);
        return 1;
    }
    cg_vk_export_info info;
    cg_vk_export_get_info(e, &info);
    int fd = -1;
    cg_vk_export_memory_fd(e, &fd);
    cg_ext_memory_desc cd = vkt_import_desc(&info, fd);
    cg_cuda_import *ci = NULL;
    cg_cuda_import_create(&ci);
    uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE];
    cg_status st = cg_cuda_import_init(ci, &cd, handle);
    if (st == CG_OK && sync != CG_VK_SYNC_FENCE) {
        int sfd = -1;
        cg_vk_export_semaphore_fd(e, &sfd);
        st = cg_cuda_import_semaphore(ci,
                                      sync == CG_VK_SYNC_TIMELINE ? CG_CUDA_SEM_TIMELINE_FD
                                                                  : CG_CUDA_SEM_BINARY_FD,
                                      sfd);
    }
    if (st != CG_OK) {
        printf("import: %s\n", cg_cuda_import_last_error(ci));
        return 1;
    }
    VkImage game;
    VkDeviceMemory gm;
    vkt_image(&T, w, h, -1, 0, &game, &gm);
    double *tt = malloc(sizeof(double) * (size_t)n * 3), *t1 = tt + n, *t2 = tt + 2 * n;
    for (int i = -10; i < n; i++) {
        zc_game_clear(&T, game, i + 10, i == -10);
        uint64_t value = 0;
        double a = bench_now_us();
        cg_vk_export_copy(e, game, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, &value);
        double b = bench_now_us();
        st = cg_cuda_import_copy(ci, value);
        double c = bench_now_us();
        if (st != CG_OK) printf("copy: %s\n", cg_cuda_import_last_error(ci));
        if (i >= 0) tt[i] = c - a, t1[i] = b - a, t2[i] = c - b;
    }
    r->total = bench_median(tt, n);
    r->stage1 = bench_median(t1, n);
    r->stage2 = bench_median(t2, n);
    free(tt);
    cg_cuda_import_destroy(ci);
    vkt_image_free(&T, game, gm);
    cg_vk_export_destroy(e);
    return 0;
}

/* CPU path: image -> host-visible buffer -> RAW RGB, per frame. */
static double cpu_readback(int w, int h, int n)
{
    size_t bytes = (size_t)w * (size_t)h * 4, rgb = (size_t)w * (size_t)h * 3;
    VkImage game;
    VkDeviceMemory gm;
    vkt_image(&T, w, h, -1, 0, &game, &gm);
    uint8_t *host = malloc(bytes), *out = malloc(rgb);
    double *t = malloc(sizeof(double) * (size_t)n);
    for (int i = -10; i < n; i++) {
        zc_game_clear(&T, game, i + 10, i == -10);
        double a = bench_now_us();
        /* vkt_download: staging buffer, vkCmdCopyImageToBuffer, fence, memcpy out. */
        vkt_download(&T, game, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, w, h, host);
        zc_rgba_to_raw(host, w, h, 1, out); /* Vulkan rows are top-down; RAW is bottom-up */
        if (i >= 0) t[i] = bench_now_us() - a;
    }
    double m = bench_median(t, n);
    free(t);
    free(host);
    free(out);
    vkt_image_free(&T, game, gm);
    return m;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 300;
    if (n < 11) n = 11;
    zc_skip_without_cuda("bench_zerocopy_vk");
    char why[256];
    if (vkt_init(&T, why, sizeof why)) {
        printf("bench_zerocopy_vk: skipped: %s\n", why);
        return 0;
    }
    printf("bench_zerocopy_vk: %s, %d frames per figure; limit = plain D2D cudaMemcpy of the "
           "frame (same run)\n",
           T.device_name, n);
    static const int sizes[2][2] = {{640, 360}, {1920, 1080}};
    for (int s = 0; s < 2; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        double limit = zc_limit_d2d_us((size_t)w * (size_t)h * 4, n);
        double cpu = cpu_readback(w, h, n);
        printf(" %dx%d: limit (D2D cudaMemcpy + sync) %.1f us\n", w, h, limit);
        zc_print("CPU readback: CopyImageToBuffer+fence+RAW", w, h, cpu, limit, 0);
        result r;
        if (zerocopy(w, h, CG_VK_SYNC_FENCE, n, &r) == 0) {
            zc_print("fence path: total host time = latency", w, h, r.total, limit, cpu);
            zc_print("  vk copy submit + fence wait", w, h, r.stage1, limit, cpu);
            zc_print("  CUDA copy + sync", w, h, r.stage2, limit, cpu);
        }
        if (T.has_timeline && zerocopy(w, h, CG_VK_SYNC_TIMELINE, n, &r) == 0) {
            zc_print("timeline semaphore path: total", w, h, r.total, limit, cpu);
            zc_print("  vk copy submit (no CPU wait)", w, h, r.stage1, limit, cpu);
            zc_print("  CUDA semaphore wait + copy + sync", w, h, r.stage2, limit, cpu);
        }
        if (T.has_sem_fd && zerocopy(w, h, CG_VK_SYNC_BINARY, n, &r) == 0)
            zc_print("binary semaphore path: total", w, h, r.total, limit, cpu);
    }
    vkt_fini(&T);
    return 0;
}
