/*
 * framebuffer_capturer_zerocopy.c - FramebufferCapturer's GL zero-copy
 * natives on every platform: initializeZerocopyImpl and
 * captureFramebufferZerocopyImpl, GL texture -> the GPU backend's shared
 * buffer (cg_gpu_backend.h) behind its handle: CUDA's 68-byte IPC handle
 * on Linux/Windows, Metal's 4-byte mach port of an IOSurface on macOS (made
 * for pythonPid, which the backend checks).
 *
 * Call both on the render thread with the game's GL context current. The
 * buffer keeps the size given to initializeZerocopyImpl; a capture of
 * another size is an IllegalArgumentException (the Python side could not
 * learn of a new handle from a capture call).
 */
#include "cg_gpu_backend.h"
#include "cg_jni.h"
#include "com_kyhsgeekcode_minecraftenv_FramebufferCapturer.h" /* javac -h */

static cg_jni_singleton g_glz = CG_JNI_SINGLETON_INIT;
static int g_w, g_h; /* size of the live buffer; under g_glz.lock */

/* The exception for a failed GL zero-copy call; NO_DEVICE here means the
 * current context is not on a GPU of the backend, a state of the machine
 * rather than a bad argument. */
static void throw_glz(JNIEnv *env, cg_status st, const char *what, const char *detail)
{
    if (st == CG_E_NO_DEVICE) {
        cg_throw(env, CG_JEXC_ILLEGAL_STATE,
                 "%s: the current GL context is not rendered by a %s GPU, so zero-copy is "
                 "unavailable; use RAW or PNG capture: %s",
                 what, cg_gpu_backend_get()->name, detail);
        return;
    }
    cg_throw_status(env, st, what, detail);
}

JNIEXPORT jobject JNICALL
Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_initializeZerocopyImpl(JNIEnv *env,
                                                                               jobject thiz,
                                                                               jint width,
                                                                               jint height,
                                                                               jint pythonPid)
{
    (void)thiz;
    static const char what[] = "initializeZerocopyImpl";
    if (cg_jni_check_dims(env, "zero-copy buffer", width, height)) return NULL;
    const cg_gpu_backend *be = cg_gpu_backend_get();
    uint8_t handle[CG_GPU_HANDLE_MAX_SIZE];
    cg_err why = {""};
    jobject result = NULL;
    cg_status st = cg_jni_singleton_lock(&g_glz, be->gl_create);
    if (st == CG_OK && be->gl_live(g_glz.ctx)) {
        st = cg_fail(&why, CG_E_ALREADY_INITIALIZED, "zero-copy is already initialised at %dx%d",
                     g_w, g_h);
    } else if (st == CG_OK) {
        st = be->gl_init(g_glz.ctx, width, height, (int)pythonPid, handle);
        if (st == CG_OK) {
            g_w = width;
            g_h = height;
            /* Undone on this, the render thread, when Java cannot get it. */
            result = cg_jni_publish_handle(env, handle, be->handle_size, be->gl_reset, g_glz.ctx);
        } else {
            cg_fail_from(&why, st, be->gl_error(g_glz.ctx));
        }
    }
    cg_jni_singleton_unlock(&g_glz);
    if (st != CG_OK) return throw_glz(env, st, what, why.text), NULL;
    return result; /* NULL: the ByteString's exception is pending */
}

JNIEXPORT jobject JNICALL
Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_captureFramebufferZerocopyImpl(
    JNIEnv *env, jobject thiz, jint sourceTextureId, jint targetW, jint targetH,
    jboolean drawCursor, jint mouseX, jint mouseY)
{
    (void)thiz;
    static const char what[] = "captureFramebufferZerocopyImpl";
    if (cg_jni_check_dims(env, "target", targetW, targetH)) return NULL;
    if (cg_jni_check_texture(env, what, "texture id", sourceTextureId)) return NULL;
    const cg_gpu_backend *be = cg_gpu_backend_get();
    cg_err why = {""};
    cg_gpu_gl_frame f = {(unsigned)sourceTextureId, {drawCursor ? 1 : 0, mouseX, mouseY}};
    cg_jni_singleton_lock(&g_glz, NULL);
    cg_status st = CG_OK;
    if (!g_glz.ctx || !be->gl_live(g_glz.ctx)) {
        st = cg_fail(&why, CG_E_NOT_INITIALIZED, "call initializeZerocopyImpl first");
    } else if (targetW != g_w || targetH != g_h) {
        st = cg_fail(&why, CG_E_INVALID_ARG,
                     "target %dx%d differs from the %dx%d buffer set up by initializeZerocopyImpl",
                     (int)targetW, (int)targetH, g_w, g_h);
    } else {
        st = be->gl_capture(g_glz.ctx, &f);
        if (st != CG_OK) cg_fail_from(&why, st, be->gl_error(g_glz.ctx));
    }
    cg_jni_singleton_unlock(&g_glz);
    if (st != CG_OK) throw_glz(env, st, what, why.text);
    return NULL; /* success: the frame is in the shared buffer */
}
