/*
 * cg_zc_proto.h - the zero-copy v2 protocol without any GPU API
 * (docs/zero-copy-v2/protocol.md): the descriptor (192 bytes, 256 in version 3), the
 * 64-byte hello, the control block (shared memory of per-slot atomic
 * lease words: a sealed memfd on Linux), and the layout of a slot's planes
 * (cg_zc_planes_layout).
 *
 * Both sides use it: the producer (cg_zc_leases.h, which cg_vk_ring uses)
 * and C learners (the tests). No GPU API; the control block's memory comes
 * from the transport (cg_zc_transport.h). Nothing here prints, blocks or
 * allocates on the lease paths.
 */
#ifndef CG_ZC_PROTO_H
#define CG_ZC_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "cg_err.h"
#include "cg_oshandle.h"
#include "cg_size.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the hello and the control block (unchanged since 1). */
#define CG_ZC_VERSION 1
/* Descriptor versions: 2 added the RGB format and the flags field, 3 the
 * eyes and the depth plane (format 23 only). The encoder writes the lowest
 * version that says everything (1 for a 4-byte format with flags 0, 3 for
 * eyes > 1 or a depth plane, else 2), so learners that know only an older
 * version keep reading the rings it describes; the decoder reads all three. */
#define CG_ZC_DESC_VERSION 3
#define CG_ZC_DESC_VERSION_MIN 1
/* Versions 1 and 2 are 192 bytes, version 3 is 256: a buffer that may
 * receive any descriptor has CG_ZC_DESC_MAX_SIZE bytes, and the length of
 * the one written is cg_zc_desc_length. */
#define CG_ZC_DESC_SIZE 192
#define CG_ZC_DESC_V3_SIZE 256
#define CG_ZC_DESC_MAX_SIZE 256
#define CG_ZC_HELLO_SIZE 64
#define CG_ZC_CONTROL_SIZE 4096
#define CG_ZC_SLOT_STRIDE 64
#define CG_ZC_MAX_SLOTS 16
#define CG_ZC_PATH_SIZE 108 /* sun_path: at most 107 bytes and the NUL */
/* Handles of one hello (its fd_count at most): control block, every slot,
 * the semaphore. */
#define CG_ZC_MAX_HANDLES (CG_ZC_MAX_SLOTS + 2)

/* Formats (VkFormat numbers). 4 bytes per pixel: version 1 and later. */
#define CG_ZC_FORMAT_R8G8B8A8_UNORM 37u
#define CG_ZC_FORMAT_R8G8B8A8_SRGB 43u
#define CG_ZC_FORMAT_B8G8R8A8_UNORM 44u
#define CG_ZC_FORMAT_B8G8R8A8_SRGB 50u
/* Version 2: VK_FORMAT_R8G8B8_UNORM, 3 bytes R, G, B per pixel, tightly
 * packed (row_pitch == width * 3), rows upright: the learner's (H, W, 3). */
#define CG_ZC_FORMAT_R8G8B8_UNORM 23u
/* Version 3, depth_format: VK_FORMAT_R32_SFLOAT, one little-endian float32
 * per pixel, rows upright: the learner's (H, W). 0 = no depth plane. */
#define CG_ZC_FORMAT_R32_SFLOAT 100u

/* Version 3: what a depth plane's floats are (docs/zero-copy-v2/protocol.md, "Depth
 * and stereo planes"). LINEAR: docs/wire-format.md "Depth" with conversion
 * (z / far); RAW: the stored depth, bit-exact. */
typedef enum cg_zc_depth_encoding {
    CG_ZC_DEPTH_NONE = 0,
    CG_ZC_DEPTH_LINEAR = 1,
    CG_ZC_DEPTH_RAW = 2
} cg_zc_depth_encoding;
/* depth_flags (offset 232, version 3). LINEAR only; bits not defined are 0. */
#define CG_ZC_DEPTH_Z_ZERO_TO_ONE 0x1u
#define CG_ZC_DEPTH_FLAGS_KNOWN CG_ZC_DEPTH_Z_ZERO_TO_ONE
/* Eyes of a slot (version 3): 1, or 2 for stereo. */
#define CG_ZC_MAX_EYES 2

/* Descriptor flags (offset 68, version 2). Bits not defined here are 0. */
#define CG_ZC_FLAG_ROWS_BOTTOM_UP 0x1u /* row 0 of the slot is the picture's bottom */
#define CG_ZC_FLAGS_KNOWN CG_ZC_FLAG_ROWS_BOTTOM_UP

typedef enum cg_zc_mode { CG_ZC_MODE_SEMAPHORE = 1, CG_ZC_MODE_FENCE = 2 } cg_zc_mode;

