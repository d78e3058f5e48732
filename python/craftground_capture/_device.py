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
import logging
import os
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ._cuda import CudaImporter, api_on
from ._wire import E_FRAME, E_RING, E_ROW, MODE_SEMAPHORE
from .errors import DeviceError, RingError

log = logging.getLogger("craftground_capture")

SAME_GPU, PEER_COPY, STAGED_COPY = "same-gpu import", "peer copy", "staged copy"
PATHS = (SAME_GPU, PEER_COPY, STAGED_COPY)
CROSS_GPU = ("auto", "peer", "staged", "refuse")
DeviceSpec = Union[None, int, str, bytes, bytearray, memoryview]
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
    return [Gpu(i, name, uuid) for i, name, uuid in api.devices()]


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


class RingRoute:
    """Where a RingLearner's frames go, as route_ring decided: `path`,
    `source_device` (the ring's GPU, where it is imported), `device` (the
    frames' GPU), `copy` (the FrameCopy to the learner's GPU, or None on
    the ring's own) and `frame_api` (the calls on the frames' GPU: the
    copy's, or None for the importer's). close() frees the copy, then the
    contexts the placement retained."""

    def __init__(self, path: str, source_device: int, device: int,
                 placement: Optional[Placement] = None, copy: Optional["FrameCopy"] = None):
        self.path, self.source_device, self.device = path, source_device, device
        self.placement, self.copy = placement, copy
        self.frame_api = copy.dst_api if copy is not None else None

    def close(self) -> None:
        if self.copy is not None:
            self.copy.close()
            self.copy = None
        if self.placement is not None:
            self.placement.close()
            self.placement = None


