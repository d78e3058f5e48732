/*
 * A cross-built libnative-lib under its emulator, without a JVM (there is
 * no JVM of the target here): native-lib.dll under Wine, the aarch64
 * libnative-lib.so under qemu-user. A fake JNIEnv with only the functions
 * the library calls (any other is NULL, so a call to one crashes the test)
 * loads the library, runs JNI_OnLoad and calls the natives. Checks: RAW
 * conversion of a hand-written frame, a zero width as
 * IllegalArgumentException, PNG as a PNG signature or as
 * UnsupportedOperationException (a build without PNG), GL capture and depth
 * as the given exception (no context: IllegalStateException; not built:
 * UnsupportedOperationException), initializeGLEW false, CUDA and macOS
 * natives as UnsupportedOperationException, and the zero-copy v2 rings:
 * VulkanZerocopyRing.initImpl with zero handles as the given exception (the
 * ring's check: IllegalArgumentException; not built: its module's stub,
 * UnsupportedOperationException saying what it needs), GlZerocopyRing's
 * init as GL capture throws (no context, or not built), and then a frame
 * call as IllegalStateException (no ring) and destroy as nothing.
 * Usage: jni_harness <library> <png|unsupported> <java/lang/... class GL throws>
 *                    <java/lang/... class VulkanZerocopyRing.initImpl throws> [OUT_DIR]
 * With OUT_DIR (PNG builds), frames go through RAW and PNG and are written
 * there as tests/core/png_raw_check.py reads them (the RGBA frame, the RAW
 * bytes, the PNG, manifest.txt), for the host's PIL to decode the PNG and
 * compare it with the RAW bytes of the same frame.
 */
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

#include <jni.h>

#include "com_kyhsgeekcode_minecraftenv_FramebufferCapturer.h"
#include "com_kyhsgeekcode_minecraftenv_GlZerocopyRing.h"
#include "com_kyhsgeekcode_minecraftenv_VulkanCudaZerocopy.h"
#include "com_kyhsgeekcode_minecraftenv_VulkanMetalZerocopy.h"
#include "com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing.h"
#include "test_files.h"

/* Every jobject is one of these. */
typedef struct fake {
    const char *cls; /* class name, for classes */
    jbyte *bytes;    /* byte[] contents */
    jfloat *floats;  /* float[] contents */
    jsize len;
    void *addr; /* direct buffer */
    jlong cap;
} fake;

static char thrown[128];
static char message[512];
static int pending;
static int failures;

static jobject mk(void)
{
    fake *f = calloc(1, sizeof *f);
    if (!f) exit(3);
    return (jobject)f;
}
#define F(o) ((fake *)(o))

