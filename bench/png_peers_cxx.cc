// png_peers_cxx.cc - the C++ peers of bench_core's PNG comparison (fpnge,
// fpng), each with its own defaults, built from the source directories given
// to the configure step (bench/core.cmake) for this CPU (-march=native; fpnge
// by clang++ where there is one, as its build.sh).
#include <cstdlib>
#include <cstring>
#include <vector>

#include "png_peers.h"

static size_t give(const void *p, size_t n, uint8_t **out, size_t *cap)
{
    if (*cap < n) {
        void *q = realloc(*out, n);
        if (q == nullptr) return 0;
        *out = static_cast<uint8_t *>(q);
        *cap = n;
    }
    std::memcpy(*out, p, n);
    return n;
}

#ifdef CG_BENCH_FPNGE
#include "fpnge.h"

extern "C" size_t cg_bench_fpnge(const uint8_t *rgb, int w, int h, uint8_t **out, size_t *cap)
{
    const size_t need = FPNGEOutputAllocSize(1, 3, (size_t)w, (size_t)h);
    if (*cap < need) {
        void *q = realloc(*out, need);
        if (q == nullptr) return 0;
        *out = static_cast<uint8_t *>(q);
        *cap = need;
    }
    FPNGEOptions o;
    FPNGEFillOptions(&o, FPNGE_COMPRESS_LEVEL_DEFAULT, FPNGE_CICP_NONE);
    return FPNGEEncode(1, 3, rgb, (size_t)w, (size_t)w * 3, (size_t)h, *out, &o);
}
#endif

#ifdef CG_BENCH_FPNG
#include "fpng.h"

extern "C" size_t cg_bench_fpng(const uint8_t *rgb, int w, int h, uint8_t **out, size_t *cap)
{
    static bool init = (fpng::fpng_init(), true);
    (void)init;
    static thread_local std::vector<uint8_t> buf; // fpng's API fills a vector
    if (!fpng::fpng_encode_image_to_memory(rgb, (uint32_t)w, (uint32_t)h, 3, buf)) return 0;
    return give(buf.data(), buf.size(), out, cap);
}
#endif
