/*
 * cg_zc_proto.c - descriptor, hello and control block of zero-copy v2
 * (cg_zc_proto.h, docs/zero-copy-v2/protocol.md). Encoding is byte by byte, so the
 * wire is little-endian whatever the host is.
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "cg_zc_proto.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "cg_zc_transport.h"

static const uint8_t DESC_MAGIC[4] = {'C', 'G', 'Z', '2'};
static const uint8_t HELLO_MAGIC[4] = {'C', 'G', 'Z', 'H'};
static const uint8_t CONTROL_MAGIC[4] = {'C', 'G', 'Z', 'C'};

_Static_assert(sizeof(_Atomic uint64_t) == 8, "lease words are 8 bytes");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "lease words must be lock-free to be shared");

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t get32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
/* near and far travel as their IEEE-754 bits. */
static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

cg_status cg_zc_desc_encode(const cg_zc_desc *d, uint8_t *out, size_t cap)
{
    CG_RETURN_IF(!d || !out, CG_E_INVALID_ARG);
    int v3 = d->eyes > 1 || d->depth_format != 0;
    size_t length = v3 ? CG_ZC_DESC_V3_SIZE : CG_ZC_DESC_SIZE;
    CG_RETURN_IF(cap < length, CG_E_BUFFER_TOO_SMALL);
    memset(out, 0, length);
    memcpy(out, DESC_MAGIC, 4);
    int v1 = d->format != CG_ZC_FORMAT_R8G8B8_UNORM && d->flags == 0;
    put16(out + CG_ZC_DESC_OFF_VERSION, v3 ? 3 : v1 ? 1 : 2);
    put16(out + CG_ZC_DESC_OFF_LENGTH, (uint16_t)length);
    put32(out + CG_ZC_DESC_OFF_FORMAT, d->format);
    put32(out + CG_ZC_DESC_OFF_WIDTH, d->width);
    put32(out + CG_ZC_DESC_OFF_HEIGHT, d->height);
    put32(out + CG_ZC_DESC_OFF_ROW_PITCH, d->row_pitch);
    put32(out + CG_ZC_DESC_OFF_SLOT_COUNT, d->slot_count);
    put32(out + CG_ZC_DESC_OFF_MODE, d->mode);
    memcpy(out + CG_ZC_DESC_OFF_DEVICE_UUID, d->device_uuid, CG_DEVICE_UUID_SIZE);
    put64(out + CG_ZC_DESC_OFF_RING_ID, d->ring_id);
    put64(out + CG_ZC_DESC_OFF_SLOT_SIZE, d->slot_size);
    put32(out + CG_ZC_DESC_OFF_SLOT, d->slot);
    put32(out + CG_ZC_DESC_OFF_FLAGS, d->flags);
    put64(out + CG_ZC_DESC_OFF_FRAME, d->frame);
    size_t n = strnlen(d->socket_path, CG_ZC_PATH_SIZE - 1);
    memcpy(out + CG_ZC_DESC_OFF_SOCKET_PATH, d->socket_path, n); /* the rest stays NUL */
    if (!v3) return CG_OK;
    put32(out + CG_ZC_DESC_OFF_EYES, d->eyes ? d->eyes : 1);
    put32(out + CG_ZC_DESC_OFF_DEPTH_FORMAT, d->depth_format);
    put64(out + CG_ZC_DESC_OFF_COLOR_EYE_STRIDE, d->color_eye_stride);
    put64(out + CG_ZC_DESC_OFF_DEPTH_OFFSET, d->depth_offset);
    put64(out + CG_ZC_DESC_OFF_DEPTH_EYE_STRIDE, d->depth_eye_stride);
    put32(out + CG_ZC_DESC_OFF_DEPTH_ROW_PITCH, d->depth_row_pitch);
    put32(out + CG_ZC_DESC_OFF_DEPTH_ENCODING, d->depth_encoding);
    put32(out + CG_ZC_DESC_OFF_DEPTH_FLAGS, d->depth_flags);
    put32(out + CG_ZC_DESC_OFF_NEAR, float_bits(d->near_plane));
    put32(out + CG_ZC_DESC_OFF_FAR, float_bits(d->far_plane));
    return CG_OK; /* 244..255 reserved, 0 */
}

