"""The zero-copy v2 wire format on the learner's side, written once
(docs/zero-copy-v2/protocol.md; src/zc/cg_zc_proto.h is the source of truth, and
tests/python/test_wire.py fails when this copy drifts from it).

The descriptor and the hello as (name, offset, struct code) tables, the
structs made from them, the control block's numbers, the lease states, and
the byte ranges the vector learner's fast path compares (vector.py's rows,
the native helper's LAYOUT, checked when it loads); then their readers:
parse_descriptor (a checked Descriptor), handle_kind (which kind of
ipc_handle some bytes are) and parse_hello. Below everything but the
package's exceptions: no transport, no GPU.
"""
import math
import struct
from typing import Dict, Optional, Tuple

import numpy as np

from ._types import Buffer
from .errors import FormatError, RingError

VERSION = 1  # of the hello and the control block
CUDA_IPC_HANDLE_SIZE = 68  # the v1 handle (docs/wire-format.md): cudaIpcMemHandle_t + device
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
# The tuples the two sides hand each other, field by field in order: a row's template
# (vector._row) and a lease entry (what a step holds until its release). lease.c indexes
# them by enums generated from its own name lists, exported as ROW_FIELDS and ENTRY_FIELDS;
# vector.load_native refuses a helper whose names differ from these. Python reads an
# entry's fields by the E_ names (E_<FIELD>, its index here) and a row's three byte ranges by R_.
ROW_FIELDS = ("ring", "control", "desc", "head", "mid", "tail", "ring_id", "slots", "words",
              "pointers", "semaphore", "row_pitch", "view", "indexes", "addresses")
ENTRY_FIELDS = ("row", "ring", "desc", "pointer", "slot", "frame", "view", "index", "control",
                "address")
R_HEAD, R_MID, R_TAIL = (ROW_FIELDS.index(n) for n in ("head", "mid", "tail"))
(E_ROW, E_RING, E_DESC, E_POINTER, E_SLOT, E_FRAME, E_VIEW, E_INDEX, E_CONTROL,
 E_ADDRESS) = range(len(ENTRY_FIELDS))

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


# --- the descriptor's values --------------------------------------------------------

MODE_SEMAPHORE, MODE_FENCE = 1, 2
FORMAT_RGB8 = 23  # version 2: R, G, B bytes, tightly packed, rows upright
FORMATS = {37: "R8G8B8A8_UNORM", 43: "R8G8B8A8_SRGB", 44: "B8G8R8A8_UNORM", 50: "B8G8R8A8_SRGB",
           FORMAT_RGB8: "R8G8B8_UNORM"}
FLAG_ROWS_BOTTOM_UP = 0x1  # version 2: row 0 of the slot is the picture's bottom
FLAGS_KNOWN = FLAG_ROWS_BOTTOM_UP
# Version 3 (docs/zero-copy-v2/protocol.md, "Depth and stereo planes").
MAX_EYES = 2
FORMAT_R32_SFLOAT = 100  # depth_format: one float32 (little-endian) per pixel
DEPTH_NONE, DEPTH_LINEAR, DEPTH_RAW = 0, 1, 2  # depth_encoding
DEPTH_ENCODINGS = {DEPTH_NONE: "none", DEPTH_LINEAR: "linear", DEPTH_RAW: "raw"}
DEPTH_Z_ZERO_TO_ONE = 0x1  # depth_flags bit 0 (linear only)
DEPTH_FLAGS_KNOWN = DEPTH_Z_ZERO_TO_ONE
HELLO_OK, HELLO_BUSY, HELLO_WRONG_UID = 0, 1, 2
# The producer's counters in the control block (docs/zero-copy-v2/protocol.md,
# "Counters"): the magic CGZS and a count at COUNTERS_OFFSET, then that many
# u64 counters in this order (the same indices as the Java long[]).
COUNTER_NAMES = ("published", "skipped", "wait_ns", "connections", "reclaimed")


# --- the descriptor -----------------------------------------------------------

