/*
 * framebuffer_capturer_zerocopy.c - FramebufferCapturer's GL zero-copy
 * natives on Linux/Windows: initializeZerocopyImpl and
 * captureFramebufferZerocopyImpl, GL texture -> CUDA shared buffer
 * (src/gl_capture/cg_gl_cuda.h) behind the 68-byte IPC handle. The macOS
 * variant is framebuffer_capturer_zerocopy_apple.c.
 *
 * Call both on the render thread with the game's GL context current. The
 * Kotlin object is a singleton: its one zero-copy target lives here, guarded
 * by a mutex. The buffer keeps the size given to initializeZerocopyImpl;
 * a capture of another size is an IllegalArgumentException (the Python side
 * could not learn of a new handle from a capture call).
 */
#include <pthread.h>
#include <stdio.h>

#include "cg_gl_cuda.h"
#include "cg_jni.h"
#include "com_kyhsgeekcode_minecraftenv_FramebufferCapturer.h" /* javac -h */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static cg_gl_cuda *g_glz; /* created on first use, kept for the process */
static int g_w, g_h;      /* size of the live buffer */

/* The exception for a failed GL zero-copy call; NO_DEVICE here means the
 * current context is not on a CUDA GPU, a state of the machine rather than
 * a bad argument. */
static void throw_glz(JNIEnv *env, cg_status st, const char *what, const char *detail)
{
    if (st == CG_E_NO_DEVICE) {
        cg_throw(env, CG_JEXC_ILLEGAL_STATE,
                 "%s: the current GL context is not rendered by a CUDA (NVIDIA) GPU, so "
                 "zero-copy is unavailable; use RAW or PNG capture: %s",
                 what, detail);
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
    (void)pythonPid; /* only the macOS mach-port path needs the peer's pid */
    static const char what[] = "initializeZerocopyImpl";
    if (cg_jni_check_dims(env, "zero-copy buffer", width, height)) return NULL;
    uint8_t handle[CG_GL_CUDA_HANDLE_SIZE];
    char detail[600];
    detail[0] = '\0';
    jobject result = NULL;
    pthread_mutex_lock(&g_lock);
    cg_status st = g_glz ? CG_OK : cg_gl_cuda_create(&g_glz);
    if (st == CG_OK && cg_gl_cuda_is_initialized(g_glz)) {
        st = CG_E_ALREADY_INITIALIZED;
        snprintf(detail, sizeof detail, "zero-copy is already initialised at %dx%d", g_w, g_h);
    } else if (st == CG_OK) {
        st = cg_gl_cuda_init(g_glz, width, height, handle);
        if (st == CG_OK) {
            g_w = width;
            g_h = height;
            /* Java never receiving the handle undoes the setup (on this,
             * the render thread), so a retry can initialise again. */
            result = cg_jni_bytestring_copy(env, handle, sizeof handle);
            if (result == NULL) cg_gl_cuda_reset(g_glz);
        } else {
            snprintf(detail, sizeof detail, "%s", cg_gl_cuda_last_error(g_glz));
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (st != CG_OK) return throw_glz(env, st, what, detail), NULL;
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
    char detail[600];
    detail[0] = '\0';
    cg_gl_cuda_frame f = {(unsigned)sourceTextureId, drawCursor ? 1 : 0, mouseX, mouseY};
    pthread_mutex_lock(&g_lock);
    cg_status st = CG_OK;
    if (!cg_gl_cuda_is_initialized(g_glz)) {
        st = CG_E_NOT_INITIALIZED;
        snprintf(detail, sizeof detail, "call initializeZerocopyImpl first");
    } else if (targetW != g_w || targetH != g_h) {
        st = CG_E_INVALID_ARG;
        snprintf(detail, sizeof detail,
                 "target %dx%d differs from the %dx%d buffer set up by initializeZerocopyImpl",
                 (int)targetW, (int)targetH, g_w, g_h);
    } else {
        st = cg_gl_cuda_capture(g_glz, &f);
        if (st != CG_OK) snprintf(detail, sizeof detail, "%s", cg_gl_cuda_last_error(g_glz));
    }
    pthread_mutex_unlock(&g_lock);
    if (st != CG_OK) throw_glz(env, st, what, detail);
    return NULL; /* success: the frame is in the shared buffer */
}
