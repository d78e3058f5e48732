/* cg_cuda_import_desc.c - semaphore checks shared by the CUDA and no-CUDA
 * builds (they run before any CUDA call or handle use). */
#include "cg_cuda_import.h"

cg_status cg_cuda_import_check_semaphore(cg_cuda_sem_type type, int fd)
{
    CG_RETURN_IF(fd <= 0, CG_E_INVALID_ARG);
    CG_RETURN_IF(type != CG_CUDA_SEM_BINARY_FD && type != CG_CUDA_SEM_TIMELINE_FD,
                 CG_E_INVALID_ARG);
    return CG_OK;
}
