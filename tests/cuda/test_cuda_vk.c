/*
 * test_cuda_vk.c - the whole Vulkan -> CUDA path on an NVIDIA GPU: the
 * exported image (cg_vk_export) imported by cg_cuda_import, byte-exact over
 * many frames of changing content, at several sizes with teardown and
 * re-initialisation between them, with the fence path and both semaphore
 * paths; wrong UUID, double init and fd ownership; and (argument "ipc")
 * a second process (consumer.py) that opens the 68-byte handle and checks
 * every frame. Exits 77 without a CUDA device or a Vulkan driver.
 *
 * The oracle is the pattern the test uploads into the game image
 * (vkt_pattern), read back from the shared buffer with cudaMemcpy; the
 * consumer recomputes the same pattern independently in numpy.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg_cuda_import.h"
#include "cg_vk_export.h"
#include "cuda_probe.h"
#include "vkt.h"
#include "vkt_export.h"
#include "zc_test.h"

extern char **environ;

static int failures;

static vkt T;

typedef struct pair {
    cg_vk_export *e;
    cg_cuda_import *ci;
    VkImage game;
    VkDeviceMemory game_mem;
    int w, h;
    uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE];
} pair;

static int fd_is_open(int fd)
{
    return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

static int pair_open(pair *p, int w, int h, cg_vk_sync sync)
{
    memset(p, 0, sizeof *p);
    p->w = w;
    p->h = h;
    cg_err err = {""};
    cg_vk_export_desc d = vkt_export_desc(&T, w, h, sync);
    cg_status st = cg_vk_export_create(&d, &p->e, &err);
    CHECK(st == CG_OK, "export %dx%d: %s %s", w, h, cg_status_name(st), err.text);
    if (st != CG_OK) return 1;
    cg_vk_export_info info;
    cg_vk_export_get_info(p->e, &info);
    int fd = -1;
    CHECK(cg_vk_export_memory_fd(p->e, &fd) == CG_OK, "memory fd");
    cg_ext_memory_desc cd = vkt_import_desc(&info, fd);
    CHECK(cg_cuda_import_create(&p->ci) == CG_OK, "create");
    st = cg_cuda_import_init(p->ci, &cd, p->handle);
    CHECK(st == CG_OK, "import %dx%d: %s %s", w, h, cg_status_name(st),
          cg_cuda_import_last_error(p->ci));
    if (st != CG_OK) return 1;
    CHECK(cg_cuda_ipc_device(p->handle) == cg_cuda_import_device(p->ci), "ordinal in handle");

    /* A second import on a live context: refused, and the fd is closed. */
    int fd2 = -1;
    cg_vk_export_memory_fd(p->e, &fd2);
    cd.handle = fd2;
    uint8_t h2[CG_CUDA_IPC_HANDLE_SIZE];
    CHECK(cg_cuda_import_init(p->ci, &cd, h2) == CG_E_ALREADY_INITIALIZED, "double init");
    CHECK(!fd_is_open(fd2), "fd %d left open after a refused second import", fd2);

    if (sync != CG_VK_SYNC_FENCE) {
        int sfd = -1;
        CHECK(cg_vk_export_semaphore_fd(p->e, &sfd) == CG_OK, "semaphore fd");
        st = cg_cuda_import_semaphore(p->ci,
                                      sync == CG_VK_SYNC_TIMELINE ? CG_CUDA_SEM_TIMELINE_FD
                                                                  : CG_CUDA_SEM_BINARY_FD,
                                      sfd);
        CHECK(st == CG_OK, "semaphore import: %s %s", cg_status_name(st),
              cg_cuda_import_last_error(p->ci));
    }
    int rc = vkt_image(&T, w, h, -1, 0, &p->game, &p->game_mem);
    CHECK(rc == 0, "game image %dx%d", w, h);
    return rc;
}

static void pair_close(pair *p)
{
    /* CUDA objects go before the Vulkan ones they were imported from. */
    cg_cuda_import_destroy(p->ci);
    if (p->game) vkt_image_free(&T, p->game, p->game_mem);
    cg_vk_export_destroy(p->e);
    memset(p, 0, sizeof *p);
}

