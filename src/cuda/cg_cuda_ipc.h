/*
 * cg_cuda_ipc.h - the 68-byte CUDA IPC handle of the wire format.
 *
 * Bytes 0..63: the cudaIpcMemHandle_t of the shared buffer; bytes 64..67:
 * the CUDA device ordinal as a little-endian int32. The buffer behind it is
 * height x width x 4 bytes of RGBA8, tightly packed, in the source image's
 * row order. Pure C, no CUDA types, usable without CUDA.
 */
#ifndef CG_CUDA_IPC_H
#define CG_CUDA_IPC_H

#include <stdint.h>
#include <string.h>

#define CG_CUDA_IPC_MEM_HANDLE_SIZE 64
#define CG_CUDA_IPC_HANDLE_SIZE 68

/* Write mem_handle[64] and the device ordinal into out[68]. */
static inline void cg_cuda_ipc_pack(uint8_t out[CG_CUDA_IPC_HANDLE_SIZE],
                                    const void *mem_handle, int32_t device)
{
    uint32_t d = (uint32_t)device;
    memcpy(out, mem_handle, CG_CUDA_IPC_MEM_HANDLE_SIZE);
    out[64] = (uint8_t)(d & 0xffu);
    out[65] = (uint8_t)((d >> 8) & 0xffu);
    out[66] = (uint8_t)((d >> 16) & 0xffu);
    out[67] = (uint8_t)((d >> 24) & 0xffu);
}

/* The device ordinal stored in a packed handle. */
static inline int32_t cg_cuda_ipc_device(const uint8_t h[CG_CUDA_IPC_HANDLE_SIZE])
{
    uint32_t d = (uint32_t)h[64] | ((uint32_t)h[65] << 8) | ((uint32_t)h[66] << 16) |
                 ((uint32_t)h[67] << 24);
    return (int32_t)d;
}

#endif /* CG_CUDA_IPC_H */
