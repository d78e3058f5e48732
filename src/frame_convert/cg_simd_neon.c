/*
 * AArch64 row kernels: NEON is part of the base ISA, so always available.
 * Built only on aarch64 (CMake picks this file instead of cg_simd_x86.c).
 */
#include <arm_neon.h>

#include "cg_frame_internal.h"

static void pack_neon(const uint8_t *src, uint8_t *dst, int n)
{
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        uint8x16x4_t v = vld4q_u8(src + 4 * i);
        uint8x16x3_t o = {{v.val[0], v.val[1], v.val[2]}};
        vst3q_u8(dst + 3 * i, o);
    }
    cg_row_pack_portable(src + 4 * i, dst + 3 * i, n - i);
}

int cg_simd_arch_available(cg_simd_level level)
{
    return level == CG_SIMD_NEON;
}

cg_status cg_simd_arch_kernels(cg_simd_level level, cg_row_kernels *out)
{
    CG_RETURN_IF(level != CG_SIMD_NEON, CG_E_UNSUPPORTED);
    out->pack = pack_neon;
    out->gather = cg_row_gather_portable;
    return CG_OK;
}
