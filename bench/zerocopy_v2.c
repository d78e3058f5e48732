/*
 * zerocopy_v2.c - zero-copy v2 (docs/zero-copy-v2.md) against today's v1
 * path, on the GPU machine: N game processes + 1 learner process, stepped
 * in lockstep as a vector env steps them.
 *
 * Each producer is this executable run again ("producer v1|v2 W H
 * vk|reuse|vkxfer|gl|glxfer|glpre|glrgb"), with its own Vulkan device; per step it "renders" (submits a clear of its
 * image, untimed, and does not wait for it: a game keeps its frame in
 * flight), then, timed as the producer's host time per frame:
 *   v2: cg_vk_ring_publish (copy into a ring slot + timeline signal, no
 *       wait; the process never loads libcuda); the compute copy (the ring
 *       told the image's usage, SAMPLED included), and at N = 8 also the
 *       transfer copy (vkxfer / glxfer: told nothing) for comparison,
 *   v1: cg_vk_export_copy + cg_cuda_import_copy (its own CUDA context
 *       copies the frame into a cudaMalloc buffer shared by IPC handle;
 *       complete on return),
 * and answers the learner. The learner (this process) per step: tells all
 * N to go, reads their answers, and reads every frame on one stream
 * (v2: lease, one batched cudaWaitExternalSemaphoresAsync for the N
 * timelines, a D2D copy per frame; v1: a D2D copy per frame from the IPC
 * buffers), synchronises, releases. Step time = go to synchronised.
 *
 * Figures: medians; each divided by the limit measured in the same run (a
 * plain D2D cudaMemcpy of one frame + sync), and v2 divided by v1 at the
 * same N and size. Also: aggregate frames/s, whether libcuda was mapped in
 * the producers, and the GPU memory nvidia-smi reports for v1 producers'
 * CUDA contexts (v2 producers have none).
 * Then the same with GL games (an FBO texture on a headless EGL context):
 * v1 = GL->CUDA registered once (cg_gl_cuda), v2 = the ring's GL producer;
 * at N = 8 also glpre: the game glFlush()es its frame (untimed) before the
 * publish, so the publish's own flush submits only the ring's work. Each
 * producer also reports its thread CPU time per call beside the wall time;
 * and at N = 8 glrgb: the GL ring of the RGB slot format (same size) under
 * the same contention.
 * Usage: bench_zerocopy_v2 [steps] [max N]   (CG_BENCH_V2_GAMES=vk|gl: only those games)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <epoxy/gl.h>

#include "bench_gl_game.h"
#include "bench_prof.h"
#include "cg_egl_headless.h"
#include "cg_gl_cuda.h"
#ifdef CG_BENCH_GL_RING
#include "cg_gl_ring.h"
#endif

#include "cg_cuda_import.h"
#include "cg_vk_export.h"
#include "cg_vk_ring.h"
#include "cg_zc_proto.h"
#include "cg_zc_server.h"
#include "vkt.h"
#include "vkt_export.h"
#include "zerocopy_game.h"
#include "zerocopy_util.h"
#include "zc_test.h"

extern char **environ;
#define MAX_N 16

static int read_full(int fd, void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int write_full(int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* ---- the game process ---------------------------------------------------- */

/* Protocol on stdin/stdout (binary): after setup it writes its handle (v2:
 * the 192-byte template; v1: the 68-byte IPC handle). Then per 'g' it
 * renders, publishes, and writes the descriptor (v2) or one byte (v1); on
 * 'q' it writes {median host us (double), libcuda mapped (int)} and exits. */
static int out_fd = 1;

/* xfer: the v2 ring told nothing of the image's usage (the transfer copy,
 * vkCmdCopyImageToBuffer); else told SAMPLED | TRANSFER_SRC | ... (the image
 * has them, as a game's render target does): the compute copy. */
