"""Which GPU the learner's frames land on, and how they get there
(docs/zero-copy-v2/learner.md, "Learner and games on different GPUs").

A ring lives on the GPU that renders its game. A learner that asks for
another GPU (`device=`) imports the ring there all the same (the producer's
GPU, its primary context) and moves each frame to its own GPU by one of two
paths, chosen at connect, reported in `learner.path` and logged once:

    "same-gpu import"  the ring's GPU is the learner's: the slot itself
    "peer copy"        cuMemcpyPeerAsync with peer access enabled both ways
                       (GPU to GPU over NVLink or PCIe, no host memory)
    "staged copy"      cuMemcpyDtoHAsync into pinned host memory on the
                       ring's GPU, then cuMemcpyHtoDAsync on the learner's

`cross_gpu=` decides: "auto" (peer where both GPUs allow it, else staged),
"peer" (peer or a DeviceError saying why not), "staged" (always staged),
"refuse" (a DeviceError for any GPU but the ring's). Never a silent path:
whichever is taken is in `path` and in the log line.
"""
import ctypes
import logging
import os
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from .errors import DeviceError, RingError
from .ring import MODE_SEMAPHORE, CudaImporter

log = logging.getLogger("craftground_capture")

SAME_GPU, PEER_COPY, STAGED_COPY = "same-gpu import", "peer copy", "staged copy"
PATHS = (SAME_GPU, PEER_COPY, STAGED_COPY)
CROSS_GPU = ("auto", "peer", "staged", "refuse")
DeviceSpec = Union[None, int, str, bytes, bytearray, memoryview]

_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704
_CU_MEMHOSTALLOC_PORTABLE = 1  # pinned for every context: the H2D runs in another one
_CU_STREAM_NON_BLOCKING = 1
_UUID_DASHED = re.compile(r"(?:GPU-|MIG-)?([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})"
                          r"-([0-9a-f]{12})", re.IGNORECASE)
_UUID_HEX = re.compile(r"[0-9a-f]{32}", re.IGNORECASE)


def uuid_text(uuid: bytes) -> str:
    """16 bytes as nvidia-smi -L prints a GPU's UUID: GPU-8-4-4-4-12 hex."""
    h = bytes(uuid).hex()
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class Gpu:
    """One CUDA device of this process: its ordinal (after
    CUDA_VISIBLE_DEVICES), name and 16-byte UUID."""

    __slots__ = ("ordinal", "name", "uuid")

    def __init__(self, ordinal: int, name: str, uuid: bytes) -> None:
        self.ordinal, self.name, self.uuid = ordinal, name, bytes(uuid)

    def __str__(self) -> str:
        return f"GPU {self.ordinal} ({self.name}, {uuid_text(self.uuid)})"

    __repr__ = __str__


def parse_device(spec: Any) -> Union[int, bytes]:
    """`device=` -> a CUDA ordinal (int >= 0) or a 16-byte UUID. Takes an
    int, a UUID string ("GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" as
    nvidia-smi -L prints it, "MIG-..." likewise, or 32 hex digits) or 16
    bytes. DeviceError for anything else."""
    if isinstance(spec, bool) or spec is None:
        raise DeviceError(f"device={spec!r}: give a CUDA ordinal (int), a GPU UUID or None")
    if isinstance(spec, int):
        if spec < 0:
            raise DeviceError(f"device={spec}: a CUDA ordinal is 0 or more")
        return spec
    if isinstance(spec, (bytes, bytearray, memoryview)):
        b = bytes(spec)
        if len(b) != 16:
            raise DeviceError(f"device= bytes: a GPU UUID is 16 bytes, got {len(b)}")
        return b
    if isinstance(spec, str):
        s = spec.strip()
        m = _UUID_DASHED.fullmatch(s)
        if m:
            return bytes.fromhex("".join(m.groups()))
        if _UUID_HEX.fullmatch(s):
            return bytes.fromhex(s)
        hint = " (an ordinal is an int: device=%s)" % s if s.isdigit() else ""
        raise DeviceError(f"device={spec!r} is not a GPU UUID: expected "
                          f"'GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx' (as nvidia-smi -L prints "
                          f"it) or 32 hex digits{hint}")
    raise DeviceError(f"device= takes an int, a UUID string or 16 bytes, not "
                      f"{type(spec).__name__}")


