/*
 * cg_cuda_import_cuda.c - Vulkan exported memory -> CUDA (cg_cuda_import.h).
 *
 * Order follows cuda-samples vulkanImageCUDA: match the device by UUID,
 * import with the allocation size from the memory requirements, map level 0
 * as a mipmapped array; teardown synchronises, then releases in reverse
 * order. Unlike the sample, nothing exits and the fd is closed when the
 * import fails.
 */
#include "cg_cuda_import.h"

#include <stdlib.h>
#include <string.h>

#include "cg_cuda_share.h"
#include "cg_oshandle.h"

struct cg_cuda_import {
    int live;   /* an import is set up */
    int failed; /* a per-frame copy failed: refuse until reset */
    cudaExternalMemory_t ext_mem;
    cudaMipmappedArray_t mipmap;
    cudaArray_t level0;
    cudaExternalSemaphore_t sem;
    cg_cuda_sem_type sem_type;
    cg_cuda_shared shared;
    cg_err err;
};

cg_status cg_cuda_import_create(cg_cuda_import **out)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = calloc(1, sizeof **out);
    return *out ? CG_OK : CG_E_NO_MEMORY;
}

void cg_cuda_import_destroy(cg_cuda_import *ci)
{
    if (!ci) return;
    cg_cuda_import_reset(ci);
    free(ci);
}

const char *cg_cuda_import_last_error(const cg_cuda_import *ci)
{
    return ci ? cg_err_text(&ci->err) : "";
}

const cg_err *cg_cuda_import_error(const cg_cuda_import *ci)
{
    return ci ? &ci->err : NULL;
}

int cg_cuda_import_is_initialized(const cg_cuda_import *ci)
{
    return ci && ci->live;
}

static void release_semaphore(cg_cuda_import *ci)
{
    if (ci->sem) {
        (void)cudaDestroyExternalSemaphore(ci->sem);
        ci->sem = NULL;
    }
}

void cg_cuda_import_reset(cg_cuda_import *ci)
{
    if (!ci) return;
    if (ci->ext_mem || ci->shared.stream || ci->sem) {
        (void)cudaSetDevice(ci->shared.device);
        /* Nothing may still read the imported memory when it goes away. */
        if (ci->shared.stream) (void)cudaStreamSynchronize(ci->shared.stream);
        release_semaphore(ci);
        if (ci->mipmap) (void)cudaFreeMipmappedArray(ci->mipmap);
        if (ci->ext_mem) (void)cudaDestroyExternalMemory(ci->ext_mem);
        cg_cuda_shared_free(&ci->shared);
        (void)cudaGetLastError();
    }
    ci->mipmap = NULL;
    ci->level0 = NULL;
    ci->ext_mem = NULL;
    ci->live = 0;
    ci->failed = 0;
}

/* Import the memory handle; on return the handle has been consumed (fd,
 * success), or closed by us (failure, or any Win32 handle). */
static cg_status import_memory(cg_cuda_import *ci, const cg_ext_memory_desc *d)
{
    int win32 = d->handle_type == CG_EXT_HANDLE_OPAQUE_WIN32;
    struct cudaExternalMemoryHandleDesc md;
    memset(&md, 0, sizeof md);
    if (win32) {
        md.type = cudaExternalMemoryHandleTypeOpaqueWin32;
        md.handle.win32.handle = (void *)(intptr_t)d->handle;
    } else {
        md.type = cudaExternalMemoryHandleTypeOpaqueFd;
        md.handle.fd = (int)d->handle;
    }
    md.size = d->allocation_size;
    md.flags = d->dedicated ? cudaExternalMemoryDedicated : 0;
    cg_status st = CG_CUDA_CHECK(&ci->err, cudaImportExternalMemory(&ci->ext_mem, &md));
    if (st != CG_OK || win32) cg_os_handle_close(win32, d->handle);
    if (st != CG_OK) ci->ext_mem = NULL;
    return st;
}

