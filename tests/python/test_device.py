"""Checks of the learner on another GPU than the game's (device=, cross_gpu=;
python/craftground_capture/_device.py, docs/zero-copy-v2/learner.md "Learner and
games on different GPUs").

Usage: test_device.py fake            the stand-in libcuda ($CRAFTGROUND_
                                      CAPTURE_LIBCUDA, fake_cuda_ext.c) with 1
                                      or 2 devices, with and without peer
                                      access; rings served from Python
                                      (semaphore and fence mode): every
                                      decision and error, frames and batches
                                      byte-exact through the peer and staged
                                      paths, the order of the stream work,
                                      the reported path and the log line
       test_device.py cuda PRODUCER   the 2-GPU machine (77 with fewer than 2
                                      CUDA devices): games (test_zc_ring serve,
                                      semaphore mode) on GPU 0 -> learner on
                                      GPU 1 and the reverse, peer and staged,
                                      RingLearner and VectorLearner, every
                                      frame byte-exact (numpy; torch where
                                      present names the learner's device)
Exit 0 pass, 1 failure, 77 when what the check needs is missing.
"""
import ctypes
import logging
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ring as T  # noqa: E402  (check, raises, the Python producer, the pattern)
import test_vector as TV  # noqa: E402  (a producer process)
from craftground_capture import DeviceError  # noqa: E402
from craftground_capture import _device as D  # noqa: E402
from craftground_capture import ring as R  # noqa: E402
from craftground_capture import vector as V  # noqa: E402

check, raises = T.check, T.raises

# fake_cuda_ext.c: fake_ext_set settings, fake_ext_gather_counts names.
NO_MODULE, EVENTS_PENDING, DEVICES, PEER, CTX_ANY = range(5)
COUNT_NAMES = ("launches", "copies", "event_syncs", "event_queries", "modules", "allocs",
               "bad_launch", "events", "wait_calls", "peer_copies", "peer_no_access", "dtoh",
               "htod", "bad_copy", "streams", "peer_enables")
UUID0 = b"\xee" * 16  # the stand-in's device 0
UUID1 = bytes(range(0x10, 0x20))  # set for device 1 here


class Logs(logging.Handler):
    """The records of the package's logger while installed."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []
        self.log = logging.getLogger("craftground_capture")

    def emit(self, record):
        self.records.append(record)

    def __enter__(self):
        self.log.addHandler(self)
        self.log.setLevel(logging.DEBUG)
        return self

    def __exit__(self, *exc):
        self.log.removeHandler(self)

    def at(self, level):
        return [r.getMessage() for r in self.records if r.levelno == level]


class Fake:
    """The stand-in's controls and counters."""

    def __init__(self):
        self.lib = R.CudaImporter().lib
        self.lib.fake_ext_trace.restype = ctypes.c_size_t
        self.lib.fake_ext_trace.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        self.lib.fake_ext_set_uuid(UUID1)
        self.set(CTX_ANY, 1)  # contexts of both devices are pushed here

    def set(self, what, value):
        self.lib.fake_ext_set(what, value)

    def counts(self):
        out = (ctypes.c_int * 32)()
        n = self.lib.fake_ext_gather_counts(out)
        return dict(zip(COUNT_NAMES, out[:n]))

    def depth_bad(self):
        c = (ctypes.c_int * 7)()
        self.lib.fake_ext_counts(c)
        return c[4], c[5]

    def trace(self):
        buf = ctypes.create_string_buffer(1 << 16)
        n = self.lib.fake_ext_trace(buf, len(buf))
        return buf.raw[:n].decode().splitlines()

    def reset_trace(self):
        self.lib.fake_ext_trace_reset()


def with_uuid(desc, uuid):
    b = bytearray(desc)
    b[32:48] = uuid
    return bytes(b)


