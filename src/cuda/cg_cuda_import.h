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
#include "cg_err.h"
#include "cg_gpu_backend.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_cuda_import cg_cuda_import;

/* Allocate an idle context (no CUDA call is made). *out = NULL on error. */
cg_status cg_cuda_import_create(cg_cuda_import **out);

/* Release everything (as cg_cuda_import_reset) and free. NULL: no-op. */
void cg_cuda_import_destroy(cg_cuda_import *ci);

/* Text of the last failure: the API's own error name, the expression,
 * file and line. Empty string when none; never NULL. */
const char *cg_cuda_import_last_error(const cg_cuda_import *ci);
/* The same as the cg_err it is, for cg_fail_from (NULL for NULL in a CUDA
 * build; a build without CUDA says so for any context). */
const cg_err *cg_cuda_import_error(const cg_cuda_import *ci);

/* Nonzero while an import is live. */
int cg_cuda_import_is_initialized(const cg_cuda_import *ci);

/* Import d->handle and set up the shared buffer; writes the 68-byte handle.
 *
 * Ownership of d->handle: a handle that is not one
 * (cg_ext_memory_handle_is_valid) is left alone. Any other is the
 * library's from this call on, whatever the outcome (a rejected descriptor,
 * a NULL context included): a POSIX fd is consumed by a successful
 * cudaImportExternalMemory and closed by us on every failure (including
 * CG_E_ALREADY_INITIALIZED); a Win32 handle is always closed by us.
 *
 * Errors: as cg_ext_memory_check_desc; CG_E_ALREADY_INITIALIZED;
 * CG_E_NO_DEVICE (no device with that UUID); CG_E_CUDA (no driver or
 * device, or a failing call: see last_error); CG_E_UNSUPPORTED (no CUDA in
 * this build, or a Win32 handle on POSIX). On failure nothing is left
 * allocated and the context can be initialised again. */
cg_status cg_cuda_import_init(cg_cuda_import *ci, const cg_ext_memory_desc *d,
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
