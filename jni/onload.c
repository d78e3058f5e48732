/*
 * JNI_OnLoad / JNI_OnUnload: set up the shared JNI caches in order and unwind
 * on failure, returning JNI_ERR rather than aborting (netty-tcnative jnilib.c).
 */
#include "cg_jni.h"

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    (void)reserved;
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    if (cg_jni_init(env) != 0) return JNI_ERR;
    return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved)
{
    (void)reserved;
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return;
    cg_jni_fini(env);
}