/* Bytes per pixel of a format this version knows; 0 for any other. */
static uint32_t format_bpp(uint32_t f, uint16_t version)
{
    if (f == CG_ZC_FORMAT_R8G8B8A8_UNORM || f == CG_ZC_FORMAT_R8G8B8A8_SRGB ||
        f == CG_ZC_FORMAT_B8G8R8A8_UNORM || f == CG_ZC_FORMAT_B8G8R8A8_SRGB)
        return 4;
    if (f == CG_ZC_FORMAT_R8G8B8_UNORM && version >= 2) return 3;
    return 0;
}

#define V3 "zero-copy descriptor version 3: "

/* Version 3's plane fields (offsets 192..243) of a descriptor whose
 * version 2 fields are valid already: every refusal of docs/zero-copy-v2/protocol.md
 * "Descriptor versions", each naming the field and its value. */
static cg_status decode_planes(const uint8_t *in, cg_zc_desc *d, cg_err *err)
{
    d->eyes = get32(in + CG_ZC_DESC_OFF_EYES);
    d->depth_format = get32(in + CG_ZC_DESC_OFF_DEPTH_FORMAT);
    d->color_eye_stride = get64(in + CG_ZC_DESC_OFF_COLOR_EYE_STRIDE);
    d->depth_offset = get64(in + CG_ZC_DESC_OFF_DEPTH_OFFSET);
    d->depth_eye_stride = get64(in + CG_ZC_DESC_OFF_DEPTH_EYE_STRIDE);
    d->depth_row_pitch = get32(in + CG_ZC_DESC_OFF_DEPTH_ROW_PITCH);
    d->depth_encoding = get32(in + CG_ZC_DESC_OFF_DEPTH_ENCODING);
    d->depth_flags = get32(in + CG_ZC_DESC_OFF_DEPTH_FLAGS);
    uint32_t near_bits = get32(in + CG_ZC_DESC_OFF_NEAR);
    uint32_t far_bits = get32(in + CG_ZC_DESC_OFF_FAR);
    d->near_plane = bits_float(near_bits);
    d->far_plane = bits_float(far_bits);
    const unsigned long long slot_size = d->slot_size;
    const uint64_t px = (uint64_t)d->width * d->height; /* <= 2^28: no product below overflows */

    if (d->format != CG_ZC_FORMAT_R8G8B8_UNORM)
        return cg_fail(err, CG_E_PROTOCOL, V3 "format %u, must be 23 (R8G8B8_UNORM)", d->format);
    if (d->eyes < 1 || d->eyes > CG_ZC_MAX_EYES)
        return cg_fail(err, CG_E_PROTOCOL, V3 "eyes %u, must be 1 or 2", d->eyes);
    if (d->depth_format != 0 && d->depth_format != CG_ZC_FORMAT_R32_SFLOAT)
        return cg_fail(err, CG_E_PROTOCOL, V3 "depth_format %u, must be 0 or 100", d->depth_format);
    if (d->depth_flags & ~CG_ZC_DEPTH_FLAGS_KNOWN)
        return cg_fail(err, CG_E_PROTOCOL, V3 "depth_flags 0x%x has unknown bits", d->depth_flags);
    if (d->depth_format == 0) {
        if (d->depth_encoding || d->depth_offset || d->depth_eye_stride || d->depth_row_pitch ||
            d->depth_flags || near_bits || far_bits)
            return cg_fail(err, CG_E_PROTOCOL,
                           V3 "depth_format 0 (no depth plane) with depth_encoding %u, "
                              "depth_offset %llu, depth_eye_stride %llu, depth_row_pitch %u, "
                              "depth_flags 0x%x, near bits 0x%08x, far bits 0x%08x: all must be 0",
                           d->depth_encoding, (unsigned long long)d->depth_offset,
                           (unsigned long long)d->depth_eye_stride, d->depth_row_pitch,
                           d->depth_flags, near_bits, far_bits);
    } else {
        if (d->depth_encoding != CG_ZC_DEPTH_LINEAR && d->depth_encoding != CG_ZC_DEPTH_RAW)
            return cg_fail(err, CG_E_PROTOCOL, V3 "depth_encoding %u, must be 1 or 2",
                           d->depth_encoding);
        if (d->depth_row_pitch != (uint64_t)d->width * 4)
            return cg_fail(err, CG_E_PROTOCOL, V3 "depth_row_pitch %u, must be width*4 = %llu",
                           d->depth_row_pitch, (unsigned long long)d->width * 4);
        if (d->depth_offset % 4 || d->depth_eye_stride % 4)
            return cg_fail(err, CG_E_PROTOCOL,
                           V3 "depth_offset %llu, depth_eye_stride %llu: must be multiples of 4",
                           (unsigned long long)d->depth_offset,
                           (unsigned long long)d->depth_eye_stride);
        if (d->eyes == 2 && d->depth_eye_stride < px * 4)
            return cg_fail(err, CG_E_PROTOCOL, V3 "depth_eye_stride %llu < width*height*4 = %llu",
                           (unsigned long long)d->depth_eye_stride, (unsigned long long)(px * 4));
        if (d->depth_encoding == CG_ZC_DEPTH_LINEAR &&
            !(isfinite(d->near_plane) && isfinite(d->far_plane) && d->near_plane > 0 &&
              d->near_plane < d->far_plane))
            return cg_fail(err, CG_E_PROTOCOL,
                           V3 "linear depth with near %g, far %g: needs finite 0 < near < far",
                           (double)d->near_plane, (double)d->far_plane);
        if (d->depth_encoding == CG_ZC_DEPTH_RAW && (d->depth_flags || near_bits || far_bits))
            return cg_fail(err, CG_E_PROTOCOL,
                           V3 "raw depth with depth_flags 0x%x, near bits 0x%08x, far bits 0x%08x: "
                              "all must be 0",
                           d->depth_flags, near_bits, far_bits);
    }
    if (d->eyes == 2 && d->color_eye_stride < px * 3)
        return cg_fail(err, CG_E_PROTOCOL, V3 "color_eye_stride %llu < width*height*3 = %llu",
                       (unsigned long long)d->color_eye_stride, (unsigned long long)(px * 3));
    /* End of the colour planes; compared by subtraction so that no sum of
     * the producer's 64-bit fields can wrap. */
    uint64_t color_last = d->eyes == 2 ? d->color_eye_stride : 0;
    if (color_last > d->slot_size || d->slot_size - color_last < px * 3)
        return cg_fail(err, CG_E_PROTOCOL,
                       V3 "RGB planes (eyes %u, color_eye_stride %llu, %llu bytes each) do not fit "
                          "in slot_size %llu",
                       d->eyes, (unsigned long long)d->color_eye_stride,
                       (unsigned long long)(px * 3), slot_size);
    if (d->depth_format == 0) return CG_OK;
    uint64_t color_end = color_last + px * 3;
    uint64_t depth_last = d->eyes == 2 ? d->depth_eye_stride : 0;
    if (d->depth_offset > d->slot_size || depth_last > d->slot_size - d->depth_offset ||
        d->slot_size - d->depth_offset - depth_last < px * 4)
        return cg_fail(err, CG_E_PROTOCOL,
                       V3 "depth planes (depth_offset %llu, depth_eye_stride %llu, %llu bytes "
                          "each) do not fit in slot_size %llu",
                       (unsigned long long)d->depth_offset, (unsigned long long)d->depth_eye_stride,
                       (unsigned long long)(px * 4), slot_size);
    if (d->depth_offset < color_end)
        return cg_fail(err, CG_E_PROTOCOL,
                       V3 "depth_offset %llu overlaps the RGB planes, which end at %llu",
                       (unsigned long long)d->depth_offset, (unsigned long long)color_end);
    return CG_OK;
}

