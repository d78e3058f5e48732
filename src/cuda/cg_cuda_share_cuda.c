/*
 * cg_cuda_share_cuda.c - shared buffer, IPC handle, device lookup and the
 * CUDA error checker (see cg_cuda_share.h).
 */
#include "cg_cuda_share.h"

#include <stdio.h>
#include <string.h>

cg_status cg_cuda_check(cg_err *err, cudaError_t e, const char *expr, const char *file,
                        int line)
{
    if (e == cudaSuccess) return CG_OK;
    cg_status st = e == cudaErrorMemoryAllocation ? CG_E_NO_MEMORY : CG_E_CUDA;
    cg_fail_call(err, st, expr, cudaGetErrorName(e), (long long)e, file, line);
    /* Clear the sticky "last error" so one failure does not leak into the
     * next, unrelated call. */
    (void)cudaGetLastError();
    return st;
}

cg_status cg_cuda_device_count(int *count, cg_err *err)
{
    *count = 0;
    cudaError_t ce = cudaGetDeviceCount(count);
    cg_status st = cg_cuda_check(err, ce, "cudaGetDeviceCount(&count)", __FILE__, __LINE__);
    if (st != CG_OK && (ce == cudaErrorNoDevice || ce == cudaErrorInsufficientDriver) && err) {
        size_t n = strlen(err->text);
        snprintf(err->text + n, sizeof err->text - n,
                 "; zero-copy needs an NVIDIA GPU with its driver (libcuda.so.1) on this "
                 "machine: use RAW or PNG capture here");
    }
    return st;
}

cg_status cg_cuda_device_by_uuid(const uint8_t uuid[CG_DEVICE_UUID_SIZE], int *device,
                                 cg_err *err)
{
    CG_RETURN_IF(!uuid || !device, CG_E_INVALID_ARG);
    int count = 0;
    cg_status st = cg_cuda_device_count(&count, err);
    if (st != CG_OK) return st;
    for (int i = 0; i < count; i++) {
        struct cudaDeviceProp prop;
        st = CG_CUDA_CHECK(err, cudaGetDeviceProperties(&prop, i));
        if (st != CG_OK) return st;
        if (memcmp(prop.uuid.bytes, uuid, CG_DEVICE_UUID_SIZE) == 0) {
            *device = i;
            return CG_OK;
        }
    }
    char hex[2 * CG_DEVICE_UUID_SIZE + 1];
    for (int i = 0; i < CG_DEVICE_UUID_SIZE; i++) snprintf(hex + 2 * i, 3, "%02x", uuid[i]);
    return cg_fail(err, CG_E_NO_DEVICE,
                 "none of the %d CUDA device(s) has the device UUID %s (no fallback to "
                 "device 0: the Vulkan/GL device must be an NVIDIA GPU that CUDA sees)",
                 count, hex);
}

cg_status cg_cuda_shared_alloc(cg_cuda_shared *sb, int device, int width, int height,
                               uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE], cg_err *err)
{
    CG_RETURN_IF(!sb || !handle, CG_E_INVALID_ARG);
    memset(sb, 0, sizeof *sb);
    CG_RETURN_IF(width <= 0 || height <= 0, CG_E_INVALID_ARG);
    size_t row = (size_t)width * 4u;
    CG_RETURN_IF((size_t)height > SIZE_MAX / row, CG_E_OVERFLOW);

    cg_status st = CG_CUDA_CHECK(err, cudaSetDevice(device));
    if (st != CG_OK) return st;
    sb->device = device;
    sb->row_bytes = row;
    sb->size = row * (size_t)height;
    sb->width = width;
    sb->height = height;
    cudaIpcMemHandle_t mh;
    if ((st = CG_CUDA_CHECK(err,
                                cudaStreamCreateWithFlags(&sb->stream, cudaStreamNonBlocking))) !=
            CG_OK ||
        (st = CG_CUDA_CHECK(err, cudaMalloc(&sb->ptr, sb->size))) != CG_OK ||
        (st = CG_CUDA_CHECK(err, cudaMemset(sb->ptr, 0, sb->size))) != CG_OK ||
        (st = CG_CUDA_CHECK(err, cudaIpcGetMemHandle(&mh, sb->ptr))) != CG_OK) {
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
                                         cg_err *err)
{
    CG_RETURN_IF(!sb || !sb->ptr || !array, CG_E_BAD_STATE);
    return CG_CUDA_CHECK(err,
                             cudaMemcpy2DFromArrayAsync(sb->ptr, sb->row_bytes, array, 0, 0,
                                                        sb->row_bytes, (size_t)sb->height,
                                                        cudaMemcpyDeviceToDevice, sb->stream));
}

cg_status cg_cuda_shared_sync(cg_cuda_shared *sb, cg_err *err)
{
    CG_RETURN_IF(!sb || !sb->stream, CG_E_BAD_STATE);
    return CG_CUDA_CHECK(err, cudaStreamSynchronize(sb->stream));
}