static int producer(int v2, int w, int h, int reuse, int xfer)
{
    /* The protocol gets a private copy of stdout; anything a driver prints
     * goes to stderr instead of into the learner's pipe. */
    out_fd = dup(1);
    dup2(2, 1);
    vkt T;
    char why[256];
    if (vkt_init(&T, why, sizeof why)) {
        fprintf(stderr, "producer: %s\n", why);
        return 1;
    }
    if (!T.has_timeline) {
        fprintf(stderr, "producer: %s has no exportable timeline semaphores\n", T.device_name);
        return 1;
    }
    VkImage game;
    VkDeviceMemory gm;
    const VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                    VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                    VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
    if (vkt_image_ex(&T, w, h, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT, -1, 0, &game,
                     &gm))
        return 1;
    cg_err err = {""};
    cg_vk_ring *ring = NULL;
    cg_vk_export *e = NULL;
    cg_cuda_import *ci = NULL;
    uint8_t msg[CG_ZC_DESC_SIZE];
    if (v2) {
        cg_vk_ring_desc d = vkt_ring_desc(&T, w, h, CG_ZC_MODE_SEMAPHORE);
        d.wait_ns = 1000000000;
        d.reuse_recordings = reuse;
        d.image_usage = xfer ? 0 : usage;
        if (cg_vk_ring_create(&d, &ring, &err) != CG_OK ||
            cg_vk_ring_template(ring, msg, sizeof msg) != CG_OK) {
            fprintf(stderr, "producer: ring: %s\n", err.text);
            return 1;
        }
        write_full(out_fd, msg, CG_ZC_DESC_SIZE);
    } else {
        cg_vk_export_desc d = vkt_export_desc(&T, w, h, CG_VK_SYNC_TIMELINE);
        d.debug_utils = 0;
        int fd = -1, sfd = -1;
        cg_status st = cg_vk_export_create(&d, &e, &err);
        if (st == CG_OK) st = cg_vk_export_memory_fd(e, &fd);
        if (st == CG_OK) st = cg_vk_export_semaphore_fd(e, &sfd);
        cg_vk_export_info info;
        cg_vk_export_get_info(e, &info);
        cg_ext_memory_desc cd = vkt_import_desc(&info, fd);
        if (st == CG_OK) st = cg_cuda_import_create(&ci);
        if (st == CG_OK) st = cg_cuda_import_init(ci, &cd, msg);
        if (st == CG_OK) st = cg_cuda_import_semaphore(ci, CG_CUDA_SEM_TIMELINE_FD, sfd);
        if (st != CG_OK) {
            fprintf(stderr, "producer: v1 setup: %s %s\n", err.text, cg_cuda_import_last_error(ci));
            return 1;
        }
        write_full(out_fd, msg, CG_CUDA_IPC_HANDLE_SIZE);
    }
    double *t = malloc(sizeof(double) * 100000);
    int n = 0;
    char c;
    double *cpu = malloc(sizeof(double) * 100000);
    for (int f = 0; read_full(0, &c, 1) == 0 && c == 'g'; f++) {
        zc_game_render_in_flight(&T, game, f);
        double ca = bench_thread_cpu_us();
        double a = bench_now_us();
        cg_status st;
        if (v2) {
            st = cg_vk_ring_publish(ring, game, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, msg);
        } else {
            uint64_t value = 0;
            st = cg_vk_export_copy(e, game, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, &value);
            if (st == CG_OK) st = cg_cuda_import_copy(ci, value);
        }
        double b = bench_now_us();
        double cb = bench_thread_cpu_us();
        if (st != CG_OK) {
            fprintf(stderr, "producer: frame %d: %s %s\n", f, cg_status_name(st),
                    v2 ? cg_vk_ring_last_error(ring) : cg_cuda_import_last_error(ci));
            return 1;
        }
        if (n < 100000) {
            cpu[n] = cb - ca;
            t[n++] = b - a;
        }
        write_full(out_fd, msg, v2 ? CG_ZC_DESC_SIZE : 1);
    }
    /* The first 10 frames are warm-up. */
    double med = n > 10 ? bench_median(t + 10, n - 10) : (n ? bench_median(t, n) : 0);
    double med_cpu = n > 10 ? bench_median(cpu + 10, n - 10) : (n ? bench_median(cpu, n) : 0);
    int mapped = zc_libcuda_mapped();
    VKT_FN(&T, vkQueueWaitIdle)(T.queue); /* the last clear, before its image goes */
    write_full(out_fd, &med, sizeof med);
    write_full(out_fd, &mapped, sizeof mapped);
    write_full(out_fd, &med_cpu, sizeof med_cpu);
    free(t);
    free(cpu);
    cg_cuda_import_destroy(ci);
    cg_vk_export_destroy(e);
    cg_vk_ring_destroy(ring);
    vkt_image_free(&T, game, gm);
    vkt_ring_fini(&T);
    return 0;
}

