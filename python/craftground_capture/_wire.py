"""The zero-copy v2 wire format on the learner's side, written once
(docs/zero-copy-v2/protocol.md; src/zc/cg_zc_proto.h is the source of truth, and
tests/python/test_wire.py fails when this copy drifts from it).

The descriptor and the hello as (name, offset, struct code) tables, the
structs made from them, the control block's numbers, the lease states, and
the byte ranges the vector learner's fast path compares (vector.py's rows,
the native helper's LAYOUT, checked when it loads). Standard library only;
imports nothing of the package.
"""
import struct
from typing import Tuple

VERSION = 1  # of the hello and the control block
DESC_VERSIONS = (1, 2, 3)  # descriptor versions this reader knows
DESC_SIZE = 192  # versions 1 and 2
DESC_V3_SIZE = 256  # version 3: the planes (eyes, depth)
HELLO_SIZE = 64
CONTROL_SIZE = 4096
SLOT_STRIDE = 64
MAX_SLOTS = 16
PATH_SIZE = 108

# The descriptor's fields, little-endian: versions 1 and 2 (0..191), then version 3's
# planes (192..255; near and far as their float32 bits).
DESC_FIELDS: Tuple[Tuple[str, int, str], ...] = (
    ("magic", 0, "4s"), ("version", 4, "H"), ("length", 6, "H"), ("format", 8, "I"),
    ("width", 12, "I"), ("height", 16, "I"), ("row_pitch", 20, "I"), ("slot_count", 24, "I"),
    ("mode", 28, "I"), ("device_uuid", 32, "16s"), ("ring_id", 48, "Q"), ("slot_size", 56, "Q"),
    ("slot", 64, "I"), ("flags", 68, "I"), ("frame", 72, "Q"), ("socket_path", 80, "108s"),
    ("reserved", 188, "I"),
)
PLANE_FIELDS: Tuple[Tuple[str, int, str], ...] = (
    ("eyes", 192, "I"), ("depth_format", 196, "I"), ("color_eye_stride", 200, "Q"),
    ("depth_offset", 208, "Q"), ("depth_eye_stride", 216, "Q"), ("depth_row_pitch", 224, "I"),
    ("depth_encoding", 228, "I"), ("depth_flags", 232, "I"), ("near", 236, "I"),
    ("far", 240, "I"), ("reserved3", 244, "12s"),
)
HELLO_FIELDS: Tuple[Tuple[str, int, str], ...] = (
    ("magic", 0, "4s"), ("version", 4, "H"), ("status", 6, "H"), ("ring_id", 8, "Q"),
    ("slot_count", 16, "I"), ("fd_count", 20, "I"), ("slot_size", 24, "Q"), ("mode", 32, "I"),
    ("control_size", 36, "I"), ("reserved", 40, "24s"),
)


def _packed(fields: Tuple[Tuple[str, int, str], ...], start: int, size: int) -> struct.Struct:
    """The struct of `fields`, checked to tile [start, start + size) with no gap."""
    at = start
    for name, off, code in fields:
        if off != at:
            raise AssertionError(f"wire field {name} at {off}, expected {at}")
        at += struct.calcsize("<" + code)
    if at != start + size:
        raise AssertionError(f"wire fields end at {at}, expected {start + size}")
    return struct.Struct("<" + "".join(code for _, _, code in fields))


DESC = _packed(DESC_FIELDS, 0, DESC_SIZE)
PLANES = _packed(PLANE_FIELDS, DESC_SIZE, DESC_V3_SIZE - DESC_SIZE)
HELLO = _packed(HELLO_FIELDS, 0, HELLO_SIZE)
OFFSET = {name: off for name, off, _ in DESC_FIELDS + PLANE_FIELDS}
HELLO_OFFSET = {name: off for name, off, _ in HELLO_FIELDS}

# The vector learner's fast path: a later descriptor of a row's ring differs from its
# template only in slot and frame, so it is compared in three byte ranges around them
# (head, mid: the flags, tail: the socket path on) and those two read at their offsets.
SLOT_OFF, FLAGS_OFF, FRAME_OFF = OFFSET["slot"], OFFSET["flags"], OFFSET["frame"]
TAIL_OFF = OFFSET["socket_path"]
SLOT_FRAME = struct.Struct("<I4xQ")  # slot, then frame, FRAME_OFF - SLOT_OFF bytes on
if FLAGS_OFF != SLOT_OFF + 4 or FRAME_OFF != FLAGS_OFF + 4 or TAIL_OFF != FRAME_OFF + 8:
    raise AssertionError("slot, flags, frame and socket_path are no longer in one run")
# What the native helper (python/native/lease.c) compares and reads, by offset; it
# exports its own as LAYOUT, and vector.load_native refuses a helper whose differ.
LEASE_LAYOUT = (SLOT_OFF, FLAGS_OFF, FRAME_OFF - FLAGS_OFF, FRAME_OFF, TAIL_OFF)

# The control block: the header, each slot's lease word at SLOT_STRIDE * (1 + slot), the
# producer's counters at COUNTERS_OFFSET.
CONTROL_HEADER = struct.Struct("<4sIIIQ")  # magic, version, slot_count, slot_stride, ring_id
PRODUCER_STATE_OFFSET = 24
COUNTERS_OFFSET = 2048

# Lease states: the low 8 bits of a lease word, frame << 8 above them.
EMPTY, WRITING, PUBLISHED, ACTIVE, RELEASED, CLOSED = range(6)
STATE_NAMES = ("EMPTY", "WRITING", "PUBLISHED", "ACTIVE", "RELEASED", "CLOSED")


def word_index(slot: int) -> int:
    """Slot `slot`'s lease word as an index of the block's 64-bit words."""
    return (SLOT_STRIDE + slot * SLOT_STRIDE) // 8
