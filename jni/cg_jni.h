/*
 * cg_jni.h - shared JNI plumbing: cached classes, exceptions, argument
 * checks and ByteString creation. Only jni/ includes <jni.h>.
 *
 * Natives are exported as Java_... symbols (JNIEXPORT; everything else is
 * hidden), so they resolve lazily whichever of the mod's classes loads the
 * library first, and a class the host lacks never makes loading fail.
 *
 * Convention for every helper below that returns int: 0 = ok; nonzero = a
 * Java exception is now pending and the native must return at once.
 */
#ifndef CG_JNI_H
#define CG_JNI_H

#include <jni.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cg_err.h"
#include "cg_frame.h"
#include "cg_status.h"

/* Exception kinds, cached as global refs in JNI_OnLoad. */
typedef enum cg_jexc {
    CG_JEXC_ILLEGAL_ARGUMENT = 0, /* java.lang.IllegalArgumentException */
    CG_JEXC_ILLEGAL_STATE,        /* java.lang.IllegalStateException */
    CG_JEXC_UNSUPPORTED,          /* java.lang.UnsupportedOperationException */
    CG_JEXC_RUNTIME,              /* java.lang.RuntimeException */
    CG_JEXC_OOM,                  /* java.lang.OutOfMemoryError */
    CG_JEXC_NULL_POINTER,         /* java.lang.NullPointerException */
    CG_JEXC_COUNT_
} cg_jexc;

/* Called from JNI_OnLoad / JNI_OnUnload (jni/onload.c). */
int cg_jni_init(JNIEnv *env);
void cg_jni_fini(JNIEnv *env);

/* Throw `kind` with a printf-style message. Always returns 1, so a native
 * can write `return cg_throw(...), NULL;` or `if (cg_throw(...)) return`. */
