/*
 * framebuffer_capturer_zerocopy_apple.c - the macOS variants of
 * FramebufferCapturer.initializeZerocopyImpl / captureFramebufferZerocopyImpl:
 * GL texture -> IOSurface-backed rectangle texture (src/metal/cg_metal_gl.h),
 * handed to Python as a mach port (4 bytes, little-endian).
 *
 * Compiled into libnative-lib only when targeting Apple (jni/CMakeLists.txt
 * leaves *_apple.c out elsewhere, and leaves the Linux file for these two
 * natives out on Apple). On Linux CI it is compiled with -fsyntax-only.
 * Not run on a Mac by this project.
 *
 * Call both on the render thread with the game's CGL context current.
 */
#include <pthread.h>
#include <stdio.h>

#include "cg_jni.h"
#include "cg_metal_gl.h"
#include "com_kyhsgeekcode_minecraftenv_FramebufferCapturer.h" /* javac -h */

/* The Kotlin object is a singleton; its one zero-copy target lives here. */
static cg_metal_gl *g_gl;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

JNIEXPORT jobject JNICALL
Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_initializeZerocopyImpl(JNIEnv *env,
                                                                               jobject thiz,
                                                                               jint width,
                                                                               jint height,
                                                                               jint pythonPid)
{
    (void)thiz;
    static const char what[] = "initializeZerocopyImpl";
    if (cg_jni_check_dims(env, "zero-copy target", width, height)) return NULL;
    if (cg_jni_check_pid(env, what, pythonPid)) return NULL;
    char err[CG_METAL_ERROR_LEN] = "";
    uint32_t port = 0;
    pthread_mutex_lock(&g_lock);
    if (g_gl != NULL) {
        pthread_mutex_unlock(&g_lock);
        cg_throw(env, CG_JEXC_ILLEGAL_STATE, "%s: zero-copy is initialised already", what);
        return NULL;
    }
    cg_metal_gl *g = NULL;
    cg_status st = cg_metal_gl_create(cg_metal_platform_native(), width, height, &g, err,
                                      sizeof err);
    if (st == CG_OK) {
        st = cg_metal_gl_export_port(g, (int)pythonPid, &port);
        if (st != CG_OK) {
            snprintf(err, sizeof err, "%s", cg_metal_gl_last_error(g));
            cg_metal_gl_destroy(g);
            g = NULL;
        }
    }
    jobject result = NULL;
    if (st == CG_OK) {
        uint8_t bytes[CG_METAL_PORT_BYTES];
        cg_metal_port_bytes(port, bytes);
        /* Java never receiving the port undoes the setup (on this, the
         * render thread), so a retry can initialise again. */
        result = cg_jni_bytestring_copy(env, bytes, sizeof bytes);
        if (result == NULL) {
            cg_metal_gl_destroy(g);
            g = NULL;
        }
    }
    g_gl = g;
    pthread_mutex_unlock(&g_lock);
    if (st != CG_OK) return cg_throw_status(env, st, what, err), NULL;
    return result; /* NULL: the ByteString's exception is pending */
}

JNIEXPORT jobject JNICALL
Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_captureFramebufferZerocopyImpl(
    JNIEnv *env, jobject thiz, jint sourceTextureId, jint targetW, jint targetH,
    jboolean drawCursor, jint mouseX, jint mouseY)
{
    (void)thiz;
    static const char what[] = "captureFramebufferZerocopyImpl";
    if (cg_jni_check_texture(env, what, "sourceTextureId", sourceTextureId)) return NULL;
    if (cg_jni_check_dims(env, "zero-copy target", targetW, targetH)) return NULL;
    char err[CG_METAL_ERROR_LEN] = "";
    pthread_mutex_lock(&g_lock);
    cg_status st = CG_E_NOT_INITIALIZED;
    if (g_gl != NULL) {
        st = cg_metal_gl_capture(g_gl, (uint32_t)sourceTextureId, targetW, targetH,
                                 drawCursor == JNI_TRUE, mouseX, mouseY);
        if (st != CG_OK) snprintf(err, sizeof err, "%s", cg_metal_gl_last_error(g_gl));
    } else {
        snprintf(err, sizeof err, "call initializeZerocopyImpl first");
    }
    pthread_mutex_unlock(&g_lock);
    if (st != CG_OK) cg_throw_status(env, st, what, err);
    /* null on success: the mod maps it to ByteString.EMPTY. */
    return NULL;
}
