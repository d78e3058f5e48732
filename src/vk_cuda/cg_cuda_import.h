/*
 * cg_cuda_import.h - Vulkan exported memory -> CUDA -> IPC shared buffer.
 *
 * The consumer half of the Vulkan zero-copy path. A caller-owned context
 * imports the exported memory of an RGBA8 image (an opaque POSIX fd, or a
 * Win32 handle on Windows) on the CUDA device whose UUID matches, maps it as
 * a mipmapped array, allocates the shared cudaMalloc buffer and hands out
 * the 68-byte IPC handle (cg_cuda_ipc.h). Each frame, cg_cuda_import_copy
 * copies the image into that buffer on the library's own stream and returns
 * when the buffer is complete.
 *
 * No CUDA types appear here: a build without CUDA links
 * cg_cuda_import_nocuda.c, whose functions return CG_E_UNSUPPORTED.
 *
 * Threading: a context is used by one thread at a time (the caller
 * serialises). CUDA calls make the imported device current on the calling
 * thread.
 */
#ifndef CG_CUDA_IMPORT_H
#define CG_CUDA_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "cg_cuda_ipc.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_cuda_import cg_cuda_import;

/* Kind of OS handle the exporter produced. */
typedef enum cg_cuda_handle_type {
    CG_CUDA_HANDLE_OPAQUE_FD = 0,   /* VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT */
    CG_CUDA_HANDLE_OPAQUE_WIN32 = 1 /* VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_BIT */
} cg_cuda_handle_type;

typedef struct cg_cuda_import_desc {
    cg_cuda_handle_type handle_type;
    int64_t handle;           /* the fd (or HANDLE value); see ownership below */
    uint64_t allocation_size; /* VkMemoryRequirements.size of the allocation */
    uint8_t device_uuid[16];  /* VkPhysicalDeviceIDProperties.deviceUUID */
    int width, height;        /* image size in pixels; RGBA8 */
    int dedicated;            /* nonzero: the allocation was dedicated to the image */
    int color_attachment;     /* nonzero: the image has COLOR_ATTACHMENT usage */
} cg_cuda_import_desc;

/* Allocate an idle context (no CUDA call is made). *out = NULL on error. */
cg_status cg_cuda_import_create(cg_cuda_import **out);

/* Release everything (as cg_cuda_import_reset) and free. NULL: no-op. */
void cg_cuda_import_destroy(cg_cuda_import *ci);

/* Text of the last failure: the API's own error name, the expression,
 * file and line. Empty string when none; never NULL. */
const char *cg_cuda_import_last_error(const cg_cuda_import *ci);

/* Nonzero while an import is live. */
int cg_cuda_import_is_initialized(const cg_cuda_import *ci);

/* Check a descriptor without touching CUDA or the handle: dims 1..
 * CG_MAX_DIM, handle not -1/0, allocation_size >= width*height*4, known
 * handle type. CG_E_INVALID_ARG / CG_E_TOO_LARGE / CG_E_BUFFER_TOO_SMALL. */
cg_status cg_cuda_import_check_desc(const cg_cuda_import_desc *d);

/* Import d->handle and set up the shared buffer; writes the 68-byte handle.
 *
 * Ownership of d->handle: if cg_cuda_import_check_desc(d) fails, the handle
 * is untouched and stays the caller's. Otherwise it is the library's from
 * this call on: a POSIX fd is consumed by a successful
 * cudaImportExternalMemory and closed by us on every failure (including
 * CG_E_ALREADY_INITIALIZED); a Win32 handle is always closed by us.
 *
 * Errors: as cg_cuda_import_check_desc; CG_E_ALREADY_INITIALIZED;
 * CG_E_NO_DEVICE (no device with that UUID); CG_E_CUDA (no driver or
 * device, or a failing call: see last_error); CG_E_UNSUPPORTED (no CUDA in
 * this build, or a Win32 handle on POSIX). On failure nothing is left
 * allocated and the context can be initialised again. */
cg_status cg_cuda_import_init(cg_cuda_import *ci, const cg_cuda_import_desc *d,
                              uint8_t ipc_handle[CG_CUDA_IPC_HANDLE_SIZE]);

/* Semaphore kinds for cg_cuda_import_semaphore. */
typedef enum cg_cuda_sem_type {
    CG_CUDA_SEM_BINARY_FD = 0,   /* VK binary semaphore, OPAQUE_FD */
    CG_CUDA_SEM_TIMELINE_FD = 1  /* VK timeline semaphore, OPAQUE_FD */
} cg_cuda_sem_type;

/* Check semaphore arguments without touching CUDA or the fd: fd > 0 and a
 * known type (CG_E_INVALID_ARG). */
cg_status cg_cuda_import_check_semaphore(cg_cuda_sem_type type, int fd);

/* Optional: import an exported Vulkan semaphore that the producer signals
 * when a frame's copy is done; from then on cg_cuda_import_copy waits on it
 * on the GPU instead of relying on a CPU-observed fence. The fd follows the
 * same ownership rule as the memory handle. Requires an initialised
 * context; a second call replaces the first semaphore. Arguments rejected
 * by cg_cuda_import_check_semaphore (or a NULL ci) leave the fd the
 * caller's. */
cg_status cg_cuda_import_semaphore(cg_cuda_import *ci, cg_cuda_sem_type type, int fd);

/* Per frame: (wait for the semaphore, value `wait_value` for a timeline
 * semaphore, ignored for binary) then copy the image into the shared
 * buffer; returns when the buffer is complete. Without a semaphore the
 * caller must have waited for the producer's work (a fence). Errors:
 * CG_E_NOT_INITIALIZED; CG_E_CUDA (the context then refuses further copies
 * with CG_E_BAD_STATE until reset). */
cg_status cg_cuda_import_copy(cg_cuda_import *ci, uint64_t wait_value);

/* Release everything (synchronise, then CUDA objects in reverse order of
 * creation); the context is idle and can be initialised again. */
void cg_cuda_import_reset(cg_cuda_import *ci);

/* For tests and benchmarks in the same process: device pointer of the
 * shared buffer and its CUDA device ordinal (NULL / -1 when idle). */
void *cg_cuda_import_shared_ptr(const cg_cuda_import *ci);
int cg_cuda_import_device(const cg_cuda_import *ci);

#ifdef __cplusplus
}
#endif

#endif /* CG_CUDA_IMPORT_H */