def list_gpus(api: Any) -> List[Gpu]:
    """Every CUDA device this process sees, through `api` (a CudaImporter)."""
    n = ctypes.c_int()
    api._call("cuDeviceGetCount", api.lib.cuDeviceGetCount(ctypes.byref(n)))
    get_uuid = api._fn("cuDeviceGetUuid_v2", "cuDeviceGetUuid")
    gpus = []
    for i in range(n.value):
        dev = ctypes.c_int()
        api._call(f"cuDeviceGet({i})", api.lib.cuDeviceGet(ctypes.byref(dev), i))
        u = (ctypes.c_ubyte * 16)()
        api._call("cuDeviceGetUuid", get_uuid(u, dev))
        name = ctypes.create_string_buffer(256)
        api.lib.cuDeviceGetName.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
        api._call("cuDeviceGetName", api.lib.cuDeviceGetName(name, 256, dev))
        gpus.append(Gpu(i, name.value.decode(errors="replace"), bytes(u)))
    return gpus


def _seen(gpus: Sequence[Gpu]) -> str:
    vis = os.environ.get("CUDA_VISIBLE_DEVICES")
    where = f" (CUDA_VISIBLE_DEVICES={vis})" if vis is not None else ""
    if not gpus:
        return f"this process sees no CUDA device{where}"
    return (f"this process sees {len(gpus)} CUDA device{'s' if len(gpus) > 1 else ''}{where}: "
            + "; ".join(str(g) for g in gpus))


def resolve(spec: Any, gpus: Sequence[Gpu]) -> Gpu:
    """The Gpu `device=` names; DeviceError naming what was asked and what
    exists when none is."""
    want = parse_device(spec)
    if isinstance(want, int):
        if want < len(gpus):
            return gpus[want]
        raise DeviceError(f"device={want}: no such CUDA device; {_seen(gpus)}")
    for g in gpus:
        if g.uuid == want:
            return g
    raise DeviceError(f"device={spec!r}: no CUDA device has UUID {uuid_text(want)}; {_seen(gpus)}")


def ring_gpu(uuid: bytes, gpus: Sequence[Gpu]) -> Gpu:
    """The Gpu of a ring (its descriptor's device UUID)."""
    for g in gpus:
        if g.uuid == bytes(uuid):
            return g
    raise RingError(f"no CUDA device has the game's Vulkan device UUID {bytes(uuid).hex()}; "
                    f"{_seen(gpus)}")


def check_choice(cross_gpu: str) -> None:
    if cross_gpu not in CROSS_GPU:
        raise DeviceError(f"cross_gpu must be one of {', '.join(map(repr, CROSS_GPU))}, got "
                          f"{cross_gpu!r}")


def peer_blocker(api: "Any", a: Gpu, b: Gpu) -> Optional[str]:
    """None once peer access is enabled both ways between a and b (their
    primary contexts), else why it cannot be."""
    for x, y in ((a, b), (b, a)):
        if not api.can_access_peer(x.ordinal, y.ordinal):
            return f"cuDeviceCanAccessPeer: GPU {x.ordinal} cannot access GPU {y.ordinal}"
    for x, y in ((a, b), (b, a)):
        err = api.enable_peer(x.ordinal, y.ordinal)
        if err:
            return f"cuCtxEnablePeerAccess from GPU {x.ordinal} to GPU {y.ordinal}: {err}"
    return None


