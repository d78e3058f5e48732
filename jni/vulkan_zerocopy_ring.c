/*
 * vulkan_zerocopy_ring.c - com.kyhsgeekcode.minecraftenv.VulkanZerocopyRing:
 * zero-copy v2 (docs/zero-copy-v2/producer.md) through cg_vk_ring, as a plain copy
 * (initCopyImpl with the image's format and usage, which picks the compute
 * or the transfer copy; initImpl, the same for an R8G8B8A8_UNORM image of
 * unknown usage: the transfer copy) or in the RGB slot format (initRgbImpl, with the
 * cursor per frame through publishCursorImpl / recordCursorImpl; initRgbdImpl with eyes and
 * a depth plane, its frames part by part: recordDepthImpl, publishEyeImpl /
 * recordEyeImpl, which return the descriptor at the frame's last part, an empty one
 * before). One ring per
 * process behind the object's lock; every status becomes the exception of
 * cg_jexc_for_status, except CG_E_RING_FULL, which is a skipped frame: the
 * per-frame calls then return null.
 *
 * Checks: this file checks only what a Java value is (a negative int or
 * long where an unsigned number goes); handles, mode, slot count, sizes,
 * image formats and usages are cg_vk_ring_create's and the frame calls' to check
 * (cg_vk_ring.h), once, and their text is the exception's message.
 */
#include <stdint.h>
#include <string.h>

#include "cg_jni.h"
#include "cg_vk_ring.h"
#include "com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing.h" /* javac -h */

static cg_jni_singleton g_ring = CG_JNI_SINGLETON_INIT;

static cg_status make(void *arg, void **ctx, uint8_t *tmpl, size_t *len, cg_err *why)
{
    cg_vk_ring *r = NULL;
    CG_TRY(cg_vk_ring_create(arg, &r, why));
    *ctx = r;
    cg_status st = cg_vk_ring_template(r, tmpl, CG_JNI_DESC_MAX);
    *len = cg_zc_desc_length(tmpl);
    return st;
}

/* Which frame call a step makes. */
typedef enum frame_kind {
    FRAME_WHOLE = 0, /* publish/record(Cursor): a ring of one part */
    FRAME_DEPTH = 1, /* recordDepthImpl */
    FRAME_EYE = 2    /* publishEyeImpl / recordEyeImpl */
} frame_kind;

typedef struct frame_args {
    frame_kind kind;
    int record;          /* 0: publish */
    VkCommandBuffer cmd; /* record's (and the depth part's) */
    VkImage image;
    VkImageLayout layout;
    const cg_cursor *cursor;
    uint32_t eye;
    const cg_zc_depth_params *depth;
} frame_args;

static cg_status step(void *ctx, void *arg, uint8_t *desc, size_t *len, cg_err *why)
{
    const frame_args *a = arg;
    cg_status st;
    *len = CG_ZC_DESC_SIZE;
    if (a->kind == FRAME_DEPTH)
        st = cg_vk_ring_record_depth(ctx, a->cmd, a->image, a->layout, a->eye, a->depth, desc, len);
    else if (a->kind == FRAME_EYE && a->record)
        st = cg_vk_ring_record_eye(ctx, a->cmd, a->image, a->layout, a->eye, a->cursor, desc, len);
    else if (a->kind == FRAME_EYE)
        st = cg_vk_ring_publish_eye(ctx, a->image, a->layout, a->eye, a->cursor, desc, len);
    else if (a->record)
        st = cg_vk_ring_record_cursor(ctx, a->cmd, a->image, a->layout, a->cursor, desc);
    else
        st = cg_vk_ring_publish_cursor(ctx, a->image, a->layout, a->cursor, desc);
    return st == CG_OK ? st : cg_fail_from(why, st, cg_vk_ring_error(ctx));
}

static void destroy(void *ctx)
{
    cg_vk_ring_destroy(ctx);
}