class Ring:
    """A ring served from Python: `slots` memfds of `size` bytes, slot k's
    bytes random (so a wrong slot or offset shows), on device `uuid`."""

    def __init__(self, tmp, rid, uuid, mode=R.MODE_SEMAPHORE, slots=3, w=5, h=3, fmt=37,
                 seed=0):
        rng = np.random.default_rng(seed + rid)
        self.bpp = 3 if fmt == R.FORMAT_RGB8 else 4
        self.w, self.h, self.mode, self.fmt, self.uuid, self.rid = w, h, mode, fmt, uuid, rid
        self.size = w * h * self.bpp + 17  # not a multiple of anything: the tail is copied too
        cfd, self.cmap = T.control_block(slots, rid)
        fds = []
        self.data = []
        for i in range(slots):
            fd = os.memfd_create(f"slot{i}")
            b = rng.integers(0, 256, self.size, dtype=np.uint8).tobytes()
            os.write(fd, b)
            fds.append(fd)
            self.data.append(b)
        if mode == R.MODE_SEMAPHORE:
            fds.append(os.memfd_create("sem"))
        self.path = os.path.join(tmp, f"ring{rid:x}.sock")
        self.prod = T.FakeProducer(self.path, dict(ring_id=rid, slots=slots, size=self.size,
                                                   mode=mode), [cfd] + fds)
        self.slots = slots

    def desc(self, slot, frame):
        return with_uuid(T.descriptor(self.rid, slot, frame, self.path, mode=self.mode,
                                      slots=self.slots, w=self.w, h=self.h, size=self.size,
                                      fmt=self.fmt), self.uuid)

    def publish(self, slot, frame):
        T.set_word(self.cmap, slot, frame, R.PUBLISHED)
        return self.desc(slot, frame)

    def image(self, slot, flip=False):
        """Slot `slot`'s frame as the learner must see it (H, W, C)."""
        n = self.w * self.h * self.bpp
        a = np.frombuffer(self.data[slot][:n], np.uint8).reshape(self.h, self.w, self.bpp)
        return a[::-1] if flip else a

    def close(self):
        self.prod.close()


def gpu_text(ordinal, uuid):
    return f"GPU {ordinal} (Fake GPU {ordinal}, {D.uuid_text(uuid)})"


def parsing():
    u = "GPU-00112233-4455-6677-8899-aabbccddeeff"
    want = bytes.fromhex("00112233445566778899aabbccddeeff")
    check(D.parse_device(u) == want and D.parse_device(u.upper().replace("GPU-", "GPU-")) == want,
          "nvidia-smi's UUID form parses (either case)")
    check(D.parse_device("00112233445566778899AABBCCDDEEFF") == want, "32 hex digits parse")
    check(D.parse_device(want) == want and D.parse_device(bytearray(want)) == want,
          "16 bytes are the UUID")
    check(D.parse_device("MIG-" + u[4:]) == want, "a MIG- prefix parses the same")
    check(D.parse_device(3) == 3, "an int is the ordinal")
    check(D.uuid_text(want) == u, f"uuid_text prints nvidia-smi's form: {D.uuid_text(want)}")
    for bad, text in (("GPU-0011223-4455-6677-8899-aabbccddeeff", "is not a GPU UUID"),
                      ("GPU-00112233-4455-6677-8899-aabbccddeefg", "is not a GPU UUID"),
                      ("00112233445566778899aabbccddeef", "is not a GPU UUID"),
                      ("1", "an ordinal is an int"), ("cuda:1", "is not a GPU UUID"),
                      (b"\0" * 15, "16 bytes, got 15"), (-1, "0 or more"), (True, "give a"),
                      (1.0, "not float")):
        raises(DeviceError, lambda b=bad: D.parse_device(b), f"device={bad!r} refused", text)
    check(issubclass(DeviceError, R.RingError) and issubclass(DeviceError, ValueError),
          "DeviceError is a RingError and a ValueError")
    check(D._runs([(0, 0), (1, 1), (3, 2), (4, 3), (6, 5)]) == [(0, 0, 2), (3, 2, 2), (6, 5, 1)],
          "copy runs: rows consecutive in both the batch and the staging buffer")


