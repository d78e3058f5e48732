/* cg_cuda_import_desc.c - descriptor and semaphore checks shared by the CUDA and no-CUDA
 * builds (they run before any CUDA call or handle use). */
#include "cg_cuda_import.h"

#include "cg_frame.h"

cg_status cg_cuda_import_check_desc(const cg_cuda_import_desc *d)
{
    CG_RETURN_IF(!d, CG_E_INVALID_ARG);
    CG_RETURN_IF(d->handle_type != CG_CUDA_HANDLE_OPAQUE_FD &&
                     d->handle_type != CG_CUDA_HANDLE_OPAQUE_WIN32,
                 CG_E_INVALID_ARG);
    CG_RETURN_IF(d->handle == -1 || d->handle == 0, CG_E_INVALID_ARG);
    CG_RETURN_IF(d->handle_type == CG_CUDA_HANDLE_OPAQUE_FD &&
                     (d->handle < 0 || d->handle > INT32_MAX),
                 CG_E_INVALID_ARG);
    size_t need = 0;
    CG_TRY(cg_image_size(d->width, d->height, 4, &need));
    CG_RETURN_IF(d->allocation_size < (uint64_t)need, CG_E_BUFFER_TOO_SMALL);
    return CG_OK;
}

cg_status cg_cuda_import_check_semaphore(cg_cuda_sem_type type, int fd)
{
    CG_RETURN_IF(fd <= 0, CG_E_INVALID_ARG);
    CG_RETURN_IF(type != CG_CUDA_SEM_BINARY_FD && type != CG_CUDA_SEM_TIMELINE_FD,
                 CG_E_INVALID_ARG);
    return CG_OK;
}