/* One frame: game image <- pattern f; export copy; CUDA copy. */
static int pair_frame(pair *p, int f, uint8_t *want)
{
    zc_pattern(want, p->w, p->h, f);
    if (vkt_upload(&T, p->game, p->w, p->h, want, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL)) {
        CHECK(0, "uploading frame %d into the game image", f);
        return 1;
    }
    uint64_t value = 0;
    cg_status st = cg_vk_export_copy(p->e, p->game, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, &value);
    CHECK(st == CG_OK, "vk copy: %s", cg_vk_export_last_error(p->e));
    st = cg_cuda_import_copy(p->ci, value);
    CHECK(st == CG_OK, "cuda copy: %s", cg_cuda_import_last_error(p->ci));
    return st != CG_OK;
}

static void frames(int w, int h, cg_vk_sync sync, int n)
{
    pair p;
    if (pair_open(&p, w, h, sync)) {
        pair_close(&p);
        return;
    }
    size_t bytes = (size_t)w * (size_t)h * 4;
    uint8_t *want = malloc(bytes), *got = malloc(bytes);
    int bad = 0;
    for (int f = 0; f < n && !bad; f++) {
        if (pair_frame(&p, f, want)) break;
        memset(got, 0x5A, bytes);
        cudaMemcpy(got, cg_cuda_import_shared_ptr(p.ci), bytes, cudaMemcpyDeviceToHost);
        bad = memcmp(want, got, bytes) != 0;
        CHECK(!bad, "%dx%d sync %d frame %d: shared buffer differs", w, h, (int)sync, f);
    }
    printf("%dx%d sync %d: %d frames %s\n", w, h, (int)sync, n, bad ? "DIFFER" : "byte-exact");
    free(want);
    free(got);
    pair_close(&p);
}

static void wrong_uuid(void)
{
    cg_err err = {""};
    cg_vk_export_desc d = vkt_export_desc(&T, 16, 16, CG_VK_SYNC_FENCE);
    cg_vk_export *e = NULL;
    cg_status est = cg_vk_export_create(&d, &e, &err);
    CHECK(est == CG_OK, "export for the UUID case: %s %s", cg_status_name(est), err.text);
    if (est != CG_OK) return;
    cg_vk_export_info info;
    cg_vk_export_get_info(e, &info);
    int fd = -1;
    cg_vk_export_memory_fd(e, &fd);
    cg_ext_memory_desc cd = vkt_import_desc(&info, fd);
    cd.device_uuid[5] ^= 0xFF;
    cg_cuda_import *ci = NULL;
    cg_cuda_import_create(&ci);
    uint8_t h[CG_CUDA_IPC_HANDLE_SIZE];
    cg_status st = cg_cuda_import_init(ci, &cd, h);
    CHECK(st == CG_E_NO_DEVICE, "wrong UUID gave %s", cg_status_name(st));
    CHECK(strstr(cg_cuda_import_last_error(ci), "UUID") != NULL, "message: %s",
          cg_cuda_import_last_error(ci));
    CHECK(!fd_is_open(fd), "fd left open after a failed import");
    CHECK(cg_cuda_import_copy(ci, 0) == CG_E_NOT_INITIALIZED, "copy after failed import");
    /* Too small an allocation: refused before any CUDA call, and the fd,
     * valid, is still the library's: closed (Java could never close it). */
    cg_vk_export_memory_fd(e, &fd);
    cd.handle = fd;
    memcpy(cd.device_uuid, info.device_uuid, 16);
    cd.allocation_size = 16 * 16 * 4 - 1;
    CHECK(cg_cuda_import_init(ci, &cd, h) == CG_E_BUFFER_TOO_SMALL, "small allocation");
    CHECK(!fd_is_open(fd), "fd left open although it was given to the import");
    cg_cuda_import_destroy(ci);
    cg_vk_export_destroy(e);
}