int cg_throw(JNIEnv *env, cg_jexc kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The exception kind a status maps to (docs/architecture.md, "Bad input"). */
cg_jexc cg_jexc_for_status(cg_status st);

/* Throw the exception matching `st`, message "<what>: <cg_strerror(st)>
 * [<detail>]" (detail may be NULL, e.g. a context's last-error text).
 * Returns 1. Must not be called with CG_OK. */
int cg_throw_status(JNIEnv *env, cg_status st, const char *what, const char *detail);

/* ---- argument checks (throw IllegalArgumentException naming the value) -- */

/* w, h in 1..CG_MAX_DIM (cg_check_dims_named, the core's check and text);
 * `what` names the pair ("source", "target"). */
int cg_jni_check_dims(JNIEnv *env, const char *what, jint w, jint h);

/* A GL texture name: id > 0. `name` introduces the value in the message
 * ("textureId" -> "<what>: textureId 0 is not a texture name"). */
int cg_jni_check_texture(JNIEnv *env, const char *what, const char *name, jint id);

/* The process id of the peer a handle is made for: pid > 0. */
int cg_jni_check_pid(JNIEnv *env, const char *what, jint pid);

/* An int Java passes where an unsigned number goes (an eye, a count): >= 0
 * ("<what>: <name> -1 is negative"); its range is the callee's to check. */
int cg_jni_check_unsigned(JNIEnv *env, const char *what, const char *name, jint v);

/* Encoding modes of the wire (docs/wire-format.md). */
enum { CG_ENC_RAW = 0, CG_ENC_PNG = 1, CG_ENC_ZEROCOPY_TORCH = 2, CG_ENC_ZEROCOPY_JAX = 3 };

/* Accepts RAW and PNG only (zero-copy modes are not byte-producing). */
int cg_jni_check_byte_mode(JNIEnv *env, jint mode);

/* A direct ByteBuffer with capacity >= need bytes; *out gets its address.
 * null -> NullPointerException; heap buffer or short capacity ->
 * IllegalArgumentException naming both numbers. Position/limit untouched. */
int cg_jni_direct_buffer(JNIEnv *env, jobject buf, size_t need, const char *what,
                         uint8_t **out);

/* ---- ByteString --------------------------------------------------------- */

/* A new byte[] of `len` bytes (OutOfMemoryError pending on failure; len
 * above INT32_MAX -> IllegalArgumentException). NULL on failure. */
jbyteArray cg_jni_new_bytes(JNIEnv *env, size_t len);

/* Wrap a byte[] the caller filled and will never touch again as a
 * ByteString without copying (UnsafeByteOperations.unsafeWrap, or
 * ByteString.copyFrom where that class is missing). NULL + exception on
 * failure. Deletes no references. */
jobject cg_jni_wrap_bytes(JNIEnv *env, jbyteArray arr);

/* A ByteString holding a copy of data[0..len). NULL + exception on failure. */
jobject cg_jni_bytestring_copy(JNIEnv *env, const uint8_t *data, size_t len);

/* ---- frames -------------------------------------------------------------- */

/* Convert p (already validated by the caller's argument checks) into a RAW
 * or PNG ByteString: RAW is written once, straight into the byte[] the
 * ByteString keeps; PNG is converted into a scratch, encoded, and copied
 * once. `what` names the native in messages. NULL + exception on failure.
 * The one path from a frame to bytes for every native. */
jobject cg_jni_frame_bytes(JNIEnv *env, const cg_convert_params *p, jint mode,
                           const char *what);

/* ---- singletons ------------------------------------------------------------
 * The mod's zero-copy objects are Kotlin singletons: each native file keeps
 * its one context in a cg_jni_singleton, behind its lock. */

typedef struct cg_jni_singleton {
    pthread_mutex_t lock;
    void *ctx; /* created on first use, kept for the process */
} cg_jni_singleton;

#define CG_JNI_SINGLETON_INIT {PTHREAD_MUTEX_INITIALIZER, NULL}

/* Lock s; when it has no context yet, create one with create(&ctx) (NULL
 * create: none is made). Returns create's status; the lock is held in every
 * case: release it with cg_jni_singleton_unlock. */
cg_status cg_jni_singleton_lock(cg_jni_singleton *s, cg_status (*create)(void **));
void cg_jni_singleton_unlock(cg_jni_singleton *s);

/* Call with the singleton held, right after a setup that produced `handle`:
 * a ByteString copy of it; when that cannot be made (OutOfMemoryError
 * pending), undo(ctx) runs, so nothing stays live whose handle Java never
 * received and a retry can set up again. */
jobject cg_jni_publish_handle(JNIEnv *env, const uint8_t *handle, size_t len,
                              void (*undo)(void *), void *ctx);

/* ---- zero-copy v2 rings ----------------------------------------------------
 * The two shapes every ring object's natives share (VulkanZerocopyRing,
 * GlZerocopyRing): one ring per process in a singleton, a descriptor of at
 * most CG_JNI_DESC_MAX bytes per call. */

#define CG_JNI_DESC_MAX 256

/* make: create the ring into *ctx and write its template descriptor to
 * desc (*len bytes). step: one frame of ctx into desc; CG_E_RING_FULL is a
 * skipped frame. Both record why they failed in why. */
typedef cg_status (*cg_jni_ring_make_fn)(void *arg, void **ctx, uint8_t *desc, size_t *len,
                                         cg_err *why);
typedef cg_status (*cg_jni_ring_step_fn)(void *ctx, void *arg, uint8_t *desc, size_t *len,
                                         cg_err *why);

/* Under s's lock: refuse a second ring (IllegalStateException), make one,
 * keep it. Returns the template as a ByteString, or NULL with the status's
 * exception pending (unsupported_status, when not CG_OK, is thrown as
 * UnsupportedOperationException whatever cg_jexc_for_status says). */
jobject cg_jni_ring_init(JNIEnv *env, cg_jni_singleton *s, const char *what,
                         cg_jni_ring_make_fn make, void *arg, cg_status unsupported_status);

/* Under s's lock: IllegalStateException without a ring; else step. Returns
 * the frame's descriptor, NULL for a skipped frame (CG_E_RING_FULL), or NULL
 * with the status's exception pending. */
jobject cg_jni_ring_frame(JNIEnv *env, cg_jni_singleton *s, const char *what,
                          cg_jni_ring_step_fn step, void *arg);

/* Under s's lock: IllegalStateException without a ring; else get(ctx, v)
 * fills n counters, returned as a long[n] (NULL with an exception pending). */
jlongArray cg_jni_ring_counters(JNIEnv *env, cg_jni_singleton *s, const char *what,
                                void (*get)(void *ctx, uint64_t *v), size_t n);

/* Under s's lock: IllegalStateException (returns 0) without a ring; else
 * get(ctx, v) fills v[0], returned as an int. */
jint cg_jni_ring_value(JNIEnv *env, cg_jni_singleton *s, const char *what,
                       void (*get)(void *ctx, uint64_t *v));

/* copyPathImpl's value (docs/zero-copy-v2/producer.md, "The compute copy"): 2 for a
 * ring of descriptor format 23 (the RGB slot format, its own compute pass),
 * 3 for one whose SRGB image is first copied into a staging buffer
 * (rgb_staging nonzero: its decode probe failed, or it cannot be sampled),
 * else the ring's cg_vk_copy_path: 0 transfer copy / glReadPixels, 1 the
 * compute copy. */
#define CG_JNI_COPY_PATH_RGB8 2
#define CG_JNI_COPY_PATH_RGB8_STAGING 3
jint cg_jni_copy_path(uint32_t desc_format, int copy_path, int rgb_staging);

/* Under s's lock: destroy(ctx) when there is a ring, and forget it. */
void cg_jni_ring_destroy(cg_jni_singleton *s, void (*destroy)(void *));

/* The same for a ring that can refuse (the GL ring off its context's
 * thread): release returns a status; a refusal keeps the ring and becomes
 * the status's exception, `what` and release's err in its message. */
typedef cg_status (*cg_jni_ring_release_fn)(void *ctx, cg_err *why);
void cg_jni_ring_release(JNIEnv *env, cg_jni_singleton *s, const char *what,
                         cg_jni_ring_release_fn release);

#endif /* CG_JNI_H */
