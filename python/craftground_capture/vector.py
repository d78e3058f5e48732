"""Zero-copy v2 for a vector env: N rings' frames as one (N, H, W, C) batch.

    vec = VectorLearner(templates)                # N descriptors: connect to each ring once
    batch = vec.step(descriptors, stream=s)       # this step's N descriptors (None: no new frame)
    obs = torch.from_dlpack(batch)                # (N, H, W, 3) uint8 upright, ordered on s
    batch.new                                     # which rows got a new frame this step
    vec.close()

Per step (docs/zero-copy-v2/learner.md, "The vector learner"): the lease of every new
frame is taken (the control block's CAS), `stream` is made to wait for all
the semaphore-mode rings' timeline values in one cuWaitExternalSemaphoresAsync
call, and one kernel launch (kernels/gather.cu, shipped as PTX text and loaded
with cuModuleLoadData) copies the frames into one preallocated device batch.
An event recorded after the gather is polled at the next step (and by poll()):
the slots go back to the games once the gather completed, with no host wait on
the hot path. A row whose game published nothing new (None, the descriptor
already consumed, or a stale one) keeps its last frame and is flagged
not new. So is a row whose game re-initialised but whose new ring cannot
be connected (the game gone again, a refusal): that row alone has no ring
until a later descriptor connects it (ring(i) None, row_error(i) says why);
the other rows' frames are gathered as if nothing happened. Where the
driver cannot load the PTX (older than the toolkit that compiled it: CUDA
13), the gather is one cuMemcpy2DAsync per ring.

Rings with two eyes or a depth plane (descriptor version 3): the batch is
(N, 2, H, W, 3) for two eyes, and batch.depth the depth batch, (N, [2,] H, W)
float32, gathered by the same kernel in a second launch; every ring must have
the same planes (eyes, depth format and encoding).

Double-buffered stepping: step(descriptors, which=[i, ...]) gathers only the
rows named (the games that have a new frame); poll() releases what completed
without stepping. The batch is one buffer: the next step overwrites the rows
it gathers (stream-ordered after what the caller queued on the same stream).
"""
import ctypes
import importlib.util
import logging
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _device, _wire
from ._control import SEQ_CST
from ._cuda import BLOCK, GATHER_MAX, BatchApi, CudaImporter, LaunchArgs, norm_stream
from ._transport import get as get_transport
from ._types import Buffer, Closes
from ._wire import (ACTIVE, E_DESC, E_FRAME, E_INDEX, E_POINTER, E_RING, E_ROW, E_SLOT, E_VIEW,
                    MODE_SEMAPHORE, PUBLISHED, R_HEAD, R_MID, R_TAIL, RELEASED, Descriptor,
                    parse_descriptor)
from .cuda_ipc import KDL_CUDA
from .errors import FormatError, RingError, StaleDescriptor
from .ring import RingLearner, RingPlane, StreamBuffer, eye_shape
from .spec import ObservationSpec, observation_spec, planes_space

log = logging.getLogger("craftground_capture")

_SLOT_FRAME = _wire.SLOT_FRAME  # a descriptor's slot (offset 64) and frame (72)
_SLOT, _FLAGS, _FRAME, _TAIL = _wire.SLOT_OFF, _wire.FLAGS_OFF, _wire.FRAME_OFF, _wire.TAIL_OFF
NATIVE_ENV = "CRAFTGROUND_CAPTURE_NATIVE"


def load_native() -> Tuple[Optional[Any], Optional[str]]:
    """(the _lease module, None) or (None, why not). The module
    (python/native/lease.c, built with the package where a C compiler and
    Python's headers are at hand) takes the step's leases and releases in C;
    without it the same rules run in Python. $CRAFTGROUND_CAPTURE_NATIVE: 0
    runs the Python rules, a path loads the module from that file (an error
    if it cannot: a test or benchmark that names one must get that one)."""
    path = os.environ.get(NATIVE_ENV, "")
    if path == "0":
        return None, f"${NATIVE_ENV}=0"
    try:
        if path:
            spec = importlib.util.spec_from_file_location("craftground_capture._lease", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"not a Python extension module: {path}")
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        else:
            from . import _lease as mod  # type: ignore[attr-defined]
    except ImportError as e:
        if path:
            raise RingError(f"${NATIVE_ENV}={path}: {e}") from e
        return None, f"no native helper ({e})"
    want = {"ABI": 2, "STATES": (PUBLISHED, ACTIVE, RELEASED), "LAYOUT": _wire.LEASE_LAYOUT,
            "ROW_FIELDS": _wire.ROW_FIELDS, "ENTRY_FIELDS": _wire.ENTRY_FIELDS}
    if any(getattr(mod, k, None) != v for k, v in want.items()):
        if path:
            raise RingError(f"${NATIVE_ENV}={path}: a _lease module of another version")
        return None, "the native helper is of another version"
    return mod, None