/* A second process opens the handle and checks each frame. */
static void ipc(const char *consumer, int w, int h, int n)
{
    pair p;
    if (pair_open(&p, w, h, CG_VK_SYNC_FENCE)) {
        pair_close(&p);
        return;
    }
    char hex[2 * CG_CUDA_IPC_HANDLE_SIZE + 1];
    for (int i = 0; i < CG_CUDA_IPC_HANDLE_SIZE; i++) snprintf(hex + 2 * i, 3, "%02x", p.handle[i]);
    int to_child[2], from_child[2];
    if (pipe(to_child) || pipe(from_child)) {
        CHECK(0, "pipe: %s", strerror(errno));
        pair_close(&p);
        return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from_child[1], 1);
    posix_spawn_file_actions_addclose(&fa, to_child[1]);
    posix_spawn_file_actions_addclose(&fa, from_child[0]);
    char ws[16], hs[16];
    snprintf(ws, sizeof ws, "%d", w);
    snprintf(hs, sizeof hs, "%d", h);
    const char *py = getenv("CG_PYTHON") ? getenv("CG_PYTHON") : "python3";
    char *argv[] = {(char *)py, (char *)consumer, hex, ws, hs, (char *)"--no-flip", NULL};
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, py, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(to_child[0]);
    close(from_child[1]);
    CHECK(rc == 0, "spawn %s: %s", py, strerror(rc));
    FILE *out = fdopen(to_child[1], "w"), *in = fdopen(from_child[0], "r");
    char line[256] = "";
    int skipped = 0, ok = 0;
    if (!fgets(line, sizeof line, in)) line[0] = '\0';
    if (strncmp(line, "SKIP", 4) == 0) {
        skipped = 1;
        printf("consumer: %s", line);
    } else {
        CHECK(strncmp(line, "READY", 5) == 0, "consumer said: %s", line);
        size_t bytes = (size_t)w * (size_t)h * 4;
        uint8_t *want = malloc(bytes);
        for (int f = 0; f < n; f++) {
            if (pair_frame(&p, f, want)) break;
            fprintf(out, "FRAME %d\n", f);
            fflush(out);
            if (!fgets(line, sizeof line, in)) break;
            if (strncmp(line, "OK", 2) != 0) {
                CHECK(0, "consumer frame %d: %s", f, line);
                break;
            }
            ok++;
        }
        free(want);
        fprintf(out, "DONE\n");
        fflush(out);
    }
    fclose(out);
    fclose(in);
    int status = 0;
    if (rc == 0) waitpid(pid, &status, 0);
    if (!skipped) {
        CHECK(ok == n, "consumer confirmed %d of %d frames", ok, n);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "consumer exit status %d", status);
        printf("ipc %dx%d: a second process checked %d/%d frames\n", w, h, ok, n);
    }
    pair_close(&p);
    if (skipped) exit(77);
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    cuda_probe_or_skip();
    char why[512];
    int rc = vkt_init(&T, why, sizeof why);
    if (rc) {
        printf("%s: %s\n", rc == VKT_SKIP ? "SKIP" : "FAIL", why);
        return rc;
    }
    printf("Vulkan device: %s\n", T.device_name);
    if (argc > 2 && strcmp(argv[1], "ipc") == 0) {
        ipc(argv[2], 640, 360, 60);
    } else {
        wrong_uuid();
        frames(640, 360, CG_VK_SYNC_FENCE, 60);
        frames(33, 17, CG_VK_SYNC_FENCE, 10);     /* odd sizes, re-initialised */
        frames(1920, 1080, CG_VK_SYNC_FENCE, 20); /* re-initialised at another size */
        frames(640, 360, CG_VK_SYNC_FENCE, 5);    /* and back */
        if (T.has_sem_fd) frames(640, 360, CG_VK_SYNC_BINARY, 60);
        else CHECK(0, "%s lacks VK_KHR_external_semaphore_fd", T.device_name);
        if (T.has_timeline) frames(1280, 720, CG_VK_SYNC_TIMELINE, 60);
        else CHECK(0, "%s lacks timeline semaphores", T.device_name);
    }
    vkt_fini(&T);
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
