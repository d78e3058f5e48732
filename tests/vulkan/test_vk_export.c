/*
 * test_vk_export.c - the Vulkan half of zero-copy on a real driver (Mesa
 * lavapipe here, NVIDIA on the GPU machine): exportable image, fd export,
 * the per-frame copy, semaphore export and object naming. The oracle for
 * the copied pixels is the exported fd itself: it is imported back into a
 * second VkImage and read through a staging buffer, then compared with the
 * pattern uploaded into the "game" image.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg_vk_export.h"
#include "vkt.h"
#include "vkt_export.h"
#include "zc_test.h"

static int failures;

/* Debug-utils names seen through an intercepted vkSetDebugUtilsObjectNameEXT. */
static vkt T;
static PFN_vkSetDebugUtilsObjectNameEXT real_set_name;
static struct {
    uint64_t handle;
    VkObjectType type;
    char name[64];
} names[64];
static int nnames;

static VKAPI_ATTR VkResult VKAPI_CALL spy_set_name(VkDevice d, const VkDebugUtilsObjectNameInfoEXT *ni)
{
    if (nnames < 64) {
        names[nnames].handle = ni->objectHandle;
        names[nnames].type = ni->objectType;
        snprintf(names[nnames].name, sizeof names[nnames].name, "%s", ni->pObjectName);
        nnames++;
    }
    return real_set_name ? real_set_name(d, ni) : VK_SUCCESS;
}

/* When not VK_SUCCESS: what the format query reports instead of asking the
 * driver (a driver failing there must be reported as that failure). */
static VkResult format_query_result;