cg_status cg_zc_desc_decode(const uint8_t *in, size_t len, cg_zc_desc *d, cg_err *err)
{
    CG_RETURN_IF(!in || !d, CG_E_INVALID_ARG);
    memset(d, 0, sizeof *d);
    if (len < 8)
        return cg_fail(err, CG_E_BUFFER_TOO_SMALL,
                       "zero-copy descriptor: %zu bytes, a v2 descriptor has %d", len,
                       CG_ZC_DESC_SIZE);
    if (memcmp(in, DESC_MAGIC, 4) != 0)
        return cg_fail(err, CG_E_PROTOCOL,
                       "zero-copy descriptor: magic %02x %02x %02x %02x is not CGZ2 (%zu bytes%s)",
                       in[0], in[1], in[2], in[3], len,
                       len == 68 ? ": a v1 CUDA IPC handle" : "");
    uint16_t version = get16(in + CG_ZC_DESC_OFF_VERSION);
    uint16_t length = get16(in + CG_ZC_DESC_OFF_LENGTH);
    if (version < CG_ZC_DESC_VERSION_MIN || version > CG_ZC_DESC_VERSION)
        return cg_fail(err, CG_E_UNSUPPORTED,
                       "zero-copy descriptor version %u: this library reads versions %d to %d",
                       version, CG_ZC_DESC_VERSION_MIN, CG_ZC_DESC_VERSION);
    if (length < CG_ZC_DESC_SIZE)
        return cg_fail(err, CG_E_PROTOCOL, "zero-copy descriptor: length field %u < %d", length,
                       CG_ZC_DESC_SIZE);
    if (version == 3 && length != CG_ZC_DESC_V3_SIZE)
        return cg_fail(err, CG_E_PROTOCOL,
                       "zero-copy descriptor version 3: length field %u, must be %d", length,
                       CG_ZC_DESC_V3_SIZE);
    if (len < length)
        return cg_fail(err, CG_E_BUFFER_TOO_SMALL,
                       "zero-copy descriptor truncated: %zu bytes of %u", len, length);
    d->format = get32(in + CG_ZC_DESC_OFF_FORMAT);
    d->width = get32(in + CG_ZC_DESC_OFF_WIDTH);
    d->height = get32(in + CG_ZC_DESC_OFF_HEIGHT);
    d->row_pitch = get32(in + CG_ZC_DESC_OFF_ROW_PITCH);
    d->slot_count = get32(in + CG_ZC_DESC_OFF_SLOT_COUNT);
    d->mode = get32(in + CG_ZC_DESC_OFF_MODE);
    memcpy(d->device_uuid, in + CG_ZC_DESC_OFF_DEVICE_UUID, CG_DEVICE_UUID_SIZE);
    d->ring_id = get64(in + CG_ZC_DESC_OFF_RING_ID);
    d->slot_size = get64(in + CG_ZC_DESC_OFF_SLOT_SIZE);
    d->slot = get32(in + CG_ZC_DESC_OFF_SLOT);
    d->flags = version >= 2 ? get32(in + CG_ZC_DESC_OFF_FLAGS) : 0; /* reserved in version 1 */
    d->frame = get64(in + CG_ZC_DESC_OFF_FRAME);
    const uint8_t *path = in + CG_ZC_DESC_OFF_SOCKET_PATH;
    if (!memchr(path, 0, CG_ZC_PATH_SIZE) || path[0] == 0)
        return cg_fail(err, CG_E_PROTOCOL, "zero-copy descriptor: socket path empty or unterminated");
    memcpy(d->socket_path, path, CG_ZC_PATH_SIZE);

    uint32_t bpp = format_bpp(d->format, version);
    if (!bpp)
        return cg_fail(err, CG_E_PROTOCOL, "zero-copy descriptor: format %u unknown in version %u",
                       d->format, version);
    if (d->flags & ~CG_ZC_FLAGS_KNOWN)
        return cg_fail(err, CG_E_PROTOCOL, "zero-copy descriptor: flags 0x%x has unknown bits",
                       d->flags);
    if (bpp == 3 && (d->flags & CG_ZC_FLAG_ROWS_BOTTOM_UP))
        return cg_fail(err, CG_E_PROTOCOL,
                       "zero-copy descriptor: format 23 is upright; ROWS_BOTTOM_UP is not allowed");
    if (d->width < 1 || d->height < 1 || d->width > CG_MAX_DIM || d->height > CG_MAX_DIM)
        return cg_fail(err, CG_E_PROTOCOL, "zero-copy descriptor: size %ux%u out of range",
                       d->width, d->height);
    uint64_t pitch_min = (uint64_t)d->width * bpp;
    if (d->row_pitch < pitch_min || (bpp == 3 && d->row_pitch != pitch_min) ||
        (uint64_t)d->row_pitch * d->height > d->slot_size)
        return cg_fail(err, CG_E_PROTOCOL,
                       "zero-copy descriptor: row pitch %u for width %u and slot size %llu",
                       d->row_pitch, d->width, (unsigned long long)d->slot_size);
    if (d->slot_count < 1 || d->slot_count > CG_ZC_MAX_SLOTS || d->slot >= d->slot_count)
        return cg_fail(err, CG_E_PROTOCOL, "zero-copy descriptor: slot %u of %u", d->slot,
                       d->slot_count);
    if (d->mode != CG_ZC_MODE_SEMAPHORE && d->mode != CG_ZC_MODE_FENCE)
        return cg_fail(err, CG_E_PROTOCOL, "zero-copy descriptor: mode %u unknown", d->mode);
    /* Frame 0 is the template init returns: it names no frame. */
    if (d->ring_id == 0 || d->frame > CG_ZC_MAX_FRAME)
        return cg_fail(err, CG_E_PROTOCOL, "zero-copy descriptor: ring id %llu, frame %llu",
                       (unsigned long long)d->ring_id, (unsigned long long)d->frame);
    d->eyes = 1;
    return version == 3 ? decode_planes(in, d, err) : CG_OK;
}

