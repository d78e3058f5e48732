/*
 * libdemo_scene.so: the JNI face of the demo's scene (voxel_scene.h) for
 * cgdemo.VoxelScene. The Java demo captures the scene's textures through
 * FramebufferCapturer exactly as the mod does.
 */
#include <jni.h>
#include <unistd.h>

#include "voxel_scene.h"

#define CLS(name) Java_cgdemo_VoxelScene_##name

JNIEXPORT jstring JNICALL CLS(open)(JNIEnv *env, jclass cls, jint w, jint h);
JNIEXPORT jintArray JNICALL CLS(textures)(JNIEnv *env, jclass cls);
JNIEXPORT jboolean JNICALL CLS(zeroToOne)(JNIEnv *env, jclass cls);
JNIEXPORT jfloat JNICALL CLS(nearPlane)(JNIEnv *env, jclass cls);
JNIEXPORT jfloat JNICALL CLS(farPlane)(JNIEnv *env, jclass cls);
JNIEXPORT jboolean JNICALL CLS(render)(JNIEnv *env, jclass cls, jint frame, jint frames);
JNIEXPORT jboolean JNICALL CLS(readback)(JNIEnv *env, jclass cls, jobject dst);
JNIEXPORT void JNICALL CLS(close)(JNIEnv *env, jclass cls);
JNIEXPORT jboolean JNICALL CLS(stderrIsTerminal)(JNIEnv *env, jclass cls);

JNIEXPORT jstring JNICALL CLS(open)(JNIEnv *env, jclass cls, jint w, jint h)
{
    (void)cls;
    char why[512];
    if (vs_open(w, h, why, sizeof why) != 0) {
        (*env)->ThrowNew(env, (*env)->FindClass(env, "java/lang/IllegalStateException"), why);
        return NULL;
    }
    return (*env)->NewStringUTF(env, vs_describe());
}

JNIEXPORT jintArray JNICALL CLS(textures)(JNIEnv *env, jclass cls)
{
    (void)cls;
    const jint t[2] = {(jint)vs_color_texture(), (jint)vs_depth_texture()};
    jintArray a = (*env)->NewIntArray(env, 2);
    if (a) (*env)->SetIntArrayRegion(env, a, 0, 2, t);
    return a;
}

JNIEXPORT jboolean JNICALL CLS(zeroToOne)(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    return vs_zero_to_one() ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jfloat JNICALL CLS(nearPlane)(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    return VS_NEAR;
}

JNIEXPORT jfloat JNICALL CLS(farPlane)(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    return VS_FAR;
}

JNIEXPORT jboolean JNICALL CLS(render)(JNIEnv *env, jclass cls, jint frame, jint frames)
{
    (void)env;
    (void)cls;
    return vs_render(frame, frames) == 0 ? JNI_TRUE : JNI_FALSE;
}

/* A plain glReadPixels of the color texture into a direct buffer: the
 * readback stage on its own, for the demo's timing table. */
JNIEXPORT jboolean JNICALL CLS(readback)(JNIEnv *env, jclass cls, jobject dst)
{
    (void)cls;
    void *p = (*env)->GetDirectBufferAddress(env, dst);
    jlong cap = (*env)->GetDirectBufferCapacity(env, dst);
    if (!p || cap < 0) return JNI_FALSE;
    return vs_readback(p, (size_t)cap) == 0 ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT void JNICALL CLS(close)(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    vs_close();
}

JNIEXPORT jboolean JNICALL CLS(stderrIsTerminal)(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    return isatty(STDERR_FILENO) ? JNI_TRUE : JNI_FALSE;
}
