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
 * cuLaunchKernel runs the gather docs/zero-copy-v2/learner.md documents on the host,
 * after checking the grid covers the work), cuMemcpy2DAsync, several
 * semaphores in one wait, and events whose completion the test controls
 * (fake_ext_set).
 *
 * Two devices by default, one with $CG_FAKE_CUDA_DEVICES=1 (or
 * fake_ext_set(FAKE_DEVICES, n)); peer access between them unless
 * $CG_FAKE_CUDA_PEER=0 (or fake_ext_set(FAKE_PEER, 0)). Every pointer lives
 * somewhere: on the device whose context was current when it was imported or
 * allocated (cuMemAlloc), or in pinned host memory (cuMemHostAlloc); every
 * copy and launch checks that its ranges lie inside one such region on the
 * device the call expects (the current one, or the contexts a peer copy
 * names), so a pointer of the other GPU, a pageable staging buffer or a
 * range past the end is refused rather than copied. Copies move real bytes,
 * at once (there is no queue): the order of the stream work is recorded as
 * text lines (fake_ext_trace) for the tests to check. Test-only.
 */
#include <cuda.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

static int g_ctx_depth, g_imports, g_sem_imports, g_waits, g_freed, g_bad;

/* fake_ext_set's settings and fake_ext_gather_counts' counters. */
enum {
    FAKE_NO_MODULE = 0, FAKE_EVENTS_PENDING = 1, FAKE_DEVICES = 2, FAKE_PEER = 3, FAKE_CTX_ANY = 4,
    FAKE_FAIL_LAUNCH = 5, FAKE_SETTINGS
};
enum {
    FAKE_N_LAUNCHES, FAKE_N_COPIES, FAKE_N_EVENT_SYNCS, FAKE_N_EVENT_QUERIES, FAKE_N_MODULES,
    FAKE_N_ALLOCS, FAKE_N_BAD_LAUNCH, FAKE_N_EVENTS, FAKE_N_WAIT_CALLS, FAKE_N_PEER_COPIES,
    FAKE_N_PEER_NO_ACCESS, FAKE_N_DTOH, FAKE_N_HTOD, FAKE_N_BAD_COPY, FAKE_N_STREAMS,
    FAKE_N_PEER_ENABLES, FAKE_NS
};
static int g_set[FAKE_SETTINGS] = {[FAKE_DEVICES] = 2, [FAKE_PEER] = 1};
static int g_n[FAKE_NS];

static int device_count(void)
{
    return g_set[FAKE_DEVICES] >= 1 && g_set[FAKE_DEVICES] <= 2 ? g_set[FAKE_DEVICES] : 2;
}

/* The contexts pushed, as device ordinals (-1: not one of ours). */
#define FAKE_MAX_DEPTH 8
static int g_ctx_stack[FAKE_MAX_DEPTH];

static int current_device(void)
{
    return g_ctx_depth >= 1 && g_ctx_depth <= FAKE_MAX_DEPTH ? g_ctx_stack[g_ctx_depth - 1] : -1;
}

/* Where memory lives: [base, base + len) on `device` (-1: pinned host). */
#define FAKE_MAX_REGIONS 128
typedef struct fake_region {
    uintptr_t base;
    size_t len;
    int device;
    int used;
} fake_region;
static fake_region g_regions[FAKE_MAX_REGIONS];

static void region_add(const void *base, size_t len, int device)
{
    for (int i = 0; i < FAKE_MAX_REGIONS; i++)
        if (!g_regions[i].used) {
            g_regions[i] = (fake_region){(uintptr_t)base, len, device, 1};
            return;
        }
}

static void region_drop(const void *base)
{
    for (int i = 0; i < FAKE_MAX_REGIONS; i++)
        if (g_regions[i].used && g_regions[i].base == (uintptr_t)base) g_regions[i].used = 0;
}

/* Whether [p, p + n) lies inside one region of `device` (-1: pinned host). */
static int lives_on(uintptr_t p, size_t n, int device)
{
    for (int i = 0; i < FAKE_MAX_REGIONS; i++) {
        const fake_region *r = &g_regions[i];
        if (r->used && r->device == device && p >= r->base && n <= r->len &&
            p - r->base <= r->len - n)
            return 1;
    }
    return 0;
}

