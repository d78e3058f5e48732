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
 * import owns it), as the real driver does.
 *
 * The vector learner's calls (python/craftground_capture/vector.py) too:
 * cuMemAlloc (host memory, filled with 0xA5 so a row never gathered shows),
 * the gather module (cuModuleLoadData accepts PTX with the entry cg_gather;
 * cuLaunchKernel runs the gather docs/zero-copy-v2.md documents on the host,
 * after checking the grid covers the work), cuMemcpy2DAsync, several
 * semaphores in one wait, and events whose completion the test controls
 * (fake_ext_set). Test-only.
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

#define FAKE_MAX_IMPORTS 512
static fake_mem g_mems[FAKE_MAX_IMPORTS];

FAKE_EXPORT CUresult cuImportExternalMemory(CUexternalMemory *out,
                                            const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *d)
{
    if (g_ctx_depth != 1 || d->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD || d->flags != 0 ||
        d->size == 0 || g_imports >= FAKE_MAX_IMPORTS)
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

/* Every semaphore of one call; the values of the last call are kept (n of
 * them) for fake_ext_last_waits. */
#define FAKE_MAX_WAITS 64
static unsigned long long g_wait_values[FAKE_MAX_WAITS];
static unsigned g_wait_n;

FAKE_EXPORT unsigned fake_ext_last_waits(unsigned long long *values, unsigned cap);

unsigned fake_ext_last_waits(unsigned long long *values, unsigned cap)
{
    for (unsigned i = 0; i < g_wait_n && i < cap; i++) values[i] = g_wait_values[i];
    return g_wait_n;
}

FAKE_EXPORT CUresult cuWaitExternalSemaphoresAsync(const CUexternalSemaphore *sems,
                                                   const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *p,
                                                   unsigned int n, CUstream stream)
{
    if (g_ctx_depth != 1 || n < 1 || n > FAKE_MAX_WAITS) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; i++)
        if (sems[i] != (CUexternalSemaphore)(uintptr_t)0x5E3A || p[i].flags != 0)
            return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; i++) g_wait_values[i] = p[i].params.fence.value;
    g_wait_n = n;
    g_last_wait = p[0].params.fence.value;
    g_last_stream = (void *)stream;
    g_waits++;
    return CUDA_SUCCESS;
}

/* Events: distinct handles 0xE700 + k. fake_ext_set(FAKE_EVENTS_PENDING, 1)
 * makes cuEventQuery answer NOT_READY (the GPU still busy) until it is set
 * back; cuEventSynchronize always "completes" (and is counted). */
enum { FAKE_NO_MODULE = 0, FAKE_EVENTS_PENDING = 1, FAKE_SETTINGS };
enum {
    FAKE_N_LAUNCHES, FAKE_N_COPIES, FAKE_N_EVENT_SYNCS, FAKE_N_EVENT_QUERIES, FAKE_N_MODULES,
    FAKE_N_ALLOCS, FAKE_N_BAD_LAUNCH, FAKE_N_EVENTS, FAKE_N_WAIT_CALLS, FAKE_NS
};
static int g_set[FAKE_SETTINGS];
static int g_n[FAKE_NS];

FAKE_EXPORT void fake_ext_set(int what, int value);
FAKE_EXPORT int fake_ext_gather_counts(int *out);

void fake_ext_set(int what, int value)
{
    if (what >= 0 && what < FAKE_SETTINGS) g_set[what] = value;
}

int fake_ext_gather_counts(int *out)
{
    g_n[FAKE_N_WAIT_CALLS] = g_waits;
    for (int i = 0; i < FAKE_NS; i++) out[i] = g_n[i];
    return FAKE_NS;
}

static int is_event(CUevent ev)
{
    uintptr_t v = (uintptr_t)ev;
    return v >= 0xE700 && v < 0xE700 + (uintptr_t)g_n[FAKE_N_EVENTS];
}

