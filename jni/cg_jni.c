/*
 * cg_jni.c - shared JNI plumbing: cached exception classes, status ->
 * exception mapping, argument checks and ByteString creation.
 *
 * The globals here are the JNI layer's caches (global references and method
 * IDs); nothing below jni/ keeps any.
 */
#include "cg_jni.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "cg_frame.h"
#include "cg_zc_proto.h" /* CG_ZC_FORMAT_R8G8B8_UNORM */

/* ---- exception classes ----------------------------------------------- */

static const char *const cg_exc_names[CG_JEXC_COUNT_] = {
    [CG_JEXC_ILLEGAL_ARGUMENT] = "java/lang/IllegalArgumentException",
    [CG_JEXC_ILLEGAL_STATE] = "java/lang/IllegalStateException",
    [CG_JEXC_UNSUPPORTED] = "java/lang/UnsupportedOperationException",
    [CG_JEXC_RUNTIME] = "java/lang/RuntimeException",
    [CG_JEXC_OOM] = "java/lang/OutOfMemoryError",
    [CG_JEXC_NULL_POINTER] = "java/lang/NullPointerException",
};

/* Written once in JNI_OnLoad before any native can run, cleared in
 * JNI_OnUnload after the last one returned: no synchronisation needed. */
static jclass cg_exc_classes[CG_JEXC_COUNT_];

/* ---- ByteString cache ------------------------------------------------ */

/* Resolved in JNI_OnLoad when the loader that loads the library sees
 * protobuf, otherwise on first use from a native (whose FindClass uses the
 * declaring class's loader). Published whole through one atomic pointer;
 * two threads racing to resolve both build a cache and the loser frees its
 * own, so a duplicated lookup is harmless. */
typedef struct cg_bytestring_cache {
    jclass bytestring;    /* com.google.protobuf.ByteString */
    jclass unsafe_ops;    /* com.google.protobuf.UnsafeByteOperations, or NULL */
    jmethodID unsafe_wrap; /* static ByteString unsafeWrap(byte[]), or NULL */
    jmethodID copy_from;   /* static ByteString copyFrom(byte[]) */
} cg_bytestring_cache;

static _Atomic(cg_bytestring_cache *) cg_bs_cache;

#define CG_BYTESTRING_CLASS "com/google/protobuf/ByteString"
#define CG_UNSAFE_OPS_CLASS "com/google/protobuf/UnsafeByteOperations"
#define CG_BYTESTRING_SIG "([B)Lcom/google/protobuf/ByteString;"

static void cg_bs_cache_free(JNIEnv *env, cg_bytestring_cache *c)
{
    if (c == NULL) return;
    if (c->bytestring != NULL) (*env)->DeleteGlobalRef(env, c->bytestring);
    if (c->unsafe_ops != NULL) (*env)->DeleteGlobalRef(env, c->unsafe_ops);
    free(c);
}

/* FindClass + NewGlobalRef. On failure returns NULL with the
 * ClassNotFound/NoClassDefFound (or OOM) exception cleared. */
