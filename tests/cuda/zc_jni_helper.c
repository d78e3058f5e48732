/*
 * zc_jni_helper.c - test-only JNI library (libzc_helper.so) for
 * ZeroCopyGpuTest: plays the mod's Vulkan side. It creates a device through
 * the test harness (vkt), an exportable image through cg_vk_export, hands
 * the fd, allocation size and device UUID to Java, and per frame fills the
 * "game" image with the test pattern and copies it into the export image
 * (fence path, so the frame is complete when vkFrame returns, as the mod's
 * fence wait ensures today). For GlZeroCopyGpuTest it plays the GL game
 * instead: a headless EGL context current on the calling thread and an
 * RGBA8 texture filled with the same pattern (GL row order).
 */
#include <epoxy/gl.h>
#include <jni.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_egl_headless.h"
#include "cg_vk_export.h"
#include "vkt.h"
#include "vkt_export.h"
#include "zc_test.h"

/* Prototypes (the class has no javac -h header in this build). */
JNIEXPORT jlongArray JNICALL Java_cgtest_ZeroCopyGpuTest_vkSetup(JNIEnv *env, jclass cls, jint w,
                                                                 jint h, jbyteArray uuid_out);
JNIEXPORT jlong JNICALL Java_cgtest_ZeroCopyGpuTest_vkExportFd(JNIEnv *env, jclass cls);
JNIEXPORT jboolean JNICALL Java_cgtest_ZeroCopyGpuTest_vkFrame(JNIEnv *env, jclass cls, jint f);
JNIEXPORT void JNICALL Java_cgtest_ZeroCopyGpuTest_vkTeardown(JNIEnv *env, jclass cls);
JNIEXPORT jint JNICALL Java_cgtest_GlZeroCopyGpuTest_glSetup(JNIEnv *env, jclass cls, jint w,
                                                             jint h);
JNIEXPORT jboolean JNICALL Java_cgtest_GlZeroCopyGpuTest_glFrame(JNIEnv *env, jclass cls,
                                                                 jint tex, jint w, jint h, jint f);
JNIEXPORT void JNICALL Java_cgtest_GlZeroCopyGpuTest_glTeardown(JNIEnv *env, jclass cls);

static vkt T;
static int t_open;
static cg_vk_export *E;
static VkImage G;
static VkDeviceMemory GM;
static int W, H;

/* The helper's own setup failed on a machine that has the hardware: throw,
 * so the test fails instead of reporting SKIPPED. Returns NULL. */
static jlongArray setup_failed(JNIEnv *env, const char *what, const char *detail)
{
    char msg[600];
    snprintf(msg, sizeof msg, "zc_jni_helper: %s failed: %s", what, detail);
    jclass cls = (*env)->FindClass(env, "java/lang/IllegalStateException");
    if (cls) (*env)->ThrowNew(env, cls, msg);
    return NULL;
}

static void teardown(void)
{
    if (G) vkt_image_free(&T, G, GM);
    G = VK_NULL_HANDLE;
    cg_vk_export_destroy(E);
    E = NULL;
}

/* long[]{fd, allocationSize}, UUID into uuid_out[16]; null when there is
 * no usable Vulkan device (the test then skips). A failure after that is an
 * IllegalStateException (the test fails). */