/* The GL game: an RGBA8 texture on an FBO, cleared to a new colour per
 * frame (glClear, no wait), on a headless EGL context of the GPU. */
static GLuint gl_fbo;

#ifndef CG_BENCH_GL_RING
typedef struct cg_gl_ring cg_gl_ring;
#endif

/* The GL producers' frame loop; exactly one of g (v1) and ring (v2). */
static int gl_frames(cg_gl_cuda *g, cg_gl_ring *ring, GLuint tex, uint8_t *msg,
                     cg_egl_headless *ctx, int preflush)
{
    double *t = malloc(sizeof(double) * 100000), *cpu = malloc(sizeof(double) * 100000);
    int n = 0;
    char c;
    cg_gl_cuda_frame fr = {tex, {0, 0, 0}};
    /* CG_BENCH_PROF=<dir>: sample where the publish's CPU time goes
     * (bench_prof.h), one table per producer in <dir>/prof-<pid>.txt. */
    const char *prof = getenv("CG_BENCH_PROF");
    if (prof) bench_prof_start();
    for (int f = 0; read_full(0, &c, 1) == 0 && c == 'g'; f++) {
        bench_gl_game_frame(gl_fbo, f);
        if (preflush) glFlush(); /* the game's frame submitted before the capture (untimed) */
        double ca = bench_thread_cpu_us();
        double a = bench_now_us();
        bench_prof_in = f >= 10;
        cg_status st = CG_E_UNSUPPORTED;
        if (g) st = cg_gl_cuda_capture(g, &fr);
#ifdef CG_BENCH_GL_RING
        if (ring) st = cg_gl_ring_publish(ring, tex, msg);
#endif
        bench_prof_in = 0;
        double b = bench_now_us();
        double cb = bench_thread_cpu_us();
        if (st != CG_OK) {
#ifdef CG_BENCH_GL_RING
            if (ring) fprintf(stderr, "producer: frame %d: %s\n", f, cg_gl_ring_last_error(ring));
#endif
            if (g) fprintf(stderr, "producer: frame %d: %s\n", f, cg_gl_cuda_last_error(g));
            return 1;
        }
        if (n < 100000) {
            cpu[n] = cb - ca;
            t[n++] = b - a;
        }
        write_full(out_fd, msg, ring ? CG_ZC_DESC_SIZE : 1);
    }
    double med = n > 10 ? bench_median(t + 10, n - 10) : (n ? bench_median(t, n) : 0);
    double med_cpu = n > 10 ? bench_median(cpu + 10, n - 10) : (n ? bench_median(cpu, n) : 0);
    int mapped = zc_libcuda_mapped();
    if (prof) {
        char path[512];
        snprintf(path, sizeof path, "%s/prof-%s-%d.txt", prof, ring ? "v2" : "v1", (int)getpid());
        bench_prof_write(path);
    }
    write_full(out_fd, &med, sizeof med);
    write_full(out_fd, &mapped, sizeof mapped);
    write_full(out_fd, &med_cpu, sizeof med_cpu);
    free(t);
    free(cpu);
    cg_gl_cuda_destroy(g);
#ifdef CG_BENCH_GL_RING
    cg_gl_ring_destroy(ring);
#endif
    glDeleteFramebuffers(1, &gl_fbo);
    glDeleteTextures(1, &tex);
    cg_egl_headless_close(ctx);
    return 0;
}