_native_status: Dict[str, Tuple[bool, Optional[str]]] = {}


def native_status() -> Tuple[bool, Optional[str]]:
    """(whether the native helper loads in this process, why not), as a
    VectorLearner made now would find it (load_native(); a helper that
    $CRAFTGROUND_CAPTURE_NATIVE names but that cannot load: False and the
    error). Needs no GPU. Found once per value of the variable."""
    key = os.environ.get(NATIVE_ENV, "")
    got = _native_status.get(key)
    if got is None:
        try:
            mod, why = load_native()
            got = (mod is not None, why)
        except RingError as e:
            got = (False, str(e))
        _native_status[key] = got
    return got


class _OnClass:
    """VectorLearner.native / native_why read on the class: native_status()'s
    (no instance, so no GPU, needed). An instance's own value, set at
    construction, hides it."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        return native_status()[self.index]


def _row(ring, desc, raw):
    """Row i's ring and its last fully parsed descriptor, as the lease's
    fast path reads it (one tuple, unpacked at once): a later descriptor of
    the ring differs only in slot (offset 64) and frame (72) when the rest is
    the same bytes, so it is checked by comparing those bytes (head, mid,
    tail) and the two fields on their own (parse_descriptor's checks of
    them) instead of parsed again. With it, what the lease and its release
    need: the control block it was read from, each slot's lease word (a
    c_void_p for the raw compare-and-swap, its index in the block's word
    view for the release's store, its address for the native helper's) and
    device pointer. The byte ranges are _wire's (LEASE_LAYOUT, which lease.c's LAYOUT
    must equal); the fields are in _wire.ROW_FIELDS' order, which lease.c's must equal."""
    ctl = ring.control
    slots = min(desc.slot_count, ring.slot_count)
    return (ring, ctl, desc, raw[:_SLOT], raw[_FLAGS:_FRAME], raw[_TAIL:], desc.ring_id, slots,
            ctl.word_ptrs[:slots], ring.slot_pointers[:slots],
            ring.semaphore if ring.mode == MODE_SEMAPHORE else None, desc.row_pitch,
            ctl.word_view, [ctl.word_index(k) for k in range(slots)],
            [ctl.word_address(k) for k in range(slots)])


class _Frame:
    """A frame of row's ring: its template Descriptor with this frame's
    slot and frame (every other field is the template's)."""
    __slots__ = ("t", "slot", "frame", "ring_id", "row_pitch")

    def __init__(self, t, slot, frame):
        self.t, self.slot, self.frame = t, slot, frame
        self.ring_id, self.row_pitch = t.ring_id, t.row_pitch

    def __getattr__(self, name):
        return getattr(self.t, name)


class _VectorRing(RingLearner):
    """A row's ring: the vector logs the connect line, its rings at DEBUG."""
    _path_log_level = logging.DEBUG


class VectorBatch(StreamBuffer):
    """The step's batch: (N, H, W, C) uint8 on the batch's device, readable on
    `stream` (the gather was queued there); (N, 2, H, W, 3) for two-eye
    rings. `new[i]`: row i got a new frame this step; `frames[i]`: the frame
    number row i holds (0: none yet). `rgb`: the batch itself; `depth` (also
    named `depth_batch`): the depth planes, a RingPlane (N, [2,] H, W)
    float32 on the same stream, or None for rings without depth. Valid until
    the next step() overwrites it (clone what you keep)."""

    def __init__(self, vec: "VectorLearner", stream: int, new: Sequence[bool],
                 frames: Sequence[int]) -> None:
        f = vec._batch_fields
        if f is None:  # DeviceBuffer's fields of the batch, made once: every step makes a batch
            super().__init__(vec._batch, vec.shape, KDL_CUDA, vec.device)
            vec._batch_fields = dict(self.__dict__)
        else:
            self.__dict__.update(f)
        self._owner = self._vec = vec
        self._importer, self.stream = vec._api, stream
        self.new, self.frames = tuple(new), tuple(frames)
        self.rgb = self
        self.depth = self.depth_batch = vec._depth_view(stream)


class VectorLearner(Closes):
    """N rings (one per game) read as one batch. templates: each ring's
    descriptor (the template, frame 0, or any frame's). All rings must have
    the same size, format, row order and device (else RingError naming the
    rings). flip: None makes every row upright (the rows of ROWS_BOTTOM_UP
    rings are reversed), True/False reverse or keep the slots' row order.
    gather: "auto" (the PTX kernel, else cuMemcpy2DAsync), "kernel" or
    "memcpy". stream: the default stream of step() (a CUstream value, a
    torch/CuPy stream; None: the legacy default stream).

    Rings with planes (descriptor version 3) must also have the same eyes,
    depth format and encoding: the batch is then (N, 2, H, W, 3) for two
    eyes, and each step's batch.depth (N, [2,] H, W) float32 (eyes,
    has_depth, depth_shape say which).

    device: the CUDA device of the batch (an ordinal, a UUID as RingLearner
    takes it), or None: the rings' GPU (then every ring must be on one GPU).
    With a device, the rings may sit on several GPUs: each GPU's rows are
    gathered there and copied across by the path cross_gpu picks ("auto",
    "peer", "staged", "refuse", as RingLearner's); `paths[i]` says row i's,
    `path` the one in use (several joined by " + "), logged once at connect.

    transport: how the producers are reached, as RingLearner's (None:
    this OS's).

    VectorLearner.native (on the class, no GPU needed): whether the native
    helper (python/native/lease.c) loads here, native_why why not; an
    instance's native/native_why say what it uses. Without a CUDA driver the
    constructor raises DeviceError."""

    native = _OnClass(0)
    native_why = _OnClass(1)

    def __init__(self, templates: Sequence[Union[Buffer, Descriptor]], stream: Optional[Any] = None,
                 flip: Optional[bool] = None, gather: str = "auto", timeout: float = 10.0,
                 device: Any = None, cross_gpu: str = "auto", transport: Any = None) -> None:
        if gather not in ("auto", "kernel", "memcpy"):
            raise ValueError(f"gather must be 'auto', 'kernel' or 'memcpy', got {gather!r}")
        descs = [self._parse(t) for t in templates]
        if not descs:
            raise ValueError("a VectorLearner needs at least one ring")
        self._first = first = descs[0]
        _device.check_choice(cross_gpu)
        for i, d in enumerate(descs):
            self._check_like(i, d, first, any_device=device is not None)
        self.n = len(descs)
        self.width, self.height, self.channels = first.width, first.height, first.channels
        self.format, self.rows_bottom_up = first.format, first.rows_bottom_up
        self._uuid = first.device_uuid
        self.flip = first.rows_bottom_up if flip is None else bool(flip)
        self.shape = (self.n, self.height, self.width, self.channels)
        self.row_bytes = self.width * self.channels
        self._init_planes(first)
        self.stream = norm_stream(stream)
        self.counters = dict(steps=0, new_frames=0, repeats=0, gpu_waits=0, stale=0,
                             reconnects=0, reconnect_failures=0, launches=0, release_syncs=0)
        self._rings = [None] * self.n
        self._row_errors = [None] * self.n  # (ring id, why) of a row whose reconnect failed
        self._cached = [None] * self.n  # _row's: the last descriptor parsed per row
        self._last_rid = [None] * self.n  # the ring id and frame last gathered per row
        self._frames = [0] * self.n  # (0: none yet)
        self._all_rows = list(range(self.n))
        self._in_flight = 1  # gathers queued at most (_max_in_flight: once the rings are in)
        # Step entries: (row, ring, descriptor, slot pointer, slot, frame, the control block's
        # word view, the lease word's index in it, the control block, the word's address); the
        # descriptor is the row's template (_row's: every field but slot and frame) or a
        # parsed one. (lease.c makes and reads the same tuples.)
        self._pending = []  # [(event, [entry, ...])], oldest first
        # The raw compare-and-swap's expected and desired words (reused: one thread steps).
        self._exp, self._des = ctypes.c_uint64(), ctypes.c_uint64()
        self._exp_ref = ctypes.byref(self._exp)
        self._free_events = []
        self._batch = 0
        self._batch_fields = None  # VectorBatch's (the batch's DeviceBuffer fields)
        self._timeout = timeout
        self._transport = get_transport(transport)  # every ring's (RingLearner's transport=)
        self._api = None
        self._args = LaunchArgs()
        self._routes = None  # device= given: _device.VectorRoutes
        self._native, self.native_why = load_native()
        self._drv = None  # lease.c's driver(): the step's driver calls in C (one GPU)
        self._geom = {}  # row pitch -> (words, grid x) of the colour gather
        self.native = self._native is not None  # the leases and releases in C (lease.c)
        self.native_calls = False  # set below: the step's driver calls in C as well
        self.paths = (_device.SAME_GPU,) * self.n
        try:
            self._api = BatchApi()
            if device is None:
                self.device = self._api.open_device(self._uuid)
            else:
                self._routes = _device.VectorRoutes(device, cross_gpu, descs)
                self.device = self._api.device = self._routes.dst.ordinal
                self._api.ctx_of(self.device)
                self.paths = tuple(self._routes.paths)
            self._batch = self._api.alloc(self.n * self.eyes * self.height * self.row_bytes)
            if self.depth_shape is not None:
                self._depth = self._api.alloc(self.n * self.eyes * self.height * self.width * 4)
            self._fn, why = (None, "asked for memcpy") if gather == "memcpy" else \
                self._api.load_gather()
            if self._fn is None and gather == "kernel":
                raise RingError(f"the gather kernel cannot be loaded: {why}")
            self.gather = "kernel" if self._fn is not None else "memcpy"
            self.gather_why = why
            if self._routes is None and self._native is not None:
                self._drv = self._api.native_driver(self._native, self._fn, self._batch,
                                                    self.height, self.row_bytes, self.flip)
            if self._routes is not None:
                self._routes.setup(self._api, self._batch, self.height * self.row_bytes,
                                   self._fn is not None, self.counters, self._gather_on)
            # The step's wait, gather launches, event record and polls in C too (lease.c's
            # driver calls): with the helper, on one GPU, with the kernel.
            self.native_calls = self._drv is not None and self._fn is not None
            self.path = " + ".join(p for p in _device.PATHS if p in self.paths)
            _device.log_vector(self._routes, self.n, self.device, self.paths)
            for i, d in enumerate(descs):
                self._rings[i] = self._connect(d)
            self._in_flight = self._max_in_flight()
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _parse(raw):
        return raw if not isinstance(raw, (bytes, bytearray, memoryview)) else \
            parse_descriptor(raw)

    @staticmethod
    def _check_like(i, d, first, any_device=False):
        what = []
        if (d.width, d.height) != (first.width, first.height):
            what.append(f"size {d.width}x{d.height}, ring 0 {first.width}x{first.height}")
        if d.format != first.format:
            what.append(f"format {d.format_name}, ring 0 {first.format_name}")
        if d.rows_bottom_up != first.rows_bottom_up:
            what.append(f"rows_bottom_up {d.rows_bottom_up}, ring 0 {first.rows_bottom_up}")
        if d.device_uuid != first.device_uuid and not any_device:
            what.append(f"device {d.device_uuid.hex()}, ring 0 {first.device_uuid.hex()} "
                        f"(device= gathers rings of several GPUs onto one)")
        what += _planes_differ(d, first)
        if what:
            raise RingError(f"ring {i} (id {d.ring_id:#x}) does not fit the batch: "
                            + "; ".join(what))

    # --- per step --------------------------------------------------------------------------

    def poll(self) -> int:
        """Give back every slot whose gather has completed (never waits);
        returns how many leases went back."""
        n = 0
        while self._pending and self._api.done(self._pending[0][0]):
            n += self._retire()
        return n

    def _retire(self):
        ev, leases = self._pending.pop(0)
        self._free_events.append(ev)
        if self._native is not None:
            return self._native.release(leases)  # the same stores, unless the block closed
        for e in leases:
            # The release: F<<8|RELEASED stored over the lease's own ACTIVE(F) word (the
            # block's word view at the word's index). While the learner is connected
            # nothing else moves a word out of ACTIVE (docs/zero-copy-v2/protocol.md, "Release"), so
            # the store is the compare-and-swap's one outcome, without its call.
            try:
                e[E_VIEW][e[E_INDEX]] = (e[E_FRAME] << 8) | RELEASED
            except ValueError:
                pass  # the ring was closed (its block's view released): nothing to give back
        return len(leases)

    def _ring_for(self, i, d):
        ring = self._rings[i]
        if ring is not None and ring.ring_id == d.ring_id:
            return ring
        self._check_like(i, d, self._first, any_device=self._routes is not None)
        if self._routes is not None:
            self._routes.check_row(i, d)
        if ring is not None:
            self._drop(i)
        try:  # the ring imports in its own context, not the batch's that step() pushed
            self._rings[i] = self._api.outside(lambda: self._connect(d))
        except RingError as e:
            # The row's game is gone again, refuses, or breaks the protocol: this row only
            # has no ring (the others' leases stay theirs); a later descriptor may connect.
            self.counters["reconnect_failures"] += 1
            if self._row_errors[i] is None or self._row_errors[i][0] != d.ring_id:
                log.warning("VectorLearner: row %d cannot connect to ring %#x: %s", i,
                            d.ring_id, e)
            self._row_errors[i] = (d.ring_id, str(e))
            return None
        self._row_errors[i] = None
        self._in_flight = self._max_in_flight()
        self.counters["reconnects"] += 1
        return self._rings[i]

    def _connect(self, d):
        t = self._transport
        return _VectorRing(d, CudaImporter(t.handle_type), self._timeout, transport=t)

    def _drop(self, i):
        """Forget ring i: its pending leases are released first (their
        gathers must complete: a blocking wait, only on reconnect)."""
        ring = self._rings[i]
        while any(e[E_RING] is ring for _, leases in self._pending for e in leases):
            self._api.event_wait(self._pending[0][0])
            self._retire()
        self._rings[i] = None
        self._cached[i] = None
        try:
            ring.close()
        except RingError:
            pass

    def _max_in_flight(self):
        return max(1, min(r.slot_count for r in self._rings if r is not None) - 1)

    def step(self, descriptors: Sequence[Optional[Union[Buffer, Descriptor]]],
             which: Optional[Iterable[int]] = None, stream: Optional[Any] = None) -> VectorBatch:
        """Gather this step's frames. descriptors: one per row (which=None),
        or one per index of `which` (double-buffered: the games that have a
        new frame; each row at most once); each raw descriptor bytes, a
        parsed Descriptor, or None (no new frame). Returns the VectorBatch
        (rows not gathered keep their last frame, new[i] False). A row whose
        descriptor names a new ring that cannot be connected is such a row
        (row_error(i) says why); it costs the other rows nothing. Raises
        FormatError for a malformed descriptor and RingError for a ring that
        does not fit the batch, with every lease of the step given back."""
        if which is None:
            rows = self._all_rows
        else:
            rows = [int(i) for i in which]
            for i in rows:
                if not 0 <= i < self.n:
                    raise ValueError(f"row {i} of a batch of {self.n}")
            if len(set(rows)) != len(rows):
                raise ValueError(f"a row given twice in one step: which={rows}")
        if descriptors.__class__ is not list:
            descriptors = list(descriptors)
        if len(descriptors) != len(rows):
            raise ValueError(f"{len(descriptors)} descriptors for {len(rows)} rows")
        s = self.stream if stream is None else norm_stream(stream)
        api, pending = self._api, self._pending
        if api is None:
            raise RingError("the vector learner is closed")
        # The batch's context pushed once for the step's driver calls (rows on other GPUs:
        # each call pushes its own GPU's, as elsewhere; a reconnect's RingLearner its own).
        held = self._routes is None
        if held:
            api.hold()
        try:
            if pending:
                if self._drv is not None:  # the releases of what completed, in C
                    _, what, res = self._native.poll(self._drv, pending, self._free_events)
                    if what is not None:
                        api.check(what, res)
                else:
                    self.poll()
                while len(pending) >= self._in_flight:
                    api.event_wait(pending[0][0])  # the learner keeps too many slots
                    self.counters["release_syncs"] += 1
                    self._retire()
            entries, lists = self._lease_all(rows, descriptors)
            if entries:
                try:
                    self._queue(entries, s, lists)
                except BaseException:
                    self._unlease(entries)  # nothing was queued that reads them
                    raise
        finally:
            if held:
                api.unhold()
        new = [False] * self.n
        last, frames = self._last_rid, self._frames
        if self._native is not None:
            self._native.commit(entries, new, last, frames)
        else:
            for e in entries:
                i = e[E_ROW]
                new[i] = True
                last[i] = e[E_DESC].ring_id
                frames[i] = e[E_FRAME]
        c = self.counters
        c["steps"] += 1
        c["new_frames"] += len(entries)
        c["repeats"] += len(rows) - len(entries)  # asked for, nothing new
        return VectorBatch(self, s, new, frames)

    def _lease_all(self, rows, descriptors):
        """The leases of this step's new frames: their entries and lists, as
        _lease_py makes them; with the native helper its fast path runs in C
        and the rows it hands back (first, changed or failed) run here."""
        nat = self._native
        if nat is None:
            return self._lease_py(rows, descriptors)
        entries, index, src, sem_h, sem_v, pitch, mixed, miss_rows, miss_raws = nat.lease(
            rows, descriptors, self._cached, self._frames, self._last_rid)
        if miss_rows:
            try:
                more, (sh, sv, ix, sr, p) = self._lease_py(miss_rows, miss_raws)
            except BaseException:
                self._unlease(entries)
                raise
            if more:
                entries += more
                sem_h += sh
                sem_v += sv
                index += ix
                src += sr
                if p is None or (pitch is not None and p != pitch):
                    mixed = True
                pitch = p if pitch is None else pitch
        return entries, (sem_h, sem_v, index, src, None if mixed else pitch)

    def _lease_py(self, rows, descriptors):
        """The leases of this step's new frames: their entries (what
        self._pending holds). A row's descriptor like its last one but for
        slot and frame (_row) takes the lease with the raw compare-and-swap
        right here; anything else is parsed, and leased through its ring.
        With them, what _queue needs of them as lists: the semaphore-mode
        rows' semaphores and frames, every entry's row and slot pointer, and
        the row pitch they share (None where they differ)."""
        entries, sem_h, sem_v, index, src = [], [], [], [], []
        pitch = mixed = None
        cached, last, frames = self._cached, self._last_rid, self._frames
        exp, des, ref, unpack = self._exp, self._des, self._exp_ref, _SLOT_FRAME.unpack_from
        try:
            for i, raw in zip(rows, descriptors):
                if raw is None:
                    continue
                if raw.__class__ is not bytes and isinstance(raw, (bytearray, memoryview)):
                    raw = bytes(raw)
                r = cached[i]
                d = None  # set: the frame goes the long way (ring.lease)
                if (r is not None and raw.__class__ is bytes and raw[_TAIL:] == r[R_TAIL]
                        and raw[:_SLOT] == r[R_HEAD] and raw[_FLAGS:_FRAME] == r[R_MID]):
                    # The ring's descriptor again: only slot and frame are new.
                    ring, ctl, t, _, _, _, rid, slots, words, ptrs, sem, row_pitch, q, ks, \
                        addrs = r
                    slot, f = unpack(raw, _SLOT)
                    if slot >= slots or f >= 1 << 56:
                        parse_descriptor(raw)  # raises the FormatError naming the field
                        raise FormatError("zero-copy descriptor: slot or frame out of range")
                    if f == 0 or (f <= frames[i] and last[i] == rid):
                        continue  # a template, or already gathered (a repeated descriptor)
                    # The lease's compare-and-swap (ControlBlock.acquire's), straight to
                    # libatomic, while the ring's block is the one of the row's template (a
                    # closed ring's is None: never a write to unmapped memory); anything but
                    # PUBLISHED(f) -> ACTIVE(f) goes the long way.
                    exp.value = (f << 8) | PUBLISHED
                    des.value = (f << 8) | ACTIVE
                    if (ring.control is ctl
                            and ctl.cas_raw(words[slot], ref, des, SEQ_CST, SEQ_CST)):
                        ptr, k, addr = ptrs[slot], ks[slot], addrs[slot]
                    else:
                        d = _Frame(t, slot, f)
                else:
                    if not raw:
                        continue
                    d = self._parse(raw)
                    if d.frame == 0:
                        continue  # a template names no frame
                    ring = self._ring_for(i, d)
                    if ring is None:
                        continue  # its reconnect failed: not new, its last frame kept
                    if raw.__class__ is bytes:
                        cached[i] = _row(ring, d, raw)
                    if last[i] == d.ring_id and d.frame <= frames[i]:
                        continue  # already gathered (the game repeated its descriptor)
                if d is not None:
                    try:  # the exceptions (stale, closed) as ring.lease raises them
                        ptr = ring.lease(d)
                    except StaleDescriptor:
                        self.counters["stale"] += 1
                        continue
                    except RingError as e:
                        if "destroyed" not in str(e):
                            raise
                        self.counters["stale"] += 1  # the game closed the ring: a new one comes
                        continue
                    t, slot, f, ctl = d, d.slot, d.frame, ring.control
                    q, k, row_pitch = ctl.word_view, ctl.word_index(slot), d.row_pitch
                    addr = ctl.word_address(slot)
                    sem = ring.semaphore if ring.mode == MODE_SEMAPHORE else None
                entries.append((i, ring, t, ptr, slot, f, q, k, ctl, addr))  # ENTRY_FIELDS
                index.append(i)
                src.append(ptr)
                if sem is not None:
                    sem_h.append(sem)
                    sem_v.append(f)
                if row_pitch != pitch:
                    if pitch is None:
                        pitch = row_pitch
                    else:
                        mixed = True
        except BaseException:
            self._unlease(entries)
            raise
        return entries, (sem_h, sem_v, index, src, None if mixed else pitch)

    @staticmethod
    def _unlease(entries):
        """Give back leases that no queued work reads (RingLearner.unlease)."""
        for e in entries:
            e[E_RING].unlease(e[E_SLOT], e[E_FRAME])

    def _queue(self, entries, s, lists):
        # Rows of rings on other GPUs are gathered there and copied across
        # (ordered before `s` goes on); the rest are read right here.
        if self._routes is None:
            direct = entries
            sem_h, sem_v, index, src, pitch = lists
        else:
            direct = self._routes.queue(entries, s)
            sems = [e for e in direct if e[E_RING].mode == MODE_SEMAPHORE]
            sem_h, sem_v = [e[E_RING].semaphore for e in sems], [e[E_FRAME] for e in sems]
            pitch = None
        if self.native_calls and pitch is not None and self.eyes == 1 and not self._depth:
            self._queue_native(entries, s, lists)
            return
        if sem_h:
            self._api.wait_many(sem_h, sem_v, s)
            self.counters["gpu_waits"] += 1
        if direct and self._fn is not None and self.eyes == 1 and pitch is not None:
            self._launch_lists(index, src, pitch, s)  # the common case: the lists made above
        elif direct and self._fn is not None:
            self._launch(self._eye_entries(direct), s)
        elif direct:
            self._copy(self._eye_entries(direct), s)
        if direct and self._depth:
            self._gather_depth(direct, s)
        ev = self._free_events.pop() if self._free_events else self._api.event()
        self._api.record(ev, s)
        self._pending.append((ev, entries))

    def _queue_native(self, entries, s, lists):
        """_queue's common case (one GPU, one eye, no depth, one pitch, the
        kernel) as one call of the native helper: the wait, the launches
        and the event record, the arguments checked before the first."""
        sem_h, sem_v, index, src, pitch = lists
        g = self._geom.get(pitch)
        if g is None:
            words = self._words(pitch)
            g = self._geom[pitch] = (int(words), self._grid_x(self.row_bytes, words))
        free = self._free_events
        ev = free.pop() if free else self._api.event()
        launches, what, res = self._native.queue(self._drv, sem_h, sem_v, index, src, pitch,
                                                 g[0], g[1], s, ev)
        c = self.counters
        c["launches"] += launches
        if sem_h and what != "cuWaitExternalSemaphoresAsync":
            c["gpu_waits"] += 1
        if what is not None:
            free.append(ev)
            self._api.check(what, res)
        self._pending.append((ev, entries))

    def _grid_x(self, row, words):
        """cg_gather's grid x: 256-thread blocks covering H rows of `row`
        bytes, a thread per byte (per 4 bytes with words)."""
        return (self.height * (row // (4 if words else 1)) + BLOCK - 1) // BLOCK

    def _words(self, pitch):
        return self.row_bytes % 4 == 0 and pitch % 4 == 0 and self._eyes_aligned

    def _gather_on(self, entries, s, on):
        """The colour gather of entries into the buffer `on` = (api, the
        kernel or None, base): launches, or copies where there is no kernel
        (the rows of another GPU, _device.VectorRoutes)."""
        (self._launch if on[1] is not None else self._copy)(entries, s, on)

    def _launch(self, entries, s, on=None):
        """The gather kernel: entry (i, ring, d, ptr, ...) into row i of the
        batch, or `on` = (api, kernel, base): of the buffer at base, on api's GPU."""
        pitch = entries[0][E_DESC].row_pitch
        if len({e[E_DESC].row_pitch for e in entries}) > 1:
            for e in entries:  # mixed pitches (RGBA rings may pad): one launch per ring
                self._launch([e], s, on)
            return
        self._launch_lists([e[E_ROW] for e in entries], [e[E_POINTER] for e in entries], pitch,
                           s, on)

    def _launch_lists(self, index, src, pitch, s, on=None):
        """The colour gather: frame src[k] (rows of `pitch` bytes) into batch
        frame index[k]; `on` as _launch's."""
        api, fn, base = on or (self._api, self._fn, self._batch)
        self._gather(api, fn, base, index, src, self.row_bytes, pitch, self._words(pitch), s)

    def _gather(self, api, fn, base, index, src, row, pitch, words, s):
        """cg_gather from src[k] (H rows of `row` bytes, `pitch` apart) into
        frame index[k] of the buffer at base, in launches of GATHER_MAX."""
        gx = self._grid_x(row, words)
        for k in range(0, len(src), GATHER_MAX):
            part = src[k:k + GATHER_MAX]
            params = self._args.set(index[k:k + GATHER_MAX], part, base, self.height, row, pitch,
                                    int(self.flip), int(words))
            api.launch(fn, (gx, len(part)), params, s)
            self.counters["launches"] += 1

    def _copy(self, entries, s, on=None):
        """The cuMemcpy2DAsync gather; `on` as _launch's."""
        api, _, base = on or (self._api, self._fn, self._batch)
        frame_bytes = self.height * self.row_bytes
        for e in entries:
            self._copy_plane(api, e[E_POINTER], e[E_DESC].row_pitch, base + e[E_ROW] * frame_bytes,
                             self.row_bytes, s)

    def _copy_plane(self, api, src, pitch, dst, row, s):
        """One plane (H rows of `row` bytes, `pitch` apart) to dst, tightly
        packed: one cuMemcpy2DAsync, or one a row with flip (reversed)."""
        if not self.flip:
            api.copy_2d(src, pitch, dst, row, row, self.height, s)
            return
        for y in range(self.height):
            api.copy_2d(src + (self.height - 1 - y) * pitch, pitch, dst + y * row, row, row, 1, s)

    # --- the planes of version 3 rings (eyes, depth) --------------------------------------------

    def _init_planes(self, first):
        """The batch's planes from ring 0's descriptor: eyes, the (N, 2, H, W,
        3) shape of two eyes, and the depth batch's shape (None: no depth)."""
        self.eyes, self.has_depth = first.eyes, first.has_depth
        self.depth_encoding = first.depth_encoding_name
        self.shape = (self.n,) + eye_shape(self.eyes, (self.height, self.width, self.channels))
        self.depth_shape = ((self.n,) + eye_shape(self.eyes, (self.height, self.width))
                            if self.has_depth else None)
        self._depth = 0
        self._eyes_aligned = True  # every colour plane of the launch starts 4-aligned

    def _eye_entries(self, entries):
        """The colour gather's entries: with two eyes each ring's entry
        becomes one per eye, eye e of row i into batch frame i * 2 + e (the
        (N, 2, H, W, 3) layout), read at the eye's colour plane. An eye
        stride that is not a multiple of 4 (the descriptor allows it) makes
        the kernel move bytes, never a misaligned word."""
        if self.eyes == 1:
            return entries
        self._eyes_aligned = all(e[E_DESC].color_eye_stride % 4 == 0 for e in entries)
        return [(e[E_ROW] * self.eyes + k, e[E_RING], e[E_DESC],
                 e[E_POINTER] + k * e[E_DESC].color_eye_stride) + e[E_SLOT:]
                for e in entries for k in range(self.eyes)]

    def _gather_depth(self, entries, s):
        """Each entry's depth planes into the depth batch: the gather kernel
        (W * 4-byte rows, 4 bytes at a time) in launches of GATHER_MAX
        planes, or cuMemcpy2DAsync (a copy a row with flip)."""
        row = self.width * 4
        jobs = [(x[E_ROW] * self.eyes + e,
                 x[E_POINTER] + x[E_DESC].depth_offset + e * x[E_DESC].depth_eye_stride)
                for x in entries for e in range(self.eyes)]
        if self._fn is None:
            for k, src in jobs:
                self._copy_plane(self._api, src, row, self._depth + k * self.height * row, row, s)
            return
        self._gather(self._api, self._fn, self._depth, [k for k, _ in jobs], [p for _, p in jobs],
                     row, row, True, s)

    def _depth_view(self, stream):
        if not self._depth:
            return None
        plane = RingPlane(self._depth, self.depth_shape, None, self.device, stream, self._api,
                          self, self._first)
        plane.near = plane.far = plane.z_zero_to_one = None  # per row: in its descriptor
        return plane

    # --- diagnostics and teardown ---------------------------------------------------------------

    def _plane_specs(self) -> Dict[str, ObservationSpec]:
        """What one row of a step's batch holds, plane by plane: "rgb" (ring
        0's kind, with the eye axis for two eyes) and, with depth, "depth"."""
        w, h, eyes = self.width, self.height, self.eyes
        specs = {"rgb": observation_spec(self._first.kind, width=w, height=h, eyes=eyes)}
        if self.has_depth:
            specs["depth"] = observation_spec("ring_depth", width=w, height=h, eyes=eyes)
        return specs

    @property
    def single_observation_space(self) -> Any:
        """One row of the batch as a space (gymnasium's vector-env name):
        a Box of (H, W, C) uint8, 0-255 ((2, H, W, 3) for two eyes); with
        depth a Dict of that Box as "rgb" and "depth", (H, W) or (2, H, W)
        float32 0-1. gymnasium.spaces where gymnasium is importable, else
        the package's BoxSpace/DictSpace (spec.planes_space)."""
        return planes_space(self._plane_specs())

    @property
    def observation_space(self) -> Any:
        """The whole batch as a space: single_observation_space with the
        batch's axis of n rows first ((N, H, W, C), depth (N, [2,] H, W))."""
        return planes_space(self._plane_specs(), batch=self.n)

    def producer_counters(self) -> List[Optional[Dict[str, int]]]:
        """Each ring's producer counters (ring.COUNTER_NAMES -> value; None
        for a producer that keeps none or a ring not connected)."""
        return [r.producer_counters() if r is not None else None for r in self._rings]

    def ring(self, i: int) -> Optional[RingLearner]:
        """Row i's RingLearner (for its state(), slot_count, ...), or None
        while the row has no ring (its last reconnect failed: row_error(i))."""
        return self._rings[i]

    def row_error(self, i: int) -> Optional[str]:
        """Why row i has no ring: the error of its last reconnect (the
        descriptor's game gone again, a refusal, a broken protocol), or None
        while it has one. Such a row is not new and keeps its last frame;
        the next descriptor of a live ring connects it."""
        err = self._row_errors[i]
        return None if err is None else err[1]

    def close(self) -> None:
        """Wait for the queued gathers, give every slot back, disconnect,
        free the batch."""
        if self._api is None:
            return
        self._drv = None  # its batch and kernel are freed below
        self.native_calls = False
        while self._pending:
            try:
                self._api.event_wait(self._pending[0][0])
            except RingError:
                pass
            self._retire()
        for i in range(len(self._rings)):
            if self._rings[i] is not None:
                self._drop(i)
        for ev in self._free_events:
            self._api.event_free(ev)
        self._free_events = []
        if self._batch:
            self._api.free_ptr(self._batch)
            self._batch = 0
        if getattr(self, "_depth", 0):
            self._api.free_ptr(self._depth)
            self._depth = 0
        if self._routes is not None:
            self._routes.close()
            self._routes = None
        if self._api.device is not None:
            self._api.unload()
            self._api.free([], None)
        self._api = None


def _planes_differ(d: Descriptor, first: Descriptor) -> List[str]:
    """What of d's planes (version 3) differs from ring 0's: eyes, the
    depth plane's presence and encoding. near/far may change per frame."""
    what = []
    if d.eyes != first.eyes:
        what.append(f"eyes {d.eyes}, ring 0 {first.eyes}")
    if (d.depth_format, d.depth_encoding) != (first.depth_format, first.depth_encoding):
        what.append(f"depth {d.depth_encoding_name}, ring 0 {first.depth_encoding_name}")
    return what


__all__ = ["VectorLearner", "VectorBatch"]