def choose_path(api: Any, src: Gpu, dst: Gpu, cross_gpu: str) -> Tuple[str, str]:
    """(path, why) for frames of a ring on `src` read on `dst`. DeviceError
    when cross_gpu forbids the only way there is."""
    check_choice(cross_gpu)
    if src.ordinal == dst.ordinal:
        return SAME_GPU, "the ring's own GPU"
    if cross_gpu == "refuse":
        raise DeviceError(f"the ring is on {src}, the learner asked for {dst}, and "
                          f"cross_gpu='refuse' allows only the ring's GPU (cross_gpu='auto' "
                          f"copies the frames across)")
    if cross_gpu == "staged":
        return STAGED_COPY, "cross_gpu='staged'"
    why = peer_blocker(api, src, dst)
    if why is None:
        return PEER_COPY, "peer access enabled both ways"
    if cross_gpu == "peer":
        raise DeviceError(f"no peer access between {src} (the ring's) and {dst} (the "
                          f"learner's): {why}; cross_gpu='staged' copies through pinned host "
                          f"memory instead")
    return STAGED_COPY, f"no peer access: {why}"


class CrossGpuCalls:
    """The driver calls of the cross-GPU paths, mixed into vector._BatchApi
    (whose _in_ctx, _fn and lib they use), each in the primary context of
    `self.device` unless it names another."""

    def ctx_of(self, ordinal: int) -> ctypes.c_void_p:
        """The retained primary context of device `ordinal`."""
        self._push(ordinal)  # retains it once
        self._pop()
        return self.ctxs[ordinal]

    def can_access_peer(self, a: int, b: int) -> bool:
        can, da, db = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        self._call("cuDeviceGet", self.lib.cuDeviceGet(ctypes.byref(da), a))
        self._call("cuDeviceGet", self.lib.cuDeviceGet(ctypes.byref(db), b))
        self._call("cuDeviceCanAccessPeer",
                   self.lib.cuDeviceCanAccessPeer(ctypes.byref(can), da, db))
        return bool(can.value)

    def enable_peer(self, a: int, b: int) -> Optional[str]:
        """Let device a's context access device b's memory; None when done
        (or already so), else the driver's error."""
        peer = self.ctx_of(b)
        f = self.lib.cuCtxEnablePeerAccess
        f.argtypes = [ctypes.c_void_p, ctypes.c_uint]
        self._push(a)
        try:
            res = f(peer, 0)
        finally:
            self._pop()
        if res in (0, _CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED):
            return None
        s = ctypes.c_char_p()
        self._name(res, ctypes.byref(s))
        return f"{(s.value or b'?').decode()} ({res})"

    def stream(self) -> int:
        s = ctypes.c_void_p()
        self.lib.cuStreamCreate.argtypes = [ctypes.c_void_p, ctypes.c_uint]
        self._in_ctx("cuStreamCreate", lambda: self.lib.cuStreamCreate(
            ctypes.byref(s), _CU_STREAM_NON_BLOCKING))
        return s.value

    def stream_free(self, s: int) -> None:
        f = self._fn("cuStreamDestroy_v2", "cuStreamDestroy")
        f.argtypes = [ctypes.c_void_p]
        self._in_ctx("cuStreamDestroy", lambda: f(s))

    def wait_event(self, stream: int, ev: int) -> None:
        """`stream` (of this device) waits for `ev` (of any device)."""
        self.lib.cuStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
        self._in_ctx("cuStreamWaitEvent", lambda: self.lib.cuStreamWaitEvent(stream, ev, 0))

    def host_alloc(self, nbytes: int) -> int:
        p = ctypes.c_void_p()
        self.lib.cuMemHostAlloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
        self._in_ctx("cuMemHostAlloc", lambda: self.lib.cuMemHostAlloc(
            ctypes.byref(p), nbytes, _CU_MEMHOSTALLOC_PORTABLE))
        return p.value

    def host_free(self, p: int) -> None:
        self.lib.cuMemFreeHost.argtypes = [ctypes.c_void_p]
        self._in_ctx("cuMemFreeHost", lambda: self.lib.cuMemFreeHost(p))

    def copy_peer(self, dst: int, dst_dev: int, src: int, src_dev: int, nbytes: int,
                  stream: int) -> None:
        f = self.lib.cuMemcpyPeerAsync
        f.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p,
                      ctypes.c_size_t, ctypes.c_void_p]
        dctx, sctx = self.ctx_of(dst_dev), self.ctx_of(src_dev)
        self._in_ctx("cuMemcpyPeerAsync", lambda: f(dst, dctx, src, sctx, nbytes, stream))

    def to_pinned(self, host: int, src: int, nbytes: int, stream: int) -> None:
        f = self._fn("cuMemcpyDtoHAsync_v2")
        f.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_void_p]
        self._in_ctx("cuMemcpyDtoHAsync", lambda: f(host, src, nbytes, stream))

    def from_pinned(self, dst: int, host: int, nbytes: int, stream: int) -> None:
        f = self._fn("cuMemcpyHtoDAsync_v2")
        f.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        self._in_ctx("cuMemcpyHtoDAsync", lambda: f(dst, host, nbytes, stream))


