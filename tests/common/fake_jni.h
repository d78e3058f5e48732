/*
 * fake_jni.h - test-only: a fake JNIEnv with just the functions
 * libnative-lib calls (any other is NULL, so a call to one crashes the
 * test), for running the natives without a JVM: a cross-built library under
 * its emulator (tests/ship/jni_harness.c), the Windows DLL's GL natives on
 * a WGL context under Wine (tests/wgl/test_gl_wgl.c). Every jobject is a
 * `fake`; ByteStrings come back as their byte[]. Single-threaded use, or
 * one thread at a time.
 */
#ifndef FAKE_JNI_H
#define FAKE_JNI_H

#include <jni.h>

typedef struct fake {
    const char *cls; /* class name, for classes */
    jbyte *bytes;    /* byte[] contents */
    jfloat *floats;  /* float[] contents */
    jsize len;
    void *addr; /* direct buffer */
    jlong cap;
} fake;
#define F(o) ((fake *)(o))

extern JNIEnv *fake_env;
/* The last exception thrown (class, message) and whether it is pending. */
extern char fake_thrown[128];
extern char fake_message[512];
extern int fake_pending;
/* Checks failed so far (expect_*). */
extern int fake_failures;

#define UNSUPPORTED "java/lang/UnsupportedOperationException"

jobject fake_object(void);
jobject fake_new_direct(void *addr, jlong cap);
jbyteArray fake_new_byte_array(jsize n);

/* The pending exception is of class cls (then printed, "ok"), else a
 * failure; clears it. */
void expect_throw(const char *what, const char *cls);
/* No exception is pending, else a failure (printed); clears it. */
void expect_no_throw(const char *what);
/* expect_throw, and an UnsupportedOperationException's message contains
 * `says` (the module's stub's sentence). */
void expect_throw_unsupported_says(const char *what, const char *cls, const char *says);

/* Load the library (a Unix path; Windows: through Wine's Z: drive) and run
 * its JNI_OnLoad with the fake VM. NULL (printed) on failure. */
void *fake_jni_load(const char *path);
/* A symbol of the loaded library, or NULL. */
void (*fake_jni_sym(void *lib, const char *name))(void);
#define LOOKUP(lib, name) ((__typeof__(&name))fake_jni_sym(lib, #name))

#endif /* FAKE_JNI_H */
