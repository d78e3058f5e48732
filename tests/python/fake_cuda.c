/*
 * A stand-in for libcuda and libcudart with just the calls the Python
 * reader's zero-copy frame makes (python/craftground_capture/cuda_ipc.py),
 * so its ctypes declarations (a 64-byte handle passed by value, pointer
 * widths, the context push/pop around each call) are checked on a machine
 * without a GPU. "Device memory" is a host buffer whose bytes are derived
 * from the handle: byte i = handle[i % 64] ^ (i & 255). Test-only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_EXPORT __attribute__((visibility("default")))
enum { HANDLE = 64, BUF = 1 << 20, OK = 0, INVALID_VALUE = 1, INVALID_DEVICE = 101,
       INVALID_CONTEXT = 201, RT_INVALID_DEVICE = 101 };

typedef struct { unsigned char b[HANDLE]; } ipc_handle;

static unsigned char g_mem[BUF];
static int g_open, g_ctx_depth, g_device, g_inited, g_open_device = -1;
static uintptr_t g_ctx;

FAKE_EXPORT int fake_open_count(void);
FAKE_EXPORT int fake_ctx_depth(void);
FAKE_EXPORT int fake_open_device(void);
FAKE_EXPORT int cuInit(unsigned flags);
FAKE_EXPORT int cuGetErrorName(int res, const char **name);
FAKE_EXPORT int cuDeviceGet(int *dev, int ordinal);
FAKE_EXPORT int cuDevicePrimaryCtxRetain(void **ctx, int dev);
FAKE_EXPORT int cuCtxPushCurrent_v2(void *ctx);
FAKE_EXPORT int cuCtxPopCurrent_v2(void **ctx);
FAKE_EXPORT int cuIpcOpenMemHandle_v2(uint64_t *ptr, ipc_handle h, unsigned flags);
FAKE_EXPORT int cuIpcCloseMemHandle(uint64_t ptr);
FAKE_EXPORT int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t n);
FAKE_EXPORT const char *cudaGetErrorName(int res);
FAKE_EXPORT int cudaGetDevice(int *dev);
FAKE_EXPORT int cudaSetDevice(int dev);
FAKE_EXPORT int cudaIpcOpenMemHandle(void **ptr, ipc_handle h, unsigned flags);
FAKE_EXPORT int cudaIpcCloseMemHandle(void *ptr);
FAKE_EXPORT int cudaMemcpy(void *dst, const void *src, size_t n, int kind);

int fake_open_count(void) { return g_open; }
int fake_ctx_depth(void) { return g_ctx_depth; }
int fake_open_device(void) { return g_open_device; }

static void fill(const ipc_handle *h)
{
    for (size_t i = 0; i < BUF; i++) g_mem[i] = (unsigned char)(h->b[i % HANDLE] ^ (i & 255));
}

int cuInit(unsigned flags) { g_inited = 1; return flags == 0 ? OK : INVALID_VALUE; }

int cuGetErrorName(int res, const char **name)
{
    *name = res == INVALID_DEVICE ? "CUDA_ERROR_INVALID_DEVICE"
          : res == INVALID_CONTEXT ? "CUDA_ERROR_INVALID_CONTEXT" : "CUDA_ERROR_INVALID_VALUE";
    return OK;
}

int cuDeviceGet(int *dev, int ordinal)
{
    if (!g_inited) return 3; /* CUDA_ERROR_NOT_INITIALIZED */
    if (ordinal < 0 || ordinal > 1) return INVALID_DEVICE;
    *dev = ordinal;
    return OK;
}

int cuDevicePrimaryCtxRetain(void **ctx, int dev) { *ctx = (void *)(uintptr_t)(0x1000 + dev); return OK; }
int cuCtxPushCurrent_v2(void *ctx)
{
    g_ctx_depth++;
    g_ctx = (uintptr_t)ctx;
    return ctx ? OK : INVALID_CONTEXT;
}
int cuCtxPopCurrent_v2(void **ctx) { g_ctx_depth--; *ctx = NULL; return OK; }

int cuIpcOpenMemHandle_v2(uint64_t *ptr, ipc_handle h, unsigned flags)
{
    if (g_ctx_depth < 1) return INVALID_CONTEXT;
    if (flags != 1) return INVALID_VALUE;
    fill(&h);
    g_open++;
    g_open_device = (int)(g_ctx - 0x1000);
    *ptr = (uint64_t)(uintptr_t)g_mem;
    return OK;
}

int cuIpcCloseMemHandle(uint64_t ptr)
{
    if (g_ctx_depth < 1) return INVALID_CONTEXT;
    if (ptr != (uint64_t)(uintptr_t)g_mem || g_open < 1) return INVALID_VALUE;
    g_open--;
    return OK;
}

int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t n)
{
    if (g_ctx_depth < 1) return INVALID_CONTEXT;
    if (src != (uint64_t)(uintptr_t)g_mem || n > BUF) return INVALID_VALUE;
    memcpy(dst, g_mem, n);
    return OK;
}

const char *cudaGetErrorName(int res) { return res == RT_INVALID_DEVICE ? "cudaErrorInvalidDevice" : "cudaErrorInvalidValue"; }
int cudaGetDevice(int *dev) { *dev = g_device; return OK; }

int cudaSetDevice(int dev)
{
    if (dev < 0 || dev > 1) return RT_INVALID_DEVICE;
    g_device = dev;
    return OK;
}

int cudaIpcOpenMemHandle(void **ptr, ipc_handle h, unsigned flags)
{
    if (flags != 1) return INVALID_VALUE;
    fill(&h);
    g_open++;
    g_open_device = g_device;
    *ptr = g_mem;
    return OK;
}

int cudaIpcCloseMemHandle(void *ptr)
{
    if (ptr != g_mem || g_open < 1) return INVALID_VALUE;
    g_open--;
    return OK;
}

int cudaMemcpy(void *dst, const void *src, size_t n, int kind)
{
    if (kind != 2 || src != g_mem || n > BUF) return INVALID_VALUE;
    memcpy(dst, g_mem, n);
    return OK;
}