/* Streams of cuStreamCreate: 0x5700 + k on the device current then; any
 * other value (the legacy stream 1, a test's 77) is taken as a stream of the
 * current context. */
#define FAKE_MAX_STREAMS 64
static int g_stream_dev[FAKE_MAX_STREAMS];

static int stream_device(CUstream s)
{
    uintptr_t v = (uintptr_t)s;
    if (v >= 0x5700 && v < 0x5700 + (uintptr_t)g_n[FAKE_N_STREAMS]) return g_stream_dev[v - 0x5700];
    return current_device();
}

/* The order of the stream work, a line per call (fake_ext_trace). */
static char g_trace[1 << 16];
static size_t g_trace_len;

__attribute__((format(printf, 1, 2))) static void trace(const char *fmt, ...);

FAKE_EXPORT size_t fake_ext_trace(char *out, size_t cap);
FAKE_EXPORT void fake_ext_trace_reset(void);

size_t fake_ext_trace(char *out, size_t cap)
{
    size_t n = g_trace_len < cap ? g_trace_len : cap;
    memcpy(out, g_trace, n);
    return n;
}

void fake_ext_trace_reset(void)
{
    g_trace_len = 0;
}
static unsigned long long g_last_wait;
static void *g_last_stream;
static unsigned char g_uuid[16];
static int g_retained; /* primary contexts retained and not released */

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
    out[6] = g_retained;
    return 7;
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
    const char *devices = getenv("CG_FAKE_CUDA_DEVICES"), *peer = getenv("CG_FAKE_CUDA_PEER");
    if (devices && (atoi(devices) == 1 || atoi(devices) == 2)) g_set[FAKE_DEVICES] = atoi(devices);
    if (peer) g_set[FAKE_PEER] = atoi(peer) != 0;
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
    *n = device_count();
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    if (ordinal < 0 || ordinal >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
    *dev = ordinal + 100;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    if (dev < 100 || dev >= 100 + device_count() || len < 1) return CUDA_ERROR_INVALID_DEVICE;
    snprintf(name, (size_t)len, "Fake GPU %d", dev - 100);
    return CUDA_SUCCESS;
}

/* Device 1 (CUdevice 101) has the UUID set by the test; device 0 another. */
FAKE_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    if (dev < 100 || dev >= 100 + device_count()) return CUDA_ERROR_INVALID_DEVICE;
    memset(uuid->bytes, 0xEE, 16);
    if (dev == 101) memcpy(uuid->bytes, g_uuid, 16);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    *ctx = (CUcontext)(uintptr_t)(0xC000 + dev);
    g_retained++;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    (void)dev;
    g_retained--;
    return CUDA_SUCCESS;
}

/* The ordinal of a primary context's handle, -1 for none of ours. */
static int ctx_device(CUcontext ctx)
{
    uintptr_t v = (uintptr_t)ctx;
    return v >= 0xC000 + 100 && v < 0xC000 + 100 + (uintptr_t)device_count()
               ? (int)(v - 0xC000 - 100)
               : -1;
}

FAKE_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    int dev = ctx_device(ctx);
    /* The matched device's context only, unless a test allows any device's. */
    if (dev < 0 || (!g_set[FAKE_CTX_ANY] && dev != 1)) g_bad++;
    if (g_ctx_depth < FAKE_MAX_DEPTH) g_ctx_stack[g_ctx_depth] = dev;
    g_ctx_depth++;
    return CUDA_SUCCESS;
}

/* The context on top of the stack (NULL: none), as a training loop's thread has its
 * framework's current (the device's primary context). */
FAKE_EXPORT CUresult cuCtxGetCurrent(CUcontext *ctx)
{
    int dev = current_device();
    *ctx = dev >= 0 ? (CUcontext)(uintptr_t)(0xC000 + 100 + dev) : NULL;
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
    region_add((char *)m->map + m->offset, (size_t)m->size, current_device());
    return CUDA_SUCCESS;
}

/* A semaphore is of the device it was imported on: 0x5E3A for device 1. */
static uintptr_t sem_handle(int device)
{
    return (uintptr_t)(0x5E3A + 0x1000 * (device - 1));
}

