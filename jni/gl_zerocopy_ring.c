/*
 * gl_zerocopy_ring.c - com.kyhsgeekcode.minecraftenv.GlZerocopyRing:
 * zero-copy v2 from the GL backend (docs/zero-copy-v2/producer.md) through
 * cg_gl_ring: RGBA copies (initCopyImpl with the texture's GL internal
 * format, which picks the compute copy or glReadPixels; initImpl: format
 * unknown, glReadPixels) or the RGB slot format (initRgbImpl,
 * with the cursor per frame through publishCursorImpl; initRgbdImpl with
 * eyes and depth planes, whose frames come in parts: publishDepthImpl and
 * publishEyeImpl return the descriptor at the frame's last part, an empty
 * ByteString before it, null when the frame is skipped). One ring per process behind the object's lock (cg_jni.h's
 * ring shapes); statuses become exceptions by cg_jexc_for_status, except
 * CG_E_RING_FULL (a skipped frame: publish returns null) and CG_E_NO_DEVICE
 * at init (no Vulkan device renders GL's GPU: zero-copy v2 is unavailable
 * on this machine, UnsupportedOperationException).
 *
 * Checks: this file checks only what a Java value is (a negative int or
 * long where an unsigned number goes, a texture name); mode, slot count and
 * sizes are cg_gl_ring_create's to check (cg_gl_ring.h), once, and its text
 * is the exception's message.
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
    cg_status st = cg_gl_ring_template(r, tmpl, CG_JNI_DESC_MAX);
    *len = st == CG_OK ? cg_zc_desc_length(tmpl) : 0; /* 256 with eyes or depth, else 192 */
    return st;
}

/* One frame, or one part of it: the texture (colour, or depth for a depth
 * part), the eye, its cursor, the depth part's planes. */
typedef struct gl_frame {
    unsigned texture;
    cg_cursor cursor;
    uint32_t eye;
    cg_zc_depth_params lin;
} gl_frame;

static cg_status step(void *ctx, void *arg, uint8_t *desc, size_t *len, cg_err *why)
{
    const gl_frame *f = arg;
    cg_status st = cg_gl_ring_publish_cursor(ctx, f->texture, &f->cursor, desc);
    *len = CG_ZC_DESC_SIZE;
    return st == CG_OK ? st : cg_fail_from(why, st, cg_gl_ring_error(ctx));
}

/* cg_jni_ring_frame's buffer holds a version 3 descriptor. */
_Static_assert(CG_JNI_DESC_MAX >= CG_ZC_DESC_MAX_SIZE, "a part's descriptor fits");

static cg_status step_eye(void *ctx, void *arg, uint8_t *desc, size_t *len, cg_err *why)
{
    const gl_frame *f = arg;
    cg_status st = cg_gl_ring_publish_eye(ctx, f->texture, f->eye, &f->cursor, desc, len);
    return st == CG_OK ? st : cg_fail_from(why, st, cg_gl_ring_error(ctx));
}

static cg_status step_depth(void *ctx, void *arg, uint8_t *desc, size_t *len, cg_err *why)
{
    const gl_frame *f = arg;
    cg_status st = cg_gl_ring_publish_depth(ctx, f->texture, f->eye, &f->lin, desc, len);
    return st == CG_OK ? st : cg_fail_from(why, st, cg_gl_ring_error(ctx));
}

static cg_status release(void *ctx, cg_err *why)
{
    return cg_gl_ring_destroy_current(ctx, why);
}

/* Every init: check the Java values, describe, make. target_* < 0: the
 * copy format, of textures of texture_format (0: unknown). */
static jobject init_desc(JNIEnv *env, const char *what, jint width, jint height,
                         jint target_width, jint target_height, jint texture_format, jint slots,
                         jint mode, jlong waitNanos, cg_gl_ring_desc *d)
{
    if (texture_format < 0)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: textureFormat %d is negative (a GL internal format, 0 = unknown)",
                        what, (int)texture_format),
               NULL;
    if (slots < 0 || waitNanos < 0)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: slots %d, waitNanos %lld: neither may be negative", what, (int)slots,
                        (long long)waitNanos),
               NULL;
    int rgb = target_width >= 0 && target_height >= 0;
    d->width = width;
    d->height = height;
    if (rgb) {
        d->slot_format = CG_VK_SLOT_RGB8;
        d->target_width = target_width;
        d->target_height = target_height;
    }
    d->texture_format = (unsigned)texture_format; /* picks the compute copy (cg_gl_ring.h) */
    d->slots = (uint32_t)slots;
    d->mode = mode;
    d->wait_ns = (uint64_t)waitNanos;
    return cg_jni_ring_init(env, &g_ring, what, make, d, CG_E_NO_DEVICE);
}

static jobject init(JNIEnv *env, const char *what, jint width, jint height, jint target_width,
                    jint target_height, jint texture_format, jint slots, jint mode,
                    jlong waitNanos)
{
    cg_gl_ring_desc d;
    memset(&d, 0, sizeof d);
    return init_desc(env, what, width, height, target_width, target_height, texture_format,
                     slots, mode, waitNanos, &d);
}

