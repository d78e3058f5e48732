/* fake_jni.c - test-only: the fake JNIEnv of fake_jni.h. */
#include "fake_jni.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

char fake_thrown[128];
char fake_message[512];
int fake_pending;
int fake_failures;

jobject fake_object(void)
{
    fake *f = calloc(1, sizeof *f);
    if (!f) exit(3);
    return (jobject)f;
}

static jclass JNICALL find_class(JNIEnv *e, const char *name)
{
    (void)e;
    jobject o = fake_object();
    F(o)->cls = name;
    return (jclass)o;
}
static jint JNICALL throw_new(JNIEnv *e, jclass c, const char *msg)
{
    (void)e;
    snprintf(fake_thrown, sizeof fake_thrown, "%s", F(c)->cls);
    snprintf(fake_message, sizeof fake_message, "%s", msg);
    fake_pending = 1;
    return 0;
}
static jboolean JNICALL exception_check(JNIEnv *e)
{
    (void)e;
    return fake_pending ? JNI_TRUE : JNI_FALSE;
}
static void JNICALL exception_clear(JNIEnv *e)
{
    (void)e;
    fake_pending = 0;
}
static jobject JNICALL new_global_ref(JNIEnv *e, jobject o)
{
    (void)e;
    return o;
}
static void JNICALL delete_ref(JNIEnv *e, jobject o)
{
    (void)e, (void)o;
}
static jmethodID JNICALL get_static_method_id(JNIEnv *e, jclass c, const char *n, const char *s)
{
    (void)e, (void)c, (void)n, (void)s;
    return (jmethodID)(intptr_t)1;
}
/* ByteString.copyFrom / UnsafeByteOperations.unsafeWrap: the byte[] stands in. */
static jobject JNICALL call_static_object(JNIEnv *e, jclass c, jmethodID m, ...)
{
    (void)e, (void)c, (void)m;
    va_list ap;
    va_start(ap, m);
    jobject arr = va_arg(ap, jobject);
    va_end(ap);
    return arr;
}
static jbyteArray JNICALL new_byte_array(JNIEnv *e, jsize n)
{
    (void)e;
    jobject o = fake_object();
    F(o)->bytes = calloc((size_t)n + 1, 1);
    F(o)->len = n;
    return (jbyteArray)o;
}
static void JNICALL set_byte_region(JNIEnv *e, jbyteArray a, jsize s, jsize n, const jbyte *b)
{
    (void)e;
    memcpy(F(a)->bytes + s, b, (size_t)n);
}
static void JNICALL get_byte_region(JNIEnv *e, jbyteArray a, jsize s, jsize n, jbyte *b)
{
    (void)e;
    memcpy(b, F(a)->bytes + s, (size_t)n);
}
static jsize JNICALL array_length(JNIEnv *e, jarray a)
{
    (void)e;
    return F(a)->len;
}
static void *JNICALL get_critical(JNIEnv *e, jarray a, jboolean *copy)
{
    (void)e;
    if (copy) *copy = JNI_FALSE;
    return F(a)->bytes ? (void *)F(a)->bytes : (void *)F(a)->floats;
}
static void JNICALL release_critical(JNIEnv *e, jarray a, void *p, jint mode)
{
    (void)e, (void)a, (void)p, (void)mode;
}
static jfloatArray JNICALL new_float_array(JNIEnv *e, jsize n)
{
    (void)e;
    jobject o = fake_object();
    F(o)->floats = calloc((size_t)n + 1, sizeof(jfloat));
    F(o)->len = n;
    return (jfloatArray)o;
}
static void JNICALL set_float_region(JNIEnv *e, jfloatArray a, jsize s, jsize n, const jfloat *b)
{
    (void)e;
    memcpy(F(a)->floats + s, b, (size_t)n * sizeof *b);
}
static jobject JNICALL new_direct(JNIEnv *e, void *addr, jlong cap)
{
    (void)e;
    jobject o = fake_object();
    F(o)->addr = addr;
    F(o)->cap = cap;
    return o;
}
static void *JNICALL direct_address(JNIEnv *e, jobject b)
{
    (void)e;
    return F(b)->addr;
}
static jlong JNICALL direct_capacity(JNIEnv *e, jobject b)
{
    (void)e;
    return F(b)->cap;
}

static struct JNINativeInterface_ fns;
static JNIEnv env_storage = &fns;
JNIEnv *fake_env = &env_storage;