/* Same protocol as producer(), GL games:
 *   v1: cg_gl_cuda (the texture registered once in the game's own CUDA
 *       context; map + copy into the IPC buffer + unmap, complete on return),
 *   v2: the GL producer of the ring (no CUDA in the process). */
static int producer_gl(int v2, int w, int h, int xfer, int preflush, int rgb)
{
    out_fd = dup(1);
    dup2(2, 1);
    cg_egl_headless *ctx = NULL;
    char why[256];
    if (cg_egl_headless_open(&ctx, why, sizeof why) != 0) {
        fprintf(stderr, "producer: %s\n", why);
        return 1;
    }
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenFramebuffers(1, &gl_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, gl_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    uint8_t msg[CG_ZC_DESC_SIZE];
    cg_gl_cuda *g = NULL;
    if (v2) {
#ifdef CG_BENCH_GL_RING
        cg_gl_ring_desc d;
        memset(&d, 0, sizeof d);
        d.width = w;
        d.height = h;
        d.mode = CG_ZC_MODE_SEMAPHORE; /* the learner waits on the timeline */
        d.wait_ns = 1000000000;
        d.texture_format = xfer ? 0 : GL_RGBA8; /* the compute copy, or glReadPixels */
        if (rgb) d.slot_format = CG_VK_SLOT_RGB8; /* glrgb: the RGB slot format, same size */
        cg_gl_ring *ring = NULL;
        cg_err err = {""};
        if (cg_gl_ring_create(&d, &ring, &err) != CG_OK ||
            cg_gl_ring_template(ring, msg, sizeof msg) != CG_OK) {
            fprintf(stderr, "producer: GL ring: %s\n", err.text);
            return 1;
        }
        write_full(out_fd, msg, CG_ZC_DESC_SIZE);
        return gl_frames(NULL, ring, tex, msg, ctx, preflush);
#else
        fprintf(stderr, "producer: the GL ring is not in this build\n");
        return 1;
#endif
    }
    if (cg_gl_cuda_create(&g) != CG_OK || cg_gl_cuda_init(g, w, h, msg) != CG_OK) {
        fprintf(stderr, "producer: GL->CUDA init: %s\n", cg_gl_cuda_last_error(g));
        return 1;
    }
    write_full(out_fd, msg, CG_CUDA_IPC_HANDLE_SIZE);
    return gl_frames(g, NULL, tex, msg, ctx, preflush);
}

/* ---- the learner ------------------------------------------------------------ */

typedef struct peer {
    pid_t pid;
    int to, from; /* pipes: learner -> producer stdin, producer stdout -> learner */
    /* v2 */
    cg_zc_control ctl;
    int conn;
    cudaExternalMemory_t ext[CG_ZC_MAX_SLOTS];
    void *slot_ptr[CG_ZC_MAX_SLOTS];
    uint32_t slots;
    cudaExternalSemaphore_t sem;
    cg_zc_desc cur;
    /* v1 */
    void *ipc_ptr;
    void *dst; /* the learner's copy of this env's frame */
} peer;

static const char *self_exe;

static int spawn_producer(peer *p, int v2, int w, int h, const char *variant)
{
    int in[2], out[2];
    if (pipe(in) || pipe(out)) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    char ws[16], hs[16];
    snprintf(ws, sizeof ws, "%d", w);
    snprintf(hs, sizeof hs, "%d", h);
    char *argv[] = {(char *)self_exe, "producer", v2 ? "v2" : "v1", ws, hs, (char *)variant, NULL};
    int rc = posix_spawn(&p->pid, self_exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    p->to = in[1];
    p->from = out[0];
    return rc;
}

static int cuda_device_for(const uint8_t uuid[16])
{
    int n = 0;
    cudaGetDeviceCount(&n);
    for (int i = 0; i < n; i++) {
        struct cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, i) == cudaSuccess && memcmp(prop.uuid.bytes, uuid, 16) == 0)
            return i;
    }
    return -1;
}

