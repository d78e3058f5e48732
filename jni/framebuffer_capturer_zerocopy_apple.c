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
#include "cg_jni.h"
#include "cg_metal_gl.h"
#include "com_kyhsgeekcode_minecraftenv_FramebufferCapturer.h" /* javac -h */

/* The Kotlin object is a singleton; its one zero-copy target lives here
 * (ctx: the cg_metal_gl, NULL while none is set up). */
static cg_jni_singleton g_gl = CG_JNI_SINGLETON_INIT;

/* Undo a setup whose port Java never received (a retry can set up again). */
static void undo_setup(void *ctx)
{
    (void)ctx;
    cg_metal_gl_destroy(g_gl.ctx);
    g_gl.ctx = NULL;
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
    if (cg_jni_check_dims(env, "zero-copy target", width, height)) return NULL;
    if (cg_jni_check_pid(env, what, pythonPid)) return NULL;
    cg_err err = {""};
    uint32_t port = 0;
    jobject result = NULL;
    cg_jni_singleton_lock(&g_gl, NULL);
    cg_status st = CG_OK;
    if (g_gl.ctx != NULL) {
        st = cg_fail(&err, CG_E_ALREADY_INITIALIZED, "zero-copy is initialised already");
    } else {
        cg_metal_gl *g = NULL;
        st = cg_metal_gl_create(cg_metal_platform_native(), width, height, &g, &err);
        if (st == CG_OK) {
            st = cg_metal_gl_export_port(g, (int)pythonPid, &port);
            if (st != CG_OK) {
                cg_fail_from(&err, st, cg_metal_gl_error(g));
                cg_metal_gl_destroy(g);
                g = NULL;
            }
        }
        g_gl.ctx = g;
        if (st == CG_OK) {
            uint8_t bytes[CG_METAL_PORT_BYTES];
            cg_metal_port_bytes(port, bytes);
            /* Undone on this, the render thread, when Java cannot get it. */
            result = cg_jni_publish_handle(env, bytes, sizeof bytes, undo_setup, NULL);
        }
    }
    cg_jni_singleton_unlock(&g_gl);
    if (st != CG_OK) return cg_throw_status(env, st, what, err.text), NULL;
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
    cg_err err = {""};
    cg_jni_singleton_lock(&g_gl, NULL);
    cg_status st = CG_E_NOT_INITIALIZED;
    if (g_gl.ctx != NULL) {
        cg_cursor cursor = {drawCursor == JNI_TRUE, mouseX, mouseY};
        st = cg_metal_gl_capture(g_gl.ctx, (uint32_t)sourceTextureId, targetW, targetH, &cursor);
        if (st != CG_OK) cg_fail_from(&err, st, cg_metal_gl_error(g_gl.ctx));
    } else {
        cg_fail(&err, st, "call initializeZerocopyImpl first");
    }
    cg_jni_singleton_unlock(&g_gl);
    if (st != CG_OK) cg_throw_status(env, st, what, err.text);
    /* null on success: the mod maps it to ByteString.EMPTY. */
    return NULL;
}