static uint64_t round_up(uint64_t v, uint64_t m) { return (v + m - 1) / m * m; }

cg_status cg_zc_planes_layout(int w, int h, uint32_t eyes, int depth, cg_zc_planes *out)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    memset(out, 0, sizeof *out);
    size_t rgb, dep;
    CG_TRY(cg_image_size(w, h, 3, &rgb));
    CG_TRY(cg_image_size(w, h, 4, &dep));
    CG_RETURN_IF(eyes < 1 || eyes > CG_ZC_MAX_EYES, CG_E_INVALID_ARG);
    /* Dims are at most 16384, so these 64-bit sums stay below 2^33; only
     * the total is checked against size_t, the type the producers allocate
     * and map with. */
    cg_zc_planes p;
    memset(&p, 0, sizeof p);
    p.rgb_bytes = round_up(rgb, 12);
    p.color_eye_stride = round_up(p.rgb_bytes, 256);
    p.frame_bytes = eyes * p.color_eye_stride;
    if (depth) {
        p.depth_offset = p.frame_bytes;
        p.depth_eye_stride = round_up(dep, 256);
        p.frame_bytes = p.depth_offset + eyes * p.depth_eye_stride;
    }
    CG_RETURN_IF(p.frame_bytes > SIZE_MAX, CG_E_OVERFLOW);
    *out = p;
    return CG_OK;
}