/* Lease states: the low 8 bits of a lease word; frame in the upper 56. */
typedef enum cg_zc_state {
    CG_ZC_EMPTY = 0,
    CG_ZC_WRITING = 1,
    CG_ZC_PUBLISHED = 2,
    CG_ZC_ACTIVE = 3,
    CG_ZC_RELEASED = 4,
    CG_ZC_CLOSED = 5
} cg_zc_state;

#define CG_ZC_WORD(frame, state) (((uint64_t)(frame) << 8) | (uint64_t)(state))
#define CG_ZC_WORD_STATE(w) ((cg_zc_state)((w)&0xffu))
#define CG_ZC_WORD_FRAME(w) ((w) >> 8)
#define CG_ZC_MAX_FRAME ((UINT64_C(1) << 56) - 1)

typedef enum cg_zc_hello_status {
    CG_ZC_HELLO_OK = 0,
    CG_ZC_HELLO_BUSY = 1,     /* another learner is connected */
    CG_ZC_HELLO_WRONG_UID = 2 /* the peer runs as another user */
} cg_zc_hello_status;

/* The descriptor's bytes (docs/zero-copy-v2/protocol.md, "The descriptor"), little-endian:
 * X(NAME, offset, size in bytes), versions 1 and 2 first, then version 3's planes. The
 * one table of their places: the encoder and decoder (cg_zc_proto.c) write and read at
 * CG_ZC_DESC_OFF_<NAME>, and the Python learner's copy (python/craftground_capture/
 * _wire.py, which its parser and the native helper are checked against) is compared
 * with this text by tests/python/test_wire.py. */
#define CG_ZC_DESC_FIELDS(X)                                                                   \
    X(MAGIC, 0, 4) X(VERSION, 4, 2) X(LENGTH, 6, 2) X(FORMAT, 8, 4) X(WIDTH, 12, 4)            \
    X(HEIGHT, 16, 4) X(ROW_PITCH, 20, 4) X(SLOT_COUNT, 24, 4) X(MODE, 28, 4)                   \
    X(DEVICE_UUID, 32, 16) X(RING_ID, 48, 8) X(SLOT_SIZE, 56, 8) X(SLOT, 64, 4)              \
    X(FLAGS, 68, 4) X(FRAME, 72, 8) X(SOCKET_PATH, 80, 108) X(RESERVED, 188, 4)              \
    X(EYES, 192, 4) X(DEPTH_FORMAT, 196, 4) X(COLOR_EYE_STRIDE, 200, 8)                        \
    X(DEPTH_OFFSET, 208, 8) X(DEPTH_EYE_STRIDE, 216, 8) X(DEPTH_ROW_PITCH, 224, 4)             \
    X(DEPTH_ENCODING, 228, 4) X(DEPTH_FLAGS, 232, 4) X(NEAR, 236, 4) X(FAR, 240, 4)            \
    X(RESERVED3, 244, 12)
/* The hello's bytes, the same way. */
#define CG_ZC_HELLO_FIELDS(X)                                                                  \
    X(MAGIC, 0, 4) X(VERSION, 4, 2) X(STATUS, 6, 2) X(RING_ID, 8, 8) X(SLOT_COUNT, 16, 4)      \
    X(FD_COUNT, 20, 4) X(SLOT_SIZE, 24, 8) X(MODE, 32, 4) X(CONTROL_SIZE, 36, 4)               \
    X(RESERVED, 40, 24)
#define CG_ZC_DESC_OFF_ENTRY(name, off, size) CG_ZC_DESC_OFF_##name = (off),
#define CG_ZC_HELLO_OFF_ENTRY(name, off, size) CG_ZC_HELLO_OFF_##name = (off),
enum { CG_ZC_DESC_FIELDS(CG_ZC_DESC_OFF_ENTRY) };
enum { CG_ZC_HELLO_FIELDS(CG_ZC_HELLO_OFF_ENTRY) };

/* The descriptor's fields (docs/zero-copy-v2/protocol.md, "The descriptor"). The
 * plane fields after socket_path are version 3's (format 23 only); a
 * version 1 or 2 descriptor decodes with eyes 1 and the rest 0. */
typedef struct cg_zc_desc {
    uint32_t format; /* VkFormat number: 37, 43, 44, 50, or 23 (version 2) */
    uint32_t width, height, row_pitch, slot_count, mode;
    uint32_t flags; /* CG_ZC_FLAG_*; 0 in a version 1 descriptor */
    uint8_t device_uuid[CG_DEVICE_UUID_SIZE];
    uint64_t ring_id;
    uint64_t slot_size;
    uint32_t slot;
    uint64_t frame;
    char socket_path[CG_ZC_PATH_SIZE];
    uint32_t eyes;               /* 1 or 2; the encoder treats 0 as 1 */
    uint32_t depth_format;       /* 0 (no depth plane) or CG_ZC_FORMAT_R32_SFLOAT */
    uint64_t color_eye_stride;   /* bytes from eye 0's RGB plane (offset 0) to eye 1's */
    uint64_t depth_offset;       /* bytes: eye 0's depth plane (0 without depth) */
    uint64_t depth_eye_stride;   /* bytes from eye 0's depth plane to eye 1's */
    uint32_t depth_row_pitch;    /* width * 4 (0 without depth) */
    uint32_t depth_encoding;     /* cg_zc_depth_encoding */
    uint32_t depth_flags;        /* CG_ZC_DEPTH_Z_ZERO_TO_ONE (LINEAR only) */
    float near_plane, far_plane; /* LINEAR's; 0 for RAW and without depth */
} cg_zc_desc;