def api_on(ordinal: int) -> Any:
    """A vector._BatchApi (the batch's calls and CrossGpuCalls) whose calls
    run in the primary context of device `ordinal` (retained here)."""
    from .vector import _BatchApi  # vector imports this module

    api = _BatchApi()
    api.device = ordinal
    api.ctx_of(ordinal)
    return api


class Placement:
    """Where a learner's frames go (device= resolved) and by which path from
    each ring's GPU (`uuids`: the rings' device UUIDs). `api` keeps the
    primary contexts of every GPU involved retained for the learner's life:
    peer access, once enabled, lasts as long as those contexts do."""

    def __init__(self, device: DeviceSpec, cross_gpu: str, uuids: Sequence[bytes]) -> None:
        check_choice(cross_gpu)
        self.api: Any = None
        self.gpus = list_gpus(CudaImporter())  # no context retained: nothing to free
        self.dst = resolve(device, self.gpus)
        self.sources = {bytes(u): ring_gpu(u, self.gpus) for u in uuids}
        self.api = api_on(self.dst.ordinal)
        self.paths: Dict[bytes, Tuple[str, str]] = {}
        try:
            for u, g in self.sources.items():
                self.api.ctx_of(g.ordinal)
                self.paths[u] = choose_path(self.api, g, self.dst, cross_gpu)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self.api is not None:
            self.api.free([], None)
            self.api = None


