/*
 * vulkan_cuda_zerocopy.c - com.kyhsgeekcode.minecraftenv.VulkanCudaZerocopy:
 * the mod's Vulkan zero-copy path. The game exports the VkDeviceMemory of
 * an RGBA8 image; we import it into CUDA (src/vk_cuda/cg_cuda_import.h) and
 * hand back the 68-byte IPC handle of a shared buffer that each
 * copyImportedArrayToCudaSharedMemoryImpl call fills.
 *
 * The Kotlin object is a singleton, so its one import lives here, guarded
 * by a mutex (the only library-wide state, and it is in jni/).
 *
 * Handle ownership: a value that is no handle at all (-1, 0, an fd beyond
 * int) stays the caller's. Any other handle is the library's from the call
 * on, whatever happens next: an fd is consumed by a successful import and
 * closed by us on any failure (a bad UUID, size or allocation size, an
 * IllegalStateException for a second import, no CUDA); a Win32 handle is
 * always closed by us.
 *
 * The exported allocation is taken to be dedicated to a colour-attachment
 * image (what an exportable render target on NVIDIA is), so the import
 * passes cudaExternalMemoryDedicated and cudaArrayColorAttachment.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cg_cuda_import.h"
#include "cg_jni.h"
#include "cg_oshandle.h"
#include "com_kyhsgeekcode_minecraftenv_VulkanCudaZerocopy.h" /* javac -h */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static cg_cuda_import *g_import; /* created on first use, kept for the process */

JNIEXPORT jobject JNICALL
Java_com_kyhsgeekcode_minecraftenv_VulkanCudaZerocopy_importVulkanMemoryAndInitCudaIpcImpl(
    JNIEnv *env, jobject thiz, jlong osHandle, jlong allocationSize, jbyteArray deviceUUID,
    jint width, jint height, jboolean isWin32)
{
    (void)thiz;
    static const char what[] = "importVulkanMemoryAndInitCudaIpcImpl";
    /* Only a value that is no handle at all stays the caller's: from here
     * on the handle is ours, closed on every failure below. */
    if (osHandle == -1 || osHandle == 0)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: osHandle %lld is not a valid %s", what, (long long)osHandle,
                        isWin32 ? "Win32 handle" : "file descriptor"),
               NULL;
    if (!isWin32 && (osHandle < 0 || osHandle > INT32_MAX))
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: osHandle %lld is out of the range of a file descriptor", what,
                        (long long)osHandle),
               NULL;
    if (deviceUUID == NULL) {
        cg_os_handle_close(isWin32, (int64_t)osHandle);
        return cg_throw(env, CG_JEXC_NULL_POINTER, "%s: deviceUUID is null", what), NULL;
    }
    jsize uuid_len = (*env)->GetArrayLength(env, deviceUUID);
    if (uuid_len != 16) {
        cg_os_handle_close(isWin32, (int64_t)osHandle);
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: deviceUUID has %d bytes; a Vulkan/CUDA device UUID has 16", what,
                        (int)uuid_len),
               NULL;
    }
    if (cg_jni_check_dims(env, "image", width, height)) {
        cg_os_handle_close(isWin32, (int64_t)osHandle);
        return NULL;
    }
    uint64_t need = (uint64_t)width * (uint64_t)height * 4u;
    if (allocationSize <= 0 || (uint64_t)allocationSize < need) {
        cg_os_handle_close(isWin32, (int64_t)osHandle);
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: allocationSize %lld is smaller than the %dx%d RGBA8 image needs "
                        "(%llu bytes)",
                        what, (long long)allocationSize, (int)width, (int)height,
                        (unsigned long long)need),
               NULL;
    }

    cg_cuda_import_desc d;
    memset(&d, 0, sizeof d);
    d.handle_type = isWin32 ? CG_CUDA_HANDLE_OPAQUE_WIN32 : CG_CUDA_HANDLE_OPAQUE_FD;
    d.handle = (int64_t)osHandle;
    d.allocation_size = (uint64_t)allocationSize;
    (*env)->GetByteArrayRegion(env, deviceUUID, 0, 16, (jbyte *)d.device_uuid);
    d.width = width;
    d.height = height;
    d.dedicated = 1;
    d.color_attachment = 1;

    uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE];
    char detail[600];
    detail[0] = '\0';
    jobject result = NULL;
    pthread_mutex_lock(&g_lock);
    cg_status st = g_import ? CG_OK : cg_cuda_import_create(&g_import);
    /* The arguments are valid, so the handle is ours even when there is no
     * context to import it into. */
    if (st != CG_OK) cg_os_handle_close(d.handle_type == CG_CUDA_HANDLE_OPAQUE_WIN32, d.handle);
    /* init also refuses a second import (closing the handle it now owns). */
    if (st == CG_OK) st = cg_cuda_import_init(g_import, &d, handle);
    if (st == CG_E_ALREADY_INITIALIZED)
        snprintf(detail, sizeof detail,
                 "an import is live: call destroyCudaImportImpl first (the handle was closed)");
    else if (st != CG_OK)
        snprintf(detail, sizeof detail, "%s", cg_cuda_import_last_error(g_import));
    if (st == CG_OK) {
        /* Under the lock, so no other thread sees an import whose handle
         * Java never received; without the handle it is undone. */
        result = cg_jni_bytestring_copy(env, handle, sizeof handle);
        if (result == NULL) cg_cuda_import_reset(g_import);
    }
    pthread_mutex_unlock(&g_lock);
    if (st != CG_OK) return cg_throw_status(env, st, what, detail), NULL;
    return result; /* NULL: the ByteString's exception is pending */
}

JNIEXPORT void JNICALL
Java_com_kyhsgeekcode_minecraftenv_VulkanCudaZerocopy_copyImportedArrayToCudaSharedMemoryImpl(
    JNIEnv *env, jobject thiz)
{
    (void)thiz;
    char detail[600];
    pthread_mutex_lock(&g_lock);
    cg_status st = cg_cuda_import_is_initialized(g_import) ? cg_cuda_import_copy(g_import, 0)
                                                           : CG_E_NOT_INITIALIZED;
    snprintf(detail, sizeof detail, "%s",
             st == CG_E_NOT_INITIALIZED
                 ? "call importVulkanMemoryAndInitCudaIpcImpl first"
                 : (st != CG_OK ? cg_cuda_import_last_error(g_import) : ""));
    pthread_mutex_unlock(&g_lock);
    if (st != CG_OK)
        cg_throw_status(env, st, "copyImportedArrayToCudaSharedMemoryImpl", detail);
}

JNIEXPORT void JNICALL
Java_com_kyhsgeekcode_minecraftenv_VulkanCudaZerocopy_destroyCudaImportImpl(JNIEnv *env,
                                                                           jobject thiz)
{
    (void)env;
    (void)thiz;
    pthread_mutex_lock(&g_lock);
    cg_cuda_import_reset(g_import); /* harmless when idle or never created */
    pthread_mutex_unlock(&g_lock);
}
