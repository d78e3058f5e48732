/*
 * cg_cuda_share.h - internal: the pieces every CUDA zero-copy path shares.
 *
 * The shared buffer behind the 68-byte IPC handle (a cudaMalloc base
 * pointer: cudaIpcGetMemHandle refuses imported memory), the device lookup
 * by UUID, and the one checker through which every CUDA runtime call of the
 * library goes. Included only by *_cuda.c files; the public headers never
 * expose CUDA types.
 */
#ifndef CG_CUDA_SHARE_H
#define CG_CUDA_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cg_cuda_ipc.h"
#include "cg_err.h"
#include "cg_size.h"
#include "cg_status.h"

/* The CUDA checker: CG_OK on cudaSuccess; otherwise records the call in
 * the shared shape of cg_err.h (error name, code, file:line) and returns
 * CG_E_NO_MEMORY for cudaErrorMemoryAllocation, CG_E_CUDA otherwise. */
cg_status cg_cuda_check(cg_err *err, cudaError_t e, const char *expr, const char *file,
                        int line);

#define CG_CUDA_CHECK(err, expr) cg_cuda_check((err), (expr), #expr, __FILE__, __LINE__)

/* cudaGetDeviceCount; without a driver or device the text says what the
 * machine lacks and what to use instead (CG_E_CUDA). */
cg_status cg_cuda_device_count(int *count, cg_err *err);

/* The ordinal of the CUDA device whose cudaDeviceProp.uuid equals uuid[16].
 * No CUDA at all (no driver, no device) -> CG_E_CUDA with the runtime's
 * error name; devices present but none matching -> CG_E_NO_DEVICE. There is
 * no fallback to device 0. */
cg_status cg_cuda_device_by_uuid(const uint8_t uuid[CG_DEVICE_UUID_SIZE], int *device,
                                 cg_err *err);

/* The buffer another process opens through the IPC handle, plus the
 * library's own non-blocking stream on the same device. Zero it before
 * first use; cg_cuda_shared_free on a zeroed or freed one is a no-op. */
typedef struct cg_cuda_shared {
    int device;          /* CUDA ordinal */
    void *ptr;           /* cudaMalloc base pointer, height*width*4 bytes */
    size_t size;         /* bytes */
    size_t row_bytes;    /* width*4: rows are tightly packed */
    int width, height;   /* pixels */
    cudaStream_t stream; /* the library's own stream */
} cg_cuda_shared;

/* Make `device` current, create the stream, allocate width*height*4 bytes
 * (zero-filled), and write the 68-byte handle. On failure everything is
 * released and *sb is zeroed. */
cg_status cg_cuda_shared_alloc(cg_cuda_shared *sb, int device, int width, int height,
                               uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE], cg_err *err);

/* Synchronise the stream, free the buffer and the stream, zero *sb. */
void cg_cuda_shared_free(cg_cuda_shared *sb);

/* Copy mip level 0 of `array` (the frame, RGBA8, at least width x height)
 * into the buffer, origin (0,0), row order unchanged, on sb->stream. Does
 * not synchronise. */
cg_status cg_cuda_shared_copy_from_array(cg_cuda_shared *sb, cudaArray_const_t array,
                                         cg_err *err);

/* Wait until everything queued on sb->stream has finished. */
cg_status cg_cuda_shared_sync(cg_cuda_shared *sb, cg_err *err);

#endif /* CG_CUDA_SHARE_H */
