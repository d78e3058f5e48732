/*
 * vulkan_zerocopy_ring.c - com.kyhsgeekcode.minecraftenv.VulkanZerocopyRing:
 * zero-copy v2 (docs/zero-copy-v2.md) through cg_vk_ring, as a plain copy
 * (initCopyImpl with the image's format; initImpl, the same for an
 * R8G8B8A8_UNORM image) or in the RGB slot format (initRgbImpl, with the
 * cursor per frame through publishCursorImpl / recordCursorImpl). One ring per
 * process behind the object's lock; every status becomes the exception of
 * cg_jexc_for_status, except CG_E_RING_FULL, which is a skipped frame: the
 * per-frame calls then return null.
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
    *len = CG_ZC_DESC_SIZE;
    return cg_vk_ring_template(r, tmpl, CG_JNI_DESC_MAX);
}

typedef struct frame_args {
    VkCommandBuffer cmd; /* VK_NULL_HANDLE: publish */
    VkImage image;
    VkImageLayout layout;
    const cg_vk_ring_cursor *cursor;
} frame_args;

static cg_status step(void *ctx, void *arg, uint8_t *desc, size_t *len, cg_err *why)
{
    const frame_args *a = arg;
    cg_status st = a->cmd ? cg_vk_ring_record_cursor(ctx, a->cmd, a->image, a->layout, a->cursor, desc)
                          : cg_vk_ring_publish_cursor(ctx, a->image, a->layout, a->cursor, desc);
    *len = CG_ZC_DESC_SIZE;
    if (st != CG_OK) cg_fail(why, st, "%s", cg_vk_ring_last_error(ctx));
    return st;
}

static void destroy(void *ctx)
{
    cg_vk_ring_destroy(ctx);
}

/* The checks and the creation both init natives share; d carries the
 * slot format fields already. */
static jobject init_ring(JNIEnv *env, const char *what, cg_vk_ring_desc *d, jlong instance,
                         jlong physicalDevice, jlong device, jint queueFamily, jlong queue,
                         jlong getInstanceProcAddr, jint width, jint height, jint slots, jint mode,
                         jlong waitNanos, jboolean debugUtils)
{
    if (!instance || !physicalDevice || !device || !queue || !getInstanceProcAddr)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: instance, physicalDevice, device, queue and getInstanceProcAddr "
                        "must all be non-zero",
                        what),
               NULL;
    if (queueFamily < 0 || slots < 0 || slots > CG_ZC_MAX_SLOTS || waitNanos < 0 ||
        (mode != CG_ZC_MODE_SEMAPHORE && mode != CG_ZC_MODE_FENCE))
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: queueFamily %d, slots %d (0..%d), mode %d (1 semaphore, 2 fence), "
                        "waitNanos %lld (>= 0)",
                        what, (int)queueFamily, (int)slots, CG_ZC_MAX_SLOTS, (int)mode,
                        (long long)waitNanos),
               NULL;
    if (cg_jni_check_dims(env, what, width, height)) return NULL;

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

/* The image formats a ring reads as stored (4 bytes a pixel, 8-bit
 * channels); nonzero (an exception is pending) for any other. */
static int check_image_format(JNIEnv *env, const char *what, jint imageFormat)
{
    if (imageFormat == 0 || imageFormat == VK_FORMAT_R8G8B8A8_UNORM ||
        imageFormat == VK_FORMAT_R8G8B8A8_SRGB || imageFormat == VK_FORMAT_B8G8R8A8_UNORM ||
        imageFormat == VK_FORMAT_B8G8R8A8_SRGB)
        return 0;
    return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                    "%s: imageFormat %d: 37 R8G8B8A8_UNORM, 43 R8G8B8A8_SRGB, 44 "
                    "B8G8R8A8_UNORM, 50 B8G8R8A8_SRGB (0 = 37)",
                    what, (int)imageFormat);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_initCopyImpl(
    JNIEnv *env, jobject thiz, jlong instance, jlong physicalDevice, jlong device, jint queueFamily,
    jlong queue, jlong getInstanceProcAddr, jint width, jint height, jint imageFormat, jint slots,
    jint mode, jlong waitNanos, jboolean debugUtils)
{
    (void)thiz;
    static const char what[] = "VulkanZerocopyRing.initCopyImpl";
    if (check_image_format(env, what, imageFormat)) return NULL;
    cg_vk_ring_desc d;
    memset(&d, 0, sizeof d);
    d.format = (VkFormat)imageFormat; /* the descriptor's format: the copy keeps the bytes */
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

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_initRgbImpl(
    JNIEnv *env, jobject thiz, jlong instance, jlong physicalDevice, jlong device, jint queueFamily,
    jlong queue, jlong getInstanceProcAddr, jint width, jint height, jint imageFormat,
    jint targetWidth, jint targetHeight, jboolean flipVertically, jint slots, jint mode,
    jlong waitNanos, jboolean debugUtils)
{
    (void)thiz;
    static const char what[] = "VulkanZerocopyRing.initRgbImpl";
    if (check_image_format(env, what, imageFormat)) return NULL;
    /* 0 x 0 is the image's size; anything else a valid target. */
    if ((targetWidth || targetHeight) && cg_jni_check_dims(env, what, targetWidth, targetHeight))
        return NULL;
    cg_vk_ring_desc d;
    memset(&d, 0, sizeof d);
    d.format = (VkFormat)imageFormat;
    d.slot_format = CG_VK_SLOT_RGB8;
    d.target_width = targetWidth;
    d.target_height = targetHeight;
    d.flip = flipVertically ? 1 : 0;
    return init_ring(env, what, &d, instance, physicalDevice, device, queueFamily, queue,
                     getInstanceProcAddr, width, height, slots, mode, waitNanos, debugUtils);
}

/* publish (cmd == 0) or record: the descriptor, null when the ring was full. */
static jobject frame(JNIEnv *env, const char *what, jlong cmd, jlong image, jint layout, int record,
                     const cg_vk_ring_cursor *cursor)
{
    if (!image || (record && !cmd))
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT, "%s: %s is 0", what,
                        image ? "commandBuffer" : "image"),
               NULL;
    frame_args a = {record ? (VkCommandBuffer)(uintptr_t)cmd : VK_NULL_HANDLE,
                    (VkImage)(uintptr_t)image, (VkImageLayout)layout, cursor};
    return cg_jni_ring_frame(env, &g_ring, what, step, &a);
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
    cg_vk_ring_cursor c = {drawCursor ? 1 : 0, cursorX, cursorY};
    return frame(env, "VulkanZerocopyRing.publishCursorImpl", 0, image, imageLayout, 0, &c);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_recordCursorImpl(
    JNIEnv *env, jobject thiz, jlong commandBuffer, jlong image, jint imageLayout,
    jboolean drawCursor, jint cursorX, jint cursorY)
{
    (void)thiz;
    cg_vk_ring_cursor c = {drawCursor ? 1 : 0, cursorX, cursorY};
    return frame(env, "VulkanZerocopyRing.recordCursorImpl", commandBuffer, image, imageLayout, 1,
                 &c);
}

static void counters(void *ctx, uint64_t *v)
{
    cg_vk_ring_get_counters(ctx, v);
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
