/*
 * cg_cuda_share_cuda.c - shared buffer, IPC handle, device lookup and the
 * CUDA error checker (see cg_cuda_share.h).
 */
#include "cg_cuda_share.h"

#include <stdio.h>
#include <string.h>

cg_status cg_cuda_check(char *err, size_t errlen, cudaError_t e, const char *expr,
                        const char *file, int line)
{
    if (e == cudaSuccess) return CG_OK;
    if (err && errlen) {
        snprintf(err, errlen, "%s: %s (%s) at %s:%d", expr, cudaGetErrorName(e),
                 cudaGetErrorString(e), file, line);
    }
    /* Clear the sticky "last error" so one failure does not leak into the
     * next, unrelated call. */
    (void)cudaGetLastError();
    return e == cudaErrorMemoryAllocation ? CG_E_NO_MEMORY : CG_E_CUDA;
}

cg_status cg_cuda_device_count(int *count, char *err, size_t errlen)
{
    *count = 0;
    cudaError_t ce = cudaGetDeviceCount(count);
    cg_status st = cg_cuda_check(err, errlen, ce, "cudaGetDeviceCount(&count)", __FILE__, __LINE__);
    if (st != CG_OK && (ce == cudaErrorNoDevice || ce == cudaErrorInsufficientDriver) && err &&
        errlen) {
        size_t n = strlen(err);
        snprintf(err + n, errlen - n,
                 "; zero-copy needs an NVIDIA GPU with its driver (libcuda.so.1) on this "
                 "machine: use RAW or PNG capture here");
    }
    return st;
}

cg_status cg_cuda_device_by_uuid(const uint8_t uuid[16], int *device, char *err,
                                 size_t errlen)
{
    CG_RETURN_IF(!uuid || !device, CG_E_INVALID_ARG);
    int count = 0;
    cg_status st = cg_cuda_device_count(&count, err, errlen);
    if (st != CG_OK) return st;
    for (int i = 0; i < count; i++) {
        struct cudaDeviceProp prop;
        st = CG_CUDA_CHECK_LEN(err, errlen, cudaGetDeviceProperties(&prop, i));
        if (st != CG_OK) return st;
        if (memcmp(prop.uuid.bytes, uuid, 16) == 0) {
            *device = i;
            return CG_OK;
        }
    }
    if (err && errlen) {
        char hex[33];
        for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", uuid[i]);
        snprintf(err, errlen,
                 "none of the %d CUDA device(s) has the device UUID %s (no fallback to "
                 "device 0: the Vulkan/GL device must be an NVIDIA GPU that CUDA sees)",
                 count, hex);
    }
    return CG_E_NO_DEVICE;
}

cg_status cg_cuda_shared_alloc(cg_cuda_shared *sb, int device, int width, int height,
                               uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE], char *err,
                               size_t errlen)
{
    CG_RETURN_IF(!sb || !handle, CG_E_INVALID_ARG);
    memset(sb, 0, sizeof *sb);
    CG_RETURN_IF(width <= 0 || height <= 0, CG_E_INVALID_ARG);
    size_t row = (size_t)width * 4u;
    CG_RETURN_IF((size_t)height > SIZE_MAX / row, CG_E_OVERFLOW);

    cg_status st = CG_CUDA_CHECK_LEN(err, errlen, cudaSetDevice(device));
    if (st != CG_OK) return st;
    sb->device = device;
    sb->row_bytes = row;
    sb->size = row * (size_t)height;
    sb->width = width;
    sb->height = height;
    cudaIpcMemHandle_t mh;
    if ((st = CG_CUDA_CHECK_LEN(err, errlen,
                                cudaStreamCreateWithFlags(&sb->stream, cudaStreamNonBlocking))) !=
            CG_OK ||
        (st = CG_CUDA_CHECK_LEN(err, errlen, cudaMalloc(&sb->ptr, sb->size))) != CG_OK ||
        (st = CG_CUDA_CHECK_LEN(err, errlen, cudaMemset(sb->ptr, 0, sb->size))) != CG_OK ||
        (st = CG_CUDA_CHECK_LEN(err, errlen, cudaIpcGetMemHandle(&mh, sb->ptr))) != CG_OK) {
        cg_cuda_shared_free(sb);
        return st;
    }
    cg_cuda_ipc_pack(handle, &mh, (int32_t)device);
    return CG_OK;
}

void cg_cuda_shared_free(cg_cuda_shared *sb)
{
    if (!sb) return;
    if (sb->ptr || sb->stream) {
        /* Errors during teardown have nowhere to go; release what we can. */
        (void)cudaSetDevice(sb->device);
        if (sb->stream) {
            (void)cudaStreamSynchronize(sb->stream);
            (void)cudaStreamDestroy(sb->stream);
        }
        if (sb->ptr) (void)cudaFree(sb->ptr);
        (void)cudaGetLastError();
    }
    memset(sb, 0, sizeof *sb);
}

cg_status cg_cuda_shared_copy_from_array(cg_cuda_shared *sb, cudaArray_const_t array,
                                         char *err, size_t errlen)
{
    CG_RETURN_IF(!sb || !sb->ptr || !array, CG_E_BAD_STATE);
    return CG_CUDA_CHECK_LEN(err, errlen,
                             cudaMemcpy2DFromArrayAsync(sb->ptr, sb->row_bytes, array, 0, 0,
                                                        sb->row_bytes, (size_t)sb->height,
                                                        cudaMemcpyDeviceToDevice, sb->stream));
}

cg_status cg_cuda_shared_sync(cg_cuda_shared *sb, char *err, size_t errlen)
{
    CG_RETURN_IF(!sb || !sb->stream, CG_E_BAD_STATE);
    return CG_CUDA_CHECK_LEN(err, errlen, cudaStreamSynchronize(sb->stream));
}
