/*
 * gl_zerocopy_ring_none.c - GlZerocopyRing's natives in a build without the
 * GL producer of zero-copy v2 (not Linux, no Vulkan headers, or no GL
 * capture): each throws UnsupportedOperationException saying what is
 * missing; destroyImpl, with nothing to destroy, does nothing.
 */
#include "cg_jni.h"
#include "com_kyhsgeekcode_minecraftenv_GlZerocopyRing.h" /* javac -h */

static const char k_unsupported[] =
    "zero-copy v2 for GL needs Linux, GL capture (libepoxy) and a build with the Vulkan headers; "
    "this build lacks them: use the GL readback or the v1 zero-copy path";

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_initImpl(
    JNIEnv *env, jobject thiz, jint width, jint height, jint slots, jint mode, jlong waitNanos)
{
    (void)thiz, (void)width, (void)height, (void)slots, (void)mode, (void)waitNanos;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "GlZerocopyRing.initImpl: %s", k_unsupported), NULL;
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_publishImpl(
    JNIEnv *env, jobject thiz, jint texture)
{
    (void)thiz, (void)texture;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "GlZerocopyRing.publishImpl: %s", k_unsupported),
           NULL;
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_initRgbImpl(
    JNIEnv *env, jobject thiz, jint width, jint height, jint targetWidth, jint targetHeight,
    jint slots, jint mode, jlong waitNanos)
{
    (void)thiz, (void)width, (void)height, (void)targetWidth, (void)targetHeight, (void)slots,
        (void)mode, (void)waitNanos;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "GlZerocopyRing.initRgbImpl: %s", k_unsupported),
           NULL;
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_publishCursorImpl(
    JNIEnv *env, jobject thiz, jint texture, jboolean drawCursor, jint cursorX, jint cursorY)
{
    (void)thiz, (void)texture, (void)drawCursor, (void)cursorX, (void)cursorY;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "GlZerocopyRing.publishCursorImpl: %s",
                    k_unsupported),
           NULL;
}

JNIEXPORT void JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_destroyImpl(JNIEnv *env,
                                                                                jobject thiz)
{
    (void)env, (void)thiz;
}

JNIEXPORT jlongArray JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_countersImpl(JNIEnv *env,
                                                                                jobject thiz)
{
    (void)thiz;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "GlZerocopyRing.countersImpl: %s", k_unsupported), NULL;
}
