/*
 * gl_zerocopy_ring.c - com.kyhsgeekcode.minecraftenv.GlZerocopyRing:
 * zero-copy v2 from the GL backend (docs/zero-copy-v2.md) through
 * cg_gl_ring. One ring per process behind the object's lock (cg_jni.h's
 * ring shapes); statuses become exceptions by cg_jexc_for_status, except
 * CG_E_RING_FULL (a skipped frame: publish returns null) and CG_E_NO_DEVICE
 * at init (no Vulkan device renders GL's GPU: zero-copy v2 is unavailable
 * on this machine, UnsupportedOperationException).
 */
#include <stdint.h>
#include <string.h>

#include "cg_gl_ring.h"
#include "cg_jni.h"
#include "com_kyhsgeekcode_minecraftenv_GlZerocopyRing.h" /* javac -h */

static cg_jni_singleton g_ring = CG_JNI_SINGLETON_INIT;

static cg_status make(void *arg, void **ctx, uint8_t *tmpl, size_t *len, cg_err *why)
{
    cg_gl_ring *r = NULL;
    CG_TRY(cg_gl_ring_create(arg, &r, why));
    *ctx = r;
    *len = CG_ZC_DESC_SIZE;
    return cg_gl_ring_template(r, tmpl, CG_JNI_DESC_MAX);
}

static cg_status step(void *ctx, void *arg, uint8_t *desc, size_t *len, cg_err *why)
{
    cg_status st = cg_gl_ring_publish(ctx, *(const unsigned *)arg, desc);
    *len = CG_ZC_DESC_SIZE;
    if (st != CG_OK) cg_fail(why, st, "%s", cg_gl_ring_last_error(ctx));
    return st;
}

static void destroy(void *ctx)
{
    cg_gl_ring_destroy(ctx);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_initImpl(
    JNIEnv *env, jobject thiz, jint width, jint height, jint slots, jint mode, jlong waitNanos)
{
    (void)thiz;
    static const char what[] = "GlZerocopyRing.initImpl";
    if (slots < 0 || slots > CG_ZC_MAX_SLOTS || waitNanos < 0 ||
        (mode != CG_GL_RING_MODE_AUTO && mode != CG_ZC_MODE_SEMAPHORE && mode != CG_ZC_MODE_FENCE))
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: slots %d (0..%d), mode %d (0 auto, 1 semaphore, 2 fence), "
                        "waitNanos %lld (>= 0)",
                        what, (int)slots, CG_ZC_MAX_SLOTS, (int)mode, (long long)waitNanos),
               NULL;
    if (cg_jni_check_dims(env, what, width, height)) return NULL;
    cg_gl_ring_desc d;
    memset(&d, 0, sizeof d);
    d.width = width;
    d.height = height;
    d.slots = (uint32_t)slots;
    d.mode = mode;
    d.wait_ns = (uint64_t)waitNanos;
    return cg_jni_ring_init(env, &g_ring, what, make, &d, CG_E_NO_DEVICE);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_publishImpl(
    JNIEnv *env, jobject thiz, jint texture)
{
    (void)thiz;
    static const char what[] = "GlZerocopyRing.publishImpl";
    if (texture <= 0)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT, "%s: texture %d is not a texture name",
                        what, (int)texture),
               NULL;
    unsigned tex = (unsigned)texture;
    return cg_jni_ring_frame(env, &g_ring, what, step, &tex);
}

JNIEXPORT void JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_destroyImpl(JNIEnv *env,
                                                                                jobject thiz)
{
    (void)env;
    (void)thiz;
    cg_jni_ring_destroy(&g_ring, destroy);
}