static jclass cg_find_global_class(JNIEnv *env, const char *name)
{
    jclass local = (*env)->FindClass(env, name);
    if (local == NULL) {
        (*env)->ExceptionClear(env);
        return NULL;
    }
    jclass global = (jclass)(*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    if (global == NULL) (*env)->ExceptionClear(env);
    return global;
}

/* Build a cache from the current thread's class loader view. NULL (no
 * exception pending) when ByteString itself cannot be found. */
static cg_bytestring_cache *cg_bs_cache_build(JNIEnv *env)
{
    cg_bytestring_cache *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->bytestring = cg_find_global_class(env, CG_BYTESTRING_CLASS);
    if (c->bytestring == NULL) goto fail;
    c->copy_from = (*env)->GetStaticMethodID(env, c->bytestring, "copyFrom", CG_BYTESTRING_SIG);
    if (c->copy_from == NULL) {
        (*env)->ExceptionClear(env);
        goto fail;
    }
    /* UnsafeByteOperations appeared in protobuf 3.1; without it, copy. */
    c->unsafe_ops = cg_find_global_class(env, CG_UNSAFE_OPS_CLASS);
    if (c->unsafe_ops != NULL) {
        c->unsafe_wrap =
            (*env)->GetStaticMethodID(env, c->unsafe_ops, "unsafeWrap", CG_BYTESTRING_SIG);
        if (c->unsafe_wrap == NULL) {
            (*env)->ExceptionClear(env);
            (*env)->DeleteGlobalRef(env, c->unsafe_ops);
            c->unsafe_ops = NULL;
        }
    }
    return c;
fail:
    cg_bs_cache_free(env, c);
    return NULL;
}

/* The published cache, resolving it now if needed. NULL with an exception
 * pending when protobuf is not visible to the caller's class loader. */
static const cg_bytestring_cache *cg_bs_get(JNIEnv *env)
{
    cg_bytestring_cache *c = atomic_load_explicit(&cg_bs_cache, memory_order_acquire);
    if (c != NULL) return c;
    cg_bytestring_cache *mine = cg_bs_cache_build(env);
    if (mine == NULL) {
        cg_throw(env, CG_JEXC_ILLEGAL_STATE,
                 "class com.google.protobuf.ByteString is not visible to the class loader of "
                 "the calling class: put protobuf-java on its classpath");
        return NULL;
    }
    cg_bytestring_cache *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&cg_bs_cache, &expected, mine,
                                                memory_order_acq_rel, memory_order_acquire))
        return mine;
    cg_bs_cache_free(env, mine); /* another thread won; use its cache */
    return expected;
}

/* ---- init / fini ----------------------------------------------------- */

static void cg_exc_classes_free(JNIEnv *env)
{
    for (int i = 0; i < CG_JEXC_COUNT_; i++) {
        if (cg_exc_classes[i] != NULL) (*env)->DeleteGlobalRef(env, cg_exc_classes[i]);
        cg_exc_classes[i] = NULL;
    }
}

int cg_jni_init(JNIEnv *env)
{
    for (int i = 0; i < CG_JEXC_COUNT_; i++) {
        jclass local = (*env)->FindClass(env, cg_exc_names[i]);
        if (local == NULL) goto unwind; /* exception left pending for the JVM */
        cg_exc_classes[i] = (jclass)(*env)->NewGlobalRef(env, local);
        (*env)->DeleteLocalRef(env, local);
        if (cg_exc_classes[i] == NULL) goto unwind;
    }
    /* Optional now: protobuf may live in a loader we cannot see from here. */
    if (atomic_load_explicit(&cg_bs_cache, memory_order_acquire) == NULL) {
        cg_bytestring_cache *c = cg_bs_cache_build(env);
        cg_bytestring_cache *expected = NULL;
        if (c != NULL &&
            !atomic_compare_exchange_strong_explicit(&cg_bs_cache, &expected, c,
                                                     memory_order_acq_rel, memory_order_acquire))
            cg_bs_cache_free(env, c);
    }
    return 0;
unwind:
    cg_exc_classes_free(env);
    return -1;
}

void cg_jni_fini(JNIEnv *env)
{
    cg_bs_cache_free(env, atomic_exchange_explicit(&cg_bs_cache, NULL, memory_order_acq_rel));
    cg_exc_classes_free(env);
}

/* ---- exceptions -------------------------------------------------------- */

static int cg_throw_msg(JNIEnv *env, cg_jexc kind, const char *msg)
{
    if ((unsigned)kind >= (unsigned)CG_JEXC_COUNT_) kind = CG_JEXC_RUNTIME;
    jclass cls = cg_exc_classes[kind];
    if (cls != NULL) {
        (*env)->ThrowNew(env, cls, msg);
        return 1;
    }
    /* Only reachable if a native runs without a successful JNI_OnLoad. */
    jclass local = (*env)->FindClass(env, cg_exc_names[kind]);
    if (local != NULL) {
        (*env)->ThrowNew(env, local, msg);
        (*env)->DeleteLocalRef(env, local);
    }
    return 1;
}

int cg_throw(JNIEnv *env, cg_jexc kind, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0) msg[0] = '\0';
    return cg_throw_msg(env, kind, msg);
}

