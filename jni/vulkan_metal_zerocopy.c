/*
 * vulkan_metal_zerocopy.c - natives of com.kyhsgeekcode.minecraftenv.VulkanMetalZerocopy
 * (macOS): a shared IOSurface for MoltenVK to import, and its mach port for
 * the Python process.
 *
 * The same file builds on every platform; src/metal picks the platform
 * table. Order of checks in every native, as documented in README:
 *   1. arguments (IllegalArgumentException naming the bad value),
 *   2. platform (UnsupportedOperationException "macOS-only" on any build
 *      that is not for Apple),
 *   3. state (IllegalStateException for a handle that is not a live
 *      surface of this library),
 *   4. the platform call (RuntimeException carrying the native error).
 * So bad input is reported the same way on Linux and on a Mac.
 *
 * Handles: the `long` is the IOSurfaceRef value (the mod passes it to
 * VkImportMetalIOSurfaceInfoEXT). A registry maps it back to the surface we
 * created; a forged or stale value is refused, never dereferenced, and a
 * second destroy is a no-op.
 */
#include <pthread.h>

#include "cg_jni.h"
#include "cg_metal.h"
#include "com_kyhsgeekcode_minecraftenv_VulkanMetalZerocopy.h" /* javac -h */

/* jni/ is the one layer allowed process-wide state: the Java object is a
 * Kotlin singleton, so its surfaces live here, behind one lock. */
static cg_metal_registry g_surfaces;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* Nonzero (exception pending) when `handle` cannot be a surface handle. */
static int check_handle(JNIEnv *env, const char *what, jlong handle)
{
    if (handle == 0 || handle == -1) {
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: ioSurfacePtr %lld is not a surface handle (0 and -1 never are)", what,
                        (long long)handle);
    }
    return 0;
}

/* Nonzero (UnsupportedOperationException pending) when this build has no
 * IOSurface platform. */
static int check_platform(JNIEnv *env, const char *what)
{
    const cg_metal_platform *pf = cg_metal_platform_native();
    cg_err err = {""};
    cg_status st = pf->available(pf, &err);
    if (st != CG_OK) return cg_throw_status(env, st, what, err.text);
    return 0;
}

JNIEXPORT jlong JNICALL
Java_com_kyhsgeekcode_minecraftenv_VulkanMetalZerocopy_createSharedIOSurfaceImpl(JNIEnv *env,
                                                                                  jobject thiz,
                                                                                  jint width,
                                                                                  jint height)
{
    (void)thiz;
    static const char what[] = "createSharedIOSurfaceImpl";
    if (cg_jni_check_dims(env, "IOSurface", width, height)) return 0;
    if (check_platform(env, what)) return 0;

    cg_err err = {""};
    cg_metal_surface *s = NULL;
    cg_status st = cg_metal_surface_create(cg_metal_platform_native(), width, height,
                                           CG_METAL_FORMAT_RGBA, &s, &err);
    if (st != CG_OK) return cg_throw_status(env, st, what, err.text), 0;

    pthread_mutex_lock(&g_lock);
    st = cg_metal_registry_add(&g_surfaces, s);
    pthread_mutex_unlock(&g_lock);
    if (st != CG_OK) {
        cg_metal_surface_destroy(s);
        cg_throw(env, CG_JEXC_ILLEGAL_STATE,
                 "%s: %d IOSurfaces are alive already; destroy some with destroyIOSurfaceImpl",
                 what, CG_METAL_MAX_SURFACES);
        return 0;
    }
    return (jlong)cg_metal_surface_key(s);
}

JNIEXPORT jobject JNICALL
Java_com_kyhsgeekcode_minecraftenv_VulkanMetalZerocopy_createMachPortForIOSurfaceImpl(
    JNIEnv *env, jobject thiz, jlong ioSurfacePtr, jint pythonPid)
{
    (void)thiz;
    static const char what[] = "createMachPortForIOSurfaceImpl";
    if (check_handle(env, what, ioSurfacePtr)) return NULL;
    if (cg_jni_check_pid(env, what, pythonPid)) return NULL;
    if (check_platform(env, what)) return NULL;

    cg_err detail = {""};
    uint32_t port = 0;
    cg_status st = CG_E_NOT_INITIALIZED;
    pthread_mutex_lock(&g_lock);
    cg_metal_surface *s = cg_metal_registry_find(&g_surfaces, (uint64_t)ioSurfacePtr);
    if (s != NULL) {
        st = cg_metal_surface_export_port(s, (int)pythonPid, &port);
        if (st != CG_OK) cg_fail_from(&detail, st, cg_metal_surface_error(s));
    }
    pthread_mutex_unlock(&g_lock);
    if (s == NULL) {
        cg_throw(env, CG_JEXC_ILLEGAL_STATE,
                 "%s: ioSurfacePtr 0x%llx is not a live IOSurface of this library (never created "
                 "by createSharedIOSurfaceImpl, or destroyed already)",
                 what, (unsigned long long)ioSurfacePtr);
        return NULL;
    }
    if (st != CG_OK) return cg_throw_status(env, st, what, detail.text), NULL;

    uint8_t bytes[CG_METAL_PORT_BYTES];
    cg_metal_port_bytes(port, bytes);
    return cg_jni_bytestring_copy(env, bytes, sizeof bytes);
}

JNIEXPORT void JNICALL
Java_com_kyhsgeekcode_minecraftenv_VulkanMetalZerocopy_destroyIOSurfaceImpl(JNIEnv *env,
                                                                             jobject thiz,
                                                                             jlong ioSurfacePtr)
{
    (void)thiz;
    static const char what[] = "destroyIOSurfaceImpl";
    if (check_handle(env, what, ioSurfacePtr)) return;
    if (check_platform(env, what)) return;
    pthread_mutex_lock(&g_lock);
    /* CG_E_NOT_INITIALIZED (unknown or destroyed already) is ignored:
     * destroying twice is harmless by contract. */
    (void)cg_metal_registry_destroy(&g_surfaces, (uint64_t)ioSurfacePtr);
    pthread_mutex_unlock(&g_lock);
}
