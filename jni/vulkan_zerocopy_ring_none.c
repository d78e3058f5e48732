/*
 * vulkan_zerocopy_ring_none.c - VulkanZerocopyRing's natives in a build
 * without zero-copy v2 (not Linux, or no Vulkan headers at build time):
 * each throws UnsupportedOperationException saying what is missing;
 * destroyImpl, with nothing to destroy, does nothing.
 */
#include "cg_jni.h"
#include "com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing.h" /* javac -h */

static const char k_unsupported[] =
    "zero-copy v2 needs Linux (memfd, SCM_RIGHTS) and a build with the Vulkan headers; this build "
    "has neither: use VulkanCudaZerocopy";

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_initImpl(
    JNIEnv *env, jobject thiz, jlong instance, jlong physicalDevice, jlong device, jint queueFamily,
    jlong queue, jlong getInstanceProcAddr, jint width, jint height, jint slots, jint mode,
    jlong waitNanos, jboolean debugUtils)
{
    (void)thiz, (void)instance, (void)physicalDevice, (void)device, (void)queueFamily;
    (void)queue, (void)getInstanceProcAddr, (void)width, (void)height, (void)slots, (void)mode;
    (void)waitNanos, (void)debugUtils;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "VulkanZerocopyRing.initImpl: %s", k_unsupported),
           NULL;
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_initCopyImpl(
    JNIEnv *env, jobject thiz, jlong instance, jlong physicalDevice, jlong device, jint queueFamily,
    jlong queue, jlong getInstanceProcAddr, jint width, jint height, jint imageFormat, jint slots,
    jint mode, jlong waitNanos, jboolean debugUtils)
{
    (void)thiz, (void)instance, (void)physicalDevice, (void)device, (void)queueFamily;
    (void)queue, (void)getInstanceProcAddr, (void)width, (void)height, (void)imageFormat;
    (void)slots, (void)mode, (void)waitNanos, (void)debugUtils;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "VulkanZerocopyRing.initCopyImpl: %s", k_unsupported),
           NULL;
}

/* Nothing is ever deferred without rings. */
JNIEXPORT jint JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_freeDeferredImpl(
    JNIEnv *env, jobject thiz, jlong device)
{
    (void)env, (void)thiz, (void)device;
    return 0;
}

JNIEXPORT jint JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_deferredCountImpl(
    JNIEnv *env, jobject thiz)
{
    (void)env, (void)thiz;
    return 0;
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_publishImpl(
    JNIEnv *env, jobject thiz, jlong image, jint imageLayout)
{
    (void)thiz, (void)image, (void)imageLayout;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "VulkanZerocopyRing.publishImpl: %s", k_unsupported),
           NULL;
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_recordImpl(
    JNIEnv *env, jobject thiz, jlong commandBuffer, jlong image, jint imageLayout)
{
    (void)thiz, (void)commandBuffer, (void)image, (void)imageLayout;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "VulkanZerocopyRing.recordImpl: %s", k_unsupported),
           NULL;
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_initRgbImpl(
    JNIEnv *env, jobject thiz, jlong instance, jlong physicalDevice, jlong device, jint queueFamily,
    jlong queue, jlong getInstanceProcAddr, jint width, jint height, jint imageFormat,
    jint targetWidth, jint targetHeight, jboolean flipVertically, jint slots, jint mode,
    jlong waitNanos, jboolean debugUtils)
{
    (void)thiz, (void)instance, (void)physicalDevice, (void)device, (void)queueFamily;
    (void)queue, (void)getInstanceProcAddr, (void)width, (void)height, (void)imageFormat;
    (void)targetWidth, (void)targetHeight, (void)flipVertically, (void)slots, (void)mode;
    (void)waitNanos, (void)debugUtils;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "VulkanZerocopyRing.initRgbImpl: %s", k_unsupported),
           NULL;
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_publishCursorImpl(
    JNIEnv *env, jobject thiz, jlong image, jint imageLayout, jboolean drawCursor, jint cursorX,
    jint cursorY)
{
    (void)thiz, (void)image, (void)imageLayout, (void)drawCursor, (void)cursorX, (void)cursorY;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "VulkanZerocopyRing.publishCursorImpl: %s",
                    k_unsupported),
           NULL;
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_recordCursorImpl(
    JNIEnv *env, jobject thiz, jlong commandBuffer, jlong image, jint imageLayout,
    jboolean drawCursor, jint cursorX, jint cursorY)
{
    (void)thiz, (void)commandBuffer, (void)image, (void)imageLayout, (void)drawCursor;
    (void)cursorX, (void)cursorY;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "VulkanZerocopyRing.recordCursorImpl: %s",
                    k_unsupported),
           NULL;
}

JNIEXPORT void JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_destroyImpl(JNIEnv *env,
                                                                                    jobject thiz)
{
    (void)env, (void)thiz;
}

JNIEXPORT jlongArray JNICALL Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_countersImpl(JNIEnv *env,
                                                                                jobject thiz)
{
    (void)thiz;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "VulkanZerocopyRing.countersImpl: %s", k_unsupported), NULL;
}