cg_status cg_cuda_import_init(cg_cuda_import *ci, const cg_ext_memory_desc *d,
                              uint8_t ipc_handle[CG_CUDA_IPC_HANDLE_SIZE])
{
    /* A valid handle is ours from here on, whatever the outcome: every
     * early return closes it (Java holds an fd as a number, and could never
     * close one we refused). */
    cg_status st = CG_OK;
    if (!ci || !ipc_handle) {
        st = CG_E_INVALID_ARG;
    } else {
        cg_err_clear(&ci->err);
        st = cg_ext_memory_check_desc(d, &ci->err);
    }
    if (st != CG_OK) {
        if (d && cg_ext_memory_handle_is_valid(d->handle_type, d->handle))
            cg_os_handle_close(d->handle_type == CG_EXT_HANDLE_OPAQUE_WIN32, d->handle);
        return st;
    }
    int win32 = d->handle_type == CG_EXT_HANDLE_OPAQUE_WIN32;
    if (ci->live) {
        st = CG_E_ALREADY_INITIALIZED;
    } else if (win32 != cg_os_handles_are_win32()) {
        st = CG_E_UNSUPPORTED;
        if (win32)
            cg_fail(&ci->err, st, "a Win32 handle cannot be imported on this platform");
        else
            cg_fail(&ci->err, st, "an fd cannot be imported on Windows");
    }
    int device = -1;
    if (st == CG_OK) st = cg_cuda_device_by_uuid(d->device_uuid, &device, &ci->err);
    if (st == CG_OK) st = CG_CUDA_CHECK(&ci->err, cudaSetDevice(device));
    if (st != CG_OK) {
        cg_os_handle_close(win32, d->handle);
        return st;
    }
    ci->shared.device = device;
    st = import_memory(ci, d);
    if (st == CG_OK) {
        struct cudaExternalMemoryMipmappedArrayDesc ad;
        memset(&ad, 0, sizeof ad);
        ad.offset = 0;
        ad.formatDesc = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
        ad.extent.width = (size_t)d->width;
        ad.extent.height = (size_t)d->height;
        ad.extent.depth = 0;
        ad.flags = d->color_attachment ? cudaArrayColorAttachment : 0;
        ad.numLevels = 1;
        st = CG_CUDA_CHECK(&ci->err,
                           cudaExternalMemoryGetMappedMipmappedArray(&ci->mipmap, ci->ext_mem, &ad));
    }
    if (st == CG_OK)
        st = CG_CUDA_CHECK(&ci->err, cudaGetMipmappedArrayLevel(&ci->level0, ci->mipmap, 0));
    if (st == CG_OK)
        st = cg_cuda_shared_alloc(&ci->shared, device, d->width, d->height, ipc_handle, &ci->err);
    if (st != CG_OK) {
        cg_cuda_shared_free(&ci->shared);
        ci->shared.device = device;
        cg_cuda_import_reset(ci);
        return st;
    }
    ci->live = 1;
    return CG_OK;
}

cg_status cg_cuda_import_semaphore(cg_cuda_import *ci, cg_cuda_sem_type type, int fd)
{
    CG_RETURN_IF(!ci, CG_E_INVALID_ARG);
    CG_TRY(cg_cuda_import_check_semaphore(type, fd));
    cg_status st = ci->live ? CG_OK : CG_E_NOT_INITIALIZED;
    if (st == CG_OK && cg_os_handles_are_win32()) st = CG_E_UNSUPPORTED;
    if (st == CG_OK) st = CG_CUDA_CHECK(&ci->err, cudaSetDevice(ci->shared.device));
    if (st != CG_OK) {
        cg_os_handle_close(0, fd);
        return st;
    }
    release_semaphore(ci);
    struct cudaExternalSemaphoreHandleDesc sd;
    memset(&sd, 0, sizeof sd);
    sd.type = type == CG_CUDA_SEM_TIMELINE_FD ? cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd
                                              : cudaExternalSemaphoreHandleTypeOpaqueFd;
    sd.handle.fd = fd;
    st = CG_CUDA_CHECK(&ci->err, cudaImportExternalSemaphore(&ci->sem, &sd));
    if (st != CG_OK) {
        ci->sem = NULL;
        cg_os_handle_close(0, fd);
        return st;
    }
    ci->sem_type = type;
    return CG_OK;
}

cg_status cg_cuda_import_copy(cg_cuda_import *ci, uint64_t wait_value)
{
    CG_RETURN_IF(!ci, CG_E_INVALID_ARG);
    CG_RETURN_IF(!ci->live, CG_E_NOT_INITIALIZED);
    CG_RETURN_IF(ci->failed, CG_E_BAD_STATE);
    cg_status st = CG_CUDA_CHECK(&ci->err, cudaSetDevice(ci->shared.device));
    if (st == CG_OK && ci->sem) {
        struct cudaExternalSemaphoreWaitParams wp;
        memset(&wp, 0, sizeof wp);
        wp.params.fence.value = ci->sem_type == CG_CUDA_SEM_TIMELINE_FD ? wait_value : 0;
        st = CG_CUDA_CHECK(&ci->err,
                           cudaWaitExternalSemaphoresAsync(&ci->sem, &wp, 1, ci->shared.stream));
    }
    if (st == CG_OK)
        st = cg_cuda_shared_copy_from_array(&ci->shared, ci->level0, &ci->err);
    if (st == CG_OK) st = cg_cuda_shared_sync(&ci->shared, &ci->err);
    if (st != CG_OK) ci->failed = 1;
    return st;
}

void *cg_cuda_import_shared_ptr(const cg_cuda_import *ci)
{
    return ci && ci->live ? ci->shared.ptr : NULL;
}

int cg_cuda_import_device(const cg_cuda_import *ci)
{
    return ci && ci->live ? ci->shared.device : -1;
}
