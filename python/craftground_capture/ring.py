"""Zero-copy v2: the learner's side of the Vulkan ring (docs/zero-copy-v2/learner.md).

The game copies each frame on its own Vulkan queue into a ring of exported
buffers; this process imports the ring once and reads every frame on its own
CUDA stream, with no copy and no CUDA context in the game:

    ring = RingLearner(obs.ipc_handle)           # connect, receive fds, import once
    with ring.acquire(obs.ipc_handle, stream) as frame:
        t = torch.from_dlpack(frame)             # (H, W, 4) or (H, W, 3) uint8, stream-ordered
        ...                                      # use t, then leave the block
    ring.close()

A ring made with the RGB slot format (descriptor version 2, format 23) hands
out (H, W, 3) uint8 frames, upright, at the target size, cursor drawn: what
the learner trains on, with no flip or slice of its own. Such a ring may
also carry two eyes and a depth plane per eye (descriptor version 3,
docs/zero-copy-v2/protocol.md "Depth and stereo planes"): frame.rgb is (H, W, 3) or
(2, H, W, 3) uint8, frame.depth (H, W) or (2, H, W) float32 (None without
depth), frame.eyes 1 or 2; one acquire and one release cover every plane:

    with ring.acquire(desc, stream) as frame:
        rgb = torch.from_dlpack(frame.rgb)       # (2, H, W, 3) for a stereo ring
        depth = torch.from_dlpack(frame.depth)   # (2, H, W) float32 Descriptors of RGBA
rings say in `flags` whether row 0 is the picture's bottom (ROWS_BOTTOM_UP,
a GL producer's plain copy); nothing here flips rows: frame.rows_bottom_up
tells the user to (t.flip(0)).

acquire() makes `stream` wait on the GPU for the frame (semaphore mode) and
returns a RingFrame with __cuda_array_interface__ (version 3, with its stream)
and __dlpack__(stream=...) / __dlpack_device__(). release() (or the end of the
with block) synchronises that stream and returns the slot to the game.

Standard library + ctypes only: libcuda.so.1 for the CUDA calls, and
libatomic.so.1 for the 64-bit compare-and-swap on the shared lease words.
"""
import array
import ctypes
import ctypes.util
import fcntl
import logging
import math
import mmap
import os
import socket
import stat
import struct
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from ._types import Buffer, Closes
from .cuda_ipc import HANDLE_SIZE as CUDA_IPC_HANDLE_SIZE
from .cuda_ipc import KDL_CUDA, DeviceBuffer, _DriverApi, _load
from . import _wire
from ._wire import (ACTIVE, CLOSED, CONTROL_SIZE, COUNTERS_OFFSET, DESC_SIZE, DESC_V3_SIZE,
                    DESC_VERSIONS, EMPTY, HELLO_SIZE, MAX_SLOTS, PUBLISHED, RELEASED, SLOT_STRIDE,
                    STATE_NAMES, VERSION, WRITING)
from .errors import DeviceError, FormatError, RingError, StaleDescriptor

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

# CUDA driver API values (cuda.h).
_CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD = 1
_CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD = 9
_CU_STREAM_LEGACY = 1
_CU_EVENT_DISABLE_TIMING = 2


# --- the descriptor -----------------------------------------------------------

# The layouts (_wire.DESC_FIELDS, PLANE_FIELDS: versions 1-2, then version 3's planes,
# near and far as their float32 bits).
_DESC, _PLANES = _wire.DESC, _wire.PLANES


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
    f = _DESC.unpack_from(data)
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
     _) = _PLANES.unpack_from(data, DESC_SIZE)
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


# --- the control block ------------------------------------------------------------

class _Atomics:
    """64-bit atomic load and compare-and-swap on shared memory, through
    libatomic (the same lock-free instructions C11 atomics use)."""

    def __init__(self):
        lib = _load("CRAFTGROUND_CAPTURE_LIBATOMIC",
                    ["libatomic.so.1", lambda: ctypes.util.find_library("atomic")])
        self._cas = getattr(lib, "__atomic_compare_exchange_8")  # no name mangling
        self._cas.restype = ctypes.c_bool
        self._cas.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int,
                              ctypes.c_int]
        # The same function with no argtypes, for a hot loop that passes ctypes objects only
        # (a c_void_p address, the expected word byref, a c_uint64 desired; the orders as
        # ints): ctypes then converts nothing per call (about half the call's cost). Through
        # a PyDLL handle of the library: a compare-and-swap is a few instructions, so the
        # call keeps the GIL (a CDLL call releases and retakes it, and a learner with other
        # Python threads could lose the interpreter to one of them at every lease).
        keep = ctypes.PyDLL(lib._name, handle=lib._handle)
        self.cas_raw = keep._FuncPtr(("__atomic_compare_exchange_8", keep))
        self.cas_raw.restype = ctypes.c_bool
        self._load = getattr(lib, "__atomic_load_8")
        self._load.restype = ctypes.c_uint64
        self._load.argtypes = [ctypes.c_void_p, ctypes.c_int]

    SEQ_CST = 5

    def load(self, addr):
        return self._load(addr, self.SEQ_CST)

    def cas(self, addr, expected, desired):
        """(True, expected) or (False, the current value)."""
        e = ctypes.c_uint64(expected)
        ok = self._cas(addr, ctypes.byref(e), desired, self.SEQ_CST, self.SEQ_CST)
        return bool(ok), e.value


