/*
 * framebuffer_capturer_gl.c - the GL natives of
 * com.kyhsgeekcode.minecraftenv.FramebufferCapturer: captureFramebufferImpl,
 * captureDepthImpl, initializeGLEW. Called on the game's render thread with
 * its context current.
 *
 * State: one cg_gl_reader per thread (a GL context is current on one thread
 * at a time), in thread-specific storage freed when the thread ends. When
 * another context becomes current on the thread, the reader itself forgets
 * its GL object names (they belong to the old context) and makes fresh ones
 * (cg_gl.h).
 *
 * isExtensionAvailable: the mod passes whether GL_PACK_REVERSE_ROW_ORDER_ANGLE
 * exists, which the predecessor used to make glReadPixels return rows
 * top-down. The wire format is bottom-up, exactly what glReadPixels returns
 * without that extension, so no reversal (and no flip) is ever needed: the
 * argument is accepted and does not change the path or the bytes.
 *
 * RAW path: the reader's mode for the request (cg_gl_reader_pack_for)
 * decides. RGBA (resizing; renderers where converting the client-memory
 * RGBA frame is cheapest): the frame is converted once, straight into the
 * pinned byte[] of the ByteString, through the CPU path's cg_jni_frame_bytes. Any
 * other mode (the NVIDIA driver's GL_RGB pack): the driver writes RGB8 into
 * a per-thread native scratch, which is copied once into a new byte[]
 * (SetByteArrayRegion). The driver never writes into pinned Java memory:
 * glReadPixels waits for the frame's rendering, and the GC must not wait
 * with it.
 *
 * CG_GL_PACK (environment, read when a thread's reader is created): "auto"
 * (default), "rgba", "rgb", "bands", "pbo" or "pbo_rgb" forces a reader
 * mode (cg_gl_pack); for tests and measurements. Other values: auto.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_gl.h"
#include "cg_jni.h"
#include "com_kyhsgeekcode_minecraftenv_FramebufferCapturer.h" /* javac -h */

typedef struct cg_gl_thread {
    cg_gl_reader *reader;
    float *depth;  /* depth readback before the copy into the float[] */
    size_t depth_cap;
    uint8_t *rgb;  /* RAW readback in the packed modes, before the copy */
    size_t rgb_cap;
} cg_gl_thread;

static pthread_once_t cg_gl_tls_once = PTHREAD_ONCE_INIT;
static pthread_key_t cg_gl_tls_key;
static int cg_gl_tls_ok;

/* Thread exit: the reader's context may still be current here (its GL
 * objects are then deleted); if not, cg_gl_reader_destroy leaves them to
 * their context. */
static void cg_gl_thread_free(void *p)
{
    cg_gl_thread *t = p;
    cg_gl_reader_destroy(t->reader);
    free(t->depth);
    free(t->rgb);
    free(t);
}

/* The reader mode CG_GL_PACK names (see the top of this file). */
static cg_gl_pack cg_gl_env_pack(void)
{
    const char *v = getenv("CG_GL_PACK");
    for (int m = CG_GL_PACK_AUTO; v && m <= CG_GL_PACK_PBO_RGB; m++) {
        if (strcmp(v, cg_gl_pack_name((cg_gl_pack)m)) == 0) return (cg_gl_pack)m;
    }
    return CG_GL_PACK_AUTO;
}

static void cg_gl_tls_init(void)
{
    cg_gl_tls_ok = pthread_key_create(&cg_gl_tls_key, cg_gl_thread_free) == 0;
}

/* This thread's reader for the current context. Throws and returns NULL on
 * failure (no context -> IllegalStateException, GLES/old GL ->
 * UnsupportedOperationException, no memory -> OutOfMemoryError). */
