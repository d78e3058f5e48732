/* Architectures without a SIMD path: only the scalar reference runs. */
#include "cg_frame_internal.h"

int cg_simd_arch_available(cg_simd_level level)
{
    (void)level;
    return 0;
}

cg_status cg_simd_arch_kernels(cg_simd_level level, cg_row_kernels *out)
{
    (void)level;
    (void)out;
    return CG_E_UNSUPPORTED;
}
