/*
 * Fuzz target for the size helpers (cg_check_dims, cg_image_size,
 * cg_mul_size): arbitrary ints and sizes, each result held to an oracle
 * computed here in 128-bit arithmetic from the documented rules.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t take(const uint8_t **d, size_t *n, size_t bytes)
{
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; i++) {
        v = v << 8 | (*n ? **d : 0);
        if (*n) {
            (*d)++;
            (*n)--;
        }
    }
    return v;
}

static cg_status want_dims(int w, int h)
{
    if (w <= 0 || h <= 0) return CG_E_INVALID_ARG;
    if (w > CG_MAX_DIM || h > CG_MAX_DIM) return CG_E_TOO_LARGE;
    return CG_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const int w = (int)(int32_t)(uint32_t)take(&data, &size, 4);
    const int h = (int)(int32_t)(uint32_t)take(&data, &size, 4);
    const int bpp = (int)(int8_t)take(&data, &size, 1);
    const size_t a = (size_t)take(&data, &size, sizeof(size_t));
    const size_t b = (size_t)take(&data, &size, sizeof(size_t));

    if (cg_check_dims(w, h) != want_dims(w, h)) abort();

    size_t got = 12345;
    cg_status st = cg_image_size(w, h, bpp, &got);
    cg_status want = bpp < 1 || bpp > 16 ? CG_E_INVALID_ARG : want_dims(w, h);
    unsigned __int128 prod = 0;
    if (want == CG_OK) {
        prod = (unsigned __int128)(unsigned)w * (unsigned)h * (unsigned)bpp;
        if (prod > SIZE_MAX) want = CG_E_OVERFLOW;
    }
    if (st != want) abort();
    if (st == CG_OK && got != (size_t)prod) abort();
    if (cg_image_size(w, h, bpp, NULL) != CG_E_INVALID_ARG) abort();

    got = 12345;
    st = cg_mul_size(a, b, &got);
    prod = (unsigned __int128)a * b;
    if (st != (prod > SIZE_MAX ? CG_E_OVERFLOW : CG_OK)) abort();
    if (st == CG_OK && got != (size_t)prod) abort();
    if (cg_mul_size(a, b, NULL) != CG_E_INVALID_ARG) abort();
    return 0;
}