void cg_zc_hello_encode(const cg_zc_hello *h, uint8_t out[CG_ZC_HELLO_SIZE])
{
    memset(out, 0, CG_ZC_HELLO_SIZE);
    memcpy(out, HELLO_MAGIC, 4);
    put16(out + CG_ZC_HELLO_OFF_VERSION, CG_ZC_VERSION);
    put16(out + CG_ZC_HELLO_OFF_STATUS, h->status);
    put64(out + CG_ZC_HELLO_OFF_RING_ID, h->ring_id);
    put32(out + CG_ZC_HELLO_OFF_SLOT_COUNT, h->slot_count);
    put32(out + CG_ZC_HELLO_OFF_FD_COUNT, h->fd_count);
    put64(out + CG_ZC_HELLO_OFF_SLOT_SIZE, h->slot_size);
    put32(out + CG_ZC_HELLO_OFF_MODE, h->mode);
    put32(out + CG_ZC_HELLO_OFF_CONTROL_SIZE, h->control_size);
}

cg_status cg_zc_hello_decode(const uint8_t *in, size_t len, cg_zc_hello *h, cg_err *err)
{
    CG_RETURN_IF(!in || !h, CG_E_INVALID_ARG);
    memset(h, 0, sizeof *h);
    if (len < CG_ZC_HELLO_SIZE)
        return cg_fail(err, CG_E_BUFFER_TOO_SMALL, "zero-copy hello truncated: %zu bytes of %d",
                       len, CG_ZC_HELLO_SIZE);
    if (memcmp(in, HELLO_MAGIC, 4) != 0)
        return cg_fail(err, CG_E_PROTOCOL, "zero-copy hello: bad magic");
    if (get16(in + CG_ZC_HELLO_OFF_VERSION) != CG_ZC_VERSION)
        return cg_fail(err, CG_E_UNSUPPORTED, "zero-copy hello version %u: this library reads %d",
                       get16(in + CG_ZC_HELLO_OFF_VERSION), CG_ZC_VERSION);
    h->status = get16(in + CG_ZC_HELLO_OFF_STATUS);
    h->ring_id = get64(in + CG_ZC_HELLO_OFF_RING_ID);
    h->slot_count = get32(in + CG_ZC_HELLO_OFF_SLOT_COUNT);
    h->fd_count = get32(in + CG_ZC_HELLO_OFF_FD_COUNT);
    h->slot_size = get64(in + CG_ZC_HELLO_OFF_SLOT_SIZE);
    h->mode = get32(in + CG_ZC_HELLO_OFF_MODE);
    h->control_size = get32(in + CG_ZC_HELLO_OFF_CONTROL_SIZE);
    return CG_OK;
}

