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

Standard library + ctypes only: libcuda.so.1 for the CUDA calls (_cuda),
and libatomic.so.1 for the 64-bit compare-and-swap on the shared lease
words (_control); the socket and its file descriptors are the transport's
(_transport: POSIX today). This module keeps the names it had before those
moved (the wire format's, ControlBlock, CudaImporter; receive_ring and
CONTROL_SEALS, the POSIX transport's, on first use).
"""
import logging
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from ._control import ControlBlock
from ._cuda import CudaImporter, norm_stream
from ._device import route_ring
from ._transport import get as get_transport
from ._types import Buffer, Closes
from ._wire import (ACTIVE, CLOSED, CONTROL_SIZE, COUNTER_NAMES, COUNTERS_OFFSET,
                    CUDA_IPC_HANDLE_SIZE, DEPTH_ENCODINGS, DEPTH_FLAGS_KNOWN, DEPTH_LINEAR,
                    DEPTH_NONE, DEPTH_RAW, DEPTH_Z_ZERO_TO_ONE, DESC_SIZE, DESC_V3_SIZE,
                    DESC_VERSIONS, EMPTY, FLAG_ROWS_BOTTOM_UP, FLAGS_KNOWN, FORMAT_R32_SFLOAT,
                    FORMAT_RGB8, FORMATS, HELLO_BUSY, HELLO_OK, HELLO_SIZE, HELLO_WRONG_UID,
                    MAX_EYES, MAX_SLOTS, MODE_FENCE, MODE_SEMAPHORE, PUBLISHED, RELEASED,
                    SLOT_STRIDE, STATE_NAMES, TAG_HEADER_SIZE, TAGGED_KINDS, UNTAGGED_KINDS,
                    VERSION, WRITING, Descriptor, handle_kind, parse_descriptor)
from .cuda_ipc import KDL_CUDA, DeviceBuffer
from .errors import DeviceError, FormatError, RingError, StaleDescriptor


class StreamBuffer(DeviceBuffer):
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
            consumer = norm_stream(stream)
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


class RingPlane(StreamBuffer):
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


def eye_shape(eyes: int, plane: Tuple[int, ...]) -> Tuple[int, ...]:
    """A plane's shape with the eye axis first for two eyes."""
    return plane if eyes == 1 else (eyes,) + plane


def eye_strides(eyes: int, stride: int, plane: Tuple[int, ...],
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

class RingFrame(StreamBuffer):
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
        super().__init__(ptr, eye_shape(desc.eyes, (desc.height, desc.width, ch)), KDL_CUDA,
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
            return eye_strides(self.eyes, self._desc.color_eye_stride, self.shape[1:], 1)
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
            self._depth = RingPlane(self.ptr + d.depth_offset, eye_shape(d.eyes, plane),
                                    eye_strides(d.eyes, d.depth_eye_stride, plane, 4),
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
    same methods. `timeout`: seconds for the hand-off socket. `transport`:
    how the producer is reached, None for this OS's ("posix": a Unix
    socket, file descriptors; docs/architecture.md, "The learner
    package's layers").

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
                 timeout: float = 10.0, device: Any = None, cross_gpu: str = "auto",
                 transport: Any = None) -> None:
        d = descriptor if isinstance(descriptor, Descriptor) else parse_descriptor(descriptor)
        self._transport = get_transport(transport)
        self.importer = importer if importer is not None else CudaImporter(
            self._transport.handle_type)
        self.ring_id, self.mode = d.ring_id, d.mode
        self.width, self.height = d.width, d.height
        self.socket_path = d.socket_path
        self._memories: List[Tuple[Optional[int], int]] = []
        self._semaphore: Optional[int] = None
        self._control: Optional[ControlBlock] = None
        self._sock: Optional[Any] = None  # the transport's connection (a socket here)
        self._held: Dict[Tuple[int, int], RingFrame] = {}
        self._opened = False
        self._routing: Optional[Any] = None  # _device.RingRoute: where the frames go
        self._route: Optional[Any] = None  # another GPU than the ring's: its FrameCopy
        self.frame_api: Any = self.importer  # the calls on the frames' GPU
        self.device = self.importer.open_device(d.device_uuid)
        self._opened = True  # the importer holds the device (its primary context) from here
        try:
            r = self._routing = route_ring(d, self.device, device, cross_gpu,
                                           self._path_log_level)
            self.path, self.source_device, self.device, self._route = (
                r.path, r.source_device, r.device, r.copy)
            if r.frame_api is not None:
                self.frame_api = r.frame_api
            sock, hello, fds = self._transport.connect(d.socket_path, timeout)
        except BaseException:
            self.close()
            raise
        self._sock = sock
        try:
            if (hello["ring_id"], hello["slot_count"], hello["slot_size"], hello["mode"]) != (
                    d.ring_id, d.slot_count, d.slot_size, d.mode):
                raise StaleDescriptor("the socket serves another ring than the descriptor names "
                                      "(the game re-initialised): use a newer descriptor")
            self.slot_count, self.slot_size = hello["slot_count"], hello["slot_size"]
            control_fd, fds = fds[0], fds[1:]
            self._control = ControlBlock(control_fd, self.slot_count, self.ring_id,
                                         self._transport)
            while len(self._memories) < self.slot_count:
                fd = fds.pop(0)
                self._memories.append(self.importer.import_memory(fd, self.slot_size))
            if self.mode == MODE_SEMAPHORE:
                self._semaphore = self.importer.import_semaphore(fds.pop(0))
        except BaseException:
            for fd in fds:
                self._transport.close_handle(fd)
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
        s = norm_stream(stream)
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

    @property
    def control(self) -> Optional[ControlBlock]:
        """The ring's mapped control block (None once closed)."""
        return self._control

    @property
    def semaphore(self) -> Optional[int]:
        """The imported timeline semaphore (semaphore mode; None in fence
        mode or once closed)."""
        return self._semaphore

    @property
    def slot_pointers(self) -> List[int]:
        """Each slot's device pointer on the ring's GPU, as imported (empty
        once closed)."""
        return [m[1] for m in self._memories]

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
        if self._opened:  # the imports, then what open_device retained (also with none)
            self._opened = False
            self.importer.free(self._memories, self._semaphore)
            self._memories, self._semaphore = [], None
        if self._routing is not None:  # the contexts its placement retained
            self._routing.close()
            self._routing = None
        ctl, self._control = self._control, None  # published before the unmap (as above)
        if ctl is not None:
            ctl.close()
        if self._sock is not None:
            self._sock.close()
            self._sock = None


# RingLearner and what it hands out, with the names this module had before the wire format,
# the control block, the transport and the CUDA calls became modules of their own.
__all__ = [
    "ACTIVE", "CLOSED", "CONTROL_SIZE", "COUNTERS_OFFSET", "COUNTER_NAMES",
    "CUDA_IPC_HANDLE_SIZE", "ControlBlock", "CudaImporter", "DEPTH_ENCODINGS",
    "DEPTH_FLAGS_KNOWN", "DEPTH_LINEAR", "DEPTH_NONE", "DEPTH_RAW", "DEPTH_Z_ZERO_TO_ONE",
    "DESC_SIZE", "DESC_V3_SIZE", "DESC_VERSIONS", "Descriptor", "DeviceError", "EMPTY",
    "FLAGS_KNOWN", "FLAG_ROWS_BOTTOM_UP", "FORMATS", "FORMAT_R32_SFLOAT", "FORMAT_RGB8",
    "FormatError", "HELLO_BUSY", "HELLO_OK", "HELLO_SIZE", "HELLO_WRONG_UID", "MAX_EYES",
    "MAX_SLOTS", "MODE_FENCE", "MODE_SEMAPHORE", "PUBLISHED", "RELEASED", "RingError",
    "RingFrame", "RingLearner", "RingPlane", "SLOT_STRIDE", "STATE_NAMES", "StaleDescriptor",
    "StreamBuffer", "TAGGED_KINDS", "TAG_HEADER_SIZE", "UNTAGGED_KINDS", "VERSION", "WRITING",
    "eye_shape", "eye_strides", "handle_kind", "parse_descriptor",
]


def __getattr__(name: str) -> Any:
    """receive_ring and CONTROL_SEALS, the POSIX transport's (_posix), as this
    module had them: imported on first use, so that the package imports
    where that transport cannot (no fcntl, no AF_UNIX)."""
    if name in ("receive_ring", "CONTROL_SEALS"):
        from . import _posix

        return getattr(_posix, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