static cg_gl_thread *cg_gl_thread_get(JNIEnv *env, const char *what)
{
    cg_status st = cg_gl_current_context(NULL);
    if (st != CG_OK) {
        cg_throw_status(env, st, what,
                        st == CG_E_NO_CONTEXT
                            ? "call on the render thread with the game's GL context current"
                            : "needs desktop OpenGL 3.0 or newer");
        return NULL;
    }
    pthread_once(&cg_gl_tls_once, cg_gl_tls_init);
    if (!cg_gl_tls_ok) {
        cg_throw(env, CG_JEXC_RUNTIME, "%s: pthread_key_create failed", what);
        return NULL;
    }
    cg_gl_thread *t = pthread_getspecific(cg_gl_tls_key);
    if (!t) {
        t = calloc(1, sizeof *t);
        cg_gl_reader_config cfg = {.pack = cg_gl_env_pack()};
        if (!t || cg_gl_reader_create(&cfg, &t->reader) != CG_OK ||
            pthread_setspecific(cg_gl_tls_key, t) != 0) {
            if (t) cg_gl_reader_destroy(t->reader);
            free(t);
            cg_throw(env, CG_JEXC_OOM, "%s: cannot allocate the GL reader", what);
            return NULL;
        }
    }
    return t;
}

/* After the exception of a failed read: a reader that a GL failure left
 * FAILED starts again from fresh GL objects on the next call (the game
 * goes on; the failure was reported). */
static void cg_gl_reader_recover(cg_gl_reader *r)
{
    if (cg_gl_reader_failed(r)) cg_gl_reader_reset(r);
}

/* Throw for a failed read of texture `id` (`kind`: "texture", "depth
 * texture"), the reader's text as the detail. */
static void cg_gl_throw_kind(JNIEnv *env, const cg_gl_thread *t, const char *what,
                             const char *kind, jint id, jint w, jint h, cg_status st)
{
    char msg[128];
    snprintf(msg, sizeof msg, "%s: reading %s %d (%dx%d)", what, kind, (int)id, (int)w, (int)h);
    cg_throw_status(env, st, msg, cg_gl_reader_last_error(t->reader));
    cg_gl_reader_recover(t->reader);
}

static void cg_gl_throw_read(JNIEnv *env, const cg_gl_thread *t, const char *what, jint id,
                             jint w, jint h, cg_status st)
{
    cg_gl_throw_kind(env, t, what, "texture", id, w, h, st);
}

static void cg_gl_throw_depth(JNIEnv *env, const cg_gl_thread *t, const char *what, jint id,
                              jint w, jint h, cg_status st)
{
    cg_gl_throw_kind(env, t, what, "depth texture", id, w, h, st);
}

/* RAW in the reader's packed modes: RGB8 into the thread's scratch, then
 * one copy into the ByteString's byte[]. */
static jobject cg_gl_raw_packed(JNIEnv *env, cg_gl_thread *t, const char *what,
                                const cg_gl_color_request *q)
{
    size_t len = (size_t)q->dst_w * (size_t)q->dst_h * 3; /* pack_for checked the sizes */
    if (t->rgb_cap < len) {
        uint8_t *p = realloc(t->rgb, len);
        if (!p) {
            cg_throw(env, CG_JEXC_OOM, "%s: cannot allocate %zu bytes", what, len);
            return NULL;
        }
        t->rgb = p;
        t->rgb_cap = len;
    }
    cg_status st = cg_gl_read_color(t->reader, q, t->rgb, len, NULL);
    if (st != CG_OK) {
        cg_gl_throw_read(env, t, what, (jint)q->texture, q->tex_w, q->tex_h, st);
        return NULL;
    }
    return cg_jni_bytestring_copy(env, t->rgb, len);
}