_atomics = None


def _word(frame, state):
    return (frame << 8) | state


def _state_name(state):
    return STATE_NAMES[state] if state < len(STATE_NAMES) else f"unknown state {state}"


# The seals a control block must carry (docs/zero-copy-v2/protocol.md, "The control block"):
# without F_SEAL_SHRINK the producer could truncate the file under the mapping and the
# next lease would kill this process with SIGBUS. (fcntl's names, Linux values.)
_F_GET_SEALS = getattr(fcntl, "F_GET_SEALS", 1034)
CONTROL_SEALS = getattr(fcntl, "F_SEAL_SHRINK", 0x2) | getattr(fcntl, "F_SEAL_GROW", 0x4)


def _map_sealed(fd: int) -> mmap.mmap:
    """The control block behind fd mapped read/write shared, once it is
    known to be a 4096-byte file sealed against shrinking and growing
    (CONTROL_SEALS). RingError for anything else (a directory, a read-only
    fd, an unsealed memfd): never an OSError, never a SIGBUS later."""
    try:
        st = os.fstat(fd)
    except OSError as e:
        raise RingError(f"zero-copy control block: not a file ({e.strerror})") from None
    if not stat.S_ISREG(st.st_mode) or st.st_size < CONTROL_SIZE:
        raise RingError(f"zero-copy control block: not a {CONTROL_SIZE}-byte file")
    try:
        seals = fcntl.fcntl(fd, _F_GET_SEALS)
    except OSError:
        seals = 0  # not a memfd: no seals
    if seals & CONTROL_SEALS != CONTROL_SEALS:
        raise RingError(f"zero-copy control block: not sealed against shrinking and growing "
                        f"(seals {seals:#x}): the producer could shrink it under the mapping")
    try:
        return mmap.mmap(fd, CONTROL_SIZE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    except OSError as e:
        raise RingError(f"zero-copy control block: cannot be mapped read/write "
                        f"({e.strerror})") from None


class ControlBlock:
    """The mapped control block (a memfd received from the producer): the
    lease word of each slot (frame << 8 | state, states EMPTY to CLOSED),
    leased by compare-and-swap. The fd is consumed (closed here);
    RingError when it is not the 4096-byte block of ring `ring_id` with
    `slot_count` slots, sealed against shrinking and growing."""

    def __init__(self, fd: int, slot_count: int, ring_id: int) -> None:
        global _atomics
        if _atomics is None:
            _atomics = _Atomics()
        self._at = _atomics
        self._cas_raw = _atomics.cas_raw  # libatomic's, for a hot loop's own (VectorLearner's)
        try:
            self._map: Any = _map_sealed(fd)
        finally:
            os.close(fd)
        self._buf: Any = (ctypes.c_uint8 * CONTROL_SIZE).from_buffer(self._map)
        self._base = ctypes.addressof(self._buf)
        # The block as 64-bit words, for VectorLearner's release: a plain store of
        # F<<8|RELEASED over its own ACTIVE(F) lease (docs/zero-copy-v2/protocol.md, "Release");
        # released by close(), after which a store raises ValueError, never writes.
        view = memoryview(self._map)
        self._q: Any = view.cast("Q")
        view.release()
        magic, version, slots, stride, rid = _wire.CONTROL_HEADER.unpack_from(self._map, 0)
        if (magic, version, slots, stride, rid) != (b"CGZC", VERSION, slot_count, SLOT_STRIDE,
                                                     ring_id):
            self.close()
            raise RingError("zero-copy control block does not match the hello (magic, version, "
                            "slot count or ring id)")
        self.slot_count = slot_count
        # Each slot's lease word address as a c_void_p, for _cas_raw (VectorLearner's lease;
        # valid while the block is mapped: the lease first checks that the block is still its
        # ring's, which RingLearner.close unmaps and drops).
        self._vwords = tuple(ctypes.c_void_p(self._addr(k)) for k in range(slot_count))

    _word_index = staticmethod(_wire.word_index)  # slot's lease word as an index of _q

    def _addr(self, slot):
        return self._base + 8 * self._word_index(slot)

    def word_address(self, slot: int) -> int:
        """The address of slot `slot`'s lease word in this process (valid
        while the block is mapped), for a compare-and-swap of one's own."""
        if not 0 <= slot < self.slot_count:
            raise RingError(f"slot {slot} is outside the ring's {self.slot_count} slots")
        return self._addr(slot)

    def word(self, slot: int) -> int:
        """Slot `slot`'s 64-bit lease word, loaded atomically."""
        return self._at.load(self._addr(slot))

    def state(self, slot: int) -> Tuple[int, int]:
        """(state, frame) of slot `slot`'s lease word."""
        w = self.word(slot)
        return w & 0xFF, w >> 8

    def producer_closed(self) -> bool:
        """Whether the producer marked the ring closed (header word 2)."""
        return struct.unpack_from("<I", self._map, _wire.PRODUCER_STATE_OFFSET)[0] == 2

    def _swap(self, slot, expected, desired):
        """(True, expected) or (False, the word's value): one compare-and-swap
        of slot's lease word. RingError once the block is closed (never a
        write to unmapped memory) or for a slot outside the ring."""
        if self._map is None:
            raise RingError("the zero-copy control block is closed")
        return self._at.cas(self.word_address(slot), expected, desired)

    def acquire(self, slot: int, frame: int) -> None:
        """PUBLISHED -> ACTIVE for (slot, frame) (already ACTIVE passes).
        RingError when the ring is closed or the word is corrupt,
        StaleDescriptor when the slot holds another frame."""
        ok, cur = self._swap(slot, _word(frame, PUBLISHED), _word(frame, ACTIVE))
        if ok or cur == _word(frame, ACTIVE):
            return
        state, held = cur & 0xFF, cur >> 8
        if state == CLOSED:
            raise RingError("the zero-copy ring was destroyed by the game")
        if state >= len(STATE_NAMES):
            raise RingError(f"slot {slot}'s lease word {cur:#018x} has state {state}, none of "
                            f"0-{len(STATE_NAMES) - 1} (the control block is corrupt)")
        raise StaleDescriptor(f"slot {slot} holds frame {held} ({STATE_NAMES[state]}), not "
                              f"frame {frame}: the learner fell more than a ring behind")

    def release(self, slot: int, frame: int) -> None:
        """ACTIVE -> RELEASED for (slot, frame); RingError when the word is
        no longer that frame's ACTIVE one (the producer reclaimed it)."""
        ok, cur = self._swap(slot, _word(frame, ACTIVE), _word(frame, RELEASED))
        if not ok:
            raise RingError(f"release of slot {slot} frame {frame}: it is frame {cur >> 8}, "
                            f"{_state_name(cur & 0xFF)}")

    def counters(self) -> Optional[Dict[str, int]]:
        """The producer's counters (docs/zero-copy-v2/protocol.md, "Counters"), or None
        when the counters' magic is absent. Read, never trusted: diagnostics."""
        magic, count = struct.unpack_from("<4sI", self._map, COUNTERS_OFFSET)
        if magic != b"CGZS":
            return None
        n = min(count, len(COUNTER_NAMES), (CONTROL_SIZE - COUNTERS_OFFSET - 8) // 8)
        return {COUNTER_NAMES[i]: self._at.load(self._base + COUNTERS_OFFSET + 8 + 8 * i)
                for i in range(n)}

    def close(self) -> None:
        """Unmap the block (once; later calls do nothing). "Closed" is
        published (_map None, the word view released) before the unmap,
        which releases the GIL: another thread that looks then sees a closed
        block, never a mapped one that is going away. The native helper
        stores under an export of the map, which the unmap waits out (an
        mmap with exports is unmapped when the last one goes)."""
        m = self._map
        if m is None:
            return
        self._map = None
        self._buf = None
        self._q.release()
        try:
            m.close()
        except BufferError:
            pass  # exported right now: unmapped with the mmap object, once the export ends


# --- the hand-off socket ------------------------------------------------------------

_HELLO = _wire.HELLO


def _recv_fds_compat(sock: socket.socket, bufsize: int, maxfds: int,
                     flags: int = 0) -> Tuple[bytes, List[int], int, Any]:
    """socket.recv_fds for Python 3.8 (it came in 3.9): the same recvmsg call
    and SCM_RIGHTS parsing, and like it, `flags` is not passed on."""
    fds = array.array("i")
    msg, ancdata, msg_flags, addr = sock.recvmsg(bufsize, socket.CMSG_LEN(maxfds * fds.itemsize))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
    return msg, list(fds), msg_flags, addr


_recv_fds = getattr(socket, "recv_fds", _recv_fds_compat)


def receive_ring(path: str, timeout: float = 10.0
                 ) -> Tuple[socket.socket, Dict[str, int], List[int]]:
    """Connect to the producer's socket at `path` (`timeout` in seconds);
    returns (socket, hello dict, fds). Every received fd is the caller's;
    none is left open on error. Raises RingError when nobody listens, the
    producer refuses (another learner, another user) or the hello is
    malformed."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
    except OSError as e:
        s.close()
        raise RingError(f"no zero-copy producer at {path}: {e.strerror or e}") from None
    fds: List[int] = []
    try:
        try:
            msg, fds, flags, _ = _recv_fds(s, HELLO_SIZE, MAX_SLOTS + 2, socket.MSG_WAITALL)
        except OSError as e:
            raise RingError(f"receiving the hello from {path}: {e}") from None
        if not msg:
            raise RingError(f"the producer at {path} closed the socket before the hello")
        if len(msg) < HELLO_SIZE:
            raise RingError(f"zero-copy hello truncated: {len(msg)} bytes of {HELLO_SIZE}")
        if flags & socket.MSG_CTRUNC:
            raise RingError("the hello's fds were truncated")
        (magic, version, status, ring_id, slot_count, fd_count, slot_size, mode, control_size,
         _) = _HELLO.unpack(msg)
        if magic != b"CGZH":
            raise RingError("zero-copy hello: bad magic")
        if version != VERSION:
            raise RingError(f"zero-copy hello version {version}: this reader knows {VERSION}")
        if status == HELLO_BUSY:
            raise RingError(f"another learner is connected to {path}")
        if status == HELLO_WRONG_UID:
            raise RingError(f"the producer at {path} runs as another user")
        if status != HELLO_OK:
            raise RingError(f"hello status {status} unknown")
        want = slot_count + (2 if mode == MODE_SEMAPHORE else 1)
        if not (1 <= slot_count <= MAX_SLOTS) or fd_count != want or len(fds) != fd_count:
            raise RingError(f"hello announces {fd_count} fds for {slot_count} slots (mode "
                            f"{mode}), {len(fds)} came")
        hello = dict(ring_id=ring_id, slot_count=slot_count, fd_count=fd_count,
                     slot_size=slot_size, mode=mode, control_size=control_size)
        return s, hello, fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        s.close()
        raise


# --- importing into CUDA ----------------------------------------------------------------

class _FdHandle(ctypes.Structure):
    _fields_ = [("fd", ctypes.c_int), ("_pad", ctypes.c_int), ("_rest", ctypes.c_void_p)]


class _ExtMemHandleDesc(ctypes.Structure):  # CUDA_EXTERNAL_MEMORY_HANDLE_DESC
    _fields_ = [("type", ctypes.c_int), ("handle", _FdHandle), ("size", ctypes.c_ulonglong),
                ("flags", ctypes.c_uint), ("reserved", ctypes.c_uint * 16)]


class _ExtMemBufferDesc(ctypes.Structure):  # CUDA_EXTERNAL_MEMORY_BUFFER_DESC
    _fields_ = [("offset", ctypes.c_ulonglong), ("size", ctypes.c_ulonglong),
                ("flags", ctypes.c_uint), ("reserved", ctypes.c_uint * 16)]


class _ExtSemHandleDesc(ctypes.Structure):  # CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC
    _fields_ = [("type", ctypes.c_int), ("handle", _FdHandle), ("flags", ctypes.c_uint),
                ("reserved", ctypes.c_uint * 16)]


class _KeyedMutex(ctypes.Structure):
    _fields_ = [("key", ctypes.c_ulonglong), ("timeoutMs", ctypes.c_uint)]


class _SemWaitParamsInner(ctypes.Structure):
    _fields_ = [("fence_value", ctypes.c_ulonglong), ("nvSciSync", ctypes.c_ulonglong),
                ("keyedMutex", _KeyedMutex), ("reserved", ctypes.c_uint * 10)]


class _SemWaitParams(ctypes.Structure):  # CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS
    _fields_ = [("params", _SemWaitParamsInner), ("flags", ctypes.c_uint),
                ("reserved", ctypes.c_uint * 16)]


# Sizes as cuda.h lays the structs out on 64-bit Linux.
assert ctypes.sizeof(_ExtMemHandleDesc) == 104
assert ctypes.sizeof(_ExtMemBufferDesc) == 88
assert ctypes.sizeof(_ExtSemHandleDesc) == 96
assert ctypes.sizeof(_SemWaitParams) == 144


class CudaImporter(_DriverApi):
    """Imports through the CUDA driver API (libcuda.so.1, loaded as the IPC
    reader loads it) into the primary context of the device whose UUID the
    descriptor names (never another), made current only around each call."""

    def __init__(self) -> None:
        try:
            super().__init__()  # libcuda ($CRAFTGROUND_CAPTURE_LIBCUDA), cuInit
        except OSError as e:  # no driver (no GPU here): the learners' own error
            raise DeviceError(f"no CUDA driver in this process: {e} (libcuda.so.1 comes with "
                              f"NVIDIA's driver; $CRAFTGROUND_CAPTURE_LIBCUDA names another "
                              f"file)") from None
        self.device: Optional[int] = None
        self._event: Optional[ctypes.c_void_p] = None

    def _call(self, what, res):
        try:
            super()._call(what, res)
        except RuntimeError as e:
            raise RingError(str(e)) from None

    def open_device(self, uuid: bytes) -> int:
        """The ordinal of the CUDA device whose UUID is `uuid` (16 bytes, the
        game's Vulkan device UUID); its primary context is retained. RingError
        when no device has it."""
        n = ctypes.c_int()
        self._call("cuDeviceGetCount", self.lib.cuDeviceGetCount(ctypes.byref(n)))
        get_uuid = self._fn("cuDeviceGetUuid_v2", "cuDeviceGetUuid")
        for i in range(n.value):
            dev = ctypes.c_int()
            self._call("cuDeviceGet", self.lib.cuDeviceGet(ctypes.byref(dev), i))
            u = (ctypes.c_ubyte * 16)()
            self._call("cuDeviceGetUuid", get_uuid(u, dev))
            if bytes(u) == bytes(uuid):
                self.device = i
                self._push(i)  # retains the primary context
                self._pop()
                return i
        raise RingError(f"no CUDA device has the game's Vulkan device UUID {bytes(uuid).hex()}")

    def _enter(self):
        self._push(self.device)

    def import_memory(self, fd: int, size: int) -> Tuple[Optional[int], int]:
        """(external memory handle, device pointer). fd is consumed on
        success; closed here on failure."""
        self._enter()
        try:
            d = _ExtMemHandleDesc(type=_CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD, size=size)
            d.handle.fd = fd
            ext = ctypes.c_void_p()
            try:
                self._call("cuImportExternalMemory",
                           self.lib.cuImportExternalMemory(ctypes.byref(ext), ctypes.byref(d)))
            except RingError:
                os.close(fd)
                raise
            b = _ExtMemBufferDesc(offset=0, size=size)
            ptr = ctypes.c_uint64()
            try:
                self._call("cuExternalMemoryGetMappedBuffer",
                           self.lib.cuExternalMemoryGetMappedBuffer(ctypes.byref(ptr), ext,
                                                                    ctypes.byref(b)))
            except RingError:
                self.lib.cuDestroyExternalMemory(ext)
                raise
            return ext.value, ptr.value
        finally:
            self._pop()

    def import_semaphore(self, fd: int) -> Optional[int]:
        """The timeline semaphore behind `fd`, imported (fd consumed on
        success, closed on failure)."""
        self._enter()
        try:
            d = _ExtSemHandleDesc(type=_CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD)
            d.handle.fd = fd
            sem = ctypes.c_void_p()
            try:
                self._call("cuImportExternalSemaphore",
                           self.lib.cuImportExternalSemaphore(ctypes.byref(sem), ctypes.byref(d)))
            except RingError:
                os.close(fd)
                raise
            return sem.value
        finally:
            self._pop()

    def wait(self, sem: int, value: int, stream: int) -> None:
        """Make `stream` wait on the GPU until the timeline reaches value."""
        self._enter()
        try:
            p = _SemWaitParams()
            p.params.fence_value = value
            arr = (ctypes.c_void_p * 1)(sem)
            f = self._fn("cuWaitExternalSemaphoresAsync")
            f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p]
            self._call("cuWaitExternalSemaphoresAsync", f(arr, ctypes.byref(p), 1, stream))
        finally:
            self._pop()

    def order(self, src: int, dst: int) -> None:
        """dst waits for everything queued on src so far (an event)."""
        self._enter()
        try:
            if self._event is None:
                ev = ctypes.c_void_p()
                self._call("cuEventCreate", self.lib.cuEventCreate(ctypes.byref(ev),
                                                                   _CU_EVENT_DISABLE_TIMING))
                self._event = ev
            self.lib.cuEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
            self.lib.cuStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
            self._call("cuEventRecord", self.lib.cuEventRecord(self._event, src))
            self._call("cuStreamWaitEvent", self.lib.cuStreamWaitEvent(dst, self._event, 0))
        finally:
            self._pop()

    def synchronize(self, stream: int) -> None:
        """Wait on the host until the work queued on `stream` is done."""
        self._enter()
        try:
            self.lib.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
            self._call("cuStreamSynchronize", self.lib.cuStreamSynchronize(stream))
        finally:
            self._pop()

    def to_host(self, dst: int, ptr: int, nbytes: int) -> None:  # type: ignore[override]
        """Copy nbytes at device pointer ptr into host memory at dst, on the
        ring's device."""
        # The IPC reader's copy, on the ring's device (its errors raise RingError
        # through this class's _call).
        super().to_host(dst, ptr, nbytes, self.device)  # type: ignore[arg-type]

    def free(self, memories: List[Tuple[Optional[int], int]], semaphore: Optional[int]) -> None:
        """Free the imported slots ((external memory, pointer) pairs) and the
        semaphore, then release the primary contexts."""
        self._enter()
        try:
            self.lib.cuCtxSynchronize()
            self.lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]
            self.lib.cuDestroyExternalMemory.argtypes = [ctypes.c_void_p]
            self.lib.cuDestroyExternalSemaphore.argtypes = [ctypes.c_void_p]
            for ext, ptr in memories:
                self.lib.cuMemFree_v2(ptr)
                self.lib.cuDestroyExternalMemory(ext)
            if semaphore:
                self.lib.cuDestroyExternalSemaphore(semaphore)
            if self._event is not None:
                self._fn("cuEventDestroy_v2", "cuEventDestroy")(self._event)
                self._event = None
        finally:
            self._pop()
        release = self._fn("cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease")
        for device in list(self.ctxs):
            dev = ctypes.c_int()
            if self.lib.cuDeviceGet(ctypes.byref(dev), device) == 0:
                release(dev)
            del self.ctxs[device]


def _norm_stream(stream):
    """A CUstream value: None/0 -> the legacy default stream (1)."""
    if stream is None or stream == 0:
        return _CU_STREAM_LEGACY
    if hasattr(stream, "cuda_stream"):  # torch.cuda.Stream
        return int(stream.cuda_stream) or _CU_STREAM_LEGACY
    if hasattr(stream, "ptr"):  # cupy.cuda.Stream
        return int(stream.ptr) or _CU_STREAM_LEGACY
    return int(stream)


class _StreamBuffer(DeviceBuffer):
    """Device memory readable on `self.stream` (the GPU waits queued there);
    `self._importer` makes the consumer's stream wait for it (an event).
    uint8 unless a subclass sets typestr and _dl_dtype (float32 planes)."""

    typestr = "|u1"

    def _strides(self) -> Optional[Tuple[int, ...]]:
        """Strides in bytes; None: C-contiguous."""
        return None

    def _dl_strides(self) -> Optional[Tuple[int, ...]]:
        st = self._strides()
        size = np.dtype(self.typestr).itemsize
        return None if st is None else tuple(x // size for x in st)

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]:
        """CUDA Array Interface v3 (CuPy, Numba, torch.as_tensor): the
        pointer, shape, strides and the stream the data is ready on."""
        self._check_open()
        return {"shape": self.shape, "typestr": self.typestr, "data": (self.ptr, False),
                "strides": self._strides(), "version": 3, "stream": self.stream}

    def __dlpack__(self, *, stream: Optional[Any] = None,
                   max_version: Optional[Tuple[int, int]] = None,
                   dl_device: Optional[Tuple[int, int]] = None,
                   copy: Optional[bool] = None) -> Any:
        """DLPack capsule (torch.from_dlpack, cupy.from_dlpack, jax): the
        consumer's `stream` is made to wait for ours first (-1/None: none)."""
        self._check_open()
        # The consumer reads on `stream`: order it after ours (-1 or None: no sync).
        if stream is not None and stream != -1:
            consumer = _norm_stream(stream)
            if consumer != self.stream:
                self._importer.order(self.stream, consumer)
        return super().__dlpack__(stream=None, max_version=max_version, dl_device=dl_device,
                                  copy=copy)

    def to_numpy(self) -> np.ndarray:
        """A host copy (numpy, this buffer's shape and dtype, rows as on the
        device), after its stream has finished."""
        self._check_open()
        self._importer.synchronize(self.stream)
        out = np.empty(self.shape, dtype=np.dtype(self.typestr))
        st = self._strides()
        if st is None:
            self._importer.to_host(out.ctypes.data, self.ptr, out.nbytes)
            return out
        # Strided on the first axis only (eyes, or padded rows): one copy
        # of each contiguous block.
        for k in range(self.shape[0]):
            self._importer.to_host(out[k].ctypes.data, self.ptr + k * st[0], out[k].nbytes)
        return out


class RingPlane(_StreamBuffer):
    """One plane of an acquired frame or of a batch, readable on `stream`:
    a depth plane ((H, W) or (2, H, W) float32, upright), with
    __cuda_array_interface__ (strides when the eyes are not packed),
    __dlpack__ and to_numpy() like the frame's. A frame's plane is valid
    while the frame is held (after release() it refuses to export).
    encoding: "linear" (eye distance / far, docs/wire-format.md "Depth") or
    "raw" (the stored reverse-Z depth); near, far, z_zero_to_one: the
    frame's depth parameters (linear; 0.0 and False for raw)."""

    typestr = "<f4"
    _dl_dtype = (2, 32)  # kDLFloat, 32 bits

    def __init__(self, ptr: int, shape: Tuple[int, ...], strides: Optional[Tuple[int, ...]],
                 device: int, stream: int, importer: Any, owner: Any, desc: Descriptor,
                 alive: Optional["RingFrame"] = None) -> None:
        super().__init__(ptr, shape, KDL_CUDA, device, owner=owner)
        self.nbytes *= 4
        self._importer, self.stream, self._strides_b, self._alive = importer, stream, strides, alive
        self.encoding = desc.depth_encoding_name
        self.near, self.far, self.z_zero_to_one = desc.near, desc.far, desc.z_zero_to_one

    def _strides(self) -> Optional[Tuple[int, ...]]:
        return self._strides_b

    def _check_open(self) -> None:
        if self._alive is not None and not self._alive.ptr:
            raise ValueError("the frame was released: its planes are gone")
        super()._check_open()


def _eye_shape(eyes: int, plane: Tuple[int, ...]) -> Tuple[int, ...]:
    """A plane's shape with the eye axis first for two eyes."""
    return plane if eyes == 1 else (eyes,) + plane


def _eye_strides(eyes: int, stride: int, plane: Tuple[int, ...],
                 itemsize: int) -> Optional[Tuple[int, ...]]:
    """Byte strides of the eyes' planes `stride` apart: None when packed
    (C-contiguous), else (stride, then the plane's own)."""
    size = itemsize
    for n in plane:
        size *= n
    if eyes == 1 or stride == size:
        return None
    inner, acc = [], itemsize
    for n in reversed(plane):
        inner.insert(0, acc)
        acc *= n
    return (stride,) + tuple(inner)


# --- the learner ---------------------------------------------------------------------------

class RingFrame(_StreamBuffer):
    """One acquired frame: (height, width, 4) uint8 in the row order `flags`
    gives (RGBA/BGRA formats), or (height, width, 3) uint8 upright (format
    23), readable on `stream` (already made to wait for it). Nothing is
    flipped here: when rows_bottom_up is True, row 0 is the picture's bottom.
    channel_order says "RGBA", "BGRA" or "RGB". RingLearner.acquire makes
    it; release() returns the slot; do not use tensors made from it
    afterwards.

    Planes (descriptor version 3): `eyes` (1 or 2); `rgb`, the colour plane,
    which is the frame itself: (H, W, 3), or (2, H, W, 3) for two eyes
    (strides (color_eye_stride, W*3, 3, 1) when the eyes are not packed);
    `depth`, a RingPlane (H, W) or (2, H, W) float32, or None without a
    depth plane. One lease covers them all."""

    def __init__(self, ring: "RingLearner", desc: Descriptor, ptr: int, stream: int) -> None:
        ch = desc.channels
        super().__init__(ptr, _eye_shape(desc.eyes, (desc.height, desc.width, ch)), KDL_CUDA,
                         ring.device, owner=ring)
        self.eyes, self._desc, self._depth = desc.eyes, desc, None
        self._ring, self._importer = ring, ring.frame_api
        self.slot, self.frame, self.stream = desc.slot, desc.frame, stream
        self.row_pitch = desc.row_pitch
        self.format, self.flags = desc.format, desc.flags
        self.format_name, self.channel_order = desc.format_name, desc.channel_order
        self.rows_bottom_up = desc.rows_bottom_up

    def _strides(self) -> Optional[Tuple[int, ...]]:
        if self.eyes > 1:
            return _eye_strides(self.eyes, self._desc.color_eye_stride, self.shape[1:], 1)
        ch = self.shape[2]
        return None if self.row_pitch == self.shape[1] * ch else (self.row_pitch, ch, 1)

    @property
    def rgb(self) -> "RingFrame":
        """The colour plane(s): the frame itself ((H, W, 3) or (2, H, W, 3))."""
        return self

    @property
    def depth(self) -> Optional[RingPlane]:
        """The depth plane(s), (H, W) or (2, H, W) float32 upright, or None
        when the ring has no depth plane. Valid while the frame is held."""
        d = self._desc
        if not d.has_depth:
            return None
        self._check_open()
        if self._depth is None:
            plane = (d.height, d.width)
            self._depth = RingPlane(self.ptr + d.depth_offset, _eye_shape(d.eyes, plane),
                                    _eye_strides(d.eyes, d.depth_eye_stride, plane, 4),
                                    self.device, self.stream, self._importer, self._ring, d,
                                    alive=self)
        return self._depth

    def release(self, synchronize: bool = True) -> None:
        """Return the slot to the game. synchronize: first wait for the work
        queued on the frame's stream (it may still read the slot); pass False
        only when that is already known to be complete."""
        if not self.ptr:
            return
        if synchronize:
            self._importer.synchronize(self.stream)
        self.ptr = 0
        self._ring._release(self)

    def __enter__(self) -> "RingFrame":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class RingLearner(Closes):
    """Connects to the ring a descriptor names, imports it once, and hands
    out frames. `descriptor`: the ipc_handle bytes or a Descriptor.
    `importer`: CudaImporter() by default; tests pass a stand-in with the
    same methods. `timeout`: seconds for the hand-off socket.

    `device`: the CUDA device the frames are wanted on: an ordinal (int), a
    UUID ("GPU-xxxxxxxx-..." as nvidia-smi -L prints it, 32 hex digits, or
    16 bytes), or None for the ring's own GPU (by the descriptor's UUID).
    Another GPU than the ring's: each frame is copied there after its wait
    (docs/zero-copy-v2/learner.md, "Learner and games on different GPUs"), by the
    path `cross_gpu` picks: "auto" (a peer copy where the two GPUs allow
    peer access, else a staged copy through pinned host memory), "peer",
    "staged" or "refuse". `path` says which is in use ("same-gpu import",
    "peer copy", "staged copy"); one line is logged at connect (logger
    "craftground_capture"). `device` is then the frames' GPU, `source_device`
    the ring's (the same for the same-GPU import).

    Raises FormatError for a bad descriptor, DeviceError (a RingError and a
    ValueError) for a device that does not exist, a malformed UUID or a
    cross-GPU path cross_gpu forbids, RingError when the producer refuses
    (another learner, another user) or breaks the protocol,
    StaleDescriptor when the socket serves another ring."""

    _path_log_level = logging.INFO  # the connect line; the vector's own rings log at DEBUG

    def __init__(self, descriptor: Union[Buffer, Descriptor], importer: Optional[Any] = None,
                 timeout: float = 10.0, device: Any = None, cross_gpu: str = "auto") -> None:
        d = descriptor if isinstance(descriptor, Descriptor) else parse_descriptor(descriptor)
        self.importer = importer if importer is not None else CudaImporter()
        self.ring_id, self.mode = d.ring_id, d.mode
        self.width, self.height = d.width, d.height
        self.socket_path = d.socket_path
        self._memories: List[Tuple[Optional[int], int]] = []
        self._semaphore: Optional[int] = None
        self._control: Optional[ControlBlock] = None
        self._sock: Optional[socket.socket] = None
        self._held: Dict[Tuple[int, int], RingFrame] = {}
        self._route: Optional[Any] = None  # another GPU than the ring's: _device.FrameCopy
        self._placement: Optional[Any] = None
        self.frame_api: Any = self.importer  # the calls on the frames' GPU
        self.device = self.importer.open_device(d.device_uuid)
        try:
            from . import _device  # it builds on this module

            _device.route_ring(self, d, device, cross_gpu)  # sets path (and device when moved)
        except BaseException:
            self.close()
            raise
        sock, hello, fds = receive_ring(d.socket_path, timeout)
        self._sock = sock
        try:
            if (hello["ring_id"], hello["slot_count"], hello["slot_size"], hello["mode"]) != (
                    d.ring_id, d.slot_count, d.slot_size, d.mode):
                raise StaleDescriptor("the socket serves another ring than the descriptor names "
                                      "(the game re-initialised): use a newer descriptor")
            self.slot_count, self.slot_size = hello["slot_count"], hello["slot_size"]
            control_fd, fds = fds[0], fds[1:]
            self._control = ControlBlock(control_fd, self.slot_count, self.ring_id)
            while len(self._memories) < self.slot_count:
                fd = fds.pop(0)
                self._memories.append(self.importer.import_memory(fd, self.slot_size))
            if self.mode == MODE_SEMAPHORE:
                self._semaphore = self.importer.import_semaphore(fds.pop(0))
        except BaseException:
            for fd in fds:
                os.close(fd)
            self.close()
            raise

    def acquire(self, descriptor: Union[Buffer, Descriptor],
                stream: Optional[Any] = None) -> RingFrame:
        """Lease the frame `descriptor` names; `stream` (a CUstream value,
        torch/CuPy stream, or None for the legacy default stream) waits on
        the GPU until it is complete. Raises StaleDescriptor when the slot
        was reused or the descriptor is of another ring, FormatError for a
        bad descriptor or frame 0, RingError when the learner is closed or
        the frame is already held."""
        if self._sock is None or self._control is None:
            raise RingError("the ring learner is closed")
        d = descriptor if isinstance(descriptor, Descriptor) else parse_descriptor(descriptor)
        if d.ring_id != self.ring_id:
            raise StaleDescriptor(f"descriptor of ring {d.ring_id:#x}, this learner has ring "
                                  f"{self.ring_id:#x}: the game re-initialised; reconnect")
        if d.frame == 0:
            raise FormatError("frame 0 is the ring's template: it names no frame")
        if (d.slot, d.frame) in self._held:
            raise RingError(f"frame {d.frame} is already acquired and not released")
        self.lease(d)
        s = _norm_stream(stream)
        ptr = self._memories[d.slot][1]
        route = self._route
        try:
            if self.mode == MODE_SEMAPHORE:  # on the ring's GPU: the copy's stream when moved
                self.importer.wait(self._semaphore, d.frame, s if route is None else route.stream)
            if route is not None:
                ptr = route.deliver(d.slot, ptr, s)
        except BaseException:
            if route is not None:
                route.drain()  # nothing queued may still read the slot
            self._control.release(d.slot, d.frame)
            raise
        frame = RingFrame(self, d, ptr, s)
        self._held[(d.slot, d.frame)] = frame
        return frame

    def lease(self, d: Descriptor) -> int:
        """Take the lease of the frame parsed descriptor d names (no GPU wait,
        no RingFrame: the VectorLearner's path); returns the slot's device
        pointer. Raises StaleDescriptor as acquire() does."""
        if self._sock is None:
            raise RingError("the ring learner is closed")
        if d.ring_id != self.ring_id:
            raise StaleDescriptor(f"descriptor of ring {d.ring_id:#x}, this learner has ring "
                                  f"{self.ring_id:#x}: the game re-initialised; reconnect")
        self._control.acquire(d.slot, d.frame)
        return self._memories[d.slot][1]

    def unlease(self, slot: int, frame: int) -> None:
        """Give back a lease taken with lease() once the GPU work reading the
        slot has completed."""
        if self._control is not None:
            self._control.release(slot, frame)

    def producer_counters(self) -> Optional[Dict[str, int]]:
        """The producer's counters from the control block (COUNTER_NAMES ->
        value), or None when the producer keeps none (an older library)."""
        return self._control.counters() if self._control is not None else None

    def _release(self, frame):
        self._held.pop((frame.slot, frame.frame), None)
        if self._route is not None:
            self._route.settle(frame.slot)  # the copy read the slot: done before it goes back
        if self._control is not None:
            self._control.release(frame.slot, frame.frame)

    def state(self, slot: int) -> Tuple[str, int]:
        """(state name, frame) of a slot's lease word, for diagnostics.
        Raises RingError once the learner is closed."""
        if self._control is None:
            raise RingError("the ring learner is closed")
        st, fr = self._control.state(slot)
        return STATE_NAMES[st] if st < len(STATE_NAMES) else str(st), fr

    def close(self) -> None:
        """Release every held frame, free the imports, disconnect."""
        for frame in list(self._held.values()):
            try:
                frame.release()
            except RingError:
                pass  # the ring is gone or reclaimed it already
        self._held.clear()
        if self._route is not None:
            self._route.close()
            self._route = None
        if self._memories or self._semaphore:
            self.importer.free(self._memories, self._semaphore)
            self._memories, self._semaphore = [], None
        if self._placement is not None:
            self._placement.close()
            self._placement = None
        ctl, self._control = self._control, None  # published before the unmap (as above)
        if ctl is not None:
            ctl.close()
        if self._sock is not None:
            self._sock.close()
            self._sock = None