def route_ring(d: Any, source_device: int, device: DeviceSpec, cross_gpu: str,
               level: int = logging.INFO) -> RingRoute:
    """Where a RingLearner of descriptor d, imported on the ring's GPU
    (`source_device`), hands out its frames for `device=` and `cross_gpu=`;
    logs the line (at `level`, a staged copy as a warning). DeviceError as
    Placement raises it."""
    check_choice(cross_gpu)
    what = f"RingLearner ring {d.ring_id:#x}"
    if device is None:
        log_path(level, f"{what}: {SAME_GPU} on CUDA device {source_device} (the ring's GPU "
                 f"by its UUID; device=None)", SAME_GPU)
        return RingRoute(SAME_GPU, source_device, source_device)
    pl = Placement(device, cross_gpu, [d.device_uuid])
    try:
        src, dst = pl.sources[bytes(d.device_uuid)], pl.dst
        path, why = pl.paths[bytes(d.device_uuid)]
        if path == SAME_GPU:
            route = RingRoute(path, source_device, source_device, pl)
        else:
            route = RingRoute(path, source_device, dst.ordinal, pl,
                              FrameCopy(path, src, dst, d.slot_count, d.slot_size))
    except BaseException:
        pl.close()
        raise
    log_path(level, describe(what, src, dst, path, why), path)
    return route


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

    def __init__(self, routes: "VectorRoutes", gpu: Gpu, path: str, rows: List[int]) -> None:
        self.gpu, self.path, self.rows = gpu, path, rows
        self.index = {row: j for j, row in enumerate(rows)}
        self.frame_bytes = routes.frame_bytes
        self.api = api_on(gpu.ordinal)
        self.stream = self.staging = self.host = 0
        self.start = self.done = None
        self.fn = None
        try:
            self.stream = self.api.stream()
            self.staging = self.api.alloc(len(rows) * self.frame_bytes)
            if path == STAGED_COPY:
                self.host = self.api.host_alloc(len(rows) * self.frame_bytes)
            if routes.kernel:
                self.fn, why = self.api.load_gather()
                if self.fn is None:
                    raise RingError(f"the gather kernel cannot be loaded on {gpu}: {why}")
            self.start = routes.api.event()  # on the batch's GPU: what `s` had queued
            self.done = self.api.event()  # on this GPU: the copies out of staging
        except BaseException:
            self.close(routes.api)
            raise

    def queue(self, routes: "VectorRoutes", entries: Sequence[Tuple[Any, ...]], s: int) -> None:
        # Staging (and the pinned buffer) are reused every step, the batch
        # rows are the caller's until now: start after what `s` has queued.
        batch_api, counters = routes.api, routes.counters
        batch_api.record(self.start, s)
        self.api.wait_event(self.stream, self.start)
        sem = [(e[E_RING].semaphore, e[E_FRAME]) for e in entries
               if e[E_RING].mode == MODE_SEMAPHORE]
        if sem:
            self.api.wait_many([h for h, _ in sem], [v for _, v in sem], self.stream)
            counters["gpu_waits"] += 1
        compact = [(self.index[e[E_ROW]],) + e[E_RING:] for e in entries]
        routes.gather(compact, self.stream, (self.api, self.fn, self.staging))
        fb, batch = self.frame_bytes, routes.batch
        runs = _runs(sorted((e[E_ROW], self.index[e[E_ROW]]) for e in entries))
        for i, j, k in runs:
            if self.path == PEER_COPY:
                self.api.copy_peer(batch + i * fb, routes.dst.ordinal, self.staging + j * fb,
                                   self.gpu.ordinal, k * fb, self.stream)
            else:
                self.api.to_pinned(self.host + j * fb, self.staging + j * fb, k * fb, self.stream)
        self.api.record(self.done, self.stream)
        batch_api.wait_event(s, self.done)
        if self.path == STAGED_COPY:
            for i, j, k in runs:
                batch_api.from_pinned(batch + i * fb, self.host + j * fb, k * fb, s)
        counters["cross_gpu_copies"] += len(runs) * (2 if self.path == STAGED_COPY else 1)

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
        self.api: Any = None  # setup(): the batch's
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

    def setup(self, api: Any, batch: int, frame_bytes: int, kernel: bool,
              counters: Dict[str, int], gather: Any) -> None:
        """Once the batch and its gather exist: each other GPU's buffers.
        api: the batch's calls (on dst), batch: its base pointer,
        frame_bytes: one row's bytes, kernel: whether rows are gathered by
        the kernel (else copied), counters: the vector's (gpu_waits and
        cross_gpu_copies counted there), gather(entries, stream, on): the
        vector's gather of entries into the buffer `on` = (api, the kernel
        or None, base)."""
        self.api, self.batch, self.frame_bytes, self.kernel = api, batch, frame_bytes, kernel
        self.counters, self.gather = counters, gather
        counters["cross_gpu_copies"] = 0
        for u, (path, _) in self.placement.paths.items():
            if path != SAME_GPU:
                rows = [i for i, r in enumerate(self.row_uuid) if r == u]
                self.sources[u] = _SourceGpu(self, self.placement.sources[u], path, rows)

    def check_row(self, i: int, d: Any) -> None:
        if bytes(d.device_uuid) != self.row_uuid[i]:
            g = self.placement.gpus
            raise RingError(f"ring {i} (id {d.ring_id:#x}) is on "
                            f"{uuid_text(d.device_uuid)}, the row's ring was on "
                            f"{ring_gpu(self.row_uuid[i], g)}: a row's game stays on its GPU "
                            f"(make a new VectorLearner)")

    def queue(self, entries: Sequence[Tuple[Any, ...]], s: int) -> List[Tuple[Any, ...]]:
        """Queue the rows of other GPUs (entries as VectorLearner._pending's:
        row, ring, descriptor, slot pointer, slot, frame, ...); returns the
        entries read in place."""
        for u, src in self.sources.items():
            mine = [e for e in entries if self.row_uuid[e[E_ROW]] == u]
            if mine:
                src.queue(self, mine, s)
        return [e for e in entries if self.row_uuid[e[E_ROW]] not in self.sources]

    def close(self) -> None:
        for src in self.sources.values():
            src.close(self.api)
        self.sources = {}
        self.placement.close()


def log_vector(routes: Optional[VectorRoutes], n: int, device: int, paths: Sequence[str]) -> None:
    """The VectorLearner's one line at connect: n rings, the batch on
    CUDA device `device`, rows by `routes` (None: every ring on that GPU)
    with their `paths`."""
    if routes is None:
        line = (f"VectorLearner: {n} rings, {SAME_GPU} on CUDA device {device} (the "
                f"rings' GPU by UUID; device=None)")
    else:
        parts = []
        for u, (path, why) in routes.placement.paths.items():
            rows = [i for i, r in enumerate(routes.row_uuid) if r == u]
            parts.append(f"row{'s' if len(rows) > 1 else ''} {_ranges(rows)} from {routes.placement.sources[u]}: {path} "
                         f"({why})")
        line = f"VectorLearner: {n} rings -> batch on {routes.dst}; " + "; ".join(parts)
    log_path(logging.INFO, line, STAGED_COPY if STAGED_COPY in paths else SAME_GPU)


def _ranges(rows: Sequence[int]) -> str:
    out, start = [], None
    for k, r in enumerate(rows):
        if start is None:
            start = r
        if k + 1 == len(rows) or rows[k + 1] != r + 1:
            out.append(str(start) if start == r else f"{start}-{r}")
            start = None
    return ",".join(out)
