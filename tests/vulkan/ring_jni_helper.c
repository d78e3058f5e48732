/*
 * ring_jni_helper.c - test-only JNI library (libring_helper.so) for
 * RingJniTest: plays the game's Vulkan side on the test harness's device
 * (lavapipe here): hands its handles to Java as longs, and per frame
 * uploads the test pattern into the "game" image and opens the game's
 * command buffer, into which VulkanZerocopyRing.recordImpl records its
 * copy; vkSubmit then submits it and waits on the game's fence. For the
 * RGB-D round: a colour and a depth image per eye (vkSetupRgbd), each
 * eye's frame uploaded (vkBeginEye: pattern 2f + eye, depth_ref.h's depth
 * of frame f), and the depth values for Java's reference (depthPattern).
 */
#include <jni.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "depth_ref.h"
#include "vkt.h"
#include "zc_test.h"

JNIEXPORT jlongArray JNICALL Java_cgtest_RingJniTest_vkSetup(JNIEnv *env, jclass cls, jint w, jint h);
JNIEXPORT jlongArray JNICALL Java_cgtest_RingJniTest_vkSetupFormat(JNIEnv *env, jclass cls, jint w,
                                                                    jint h, jint format);
JNIEXPORT jlong JNICALL Java_cgtest_RingJniTest_vkBegin(JNIEnv *env, jclass cls, jint f);
JNIEXPORT jboolean JNICALL Java_cgtest_RingJniTest_vkSubmit(JNIEnv *env, jclass cls);
JNIEXPORT void JNICALL Java_cgtest_RingJniTest_vkTeardown(JNIEnv *env, jclass cls);
JNIEXPORT jlongArray JNICALL Java_cgtest_RingJniTest_vkSetupRgbd(JNIEnv *env, jclass cls, jint w,
                                                                  jint h);
JNIEXPORT jlong JNICALL Java_cgtest_RingJniTest_vkBeginEye(JNIEnv *env, jclass cls, jint f, jint eye);
JNIEXPORT void JNICALL Java_cgtest_RingJniTest_vkWaitIdle(JNIEnv *env, jclass cls);
JNIEXPORT jfloatArray JNICALL Java_cgtest_RingJniTest_depthPattern(JNIEnv *env, jclass cls, jint w,
                                                                    jint h, jint f, jint eye);

static vkt T;
static int t_open;
static VkImage G;
static VkDeviceMemory GM;
static int W, H;

/* The RGB-D round's second colour image and both eyes' depth images. */
static VkImage G1, D[2];
static VkDeviceMemory G1M, DM[2];

static void free_image(void)
{
    if (G) vkt_image_free(&T, G, GM);
    G = VK_NULL_HANDLE;
    if (G1) vkt_image_free(&T, G1, G1M);
    G1 = VK_NULL_HANDLE;
    for (int e = 0; e < 2; e++) {
        if (D[e]) vkt_image_free(&T, D[e], DM[e]);
        D[e] = VK_NULL_HANDLE;
    }
}

/* {instance, physicalDevice, device, queueFamily, queue, vkGetInstanceProcAddr,
 *  game image, debugUtils, exportable timeline semaphores}; null when this machine has no usable Vulkan
 * device (the test then reports SKIPPED). */
JNIEXPORT jlongArray JNICALL Java_cgtest_RingJniTest_vkSetup(JNIEnv *env, jclass cls, jint w, jint h)
{
    return Java_cgtest_RingJniTest_vkSetupFormat(env, cls, w, h, VK_FORMAT_R8G8B8A8_UNORM);
}

/* The same with a game image of that VkFormat (a swapchain's B8G8R8A8). */
JNIEXPORT jlongArray JNICALL Java_cgtest_RingJniTest_vkSetupFormat(JNIEnv *env, jclass cls, jint w,
                                                                    jint h, jint format)
{
    (void)cls;
    char why[256];
    if (!t_open) {
        int rc = vkt_init(&T, why, sizeof why);
        if (rc) {
            fprintf(stderr, "ring_jni_helper: %s\n", why);
            return NULL;
        }
        t_open = 1;
    }
    free_image();
    /* SAMPLED too: the RGB slot format reads a UNORM image through a view. */
    if (vkt_image_ex(&T, w, h, (VkFormat)format, VK_IMAGE_USAGE_SAMPLED_BIT, -1, 0, &G, &GM))
        return NULL;
    W = w;
    H = h;
    jlong v[9] = {(jlong)(uintptr_t)T.inst, (jlong)(uintptr_t)T.phys, (jlong)(uintptr_t)T.dev,
                  (jlong)T.qfam, (jlong)(uintptr_t)T.queue, (jlong)(uintptr_t)T.gipa,
                  (jlong)(uintptr_t)G, T.has_debug_utils, T.has_timeline};
    jlongArray a = (*env)->NewLongArray(env, 9);
    if (a) (*env)->SetLongArrayRegion(env, a, 0, 9, v);
    return a;
}

