/*
 * libcg_failalloc_jni.so: cgtest.FailAlloc's natives, which reach the
 * preloaded libcg_failalloc.so through dlsym (a test-only JNI library, not
 * part of native-lib). Without the preload every call says false / -1.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_failalloc.h"

JNIEXPORT jboolean JNICALL Java_cgtest_FailAlloc_arm(JNIEnv *env, jclass cls, jlong nth,
                                                     jstring scope);
JNIEXPORT jlong JNICALL Java_cgtest_FailAlloc_disarm(JNIEnv *env, jclass cls);
JNIEXPORT jboolean JNICALL Java_cgtest_FailAlloc_fired(JNIEnv *env, jclass cls);
JNIEXPORT jlong JNICALL Java_cgtest_FailAlloc_live(JNIEnv *env, jclass cls);

static int api(cg_failalloc_api *a)
{
    return cg_failalloc_load(a) == 0;
}

JNIEXPORT jboolean JNICALL Java_cgtest_FailAlloc_arm(JNIEnv *env, jclass cls, jlong nth,
                                                     jstring scope)
{
    (void)cls;
    cg_failalloc_api a;
    if (!api(&a)) return JNI_FALSE;
    const char *s = (*env)->GetStringUTFChars(env, scope, NULL);
    if (!s) return JNI_FALSE;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", s);
    (*env)->ReleaseStringUTFChars(env, scope, s);
    return a.arm((long)nth, copy) == 0 ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jlong JNICALL Java_cgtest_FailAlloc_disarm(JNIEnv *env, jclass cls)
{
    (void)env, (void)cls;
    cg_failalloc_api a;
    return api(&a) ? (jlong)a.disarm() : -1;
}

JNIEXPORT jboolean JNICALL Java_cgtest_FailAlloc_fired(JNIEnv *env, jclass cls)
{
    (void)env, (void)cls;
    cg_failalloc_api a;
    return api(&a) && a.fired() ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jlong JNICALL Java_cgtest_FailAlloc_live(JNIEnv *env, jclass cls)
{
    (void)env, (void)cls;
    cg_failalloc_api a;
    return api(&a) ? (jlong)a.live() : -1;
}