class Descriptor:
    """The 192 bytes (256 in version 3) of one frame's descriptor
    (docs/zero-copy-v2/protocol.md), parsed and checked by parse_descriptor. Sizes are
    in pixels (width, height) and bytes (row_pitch, slot_size); format is the
    VkFormat number; mode is MODE_SEMAPHORE (1) or MODE_FENCE (2);
    device_uuid the 16-byte Vulkan device UUID; frame counts from 1 (0 is the
    ring's template).

    The planes (version 3; a version 1 or 2 descriptor reads as eyes 1 and
    no depth plane): eyes (1 or 2); color_eye_stride (bytes from eye 0's RGB
    plane, at offset 0, to eye 1's); depth_format (0 none, 100 float32);
    depth_offset, depth_eye_stride, depth_row_pitch (bytes); depth_encoding
    (DEPTH_NONE, DEPTH_LINEAR, DEPTH_RAW); depth_flags (DEPTH_Z_ZERO_TO_ONE);
    near, far (float, linear only; 0.0 otherwise)."""

    __slots__ = ("version", "format", "width", "height", "row_pitch", "slot_count", "mode",
                 "device_uuid", "ring_id", "slot_size", "slot", "flags", "frame", "socket_path",
                 "eyes", "color_eye_stride", "depth_format", "depth_offset", "depth_eye_stride",
                 "depth_row_pitch", "depth_encoding", "depth_flags", "near", "far")
    version: int
    format: int
    width: int
    height: int
    row_pitch: int
    slot_count: int
    mode: int
    device_uuid: bytes
    ring_id: int
    slot_size: int
    slot: int
    flags: int
    frame: int
    socket_path: str
    eyes: int
    color_eye_stride: int
    depth_format: int
    depth_offset: int
    depth_eye_stride: int
    depth_row_pitch: int
    depth_encoding: int
    depth_flags: int
    near: float
    far: float

    @property
    def has_depth(self) -> bool:
        """Whether each eye has a depth plane (version 3, depth_format 100)."""
        return self.depth_format == FORMAT_R32_SFLOAT

    @property
    def depth_encoding_name(self) -> str:
        """"none", "linear" (eye distance / far, docs/wire-format.md "Depth")
        or "raw" (the stored reverse-Z depth)."""
        return DEPTH_ENCODINGS[self.depth_encoding]

    @property
    def z_zero_to_one(self) -> bool:
        """Linear depth: whether the game's clip range is [0, 1] (flag
        Z_ZERO_TO_ONE picks the formula), else the classic [-1, 1]."""
        return bool(self.depth_flags & DEPTH_Z_ZERO_TO_ONE)

    @property
    def channels(self) -> int:
        """Bytes per pixel: 3 for the RGB format, 4 for the RGBA/BGRA ones."""
        return 3 if self.format == FORMAT_RGB8 else 4

    @property
    def kind(self) -> str:
        """The observation kind of its frames, for observation_spec():
        "ring_rgb" (format 23, (H, W, 3) upright) or "ring_rgba" (H, W, 4)."""
        return "ring_rgb" if self.format == FORMAT_RGB8 else "ring_rgba"

    @property
    def rows_bottom_up(self) -> bool:
        """Whether row 0 of the slot is the picture's bottom (flag
        ROWS_BOTTOM_UP: a GL producer's plain copy; flip it yourself)."""
        return bool(self.flags & FLAG_ROWS_BOTTOM_UP)

    @property
    def format_name(self) -> str:
        """The VkFormat's name: "B8G8R8A8_UNORM" for a BGRA frame (a swapchain
        image copied as stored: channel 0 is blue), "R8G8B8_UNORM" for RGB."""
        return FORMATS[self.format]

    @property
    def channel_order(self) -> str:
        """The bytes of one pixel, in memory order: "RGBA", "BGRA" or "RGB"."""
        return self.format_name.split("_")[0].replace("8", "")

    def __repr__(self) -> str:
        planes = ""
        if self.eyes > 1 or self.has_depth:
            planes = f", eyes={self.eyes}, depth={self.depth_encoding_name}"
        return (f"Descriptor(ring={self.ring_id:#x}, slot={self.slot}, frame={self.frame}, "
                f"{self.width}x{self.height}, mode={self.mode}{planes})")


# The kinds of an observation's ipc_handle (docs/wire-format.md, "Telling
# the ipc_handle kinds apart"). A tagged handle starts with an 8-byte header:
# a 4-byte magic "CG" + two of A-Z 0-9, a u16 version, a u16 length (of the
# whole handle, header included, at most the bytes given). Every backend
# after the first two is tagged; the two untagged ones are known by their
# exact length only when the bytes carry no tag.
TAGGED_KINDS = {b"CGZ2": "ring"}
UNTAGGED_KINDS = {CUDA_IPC_HANDLE_SIZE: "cuda_ipc", 4: "mach_port"}
TAG_HEADER_SIZE = 8
_TAG_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _handle_tag(data: Buffer) -> Optional[bytes]:
    """The magic of a tagged handle, or None when the bytes carry no tag. A
    known magic tags whatever follows (its own parser checks the rest); an
    unknown one needs the whole header: the namespace and a length field
    that fits."""
    if len(data) < TAG_HEADER_SIZE:
        return None
    magic = data[:4]
    if magic in TAGGED_KINDS:
        return magic
    if magic[:2] != b"CG" or any(c not in _TAG_CHARS for c in magic[2:]):
        return None
    (length,) = struct.unpack_from("<H", data, 6)
    return magic if TAG_HEADER_SIZE <= length <= len(data) else None


