/* Overflow-checked size helpers: every int from Java is checked before use. */
#include <stdint.h>

#include "cg_size.h"

cg_status cg_check_dims(int w, int h)
{
    CG_RETURN_IF(w <= 0 || h <= 0, CG_E_INVALID_ARG);
    CG_RETURN_IF(w > CG_MAX_DIM || h > CG_MAX_DIM, CG_E_TOO_LARGE);
    return CG_OK;
}

cg_status cg_check_dims_named(const char *what, int w, int h, cg_err *why)
{
    cg_status st = cg_check_dims(w, h);
    if (st != CG_OK)
        return cg_fail(why, st, "%s size %dx%d is invalid: width and height must be 1..%d",
                       what ? what : "image", w, h, CG_MAX_DIM);
    return CG_OK;
}

cg_status cg_mul_size(size_t a, size_t b, size_t *out)
{
    CG_RETURN_IF(out == NULL, CG_E_INVALID_ARG);
    CG_RETURN_IF(b != 0 && a > SIZE_MAX / b, CG_E_OVERFLOW);
    *out = a * b;
    return CG_OK;
}

cg_status cg_image_size(int w, int h, int bpp, size_t *out)
{
    size_t px;
    CG_RETURN_IF(out == NULL || bpp < 1 || bpp > 16, CG_E_INVALID_ARG);
    CG_TRY(cg_check_dims(w, h));
    CG_TRY(cg_mul_size((size_t)w, (size_t)h, &px));
    return cg_mul_size(px, (size_t)bpp, out);
}
