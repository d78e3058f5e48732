/*
 * vulkan_cuda_zerocopy.c - com.kyhsgeekcode.minecraftenv.VulkanCudaZerocopy:
 * the mod's Vulkan zero-copy path. The game exports the VkDeviceMemory of
 * an RGBA8 image; the build's GPU backend (cg_gpu_backend.h: CUDA) imports
 * it and hands back the IPC handle of a shared buffer that each
 * copyImportedArrayToCudaSharedMemoryImpl call fills.
 *
 * Handle ownership: Java holds an fd as a number and cannot close one we
 * refuse, so every valid handle given to importVulkanMemoryAndInitCudaIpcImpl
 * is the library's from that moment, whatever the outcome (bad UUID, bad
 * size, a second import, no CUDA, an import failure); only a value that is
 * not a handle at all (-1, 0, out of range) is left alone.
 *
 * The exported allocation is taken to be dedicated to a colour-attachment
 * image (what an exportable render target on NVIDIA is), so the import
 * passes the dedicated and colour-attachment flags.
 */
#include <string.h>

#include "cg_gpu_backend.h"
#include "cg_jni.h"
#include "cg_oshandle.h"
#include "com_kyhsgeekcode_minecraftenv_VulkanCudaZerocopy.h" /* javac -h */

static cg_jni_singleton g_import = CG_JNI_SINGLETON_INIT;

/* A handle we now own but will not import: close it. */
static void drop_handle(const cg_ext_memory_desc *d)
{
    if (cg_ext_memory_handle_is_valid(d->handle_type, d->handle))
        cg_os_handle_close(d->handle_type == CG_EXT_HANDLE_OPAQUE_WIN32, d->handle);
}

JNIEXPORT jobject JNICALL
Java_com_kyhsgeekcode_minecraftenv_VulkanCudaZerocopy_importVulkanMemoryAndInitCudaIpcImpl(
    JNIEnv *env, jobject thiz, jlong osHandle, jlong allocationSize, jbyteArray deviceUUID,
    jint width, jint height, jboolean isWin32)
{
    (void)thiz;
    static const char what[] = "importVulkanMemoryAndInitCudaIpcImpl";
    cg_ext_memory_desc d;
    memset(&d, 0, sizeof d);
    d.handle_type = isWin32 ? CG_EXT_HANDLE_OPAQUE_WIN32 : CG_EXT_HANDLE_OPAQUE_FD;
    d.handle = (int64_t)osHandle;
    d.allocation_size = allocationSize > 0 ? (uint64_t)allocationSize : 0;
    d.width = width;
    d.height = height;
    d.dedicated = 1;
    d.color_attachment = 1;

    /* The UUID is a Java array: its checks live here; every other check is
     * the descriptor's (cg_ext_memory_check_desc). Any refusal closes a
     * valid handle. */
    jsize uuid_len = deviceUUID ? (*env)->GetArrayLength(env, deviceUUID) : 0;
    if (deviceUUID == NULL || uuid_len != CG_DEVICE_UUID_SIZE) {
        drop_handle(&d);
        if (deviceUUID == NULL)
            return cg_throw(env, CG_JEXC_NULL_POINTER, "%s: deviceUUID is null", what), NULL;
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: deviceUUID has %d bytes; a Vulkan/CUDA device UUID has %d", what,
                        (int)uuid_len, CG_DEVICE_UUID_SIZE),
               NULL;
    }
    (*env)->GetByteArrayRegion(env, deviceUUID, 0, CG_DEVICE_UUID_SIZE, (jbyte *)d.device_uuid);
    cg_err why = {""};
    cg_status st = allocationSize < 0 ? cg_fail(&why, CG_E_INVALID_ARG,
                                               "allocationSize %lld is negative",
                                               (long long)allocationSize)
                                      : cg_ext_memory_check_desc(&d, &why);
    if (st != CG_OK) {
        drop_handle(&d);
        return cg_throw_status(env, st, what, why.text), NULL;
    }

    const cg_gpu_backend *be = cg_gpu_backend_get();
    uint8_t handle[CG_GPU_HANDLE_MAX_SIZE];
    jobject result = NULL;
    st = cg_jni_singleton_lock(&g_import, be->import_create);
    if (st != CG_OK) {
        /* No context to import into: the handle is ours all the same. */
        drop_handle(&d);
        cg_fail(&why, st, "cannot allocate the import context");
    } else {
        /* init also refuses a second import (closing the handle it owns). */
        st = be->import_init(g_import.ctx, &d, handle);
        if (st == CG_E_ALREADY_INITIALIZED)
            cg_fail(&why, st, "an import is live: call destroyCudaImportImpl first (the handle "
                              "was closed)");
        else if (st != CG_OK)
            cg_fail_from(&why, st, be->import_error(g_import.ctx));
        else
            result = cg_jni_publish_handle(env, handle, be->handle_size, be->import_reset,
                                           g_import.ctx);
    }
    cg_jni_singleton_unlock(&g_import);
    if (st != CG_OK) return cg_throw_status(env, st, what, why.text), NULL;
    return result; /* NULL: the ByteString's exception is pending */
}

JNIEXPORT void JNICALL
Java_com_kyhsgeekcode_minecraftenv_VulkanCudaZerocopy_copyImportedArrayToCudaSharedMemoryImpl(
    JNIEnv *env, jobject thiz)
{
    (void)thiz;
    const cg_gpu_backend *be = cg_gpu_backend_get();
    cg_err why = {""};
    cg_jni_singleton_lock(&g_import, NULL);
    cg_status st = be->import_live(g_import.ctx) ? be->import_copy(g_import.ctx)
                                                  : CG_E_NOT_INITIALIZED;
    if (st == CG_E_NOT_INITIALIZED)
        cg_fail(&why, st, "call importVulkanMemoryAndInitCudaIpcImpl first");
    else if (st != CG_OK)
        cg_fail_from(&why, st, be->import_error(g_import.ctx));
    cg_jni_singleton_unlock(&g_import);
    if (st != CG_OK)
        cg_throw_status(env, st, "copyImportedArrayToCudaSharedMemoryImpl", why.text);
}

JNIEXPORT void JNICALL
Java_com_kyhsgeekcode_minecraftenv_VulkanCudaZerocopy_destroyCudaImportImpl(JNIEnv *env,
                                                                           jobject thiz)
{
    (void)env;
    (void)thiz;
    cg_jni_singleton_lock(&g_import, NULL);
    if (g_import.ctx) cg_gpu_backend_get()->import_reset(g_import.ctx);
    cg_jni_singleton_unlock(&g_import);
}