def ring_cross(fake, tmp, src_uuid, dst, cross_gpu, want_path, mode=R.MODE_SEMAPHORE):
    """One ring on the GPU of src_uuid read on `dst`: frames byte-exact, the
    stream work in order, the lease held until the copy completed."""
    rid = 0x400 + len(os.listdir(tmp))
    ring = Ring(tmp, rid, src_uuid, mode=mode)
    src = 0 if src_uuid == UUID0 else 1
    tag = f"[ring GPU {src} -> device={dst!r}, {cross_gpu}]"
    c0 = fake.counts()
    with Logs() as logs:
        lr = R.RingLearner(ring.desc(0, 0), device=dst, cross_gpu=cross_gpu)
    dst_ord = lr.device
    lines = logs.at(logging.WARNING if want_path == D.STAGED_COPY else logging.INFO)
    check(lr.path == want_path and len(logs.records) == 1 and len(lines) == 1
          and want_path in lines[0] and gpu_text(src, src_uuid) in lines[0],
          f"{tag} path {lr.path!r}; one log line: {[r.getMessage() for r in logs.records]}")
    check(lr.source_device == src, f"{tag} imported on the ring's GPU {lr.source_device}")
    for frame, slot in ((7, 1), (8, 2), (9, 0), (10, 1)):
        d = ring.publish(slot, frame)
        fake.reset_trace()
        fr = lr.acquire(d, 77)
        tr = fake.trace()
        got = fr.to_numpy()
        cai = fr.__cuda_array_interface__
        ok = np.array_equal(got, ring.image(slot))
        check(ok and fr.__dlpack_device__() == (2, dst_ord) and fr.device == dst_ord
              and cai["stream"] == 77 and cai["data"][0] != lr._memories[slot][1]
              and T.get_word(ring.cmap, slot) == (R.ACTIVE, frame),
              f"{tag} frame {frame} (slot {slot}): bytes exact on device {fr.device}, not the "
              f"slot's own pointer, lease ACTIVE while held")
        check_order(tr, tag, mode, want_path, src, dst_ord)
        if frame == 7:  # a DLPack consumer on another stream of the learner's GPU waits too
            fake.reset_trace()
            fr.__dlpack__(stream=5)
            tr = fake.trace()
            rec = [ln.split()[1] for ln in tr if ln.startswith("record") and "s=0x4d" in ln]
            check(rec and f"streamwait s=0x5 {rec[-1]}" in tr,
                  f"{tag} __dlpack__(stream=5): stream 5 waits for an event of stream 77 ({tr})")
        fake.reset_trace()
        fr.release()
        tr = fake.trace()
        ev = last_event(tr_before=None, trace=tr)
        check(T.get_word(ring.cmap, slot) == (R.RELEASED, frame) and ev,
              f"{tag} release waited for the copy's event ({ev}) then gave the slot back")
    c1 = fake.counts()
    if want_path == D.PEER_COPY:
        check(c1["peer_copies"] - c0["peer_copies"] == 4 and c1["peer_no_access"] ==
              c0["peer_no_access"] and c1["dtoh"] == c0["dtoh"],
              f"{tag} 4 cuMemcpyPeerAsync, all with peer access enabled, no host staging")
    else:
        check(c1["dtoh"] - c0["dtoh"] == 4 and c1["htod"] - c0["htod"] == 4
              and c1["peer_copies"] == c0["peer_copies"],
              f"{tag} 4 D2H into pinned memory + 4 H2D, no peer copy")
    lr.close()
    c2 = fake.counts()
    check(c2["allocs"] == c0["allocs"] and c2["bad_copy"] == 0 and fake.depth_bad() == (0, 0),
          f"{tag} close freed every buffer; no copy refused; every push popped ({c2})")
    ring.close()