static jint JNICALL get_env(JavaVM *vm, void **out, jint version)
{
    (void)vm, (void)version;
    *out = fake_env;
    return JNI_OK;
}
static struct JNIInvokeInterface_ vm_fns;
static JavaVM vm_storage = &vm_fns;

void expect_throw(const char *what, const char *cls)
{
    if (!fake_pending || strcmp(fake_thrown, cls) != 0) {
        fprintf(stderr, "FAIL %s: wanted %s, got %s\n", what, cls, fake_pending ? fake_thrown : "no exception");
        fake_failures++;
    } else {
        printf("ok   %s: %s: %s\n", what, fake_thrown, fake_message);
    }
    fake_pending = 0;
}

void expect_no_throw(const char *what)
{
    if (fake_pending) {
        fprintf(stderr, "FAIL %s: %s: %s\n", what, fake_thrown, fake_message);
        fake_failures++;
    }
    fake_pending = 0;
}


/* expect_throw, and an UnsupportedOperationException's fake_message names what
 * is missing (the module's stub's sentence). */
void expect_throw_unsupported_says(const char *what, const char *cls, const char *says)
{
    if (fake_pending && strcmp(cls, UNSUPPORTED) == 0 && strstr(fake_message, says) == NULL) {
        fprintf(stderr, "FAIL %s: the fake_message lacks \"%s\": %s\n", what, says, fake_message);
        fake_failures++;
    }
    expect_throw(what, cls);
}

#ifdef _WIN32
typedef HMODULE lib_handle;
static lib_handle open_lib(const char *file)
{
    /* Wine maps the Unix root to drive Z:. */
    char path[1024];
    snprintf(path, sizeof path, "%s%s", file[0] == '/' ? "Z:" : "", file);
    HMODULE h = LoadLibraryA(path);
    if (!h) fprintf(stderr, "FAIL LoadLibrary(%s): error %lu\n", path, (unsigned long)GetLastError());
    return h;
}
static void (*lib_sym(lib_handle h, const char *name))(void)
{
    return (void (*)(void))GetProcAddress(h, name);
}
#else
typedef void *lib_handle;
static lib_handle open_lib(const char *file)
{
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) fprintf(stderr, "FAIL dlopen(%s): %s\n", file, dlerror());
    return h;
}
static void (*lib_sym(lib_handle h, const char *name))(void)
{
    void (*f)(void);
    /* POSIX: a data pointer from dlsym converts to a function pointer. */
    void *p = dlsym(h, name);
    memcpy(&f, &p, sizeof f);
    return f;
}
#endif
jobject fake_new_direct(void *addr, jlong cap)
{
    return new_direct(fake_env, addr, cap);
}

jbyteArray fake_new_byte_array(jsize n)
{
    return new_byte_array(fake_env, n);
}

void (*fake_jni_sym(void *lib, const char *name))(void)
{
    return lib_sym((lib_handle)lib, name);
}

void *fake_jni_load(const char *path)
{
    fns.FindClass = find_class;
    fns.ThrowNew = throw_new;
    fns.ExceptionCheck = exception_check;
    fns.ExceptionClear = exception_clear;
    fns.NewGlobalRef = new_global_ref;
    fns.DeleteGlobalRef = delete_ref;
    fns.DeleteLocalRef = delete_ref;
    fns.GetStaticMethodID = get_static_method_id;
    fns.CallStaticObjectMethod = call_static_object;
    fns.NewByteArray = new_byte_array;
    fns.SetByteArrayRegion = set_byte_region;
    fns.GetByteArrayRegion = get_byte_region;
    fns.GetArrayLength = array_length;
    fns.GetPrimitiveArrayCritical = get_critical;
    fns.ReleasePrimitiveArrayCritical = release_critical;
    fns.NewFloatArray = new_float_array;
    fns.SetFloatArrayRegion = set_float_region;
    fns.NewDirectByteBuffer = new_direct;
    fns.GetDirectBufferAddress = direct_address;
    fns.GetDirectBufferCapacity = direct_capacity;
    vm_fns.GetEnv = get_env;

    lib_handle lib = open_lib(path);
    if (!lib) return NULL;
    jint (JNICALL *onload)(JavaVM *, void *) =
        (jint (JNICALL *)(JavaVM *, void *))lib_sym(lib, "JNI_OnLoad");
    if (!onload || onload(&vm_storage, NULL) != JNI_VERSION_1_8) {
        fprintf(stderr, "FAIL JNI_OnLoad\n");
        return NULL;
    }
    return (void *)lib;
}