FAKE_EXPORT CUresult cuEventCreate(CUevent *ev, unsigned int flags)
{
    (void)flags;
    if (g_n[FAKE_N_EVENTS] >= 0xFF) return CUDA_ERROR_INVALID_VALUE;
    *ev = (CUevent)(uintptr_t)(0xE700 + g_n[FAKE_N_EVENTS]++);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventRecord(CUevent ev, CUstream s)
{
    (void)s;
    return is_event(ev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuEventQuery(CUevent ev)
{
    if (g_ctx_depth != 1 || !is_event(ev)) return CUDA_ERROR_INVALID_VALUE;
    g_n[FAKE_N_EVENT_QUERIES]++;
    return g_set[FAKE_EVENTS_PENDING] ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventSynchronize(CUevent ev)
{
    if (g_ctx_depth != 1 || !is_event(ev)) return CUDA_ERROR_INVALID_VALUE;
    g_n[FAKE_N_EVENT_SYNCS]++;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent ev, unsigned int flags)
{
    (void)s;
    return is_event(ev) && flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuEventDestroy_v2(CUevent ev)
{
    return is_event(ev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Device memory of cuMemAlloc: host memory (freed by cuMemFree). */
#define FAKE_MAX_ALLOCS 16
static void *g_allocs[FAKE_MAX_ALLOCS];

FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
    if (g_ctx_depth != 1 || n == 0) return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < FAKE_MAX_ALLOCS; i++) {
        if (g_allocs[i]) continue;
        g_allocs[i] = aligned_alloc(256, (n + 255) / 256 * 256);
        if (!g_allocs[i]) return CUDA_ERROR_OUT_OF_MEMORY;
        memset(g_allocs[i], 0xA5, n); /* not zero: a row never gathered shows */
        *p = (CUdeviceptr)(uintptr_t)g_allocs[i];
        g_n[FAKE_N_ALLOCS]++;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

static int free_alloc(CUdeviceptr p)
{
    for (int i = 0; i < FAKE_MAX_ALLOCS; i++) {
        if (g_allocs[i] && (CUdeviceptr)(uintptr_t)g_allocs[i] == p) {
            free(g_allocs[i]);
            g_allocs[i] = NULL;
            g_n[FAKE_N_ALLOCS]--;
            return 1;
        }
    }
    return 0;
}

/* The gather kernel (python/craftground_capture/kernels/gather.cu): its
 * PTX is accepted when it has the entry cg_gather, and cuLaunchKernel runs
 * the documented gather on the host (docs/zero-copy-v2.md, "The vector
 * learner"), after checking that the launch's grid covers every unit of
 * work with 256-thread blocks. Not the kernel's own code: the PTX is checked
 * on the GPU machine (python_vector_cuda). */
#define FAKE_GATHER_MAX 256
typedef struct fake_gather_list {
    unsigned long long src[FAKE_GATHER_MAX];
    unsigned int dst_index[FAKE_GATHER_MAX];
} fake_gather_list;

FAKE_EXPORT CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
    if (g_ctx_depth != 1 || !image) return CUDA_ERROR_INVALID_VALUE;
    if (g_set[FAKE_NO_MODULE]) return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
    if (!strstr((const char *)image, ".entry cg_gather(")) return CUDA_ERROR_INVALID_PTX;
    g_n[FAKE_N_MODULES]++;
    *m = (CUmodule)(uintptr_t)0x30D;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    if (g_ctx_depth != 1 || m != (CUmodule)(uintptr_t)0x30D || strcmp(name, "cg_gather") != 0)
        return CUDA_ERROR_NOT_FOUND;
    *f = (CUfunction)(uintptr_t)0xF00;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleUnload(CUmodule m)
{
    if (m != (CUmodule)(uintptr_t)0x30D || g_n[FAKE_N_MODULES] < 1) return CUDA_ERROR_INVALID_VALUE;
    g_n[FAKE_N_MODULES]--;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                    unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                    CUstream stream, void **params, void **extra)
{
    (void)stream;
    if (g_ctx_depth != 1 || f != (CUfunction)(uintptr_t)0xF00 || !params || extra || gz != 1 ||
        by != 1 || bz != 1 || bx != 256 || shared != 0 || gy < 1 || gy > FAKE_GATHER_MAX)
        return CUDA_ERROR_INVALID_VALUE;
    const fake_gather_list *list = params[0];
    unsigned char *dst = (unsigned char *)(uintptr_t)*(const CUdeviceptr *)params[1];
    unsigned height = *(const unsigned *)params[2], row_bytes = *(const unsigned *)params[3];
    unsigned pitch = *(const unsigned *)params[4], flip = *(const unsigned *)params[5];
    unsigned words = *(const unsigned *)params[6];
    unsigned unit = words ? 4u : 1u;
    if ((words && (row_bytes % 4 || pitch % 4)) || pitch < row_bytes ||
        (unsigned long long)gx * bx < (unsigned long long)height * (row_bytes / unit)) {
        g_n[FAKE_N_BAD_LAUNCH]++;
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (unsigned e = 0; e < gy; e++)
        for (unsigned y = 0; y < height; y++) {
            unsigned sy = flip ? height - 1 - y : y;
            memcpy(dst + ((size_t)list->dst_index[e] * height + y) * row_bytes,
                   (const unsigned char *)(uintptr_t)list->src[e] + (size_t)sy * pitch, row_bytes);
        }
    g_n[FAKE_N_LAUNCHES]++;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream stream)
{
    (void)stream;
    if (g_ctx_depth != 1 || p->srcMemoryType != CU_MEMORYTYPE_DEVICE ||
        p->dstMemoryType != CU_MEMORYTYPE_DEVICE || p->srcXInBytes || p->srcY || p->dstXInBytes ||
        p->dstY || p->WidthInBytes > p->srcPitch || p->WidthInBytes > p->dstPitch)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t y = 0; y < p->Height; y++)
        memcpy((unsigned char *)(uintptr_t)p->dstDevice + y * p->dstPitch,
               (const unsigned char *)(uintptr_t)p->srcDevice + y * p->srcPitch, p->WidthInBytes);
    g_n[FAKE_N_COPIES]++;
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
    if (free_alloc(p)) return CUDA_SUCCESS;
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