def last_event(tr_before, trace):
    syncs = [ln for ln in trace if ln.startswith("evsync")]
    return syncs[-1] if syncs else None


def check_order(tr, tag, mode, path, src, dst):
    """The acquire's stream work, as the stand-in recorded it."""
    def find(pat, start=0):
        for k in range(start, len(tr)):
            m = re.match(pat, tr[k])
            if m:
                return k, m
        return None, None

    k, m = find(r"(peer|dtoh) ")
    if k is None:
        check(False, f"{tag} no copy in the trace: {tr}")
        return
    if path == D.PEER_COPY:
        k, m = find(rf"peer dst={dst} src={src} s=(\S+) n=\d+")
    else:
        k, m = find(rf"dtoh dev={src} s=(\S+) n=\d+")
    s = m.group(1) if m else None
    kw, _ = find(rf"wait dev={src} s={s} ")
    if mode == R.MODE_SEMAPHORE:
        check(kw is not None and kw < k and s not in ("0x1", "0x4d"),
              f"{tag} the timeline wait and then the copy on our stream {s} of GPU {src}")
    else:
        check(kw is None, f"{tag} fence mode: no semaphore wait")
    kr, mr = find(rf"record ev=(\S+) s={s}", k)
    ev = mr.group(1) if mr else None
    if path == D.PEER_COPY:
        kc, _ = find(rf"streamwait s=0x4d ev={ev}", kr or 0)
        check(kr is not None and kc is not None,
              f"{tag} event {ev} after the copy; the caller's stream 77 waits for it")
    else:
        kc, _ = find(rf"streamwait s=0x4d ev={ev}", kr or 0)
        kh, _ = find(rf"htod dev={dst} s=0x4d ", kc or 0)
        kr2, _ = find(r"record ev=\S+ s=0x4d", kh or 0)
        check(None not in (kr, kc, kh, kr2),
              f"{tag} D2H, its event, the caller's stream waits, H2D on it, an event after")


