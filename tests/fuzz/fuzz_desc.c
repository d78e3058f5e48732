/*
 * Fuzz target for the zero-copy v2 descriptor (cg_zc_desc_decode, versions
 * 1 to 3, docs/zero-copy-v2/protocol.md): arbitrary bytes never crash the decoder,
 * and whatever it accepts holds to the document, checked here in 128-bit
 * arithmetic: a version 3 descriptor's planes lie inside the slot without
 * overlapping and its depth fields agree with its encoding; the encoder
 * gives back a descriptor of the same version and length that decodes to
 * the same bytes again.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg_zc_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_planes(const cg_zc_desc *d)
{
    typedef unsigned __int128 u128;
    const u128 px = (u128)d->width * d->height, e1 = d->eyes - 1;
    if (d->format != CG_ZC_FORMAT_R8G8B8_UNORM || d->eyes < 1 || d->eyes > 2) abort();
    u128 color_end = e1 * d->color_eye_stride + px * 3;
    if (color_end > d->slot_size) abort();
    if (d->eyes == 2 && d->color_eye_stride < px * 3) abort();
    if (d->depth_format == 0) {
        if (d->depth_encoding || d->depth_offset || d->depth_eye_stride || d->depth_row_pitch ||
            d->depth_flags || d->near_plane != 0 || d->far_plane != 0 || signbit(d->near_plane) ||
            signbit(d->far_plane))
            abort();
        return;
    }
    if (d->depth_format != CG_ZC_FORMAT_R32_SFLOAT || d->depth_row_pitch != (u128)d->width * 4 ||
        d->depth_offset % 4 || d->depth_eye_stride % 4 || d->depth_flags & ~1u)
        abort();
    if (d->depth_offset + e1 * d->depth_eye_stride + px * 4 > d->slot_size) abort();
    if ((u128)d->depth_offset < color_end) abort();
    if (d->eyes == 2 && d->depth_eye_stride < px * 4) abort();
    if (d->depth_encoding == CG_ZC_DEPTH_LINEAR) {
        if (!(d->near_plane > 0 && d->near_plane < d->far_plane && isfinite(d->far_plane))) abort();
    } else if (d->depth_encoding == CG_ZC_DEPTH_RAW) {
        if (d->depth_flags || d->near_plane != 0 || d->far_plane != 0 || signbit(d->near_plane) ||
            signbit(d->far_plane))
            abort();
    } else {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cg_zc_desc d;
    cg_err err = {{0}};
    cg_status st = cg_zc_desc_decode(data, size, &d, &err);
    if (st != CG_OK) {
        if (!err.text[0] && data && size >= 8) abort(); /* every refusal says why */
        return 0;
    }
    const unsigned version = (unsigned)(data[4] | data[5] << 8);
    if (version < 1 || version > 3) abort();
    if (version == 3)
        check_planes(&d);
    else if (d.eyes != 1 || d.depth_format != 0)
        abort();

    uint8_t a[CG_ZC_DESC_MAX_SIZE], b[CG_ZC_DESC_MAX_SIZE];
    if (cg_zc_desc_encode(&d, a, sizeof a) != CG_OK) abort();
    /* The encoder writes the lowest version that says it all: 3 only for two
     * eyes or a depth plane (a version 3 descriptor of one eye without depth
     * is valid, and comes back as version 2). */
    const int planes = d.eyes > 1 || d.depth_format != 0;
    const size_t len = cg_zc_desc_length(a);
    if (len != (planes ? CG_ZC_DESC_V3_SIZE : CG_ZC_DESC_SIZE)) abort();
    const unsigned wrote = (unsigned)(a[4] | a[5] << 8);
    if (planes ? wrote != 3 : wrote > 2) abort();
    cg_zc_desc o;
    if (cg_zc_desc_decode(a, len, &o, &err) != CG_OK) abort();
    if (cg_zc_desc_encode(&o, b, sizeof b) != CG_OK || memcmp(a, b, len) != 0) abort();
    return 0;
}
