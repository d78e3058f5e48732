/*
 * bench_limit.c - libcg_bench_limit.so, a test-only JNI library (not part of
 * libnative-lib.so) giving the JVM benchmark its same-run limit: a native
 * call with convertCapturedFrameImpl's arguments that does nothing, and one
 * that allocates the output byte[] and copies the output size into it once
 * from the source buffer.
 */
#include <jni.h>
#include <stdint.h>

JNIEXPORT jobject JNICALL Java_cgbench_Limit_empty(JNIEnv *env, jclass cls, jobject src, jint sw,
                                                   jint sh, jint tw, jint th, jint mode,
                                                   jboolean flip, jboolean cursor, jint x, jint y);
JNIEXPORT jbyteArray JNICALL Java_cgbench_Limit_allocCopy(JNIEnv *env, jclass cls, jobject src,
                                                          jint sw, jint sh, jint tw, jint th,
                                                          jint mode, jboolean flip,
                                                          jboolean cursor, jint x, jint y);

JNIEXPORT jobject JNICALL Java_cgbench_Limit_empty(JNIEnv *env, jclass cls, jobject src, jint sw,
                                                   jint sh, jint tw, jint th, jint mode,
                                                   jboolean flip, jboolean cursor, jint x, jint y)
{
    (void)env, (void)cls, (void)src, (void)sw, (void)sh, (void)tw, (void)th, (void)mode;
    (void)flip, (void)cursor, (void)x, (void)y;
    return NULL;
}

JNIEXPORT jbyteArray JNICALL Java_cgbench_Limit_allocCopy(JNIEnv *env, jclass cls, jobject src,
                                                          jint sw, jint sh, jint tw, jint th,
                                                          jint mode, jboolean flip,
                                                          jboolean cursor, jint x, jint y)
{
    (void)cls, (void)sw, (void)sh, (void)mode, (void)flip, (void)cursor, (void)x, (void)y;
    jsize n = tw * th * 3;
    const jbyte *from = (*env)->GetDirectBufferAddress(env, src);
    if (from == NULL || (*env)->GetDirectBufferCapacity(env, src) < n) return NULL;
    jbyteArray out = (*env)->NewByteArray(env, n);
    if (out == NULL) return NULL;
    (*env)->SetByteArrayRegion(env, out, 0, n, from);
    return out;
}
