/* Descriptor checks shared by jni/ and every GPU backend: they run before
 * any GPU call or handle use. */
#include "cg_gpu_backend.h"

int cg_ext_memory_handle_is_valid(cg_ext_handle_type type, int64_t handle)
{
    if (handle == -1 || handle == 0) return 0;
    if (type == CG_EXT_HANDLE_OPAQUE_FD) return handle > 0 && handle <= INT32_MAX;
    return type == CG_EXT_HANDLE_OPAQUE_WIN32;
}

cg_status cg_ext_memory_check_desc(const cg_ext_memory_desc *d, cg_err *why)
{
    if (!d) return cg_fail(why, CG_E_INVALID_ARG, "no descriptor");
    if (d->handle_type != CG_EXT_HANDLE_OPAQUE_FD && d->handle_type != CG_EXT_HANDLE_OPAQUE_WIN32)
        return cg_fail(why, CG_E_INVALID_ARG, "unknown handle type %d", (int)d->handle_type);
    if (d->handle_type == CG_EXT_HANDLE_OPAQUE_FD && d->handle > INT32_MAX)
        return cg_fail(why, CG_E_INVALID_ARG,
                       "osHandle %lld is out of the range of a file descriptor",
                       (long long)d->handle);
    if (!cg_ext_memory_handle_is_valid(d->handle_type, d->handle))
        return cg_fail(why, CG_E_INVALID_ARG, "osHandle %lld is not a valid %s",
                       (long long)d->handle,
                       d->handle_type == CG_EXT_HANDLE_OPAQUE_FD ? "file descriptor"
                                                                  : "Win32 handle");
    size_t need = 0;
    cg_status st = cg_image_size(d->width, d->height, 4, &need);
    if (st != CG_OK)
        return cg_fail(why, st, "image %dx%d: %s (1..%d per side)", d->width, d->height,
                       cg_strerror(st), CG_MAX_DIM);
    if (d->allocation_size < (uint64_t)need)
        return cg_fail(why, CG_E_BUFFER_TOO_SMALL,
                       "allocationSize %llu is smaller than the %dx%d RGBA8 image needs "
                       "(%llu bytes)",
                       (unsigned long long)d->allocation_size, d->width, d->height,
                       (unsigned long long)need);
    return CG_OK;
}