JNIEXPORT jobject JNICALL Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_captureFramebufferImpl(
    JNIEnv *env, jobject self, jint textureId, jint texW, jint texH, jint targetW, jint targetH,
    jint encodingMode, jboolean isExtensionAvailable, jboolean drawCursor, jint xPos, jint yPos)
{
    (void)self;
    (void)isExtensionAvailable; /* see the top of this file */
    static const char what[] = "captureFramebufferImpl";
    if (cg_jni_check_byte_mode(env, encodingMode)) return NULL;
    if (cg_jni_check_texture(env, what, "textureId", textureId)) return NULL;

    cg_gl_thread *t = cg_gl_thread_get(env, what);
    if (!t) return NULL;
    /* The reader checks both sizes here, once, its text in the exception. */
    cg_gl_pack mode = CG_GL_PACK_RGBA;
    cg_status st = cg_gl_reader_pack_for(t->reader, texW, texH, targetW, targetH, &mode);
    if (st != CG_OK) {
        cg_gl_throw_read(env, t, what, textureId, texW, texH, st);
        return NULL;
    }
    if (encodingMode != CG_ENC_RAW) mode = CG_GL_PACK_RGBA;
    if (mode != CG_GL_PACK_RGBA) {
        cg_gl_color_request q = {(unsigned)textureId, texW, texH, targetW, targetH,
                                 CG_FILTER_NEAREST, {drawCursor ? 1 : 0, xPos, yPos}};
        return cg_gl_raw_packed(env, t, what, &q);
    }
    const uint8_t *rgba = NULL;
    st = cg_gl_read_rgba(t->reader, (unsigned)textureId, texW, texH, &rgba);
    if (st != CG_OK) {
        cg_gl_throw_read(env, t, what, textureId, texW, texH, st);
        return NULL;
    }

    /* Convert and encode through the CPU path. GL rows are already
     * bottom-up, the wire's order, so no flip. */
    cg_convert_params p = {
        .src = rgba, .src_stride = (size_t)texW * 4, .src_w = texW, .src_h = texH,
        .dst_w = targetW, .dst_h = targetH, .flip = 0, .filter = CG_FILTER_NEAREST,
        .cursor = {drawCursor ? 1 : 0, xPos, yPos},
    };
    return cg_jni_frame_bytes(env, &p, encodingMode, what);
}

JNIEXPORT jfloatArray JNICALL Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_captureDepthImpl(
    JNIEnv *env, jobject self, jint depthTextureId, jint texW, jint texH,
    jboolean requiresDepthConversion, jfloat near_plane, jfloat far_plane, jboolean zZeroToOne)
{
    (void)self;
    static const char what[] = "captureDepthImpl";
    if (cg_jni_check_texture(env, what, "depthTextureId", depthTextureId)) return NULL;
    cg_gl_depth_linear lin = {near_plane, far_plane, zZeroToOne ? 1 : 0};
    if (requiresDepthConversion && cg_depth_check_planes(near_plane, far_plane) != CG_OK) {
        cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                 "%s: depth conversion needs 0 < near < far, finite; got near=%g far=%g", what,
                 (double)near_plane, (double)far_plane);
        return NULL;
    }
    cg_gl_thread *t = cg_gl_thread_get(env, what);
    if (!t) return NULL;
    size_t n = 0; /* <= 16384^2 once the reader checked the size: fits jsize */
    cg_status st = cg_gl_reader_depth_count(t->reader, texW, texH, &n);
    if (st != CG_OK) {
        cg_gl_throw_depth(env, t, what, depthTextureId, texW, texH, st);
        return NULL;
    }
    if (t->depth_cap < n) {
        float *p = realloc(t->depth, n * sizeof *p);
        if (!p) {
            cg_throw(env, CG_JEXC_OOM, "%s: cannot allocate %zu floats", what, n);
            return NULL;
        }
        t->depth = p;
        t->depth_cap = n;
    }
    st = cg_gl_read_depth(t->reader, (unsigned)depthTextureId, texW, texH,
                          requiresDepthConversion ? &lin : NULL, t->depth, n);
    if (st != CG_OK) {
        cg_gl_throw_depth(env, t, what, depthTextureId, texW, texH, st);
        return NULL;
    }
    jfloatArray arr = (*env)->NewFloatArray(env, (jsize)n);
    if (!arr) return NULL; /* OutOfMemoryError pending */
    (*env)->SetFloatArrayRegion(env, arr, 0, (jsize)n, t->depth);
    return arr;
}

JNIEXPORT jboolean JNICALL Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_initializeGLEW(
    JNIEnv *env, jobject self)
{
    (void)env;
    (void)self;
    /* GL entry points are resolved by libepoxy (Linux) or loaded with the
     * context check itself (Windows' own table, src/gl_capture/cg_gl_wgl.c);
     * nothing else to initialise. */
    return cg_gl_current_context(NULL) == CG_OK ? JNI_TRUE : JNI_FALSE;
}