def handle_kind(data: Buffer) -> str:
    """What an observation's ipc_handle bytes are: "ring" (tagged CGZ2: a v2
    descriptor, parse_descriptor / RingLearner), or, untagged, "cuda_ipc"
    (the 68-byte v1 handle: open_ipc_handle) or "mach_port" (4 bytes, macOS).
    A tagged handle of a kind this reader does not know is refused, whatever
    its length: never taken for CUDA. Raises FormatError for bytes that are
    none of these."""
    data = bytes(data)
    magic = _handle_tag(data)
    if magic is not None:
        kind = TAGGED_KINDS.get(magic)
        if kind is None:
            raise FormatError(f"ipc_handle of {len(data)} bytes is tagged {magic.decode()} "
                              f"(version {struct.unpack_from('<H', data, 4)[0]}), a kind this "
                              f"reader does not know (known: "
                              f"{', '.join(m.decode() for m in TAGGED_KINDS)}): a newer producer?")
        return kind
    kind = UNTAGGED_KINDS.get(len(data))
    if kind is None:
        raise FormatError(f"ipc_handle of {len(data)} bytes is none of the known kinds")
    return kind


def parse_descriptor(data: Buffer) -> Descriptor:
    """The `ipc_handle` bytes of a v2 ring frame (192 bytes, 256 in version
    3, little-endian, docs/zero-copy-v2/protocol.md) -> a checked Descriptor.
    RingLearner and RingLearner.acquire take the bytes or the Descriptor.

    Raises FormatError (a ValueError) naming the field and its value when the
    bytes are not a descriptor this reader knows: short or truncated, magic
    not CGZ2 (it says when the bytes are a v1 CUDA IPC handle), a version
    other than 1 to 3, an unknown format or flag bit, a size outside
    1-16384, a row pitch or slot size too small, a slot outside the ring,
    an unknown mode, ring id 0, or a socket_path empty, unterminated or not
    UTF-8; in version 3 every refusal of docs/zero-copy-v2/protocol.md "Descriptor
    versions" (length not 256, a format other than 23, eyes, the depth
    plane's fields, planes outside the slot or overlapping)."""
    data = bytes(data)
    if len(data) < 8:
        raise FormatError(f"zero-copy descriptor: {len(data)} bytes, a v2 descriptor has "
                          f"{DESC_SIZE}")
    if data[:4] != b"CGZ2":
        hint = ": a v1 CUDA IPC handle" if len(data) == CUDA_IPC_HANDLE_SIZE else ""
        raise FormatError(f"zero-copy descriptor: magic {data[:4].hex()} is not CGZ2{hint}")
    version, length = struct.unpack_from("<HH", data, 4)
    if version not in DESC_VERSIONS:
        raise FormatError(f"zero-copy descriptor version {version}: this reader knows versions "
                          f"{DESC_VERSIONS[0]} to {DESC_VERSIONS[-1]}")
    if length < DESC_SIZE:
        raise FormatError(f"zero-copy descriptor: length field {length} < {DESC_SIZE}")
    if version == 3 and length != DESC_V3_SIZE:
        raise FormatError(f"zero-copy descriptor version 3: length field {length}, must be "
                          f"{DESC_V3_SIZE}")
    if len(data) < length:
        raise FormatError(f"zero-copy descriptor truncated: {len(data)} bytes of {length}")
    f = DESC.unpack_from(data)
    d = Descriptor()
    (_, d.version, _, d.format, d.width, d.height, d.row_pitch, d.slot_count, d.mode,
     d.device_uuid, d.ring_id, d.slot_size, d.slot, flags, d.frame, path, _) = f
    d.flags = flags if version >= 2 else 0  # offset 68 was reserved in version 1
    if b"\0" not in path or path[0] == 0:
        raise FormatError("zero-copy descriptor: socket_path empty or unterminated")
    path = path.split(b"\0", 1)[0]
    try:
        d.socket_path = path.decode()
    except UnicodeDecodeError as e:
        raise FormatError(f"zero-copy descriptor: socket_path {path!r} is not UTF-8 (byte "
                          f"{e.start})") from None
    if d.format not in FORMATS or (d.format == FORMAT_RGB8 and version < 2):
        raise FormatError(f"zero-copy descriptor: format {d.format} unknown in version {version}")
    if d.flags & ~FLAGS_KNOWN:
        raise FormatError(f"zero-copy descriptor: flags {d.flags:#x} has unknown bits")
    if d.format == FORMAT_RGB8 and d.flags & FLAG_ROWS_BOTTOM_UP:
        raise FormatError("zero-copy descriptor: format 23 is upright; ROWS_BOTTOM_UP is not "
                          "allowed")
    if not (1 <= d.width <= 16384 and 1 <= d.height <= 16384):
        raise FormatError(f"zero-copy descriptor: size {d.width}x{d.height} out of range")
    bpp = d.channels
    if (d.row_pitch < d.width * bpp or (bpp == 3 and d.row_pitch != d.width * 3)
            or d.row_pitch * d.height > d.slot_size):
        raise FormatError(f"zero-copy descriptor: row pitch {d.row_pitch} for width {d.width} "
                          f"and slot size {d.slot_size}")
    if not (1 <= d.slot_count <= MAX_SLOTS) or d.slot >= d.slot_count:
        raise FormatError(f"zero-copy descriptor: slot {d.slot} of {d.slot_count}")
    if d.mode not in (MODE_SEMAPHORE, MODE_FENCE):
        raise FormatError(f"zero-copy descriptor: mode {d.mode} unknown")
    if d.ring_id == 0 or d.frame >= 1 << 56:
        raise FormatError(f"zero-copy descriptor: ring id {d.ring_id}, frame {d.frame}")
    _parse_planes(d, data if version == 3 else None)
    return d


