/*
 * libgltest.so: the JVM GL test's native helper (test-only, never part of
 * native-lib). It plays the game's part: owns a headless EGL context, makes
 * it current on the calling Java thread, and renders gl_scene scenes whose
 * texture names the test then hands to FramebufferCapturer's natives.
 * Globals are fine here: one test process, one context.
 */
#include <epoxy/gl.h>
#include <jni.h>
#include <stdlib.h>

#include "cg_egl_headless.h"
#include "gl_scene.h"
#include "zc_test.h"

#define CLS(name) Java_cgtest_GlHelper_##name

JNIEXPORT jstring JNICALL CLS(open)(JNIEnv *env, jclass cls);
JNIEXPORT jboolean JNICALL CLS(makeCurrent)(JNIEnv *env, jclass cls, jboolean on);
JNIEXPORT jintArray JNICALL CLS(createScene)(JNIEnv *env, jclass cls, jint w, jint h);
JNIEXPORT jboolean JNICALL CLS(resizeScene)(JNIEnv *env, jclass cls, jint id, jint w, jint h);
JNIEXPORT jboolean JNICALL CLS(drawColor)(JNIEnv *env, jclass cls, jint id, jintArray clear,
                                          jintArray quads);
JNIEXPORT jint JNICALL CLS(drawDepth)(JNIEnv *env, jclass cls, jint id, jdoubleArray quads,
                                      jdouble near_plane, jdouble far_plane, jboolean z01);
JNIEXPORT jint JNICALL CLS(emptyTexture)(JNIEnv *env, jclass cls);
JNIEXPORT jboolean JNICALL CLS(uploadPattern)(JNIEnv *env, jclass cls, jint tex, jint w, jint h,
                                              jint frame);

enum { MAX_SCENES = 16, MAX_QUADS = 32 };
static cg_egl_headless *g_ctx;
static gl_scene g_scenes[MAX_SCENES];
static int g_nscenes;

JNIEXPORT jstring JNICALL CLS(open)(JNIEnv *env, jclass cls)
{
    (void)cls;
    char why[256];
    if (!g_ctx && cg_egl_headless_open(&g_ctx, why, sizeof why) != 0) return NULL;
    return (*env)->NewStringUTF(env, cg_egl_headless_describe(g_ctx));
}

JNIEXPORT jboolean JNICALL CLS(makeCurrent)(JNIEnv *env, jclass cls, jboolean on)
{
    (void)env;
    (void)cls;
    int rc = on ? cg_egl_headless_make_current(g_ctx) : cg_egl_headless_release(g_ctx);
    return rc == 0 ? JNI_TRUE : JNI_FALSE;
}

/* {scene id, color texture, depth texture}, or null. */
JNIEXPORT jintArray JNICALL CLS(createScene)(JNIEnv *env, jclass cls, jint w, jint h)
{
    (void)cls;
    if (g_nscenes == MAX_SCENES || gl_scene_create(&g_scenes[g_nscenes], w, h) != 0) return NULL;
    const jint v[3] = {g_nscenes, (jint)g_scenes[g_nscenes].color,
                       (jint)g_scenes[g_nscenes].depth};
    g_nscenes++;
    jintArray a = (*env)->NewIntArray(env, 3);
    if (a) (*env)->SetIntArrayRegion(env, a, 0, 3, v);
    return a;
}

JNIEXPORT jboolean JNICALL CLS(resizeScene)(JNIEnv *env, jclass cls, jint id, jint w, jint h)
{
    (void)env;
    (void)cls;
    return gl_scene_resize(&g_scenes[id], w, h) == 0 ? JNI_TRUE : JNI_FALSE;
}

/* quads: x0,y0,x1,y1,r,g,b per quad. */
JNIEXPORT jboolean JNICALL CLS(drawColor)(JNIEnv *env, jclass cls, jint id, jintArray clear,
                                          jintArray quads)
{
    (void)cls;
    jint c[3], v[MAX_QUADS * 7];
    jsize n = (*env)->GetArrayLength(env, quads) / 7;
    if (n > MAX_QUADS) return JNI_FALSE;
    (*env)->GetIntArrayRegion(env, clear, 0, 3, c);
    (*env)->GetIntArrayRegion(env, quads, 0, n * 7, v);
    gl_quad q[MAX_QUADS];
    for (jsize i = 0; i < n; i++) {
        const jint *p = v + i * 7;
        gl_quad one = {p[0], p[1], p[2], p[3], {(uint8_t)p[4], (uint8_t)p[5], (uint8_t)p[6]}, 0};
        q[i] = one;
    }
    const uint8_t cl[3] = {(uint8_t)c[0], (uint8_t)c[1], (uint8_t)c[2]};
    return gl_scene_draw_color(&g_scenes[id], cl, q, (int)n) == 0 ? JNI_TRUE : JNI_FALSE;
}

/* quads: x0,y0,x1,y1,eyeZ per quad. 0 ok, 1 GL error, 2 no clip control. */
JNIEXPORT jint JNICALL CLS(drawDepth)(JNIEnv *env, jclass cls, jint id, jdoubleArray quads,
                                      jdouble near_plane, jdouble far_plane, jboolean z01)
{
    (void)cls;
    jdouble v[MAX_QUADS * 5];
    jsize n = (*env)->GetArrayLength(env, quads) / 5;
    if (n > MAX_QUADS) return 1;
    (*env)->GetDoubleArrayRegion(env, quads, 0, n * 5, v);
    gl_quad q[MAX_QUADS];
    for (jsize i = 0; i < n; i++) {
        const jdouble *p = v + i * 5;
        gl_quad one = {(int)p[0], (int)p[1], (int)p[2], (int)p[3], {0, 0, 0}, p[4]};
        q[i] = one;
    }
    return gl_scene_draw_depth(&g_scenes[id], q, (int)n, near_plane, far_plane, z01 ? 1 : 0);
}

/* A texture name with no storage (0x0): generated and bound, never defined. */
JNIEXPORT jint JNICALL CLS(emptyTexture)(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glBindTexture(GL_TEXTURE_2D, 0);
    return (jint)t;
}

/* Frame `frame` of the zero-copy test pattern (zc_test.h) into the texture's
 * [0,w) x [0,h) (gl_scene_upload). */
JNIEXPORT jboolean JNICALL CLS(uploadPattern)(JNIEnv *env, jclass cls, jint tex, jint w, jint h,
                                              jint frame)
{
    (void)env;
    (void)cls;
    uint8_t *px = malloc((size_t)w * (size_t)h * 4);
    if (!px) return JNI_FALSE;
    zc_pattern(px, w, h, frame);
    int rc = gl_scene_upload((unsigned)tex, w, h, px);
    free(px);
    return rc == 0 ? JNI_TRUE : JNI_FALSE;
}