FAKE_EXPORT CUresult cuImportExternalSemaphore(CUexternalSemaphore *out,
                                               const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC *d)
{
    if (g_ctx_depth != 1 || d->type != CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD ||
        d->flags != 0 || d->handle.fd < 0)
        return CUDA_ERROR_INVALID_VALUE;
    close(d->handle.fd);
    *out = (CUexternalSemaphore)sem_handle(current_device());
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
    if (stream_device(stream) != current_device()) return CUDA_ERROR_INVALID_HANDLE;
    for (unsigned i = 0; i < n; i++)
        if (sems[i] != (CUexternalSemaphore)sem_handle(current_device()) || p[i].flags != 0)
            return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; i++) {
        g_wait_values[i] = p[i].params.fence.value;
        trace("wait dev=%d s=%#lx v=%llu\n", current_device(), (unsigned long)(uintptr_t)stream,
              p[i].params.fence.value);
    }
    g_wait_n = n;
    g_last_wait = p[0].params.fence.value;
    g_last_stream = (void *)stream;
    g_waits++;
    return CUDA_SUCCESS;
}

/* Events: distinct handles 0xE700 + k, each of the device current at its
 * creation. fake_ext_set(FAKE_EVENTS_PENDING, 1) makes cuEventQuery answer
 * NOT_READY (the GPU still busy) until it is set back; cuEventSynchronize
 * always "completes" (and is counted). */
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

#define FAKE_MAX_EVENTS 0x400
static int g_event_dev[FAKE_MAX_EVENTS];

FAKE_EXPORT CUresult cuEventCreate(CUevent *ev, unsigned int flags)
{
    (void)flags;
    if (g_n[FAKE_N_EVENTS] >= FAKE_MAX_EVENTS) return CUDA_ERROR_INVALID_VALUE;
    g_event_dev[g_n[FAKE_N_EVENTS]] = current_device();
    *ev = (CUevent)(uintptr_t)(0xE700 + g_n[FAKE_N_EVENTS]++);
    return CUDA_SUCCESS;
}

/* As the driver has it: an event is recorded on a stream of its own device. */
FAKE_EXPORT CUresult cuEventRecord(CUevent ev, CUstream s)
{
    if (!is_event(ev)) return CUDA_ERROR_INVALID_VALUE;
    if (g_event_dev[(uintptr_t)ev - 0xE700] != stream_device(s)) return CUDA_ERROR_INVALID_HANDLE;
    trace("record ev=%#lx s=%#lx\n", (unsigned long)(uintptr_t)ev, (unsigned long)(uintptr_t)s);
    return CUDA_SUCCESS;
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
    trace("evsync ev=%#lx\n", (unsigned long)(uintptr_t)ev);
    return CUDA_SUCCESS;
}