cg_jexc cg_jexc_for_status(cg_status st)
{
    switch (st) {
    case CG_E_INVALID_ARG:
    case CG_E_OVERFLOW:
    case CG_E_TOO_LARGE:
    case CG_E_BUFFER_TOO_SMALL:
    case CG_E_BAD_TEXTURE:
    case CG_E_NO_DEVICE: /* the caller named a device (UUID) that is not there */
        return CG_JEXC_ILLEGAL_ARGUMENT;
    case CG_E_NO_MEMORY:
        return CG_JEXC_OOM;
    case CG_E_UNSUPPORTED:
        return CG_JEXC_UNSUPPORTED;
    case CG_E_BAD_STATE:
    case CG_E_NO_CONTEXT:
    case CG_E_ALREADY_INITIALIZED:
    case CG_E_NOT_INITIALIZED:
    case CG_E_CHANNEL_ABSENT:
    case CG_E_CHANNEL_CORRUPT:
    case CG_E_CHANNEL_CLOSED:
        return CG_JEXC_ILLEGAL_STATE;
    case CG_OK:
    case CG_E_GL:
    case CG_E_VULKAN:
    case CG_E_CUDA:
    case CG_E_PNG:
    case CG_E_PLATFORM:
    default:
        return CG_JEXC_RUNTIME;
    }
}

int cg_throw_status(JNIEnv *env, cg_status st, const char *what, const char *detail)
{
    if (what == NULL) what = "native call";
    if (detail != NULL && detail[0] != '\0')
        return cg_throw(env, cg_jexc_for_status(st), "%s: %s (%s): %s", what, cg_strerror(st),
                        cg_status_name(st), detail);
    return cg_throw(env, cg_jexc_for_status(st), "%s: %s (%s)", what, cg_strerror(st),
                    cg_status_name(st));
}

/* ---- argument checks --------------------------------------------------- */

int cg_jni_check_dims(JNIEnv *env, const char *what, jint w, jint h)
{
    cg_err why;
    if (cg_check_dims_named(what, (int)w, (int)h, &why) != CG_OK)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT, "%s", why.text);
    return 0;
}

int cg_jni_check_texture(JNIEnv *env, const char *what, const char *name, jint id)
{
    if (id <= 0)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT, "%s: %s %d is not a texture name", what,
                        name, (int)id);
    return 0;
}

int cg_jni_check_unsigned(JNIEnv *env, const char *what, const char *name, jint v)
{
    if (v < 0)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT, "%s: %s %d is negative", what, name, (int)v);
    return 0;
}

int cg_jni_check_pid(JNIEnv *env, const char *what, jint pid)
{
    if (pid <= 0)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT, "%s: pythonPid %d is not a process id",
                        what, (int)pid);
    return 0;
}

int cg_jni_check_byte_mode(JNIEnv *env, jint mode)
{
    switch (mode) {
    case CG_ENC_RAW:
    case CG_ENC_PNG:
        return 0;
    case CG_ENC_ZEROCOPY_TORCH:
    case CG_ENC_ZEROCOPY_JAX:
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "encoding mode %d (%s) is a zero-copy mode and produces no bytes; use RAW "
                        "(0) or PNG (1) here, or the zero-copy entry points",
                        (int)mode, mode == CG_ENC_ZEROCOPY_TORCH ? "ZEROCOPY_TORCH" : "ZEROCOPY_JAX");
    default:
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "unknown encoding mode %d: expected RAW (0) or PNG (1)", (int)mode);
    }
}

int cg_jni_direct_buffer(JNIEnv *env, jobject buf, size_t need, const char *what, uint8_t **out)
{
    *out = NULL;
    if (buf == NULL) return cg_throw(env, CG_JEXC_NULL_POINTER, "%s is null", what);
    /* -1 capacity / NULL address: a heap buffer (or any non-direct Buffer). */
    jlong cap = (*env)->GetDirectBufferCapacity(env, buf);
    if (cap < 0)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s is not a direct ByteBuffer (heap buffers are not supported; use "
                        "ByteBuffer.allocateDirect or a mapped buffer)",
                        what);
    if ((unsigned long long)cap < (unsigned long long)need)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s capacity %lld is below the %zu bytes required", what, (long long)cap,
                        need);
    void *addr = (*env)->GetDirectBufferAddress(env, buf);
    if (addr == NULL)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s is not a direct ByteBuffer with an address (heap buffers are not "
                        "supported; use ByteBuffer.allocateDirect or a mapped buffer)",
                        what);
    *out = addr;
    return 0;
}