/* A target size from Java: 0x0 (the texture's) or positive, else refused. */
static int bad_target(JNIEnv *env, const char *what, jint w, jint h)
{
    if (w >= 0 && h >= 0) return 0;
    return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                    "%s: target %dx%d (1..%d per side, or 0x0 for the texture's size)", what,
                    (int)w, (int)h, CG_MAX_DIM);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_initImpl(
    JNIEnv *env, jobject thiz, jint width, jint height, jint slots, jint mode, jlong waitNanos)
{
    (void)thiz;
    return init(env, "GlZerocopyRing.initImpl", width, height, -1, -1, 0, slots, mode,
                waitNanos);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_initCopyImpl(
    JNIEnv *env, jobject thiz, jint width, jint height, jint textureFormat, jint slots, jint mode,
    jlong waitNanos)
{
    (void)thiz;
    return init(env, "GlZerocopyRing.initCopyImpl", width, height, -1, -1, textureFormat, slots,
                mode, waitNanos);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_initRgbImpl(
    JNIEnv *env, jobject thiz, jint width, jint height, jint targetWidth, jint targetHeight,
    jint slots, jint mode, jlong waitNanos)
{
    (void)thiz;
    static const char what[] = "GlZerocopyRing.initRgbImpl";
    if (bad_target(env, what, targetWidth, targetHeight)) return NULL;
    return init(env, what, width, height, targetWidth, targetHeight, 0, slots, mode, waitNanos);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_initRgbdImpl(
    JNIEnv *env, jobject thiz, jint width, jint height, jint targetWidth, jint targetHeight,
    jint slots, jint mode, jlong waitNanos, jint eyes, jint depthEncoding, jfloat near_plane,
    jfloat far_plane, jboolean zZeroToOne)
{
    (void)thiz;
    static const char what[] = "GlZerocopyRing.initRgbdImpl";
    if (bad_target(env, what, targetWidth, targetHeight)) return NULL;
    if (eyes < 0 || depthEncoding < 0)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: eyes %d, depthEncoding %d: neither may be negative", what, (int)eyes,
                        (int)depthEncoding),
               NULL;
    cg_gl_ring_desc d; /* eyes, encoding and planes are cg_gl_ring_create's to check */
    memset(&d, 0, sizeof d);
    d.eyes = (uint32_t)eyes;
    d.depth = (cg_zc_depth_encoding)depthEncoding;
    d.near_plane = near_plane;
    d.far_plane = far_plane;
    d.z_zero_to_one = zZeroToOne ? 1 : 0;
    return init_desc(env, what, width, height, targetWidth, targetHeight, 0, slots, mode,
                     waitNanos, &d);
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
    gl_frame f = {(unsigned)texture, {0, 0, 0}, 0, {0, 0, 0}};
    return cg_jni_ring_frame(env, &g_ring, what, step, &f);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_publishCursorImpl(
    JNIEnv *env, jobject thiz, jint texture, jboolean drawCursor, jint cursorX, jint cursorY)
{
    (void)thiz;
    static const char what[] = "GlZerocopyRing.publishCursorImpl";
    if (cg_jni_check_texture(env, what, "texture", texture)) return NULL;
    gl_frame f = {(unsigned)texture, {drawCursor ? 1 : 0, cursorX, cursorY}, 0, {0, 0, 0}};
    return cg_jni_ring_frame(env, &g_ring, what, step, &f);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_publishDepthImpl(
    JNIEnv *env, jobject thiz, jint depthTexture, jint eye, jfloat near_plane, jfloat far_plane,
    jboolean zZeroToOne)
{
    (void)thiz;
    static const char what[] = "GlZerocopyRing.publishDepthImpl";
    if (cg_jni_check_texture(env, what, "depthTexture", depthTexture) ||
        cg_jni_check_unsigned(env, what, "eye", eye))
        return NULL;
    gl_frame f = {(unsigned)depthTexture, {0, 0, 0}, (uint32_t)eye,
                  {near_plane, far_plane, zZeroToOne ? 1 : 0}};
    return cg_jni_ring_frame(env, &g_ring, what, step_depth, &f);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_publishEyeImpl(
    JNIEnv *env, jobject thiz, jint texture, jint eye, jboolean drawCursor, jint cursorX,
    jint cursorY)
{
    (void)thiz;
    static const char what[] = "GlZerocopyRing.publishEyeImpl";
    if (cg_jni_check_texture(env, what, "texture", texture) ||
        cg_jni_check_unsigned(env, what, "eye", eye))
        return NULL;
    gl_frame f = {(unsigned)texture, {drawCursor ? 1 : 0, cursorX, cursorY}, (uint32_t)eye,
                  {0, 0, 0}};
    return cg_jni_ring_frame(env, &g_ring, what, step_eye, &f);
}

static void counters(void *ctx, uint64_t *v)
{
    cg_gl_ring_get_counters(ctx, v);
}

static void copy_path(void *ctx, uint64_t *v)
{
    cg_gl_ring_info gi;
    cg_vk_ring_info vi;
    cg_gl_ring_get_info(ctx, &gi);
    cg_gl_ring_get_ring_info(ctx, &vi);
    v[0] = (uint64_t)cg_jni_copy_path(vi.format, (int)gi.copy_path, 0); /* GL: no staging */
}

JNIEXPORT jint JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_copyPathImpl(JNIEnv *env,
                                                                                  jobject thiz)
{
    (void)thiz;
    return cg_jni_ring_value(env, &g_ring, "GlZerocopyRing.copyPathImpl", copy_path);
}

JNIEXPORT jlongArray JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_countersImpl(
    JNIEnv *env, jobject thiz)
{
    (void)thiz;
    return cg_jni_ring_counters(env, &g_ring, "GlZerocopyRing.countersImpl", counters,
                                CG_ZC_COUNTERS);
}

JNIEXPORT void JNICALL Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_destroyImpl(JNIEnv *env,
                                                                                jobject thiz)
{
    (void)thiz;
    cg_jni_ring_release(env, &g_ring, "GlZerocopyRing.destroyImpl", release);
}