/* ---- control block ------------------------------------------------------ */

static _Atomic uint64_t *word_at(const cg_zc_control *c, uint32_t slot)
{
    return (_Atomic uint64_t *)(void *)(c->map + CG_ZC_SLOT_STRIDE + (size_t)slot * CG_ZC_SLOT_STRIDE);
}

static _Atomic uint32_t *producer_word(const cg_zc_control *c)
{
    return (_Atomic uint32_t *)(void *)(c->map + 24);
}

cg_status cg_zc_control_create(uint32_t slot_count, uint64_t ring_id, cg_zc_control *c,
                               cg_err *err)
{
    CG_RETURN_IF(!c, CG_E_INVALID_ARG);
    memset(c, 0, sizeof *c);
    c->handle = CG_OSHANDLE_INVALID;
    CG_RETURN_IF(slot_count < 1 || slot_count > CG_ZC_MAX_SLOTS, CG_E_INVALID_ARG);
    cg_oshandle h;
    uint8_t *m;
    CG_TRY(cg_zc_shm_create("cg-zc-control", CG_ZC_CONTROL_SIZE, &h, &m, err));
    c->map = m;
    c->handle = h;
    c->slot_count = slot_count;
    c->ring_id = ring_id;
    memcpy(c->map, CONTROL_MAGIC, 4);
    put32(c->map + 4, CG_ZC_VERSION);
    put32(c->map + 8, slot_count);
    put32(c->map + 12, CG_ZC_SLOT_STRIDE);
    put64(c->map + 16, ring_id);
    atomic_store(producer_word(c), 1u);
    static const uint64_t zero[CG_ZC_COUNTERS];
    cg_zc_control_put_counters(c, zero);
    for (uint32_t i = 0; i < slot_count; i++) atomic_store(word_at(c, i), CG_ZC_WORD(0, CG_ZC_EMPTY));
    return CG_OK;
}

cg_status cg_zc_control_map(cg_oshandle h, uint32_t slot_count, uint64_t ring_id,
                            cg_zc_control *c, cg_err *err)
{
    CG_RETURN_IF(!c, CG_E_INVALID_ARG);
    memset(c, 0, sizeof *c);
    c->handle = CG_OSHANDLE_INVALID;
    CG_RETURN_IF(!cg_oshandle_valid(h), CG_E_INVALID_ARG);
    uint8_t *m;
    CG_TRY(cg_zc_shm_map(h, CG_ZC_CONTROL_SIZE, &m, err));
    c->map = m;
    c->slot_count = slot_count;
    c->ring_id = ring_id;
    if (memcmp(c->map, CONTROL_MAGIC, 4) != 0 || get32(c->map + 4) != CG_ZC_VERSION ||
        get32(c->map + 8) != slot_count || get32(c->map + 12) != CG_ZC_SLOT_STRIDE ||
        get64(c->map + 16) != ring_id || slot_count < 1 || slot_count > CG_ZC_MAX_SLOTS) {
        cg_zc_control_free(c);
        return cg_fail(err, CG_E_PROTOCOL,
                       "zero-copy control block does not match the hello (magic, version, "
                       "slot count or ring id)");
    }
    return CG_OK;
}

void cg_zc_control_free(cg_zc_control *c)
{
    /* A control owns a handle only beside its mapping (create sets both, map only
     * the mapping): a zeroed one, whose handle field reads 0, owns nothing. */
    if (!c || !c->map) return;
    cg_zc_shm_free(c->handle, c->map, CG_ZC_CONTROL_SIZE);
    c->map = NULL;
    c->handle = CG_OSHANDLE_INVALID;
}

uint64_t cg_zc_lease_load(const cg_zc_control *c, uint32_t slot)
{
    return atomic_load(word_at(c, slot));
}