/* v2: connect to the producer's socket and import its ring once. */
static int attach_v2(peer *p, const uint8_t tmpl[CG_ZC_DESC_SIZE], size_t bytes)
{
    cg_err err = {""};
    cg_zc_desc d;
    if (cg_zc_desc_decode(tmpl, CG_ZC_DESC_SIZE, &d, &err) != CG_OK) goto fail;
    int dev = cuda_device_for(d.device_uuid);
    if (dev < 0) {
        printf("learner: no CUDA device has the producer's Vulkan UUID\n");
        return -1;
    }
    cudaSetDevice(dev);
    cg_zc_hello hello;
    int fds[CG_ZC_MAX_HANDLES];
    uint32_t n = 0;
    if (cg_zc_connect(d.socket_path, &hello, fds, &n, &p->conn, &err) != CG_OK) goto fail;
    if (cg_zc_control_map(fds[0], hello.slot_count, hello.ring_id, &p->ctl, &err) != CG_OK) goto fail;
    p->slots = hello.slot_count;
    for (uint32_t i = 0; i < p->slots; i++) {
        struct cudaExternalMemoryHandleDesc md;
        memset(&md, 0, sizeof md);
        md.type = cudaExternalMemoryHandleTypeOpaqueFd;
        md.handle.fd = fds[1 + i];
        md.size = hello.slot_size;
        if (cudaImportExternalMemory(&p->ext[i], &md) != cudaSuccess) {
            printf("learner: cudaImportExternalMemory failed\n");
            return -1;
        }
        struct cudaExternalMemoryBufferDesc bd;
        memset(&bd, 0, sizeof bd);
        bd.size = hello.slot_size;
        if (cudaExternalMemoryGetMappedBuffer(&p->slot_ptr[i], p->ext[i], &bd) != cudaSuccess) {
            printf("learner: cudaExternalMemoryGetMappedBuffer failed\n");
            return -1;
        }
    }
    struct cudaExternalSemaphoreHandleDesc sd;
    memset(&sd, 0, sizeof sd);
    sd.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
    sd.handle.fd = fds[1 + p->slots];
    if (cudaImportExternalSemaphore(&p->sem, &sd) != cudaSuccess) {
        printf("learner: cudaImportExternalSemaphore failed\n");
        return -1;
    }
    return cudaMalloc(&p->dst, bytes) == cudaSuccess ? 0 : -1;
fail:
    printf("learner: %s\n", err.text);
    return -1;
}