def ring_checks(fake, tmp):
    # Same GPU, asked for by ordinal, UUID string, 32 hex, bytes: today's import.
    ring = Ring(tmp, 0x300, UUID1)
    for spec in (1, D.uuid_text(UUID1), UUID1.hex(), UUID1, None):
        with Logs() as logs:
            lr = R.RingLearner(ring.desc(0, 0), device=spec)
        d = ring.publish(1, 5)
        fr = lr.acquire(d, 9)
        check(lr.path == D.SAME_GPU and lr.device == 1 and fr.ptr == lr._memories[1][1]
              and np.array_equal(fr.to_numpy(), ring.image(1))
              and len(logs.at(logging.INFO)) == 1 and D.SAME_GPU in logs.at(logging.INFO)[0],
              f"device={spec!r} on the ring's GPU: {lr.path}, the slot itself, logged once")
        fr.release()
        lr.close()
    raises(DeviceError, lambda: R.RingLearner(ring.desc(0, 0), device=1, cross_gpu="sideways"),
           "cross_gpu='sideways' refused", "cross_gpu must be one of")
    lr = R.RingLearner(ring.desc(0, 0), device=1, cross_gpu="refuse")
    check(lr.path == D.SAME_GPU, "cross_gpu='refuse' still reads the ring's own GPU")
    lr.close()
    seen = f"this process sees 2 CUDA devices: {gpu_text(0, UUID0)}; {gpu_text(1, UUID1)}"
    raises(DeviceError, lambda: R.RingLearner(ring.desc(0, 0), device=2),
           "device=2 of 2 devices", f"device=2: no such CUDA device; {seen}")
    nobody = "GPU-99999999-0000-0000-0000-000000000000"
    raises(DeviceError, lambda: R.RingLearner(ring.desc(0, 0), device=nobody),
           "a UUID of no device", f"no CUDA device has UUID {nobody}; {seen}")
    raises(DeviceError, lambda: R.RingLearner(ring.desc(0, 0), device="GPU-1234"),
           "a malformed UUID", "is not a GPU UUID")
    raises(DeviceError, lambda: R.RingLearner(ring.desc(0, 0), device=0, cross_gpu="refuse"),
           "cross_gpu='refuse' and another GPU",
           f"the ring is on {gpu_text(1, UUID1)}, the learner asked for {gpu_text(0, UUID0)}")
    check(fake.depth_bad() == (0, 0) and fake.counts()["allocs"] == 0,
          "refusals leave no context pushed and nothing allocated")
    ring.close()

    # Across: peer where allowed, staged when asked or when peer access is not there.
    for mode in (R.MODE_SEMAPHORE, R.MODE_FENCE):
        ring_cross(fake, tmp, UUID0, 1, "auto", D.PEER_COPY, mode)
        ring_cross(fake, tmp, UUID1, 0, "peer", D.PEER_COPY, mode)
        ring_cross(fake, tmp, UUID0, D.uuid_text(UUID1), "staged", D.STAGED_COPY, mode)
    fake.set(PEER, 0)
    ring_cross(fake, tmp, UUID1, 0, "auto", D.STAGED_COPY)
    ring = Ring(tmp, 0x301, UUID0)
    raises(DeviceError, lambda: R.RingLearner(ring.desc(0, 0), device=1, cross_gpu="peer"),
           "cross_gpu='peer' without peer access names both GPUs and why",
           f"no peer access between {gpu_text(0, UUID0)} (the ring's) and {gpu_text(1, UUID1)} "
           f"(the learner's): cuDeviceCanAccessPeer: GPU 0 cannot access GPU 1")
    fake.set(PEER, 1)
    ring.close()

    # One device ($CG_FAKE_CUDA_DEVICES=1 in a fresh process, fake_ext_set
    # here): asking for a second is an error naming the one there is.
    r = subprocess.run([sys.executable, "-c", "from craftground_capture import _device as D, "
                        "ring as R; print(len(D.list_gpus(R.CudaImporter())))"],
                       env=dict(os.environ, CG_FAKE_CUDA_DEVICES="1"), capture_output=True,
                       text=True)
    check(r.stdout.strip() == "1", f"$CG_FAKE_CUDA_DEVICES=1: the stand-in shows "
                                   f"{r.stdout.strip() or r.stderr[-200:]} device")
    fake.set(DEVICES, 1)
    ring = Ring(tmp, 0x302, UUID0)
    raises(DeviceError, lambda: R.RingLearner(ring.desc(0, 0), device=1),
           "one device, device=1", f"device=1: no such CUDA device; this process sees 1 CUDA "
           f"device: {gpu_text(0, UUID0)}")
    lr = R.RingLearner(ring.desc(0, 0), device=0)
    check(lr.path == D.SAME_GPU and lr.device == 0, "one device, device=0: the same-GPU import")
    lr.close()
    ring.close()
    fake.set(DEVICES, 2)