/* The Java-level checks and the creation all init natives share; d carries
 * the format fields already. */
static jobject init_ring(JNIEnv *env, const char *what, cg_vk_ring_desc *d, jlong instance,
                         jlong physicalDevice, jlong device, jint queueFamily, jlong queue,
                         jlong getInstanceProcAddr, jint width, jint height, jint slots, jint mode,
                         jlong waitNanos, jboolean debugUtils)
{
    if (queueFamily < 0 || slots < 0 || waitNanos < 0)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: queueFamily %d, slots %d, waitNanos %lld: none may be negative", what,
                        (int)queueFamily, (int)slots, (long long)waitNanos),
               NULL;

    d->instance = (VkInstance)(uintptr_t)instance;
    d->physical_device = (VkPhysicalDevice)(uintptr_t)physicalDevice;
    d->device = (VkDevice)(uintptr_t)device;
    d->queue = (VkQueue)(uintptr_t)queue;
    d->get_instance_proc_addr = (PFN_vkGetInstanceProcAddr)(uintptr_t)getInstanceProcAddr;
    d->queue_family = (uint32_t)queueFamily;
    d->width = width;
    d->height = height;
    d->slots = (uint32_t)slots;
    d->mode = (cg_zc_mode)mode;
    d->wait_ns = (uint64_t)waitNanos;
    d->debug_utils = debugUtils ? 1 : 0;

    return cg_jni_ring_init(env, &g_ring, what, make, d, CG_OK);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_initImpl(
    JNIEnv *env, jobject thiz, jlong instance, jlong physicalDevice, jlong device, jint queueFamily,
    jlong queue, jlong getInstanceProcAddr, jint width, jint height, jint slots, jint mode,
    jlong waitNanos, jboolean debugUtils)
{
    (void)thiz;
    cg_vk_ring_desc d;
    memset(&d, 0, sizeof d);
    return init_ring(env, "VulkanZerocopyRing.initImpl", &d, instance, physicalDevice, device,
                     queueFamily, queue, getInstanceProcAddr, width, height, slots, mode, waitNanos,
                     debugUtils);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_initCopyImpl(
    JNIEnv *env, jobject thiz, jlong instance, jlong physicalDevice, jlong device, jint queueFamily,
    jlong queue, jlong getInstanceProcAddr, jint width, jint height, jint imageFormat,
    jint imageUsage, jint slots, jint mode, jlong waitNanos, jboolean debugUtils)
{
    (void)thiz;
    static const char what[] = "VulkanZerocopyRing.initCopyImpl";
    if (imageUsage < 0)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: imageUsage %d is negative (VkImageUsageFlags, 0 = unknown)", what,
                        (int)imageUsage),
               NULL;
    cg_vk_ring_desc d;
    memset(&d, 0, sizeof d);
    d.format = (VkFormat)imageFormat; /* the descriptor's format: the copy keeps the bytes */
    d.image_usage = (VkImageUsageFlags)imageUsage; /* picks the compute copy (cg_vk_ring.h) */
    return init_ring(env, what, &d, instance, physicalDevice, device, queueFamily, queue,
                     getInstanceProcAddr, width, height, slots, mode, waitNanos, debugUtils);
}

JNIEXPORT jint JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_freeDeferredImpl(
    JNIEnv *env, jobject thiz, jlong device)
{
    (void)thiz;
    if (!device)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT, "VulkanZerocopyRing.freeDeferredImpl: device is 0"),
               0;
    return (jint)cg_vk_ring_free_deferred((VkDevice)(uintptr_t)device);
}

JNIEXPORT jint JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_deferredCountImpl(
    JNIEnv *env, jobject thiz)
{
    (void)env;
    (void)thiz;
    return (jint)cg_vk_ring_deferred_count();
}