def _bits_float(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _parse_planes(d: Descriptor, data: Optional[bytes]) -> None:
    """Version 3's plane fields (data: the whole descriptor) into d, with
    every refusal of docs/zero-copy-v2/protocol.md "Descriptor versions", each naming
    the field and its value; data None (versions 1 and 2): one eye, no
    depth plane."""
    if data is None:
        d.eyes, d.color_eye_stride = 1, 0
        d.depth_format = d.depth_offset = d.depth_eye_stride = d.depth_row_pitch = 0
        d.depth_encoding = d.depth_flags = 0
        d.near = d.far = 0.0
        return
    (d.eyes, d.depth_format, d.color_eye_stride, d.depth_offset, d.depth_eye_stride,
     d.depth_row_pitch, d.depth_encoding, d.depth_flags, near_bits, far_bits,
     _) = PLANES.unpack_from(data, DESC_SIZE)
    d.near, d.far = _bits_float(near_bits), _bits_float(far_bits)
    v3 = "zero-copy descriptor version 3:"
    px = d.width * d.height
    if d.format != FORMAT_RGB8:
        raise FormatError(f"{v3} format {d.format}, must be 23 (R8G8B8_UNORM)")
    if not 1 <= d.eyes <= MAX_EYES:
        raise FormatError(f"{v3} eyes {d.eyes}, must be 1 or 2")
    if d.depth_format not in (0, FORMAT_R32_SFLOAT):
        raise FormatError(f"{v3} depth_format {d.depth_format}, must be 0 or 100")
    if d.depth_flags & ~DEPTH_FLAGS_KNOWN:
        raise FormatError(f"{v3} depth_flags {d.depth_flags:#x} has unknown bits")
    if d.depth_format == 0:
        if (d.depth_encoding or d.depth_offset or d.depth_eye_stride or d.depth_row_pitch
                or d.depth_flags or near_bits or far_bits):
            raise FormatError(
                f"{v3} depth_format 0 (no depth plane) with depth_encoding {d.depth_encoding}, "
                f"depth_offset {d.depth_offset}, depth_eye_stride {d.depth_eye_stride}, "
                f"depth_row_pitch {d.depth_row_pitch}, depth_flags {d.depth_flags:#x}, near bits "
                f"{near_bits:#010x}, far bits {far_bits:#010x}: all must be 0")
    else:
        if d.depth_encoding not in (DEPTH_LINEAR, DEPTH_RAW):
            raise FormatError(f"{v3} depth_encoding {d.depth_encoding}, must be 1 or 2")
        if d.depth_row_pitch != d.width * 4:
            raise FormatError(f"{v3} depth_row_pitch {d.depth_row_pitch}, must be width*4 = "
                              f"{d.width * 4}")
        if d.depth_offset % 4 or d.depth_eye_stride % 4:
            raise FormatError(f"{v3} depth_offset {d.depth_offset}, depth_eye_stride "
                              f"{d.depth_eye_stride}: must be multiples of 4")
        if d.eyes == 2 and d.depth_eye_stride < px * 4:
            raise FormatError(f"{v3} depth_eye_stride {d.depth_eye_stride} < width*height*4 = "
                              f"{px * 4}")
        if d.depth_encoding == DEPTH_LINEAR and not (
                math.isfinite(d.near) and math.isfinite(d.far) and 0 < d.near < d.far):
            raise FormatError(f"{v3} linear depth with near {np.float32(d.near)!s}, far "
                              f"{np.float32(d.far)!s}: needs finite 0 < near < far")
        if d.depth_encoding == DEPTH_RAW and (d.depth_flags or near_bits or far_bits):
            raise FormatError(f"{v3} raw depth with depth_flags {d.depth_flags:#x}, near bits "
                              f"{near_bits:#010x}, far bits {far_bits:#010x}: all must be 0")
    if d.eyes == 2 and d.color_eye_stride < px * 3:
        raise FormatError(f"{v3} color_eye_stride {d.color_eye_stride} < width*height*3 = "
                          f"{px * 3}")
    color_end = (d.eyes - 1) * d.color_eye_stride + px * 3  # Python ints: nothing wraps
    if color_end > d.slot_size:
        raise FormatError(f"{v3} RGB planes (eyes {d.eyes}, color_eye_stride "
                          f"{d.color_eye_stride}, {px * 3} bytes each) do not fit in slot_size "
                          f"{d.slot_size}")
    if d.depth_format == 0:
        return
    if d.depth_offset + (d.eyes - 1) * d.depth_eye_stride + px * 4 > d.slot_size:
        raise FormatError(f"{v3} depth planes (depth_offset {d.depth_offset}, depth_eye_stride "
                          f"{d.depth_eye_stride}, {px * 4} bytes each) do not fit in slot_size "
                          f"{d.slot_size}")
    if d.depth_offset < color_end:
        raise FormatError(f"{v3} depth_offset {d.depth_offset} overlaps the RGB planes, which "
                          f"end at {color_end}")


# --- the hello -----------------------------------------------------------------------

def parse_hello(msg: bytes, handles: int, where: str,
                handles_cut: bool = False) -> Dict[str, int]:
    """The producer's 64-byte hello (docs/zero-copy-v2/protocol.md, "The hello message"),
    `handles` the number of OS handles that came with it (handles_cut: the
    transport had to drop some), `where` the producer's address for the
    messages -> ring_id, slot_count, fd_count, slot_size, mode,
    control_size. RingError when the producer refuses (another learner,
    another user) or the hello is malformed: truncated, bad magic, another
    version, an unknown status, a handle count that is not the slots' plus
    the control block's (and the semaphore's)."""
    if len(msg) < HELLO_SIZE:
        raise RingError(f"zero-copy hello truncated: {len(msg)} bytes of {HELLO_SIZE}")
    if handles_cut:
        raise RingError("the hello's fds were truncated")
    (magic, version, status, ring_id, slot_count, fd_count, slot_size, mode, control_size,
     _) = HELLO.unpack(msg[:HELLO_SIZE])
    if magic != b"CGZH":
        raise RingError("zero-copy hello: bad magic")
    if version != VERSION:
        raise RingError(f"zero-copy hello version {version}: this reader knows {VERSION}")
    if status == HELLO_BUSY:
        raise RingError(f"another learner is connected to {where}")
    if status == HELLO_WRONG_UID:
        raise RingError(f"the producer at {where} runs as another user")
    if status != HELLO_OK:
        raise RingError(f"hello status {status} unknown")
    want = slot_count + (2 if mode == MODE_SEMAPHORE else 1)
    if not (1 <= slot_count <= MAX_SLOTS) or fd_count != want or handles != fd_count:
        raise RingError(f"hello announces {fd_count} fds for {slot_count} slots (mode "
                        f"{mode}), {handles} came")
    return dict(ring_id=ring_id, slot_count=slot_count, fd_count=fd_count,
                slot_size=slot_size, mode=mode, control_size=control_size)


def lease_word(frame: int, state: int) -> int:
    """A lease word: frame << 8 | state."""
    return (frame << 8) | state


def state_name(state: int) -> str:
    """A lease state's name, or "unknown state N"."""
    return STATE_NAMES[state] if state < len(STATE_NAMES) else f"unknown state {state}"
