/* Reverse-Z depth linearisation (formulas in docs/wire-format.md, "Depth"). */
#include <math.h>

#include "cg_frame.h"

cg_status cg_depth_linearize(float *depth, size_t n, float near_plane, float far_plane,
                             int zero_to_one)
{
    CG_RETURN_IF(depth == NULL, CG_E_INVALID_ARG);
    /* The negated comparisons also reject NaN. */
    CG_RETURN_IF(!isfinite(near_plane) || !isfinite(far_plane), CG_E_INVALID_ARG);
    CG_RETURN_IF(!(near_plane > 0.0f) || !(far_plane > near_plane), CG_E_INVALID_ARG);

    /* Divide z by far up front: z/f = n / (n + d*(f-n)), and likewise for
     * the [-1, 1] range. Double keeps the result within one float ulp. */
    const double nn = near_plane, ff = far_plane, range = ff - nn;
    if (zero_to_one) {
        for (size_t i = 0; i < n; i++)
            depth[i] = (float)(nn / (nn + (double)depth[i] * range));
    } else {
        for (size_t i = 0; i < n; i++)
            depth[i] = (float)(2.0 * nn / (nn + ff + (2.0 * (double)depth[i] - 1.0) * range));
    }
    return CG_OK;
}