/* The RGB slot format's fields of both RGB inits. */
static void rgb_desc(cg_vk_ring_desc *d, jint imageFormat, jint targetWidth, jint targetHeight,
                     jboolean flipVertically)
{
    memset(d, 0, sizeof *d);
    d->format = (VkFormat)imageFormat;
    d->slot_format = CG_VK_SLOT_RGB8;
    d->target_width = targetWidth;
    d->target_height = targetHeight;
    d->flip = flipVertically ? 1 : 0;
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_initRgbImpl(
    JNIEnv *env, jobject thiz, jlong instance, jlong physicalDevice, jlong device, jint queueFamily,
    jlong queue, jlong getInstanceProcAddr, jint width, jint height, jint imageFormat,
    jint targetWidth, jint targetHeight, jboolean flipVertically, jint slots, jint mode,
    jlong waitNanos, jboolean debugUtils)
{
    (void)thiz;
    static const char what[] = "VulkanZerocopyRing.initRgbImpl";
    cg_vk_ring_desc d;
    rgb_desc(&d, imageFormat, targetWidth, targetHeight, flipVertically);
    return init_ring(env, what, &d, instance, physicalDevice, device, queueFamily, queue,
                     getInstanceProcAddr, width, height, slots, mode, waitNanos, debugUtils);
}

/* publish or record: the descriptor, null when the ring was full. */
static jobject frame(JNIEnv *env, const char *what, jlong cmd, jlong image, jint layout, int record,
                     const cg_cursor *cursor)
{
    frame_args a = {FRAME_WHOLE, record, (VkCommandBuffer)(uintptr_t)cmd,
                    (VkImage)(uintptr_t)image, (VkImageLayout)layout, cursor, 0, NULL};
    return cg_jni_ring_frame(env, &g_ring, what, step, &a);
}

/* A part of a frame: the descriptor (its last part), empty (more parts),
 * null (skipped). */
static jobject part(JNIEnv *env, const char *what, frame_args *a, jint eye)
{
    if (cg_jni_check_unsigned(env, what, "eye", eye)) return NULL;
    a->eye = (uint32_t)eye;
    return cg_jni_ring_frame(env, &g_ring, what, step, a);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_initRgbdImpl(
    JNIEnv *env, jobject thiz, jlong instance, jlong physicalDevice, jlong device, jint queueFamily,
    jlong queue, jlong getInstanceProcAddr, jint width, jint height, jint imageFormat,
    jint targetWidth, jint targetHeight, jboolean flipVertically, jint slots, jint mode,
    jlong waitNanos, jboolean debugUtils, jint eyes, jint depthEncoding, jfloat nearPlane,
    jfloat farPlane, jboolean zZeroToOne)
{
    (void)thiz;
    static const char what[] = "VulkanZerocopyRing.initRgbdImpl";
    if (cg_jni_check_unsigned(env, what, "eyes", eyes)) return NULL;
    cg_vk_ring_desc d;
    rgb_desc(&d, imageFormat, targetWidth, targetHeight, flipVertically);
    d.eyes = (uint32_t)eyes;
    d.depth = (cg_zc_depth_encoding)depthEncoding; /* the ring checks the value */
    d.near_plane = nearPlane;
    d.far_plane = farPlane;
    d.z_zero_to_one = zZeroToOne ? 1 : 0;
    return init_ring(env, what, &d, instance, physicalDevice, device, queueFamily, queue,
                     getInstanceProcAddr, width, height, slots, mode, waitNanos, debugUtils);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_recordDepthImpl(
    JNIEnv *env, jobject thiz, jlong commandBuffer, jlong depthImage, jint imageLayout, jint eye,
    jfloat nearPlane, jfloat farPlane, jboolean zZeroToOne)
{
    (void)thiz;
    cg_zc_depth_params p = {nearPlane, farPlane, zZeroToOne ? 1 : 0};
    frame_args a = {FRAME_DEPTH, 1, (VkCommandBuffer)(uintptr_t)commandBuffer,
                    (VkImage)(uintptr_t)depthImage, (VkImageLayout)imageLayout, NULL, 0, &p};
    return part(env, "VulkanZerocopyRing.recordDepthImpl", &a, eye);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_publishEyeImpl(
    JNIEnv *env, jobject thiz, jlong image, jint imageLayout, jint eye, jboolean drawCursor,
    jint cursorX, jint cursorY)
{
    (void)thiz;
    cg_cursor c = {drawCursor ? 1 : 0, cursorX, cursorY};
    frame_args a = {FRAME_EYE, 0, VK_NULL_HANDLE, (VkImage)(uintptr_t)image,
                    (VkImageLayout)imageLayout, &c, 0, NULL};
    return part(env, "VulkanZerocopyRing.publishEyeImpl", &a, eye);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_recordEyeImpl(
    JNIEnv *env, jobject thiz, jlong commandBuffer, jlong image, jint imageLayout, jint eye,
    jboolean drawCursor, jint cursorX, jint cursorY)
{
    (void)thiz;
    cg_cursor c = {drawCursor ? 1 : 0, cursorX, cursorY};
    frame_args a = {FRAME_EYE, 1, (VkCommandBuffer)(uintptr_t)commandBuffer,
                    (VkImage)(uintptr_t)image, (VkImageLayout)imageLayout, &c, 0, NULL};
    return part(env, "VulkanZerocopyRing.recordEyeImpl", &a, eye);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_publishImpl(
    JNIEnv *env, jobject thiz, jlong image, jint imageLayout)
{
    (void)thiz;
    return frame(env, "VulkanZerocopyRing.publishImpl", 0, image, imageLayout, 0, NULL);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_recordImpl(
    JNIEnv *env, jobject thiz, jlong commandBuffer, jlong image, jint imageLayout)
{
    (void)thiz;
    return frame(env, "VulkanZerocopyRing.recordImpl", commandBuffer, image, imageLayout, 1, NULL);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_publishCursorImpl(
    JNIEnv *env, jobject thiz, jlong image, jint imageLayout, jboolean drawCursor, jint cursorX,
    jint cursorY)
{
    (void)thiz;
    cg_cursor c = {drawCursor ? 1 : 0, cursorX, cursorY};
    return frame(env, "VulkanZerocopyRing.publishCursorImpl", 0, image, imageLayout, 0, &c);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_recordCursorImpl(
    JNIEnv *env, jobject thiz, jlong commandBuffer, jlong image, jint imageLayout,
    jboolean drawCursor, jint cursorX, jint cursorY)
{
    (void)thiz;
    cg_cursor c = {drawCursor ? 1 : 0, cursorX, cursorY};
    return frame(env, "VulkanZerocopyRing.recordCursorImpl", commandBuffer, image, imageLayout, 1,
                 &c);
}

static void counters(void *ctx, uint64_t *v)
{
    cg_vk_ring_get_counters(ctx, v);
}

static void copy_path(void *ctx, uint64_t *v)
{
    cg_vk_ring_info info;
    cg_vk_ring_get_info(ctx, &info);
    v[0] = (uint64_t)cg_jni_copy_path(info.format, (int)info.copy_path,
                                      info.rgb_read == CG_VK_RGB_READ_STAGING);
}

JNIEXPORT jint JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_copyPathImpl(
    JNIEnv *env, jobject thiz)
{
    (void)thiz;
    return cg_jni_ring_value(env, &g_ring, "VulkanZerocopyRing.copyPathImpl", copy_path);
}

JNIEXPORT jlongArray JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_countersImpl(
    JNIEnv *env, jobject thiz)
{
    (void)thiz;
    return cg_jni_ring_counters(env, &g_ring, "VulkanZerocopyRing.countersImpl", counters,
                                CG_ZC_COUNTERS);
}

JNIEXPORT void JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_destroyImpl(JNIEnv *env,
                                                                                    jobject thiz)
{
    (void)env;
    (void)thiz;
    cg_jni_ring_destroy(&g_ring, destroy);
}