/* ---- ByteString -------------------------------------------------------- */

jbyteArray cg_jni_new_bytes(JNIEnv *env, size_t len)
{
    if (len > (size_t)INT32_MAX) {
        cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                 "output of %zu bytes exceeds the largest Java array (%d bytes)", len, INT32_MAX);
        return NULL;
    }
    jbyteArray arr = (*env)->NewByteArray(env, (jsize)len);
    if (arr == NULL && !(*env)->ExceptionCheck(env))
        cg_throw(env, CG_JEXC_OOM, "cannot allocate a byte[%zu]", len);
    return arr;
}

jobject cg_jni_wrap_bytes(JNIEnv *env, jbyteArray arr)
{
    if (arr == NULL) {
        cg_throw(env, CG_JEXC_NULL_POINTER, "byte array to wrap is null");
        return NULL;
    }
    const cg_bytestring_cache *c = cg_bs_get(env);
    if (c == NULL) return NULL;
    jobject bs = c->unsafe_wrap != NULL
                     ? (*env)->CallStaticObjectMethod(env, c->unsafe_ops, c->unsafe_wrap, arr)
                     : (*env)->CallStaticObjectMethod(env, c->bytestring, c->copy_from, arr);
    if ((*env)->ExceptionCheck(env)) {
        if (bs != NULL) (*env)->DeleteLocalRef(env, bs);
        return NULL;
    }
    if (bs == NULL) cg_throw(env, CG_JEXC_RUNTIME, "ByteString creation returned null");
    return bs;
}

jobject cg_jni_bytestring_copy(JNIEnv *env, const uint8_t *data, size_t len)
{
    if (data == NULL && len != 0) {
        cg_throw(env, CG_JEXC_NULL_POINTER, "ByteString source data is null");
        return NULL;
    }
    jbyteArray arr = cg_jni_new_bytes(env, len);
    if (arr == NULL) return NULL;
    if (len != 0) {
        (*env)->SetByteArrayRegion(env, arr, 0, (jsize)len, (const jbyte *)data);
        if ((*env)->ExceptionCheck(env)) {
            (*env)->DeleteLocalRef(env, arr);
            return NULL;
        }
    }
    jobject bs = cg_jni_wrap_bytes(env, arr);
    (*env)->DeleteLocalRef(env, arr);
    return bs;
}

/* ---- singletons ---------------------------------------------------------- */

cg_status cg_jni_singleton_lock(cg_jni_singleton *s, cg_status (*create)(void **))
{
    pthread_mutex_lock(&s->lock);
    if (s->ctx || !create) return CG_OK;
    return create(&s->ctx);
}

void cg_jni_singleton_unlock(cg_jni_singleton *s)
{
    pthread_mutex_unlock(&s->lock);
}

jobject cg_jni_publish_handle(JNIEnv *env, const uint8_t *handle, size_t len,
                              void (*undo)(void *), void *ctx)
{
    jobject result = cg_jni_bytestring_copy(env, handle, len);
    if (result == NULL && undo) undo(ctx);
    return result;
}

/* ---- zero-copy v2 rings ---------------------------------------------------- */