JNIEXPORT jlongArray JNICALL Java_cgtest_ZeroCopyGpuTest_vkSetup(JNIEnv *env, jclass cls, jint w,
                                                                 jint h, jbyteArray uuid_out)
{
    (void)cls;
    char why[256];
    if (!t_open) {
        int rc = vkt_init(&T, why, sizeof why);
        if (rc == VKT_SKIP) return NULL;
        if (rc != 0) return setup_failed(env, "vkt_init", why);
    }
    t_open = 1;
    teardown();
    cg_vk_export_desc d = vkt_export_desc(&T, w, h, CG_VK_SYNC_FENCE);
    cg_err verr = {""};
    cg_status st = cg_vk_export_create(&d, &E, &verr);
    if (st != CG_OK) return setup_failed(env, "cg_vk_export_create", verr.text);
    if (vkt_image(&T, w, h, -1, 0, &G, &GM) != 0) {
        G = VK_NULL_HANDLE;
        return setup_failed(env, "vkt_image (the game image)", "see stderr");
    }
    W = w;
    H = h;
    cg_vk_export_info info;
    cg_vk_export_get_info(E, &info);
    int fd = -1;
    if (cg_vk_export_memory_fd(E, &fd) != CG_OK)
        return setup_failed(env, "cg_vk_export_memory_fd", cg_vk_export_last_error(E));
    (*env)->SetByteArrayRegion(env, uuid_out, 0, 16, (const jbyte *)info.device_uuid);
    jlong v[2] = {fd, (jlong)info.allocation_size};
    jlongArray out = (*env)->NewLongArray(env, 2);
    if (out) (*env)->SetLongArrayRegion(env, out, 0, 2, v);
    return out;
}

/* Another fd of the same allocation (for the double-import case). */
JNIEXPORT jlong JNICALL Java_cgtest_ZeroCopyGpuTest_vkExportFd(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    int fd = -1;
    if (!E || cg_vk_export_memory_fd(E, &fd) != CG_OK) return -1;
    return fd;
}

/* The game renders frame f, the mod copies it into the export image and
 * waits for the fence. Returns false on failure. */
JNIEXPORT jboolean JNICALL Java_cgtest_ZeroCopyGpuTest_vkFrame(JNIEnv *env, jclass cls, jint f)
{
    (void)env;
    (void)cls;
    if (!E) return JNI_FALSE;
    size_t n = (size_t)W * (size_t)H * 4;
    uint8_t *px = malloc(n);
    if (!px) return JNI_FALSE;
    zc_pattern(px, W, H, f);
    int rc = vkt_upload(&T, G, W, H, px, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    free(px);
    if (rc) return JNI_FALSE;
    return cg_vk_export_copy(E, G, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, NULL) == CG_OK;
}

JNIEXPORT void JNICALL Java_cgtest_ZeroCopyGpuTest_vkTeardown(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    teardown();
}

static cg_egl_headless *GL;

/* Make a headless context current on this thread and create a w x h RGBA8
 * texture; its name, or -1 without EGL (the test then skips). A GL error
 * after that is an IllegalStateException (the test fails). */
JNIEXPORT jint JNICALL Java_cgtest_GlZeroCopyGpuTest_glSetup(JNIEnv *env, jclass cls, jint w,
                                                             jint h)
{
    (void)cls;
    char why[256];
    if (!GL && cg_egl_headless_open(&GL, why, sizeof why) != 0) return -1;
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
    glBindTexture(GL_TEXTURE_2D, 0);
    GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        snprintf(why, sizeof why, "GL error 0x%04x creating the %dx%d texture", (unsigned)e,
                 (int)w, (int)h);
        setup_failed(env, "glSetup", why);
        return -1;
    }
    return (jint)t;
}

/* The game renders frame f into the texture (pattern, GL row order). */
JNIEXPORT jboolean JNICALL Java_cgtest_GlZeroCopyGpuTest_glFrame(JNIEnv *env, jclass cls,
                                                                 jint tex, jint w, jint h, jint f)
{
    (void)env;
    (void)cls;
    uint8_t *px = malloc((size_t)w * (size_t)h * 4);
    if (!px) return JNI_FALSE;
    zc_pattern(px, w, h, f);
    glBindTexture(GL_TEXTURE_2D, (GLuint)tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glBindTexture(GL_TEXTURE_2D, 0);
    free(px);
    return glGetError() == GL_NO_ERROR;
}

JNIEXPORT void JNICALL Java_cgtest_GlZeroCopyGpuTest_glTeardown(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    cg_egl_headless_close(GL);
    GL = NULL;
}