static jclass JNICALL find_class(JNIEnv *e, const char *name)
{
    (void)e;
    jobject o = mk();
    F(o)->cls = name;
    return (jclass)o;
}
static jint JNICALL throw_new(JNIEnv *e, jclass c, const char *msg)
{
    (void)e;
    snprintf(thrown, sizeof thrown, "%s", F(c)->cls);
    snprintf(message, sizeof message, "%s", msg);
    pending = 1;
    return 0;
}
static jboolean JNICALL exception_check(JNIEnv *e)
{
    (void)e;
    return pending ? JNI_TRUE : JNI_FALSE;
}
static void JNICALL exception_clear(JNIEnv *e)
{
    (void)e;
    pending = 0;
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
    jobject o = mk();
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
    jobject o = mk();
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
    jobject o = mk();
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
static JNIEnv *env = &env_storage;

static jint JNICALL get_env(JavaVM *vm, void **out, jint version)
{
    (void)vm, (void)version;
    *out = env;
    return JNI_OK;
}
static struct JNIInvokeInterface_ vm_fns;
static JavaVM vm_storage = &vm_fns;

static void expect_throw(const char *what, const char *cls)
{
    if (!pending || strcmp(thrown, cls) != 0) {
        fprintf(stderr, "FAIL %s: wanted %s, got %s\n", what, cls, pending ? thrown : "no exception");
        failures++;
    } else {
        printf("ok   %s: %s: %s\n", what, thrown, message);
    }
    pending = 0;
}

static void expect_no_throw(const char *what)
{
    if (pending) {
        fprintf(stderr, "FAIL %s: %s: %s\n", what, thrown, message);
        failures++;
    }
    pending = 0;
}

#define UNSUPPORTED "java/lang/UnsupportedOperationException"

/* expect_throw, and an UnsupportedOperationException's message names what
 * is missing (the module's stub's sentence). */
static void expect_throw_unsupported_says(const char *what, const char *cls, const char *says)
{
    if (pending && strcmp(cls, UNSUPPORTED) == 0 && strstr(message, says) == NULL) {
        fprintf(stderr, "FAIL %s: the message lacks \"%s\": %s\n", what, says, message);
        failures++;
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
#define LOOKUP(lib, name) ((__typeof__(&name))lib_sym(lib, #name))

typedef __typeof__(&Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_convertCapturedFrameImpl)
    convert_fn;

/* One w x h RGBA frame through RAW and PNG (flipped, as a glReadPixels
 * buffer), both written to dir for the host's decoder. */
static void dump_frame(convert_fn convert, jobject self, const char *dir, FILE *manifest,
                       const char *name, int w, int h)
{
    const size_t n = (size_t)w * (size_t)h * 4;
    jbyte *rgba = malloc(n);
    if (!rgba) exit(3);
    uint32_t s = 0x2545f491u ^ (uint32_t)(w * 131 + h);
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        rgba[i] = (jbyte)(i % 8 < 4 ? s : i / 4 % 97); /* noise and a ramp, pixel by pixel */
    }
    jobject buf = new_direct(env, rgba, (jlong)n);
    jobject raw = convert(env, self, buf, w, h, w, h, 0, JNI_TRUE, JNI_FALSE, 0, 0);
    expect_no_throw("convertCapturedFrameImpl RAW for the host's decoder");
    jobject png = convert(env, self, buf, w, h, w, h, 1, JNI_TRUE, JNI_FALSE, 0, 0);
    expect_no_throw("convertCapturedFrameImpl PNG for the host's decoder");
    if (!raw || !png || !cg_test_write_file(dir, name, "rgba", rgba, n) ||
        !cg_test_write_file(dir, name, "raw", F(raw)->bytes, (size_t)F(raw)->len) ||
        !cg_test_write_file(dir, name, "jni.png", F(png)->bytes, (size_t)F(png)->len)) {
        fprintf(stderr, "FAIL %s: frame not written to %s\n", name, dir);
        failures++;
    } else {
        fprintf(manifest, "%s %d %d jni\n", name, w, h);
        printf("ok   %s: RAW and %d bytes of PNG written for the host's decoder\n", name,
               (int)F(png)->len);
    }
    free(rgba);
}

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: jni_harness <library> <png|unsupported> <class GL capture throws> "
                        "<class VulkanZerocopyRing.initImpl throws> [OUT_DIR]\n");
        return 2;
    }
    int want_png = strcmp(argv[2], "png") == 0;
    const char *gl_throws = argv[3];
    const char *vk_ring_throws = argv[4];
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

    lib_handle lib = open_lib(argv[1]);
    if (!lib) return 1;
    jint (JNICALL *onload)(JavaVM *, void *) =
        (jint (JNICALL *)(JavaVM *, void *))lib_sym(lib, "JNI_OnLoad");
    if (!onload || onload(&vm_storage, NULL) != JNI_VERSION_1_8) {
        fprintf(stderr, "FAIL JNI_OnLoad\n");
        return 1;
    }
    jobject self = mk();

    convert_fn convert =
        LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_convertCapturedFrameImpl);
    static jbyte rgba[16] = {1, 2, 3, -1, 4, 5, 6, 0, 7, 8, 9, 0, 10, 11, 12, 0};
    static const jbyte want[12] = {7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6};
    jobject buf = new_direct(env, rgba, 16);
    jobject out = convert(env, self, buf, 2, 2, 2, 2, 0, JNI_TRUE, JNI_FALSE, 0, 0);
    expect_no_throw("convertCapturedFrameImpl RAW");
    if (!out || F(out)->len != 12 || memcmp(F(out)->bytes, want, 12) != 0) {
        fprintf(stderr, "FAIL RAW bytes\n");
        failures++;
    } else {
        printf("ok   convertCapturedFrameImpl RAW: 12 bytes as written\n");
    }
    convert(env, self, buf, 0, 2, 2, 2, 0, JNI_TRUE, JNI_FALSE, 0, 0);
    expect_throw("convertCapturedFrameImpl width 0", "java/lang/IllegalArgumentException");
    out = convert(env, self, buf, 2, 2, 2, 2, 1, JNI_TRUE, JNI_FALSE, 0, 0);
    if (want_png) {
        static const jbyte sig[8] = {-119, 'P', 'N', 'G', '\r', '\n', 26, '\n'};
        expect_no_throw("convertCapturedFrameImpl PNG");
        int ok = out && F(out)->len > 8 && memcmp(F(out)->bytes, sig, 8) == 0;
        printf("%s convertCapturedFrameImpl PNG: %d bytes\n", ok ? "ok  " : "FAIL",
               out ? (int)F(out)->len : -1);
        failures += !ok;
    } else {
        expect_throw("convertCapturedFrameImpl PNG", UNSUPPORTED);
    }
    if (want_png && argc == 6) {
        char path[1024];
        snprintf(path, sizeof path, "%s/manifest.txt", argv[5]);
        FILE *manifest = fopen(path, "w");
        if (!manifest) {
            fprintf(stderr, "FAIL cannot write %s\n", path);
            return 1;
        }
        dump_frame(convert, self, argv[5], manifest, "jni_1x1", 1, 1);
        dump_frame(convert, self, argv[5], manifest, "jni_odd_37x5", 37, 5);
        dump_frame(convert, self, argv[5], manifest, "jni_640x360", 640, 360);
        failures += fclose(manifest) != 0;
    }

    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_captureFramebufferImpl)(
        env, self, 1, 4, 4, 4, 4, 0, JNI_FALSE, JNI_FALSE, 0, 0);
    expect_throw("captureFramebufferImpl", gl_throws);
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_captureDepthImpl)(
        env, self, 1, 4, 4, JNI_TRUE, 0.1f, 100.0f, JNI_FALSE);
    expect_throw("captureDepthImpl", gl_throws);
    jboolean glew = LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_initializeGLEW)(env, self);
    expect_no_throw("initializeGLEW");
    if (glew != JNI_FALSE) {
        fprintf(stderr, "FAIL initializeGLEW returned true without GL\n");
        failures++;
    }
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_initializeZerocopyImpl)(
        env, self, 4, 4, 0);
    expect_throw("initializeZerocopyImpl", UNSUPPORTED);
    jbyteArray uuid = new_byte_array(env, 16);
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_VulkanCudaZerocopy_importVulkanMemoryAndInitCudaIpcImpl)(
        env, self, 4, 4096, uuid, 4, 4, JNI_TRUE);
    expect_throw("importVulkanMemoryAndInitCudaIpcImpl", UNSUPPORTED);
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_VulkanMetalZerocopy_createSharedIOSurfaceImpl)(
        env, self, 4, 4);
    expect_throw("createSharedIOSurfaceImpl", UNSUPPORTED);

    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_initImpl)(
        env, self, 0, 0, 0, 0, 0, 0, 4, 4, 0, 1, 0, JNI_FALSE);
    expect_throw_unsupported_says("VulkanZerocopyRing.initImpl", vk_ring_throws,
                                  "zero-copy v2 needs Linux");
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_publishImpl)(env, self, 1, 0);
    expect_throw("VulkanZerocopyRing.publishImpl without a ring", "java/lang/IllegalStateException");
    jint deferred =
        LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_deferredCountImpl)(env, self);
    expect_no_throw("VulkanZerocopyRing.deferredCountImpl");
    if (deferred != 0) {
        fprintf(stderr, "FAIL VulkanZerocopyRing.deferredCountImpl: %d without a ring\n", (int)deferred);
        failures++;
    }
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_destroyImpl)(env, self);
    expect_no_throw("VulkanZerocopyRing.destroyImpl without a ring");
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_initImpl)(env, self, 4, 4, 0, 0, 0);
    expect_throw_unsupported_says("GlZerocopyRing.initImpl", gl_throws,
                                  "zero-copy v2 for GL needs Linux");
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_publishImpl)(env, self, 1);
    expect_throw("GlZerocopyRing.publishImpl without a ring", "java/lang/IllegalStateException");
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_destroyImpl)(env, self);
    expect_no_throw("GlZerocopyRing.destroyImpl without a ring");

    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("%s: every native behaves as documented for this platform\n", argv[1]);
    return 0;
}