def vector_checks(fake, tmp):
    # Rows 0 and 2 on GPU 0, rows 1 and 3 on GPU 1: interleaved, so the copy
    # runs are single rows; rows 4-5 on GPU 0 make a run of two.
    for gather in ("kernel", "memcpy"):
        for path, cross in ((D.PEER_COPY, "auto"), (D.STAGED_COPY, "staged")):
            for flip in (False, True):
                vector_case(fake, tmp, gather, path, cross, flip)
    rings = [Ring(tmp, 0x600 + k, (UUID0, UUID1)[k % 2], fmt=R.FORMAT_RGB8) for k in range(2)]
    raises(R.RingError, lambda: V.VectorLearner([r.desc(0, 0) for r in rings]),
           "device=None and rings on two GPUs", "device= gathers rings of several GPUs")
    raises(DeviceError, lambda: V.VectorLearner([r.desc(0, 0) for r in rings], device=1,
                                                cross_gpu="refuse"),
           "vector, cross_gpu='refuse' with a ring on another GPU", "cross_gpu='refuse'")
    raises(DeviceError, lambda: V.VectorLearner([r.desc(0, 0) for r in rings], device=7),
           "vector, device=7", "device=7: no such CUDA device")
    class Planes(R.Descriptor):  # a version 3 descriptor's planes, as its parser sets them
        pass

    d3 = Planes()
    for k in R.Descriptor.__slots__:
        setattr(d3, k, getattr(R.parse_descriptor(rings[0].desc(0, 0)), k))
    d3.eyes = 2  # no depth plane (has_depth False, where the Descriptor has it)
    raises(R.RingError, lambda: V.VectorLearner([d3], device=1),
           "vector, a two-eye ring on another GPU", "has planes (eyes 2, depth False)")
    vec = V.VectorLearner([rings[1].desc(0, 0)], device=1)
    check(vec.path == D.SAME_GPU and vec.paths == (D.SAME_GPU,),
          "vector, device= the rings' GPU: the same-GPU gather")
    vec.close()
    for r in rings:
        r.close()
    check(fake.counts()["allocs"] == 0 and fake.depth_bad() == (0, 0),
          "vector refusals and closes leave nothing allocated, no context pushed")