static VKAPI_ATTR VkResult VKAPI_CALL spy_format_query(VkPhysicalDevice pd,
                                                      const VkPhysicalDeviceImageFormatInfo2 *fi,
                                                      VkImageFormatProperties2 *props)
{
    (void)pd;
    (void)fi;
    (void)props;
    return format_query_result;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL spy_gipa(VkInstance inst, const char *name)
{
    if (format_query_result != VK_SUCCESS &&
        strcmp(name, "vkGetPhysicalDeviceImageFormatProperties2") == 0)
        return (PFN_vkVoidFunction)spy_format_query;
    if (strcmp(name, "vkSetDebugUtilsObjectNameEXT") == 0) {
        real_set_name = (PFN_vkSetDebugUtilsObjectNameEXT)T.gipa(inst, name);
        return (PFN_vkVoidFunction)spy_set_name;
    }
    return T.gipa(inst, name);
}

static const char *name_of(uint64_t handle, VkObjectType type)
{
    for (int i = 0; i < nnames; i++)
        if (names[i].handle == handle && names[i].type == type) return names[i].name;
    return NULL;
}

static cg_vk_export_desc desc(int w, int h, cg_vk_sync sync)
{
    cg_vk_export_desc d = vkt_export_desc(&T, w, h, sync);
    d.get_instance_proc_addr = spy_gipa;
    d.debug_utils = 1;
    return d;
}

/* Copy `frames` changing frames through the export image and read each one
 * back through an import of the exported fd. */
static void copy_frames(int w, int h, int frames)
{
    cg_err err = {""};
    cg_vk_export *e = NULL;
    cg_vk_export_desc d = desc(w, h, CG_VK_SYNC_FENCE);
    cg_status st = cg_vk_export_create(&d, &e, &err);
    CHECK(st == CG_OK, "%dx%d create: %s %s", w, h, cg_status_name(st), err.text);
    if (st != CG_OK) return;
    cg_vk_export_info info;
    cg_vk_export_get_info(e, &info);
    CHECK(memcmp(info.device_uuid, T.uuid, 16) == 0, "UUID differs from the device's own");
    CHECK(info.allocation_size >= (uint64_t)w * (uint64_t)h * 4, "allocation %llu too small",
          (unsigned long long)info.allocation_size);
    CHECK(info.dedicated == 1 && info.image && info.memory, "info incomplete");

    int fd = -1;
    st = cg_vk_export_memory_fd(e, &fd);
    CHECK(st == CG_OK && fd >= 0, "memory fd: %s %s", cg_status_name(st), cg_vk_export_last_error(e));
    VkImage view = VK_NULL_HANDLE, game = VK_NULL_HANDLE;
    VkDeviceMemory view_mem = VK_NULL_HANDLE, game_mem = VK_NULL_HANDLE;
    CHECK(vkt_image(&T, w, h, fd, info.allocation_size, &view, &view_mem) == 0,
          "importing the exported fd back into Vulkan failed");
    CHECK(vkt_image(&T, w, h, -1, 0, &game, &game_mem) == 0, "game image");

    size_t n = (size_t)w * (size_t)h * 4;
    uint8_t *want = malloc(n), *got = malloc(n);
    for (int f = 0; f < frames; f++) {
        zc_pattern(want, w, h, f);
        CHECK(vkt_upload(&T, game, w, h, want, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL) == 0,
              "upload");
        st = cg_vk_export_copy(e, game, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, NULL);
        CHECK(st == CG_OK, "copy: %s %s", cg_status_name(st), cg_vk_export_last_error(e));
        memset(got, 0xAB, n);
        CHECK(vkt_download(&T, view, VK_IMAGE_LAYOUT_GENERAL, w, h, got) == 0, "download");
        CHECK(memcmp(want, got, n) == 0, "%dx%d frame %d: exported memory differs", w, h, f);
    }
    free(want);
    free(got);
    vkt_image_free(&T, game, game_mem);
    vkt_image_free(&T, view, view_mem);
    cg_vk_export_destroy(e);
}

static void names_given(void)
{
    cg_err err = {""};
    cg_vk_export *e = NULL;
    nnames = 0;
    cg_vk_export_desc d = desc(8, 8, T.has_sem_fd ? CG_VK_SYNC_BINARY : CG_VK_SYNC_FENCE);
    CHECK(cg_vk_export_create(&d, &e, &err) == CG_OK, "%s", err.text);
    if (!e) return;
    cg_vk_export_info info;
    cg_vk_export_get_info(e, &info);
    const char *in = name_of((uint64_t)(uintptr_t)info.image, VK_OBJECT_TYPE_IMAGE);
    const char *mn = name_of((uint64_t)(uintptr_t)info.memory, VK_OBJECT_TYPE_DEVICE_MEMORY);
    CHECK(in && strncmp(in, "cg ", 3) == 0, "image not named (%d names seen)", nnames);
    CHECK(mn && strncmp(mn, "cg ", 3) == 0, "memory not named");
    int seen_pool = 0, seen_fence = 0, seen_cmd = 0;
    for (int i = 0; i < nnames; i++) {
        seen_pool |= names[i].type == VK_OBJECT_TYPE_COMMAND_POOL;
        seen_fence |= names[i].type == VK_OBJECT_TYPE_FENCE;
        seen_cmd |= names[i].type == VK_OBJECT_TYPE_COMMAND_BUFFER;
    }
    CHECK(seen_pool && seen_fence && seen_cmd, "pool %d fence %d cmd %d", seen_pool, seen_fence,
          seen_cmd);
    if (T.has_sem_fd)
        CHECK(name_of((uint64_t)(uintptr_t)info.semaphore, VK_OBJECT_TYPE_SEMAPHORE) != NULL,
              "semaphore not named");
    cg_vk_export_destroy(e);

    /* Naming off: nothing is named. */
    nnames = 0;
    d.debug_utils = 0;
    CHECK(cg_vk_export_create(&d, &e, &err) == CG_OK, "%s", err.text);
    CHECK(nnames == 0, "%d objects named with debug_utils off", nnames);
    cg_vk_export_destroy(e);
}

/* The exported semaphore is signalled by the copy: import its fd into a
 * second semaphore and wait on that. */
static void semaphores(cg_vk_sync sync)
{
    cg_err err = {""};
    cg_vk_export *e = NULL;
    cg_vk_export_desc d = desc(16, 9, sync);
    cg_status st = cg_vk_export_create(&d, &e, &err);
    CHECK(st == CG_OK, "sync %d create: %s %s", (int)sync, cg_status_name(st), err.text);
    if (!e) return;
    VkImage game;
    VkDeviceMemory gm;
    if (vkt_image(&T, 16, 9, -1, 0, &game, &gm) != 0) {
        CHECK(0, "game image for the semaphore case");
        cg_vk_export_destroy(e);
        return;
    }
    uint8_t px[16 * 9 * 4];
    zc_pattern(px, 16, 9, 1);
    CHECK(vkt_upload(&T, game, 16, 9, px, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL) == 0, "upload");

    int sfd = -1;
    st = cg_vk_export_semaphore_fd(e, &sfd);
    CHECK(st == CG_OK && sfd >= 0, "semaphore fd: %s %s", cg_status_name(st),
          cg_vk_export_last_error(e));
    VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    if (sync == CG_VK_SYNC_TIMELINE) si.pNext = &ti;
    VkSemaphore other = VK_NULL_HANDLE;
    CHECK(VKT_FN(&T, vkCreateSemaphore)(T.dev, &si, NULL, &other) == VK_SUCCESS,
          "semaphore to import into");
    VkImportSemaphoreFdInfoKHR imp = {.sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR};
    imp.semaphore = other;
    imp.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    imp.fd = sfd;
    VkResult r = VKT_FN(&T, vkImportSemaphoreFdKHR)(T.dev, &imp);
    CHECK(r == VK_SUCCESS, "vkImportSemaphoreFdKHR %d", r);

    for (int f = 1; f <= 3; f++) {
        uint64_t value = 99;
        st = cg_vk_export_copy(e, game, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, &value);
        CHECK(st == CG_OK, "copy %s", cg_vk_export_last_error(e));
        if (sync == CG_VK_SYNC_TIMELINE) {
            CHECK(value == (uint64_t)f, "timeline value %llu, want %d", (unsigned long long)value, f);
            VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
            wi.semaphoreCount = 1;
            wi.pSemaphores = &other;
            wi.pValues = &value;
            r = VKT_FN(&T, vkWaitSemaphores)(T.dev, &wi, 5000000000ull);
            CHECK(r == VK_SUCCESS, "timeline wait %d", r);
        } else {
            CHECK(value == 0, "binary value %llu", (unsigned long long)value);
            VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
            VkSubmitInfo sub = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
            sub.waitSemaphoreCount = 1;
            sub.pWaitSemaphores = &other;
            sub.pWaitDstStageMask = &stage;
            VKT_FN(&T, vkResetFences)(T.dev, 1, &T.fence);
            VKT_FN(&T, vkQueueSubmit)(T.queue, 1, &sub, T.fence);
            r = VKT_FN(&T, vkWaitForFences)(T.dev, 1, &T.fence, VK_TRUE, 5000000000ull);
            CHECK(r == VK_SUCCESS, "wait on the imported binary semaphore: %d", r);
        }
    }
    VKT_FN(&T, vkDeviceWaitIdle)(T.dev);
    VKT_FN(&T, vkDestroySemaphore)(T.dev, other, NULL);
    vkt_image_free(&T, game, gm);
    cg_vk_export_destroy(e);
}

static void bad_args(void)
{
    cg_err err = {""};
    cg_vk_export *e = (cg_vk_export *)&err; /* must be reset to NULL */
    cg_vk_export_desc d = desc(0, 8, CG_VK_SYNC_FENCE);
    CHECK(cg_vk_export_create(&d, &e, &err) == CG_E_INVALID_ARG && e == NULL, "w=0");
    d = desc(16385, 8, CG_VK_SYNC_FENCE);
    CHECK(cg_vk_export_create(&d, &e, &err) == CG_E_TOO_LARGE, "w=16385");
    d = desc(8, 8, (cg_vk_sync)7);
    CHECK(cg_vk_export_create(&d, &e, &err) == CG_E_INVALID_ARG, "sync 7");
    d = desc(8, 8, CG_VK_SYNC_FENCE);
    d.format = VK_FORMAT_R32_SFLOAT;
    CHECK(cg_vk_export_create(&d, &e, &err) == CG_E_INVALID_ARG, "format");
    d = desc(8, 8, CG_VK_SYNC_FENCE);
    d.device = VK_NULL_HANDLE;
    CHECK(cg_vk_export_create(&d, &e, &err) == CG_E_INVALID_ARG, "no device");
    CHECK(cg_vk_export_create(NULL, &e, &err) == CG_E_INVALID_ARG, "NULL desc");
    d = desc(8, 8, CG_VK_SYNC_FENCE);
    CHECK(cg_vk_export_create(&d, &e, &err) == CG_OK, "%s", err.text);
    int fd = 5;
    CHECK(cg_vk_export_semaphore_fd(e, &fd) == CG_E_BAD_STATE && fd == -1,
          "semaphore fd in fence mode");
    CHECK(cg_vk_export_copy(e, VK_NULL_HANDLE, VK_IMAGE_LAYOUT_GENERAL, NULL) == CG_E_INVALID_ARG,
          "null source");
    cg_vk_export_destroy(e);
    cg_vk_export_destroy(NULL);
    CHECK(strcmp(cg_vk_result_name(VK_ERROR_DEVICE_LOST), "VK_ERROR_DEVICE_LOST") == 0, "name");
}

/* A failing format query is a Vulkan failure carrying its VkResult, not
 * "this device cannot export": only FORMAT_NOT_SUPPORTED means that. */
static void format_query_failures(void)
{
    static const struct {
        VkResult r;
        cg_status want;
        const char *text;
    } cases[] = {
        {VK_ERROR_OUT_OF_DEVICE_MEMORY, CG_E_VULKAN, "VK_ERROR_OUT_OF_DEVICE_MEMORY"},
        {VK_ERROR_OUT_OF_HOST_MEMORY, CG_E_NO_MEMORY, "VK_ERROR_OUT_OF_HOST_MEMORY"},
        {VK_ERROR_FORMAT_NOT_SUPPORTED, CG_E_UNSUPPORTED, "cannot export"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cg_err err = {""};
        cg_vk_export *e = NULL;
        cg_vk_export_desc d = desc(8, 8, CG_VK_SYNC_FENCE);
        format_query_result = cases[i].r;
        cg_status st = cg_vk_export_create(&d, &e, &err);
        format_query_result = VK_SUCCESS;
        CHECK(st == cases[i].want && e == NULL, "format query %s: got %s, want %s (%s)",
              cg_vk_result_name(cases[i].r), cg_status_name(st), cg_status_name(cases[i].want),
              err.text);
        CHECK(strstr(err.text, cases[i].text) != NULL,
              "format query %s: message \"%s\" lacks \"%s\"", cg_vk_result_name(cases[i].r),
              err.text, cases[i].text);
        cg_vk_export_destroy(e);
    }
}

/* argv[1] picks the case: "core" (default), or one that needs an optional
 * device feature and exits 77 (SKIPPED, by its ctest name) without it. */
int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "core";
    char why[512];
    int rc = vkt_init(&T, why, sizeof why);
    if (rc == VKT_SKIP) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    if (rc) {
        fprintf(stderr, "FAIL: %s\n", why);
        return 1;
    }
    printf("device: %s (debug_utils %d, semaphore fd %d, timeline %d)\n", T.device_name,
           T.has_debug_utils, T.has_sem_fd, T.has_timeline);
    const char *missing = NULL;
    if (strcmp(which, "core") == 0) {
        bad_args();
        format_query_failures();
        copy_frames(1, 1, 2);
        copy_frames(3, 2, 3);
        copy_frames(641, 359, 4);
    } else if (strcmp(which, "naming") == 0) {
        if (T.has_debug_utils) names_given();
        else missing = "VK_EXT_debug_utils";
    } else if (strcmp(which, "binary_semaphore") == 0) {
        if (T.has_sem_fd) semaphores(CG_VK_SYNC_BINARY);
        else missing = "VK_KHR_external_semaphore_fd";
    } else if (strcmp(which, "timeline_semaphore") == 0) {
        if (T.has_timeline) semaphores(CG_VK_SYNC_TIMELINE);
        else missing = "timeline semaphores with VK_KHR_external_semaphore_fd";
    } else {
        fprintf(stderr, "unknown case %s\n", which);
        failures++;
    }
    /* The device's name outlives the context: vkt_fini clears T. */
    char device[sizeof T.device_name];
    snprintf(device, sizeof device, "%s", T.device_name);
    vkt_fini(&T);
    if (missing) {
        printf("SKIP vulkan_export_%s: %s lacks %s: the %s case cannot run\n", which, device, missing,
               which);
        return 77;
    }
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    else printf("all Vulkan export checks of the %s case passed\n", which);
    return failures ? 1 : 0;
}
