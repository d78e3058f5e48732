/*
 * framebuffer_capturer.c - com.kyhsgeekcode.minecraftenv.FramebufferCapturer,
 * the CPU path: convertCapturedFrameImpl (a mapped RGBA8 frame -> RAW or PNG
 * ByteString). The GL natives of the same class live in
 * framebuffer_capturer_gl.c.
 */
#include <pthread.h>
#include <stdlib.h>

#include "cg_jni.h"
#include "com_kyhsgeekcode_minecraftenv_FramebufferCapturer.h" /* javac -h */

/* RAW: the pixels are written once, straight into the byte[] that the
 * returned ByteString keeps. */
static jobject cg_convert_raw(JNIEnv *env, const cg_convert_params *p, size_t out_len,
                              const char *what)
{
    jbyteArray arr = cg_jni_new_bytes(env, out_len);
    if (arr == NULL) return NULL;
    void *dst = (*env)->GetPrimitiveArrayCritical(env, arr, NULL);
    if (dst == NULL) {
        (*env)->DeleteLocalRef(env, arr);
        if (!(*env)->ExceptionCheck(env))
            cg_throw(env, CG_JEXC_OOM, "cannot pin the %zu-byte output array", out_len);
        return NULL;
    }
    /* Only the bounded pixel loop runs inside the critical region. */
    cg_status st = cg_convert(p, dst, out_len);
    (*env)->ReleasePrimitiveArrayCritical(env, arr, dst, st == CG_OK ? 0 : JNI_ABORT);
    if (st != CG_OK) {
        (*env)->DeleteLocalRef(env, arr);
        cg_throw_status(env, st, what, "RGBA to RGB conversion");
        return NULL;
    }
    jobject bs = cg_jni_wrap_bytes(env, arr);
    (*env)->DeleteLocalRef(env, arr);
    return bs;
}

/* PNG: one encoder per thread (cg_png_encoder: the RGB rows and the work
 * area, kept for the thread's next frame up to its cap) and the encoded
 * bytes before their copy into the byte[], freed when the thread ends. Fresh
 * buffers each call cost page faults: a 640x360 frame measured about 3 ms
 * more with them (bench_jvm's PNG table). */
typedef struct png_thread {
    cg_png_encoder *enc;
    cg_buf png;
} png_thread;

static pthread_key_t png_key;
static pthread_once_t png_once = PTHREAD_ONCE_INIT;
static int png_key_ok;

static void png_thread_free(void *p)
{
    png_thread *t = p;
    cg_png_encoder_destroy(t->enc);
    cg_buf_free(&t->png);
    free(t);
}

static void png_key_init(void)
{
    png_key_ok = pthread_key_create(&png_key, png_thread_free) == 0;
}

/* This thread's encoder into *t (kept when the thread key works, else the
 * call's own: *own set, free it with png_thread_free). */
static cg_status png_thread_get(png_thread **t, int *own)
{
    pthread_once(&png_once, png_key_init);
    *own = 0;
    *t = png_key_ok ? pthread_getspecific(png_key) : NULL;
    if (*t != NULL) return CG_OK;
    *t = calloc(1, sizeof **t);
    CG_RETURN_IF(*t == NULL, CG_E_NO_MEMORY);
    cg_status st = cg_png_encoder_create(0, &(*t)->enc);
    if (st == CG_OK && png_key_ok && pthread_setspecific(png_key, *t) == 0) return CG_OK;
    if (st != CG_OK) {
        free(*t);
        *t = NULL;
        return st;
    }
    *own = 1;
    return CG_OK;
}

/* PNG: convert into the encoder's rows, encode, then one copy of the
 * encoded bytes into the byte[]. */
static jobject cg_convert_png(JNIEnv *env, const cg_convert_params *p, size_t rgb_len,
                              const char *what)
{
    png_thread *t = NULL;
    int own = 0;
    uint8_t *rows = NULL;
    cg_status st = png_thread_get(&t, &own);
    if (st != CG_OK) {
        /* A part not built in must name what is missing (docs/architecture.md). */
        cg_throw_status(env, st, what,
                        st == CG_E_UNSUPPORTED ? cg_png_unavailable_reason() : "PNG encoder");
        return NULL;
    }
    jobject bs = NULL;
    st = cg_png_encoder_rows(t->enc, rgb_len, &rows);
    if (st != CG_OK) {
        cg_throw(env, CG_JEXC_OOM, "cannot allocate %zu bytes of PNG scratch", rgb_len);
        goto done;
    }
    st = cg_convert(p, rows, rgb_len);
    if (st != CG_OK) {
        cg_throw_status(env, st, what, "RGBA to RGB conversion");
        goto done;
    }
    cg_png_options opt = cg_png_default_options();
    st = cg_png_encoder_encode(t->enc, rows, p->dst_w, p->dst_h, (size_t)p->dst_w * 3, &opt,
                               &t->png);
    if (st != CG_OK) {
        cg_throw_status(env, st, what,
                        st == CG_E_UNSUPPORTED ? cg_png_unavailable_reason() : "PNG encoding");
        goto done;
    }
    bs = cg_jni_bytestring_copy(env, t->png.data, t->png.len);
done:
    if (t->png.cap > CG_PNG_KEEP_MAX) cg_buf_free(&t->png); /* the encoder's cap, for its output */
    if (own) png_thread_free(t);
    return bs;
}

jobject cg_jni_frame_bytes(JNIEnv *env, const cg_convert_params *p, jint mode,
                           const char *what)
{
    size_t out_len = 0;
    cg_status st = cg_image_size(p->dst_w, p->dst_h, 3, &out_len);
    if (st != CG_OK) return cg_throw_status(env, st, what, "target size"), NULL;
    if (mode == CG_ENC_RAW) return cg_convert_raw(env, p, out_len, what);
    return cg_convert_png(env, p, out_len, what);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_convertCapturedFrameImpl(
    JNIEnv *env, jobject self, jobject src, jint srcW, jint srcH, jint targetW, jint targetH,
    jint encodingMode, jboolean flipVertically, jboolean drawCursor, jint xPos, jint yPos)
{
    (void)self;
    /* Every argument is checked before the buffer is touched. */
    if (cg_jni_check_dims(env, "source (srcW x srcH)", srcW, srcH)) return NULL;
    if (cg_jni_check_dims(env, "target (targetW x targetH)", targetW, targetH)) return NULL;
    if (cg_jni_check_byte_mode(env, encodingMode)) return NULL;

    size_t src_need = 0;
    cg_status st = cg_image_size(srcW, srcH, 4, &src_need);
    if (st != CG_OK) {
        cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                 "convertCapturedFrameImpl: size of srcW=%d x srcH=%d overflows: %s", (int)srcW,
                 (int)srcH, cg_strerror(st));
        return NULL;
    }
    /* A constant name: no message is formatted on the per-frame path unless
     * the check fails (its message gives the capacity and srcW*srcH*4). */
    uint8_t *pixels = NULL;
    if (cg_jni_direct_buffer(env, src, src_need, "source buffer (srcW*srcH*4 bytes)", &pixels))
        return NULL;

    cg_convert_params p = {
        .src = pixels,
        .src_stride = (size_t)srcW * 4,
        .src_w = srcW,
        .src_h = srcH,
        .dst_w = targetW,
        .dst_h = targetH,
        .flip = flipVertically ? 1 : 0,
        .filter = CG_FILTER_NEAREST,
        .cursor.draw = drawCursor ? 1 : 0,
        .cursor.x = xPos,
        .cursor.y = yPos,
    };
    return cg_jni_frame_bytes(env, &p, encodingMode, "convertCapturedFrameImpl");
}