static int attach_v1(peer *p, const uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE], size_t bytes)
{
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    int dev = (int)((uint32_t)handle[64] | (uint32_t)handle[65] << 8 | (uint32_t)handle[66] << 16 |
                    (uint32_t)handle[67] << 24);
    cudaSetDevice(dev);
    if (cudaIpcOpenMemHandle(&p->ipc_ptr, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
        printf("learner: cudaIpcOpenMemHandle failed\n");
        return -1;
    }
    return cudaMalloc(&p->dst, bytes) == cudaSuccess ? 0 : -1;
}

static void detach(peer *p, int v2)
{
    if (v2) {
        if (p->sem) cudaDestroyExternalSemaphore(p->sem);
        for (uint32_t i = 0; i < p->slots; i++) {
            if (p->slot_ptr[i]) cudaFree(p->slot_ptr[i]);
            if (p->ext[i]) cudaDestroyExternalMemory(p->ext[i]);
        }
        cg_zc_control_free(&p->ctl);
        if (p->conn >= 0) close(p->conn);
    } else if (p->ipc_ptr) {
        cudaIpcCloseMemHandle(p->ipc_ptr);
    }
    if (p->dst) cudaFree(p->dst);
}

/* GPU memory (MiB) of the CUDA contexts of these pids, from nvidia-smi. */
static long gpu_mib(const peer *p, int n)
{
    FILE *f = popen("nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits "
                    "2>/dev/null",
                    "r");
    if (!f) return -1;
    long total = 0, pid, mib;
    while (fscanf(f, "%ld, %ld", &pid, &mib) == 2)
        for (int i = 0; i < n; i++)
            if (p[i].pid == pid) total += mib;
    pclose(f);
    return total;
}

typedef struct run_result {
    double host_us, host_cpu_us, step_us, fps;
    int libcuda, ok;
    long gpu_mib;
} run_result;

static run_result run(int v2, const char *variant, int n, int w, int h, int steps)
{
    run_result r;
    memset(&r, 0, sizeof r);
    /* glrgb: the RGB slot format's slots, 3 bytes a pixel */
    size_t bytes = (size_t)w * (size_t)h * (strcmp(variant, "glrgb") == 0 ? 3 : 4);
    peer p[MAX_N];
    memset(p, 0, sizeof p);
    for (int i = 0; i < n; i++) {
        p[i].conn = -1;
        p[i].ctl.handle = CG_OSHANDLE_INVALID;
        if (spawn_producer(&p[i], v2, w, h, variant) != 0) return r;
    }
    int failed = 0;
    for (int i = 0; i < n && !failed; i++) {
        uint8_t first[CG_ZC_DESC_SIZE];
        if (read_full(p[i].from, first, v2 ? CG_ZC_DESC_SIZE : CG_CUDA_IPC_HANDLE_SIZE) != 0)
            failed = 1;
        else
            failed = v2 ? attach_v2(&p[i], first, bytes) : attach_v1(&p[i], first, bytes);
    }
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    double *st = malloc(sizeof(double) * (size_t)steps);
    double t_begin = 0;
    int warm = 10;
    for (int k = -warm; k < steps && !failed; k++) {
        if (k == 0) t_begin = bench_now_us();
        double a = bench_now_us();
        for (int i = 0; i < n; i++) failed |= write_full(p[i].to, "g", 1);
        cudaExternalSemaphore_t sems[MAX_N];
        struct cudaExternalSemaphoreWaitParams wp[MAX_N];
        for (int i = 0; i < n && !failed; i++) {
            if (!v2) {
                char c;
                failed |= read_full(p[i].from, &c, 1);
                continue;
            }
            uint8_t raw[CG_ZC_DESC_SIZE];
            cg_err err = {""};
            failed |= read_full(p[i].from, raw, sizeof raw) ||
                      cg_zc_desc_decode(raw, sizeof raw, &p[i].cur, &err) != CG_OK ||
                      cg_zc_acquire(&p[i].ctl, p[i].cur.slot, p[i].cur.frame, &err) != CG_OK;
            if (err.text[0]) printf("learner: %s\n", err.text);
            sems[i] = p[i].sem;
            memset(&wp[i], 0, sizeof wp[i]);
            wp[i].params.fence.value = p[i].cur.frame;
        }
        if (failed) break;
        /* One batched wait for the N timelines, then every frame read. */
        if (v2) cudaWaitExternalSemaphoresAsync(sems, wp, (unsigned)n, s);
        for (int i = 0; i < n; i++)
            cudaMemcpyAsync(p[i].dst, v2 ? p[i].slot_ptr[p[i].cur.slot] : p[i].ipc_ptr, bytes,
                            cudaMemcpyDeviceToDevice, s);
        if (cudaStreamSynchronize(s) != cudaSuccess) failed = 1;
        for (int i = 0; v2 && i < n; i++) cg_zc_release(&p[i].ctl, p[i].cur.slot, p[i].cur.frame, NULL);
        if (k >= 0) st[k] = bench_now_us() - a;
    }
    double t_total = bench_now_us() - t_begin;
    if (!failed) r.gpu_mib = gpu_mib(p, n);
    double host[MAX_N], host_cpu[MAX_N];
    int nh = 0;
    for (int i = 0; i < n; i++) {
        write_full(p[i].to, "q", 1);
        double med, med_cpu;
        int mapped;
        if (read_full(p[i].from, &med, sizeof med) == 0 &&
            read_full(p[i].from, &mapped, sizeof mapped) == 0 &&
            read_full(p[i].from, &med_cpu, sizeof med_cpu) == 0) {
            host_cpu[nh] = med_cpu;
            host[nh++] = med;
            r.libcuda |= mapped;
        }
        close(p[i].to);
        close(p[i].from);
        detach(&p[i], v2);
        int status;
        waitpid(p[i].pid, &status, 0);
    }
    cudaStreamDestroy(s);
    if (!failed && nh == n) {
        r.ok = 1;
        r.host_us = bench_median(host, nh);
        r.host_cpu_us = bench_median(host_cpu, nh);
        r.step_us = bench_median(st, steps);
        r.fps = (double)n * steps / (t_total / 1e6);
    }
    free(st);
    return r;
}

/* One N's figures, v1 against v2; 0 when either run failed. */
static int print_pair(int n, double limit, const run_result *v1, const run_result *v2)
{
    if (!v1->ok || !v2->ok) {
        printf("  N=%-2d %s failed (see stderr)\n", n, !v1->ok ? "v1" : "v2");
        return 0;
    }
    printf("  N=%-2d producer host/frame: v1 %8.1f us (%6.2fx limit)  v2 %7.1f us "
           "(%5.2fx limit)  v2/v1 %.3f\n",
           n, v1->host_us, v1->host_us / limit, v2->host_us, v2->host_us / limit,
           v2->host_us / v1->host_us);
    printf("       step:                v1 %8.1f us (%6.2fx limit)  v2 %7.1f us "
           "(%5.2fx limit)  v2/v1 %.3f\n",
           v1->step_us, v1->step_us / limit, v2->step_us, v2->step_us / limit,
           v2->step_us / v1->step_us);
    printf("       producer CPU/frame:  v1 %8.1f us              v2 %7.1f us (thread CPU time "
           "of the same calls: the rest of the host time is waiting or descheduled)\n",
           v1->host_cpu_us, v2->host_cpu_us);
    printf("       aggregate frames/s:  v1 %8.0f            v2 %8.0f            v2/v1 %.3f\n",
           v1->fps, v2->fps, v2->fps / v1->fps);
    printf("       libcuda in producers: v1 %s, v2 %s; CUDA-context GPU memory of the "
           "producers: v1 %ld MiB, v2 %ld MiB\n",
           v1->libcuda ? "yes" : "no", v2->libcuda ? "yes" : "no", v1->gpu_mib, v2->gpu_mib);
    return 1;
}

/* N = 8 only (run time): v2 with the transfer copy (vkCmdCopyImageToBuffer /
 * glReadPixels) beside v2's compute copy, same run. */
static void print_xfer(run_result x, const run_result *v1, const run_result *v2)
{
    if (!x.ok) {
        printf("       v2 transfer copy failed (see stderr)\n");
        return;
    }
    printf("       v2 transfer copy (was v2's path): host %.1f us, step %.1f us, aggregate %.0f "
           "frames/s (v2/v1 %.3f; the compute copy's v2/v1 %.3f, compute/transfer %.3f)\n",
           x.host_us, x.step_us, x.fps, x.fps / v1->fps, v2->fps / v1->fps, v2->fps / x.fps);
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    static char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    self_exe = len > 0 ? (exe[len] = 0, exe) : argv[0];
    if (argc >= 6 && strcmp(argv[1], "producer") == 0) {
        int v2 = strcmp(argv[2], "v2") == 0, w = atoi(argv[3]), h = atoi(argv[4]);
        int xfer = strstr(argv[5], "xfer") != NULL; /* vkxfer, glxfer: the transfer copy */
        /* glpre: the game flushes its frame before the capture (as a
         * SwapBuffers before it would) */
        if (strncmp(argv[5], "gl", 2) == 0)
            return producer_gl(v2, w, h, xfer, strcmp(argv[5], "glpre") == 0,
                               strcmp(argv[5], "glrgb") == 0);
        return producer(v2, w, h, strcmp(argv[5], "reuse") == 0, xfer);
    }
    int steps = argc > 1 ? atoi(argv[1]) : 300;
    int max_n = argc > 2 ? atoi(argv[2]) : MAX_N;
    if (steps < 20) steps = 20;
    if (max_n < 1 || max_n > MAX_N) max_n = MAX_N;
    zc_skip_without_cuda("bench_zerocopy_v2");
    printf("bench_zerocopy_v2: N game processes + 1 learner, lockstep, %d steps per figure "
           "(after 10 warm-up); limit = plain D2D cudaMemcpy of one frame + sync (same run)\n",
           steps);
    static const int sizes[2][2] = {{640, 360}, {1920, 1080}};
    static const int ns[4] = {1, 4, 8, 16};
    /* CG_BENCH_V2_GAMES=gl or vk: only those games (a shorter run). */
    const char *only = getenv("CG_BENCH_V2_GAMES");
    for (int z = 0; z < 2 && !(only && strcmp(only, "gl") == 0); z++) {
        int w = sizes[z][0], h = sizes[z][1];
        double limit = zc_limit_d2d_us((size_t)w * (size_t)h * 4, 200);
        printf(" %dx%d: limit %.1f us\n", w, h, limit);
        for (int k = 0; k < 4 && ns[k] <= max_n; k++) {
            int n = ns[k];
            run_result v1 = run(0, "vk", n, w, h, steps), v2 = run(1, "vk", n, w, h, steps),
                       v2r = run(1, "reuse", n, w, h, steps);
            if (!print_pair(n, limit, &v1, &v2)) continue;
            if (!v2r.ok) {
                printf("       v2 reusing recordings failed (see stderr)\n");
                continue;
            }
            printf("       v2 reusing recordings: host %.1f us (%.2fx limit, %.3f of v2's), step %.1f "
                   "us, aggregate %.0f frames/s (%.3f of v1's)\n",
                   v2r.host_us, v2r.host_us / limit, v2r.host_us / v2.host_us, v2r.step_us, v2r.fps,
                   v2r.fps / v1.fps);
            if (n == 8) print_xfer(run(1, "vkxfer", n, w, h, steps), &v1, &v2);
        }
    }
    /* GL games: today's GL path (v1, the game's own CUDA context) against
     * the ring's GL producer (v2). */
    if (only && strcmp(only, "vk") == 0) return 0;
    printf("GL games (headless EGL on the GPU): v1 = GL->CUDA registered once, v2 = the GL "
           "producer of the ring\n");
    for (int z = 0; z < 2; z++) {
        int w = sizes[z][0], h = sizes[z][1];
        double limit = zc_limit_d2d_us((size_t)w * (size_t)h * 4, 200);
        printf(" GL %dx%d: limit %.1f us\n", w, h, limit);
        for (int k = 0; k < 4 && ns[k] <= max_n; k++) {
            int n = ns[k];
            run_result v1 = run(0, "gl", n, w, h, steps), v2 = run(1, "gl", n, w, h, steps);
            if (print_pair(n, limit, &v1, &v2) && n == 8) {
                print_xfer(run(1, "glxfer", n, w, h, steps), &v1, &v2);
                /* Where the contended publish's host time goes: the same
                 * compute-copy publish after the game flushed its own frame. */
                run_result pre = run(1, "glpre", n, w, h, steps);
                if (pre.ok)
                    printf("       v2, the game flushed its frame first: host %.1f us (CPU %.1f us), "
                           "%.3f of v2's host time; aggregate %.0f frames/s\n",
                           pre.host_us, pre.host_cpu_us, pre.host_us / v2.host_us, pre.fps);
                /* The RGB slot format (one dispatch, 3 bytes a pixel) under the same contention. */
                run_result rgb = run(1, "glrgb", n, w, h, steps);
                if (rgb.ok)
                    printf("       v2 RGB slot format: host %.1f us (CPU %.1f us), %.3f of v2's host "
                           "time; aggregate %.0f frames/s\n",
                           rgb.host_us, rgb.host_cpu_us, rgb.host_us / v2.host_us, rgb.fps);
            }
        }
    }
    return 0;
}