int cg_zc_lease_cas(cg_zc_control *c, uint32_t slot, uint64_t *expected, uint64_t desired)
{
    return atomic_compare_exchange_strong(word_at(c, slot), expected, desired) ? 1 : 0;
}

void cg_zc_lease_store(cg_zc_control *c, uint32_t slot, uint64_t word)
{
    atomic_store(word_at(c, slot), word);
}

static const char *state_name(cg_zc_state s)
{
    static const char *const names[] = {"EMPTY", "WRITING", "PUBLISHED",
                                        "ACTIVE", "RELEASED", "CLOSED"};
    return (unsigned)s < 6 ? names[s] : "unknown";
}

cg_status cg_zc_acquire(cg_zc_control *c, uint32_t slot, uint64_t frame, cg_err *err)
{
    CG_RETURN_IF(!c || !c->map, CG_E_INVALID_ARG);
    if (slot >= c->slot_count) return cg_fail(err, CG_E_INVALID_ARG, "slot %u of %u", slot, c->slot_count);
    uint64_t want = CG_ZC_WORD(frame, CG_ZC_PUBLISHED);
    uint64_t cur = want;
    if (cg_zc_lease_cas(c, slot, &cur, CG_ZC_WORD(frame, CG_ZC_ACTIVE))) return CG_OK;
    if (cur == CG_ZC_WORD(frame, CG_ZC_ACTIVE)) return CG_OK;
    if (CG_ZC_WORD_STATE(cur) == CG_ZC_CLOSED)
        return cg_fail(err, CG_E_NOT_INITIALIZED, "the zero-copy ring was destroyed");
    return cg_fail(err, CG_E_STALE, "slot %u holds frame %llu (%s), not frame %llu", slot,
                   (unsigned long long)CG_ZC_WORD_FRAME(cur), state_name(CG_ZC_WORD_STATE(cur)),
                   (unsigned long long)frame);
}

cg_status cg_zc_release(cg_zc_control *c, uint32_t slot, uint64_t frame, cg_err *err)
{
    CG_RETURN_IF(!c || !c->map, CG_E_INVALID_ARG);
    if (slot >= c->slot_count) return cg_fail(err, CG_E_INVALID_ARG, "slot %u of %u", slot, c->slot_count);
    uint64_t cur = CG_ZC_WORD(frame, CG_ZC_ACTIVE);
    if (cg_zc_lease_cas(c, slot, &cur, CG_ZC_WORD(frame, CG_ZC_RELEASED))) return CG_OK;
    return cg_fail(err, CG_E_BAD_STATE, "release of slot %u frame %llu: it is frame %llu, %s",
                   slot, (unsigned long long)frame, (unsigned long long)CG_ZC_WORD_FRAME(cur),
                   state_name(CG_ZC_WORD_STATE(cur)));
}

uint32_t cg_zc_control_reclaim(cg_zc_control *c)
{
    uint32_t n = 0;
    if (!c || !c->map) return 0;
    for (uint32_t i = 0; i < c->slot_count; i++) {
        uint64_t cur = cg_zc_lease_load(c, i);
        if (CG_ZC_WORD_STATE(cur) != CG_ZC_ACTIVE) continue;
        if (cg_zc_lease_cas(c, i, &cur, CG_ZC_WORD(CG_ZC_WORD_FRAME(cur), CG_ZC_RELEASED))) n++;
    }
    return n;
}

void cg_zc_control_close(cg_zc_control *c)
{
    if (!c || !c->map) return;
    atomic_store(producer_word(c), 2u);
    for (uint32_t i = 0; i < c->slot_count; i++) cg_zc_lease_store(c, i, CG_ZC_WORD(0, CG_ZC_CLOSED));
}

void cg_zc_control_put_counters(cg_zc_control *c, const uint64_t v[CG_ZC_COUNTERS])
{
    if (!c || !c->map) return;
    uint8_t *p = c->map + CG_ZC_COUNTERS_OFFSET;
    memcpy(p, "CGZS", 4);
    put32(p + 4, CG_ZC_COUNTERS);
    for (int i = 0; i < CG_ZC_COUNTERS; i++)
        atomic_store_explicit((_Atomic uint64_t *)(void *)(p + 8 + 8 * i), v[i], memory_order_relaxed);
}

uint32_t cg_zc_control_producer_state(const cg_zc_control *c)
{
    return c && c->map ? atomic_load(producer_word(c)) : 0;
}