/* Where a slot's planes lie (docs/zero-copy-v2/protocol.md, "Depth and stereo
 * planes"): the RGB plane of eye e at e * color_eye_stride, the depth plane
 * of eye e at depth_offset + e * depth_eye_stride, every offset a multiple
 * of 256; frame_bytes is what a slot must hold. The producer's choice, one
 * for every producer; readers use the descriptor's fields instead. */
typedef struct cg_zc_planes {
    uint64_t rgb_bytes;        /* round_up(w*h*3, 12): the shader writes whole 12-byte groups */
    uint64_t color_eye_stride; /* round_up(rgb_bytes, 256) */
    uint64_t depth_offset;     /* eyes * color_eye_stride with depth, else 0 */
    uint64_t depth_eye_stride; /* round_up(w*h*4, 256) with depth, else 0 */
    uint64_t frame_bytes;      /* end of the last plane */
} cg_zc_planes;

/* The layout of a w x h slot with eyes (1..CG_ZC_MAX_EYES) eyes and a
 * depth plane per eye when depth is nonzero. CG_E_INVALID_ARG / CG_E_TOO_LARGE
 * for dims as cg_check_dims, CG_E_INVALID_ARG for eyes out of range or out
 * NULL, CG_E_OVERFLOW when frame_bytes does not fit in size_t. */
cg_status cg_zc_planes_layout(int w, int h, uint32_t eyes, int depth, cg_zc_planes *out);

/* The hello's fields (docs/zero-copy-v2/protocol.md, "The hello message"). */
typedef struct cg_zc_hello {
    uint16_t status; /* cg_zc_hello_status */
    uint64_t ring_id;
    uint32_t slot_count, fd_count;
    uint64_t slot_size;
    uint32_t mode, control_size;
} cg_zc_hello;

/* Write the descriptor d into out: version 3 (CG_ZC_DESC_V3_SIZE bytes)
 * when d->eyes > 1 or d->depth_format != 0, else CG_ZC_DESC_SIZE bytes of
 * version 1 (a 4-byte format and flags 0) or 2 (otherwise), byte-identical
 * to what they always were. cap smaller than that length:
 * CG_E_BUFFER_TOO_SMALL. The length written is cg_zc_desc_length(out). The
 * fields are not validated here. */
cg_status cg_zc_desc_encode(const cg_zc_desc *d, uint8_t *out, size_t cap);

/* The length of a descriptor this library encoded, from its length field
 * (offset 6, little-endian): CG_ZC_DESC_V3_SIZE (256) when that field says
 * 256, else CG_ZC_DESC_SIZE (192). in holds at least 8 bytes. Inline: the
 * natives call it on every platform, also where src/zc is headers only. */
static inline size_t cg_zc_desc_length(const uint8_t *in)
{
    return in && (in[6] | (unsigned)in[7] << 8) == CG_ZC_DESC_V3_SIZE ? CG_ZC_DESC_V3_SIZE
                                                                      : CG_ZC_DESC_SIZE;
}

/* Parse and validate len bytes of a version 1, 2 or 3 descriptor. Errors
 * (err gets the field and value): CG_E_BUFFER_TOO_SMALL (shorter than 192
 * or than its length field), CG_E_PROTOCOL (bad magic, length, mode,
 * format (23 in version 1), pitch (format 23: not width*3), slot count, a
 * slot or frame out of range, a path without NUL, unknown flag bits, or
 * ROWS_BOTTOM_UP with format 23; in version 3 every refusal of
 * docs/zero-copy-v2/protocol.md "Descriptor versions": length not 256, a format
 * other than 23, eyes, the depth plane's fields, planes outside the slot or
 * overlapping), CG_E_UNSUPPORTED (a version this library does not know). A
 * version 1 descriptor decodes with flags 0 (offset 68 was reserved there);
 * versions 1 and 2 decode with eyes 1 and no depth plane. */
cg_status cg_zc_desc_decode(const uint8_t *in, size_t len, cg_zc_desc *d, cg_err *err);