class FrameCopy:
    """The RingLearner's cross-GPU path: per slot, a buffer on the learner's
    GPU that the frame is copied into after the timeline wait, on a stream
    of the ring's GPU (staged: through a pinned host buffer of the slot).
    Each slot's copy ends with an event; the lease goes back only once it
    has completed (settle)."""

    def __init__(self, path: str, src: Gpu, dst: Gpu, slot_count: int, slot_size: int) -> None:
        self.path, self.size = path, slot_size
        self.src_api, self.dst_api = api_on(src.ordinal), api_on(dst.ordinal)
        self.src, self.dst = src.ordinal, dst.ordinal
        self.stream = 0
        self.buffers: List[int] = []
        self.hosts: List[int] = []
        self.events: List[Tuple[Any, int]] = []  # (api, event) that ends each slot's copy
        self.landed: List[int] = []  # staged: the D2H's event, on the ring's GPU
        try:
            self.stream = self.src_api.stream()
            for _ in range(slot_count):
                self.buffers.append(self.dst_api.alloc(slot_size))
                if path == STAGED_COPY:
                    self.hosts.append(self.src_api.host_alloc(slot_size))
                    self.landed.append(self.src_api.event())
                    self.events.append((self.dst_api, self.dst_api.event()))
                else:
                    self.events.append((self.src_api, self.src_api.event()))
        except BaseException:
            self.close()
            raise

    def wait_stream(self, consumer: int) -> int:
        """The stream the timeline wait goes on: ours, on the ring's GPU."""
        return self.stream

    def deliver(self, slot: int, src_ptr: int, consumer: int) -> int:
        """Queue the copy of slot `slot` (after the wait already queued on
        self.stream) and make `consumer` (a stream of the learner's GPU) wait
        for it; returns the frame's pointer on the learner's GPU."""
        dst = self.buffers[slot]
        if self.path == PEER_COPY:
            self.src_api.copy_peer(dst, self.dst, src_ptr, self.src, self.size, self.stream)
            api, ev = self.events[slot]
            api.record(ev, self.stream)
            self.dst_api.wait_event(consumer, ev)
        else:
            host = self.hosts[slot]
            self.src_api.to_pinned(host, src_ptr, self.size, self.stream)
            self.src_api.record(self.landed[slot], self.stream)
            self.dst_api.wait_event(consumer, self.landed[slot])
            self.dst_api.from_pinned(dst, host, self.size, consumer)
            api, ev = self.events[slot]
            api.record(ev, consumer)
        return dst

    def drain(self) -> None:
        """Wait for whatever was queued on our stream (after a failed
        deliver, before the lease goes back); errors are the caller's."""
        try:
            self.src_api.synchronize(self.stream)
        except RingError:
            pass

    def settle(self, slot: int) -> None:
        """Wait (host) until slot `slot`'s copy has completed: its source
        may go back to the game."""
        api, ev = self.events[slot]
        api.event_wait(ev)

    def close(self) -> None:
        if self.src_api is None:
            return
        try:
            if self.stream:
                self.src_api.synchronize(self.stream)
        finally:
            for api, ev in self.events:
                api.event_free(ev)
            for ev in self.landed:
                self.src_api.event_free(ev)
            for p in self.buffers:
                self.dst_api.free_ptr(p)
            for p in self.hosts:
                self.src_api.host_free(p)
            if self.stream:
                self.src_api.stream_free(self.stream)
            self.events, self.landed, self.buffers, self.hosts, self.stream = [], [], [], [], 0
            self.src_api.free([], None)
            self.dst_api.free([], None)
            self.src_api = self.dst_api = None


def describe(what: str, src: Gpu, dst: Gpu, path: str, why: str) -> str:
    return f"{what}: {path}, ring on {src} -> frames on {dst} ({why})"


def route_ring(ring: Any, d: Any, device: DeviceSpec, cross_gpu: str) -> None:
    """Decide where RingLearner `ring` (descriptor d, imported on the ring's
    GPU: ring.device) hands out its frames: sets ring.path, ring.source_device
    and, for another GPU, ring._placement, ring._route (a FrameCopy),
    ring.frame_api and ring.device (the learner's GPU); logs the line."""
    check_choice(cross_gpu)
    ring.source_device = ring.device
    what = f"RingLearner ring {d.ring_id:#x}"
    if device is None:
        ring.path = SAME_GPU
        log_path(ring._path_log_level, f"{what}: {SAME_GPU} on CUDA device {ring.device} (the "
                 f"ring's GPU by its UUID; device=None)", SAME_GPU)
        return
    pl = ring._placement = Placement(device, cross_gpu, [d.device_uuid])
    src, dst = pl.sources[bytes(d.device_uuid)], pl.dst
    ring.path, why = pl.paths[bytes(d.device_uuid)]
    if ring.path != SAME_GPU:
        ring._route = FrameCopy(ring.path, src, dst, d.slot_count, d.slot_size)
        ring.frame_api = ring._route.dst_api
        ring.device = dst.ordinal
    log_path(ring._path_log_level, describe(what, src, dst, ring.path, why), ring.path)


def log_path(level: int, line: str, path: str) -> None:
    """The one line at connect: a staged copy is a warning (the slow path)."""
    log.log(logging.WARNING if path == STAGED_COPY else level, "%s", line)


# --- the vector learner: rings on K GPUs, one batch -------------------------------------------

def _runs(pairs: Sequence[Tuple[int, int]]) -> List[Tuple[int, int, int]]:
    """(batch row, staging row) pairs, sorted -> (first batch row, first
    staging row, count) runs where both go up by one: one copy each."""
    runs: List[List[int]] = []
    for i, j in pairs:
        if runs and runs[-1][0] + runs[-1][2] == i and runs[-1][1] + runs[-1][2] == j:
            runs[-1][2] += 1
        else:
            runs.append([i, j, 1])
    return [(a, b, c) for a, b, c in runs]