/* A stream may wait for an event of another device (the driver allows it). */
FAKE_EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent ev, unsigned int flags)
{
    if (!is_event(ev) || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    trace("streamwait s=%#lx ev=%#lx\n", (unsigned long)(uintptr_t)s, (unsigned long)(uintptr_t)ev);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventDestroy_v2(CUevent ev)
{
    return is_event(ev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Device memory of cuMemAlloc (on the current device) and pinned memory of
 * cuMemHostAlloc (device -1): host memory, filled with 0xA5 (not zero: a row
 * never gathered shows), freed by cuMemFree / cuMemFreeHost only. */
#define FAKE_MAX_ALLOCS 64
static void *g_allocs[FAKE_MAX_ALLOCS];
static int g_alloc_dev[FAKE_MAX_ALLOCS];

static void *new_alloc(size_t n, int device)
{
    for (int i = 0; i < FAKE_MAX_ALLOCS; i++) {
        if (g_allocs[i]) continue;
        g_allocs[i] = aligned_alloc(256, (n + 255) / 256 * 256);
        if (!g_allocs[i]) return NULL;
        memset(g_allocs[i], 0xA5, n);
        g_alloc_dev[i] = device;
        region_add(g_allocs[i], n, device);
        g_n[FAKE_N_ALLOCS]++;
        return g_allocs[i];
    }
    return NULL;
}

FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
    if (g_ctx_depth != 1 || n == 0) return CUDA_ERROR_INVALID_VALUE;
    void *m = new_alloc(n, current_device());
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = (CUdeviceptr)(uintptr_t)m;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemHostAlloc(void **p, size_t n, unsigned int flags)
{
    if (g_ctx_depth != 1 || n == 0 || flags & ~(unsigned)CU_MEMHOSTALLOC_PORTABLE)
        return CUDA_ERROR_INVALID_VALUE;
    *p = new_alloc(n, -1);
    return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static int free_alloc(uintptr_t p, int host)
{
    for (int i = 0; i < FAKE_MAX_ALLOCS; i++) {
        if (g_allocs[i] && (uintptr_t)g_allocs[i] == p && (g_alloc_dev[i] == -1) == host) {
            region_drop(g_allocs[i]);
            free(g_allocs[i]);
            g_allocs[i] = NULL;
            g_n[FAKE_N_ALLOCS]--;
            return 1;
        }
    }
    return 0;
}

FAKE_EXPORT CUresult cuMemFreeHost(void *p)
{
    return free_alloc((uintptr_t)p, 1) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The gather kernel (python/craftground_capture/kernels/gather.cu): its
 * PTX is accepted when it has the entry cg_gather, and cuLaunchKernel runs
 * the documented gather on the host (docs/zero-copy-v2/learner.md, "The vector
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
    /* fake_ext_set(FAKE_FAIL_LAUNCH, 1): the next launch fails as a faulting kernel's would. */
    if (g_set[FAKE_FAIL_LAUNCH]) {
        g_set[FAKE_FAIL_LAUNCH] = 0;
        return CUDA_ERROR_LAUNCH_FAILED;
    }
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
    /* Every source frame and destination row on this device (a kernel here
     * reads no other GPU's memory). */
    int dev = current_device();
    size_t frame = (size_t)(height - 1) * pitch + row_bytes;
    for (unsigned e = 0; e < gy; e++)
        if (stream_device(stream) != dev || !lives_on((uintptr_t)list->src[e], frame, dev) ||
            !lives_on((uintptr_t)dst + (size_t)list->dst_index[e] * height * row_bytes,
                      (size_t)height * row_bytes, dev)) {
            g_n[FAKE_N_BAD_LAUNCH]++;
            return CUDA_ERROR_ILLEGAL_ADDRESS;
        }
    for (unsigned e = 0; e < gy; e++)
        for (unsigned y = 0; y < height; y++) {
            unsigned sy = flip ? height - 1 - y : y;
            memcpy(dst + ((size_t)list->dst_index[e] * height + y) * row_bytes,
                   (const unsigned char *)(uintptr_t)list->src[e] + (size_t)sy * pitch, row_bytes);
        }
    trace("launch dev=%d s=%#lx n=%u\n", dev, (unsigned long)(uintptr_t)stream, gy);
    g_n[FAKE_N_LAUNCHES]++;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream stream)
{
    if (g_ctx_depth != 1 || p->srcMemoryType != CU_MEMORYTYPE_DEVICE ||
        p->dstMemoryType != CU_MEMORYTYPE_DEVICE || p->srcXInBytes || p->srcY || p->dstXInBytes ||
        p->dstY || p->WidthInBytes > p->srcPitch || p->WidthInBytes > p->dstPitch || !p->Height)
        return CUDA_ERROR_INVALID_VALUE;
    int dev = current_device();
    if (stream_device(stream) != dev ||
        !lives_on((uintptr_t)p->srcDevice, (p->Height - 1) * p->srcPitch + p->WidthInBytes, dev) ||
        !lives_on((uintptr_t)p->dstDevice, (p->Height - 1) * p->dstPitch + p->WidthInBytes, dev)) {
        g_n[FAKE_N_BAD_COPY]++;
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
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
    if (!lives_on((uintptr_t)src, n, current_device())) {
        g_n[FAKE_N_BAD_COPY]++;
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
    if (free_alloc((uintptr_t)p, 0)) return CUDA_SUCCESS;
    region_drop((void *)(uintptr_t)p); /* an imported slot's mapping */
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

/* --- two devices: streams, peer access, peer and staged copies ---------------------------- */

static void trace(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (g_trace_len < sizeof g_trace) {
        int n = vsnprintf(g_trace + g_trace_len, sizeof g_trace - g_trace_len, fmt, ap);
        if (n > 0) g_trace_len += (size_t)n;
        if (g_trace_len > sizeof g_trace) g_trace_len = sizeof g_trace;
    }
    va_end(ap);
}

FAKE_EXPORT CUresult cuStreamCreate(CUstream *s, unsigned int flags)
{
    if (g_ctx_depth != 1 || g_n[FAKE_N_STREAMS] >= FAKE_MAX_STREAMS || flags > 1)
        return CUDA_ERROR_INVALID_VALUE;
    g_stream_dev[g_n[FAKE_N_STREAMS]] = current_device();
    *s = (CUstream)(uintptr_t)(0x5700 + g_n[FAKE_N_STREAMS]++);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamDestroy_v2(CUstream s)
{
    uintptr_t v = (uintptr_t)s;
    return v >= 0x5700 && v < 0x5700 + (uintptr_t)g_n[FAKE_N_STREAMS] ? CUDA_SUCCESS
                                                                       : CUDA_ERROR_INVALID_HANDLE;
}

/* Peer access: possible between two distinct devices unless FAKE_PEER is 0;
 * enabled per (current context, peer) pair. */
static int g_peer_on[2][2];

FAKE_EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer)
{
    if (dev < 100 || dev >= 100 + device_count() || peer < 100 || peer >= 100 + device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    *can = g_set[FAKE_PEER] && dev != peer;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags)
{
    int dev = current_device(), to = ctx_device(peer);
    if (g_ctx_depth != 1 || dev < 0 || to < 0 || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    if (!g_set[FAKE_PEER] || dev == to) return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
    if (g_peer_on[dev][to]) return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    g_peer_on[dev][to] = 1;
    g_n[FAKE_N_PEER_ENABLES]++;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src,
                                       CUcontext src_ctx, size_t n, CUstream s)
{
    int d = ctx_device(dst_ctx), from = ctx_device(src_ctx), sd = stream_device(s);
    if (g_ctx_depth != 1 || d < 0 || from < 0 || n == 0) return CUDA_ERROR_INVALID_VALUE;
    if (!lives_on((uintptr_t)dst, n, d) || !lives_on((uintptr_t)src, n, from) ||
        (sd != d && sd != from)) {
        g_n[FAKE_N_BAD_COPY]++;
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    /* The driver copies without peer access too (through the host): counted. */
    if (d != from && !(g_peer_on[d][from] && g_peer_on[from][d])) g_n[FAKE_N_PEER_NO_ACCESS]++;
    g_n[FAKE_N_PEER_COPIES]++;
    trace("peer dst=%d src=%d s=%#lx n=%zu\n", d, from, (unsigned long)(uintptr_t)s, n);
    return CUDA_SUCCESS;
}

/* The staged copy's halves: device memory of the current device to or from
 * pinned host memory, on a stream of that device. */
static CUresult host_copy(void *dst, int dst_dev, const void *src, int src_dev, size_t n,
                          CUstream s)
{
    int dev = current_device();
    if (g_ctx_depth != 1 || n == 0) return CUDA_ERROR_INVALID_VALUE;
    if (stream_device(s) != dev || !lives_on((uintptr_t)dst, n, dst_dev) ||
        !lives_on((uintptr_t)src, n, src_dev)) {
        g_n[FAKE_N_BAD_COPY]++;
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    memcpy(dst, src, n);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    CUresult r = host_copy(dst, -1, (const void *)(uintptr_t)src, current_device(), n, s);
    if (r != CUDA_SUCCESS) return r;
    g_n[FAKE_N_DTOH]++;
    trace("dtoh dev=%d s=%#lx n=%zu\n", current_device(), (unsigned long)(uintptr_t)s, n);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    CUresult r = host_copy((void *)(uintptr_t)dst, current_device(), src, -1, n, s);
    if (r != CUDA_SUCCESS) return r;
    g_n[FAKE_N_HTOD]++;
    trace("htod dev=%d s=%#lx n=%zu\n", current_device(), (unsigned long)(uintptr_t)s, n);
    return CUDA_SUCCESS;
}
