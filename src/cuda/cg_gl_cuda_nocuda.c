/* cg_gl_cuda_nocuda.c - the GL zero-copy path in a build without CUDA:
 * the same API, every operation CG_E_UNSUPPORTED. */
#include "cg_gl_cuda.h"

#include <stdlib.h>

#include "cg_size.h"
#include "cg_nocuda.h"

struct cg_gl_cuda {
    int unused;
};

cg_status cg_gl_cuda_create(cg_gl_cuda **out)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = calloc(1, sizeof **out);
    return *out ? CG_OK : CG_E_NO_MEMORY;
}

void cg_gl_cuda_destroy(cg_gl_cuda *g)
{
    free(g);
}

const char *cg_gl_cuda_last_error(const cg_gl_cuda *g)
{
    (void)g;
    return CG_NOCUDA_MESSAGE;
}

const cg_err *cg_gl_cuda_error(const cg_gl_cuda *g)
{
    static const cg_err nocuda = CG_NOCUDA_ERR_INIT;
    (void)g;
    return &nocuda;
}

int cg_gl_cuda_is_initialized(const cg_gl_cuda *g)
{
    (void)g;
    return 0;
}

cg_status cg_gl_cuda_init(cg_gl_cuda *g, int width, int height,
                          uint8_t handle[CG_CUDA_IPC_HANDLE_SIZE])
{
    CG_RETURN_IF(!g || !handle, CG_E_INVALID_ARG);
    CG_TRY(cg_check_dims(width, height));
    return CG_E_UNSUPPORTED;
}

cg_status cg_gl_cuda_capture(cg_gl_cuda *g, const cg_gl_cuda_frame *f)
{
    CG_RETURN_IF(!g || !f, CG_E_INVALID_ARG);
    return CG_E_UNSUPPORTED;
}

void cg_gl_cuda_reset(cg_gl_cuda *g)
{
    (void)g;
}

void cg_gl_cuda_set_register_every_frame(cg_gl_cuda *g, int on)
{
    (void)g;
    (void)on;
}

void *cg_gl_cuda_shared_ptr(const cg_gl_cuda *g)
{
    (void)g;
    return NULL;
}

int cg_gl_cuda_device(const cg_gl_cuda *g)
{
    (void)g;
    return -1;
}