jobject cg_jni_ring_init(JNIEnv *env, cg_jni_singleton *s, const char *what,
                         cg_jni_ring_make_fn make, void *arg, cg_status unsupported_status)
{
    cg_err why = {""};
    uint8_t tmpl[CG_JNI_DESC_MAX];
    size_t len = 0;
    cg_jni_singleton_lock(s, NULL);
    cg_status st;
    if (s->ctx) {
        st = cg_fail(&why, CG_E_ALREADY_INITIALIZED, "a ring exists: call destroyImpl first");
    } else {
        void *ctx = NULL;
        st = make(arg, &ctx, tmpl, &len, &why);
        if (ctx) s->ctx = ctx;
    }
    cg_jni_singleton_unlock(s);
    if (st != CG_OK && st == unsupported_status)
        return cg_throw(env, CG_JEXC_UNSUPPORTED, "%s: %s: %s", what, cg_status_name(st), why.text),
               NULL;
    if (st != CG_OK) return cg_throw_status(env, st, what, why.text), NULL;
    return cg_jni_bytestring_copy(env, tmpl, len);
}

jobject cg_jni_ring_frame(JNIEnv *env, cg_jni_singleton *s, const char *what,
                          cg_jni_ring_step_fn step, void *arg)
{
    uint8_t desc[CG_JNI_DESC_MAX];
    size_t len = 0;
    cg_err why = {""};
    cg_jni_singleton_lock(s, NULL);
    cg_status st = s->ctx ? step(s->ctx, arg, desc, &len, &why)
                          : cg_fail(&why, CG_E_NOT_INITIALIZED, "call initImpl first");
    cg_jni_singleton_unlock(s);
    if (st == CG_E_RING_FULL) return NULL; /* skipped: documented, not an error */
    if (st != CG_OK) return cg_throw_status(env, st, what, why.text), NULL;
    return cg_jni_bytestring_copy(env, desc, len);
}

/* get(ctx, v) under s's lock; 0 with IllegalStateException pending without a ring. */
static int ring_read(JNIEnv *env, cg_jni_singleton *s, const char *what,
                     void (*get)(void *ctx, uint64_t *v), uint64_t *v)
{
    cg_jni_singleton_lock(s, NULL);
    int have = s->ctx != NULL;
    if (have) get(s->ctx, v);
    cg_jni_singleton_unlock(s);
    if (!have) cg_throw_status(env, CG_E_NOT_INITIALIZED, what, "call initImpl first");
    return have;
}

jint cg_jni_ring_value(JNIEnv *env, cg_jni_singleton *s, const char *what,
                       void (*get)(void *ctx, uint64_t *v))
{
    uint64_t v[1] = {0};
    return ring_read(env, s, what, get, v) ? (jint)v[0] : 0;
}

jint cg_jni_copy_path(uint32_t desc_format, int copy_path, int rgb_staging)
{
    if (desc_format != CG_ZC_FORMAT_R8G8B8_UNORM) return (jint)copy_path;
    return rgb_staging ? CG_JNI_COPY_PATH_RGB8_STAGING : CG_JNI_COPY_PATH_RGB8;
}

jlongArray cg_jni_ring_counters(JNIEnv *env, cg_jni_singleton *s, const char *what,
                                void (*get)(void *ctx, uint64_t *v), size_t n)
{
    uint64_t v[16] = {0};
    if (n > 16) n = 16;
    if (!ring_read(env, s, what, get, v)) return NULL;
    jlongArray out = (*env)->NewLongArray(env, (jsize)n);
    if (!out) return NULL; /* OutOfMemoryError pending */
    jlong j[16];
    for (size_t i = 0; i < n; i++) j[i] = (jlong)v[i];
    (*env)->SetLongArrayRegion(env, out, 0, (jsize)n, j);
    return out;
}

void cg_jni_ring_destroy(cg_jni_singleton *s, void (*destroy)(void *))
{
    cg_jni_singleton_lock(s, NULL);
    if (s->ctx) destroy(s->ctx);
    s->ctx = NULL;
    cg_jni_singleton_unlock(s);
}

void cg_jni_ring_release(JNIEnv *env, cg_jni_singleton *s, const char *what,
                         cg_jni_ring_release_fn release)
{
    cg_err why = {""};
    cg_jni_singleton_lock(s, NULL);
    cg_status st = s->ctx ? release(s->ctx, &why) : CG_OK;
    if (st == CG_OK) s->ctx = NULL;
    cg_jni_singleton_unlock(s);
    if (st != CG_OK) cg_throw_status(env, st, what, why.text);
}