/* The hello's CG_ZC_HELLO_SIZE bytes, and back. decode: CG_E_BUFFER_TOO_SMALL
 * for a short message, CG_E_PROTOCOL for bad magic, CG_E_UNSUPPORTED for an
 * unknown version. The status field is returned as is. */
void cg_zc_hello_encode(const cg_zc_hello *h, uint8_t out[CG_ZC_HELLO_SIZE]);
cg_status cg_zc_hello_decode(const uint8_t *in, size_t len, cg_zc_hello *h, cg_err *err);

/* The control block mapped in this process. */
typedef struct cg_zc_control {
    uint8_t *map;       /* CG_ZC_CONTROL_SIZE bytes, shared */
    cg_oshandle handle; /* the producer's shared memory object; invalid in a learner */
    uint32_t slot_count;
    uint64_t ring_id;
} cg_zc_control;

/* Producer: a new sealed shared memory object (cg_zc_shm_create) with the
 * header written, every slot EMPTY, producer state open. On error c->map
 * is NULL and c->handle is CG_OSHANDLE_INVALID. */
cg_status cg_zc_control_create(uint32_t slot_count, uint64_t ring_id, cg_zc_control *c,
                               cg_err *err);

/* Learner: map a received control block handle (consumed: closed here
 * after mapping, or on failure; cg_zc_shm_map) and check its seals (shrink
 * and grow), magic, version, size, slot count and ring id against the
 * hello. CG_E_PROTOCOL on a mismatch or a block the producer could still
 * shrink. */
cg_status cg_zc_control_map(cg_oshandle h, uint32_t slot_count, uint64_t ring_id,
                            cg_zc_control *c, cg_err *err);

/* Unmap and close. Safe on a zeroed or already-freed control. */
void cg_zc_control_free(cg_zc_control *c);

/* The lease word of a slot (atomic load, sequentially consistent). */
uint64_t cg_zc_lease_load(const cg_zc_control *c, uint32_t slot);

/* Compare-and-swap a lease word: 1 when *expected was there and now
 * desired is; 0 and *expected = the current word otherwise. */
int cg_zc_lease_cas(cg_zc_control *c, uint32_t slot, uint64_t *expected, uint64_t desired);

/* Store a lease word (producer only: PUBLISHED after WRITING, CLOSED). */
void cg_zc_lease_store(cg_zc_control *c, uint32_t slot, uint64_t word);

/* Learner: PUBLISHED -> ACTIVE for (slot, frame). CG_OK also when this
 * frame is ACTIVE already (acquired twice). CG_E_STALE when the slot holds
 * another frame or is being rewritten; CG_E_NOT_INITIALIZED when the ring
 * is closed; CG_E_INVALID_ARG for a slot out of range. */
cg_status cg_zc_acquire(cg_zc_control *c, uint32_t slot, uint64_t frame, cg_err *err);

/* Learner: ACTIVE -> RELEASED for (slot, frame). CG_E_BAD_STATE when that
 * frame is not ACTIVE (not acquired, released twice, or reclaimed). */
cg_status cg_zc_release(cg_zc_control *c, uint32_t slot, uint64_t frame, cg_err *err);

/* Producer: every ACTIVE slot -> RELEASED (the learner left). Returns how
 * many slots came back. */
uint32_t cg_zc_control_reclaim(cg_zc_control *c);

/* Producer: producer state closed, every slot CLOSED. */
void cg_zc_control_close(cg_zc_control *c);

/* Producer state word (1 open, 2 closed). */
uint32_t cg_zc_control_producer_state(const cg_zc_control *c);

/* The producer's counters (docs/zero-copy-v2/protocol.md, "Counters"): at
 * CG_ZC_COUNTERS_OFFSET of the control block the magic "CGZS", a u32 count,
 * then count u64s in this order, the same indices as the Java long[]. The
 * producer writes them from its own copy and never reads them back. */
#define CG_ZC_COUNTERS_OFFSET 2048
typedef enum cg_zc_counter {
    CG_ZC_COUNT_PUBLISHED = 0,   /* frames published */
    CG_ZC_COUNT_SKIPPED = 1,     /* frames skipped: every slot held (CG_E_RING_FULL) */
    CG_ZC_COUNT_WAIT_NS = 2,     /* nanoseconds spent polling for a free slot */
    CG_ZC_COUNT_CONNECTIONS = 3, /* learners accepted */
    CG_ZC_COUNT_RECLAIMED = 4,   /* leases returned because their learner left */
    CG_ZC_COUNTERS = 5
} cg_zc_counter;

/* Producer: store the counters' header and values (relaxed atomic stores). */
void cg_zc_control_put_counters(cg_zc_control *c, const uint64_t v[CG_ZC_COUNTERS]);

#ifdef __cplusplus
}
#endif

#endif /* CG_ZC_PROTO_H */