class _SourceGpu:
    """The rows of one GPU other than the batch's: they are gathered there
    (its own kernel or copies, into `staging`: row j of it is the j-th of
    `rows`) on `stream`, then copied to their batch rows: peer copies on
    that stream, or (staged) D2H there into pinned `host` and H2D on the
    batch's stream."""

    def __init__(self, vec: Any, gpu: Gpu, path: str, rows: List[int]) -> None:
        self.gpu, self.path, self.rows = gpu, path, rows
        self.index = {row: j for j, row in enumerate(rows)}
        self.frame_bytes = vec.height * vec.row_bytes
        self.api = api_on(gpu.ordinal)
        self.stream = self.staging = self.host = 0
        self.start = self.done = None
        self.fn = None
        try:
            self.stream = self.api.stream()
            self.staging = self.api.alloc(len(rows) * self.frame_bytes)
            if path == STAGED_COPY:
                self.host = self.api.host_alloc(len(rows) * self.frame_bytes)
            if vec.gather == "kernel":
                self.fn, why = self.api.load_gather()
                if self.fn is None:
                    raise RingError(f"the gather kernel cannot be loaded on {gpu}: {why}")
            self.start = vec._api.event()  # on the batch's GPU: what `s` had queued
            self.done = self.api.event()  # on this GPU: the copies out of staging
        except BaseException:
            self.close(vec._api)
            raise

    def queue(self, vec: Any, entries: Sequence[Tuple[Any, ...]], s: int) -> None:
        # Staging (and the pinned buffer) are reused every step, the batch
        # rows are the caller's until now: start after what `s` has queued.
        vec._api.record(self.start, s)
        self.api.wait_event(self.stream, self.start)
        sem = [(e[1]._semaphore, e[5]) for e in entries if e[1].mode == MODE_SEMAPHORE]
        if sem:
            self.api.wait_many([x[0] for x in sem], [x[1] for x in sem], self.stream)
            vec.counters["gpu_waits"] += 1
        compact = [(self.index[e[0]],) + e[1:] for e in entries]
        on = (self.api, self.fn, self.staging)
        if self.fn is not None:
            vec._launch(compact, self.stream, on)
        else:
            vec._copy(compact, self.stream, on)
        fb = self.frame_bytes
        runs = _runs(sorted((e[0], self.index[e[0]]) for e in entries))
        for i, j, k in runs:
            if self.path == PEER_COPY:
                self.api.copy_peer(vec._batch + i * fb, vec.device, self.staging + j * fb,
                                   self.gpu.ordinal, k * fb, self.stream)
            else:
                self.api.to_pinned(self.host + j * fb, self.staging + j * fb, k * fb, self.stream)
        self.api.record(self.done, self.stream)
        vec._api.wait_event(s, self.done)
        if self.path == STAGED_COPY:
            for i, j, k in runs:
                vec._api.from_pinned(vec._batch + i * fb, self.host + j * fb, k * fb, s)
        vec.counters["cross_gpu_copies"] += len(runs) * (2 if self.path == STAGED_COPY else 1)

    def close(self, batch_api: Any) -> None:
        if self.api is None:
            return
        try:
            if self.stream:
                self.api.synchronize(self.stream)
        finally:
            if self.start is not None:
                batch_api.event_free(self.start)
            if self.done is not None:
                self.api.event_free(self.done)
            if self.staging:
                self.api.free_ptr(self.staging)
            if self.host:
                self.api.host_free(self.host)
            if self.stream:
                self.api.stream_free(self.stream)
            self.api.unload()
            self.api.free([], None)
            self.api = None


