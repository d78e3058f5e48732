/*
 * A stand-in for libcuda with just the calls the zero-copy v2 learner makes
 * (python/craftground_capture/ring.py, CudaImporter), compiled against the
 * real cuda.h: the structs the Python side builds with ctypes are read here
 * with the toolkit's own layouts, so a wrong offset or size shows up on a
 * machine without a GPU.
 *
 * "Importing" an OPAQUE_FD maps it: Mesa llvmpipe's exported memory is a
 * memfd whose allocation starts at the offset in its header's second
 * 8-byte word; any other fd is mapped from 0. "Device pointers" are host
 * addresses, so cuMemcpyDtoH is a memcpy. The fd is closed on success (the
 * import owns it), as the real driver does. Test-only.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

static int g_ctx_depth, g_imports, g_sem_imports, g_waits, g_freed, g_bad;
static unsigned long long g_last_wait;
static void *g_last_stream;
static unsigned char g_uuid[16];

FAKE_EXPORT int fake_ext_counts(int *out);
FAKE_EXPORT unsigned long long fake_ext_last_wait(void **stream);
FAKE_EXPORT void fake_ext_set_uuid(const unsigned char *uuid);

int fake_ext_counts(int *out)
{
    out[0] = g_imports;
    out[1] = g_sem_imports;
    out[2] = g_waits;
    out[3] = g_freed;
    out[4] = g_ctx_depth;
    out[5] = g_bad;
    return 6;
}

unsigned long long fake_ext_last_wait(void **stream)
{
    *stream = g_last_stream;
    return g_last_wait;
}

void fake_ext_set_uuid(const unsigned char *uuid)
{
    memcpy(g_uuid, uuid, 16);
}

/* $CG_FAKE_CUDA_UUID (32 hex digits): device 1's UUID from the start, for
 * a learner process that cannot call fake_ext_set_uuid. */
FAKE_EXPORT CUresult cuInit(unsigned int flags)
{
    const char *hex = getenv("CG_FAKE_CUDA_UUID");
    for (int i = 0; hex && strlen(hex) == 32 && i < 16; i++) {
        unsigned v = 0;
        if (sscanf(hex + 2 * i, "%2x", &v) == 1) g_uuid[i] = (unsigned char)v;
    }
    return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult res, const char **name)
{
    *name = res == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_FAKE";
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *n)
{
    *n = 2;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    *dev = ordinal + 100;
    return CUDA_SUCCESS;
}

/* Device 1 (CUdevice 101) has the UUID set by the test; device 0 another. */
FAKE_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    memset(uuid->bytes, 0xEE, 16);
    if (dev == 101) memcpy(uuid->bytes, g_uuid, 16);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    *ctx = (CUcontext)(uintptr_t)(0xC000 + dev);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    (void)dev;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    if ((uintptr_t)ctx != 0xC000 + 101) g_bad++; /* the matched device's context only */
    g_ctx_depth++;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *ctx)
{
    g_ctx_depth--;
    if (ctx) *ctx = NULL;
    return CUDA_SUCCESS;
}

typedef struct fake_mem {
    void *map;
    size_t len;
    size_t offset;
    unsigned long long size;
} fake_mem;

static fake_mem g_mems[32];

FAKE_EXPORT CUresult cuImportExternalMemory(CUexternalMemory *out,
                                            const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *d)
{
    if (g_ctx_depth != 1 || d->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD || d->flags != 0 ||
        d->size == 0 || g_imports >= 32)
        return CUDA_ERROR_INVALID_VALUE;
    struct stat st;
    if (fstat(d->handle.fd, &st) != 0) return CUDA_ERROR_INVALID_VALUE;
    fake_mem *m = &g_mems[g_imports];
    m->len = (size_t)st.st_size;
    m->map = mmap(NULL, m->len, PROT_READ, MAP_SHARED, d->handle.fd, 0);
    if (m->map == MAP_FAILED) return CUDA_ERROR_INVALID_VALUE;
    uint64_t off = 0;
    if (m->len >= 4096 + d->size) memcpy(&off, (char *)m->map + 8, sizeof off); /* llvmpipe */
    if (off + d->size > m->len) off = 0;
    m->offset = (size_t)off;
    m->size = d->size;
    close(d->handle.fd);
    *out = (CUexternalMemory)m;
    g_imports++;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuExternalMemoryGetMappedBuffer(CUdeviceptr *ptr, CUexternalMemory ext,
                                                     const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *b)
{
    fake_mem *m = (fake_mem *)ext;
    if (g_ctx_depth != 1 || b->offset != 0 || b->size != m->size || b->flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    *ptr = (CUdeviceptr)(uintptr_t)((char *)m->map + m->offset);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuImportExternalSemaphore(CUexternalSemaphore *out,
                                               const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC *d)
{
    if (g_ctx_depth != 1 || d->type != CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD ||
        d->flags != 0 || d->handle.fd < 0)
        return CUDA_ERROR_INVALID_VALUE;
    close(d->handle.fd);
    *out = (CUexternalSemaphore)(uintptr_t)0x5E3A;
    g_sem_imports++;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuWaitExternalSemaphoresAsync(const CUexternalSemaphore *sems,
                                                   const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *p,
                                                   unsigned int n, CUstream stream)
{
    if (g_ctx_depth != 1 || n != 1 || sems[0] != (CUexternalSemaphore)(uintptr_t)0x5E3A ||
        p->flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    g_last_wait = p->params.fence.value;
    g_last_stream = (void *)stream;
    g_waits++;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventCreate(CUevent *ev, unsigned int flags)
{
    (void)flags;
    *ev = (CUevent)(uintptr_t)0xE7;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventRecord(CUevent ev, CUstream s)
{
    (void)s;
    return ev == (CUevent)(uintptr_t)0xE7 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent ev, unsigned int flags)
{
    (void)s;
    return ev == (CUevent)(uintptr_t)0xE7 && flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuEventDestroy_v2(CUevent ev)
{
    (void)ev;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamSynchronize(CUstream s)
{
    (void)s;
    return g_ctx_depth == 1 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuCtxSynchronize(void)
{
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
    if (g_ctx_depth != 1) return CUDA_ERROR_INVALID_VALUE;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
    (void)p;
    g_freed++;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDestroyExternalMemory(CUexternalMemory ext)
{
    fake_mem *m = (fake_mem *)ext;
    munmap(m->map, m->len);
    m->map = NULL;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDestroyExternalSemaphore(CUexternalSemaphore s)
{
    (void)s;
    return CUDA_SUCCESS;
}