def vector_case(fake, tmp, gather, path, cross, flip):
    where = [UUID0, UUID1, UUID0, UUID1, UUID0, UUID0]
    rings = [Ring(tmp, 0x500 + k, u, fmt=R.FORMAT_RGB8, seed=7) for k, u in enumerate(where)]
    tag = f"[vector {gather}, {path}{', flip' if flip else ''}]"
    c0 = fake.counts()
    with Logs() as logs:
        vec = V.VectorLearner([r.desc(0, 0) for r in rings], device=1, cross_gpu=cross,
                              gather=gather, flip=flip)
    want_paths = tuple(D.SAME_GPU if u == UUID1 else path for u in where)
    line = [r.getMessage() for r in logs.records if r.name == "craftground_capture"
            and r.levelno >= logging.INFO]
    check(vec.paths == want_paths and vec.path == f"{D.SAME_GPU} + {path}" and vec.device == 1
          and len(line) == 1 and "rows 0,2,4-5 from GPU 0" in line[0] and path in line[0],
          f"{tag} paths {vec.paths}, path {vec.path!r}; one line: {line}")
    for step, slot in ((1, 1), (2, 2)):
        descs = [r.publish(slot, 10 * step + k) for k, r in enumerate(rings)]
        fake.reset_trace()
        b = vec.step(descs, stream=55)
        tr = fake.trace()
        want = np.stack([r.image(slot, flip) for r in rings])
        got = b.to_numpy()
        check(b.device == 1 and b.shape == (6, 3, 5, 3) and np.array_equal(got, want)
              and b.new == (True,) * 6,
              f"{tag} step {step}: the batch on device 1 is every ring's slot {slot}, exact")
        gather_ops = [ln for ln in tr if ln.startswith(("launch", "wait"))]
        on0 = [ln for ln in gather_ops if "dev=0" in ln]
        on1 = [ln for ln in gather_ops if "dev=1" in ln]
        check(all("s=0x37" in ln for ln in on1) and on0 and all("s=0x37" not in ln for ln in on0)
              and len([ln for ln in on0 if ln.startswith("wait")]) == 4,
              f"{tag} GPU 0's rows waited for and gathered on GPU 0's own stream, GPU 1's on "
              f"the caller's stream 55")
        # GPU 0's stream starts after what the caller queued on 55 (the rows
        # it overwrites, the staging it reuses): an event of 55 first.
        k0 = next(k for k, ln in enumerate(tr) if ln.startswith("wait dev=0"))
        g = tr[k0].split()[2][2:]
        start = [ln.split()[1][3:] for ln in tr[:k0] if ln.startswith("record")
                 and ln.endswith("s=0x37")]
        check(start and f"streamwait s={g} ev={start[-1]}" in tr[:k0],
              f"{tag} GPU 0's stream {g} waits for an event of the caller's stream first")
        copies = [ln for ln in tr if ln.startswith(("peer", "dtoh", "htod"))]
        fb = 3 * 5 * 3
        want_n = [fb, fb, 2 * fb]  # rows 0, 2, 4-5
        if path == D.PEER_COPY:
            ok = [int(ln.rsplit("n=", 1)[1]) for ln in copies if ln.startswith("peer")] == want_n
        else:
            ok = ([int(ln.rsplit("n=", 1)[1]) for ln in copies if ln.startswith("dtoh")] == want_n
                  and [int(ln.rsplit("n=", 1)[1]) for ln in copies if ln.startswith("htod")]
                  == want_n and all("s=0x37" in ln for ln in copies if ln.startswith("htod")))
        check(ok, f"{tag} one copy per run of rows (rows 0, 2, 4-5): {copies}")
        k_copy = max(k for k, ln in enumerate(tr) if ln.startswith(("peer", "dtoh")))
        k_wait = [k for k, ln in enumerate(tr) if ln.startswith("streamwait s=0x37")]
        check(k_wait and k_wait[-1] > k_copy, f"{tag} the caller's stream waits for the copies")
    vec.poll()
    held = [T.get_word(r.cmap, 2) for r in rings]
    check(all(h[0] == R.RELEASED for h in held), f"{tag} poll gave every slot back: {held}")
    # The step's event not complete: every slot stays leased, GPU 0's too.
    fake.set(EVENTS_PENDING, 1)
    vec.step([r.publish(0, 30 + k) for k, r in enumerate(rings)], stream=55)
    held = [T.get_word(r.cmap, 0) for r in rings]
    check(vec.poll() == 0 and all(h[0] == R.ACTIVE for h in held),
          f"{tag} copies not complete: every slot still ACTIVE ({held})")
    fake.set(EVENTS_PENDING, 0)
    check(vec.poll() == 6, f"{tag} once complete, poll gives the 6 back")
    # A row's game moves to another GPU: refused, the batch steps on.
    moved = Ring(tmp, 0x5F0, UUID0, fmt=R.FORMAT_RGB8)
    raises(R.RingError, lambda: vec.step([moved.publish(1, 1)], which=[1]),
           f"{tag} row 1's new ring on GPU 0 (it was on GPU 1)", "a row's game stays on its GPU")
    moved.close()
    vec.close()
    c1 = fake.counts()
    check(c1["allocs"] == c0["allocs"] and c1["bad_copy"] == 0 and c1["bad_launch"] == 0
          and fake.depth_bad() == (0, 0),
          f"{tag} close freed batch, staging and pinned buffers; no copy or launch refused")
    for r in rings:
        r.close()


def fake():
    f = Fake()
    tmp = tempfile.mkdtemp(prefix="cg-mgpu-")
    os.chmod(tmp, 0o700)
    parsing()
    ring_checks(f, tmp)
    vector_checks(f, tmp)
    os.rmdir(tmp)


# --- the 2-GPU machine -------------------------------------------------------------------------

def game(producer, uuid, w, h):
    """A test_zc_ring game (semaphore mode) on the GPU whose UUID is `uuid`
    ($CG_VKT_DEVICE_UUID picks the Vulkan device)."""
    env = dict(os.environ, CG_VKT_DEVICE_UUID=uuid.hex())
    return TV.Game(producer, w, h, "semaphore", env=env)