class VectorRoutes:
    """The VectorLearner's rows by GPU: `paths[i]` is row i's path; the rows
    of rings on the batch's GPU are read in place, the others by their
    GPU's _SourceGpu. A row's ring stays on its GPU (check_row)."""

    def __init__(self, device: DeviceSpec, cross_gpu: str, descs: Sequence[Any]) -> None:
        self.row_uuid = [bytes(d.device_uuid) for d in descs]
        self.placement = Placement(device, cross_gpu, self.row_uuid)
        self.dst = self.placement.dst
        self.paths = [self.placement.paths[u][0] for u in self.row_uuid]
        self.sources: Dict[bytes, _SourceGpu] = {}
        for i, d in enumerate(descs):
            # The per-GPU gather moves one colour plane a row; rings with two
            # eyes or a depth plane (descriptor version 3) are read only on
            # their own GPU until it moves those too (RingLearner copies
            # whole slots: every plane crosses there).
            if self.paths[i] != SAME_GPU and (getattr(d, "eyes", 1) > 1
                                               or getattr(d, "has_depth", False)):
                self.placement.close()
                raise RingError(f"ring {i} (id {d.ring_id:#x}) has planes (eyes "
                                f"{getattr(d, 'eyes', 1)}, depth "
                                f"{getattr(d, 'has_depth', False)}) and is on "
                                f"{self.placement.sources[self.row_uuid[i]]}, not the batch's "
                                f"{self.dst}: the vector gathers such rings on their own GPU "
                                f"only (device= that GPU, or a RingLearner per ring)")

    def setup(self, vec: Any) -> None:
        """Once the batch and its gather exist: each other GPU's buffers."""
        vec.counters["cross_gpu_copies"] = 0
        for u, (path, _) in self.placement.paths.items():
            if path != SAME_GPU:
                rows = [i for i, r in enumerate(self.row_uuid) if r == u]
                self.sources[u] = _SourceGpu(vec, self.placement.sources[u], path, rows)

    def check_row(self, i: int, d: Any) -> None:
        if bytes(d.device_uuid) != self.row_uuid[i]:
            g = self.placement.gpus
            raise RingError(f"ring {i} (id {d.ring_id:#x}) is on "
                            f"{uuid_text(d.device_uuid)}, the row's ring was on "
                            f"{ring_gpu(self.row_uuid[i], g)}: a row's game stays on its GPU "
                            f"(make a new VectorLearner)")

    def queue(self, vec: Any, entries: Sequence[Tuple[Any, ...]],
              s: int) -> List[Tuple[Any, ...]]:
        """Queue the rows of other GPUs (entries as VectorLearner._pending's:
        row, ring, descriptor, slot pointer, slot, frame, ...); returns the
        entries read in place."""
        for u, src in self.sources.items():
            mine = [e for e in entries if self.row_uuid[e[0]] == u]
            if mine:
                src.queue(vec, mine, s)
        return [e for e in entries if self.row_uuid[e[0]] not in self.sources]

    def close(self, batch_api: Any) -> None:
        for src in self.sources.values():
            src.close(batch_api)
        self.sources = {}
        self.placement.close()


def log_vector(vec: Any) -> None:
    """The VectorLearner's one line at connect."""
    routes = vec._routes
    if routes is None:
        line = (f"VectorLearner: {vec.n} rings, {SAME_GPU} on CUDA device {vec.device} (the "
                f"rings' GPU by UUID; device=None)")
    else:
        parts = []
        for u, (path, why) in routes.placement.paths.items():
            rows = [i for i, r in enumerate(routes.row_uuid) if r == u]
            parts.append(f"row{'s' if len(rows) > 1 else ''} {_ranges(rows)} from {routes.placement.sources[u]}: {path} "
                         f"({why})")
        line = f"VectorLearner: {vec.n} rings -> batch on {routes.dst}; " + "; ".join(parts)
    log_path(logging.INFO, line, STAGED_COPY if STAGED_COPY in vec.paths else SAME_GPU)


def _ranges(rows: Sequence[int]) -> str:
    out, start = [], None
    for k, r in enumerate(rows):
        if start is None:
            start = r
        if k + 1 == len(rows) or rows[k + 1] != r + 1:
            out.append(str(start) if start == r else f"{start}-{r}")
            start = None
    return ",".join(out)
