/*
 * cg_cuda_import_nocuda.c - the Vulkan->CUDA import in a build without
 * CUDA: the same API, every operation CG_E_UNSUPPORTED. Handle ownership
 * follows the same contract, so a valid handle passed in is closed.
 */
#include "cg_cuda_import.h"

#include <stdlib.h>

#include "cg_nocuda.h"
#include "cg_oshandle.h"

struct cg_cuda_import {
    int unused;
};

cg_status cg_cuda_import_create(cg_cuda_import **out)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = calloc(1, sizeof **out);
    return *out ? CG_OK : CG_E_NO_MEMORY;
}

void cg_cuda_import_destroy(cg_cuda_import *ci)
{
    free(ci);
}

const char *cg_cuda_import_last_error(const cg_cuda_import *ci)
{
    (void)ci;
    return CG_NOCUDA_MESSAGE;
}

const cg_err *cg_cuda_import_error(const cg_cuda_import *ci)
{
    static const cg_err nocuda = CG_NOCUDA_ERR_INIT;
    (void)ci;
    return &nocuda;
}

int cg_cuda_import_is_initialized(const cg_cuda_import *ci)
{
    (void)ci;
    return 0;
}

cg_status cg_cuda_import_init(cg_cuda_import *ci, const cg_ext_memory_desc *d,
                              uint8_t ipc_handle[CG_CUDA_IPC_HANDLE_SIZE])
{
    /* A valid handle is ours whatever the outcome, as in the CUDA build. */
    cg_status st = (!ci || !ipc_handle) ? CG_E_INVALID_ARG : cg_ext_memory_check_desc(d, NULL);
    if (d && cg_ext_memory_handle_is_valid(d->handle_type, d->handle))
        cg_os_handle_close(d->handle_type == CG_EXT_HANDLE_OPAQUE_WIN32, d->handle);
    return st != CG_OK ? st : CG_E_UNSUPPORTED;
}

cg_status cg_cuda_import_semaphore(cg_cuda_import *ci, cg_cuda_sem_type type, int fd)
{
    /* Arguments rejected as in the CUDA build leave the fd the caller's. */
    CG_RETURN_IF(!ci, CG_E_INVALID_ARG);
    CG_TRY(cg_cuda_import_check_semaphore(type, fd));
    cg_os_handle_close(0, fd);
    return CG_E_UNSUPPORTED;
}

cg_status cg_cuda_import_copy(cg_cuda_import *ci, uint64_t wait_value)
{
    (void)ci;
    (void)wait_value;
    return CG_E_UNSUPPORTED;
}

void cg_cuda_import_reset(cg_cuda_import *ci)
{
    (void)ci;
}

void *cg_cuda_import_shared_ptr(const cg_cuda_import *ci)
{
    (void)ci;
    return NULL;
}

int cg_cuda_import_device(const cg_cuda_import *ci)
{
    (void)ci;
    return -1;
}