def cuda(producer):
    if producer.endswith(".py"):  # fake_game.py: the stand-in's run of this script
        producer = [sys.executable, producer]
    try:
        gpus = D.list_gpus(R.CudaImporter())
    except (OSError, R.RingError) as e:
        print(f"SKIP: no CUDA driver here: {e}")
        sys.exit(77)
    if len(gpus) < 2:
        print(f"SKIP: {len(gpus)} CUDA device(s); the cross-GPU paths need 2")
        sys.exit(77)
    logging.basicConfig(level=logging.INFO, format="log %(levelname)s %(message)s")
    try:
        import torch
    except ImportError:
        torch = None
    api = D.api_on(0)
    peer = D.peer_blocker(api, gpus[0], gpus[1])
    print(f"GPUs: {gpus}; peer access: {'yes' if peer is None else peer}")
    w, h, n = 640, 360, 60
    for b in (0, 1):  # the same GPU named by ordinal and by UUID: the import itself
        for spec in (b, D.uuid_text(gpus[b].uuid)):
            g = game(producer, gpus[b].uuid, 64, 48)  # a game each: one learner a ring
            raw = g.go()
            if b == 0 and isinstance(spec, int):
                raises(DeviceError, lambda: R.RingLearner(raw, device=len(gpus)),
                       f"device={len(gpus)} of {len(gpus)} devices", "no such CUDA device")
            lr = R.RingLearner(raw, device=spec)
            with lr.acquire(raw) as fr:
                ok = (lr.path == D.SAME_GPU and fr.ptr == lr._memories[fr.slot][1]
                      and np.array_equal(fr.to_numpy(), T.pattern(64, 48, 1)))
            check(ok, f"[games GPU {b}, device={spec!r}] {lr.path}: the slot itself, exact")
            lr.close()
            g.close()
    for a, b in ((0, 1), (1, 0)):
        for cross in ("peer", "staged"):
            if cross == "peer" and peer is not None:
                print(f"note: no peer copy {a} -> {b}: {peer}")
                continue
            tag = f"[games GPU {a} -> learner GPU {b}, {cross}]"
            g = game(producer, gpus[a].uuid, w, h)
            raw = g.go()
            lr = R.RingLearner(raw, device=b, cross_gpu=cross)
            good = 0
            for f in range(1, n + 1):
                with lr.acquire(raw) as fr:
                    ok = fr.device == b and np.array_equal(fr.to_numpy(), T.pattern(w, h, f))
                    if ok and torch is not None and f % 10 == 0:
                        t = torch.from_dlpack(fr)
                        ok = t.device.index == b and bool(
                            (t.cpu().numpy() == T.pattern(w, h, f)).all())
                        torch.cuda.synchronize(b)
                good += ok
                if f < n:
                    raw = g.go()
            check(lr.path == (D.PEER_COPY if cross == "peer" else D.STAGED_COPY) and good == n,
                  f"{tag} RingLearner path {lr.path!r}: {good}/{n} frames byte-exact on GPU {b}"
                  f"{' (torch too)' if torch is not None else ''}")
            lr.close()
            g.close()
            # The vector: two games on GPU a, one on GPU b, the batch on b.
            games = [game(producer, gpus[x].uuid, 128, 96) for x in (a, b, a)]
            d = [x.go() for x in games]
            vec = V.VectorLearner(d, device=b, cross_gpu=cross)
            good = 0
            for step in range(1, 21):
                batch = vec.step(d)
                want = np.stack([T.pattern(128, 96, step)] * 3)
                good += batch.device == b and np.array_equal(batch.to_numpy(), want)
                d = [x.go() for x in games]
            check(good == 20 and vec.paths[1] == D.SAME_GPU,
                  f"{tag} VectorLearner paths {vec.paths}: {good}/20 batches byte-exact on GPU {b}")
            vec.close()
            for x in games:
                x.close()
    api.free([], None)


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("fake", "cuda") or (
            sys.argv[1] == "cuda" and len(sys.argv) < 3):
        print(__doc__)
        sys.exit(2)
    if sys.argv[1] == "fake":
        fake()
    else:
        cuda(sys.argv[2])
    print("PASS" if T.failures == 0 else f"{T.failures} failures")
    sys.exit(1 if T.failures else 0)
