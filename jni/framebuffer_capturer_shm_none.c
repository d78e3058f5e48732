/*
 * framebuffer_capturer_shm_none.c - FramebufferCapturer's shared-memory
 * natives on a platform without POSIX shared memory and named semaphores
 * (Windows, where the Python side's objects are named Global\...): each
 * throws UnsupportedOperationException saying what to use instead.
 */
#include "cg_jni.h"
#include "com_kyhsgeekcode_minecraftenv_FramebufferCapturer.h" /* javac -h */

static const char k_unsupported[] =
    "the shared-memory channel needs POSIX shared memory and named semaphores (Linux, macOS); "
    "this build has none: use the socket transport";

JNIEXPORT jbyteArray JNICALL
Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_readInitialEnvironmentImpl(
    JNIEnv *env, jobject self, jstring p2jMemoryName, jint port)
{
    (void)self;
    (void)p2jMemoryName;
    (void)port;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "readInitialEnvironmentImpl: %s", k_unsupported),
           NULL;
}

JNIEXPORT jbyteArray JNICALL Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_readActionImpl(
    JNIEnv *env, jobject self, jstring p2jMemoryName, jbyteArray actionData)
{
    (void)self;
    (void)p2jMemoryName;
    (void)actionData;
    return cg_throw(env, CG_JEXC_UNSUPPORTED, "readActionImpl: %s", k_unsupported), NULL;
}

JNIEXPORT void JNICALL Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_writeObservationImpl(
    JNIEnv *env, jobject self, jstring p2jMemoryName, jstring j2pMemoryName,
    jbyteArray observationData)
{
    (void)self;
    (void)p2jMemoryName;
    (void)j2pMemoryName;
    (void)observationData;
    cg_throw(env, CG_JEXC_UNSUPPORTED, "writeObservationImpl: %s", k_unsupported);
}