JNIEXPORT jlong JNICALL Java_cgtest_RingJniTest_vkBegin(JNIEnv *env, jclass cls, jint f)
{
    (void)env;
    (void)cls;
    uint8_t *px = malloc((size_t)W * (size_t)H * 4);
    if (!px) return 0;
    zc_pattern(px, W, H, f);
    int rc = vkt_upload(&T, G, W, H, px, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    free(px);
    if (rc) return 0;
    VKT_FN(&T, vkResetCommandBuffer)(T.cmd, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    if (VKT_FN(&T, vkBeginCommandBuffer)(T.cmd, &bi) != VK_SUCCESS) return 0;
    return (jlong)(uintptr_t)T.cmd;
}

JNIEXPORT jboolean JNICALL Java_cgtest_RingJniTest_vkSubmit(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    if (VKT_FN(&T, vkEndCommandBuffer)(T.cmd) != VK_SUCCESS) return JNI_FALSE;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &T.cmd;
    VKT_FN(&T, vkResetFences)(T.dev, 1, &T.fence);
    if (VKT_FN(&T, vkQueueSubmit)(T.queue, 1, &si, T.fence) != VK_SUCCESS) return JNI_FALSE;
    return VKT_FN(&T, vkWaitForFences)(T.dev, 1, &T.fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS;
}

JNIEXPORT void JNICALL Java_cgtest_RingJniTest_vkTeardown(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    free_image();
    if (t_open) vkt_fini(&T);
    t_open = 0;
}

/* vkSetup's array and {colour image of eye 1, depth image of eye 0, of
 * eye 1} (D32_SFLOAT, Minecraft's depth usage); null without a device. */
JNIEXPORT jlongArray JNICALL Java_cgtest_RingJniTest_vkSetupRgbd(JNIEnv *env, jclass cls, jint w,
                                                                  jint h)
{
    jlongArray base = Java_cgtest_RingJniTest_vkSetupFormat(env, cls, w, h, VK_FORMAT_R8G8B8A8_UNORM);
    if (!base) return NULL;
    if (vkt_image_ex(&T, w, h, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT, -1, 0, &G1, &G1M) ||
        vkt_depth_image(&T, w, h, &D[0], &DM[0]) || vkt_depth_image(&T, w, h, &D[1], &DM[1]))
        return NULL;
    jlong v[12];
    (*env)->GetLongArrayRegion(env, base, 0, 9, v);
    v[9] = (jlong)(uintptr_t)G1;
    v[10] = (jlong)(uintptr_t)D[0];
    v[11] = (jlong)(uintptr_t)D[1];
    jlongArray a = (*env)->NewLongArray(env, 12);
    if (a) (*env)->SetLongArrayRegion(env, a, 0, 12, v);
    return a;
}

/* Eye `eye` of frame f: its colour image gets pattern 2f + eye (left in
 * COLOR_ATTACHMENT_OPTIMAL), its depth image depth_frame(f, eye) (left in
 * GENERAL, as Minecraft keeps it); the game's command buffer begun. */
JNIEXPORT jlong JNICALL Java_cgtest_RingJniTest_vkBeginEye(JNIEnv *env, jclass cls, jint f, jint eye)
{
    (void)env;
    (void)cls;
    size_t n = (size_t)W * (size_t)H;
    uint8_t *px = malloc(n * 4);
    float *d = malloc(n * 4);
    int rc = !px || !d;
    if (!rc) {
        zc_pattern(px, W, H, 2 * f + eye);
        depth_frame(d, W, H, f, eye);
        rc = vkt_upload(&T, eye ? G1 : G, W, H, px, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL) ||
             vkt_upload_depth(&T, D[eye ? 1 : 0], W, H, d, VK_IMAGE_LAYOUT_GENERAL);
    }
    free(px);
    free(d);
    if (rc) return 0;
    VKT_FN(&T, vkResetCommandBuffer)(T.cmd, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    if (VKT_FN(&T, vkBeginCommandBuffer)(T.cmd, &bi) != VK_SUCCESS) return 0;
    return (jlong)(uintptr_t)T.cmd;
}

/* The depth values vkBeginEye uploads (row 0 first), for Java's reference. */
JNIEXPORT jfloatArray JNICALL Java_cgtest_RingJniTest_depthPattern(JNIEnv *env, jclass cls, jint w,
                                                                    jint h, jint f, jint eye)
{
    (void)cls;
    size_t n = (size_t)w * (size_t)h;
    float *d = malloc(n * 4);
    if (!d) return NULL;
    depth_frame(d, w, h, f, eye);
    jfloatArray a = (*env)->NewFloatArray(env, (jsize)n);
    if (a) (*env)->SetFloatArrayRegion(env, a, 0, (jsize)n, d);
    free(d);
    return a;
}

/* The queue idle (the ring's own submits too), before a learner reads. */
JNIEXPORT void JNICALL Java_cgtest_RingJniTest_vkWaitIdle(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    VKT_FN(&T, vkQueueWaitIdle)(T.queue);
}
