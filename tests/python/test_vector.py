"""Checks of the vector learner (python/craftground_capture/vector.py).

Usage: test_vector.py fakecuda PRODUCER  three real producers (test_zc_ring
                                         or test_gl_ring serve, fence mode,
                                         lavapipe/llvmpipe) read through the
                                         stand-in libcuda ($CRAFTGROUND_
                                         CAPTURE_LIBCUDA): batches byte-exact
                                         against the pattern's formula, new
                                         flags, repeats, stale descriptors,
                                         double-buffered rows, release only
                                         after the gather's event, the bound
                                         on slots held, reconnect, refusals,
                                         counters; kernel and memcpy gathers
       test_vector.py fakesem            rings served from Python (semaphore
                                         mode, RGB slots, counters written
                                         as docs/zero-copy-v2/protocol.md says): one
                                         wait call for every ring, formats
       test_vector.py reconnect          rings served from Python: a row whose
                                         game restarted and whose reconnect
                                         fails costs the other rows nothing
                                         (their frames gathered, their leases
                                         kept); the row keeps its last frame,
                                         reports why, and reconnects later
       test_vector.py native             the native helper (lease.c, named by
                                         $CRAFTGROUND_CAPTURE_NATIVE) given
                                         good and hostile rows directly: lease
                                         words against the documented formula
       test_vector.py ptx                the shipped gather.ptx equals a fresh
                                         nvcc compile of gather.cu (77 without
                                         nvcc or with another nvcc version)
       test_vector.py example PRODUCER   python/examples/vector_env.py: --help
                                         without torch or a GPU, then both
                                         loops against three producers
                                         (the stand-in libcuda)
       test_vector.py cuda PRODUCER      the GPU machine: the real driver, the
                                         producers in semaphore mode, the PTX
                                         kernel; torch / CuPy / JAX read the batch
Exit 0 pass, 1 failure, 77 when what the check needs is missing.
"""
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ring as T  # noqa: E402  (the pattern, the Python producer)
from craftground_capture import ring as R  # noqa: E402
from craftground_capture import vector as V  # noqa: E402

check, raises = T.check, T.raises

# fake_cuda_ext.c: settings and counters
NO_MODULE, EVENTS_PENDING, FAIL_LAUNCH = 0, 1, 5
COUNT_NAMES = ("launches", "copies", "event_syncs", "event_queries", "modules", "allocs",
               "bad_launch", "events", "wait_calls")


class Game:
    """One producer process: serve MODE W H 1000 1 [EXTRA...] (a line on stdin
    per frame; extra: test_zc_ring's "planes ..." arguments)."""

    def __init__(self, producer, w, h, mode="fence", env=None, extra=()):
        cmd = list(producer) if isinstance(producer, (list, tuple)) else [producer]
        self.proc = subprocess.Popen(cmd + ["serve", mode, str(w), str(h), "1000", "1"] +
                                     [str(a) for a in extra],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=env)
        self.frame = 0

    def go(self):
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline().strip()
        if not line:
            rc = self.proc.wait()
            if rc == 77:
                print("SKIP: no Vulkan device with external memory (or semaphores)")
                sys.exit(77)
            raise RuntimeError(f"the producer gave no descriptor (exit {rc})")
        self.frame += 1
        return bytes.fromhex(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.stdout.read()
        return self.proc.wait()


def fake_counts(lib):
    out = (ctypes.c_int * 16)()
    n = lib.fake_ext_gather_counts(out)
    return dict(zip(COUNT_NAMES, out[:n]))


def expected(vec, w, h, frames):
    import numpy as np

    rows = [T.pattern(w, h, f) for f in frames]
    return np.stack([r[::-1] if vec.flip else r for r in rows])


def scenario(producer, gather, fake, mode="fence", flip=None):
    """The lockstep and double-buffered steps of three games; fake: the
    stand-in's counters and event control are checked too."""
    import numpy as np

    w, h = 37, 23
    lib = R.CudaImporter().lib if fake else None
    games = [Game(producer, w, h, mode) for _ in range(3)]
    d1 = [g.go() for g in games]
    if fake:
        first = R.parse_descriptor(d1[0])
        if not first.device_uuid.startswith(b"mesa"):
            print("SKIP: the Vulkan device is not Mesa's (the stand-in maps only its memfds)")
            sys.exit(77)
        lib.fake_ext_set_uuid(first.device_uuid)
    tag = f"[{gather}{', flip' if flip else ''}]"
    vec = V.VectorLearner(d1, gather=gather, flip=flip)
    want_native = os.environ.get(V.NATIVE_ENV, "") not in ("", "0")
    check(vec.native == want_native, f"{tag} leases in {'C' if vec.native else 'Python'} "
          f"({vec.native_why or os.environ.get(V.NATIVE_ENV)})")
    check(vec.native_calls == (want_native and gather != "memcpy"),
          f"{tag} the step's driver calls in {'C' if vec.native_calls else 'Python'}")
    check(vec.gather == ("memcpy" if gather == "memcpy" else "kernel") and vec.shape == (3, h, w, 4),
          f"{tag} gather {vec.gather} ({vec.gather_why}), shape {vec.shape}")
    c0 = fake_counts(lib) if fake else None

    def batch_is(b, frames, new, what):
        got = b.to_numpy()
        ok = np.array_equal(got, expected(vec, w, h, frames)) and b.new == tuple(new)
        check(ok and b.frames == tuple(frames),
              f"{tag} {what}: rows hold frames {b.frames}, new {b.new}"
              + ("" if ok else f" (want frames {frames}, new {new})"))

    batch_is(vec.step(d1), [1, 1, 1], [True] * 3, "lockstep step 1, every row new")
    if fake:
        c = fake_counts(lib)
        n = c["launches"] - c0["launches"] if gather != "memcpy" else c["copies"] - c0["copies"]
        want = 1 if gather != "memcpy" else (3 * h if vec.flip else 3)
        check(n == want and c["wait_calls"] == 0,
              f"{tag} one step: {n} {'launch' if gather != 'memcpy' else 'copies'} (want {want}),"
              f" no semaphore wait in fence mode")
    d2 = [games[0].go(), None, games[2].go()]
    batch_is(vec.step(d2), [2, 1, 2], [True, False, True], "row 1 without a new frame repeats")
    batch_is(vec.step([d2[0], d1[1], d2[2]]), [2, 1, 2], [False] * 3,
             "descriptors already gathered: nothing new")
    batch_is(vec.step([games[1].go()], which=[1]), [2, 2, 2], [False, True, False],
             "double-buffered: step(which=[1]) gathers row 1 only")
    vec.poll()
    states = [vec.ring(i).state(R.parse_descriptor(d2[0] if i != 1 else d1[1]).slot)
              for i in range(3)]
    check(all(s[0] == "RELEASED" for s in states), f"{tag} gathered slots returned: {states}")

    if fake:
        # The gather's event not complete: the slot stays leased until it is.
        lib.fake_ext_set(EVENTS_PENDING, 1)
        d3 = games[0].go()
        s3 = R.parse_descriptor(d3).slot
        vec.step([d3], which=[0])
        check(vec.poll() == 0 and vec.ring(0).state(s3) == ("ACTIVE", 3),
              f"{tag} event not complete: frame 3 still ACTIVE ({vec.ring(0).state(s3)})")
        syncs = fake_counts(lib)["event_syncs"]
        d4 = games[0].go()
        vec.step([d4], which=[0])  # 2 steps in flight: the bound (slots 3 - 1)
        d5 = games[0].go()
        vec.step([d5], which=[0])
        check(vec.counters["release_syncs"] == 1 and fake_counts(lib)["event_syncs"] == syncs + 1
              and vec.ring(0).state(s3)[0] == "RELEASED",
              f"{tag} a third step in flight waits for the oldest gather once "
              f"(release_syncs {vec.counters['release_syncs']}), frame 3 then RELEASED")
        lib.fake_ext_set(EVENTS_PENDING, 0)
        check(vec.poll() == 2, f"{tag} events complete: poll() returns the 2 leases left")
        batch_is(vec.step([None, None, None]), [5, 2, 2], [False] * 3, "after the held steps")

    # Stale: game 2 publishes 4 frames the learner never takes; the oldest is reused.
    stale = [games[2].go() for _ in range(4)]
    n_stale = vec.counters["stale"]
    batch_is(vec.step([None, None, stale[0]]), [games[0].frame, 2, 2], [False] * 3,
             "a stale descriptor (slot reused) leaves the row as it was")
    check(vec.counters["stale"] == n_stale + 1, f"{tag} stale counted: {vec.counters}")
    batch_is(vec.step([None, None, stale[-1]]), [games[0].frame, 2, 6], [False, False, True],
             "the newest frame after it is gathered")

    pc = vec.producer_counters()
    want = [games[i].frame for i in range(3)]
    check(pc[2] is not None and [p["published"] for p in pc] == want
          and all(p["connections"] == 1 and p["skipped"] == 0 for p in pc),
          f"{tag} producer counters from the control blocks: {pc} (published {want})")

    # A game restarts: a new ring at row 1 is connected in place of the old one.
    games[1].close()
    games[1] = Game(producer, w, h, mode)
    nd = games[1].go()
    batch_is(vec.step([nd], which=[1]), [games[0].frame, 1, 6], [False, True, False],
             "row 1's game restarted (new ring id): reconnected")
    check(vec.counters["reconnects"] == 1, f"{tag} reconnect counted: {vec.counters}")

    # Another size is refused, at creation and at a reconnect; the batch stays usable.
    other = Game(producer, w + 1, h, mode)
    od = other.go()
    raises(R.RingError, lambda: V.VectorLearner([d1[0], od]), f"{tag} rings of two sizes",
           f"size {w + 1}x{h}, ring 0 {w}x{h}")
    raises(R.RingError, lambda: vec.step([od], which=[2]), f"{tag} a reconnect to another size",
           "does not fit the batch")
    g2 = games[2].go()
    batch_is(vec.step([g2], which=[2]), [games[0].frame, 1, 7], [False, False, True],
             "after the refusal the batch steps on")
    if fake:
        c = fake_counts(lib)
        check(c["bad_launch"] == 0, f"{tag} every launch covered its work: {c}")
        # A training loop's thread has the batch's context current already (torch, CuPy:
        # the device's primary context): step() pushes nothing over it (the stand-in takes
        # the step's calls only with one context on its stack) and leaves it current.
        def with_caller_context(step):
            depth = (ctypes.c_int * 7)()
            lib.cuCtxPushCurrent_v2(vec._api.ctxs[vec.device])
            try:
                b = step()
                lib.fake_ext_counts(depth)
            finally:
                lib.cuCtxPopCurrent_v2(None)
            return b, depth[4]

        g2 = games[2].go()
        b, depth = with_caller_context(lambda: vec.step([g2], which=[2]))
        batch_is(b, [games[0].frame, 1, 8], [False, False, True],
                 f"a step with the batch's context already current (depth after {depth})")
        check(depth == 1, f"{tag} that step left the caller's context alone on the stack")
    vec.close()
    raises(R.RingError, lambda: vec.step([g2], which=[2]), f"{tag} a step after close", "closed")
    if fake:
        c = fake_counts(lib)
        counts = (ctypes.c_int * 7)()
        lib.fake_ext_counts(counts)
        check(c["allocs"] == 0 and c["modules"] == 0 and counts[4] == 0 and counts[5] == 0,
              f"{tag} close freed the batch and the module; every push popped, only the "
              f"matched context ({c}, depth {counts[4]}, bad {counts[5]})")
    for g in games + [other]:
        g.close()


def fakecuda(producer):
    scenario(producer, "kernel", True)
    scenario(producer, "memcpy", True, flip=True)
    lib = R.CudaImporter().lib
    lib.fake_ext_set(NO_MODULE, 1)  # a driver older than the PTX: the copy fallback
    g = Game(producer, 8, 4)
    d = g.go()
    vec = V.VectorLearner([d])
    check(vec.gather == "memcpy" and "cuModuleLoadData" in (vec.gather_why or ""),
          f"auto: the PTX refused, cuMemcpy2DAsync used ({vec.gather_why})")
    raises(R.RingError, lambda: V.VectorLearner([d], gather="kernel"),
           "gather='kernel' where the PTX cannot load", "cannot be loaded")
    vec.close()
    lib.fake_ext_set(NO_MODULE, 0)
    g.close()


def served_rings(tmp, count, w, h, rng):
    """`count` rings served from Python (FakeProducer) in semaphore mode, RGB
    slots, 2 slots of random bytes each, ring ids 0x100 on: their producers,
    control block maps, descriptor makers (slot, frame) and slot images."""
    import numpy as np

    prods, maps, descs, slots = [], [], [], []
    for k in range(count):
        rid = 0x100 + k
        cfd, cmap = T.control_block(2, rid)
        fds, data = [], []
        for i in range(2):
            fd = os.memfd_create(f"slot{i}")
            img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
            os.write(fd, img.tobytes().ljust(64, b"\0"))
            fds.append(fd)
            data.append(img)
        path = os.path.join(tmp, f"ring{k}.sock")
        prods.append(T.FakeProducer(path, dict(ring_id=rid, slots=2, size=64,
                                               mode=R.MODE_SEMAPHORE),
                                    [cfd] + fds + [os.memfd_create("sem")]))
        maps.append(cmap)
        slots.append(data)
        descs.append(lambda s, f, rid=rid, path=path: T.descriptor(
            rid, s, f, path, mode=R.MODE_SEMAPHORE, slots=2, w=w, h=h, size=64,
            fmt=R.FORMAT_RGB8))
    return prods, maps, descs, slots


def fakesem():
    """Two rings served from Python in semaphore mode, RGB slot format."""
    import numpy as np

    imp = R.CudaImporter()
    lib = imp.lib
    lib.fake_ext_set_uuid(bytes(range(16)))
    tmp = tempfile.mkdtemp(prefix="cg-zc-vec-")
    os.chmod(tmp, 0o700)
    rng = np.random.default_rng(7)
    for w, h in ((4, 2), (3, 2)):  # 12-byte rows (4 bytes at a time), 9-byte rows (bytes)
        prods, maps, descs, slots = served_rings(tmp, 2, w, h, rng)
        for flip in (False, True):
            vec = V.VectorLearner([descs[0](0, 0), descs[1](0, 0)], flip=flip)
            T.set_word(maps[0], 1, 41 + 10 * flip, R.PUBLISHED)
            T.set_word(maps[1], 0, 52 + 10 * flip, R.PUBLISHED)
            calls = fake_counts(lib)["wait_calls"]
            b = vec.step([descs[0](1, 41 + 10 * flip), descs[1](0, 52 + 10 * flip)], stream=99)
            vals = (ctypes.c_ulonglong * 8)()
            n = lib.fake_ext_last_waits(vals, 8)
            stream = ctypes.c_void_p()
            lib.fake_ext_last_wait.restype = ctypes.c_ulonglong
            lib.fake_ext_last_wait(ctypes.byref(stream))
            check(fake_counts(lib)["wait_calls"] == calls + 1 and list(vals[:n]) ==
                  [41 + 10 * flip, 52 + 10 * flip] and stream.value == 99,
                  f"{w}x{h}: one cuWaitExternalSemaphoresAsync for both rings: values "
                  f"{list(vals[:n])} on stream {stream.value}")
            want = np.stack([slots[0][1], slots[1][0]])
            if flip:
                want = want[:, ::-1]
            check(b.shape == (2, h, w, 3) and np.array_equal(b.to_numpy(), want) and
                  b.__cuda_array_interface__["stream"] == 99,
                  f"{w}x{h} RGB{' flipped' if flip else ''}: the batch is the slots' bytes")
            # The next lockstep step: both rows' known rings (their cached descriptors), the
            # other slots: one wait with both new values, the other slots' bytes.
            f0, f1 = 42 + 10 * flip, 53 + 10 * flip
            T.set_word(maps[0], 0, f0, R.PUBLISHED)
            T.set_word(maps[1], 1, f1, R.PUBLISHED)
            b = vec.step([descs[0](0, f0), descs[1](1, f1)], stream=99)
            n = lib.fake_ext_last_waits(vals, 8)
            want = np.stack([slots[0][0], slots[1][1]])
            if flip:
                want = want[:, ::-1]
            check(fake_counts(lib)["wait_calls"] == calls + 2 and list(vals[:n]) == [f0, f1]
                  and np.array_equal(b.to_numpy(), want) and b.new == (True, True)
                  and T.get_word(maps[0], 0) == (R.ACTIVE, f0)
                  and T.get_word(maps[1], 1) == (R.ACTIVE, f1)
                  and T.get_word(maps[0], 1) == (R.RELEASED, 41 + 10 * flip),
                  f"{w}x{h}: a second lockstep step: one wait ({list(vals[:n])}), the other "
                  f"slots' bytes, their leases taken, the first step's given back")
            # A lockstep step where row 0's word is not PUBLISHED(frame) (the producer moved
            # on): row 0 stale, left as it was; row 1 gathered.
            stale0 = vec.counters["stale"]
            w01 = T.get_word(maps[0], 1)
            T.set_word(maps[1], 0, f1 + 1, R.PUBLISHED)
            b = vec.step([descs[0](1, f0 + 1), descs[1](0, f1 + 1)], stream=99)
            check(b.new == (False, True) and vec.counters["stale"] == stale0 + 1
                  and T.get_word(maps[0], 1) == w01
                  and T.get_word(maps[1], 0) == (R.ACTIVE, f1 + 1),
                  f"{w}x{h}: a stale row next to a good one: {b.new}, stale "
                  f"{vec.counters['stale'] - stale0}, the stale row's word untouched")
            if flip:
                # Row 1's ring closed behind the vector's back: the step raises its
                # RingError and gives row 0's lease back (nothing was queued).
                vec.ring(1).close()
                T.set_word(maps[0], 0, f0 + 2, R.PUBLISHED)
                w1 = T.get_word(maps[1], 1)
                raises(R.RingError, lambda: vec.step([descs[0](0, f0 + 2), descs[1](1, f1 + 2)]),
                       f"{w}x{h}: a step with a closed ring's row", "closed")
                # Its lease of the step before (slot 0) was pending: the release, a store
                # through the block's word view, was given up with the view (no write).
                check(T.get_word(maps[0], 0)[0] != R.ACTIVE and T.get_word(maps[1], 1) == w1
                      and T.get_word(maps[1], 0) == (R.ACTIVE, f1 + 1),
                      f"{w}x{h}: the other row's lease not kept "
                      f"({T.get_word(maps[0], 0)}), the closed ring's words untouched "
                      f"({T.get_word(maps[1], 1)}, {T.get_word(maps[1], 0)})")
            if not flip:
                # The gather's launch fails (a faulting kernel, a lost device): the step raises
                # the driver's error by name and gives back both rows' leases; the batch steps on.
                T.set_word(maps[0], 0, f0 + 3, R.PUBLISHED)
                T.set_word(maps[1], 1, f1 + 3, R.PUBLISHED)
                launches = vec.counters["launches"]
                lib.fake_ext_set(FAIL_LAUNCH, 1)
                raises(R.RingError, lambda: vec.step([descs[0](0, f0 + 3), descs[1](1, f1 + 3)]),
                       f"{w}x{h}: a step whose gather launch fails", "cuLaunchKernel")
                check(T.get_word(maps[0], 0) == (R.RELEASED, f0 + 3)
                      and T.get_word(maps[1], 1) == (R.RELEASED, f1 + 3)
                      and vec.counters["launches"] == launches,
                      f"{w}x{h}: and both leases of that step given back "
                      f"({T.get_word(maps[0], 0)}, {T.get_word(maps[1], 1)}), no launch counted "
                      f"(driver calls in {'C' if vec.native_calls else 'Python'})")
                cached_descriptors(vec, descs, maps, w, h)
            vec.close()
            check(T.get_word(maps[0], 1) == (R.RELEASED, 41 + 10 * flip),
                  f"{w}x{h}: close gave the lease back")
        # The producer's counters, as the doc lays them out: magic, count, u64s.
        check(vec_counters(descs, maps) is None, "no counters' magic: producer_counters None")
        import struct
        struct.pack_into("<4sI5Q", maps[1], 2048, b"CGZS", 5, 10, 2, 3000, 1, 4)
        got = vec_counters(descs, maps)
        check(got == dict(published=10, skipped=2, wait_ns=3000, connections=1, reclaimed=4),
              f"counters read at offset 2048: {got}")
        # RGB next to RGBA: refused.
        rgba = T.descriptor(0x100, 0, 0, prods[0].path, mode=R.MODE_SEMAPHORE, slots=2, w=w, h=h,
                            size=64)
        raises(R.RingError, lambda: V.VectorLearner([descs[1](0, 0), rgba]),
               f"{w}x{h}: an RGBA ring next to an RGB one", "format R8G8B8A8_UNORM, ring 0 "
               "R8G8B8_UNORM")
        for p in prods:
            p.close()
    os.rmdir(tmp)


def cached_descriptors(vec, descs, maps, w, h):
    """A row's later descriptors are checked against the bytes of the one
    parsed before: the slot and frame on their own, any other change by a
    full parse. Each bad one is refused with parse_descriptor's reason and
    leaves the rows and the lease words as they were."""
    import struct

    frames = vec.step([None, None]).frames
    T.set_word(maps[0], 0, 70, R.PUBLISHED)
    words = [T.get_word(m, k) for m in maps for k in (0, 1)]
    good = descs[0](0, 70)
    bad_slot = bytearray(good)
    struct.pack_into("<I", bad_slot, 64, 2)  # the ring has 2 slots
    bad_frame = bytearray(good)
    struct.pack_into("<Q", bad_frame, 72, 1 << 56)
    bad_path = bytearray(good)
    bad_path[80:188] = b"x" * 108  # unterminated
    bad_flags = bytearray(good)
    struct.pack_into("<I", bad_flags, 68, 0x80)
    for raw, why, what in ((bad_slot, "slot 2 of 2", "a slot outside the ring"),
                           (bad_frame, "frame", "a frame of 2^56"),
                           (bad_path, "socket_path", "an unterminated socket path"),
                           (bad_flags, "flags", "an unknown flag bit")):
        raises(R.FormatError, lambda: vec.step([bytes(raw), None]),
               f"{w}x{h}: {what} in a later descriptor of a known ring", why)
        check(vec.step([None, None]).frames == frames and
              [T.get_word(m, k) for m in maps for k in (0, 1)] == words,
              f"{w}x{h}: after {what}: the rows and the lease words as they were")
    # A row named twice in one step's `which` (a caller's bug) is refused before any lease.
    raises(ValueError, lambda: vec.step([good, good], which=[0, 0]),
           f"{w}x{h}: which naming a row twice", "twice")
    check(T.get_word(maps[0], 0) == (R.PUBLISHED, 70), f"{w}x{h}: and no lease was taken")
    b = vec.step([good, None])
    check(b.new == (True, False) and b.frames[0] == 70 and T.get_word(maps[0], 0) ==
          (R.ACTIVE, 70), f"{w}x{h}: then the good descriptor is leased and gathered")
    # A row's ring closed behind the vector's back: its descriptors, known
    # bytes or not, get the ring's RingError, never a write to an unmapped block.
    vec.ring(0).close()
    state, frame = T.get_word(maps[0], 1)
    T.set_word(maps[0], 1, 71, R.PUBLISHED)
    raises(R.RingError, lambda: vec.step([descs[0](1, 71), None]),
           f"{w}x{h}: a known ring's descriptor after its RingLearner was closed", "closed")
    check(T.get_word(maps[0], 1) == (R.PUBLISHED, 71), f"{w}x{h}: and its word is untouched")
    T.set_word(maps[0], 1, frame, state)  # as it was, for the caller's checks


def native():
    """lease.c on its own, against words in memory of this process: what
    it leases, what it hands back to the Python rules (every row it cannot
    prove is its template's frame), what it gives back, and that hostile
    input is a miss or a TypeError, never a write or a crash."""
    path = os.environ.get(V.NATIVE_ENV, "")
    if path in ("", "0"):
        print(f"SKIP: ${V.NATIVE_ENV} names no native helper")
        sys.exit(77)
    mod, why = V.load_native()
    check(mod is not None, f"the helper loads ({why or path})")
    import struct

    words = (ctypes.c_uint64 * 4)()
    base = ctypes.addressof(words)

    def word(k):
        return words[k] >> 8, words[k] & 0xFF

    class Block:
        _map = bytearray(8)  # mapped (ControlBlock._map: a buffer the helper holds an export of)

    class Ring:
        pass

    ctl, ring = Block(), Ring()
    ring._control = ctl

    class Desc:
        ring_id = 0x77

    head, mid, tail = bytes(range(64)), b"\x01\0\0\0", bytes(range(100, 208))

    def desc(slot, frame, t=tail):
        return head + struct.pack("<I", slot) + mid + struct.pack("<Q", frame) + t

    def row(**kw):  # vector.py's _row fields, by index, for a ring of 2 slots
        f = dict(ring=ring, ctl=ctl, desc=Desc(), head=head, mid=mid, tail=tail, rid=0x77,
                 slots=2, words=None, ptrs=[0x1000, 0x2000], sem=None, pitch=384, q=None,
                 ks=[8, 16], addrs=[base, base + 8])
        f.update(kw)
        return tuple(f.values())

    P, A, RL = R.PUBLISHED, R.ACTIVE, R.RELEASED

    def lease(raws, cached, frames=None, last=None, rows=None):
        n = len(raws)
        return mod.lease(rows if rows is not None else list(range(n)), list(raws), cached,
                         frames or [0] * n, last or [None] * n)

    words[0], words[1] = 5 << 8 | P, 9 << 8 | A
    got = lease([desc(0, 5), desc(1, 9)], [row(), row()])
    entries, index, src, sem_h, sem_v, pitch, mixed, miss_rows, miss_raws = got
    check(word(0) == (5, A) and word(1) == (9, A), "PUBLISHED(5) leased to ACTIVE(5); the word "
          "that was not PUBLISHED left as it was")
    check(len(entries) == 1 and entries[0][:6] == (0, ring, entries[0][2], 0x1000, 0, 5)
          and entries[0][7:] == (8, ctl, base) and index == [0] and src == [0x1000]
          and pitch == 384 and not mixed and sem_h == [] and sem_v == [],
          "the leased row's entry and lists")
    check(miss_rows == [1] and miss_raws == [desc(1, 9)],
          "the failed compare-and-swap handed back to the Python rules")
    check(mod.release(entries) == 1 and word(0) == (5, RL), "release: RELEASED(5) stored")
    new, last, frames = [False] * 2, [None, None], [0, 0]
    mod.commit(entries, new, last, frames)
    check(new == [True, False] and last == [0x77, None] and frames == [5, 0],
          "commit: the row's new flag, ring id and frame")
    # Rows with nothing to do, and rows the helper must not decide.
    words[0] = 6 << 8 | P
    skip = lease([None, desc(0, 0), desc(0, 6)], [row()] * 3, frames=[0, 0, 6],
                 last=[None, None, 0x77])
    check(skip[0] == [] and skip[7] == [] and word(0) == (6, P),
          "None, a template (frame 0), a frame already gathered: nothing leased, no miss")
    hostile = [(desc(0, 6, tail[:-1]), row(), "a descriptor one byte short"),
               (desc(0, 6)[:79], row(), "79 bytes"),
               (b"", row(), "empty bytes"),
               (bytearray(desc(0, 6)), row(), "a bytearray (converted by the Python rules)"),
               (b"\xff" + desc(0, 6)[1:], row(), "the head changed"),
               (desc(2, 6), row(), "slot 2 of 2"),
               (desc(0, 1 << 56), row(), "frame 2^56"),
               (desc(0, 6), None, "no template for the row"),
               (desc(0, 6), row()[:10], "a template tuple too short"),
               (desc(0, 6), "not a tuple", "a template of another type"),
               (desc(0, 6), row(ctl=Block()), "the ring holds another control block"),
               (desc(0, 6), row(addrs=[base + 4, base + 8]), "a word address 4 bytes off"),
               (desc(0, 6), row(addrs=[0, 0]), "a null word address"),
               (desc(0, 6), row(addrs=[-8, 8]), "a negative word address"),
               (desc(0, 6), row(ptrs=[]), "no device pointer for the slot"),
               (desc(0, 6), row(slots="2"), "a slot count of another type"),
               (12345, row(), "an int for a descriptor")]
    for raw, r, what in hostile:
        g = lease([raw], [r])
        check(g[0] == [] and g[7] == [0] and g[8] == [raw] and word(0) == (6, P),
              f"{what}: handed back, the word untouched")
    g = lease([desc(0, 6)], [row()], rows=["0"])
    check(g[0] == [] and g[7] == ["0"] and word(0) == (6, P), "a row that is not an int: a miss")
    g = lease([desc(0, 6)], [row()], frames=["x"])
    check(g[0] == [] and word(0) == (6, P), "a frames list of another type: a miss")
    g = lease([desc(0, 6)], [row()], rows=[5])
    check(g[0] == [] and g[7] == [5] and word(0) == (6, P), "a row outside the cached list: a miss")
    raises(TypeError, lambda: mod.lease(range(1), [desc(0, 6)], [row()], [0], [None]),
           "rows as a range", "rows")
    raises(ValueError, lambda: mod.lease([0, 1], [desc(0, 6)], [row()], [0], [None]),
           "fewer descriptors than rows", "as many")
    raises(TypeError, lambda: mod.release("x"), "release of a string", "list")
    raises(TypeError, lambda: mod.commit([(1,)], [], [], []), "commit of a short entry", "entry")
    # Semaphore-mode rows and pitches that differ.
    words[0], words[1] = 7 << 8 | P, 8 << 8 | P
    g = lease([desc(0, 7), desc(1, 8)], [row(sem=0xAB), row(pitch=512)])
    check(g[3] == [0xAB] and g[4] == [7] and g[6] is True and len(g[0]) == 2,
          "a semaphore row's handle and value listed; two pitches: mixed")
    # An error after leases were taken (a pitch whose comparison raises): the exception
    # comes through and every lease of that call is given back.
    class BadPitch:
        def __eq__(self, other):
            raise ArithmeticError("the pitch compare of the test")

        __hash__ = None

    words[2], words[3] = 11 << 8 | P, 12 << 8 | P
    raises(ArithmeticError, lambda: lease([desc(0, 11), desc(1, 12)],
                                          [row(addrs=[base + 16, 0]), row(addrs=[0, base + 24],
                                                                          pitch=BadPitch())]),
           "a row whose pitch comparison raises", "pitch compare")
    check(word(2) == (11, RL) and word(3) == (12, RL),
          f"and both leases of that call given back (RELEASED): {word(2)}, {word(3)}")
    # Release: a closed block is never written; garbage entries are passed over.
    closed = Block()
    closed._map = None
    e_closed = g[0][0][:8] + (closed, base)
    check(mod.release([e_closed, ("junk",), None, g[0][1]]) == 4 and word(0) == (7, A)
          and word(1) == (8, RL), "release: the closed block's word untouched, junk passed over")
    print(f"the helper's leases checked against {len(hostile)} hostile rows")
    native_calls(mod, words, word, e_closed[:8] + (ctl, base), e_closed[:8] + (ctl, base + 8))


def native_calls(mod, words, word, entry0, entry1):
    """lease.c's driver calls (driver, queue, poll) against ctypes functions
    standing in for libcuda's, each recording what it was given as cuda.h
    lays it out: the wait's handles and 144-byte params (the value at 0,
    the rest zero), the launch's grid, block and the kernel's seven
    arguments (the 3072-byte list by value), the record's event and stream;
    a bad argument is an exception with no call made, a failed call ends
    the sequence, returned by name."""
    c_void_p, c_uint, c_int = ctypes.c_void_p, ctypes.c_uint, ctypes.c_int
    calls, fail = [], {}

    def result(name):
        k = sum(1 for c in calls if c[0] == name)
        return fail.get((name, k), 0)  # (name, its k-th call) -> the CUresult to answer

    def u(addr, ctype=ctypes.c_uint32):
        return ctype.from_address(addr).value

    @ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_uint, c_void_p)
    def wait(sems, params, n, stream):
        raw = ctypes.string_at(params, 144 * n)
        rest_zero = all(raw[144 * k + 8:144 * (k + 1)] == bytes(136) for k in range(n))
        r = result("wait")
        calls.append(("wait", [u(sems + 8 * k, c_void_p) for k in range(n)],
                      [u(params + 144 * k, ctypes.c_uint64) for k in range(n)], rest_zero,
                      stream))
        return r

    @ctypes.CFUNCTYPE(c_int, c_void_p, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint,
                      c_void_p, ctypes.POINTER(c_void_p), c_void_p)
    def launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        lst = params[0]
        args = (u(params[1], ctypes.c_uint64),) + tuple(u(params[k]) for k in range(2, 7))
        r = result("launch")
        calls.append(("launch", f, (gx, gy, gz), (bx, by, bz, shared), stream,
                      [u(lst + 8 * k, ctypes.c_uint64) for k in range(gy)],
                      [u(lst + 2048 + 4 * k) for k in range(gy)], args, extra))
        return r

    @ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p)
    def record(ev, stream):
        r = result("record")
        calls.append(("record", ev, stream))
        return r

    @ctypes.CFUNCTYPE(c_int, c_void_p)
    def query(ev):
        r = result("query")
        calls.append(("query", ev))
        return r

    def addr(f):
        return ctypes.cast(f, c_void_p).value

    fns = [addr(f) for f in (wait, launch, record, query)]
    drv = mod.driver(*fns, 0xF00, 0xB000, 23, 111, 1)
    got = mod.queue(drv, [0xA1, 0xA2], [7, 9], [2, 0], [0x1000, 0x2000], 384, 0, 10, 99, 0xE7)
    want = [("wait", [0xA1, 0xA2], [7, 9], True, 99),
            ("launch", 0xF00, (10, 2, 1), (256, 1, 1, 0), 99, [0x1000, 0x2000], [2, 0],
             (0xB000, 23, 111, 384, 1, 0), None),
            ("record", 0xE7, 99)]
    check(got == (1, None, 0) and calls == want,
          f"queue: one wait for both semaphores, one launch, the record ({got}, {calls})")
    calls.clear()
    src, idx = [0x10000 + 0x100 * k for k in range(300)], [299 - k for k in range(300)]
    got = mod.queue(drv, [], [], idx, src, 112, 1, 3, 0, 0xE8)
    check(got == (2, None, 0) and [c[0] for c in calls] == ["launch", "launch", "record"]
          and calls[0][2] == (3, 256, 1) and calls[1][2] == (3, 44, 1)
          and calls[0][5] + calls[1][5] == src and calls[0][6] + calls[1][6] == idx
          and calls[1][7] == (0xB000, 23, 111, 112, 1, 1) and calls[2] == ("record", 0xE8, None),
          f"300 frames, no semaphore: no wait, launches of 256 and 44 in order ({got})")
    for name, k, want_got, want_calls in (
            ("wait", 0, (0, "cuWaitExternalSemaphoresAsync", 700), ["wait"]),
            ("launch", 1, (1, "cuLaunchKernel", 701), ["wait", "launch", "launch"]),
            ("record", 0, (2, "cuEventRecord", 702), ["wait", "launch", "launch", "record"])):
        calls.clear()
        fail.clear()
        fail[(name, k)] = want_got[2]
        got = mod.queue(drv, [0xA1], [5], idx, src, 112, 1, 3, 0, 0xE9)
        check(got == want_got and [c[0] for c in calls] == want_calls,
              f"{name} failing: the sequence ends there ({got}, {[c[0] for c in calls]})")
    fail.clear()
    ok = ([0xA1], [5], [0], [0x1000], 384, 0, 10, 99, 0xE7)
    bad = [(TypeError, (drv, (0xA1,)) + ok[1:], "semaphores as a tuple"),
           (ValueError, (drv, [0xA1, 0xA2]) + ok[1:], "more semaphores than values"),
           (ValueError, (drv,) + ok[:2] + ([0, 1],) + ok[3:], "more rows than frames"),
           (ValueError, (drv, [], [], [], []) + ok[4:], "no frame"),
           (OverflowError, (drv,) + ok[:2] + ([-1],) + ok[3:], "a negative batch row"),
           (ValueError, (drv,) + ok[:2] + ([1 << 32],) + ok[3:], "a batch row of 2^32"),
           (TypeError, (drv,) + ok[:3] + (["0x1000"],) + ok[4:], "a frame pointer as a string"),
           (TypeError, (drv, ["x"]) + ok[1:], "a semaphore as a string"),
           (OverflowError, (drv, [0xA1], [-5]) + ok[2:], "a negative wait value"),
           (ValueError, (drv,) + ok[:4] + (1 << 32,) + ok[5:], "a pitch of 2^32"),
           (ValueError, (drv,) + ok[:5] + (2,) + ok[6:], "words 2"),
           (ValueError, (drv,) + ok[:6] + (0,) + ok[7:], "a grid of 0"),
           (TypeError, (drv,) + ok[:8] + (None,), "an event None"),
           (ValueError, ("not a driver",) + ok, "a string for the driver"),
           (ValueError, (mod.driver(*fns, 0, 0xB000, 23, 111, 1),) + ok, "no kernel loaded")]
    for exc, args, what in bad:
        calls.clear()
        raises(exc, lambda: mod.queue(*args), f"queue with {what}")
        check(calls == [], f"queue with {what}: no call made")
    for args, what in (((0,) + tuple(fns[1:]), "a null wait"),
                       (tuple(fns[:3]) + (-1,), "a negative query address"),
                       (tuple(fns[:3]) + ("q",), "a string for query")):
        raises((ValueError, TypeError, OverflowError),
               lambda: mod.driver(*args, 0xF00, 0xB000, 23, 111, 1), f"driver with {what}")
    raises(ValueError, lambda: mod.driver(*fns, 0xF00, 0xB000, 23, 111, 2), "driver with flip 2")
    # poll: the oldest completed event's leases released, its event freed; NOT_READY stops;
    # a failed query is returned with nothing released.
    words[0], words[1] = entry0[5] << 8 | R.ACTIVE, entry1[5] << 8 | R.ACTIVE
    calls.clear()
    fail[("query", 1)] = 600  # the second query: NOT_READY
    pending, free = [(0xE1, [entry0]), (0xE2, [entry1])], []
    got = mod.poll(drv, pending, free)
    check(got == (1, None, 0) and pending == [(0xE2, [entry1])] and free == [0xE1]
          and word(0) == (entry0[5], R.RELEASED) and word(1) == (entry1[5], R.ACTIVE)
          and calls == [("query", 0xE1), ("query", 0xE2)],
          f"poll: the completed event's lease released, the next NOT_READY kept ({got})")
    calls.clear()
    fail.clear()
    fail[("query", 0)] = 999
    got = mod.poll(drv, pending, free)
    check(got == (0, "cuEventQuery", 999) and pending == [(0xE2, [entry1])] and free == [0xE1]
          and word(1) == (entry1[5], R.ACTIVE), f"poll: a failed query returned, nothing "
          f"released ({got})")
    fail.clear()
    for p, what in (([(0xE3,)], "a pending entry of one field"),
                    ([(0xE3, (entry1,))], "entries as a tuple"),
                    ([("e", [entry1])], "an event as a string")):
        calls.clear()
        raises((TypeError, ValueError), lambda: mod.poll(drv, p, []), f"poll with {what}")
        check(calls == [] and word(1) == (entry1[5], R.ACTIVE), f"poll with {what}: no call")
    got = mod.poll(drv, pending, free)
    check(got == (1, None, 0) and pending == [] and word(1) == (entry1[5], R.RELEASED),
          "poll: then the last lease released")
    print(f"the helper's driver calls checked with {len(bad)} bad arguments")


def reconnect():
    """A row whose game restarted (a new ring id) and whose reconnect fails
    (its descriptor names a socket nobody serves any more) costs the other
    rows nothing: their new frames are gathered and their leases held until
    the gather completes, never given back unread. The failed row is not
    new, keeps its last frame, has no ring (ring(i) None, row_error(i) says
    why, counted in reconnect_failures), and a later descriptor of a live
    ring connects it again. Both orders: the failed row after a good one,
    and before."""
    import numpy as np

    lib = R.CudaImporter().lib
    lib.fake_ext_set_uuid(bytes(range(16)))
    tmp = tempfile.mkdtemp(prefix="cg-zc-vec-")
    os.chmod(tmp, 0o700)
    rng = np.random.default_rng(11)
    w, h = 4, 2
    # rings 0x100, 0x101 (rows 0, 1), then 0x102, 0x103: the games' next
    prods, maps, descs, slots = served_rings(tmp, 4, w, h, rng)
    gone = os.path.join(tmp, "gone.sock")  # a restarted game that went away again

    def gone_desc(rid):
        return T.descriptor(rid, 0, 1, gone, mode=R.MODE_SEMAPHORE, slots=2, w=w, h=h, size=64,
                            fmt=R.FORMAT_RGB8)

    def step(what, ds):
        try:
            return vec.step(ds)
        except Exception as e:
            check(False, f"{what}: the step raised {type(e).__name__}: {e}")
            return None

    vec = V.VectorLearner([descs[0](0, 0), descs[1](0, 0)], flip=False)
    T.set_word(maps[0], 0, 1, R.PUBLISHED)
    T.set_word(maps[1], 0, 1, R.PUBLISHED)
    b = vec.step([descs[0](0, 1), descs[1](0, 1)])
    check(b.new == (True, True) and np.array_equal(b.to_numpy(),
                                                   np.stack([slots[0][0], slots[1][0]])),
          "both rows gathered (frame 1 of each)")
    vec.poll()
    # Row 1's game restarted and is gone again; row 0 has frame 2.
    T.set_word(maps[0], 1, 2, R.PUBLISHED)
    b = step("row 1's reconnect fails after row 0's lease", [descs[0](1, 2), gone_desc(0x1F1)])
    if b is not None:
        check(b.new == (True, False) and b.frames == (2, 1)
              and np.array_equal(b.to_numpy(), np.stack([slots[0][1], slots[1][0]])),
              f"row 0's frame 2 gathered, row 1 not new and keeping its frame 1 ({b.new}, "
              f"{b.frames})")
    check(T.get_word(maps[0], 1) == (R.ACTIVE, 2),
          f"row 0's lease held until its gather completes, not given back unread "
          f"({T.get_word(maps[0], 1)})")
    check(vec.ring(1) is None and "no zero-copy producer" in (vec.row_error(1) or "")
          and vec.row_error(0) is None and vec.counters["reconnect_failures"] == 1,
          f"row 1 has no ring and says why ({vec.row_error(1)}), counted "
          f"({vec.counters.get('reconnect_failures')})")
    vec.poll()
    check(T.get_word(maps[0], 1) == (R.RELEASED, 2), "and released once the gather completed")
    # Row 0's game restarted and is gone too, now before row 1's good frame (ring 0x102).
    T.set_word(maps[2], 1, 1, R.PUBLISHED)
    b = step("row 0's reconnect fails before row 1's lease", [gone_desc(0x1F0), descs[2](1, 1)])
    if b is not None:
        check(b.new == (False, True) and b.frames == (2, 1)
              and np.array_equal(b.to_numpy(), np.stack([slots[0][1], slots[2][1]])),
              f"row 1 reconnected to ring 0x102 and gathered, row 0 keeps frame 2 ({b.new}, "
              f"{b.frames})")
    check(T.get_word(maps[2], 1) == (R.ACTIVE, 1) and vec.ring(0) is None
          and vec.ring(1) is not None and vec.row_error(1) is None
          and vec.counters["reconnect_failures"] == 2,
          f"ring 0x102's lease held ({T.get_word(maps[2], 1)}); row 0 without a ring, row 1 "
          f"with one")
    # The failed row recovers when a descriptor of a live ring comes (ring 0x103).
    T.set_word(maps[3], 0, 5, R.PUBLISHED)
    b = step("row 0 reconnects", [descs[3](0, 5), None])
    if b is not None:
        check(b.new == (True, False) and b.frames == (5, 1) and vec.ring(0) is not None
              and vec.row_error(0) is None
              and np.array_equal(b.to_numpy(), np.stack([slots[3][0], slots[2][1]])),
              f"row 0 back with ring 0x103's frame 5 ({b.new}, {b.frames})")
    vec.close()
    check(T.get_word(maps[3], 0) == (R.RELEASED, 5) and T.get_word(maps[2], 1) == (R.RELEASED, 1),
          "close gave every lease back")
    for p in prods:
        p.close()
    os.rmdir(tmp)


def vec_counters(descs, maps):
    vec = V.VectorLearner([descs[0](0, 0), descs[1](0, 0)])
    try:
        return vec.producer_counters()[1]
    finally:
        vec.close()


def ptx():
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if not nvcc:
        print("SKIP: no nvcc")
        sys.exit(77)
    kdir = os.path.join(os.path.dirname(V.__file__), "kernels")
    shipped = open(os.path.join(kdir, "gather.ptx")).read()
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    tools = re.search(r"Cuda compilation tools, release [^\n]*", version)
    if not tools or tools.group(0) not in shipped:
        print(f"SKIP: nvcc is {tools.group(0) if tools else '?'}; gather.ptx was made by another")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "gather.ptx")
        subprocess.run([nvcc, "-ptx", "-arch=compute_90", "-o", out,
                        os.path.join(kdir, "gather.cu")], check=True)
        fresh = open(out).read()
    check(fresh == shipped, "gather.ptx equals `nvcc -ptx -arch=compute_90 gather.cu`")


def cuda(producer):
    T.cuda_importer_or_skip("python_vector_cuda")
    scenario(producer, "kernel", False, mode="semaphore")
    scenario(producer, "memcpy", False, mode="semaphore", flip=True)
    import numpy as np

    g = [Game(producer, 128, 128, "semaphore") for _ in range(2)]
    d = [x.go() for x in g]
    vec = V.VectorLearner(d)
    b = vec.step(d)
    want = b.to_numpy()
    check(np.array_equal(want, np.stack([T.pattern(128, 128, 1)] * 2)), "128x128 batch exact")
    try:
        import torch

        t = torch.from_dlpack(b)
        check(t.shape == (2, 128, 128, 4) and t.is_cuda and
              bool((t.cpu().numpy() == want).all()), "torch.from_dlpack(batch): same bytes")
    except ImportError:
        print("note: no torch")
    try:
        import cupy

        check(bool((cupy.asnumpy(cupy.asarray(b)) == want).all()), "cupy.asarray(batch)")
    except ImportError:
        print("note: no CuPy")
    try:
        import jax
        import jax.dlpack

        j = jax.dlpack.from_dlpack(b)
        check(j.shape == (2, 128, 128, 4) and bool((np.asarray(j) == want).all()),
              "jax.dlpack.from_dlpack(batch)")
    except ImportError:
        print("note: no JAX")
    vec.close()
    for x in g:
        x.close()


def example(producer):
    here = os.path.dirname(os.path.abspath(__file__))
    ex = os.path.join(here, "..", "..", "python", "examples", "vector_env.py")
    env = dict(os.environ)
    bare = {k: v for k, v in env.items() if k != "CRAFTGROUND_CAPTURE_LIBCUDA"}
    r = subprocess.run([sys.executable, ex, "--help"], capture_output=True, text=True, env=bare)
    check(r.returncode == 0 and "--mode" in r.stdout, f"--help runs without a GPU (exit "
                                                       f"{r.returncode}{r.stderr[-300:]})")
    r = subprocess.run([sys.executable, ex, "--envs", "1", "--mode", "double"],
                       capture_output=True, text=True, env=bare)
    check(r.returncode == 2 and ">= 2" in r.stderr, "one env cannot be double-buffered")
    g = Game(producer, 8, 4)  # the device's UUID, for the stand-in ($CG_FAKE_CUDA_UUID)
    uuid = R.parse_descriptor(g.go()).device_uuid
    g.close()
    if env.get("CRAFTGROUND_CAPTURE_LIBCUDA") and not uuid.startswith(b"mesa"):
        # The stand-in libcuda maps only Mesa's memfds; on a real GPU the
        # example runs against the real driver (python_vector_cuda's machine).
        print("SKIP: the Vulkan device is not Mesa's (the stand-in maps only its memfds)")
        sys.exit(77)
    env["CG_FAKE_CUDA_UUID"] = uuid.hex()
    r = subprocess.run([sys.executable, ex, "--producer", producer, "--envs", "3", "--steps", "5",
                        "--width", "37", "--height", "23"], capture_output=True, text=True,
                       env=env, timeout=100)
    if r.returncode != 0 and "SKIP" in r.stdout + r.stderr:
        sys.exit(77)
    out = r.stdout
    print(out, r.stderr[-2000:])
    # 5 lockstep steps of 3 games; 5 double-buffered steps of halves [0, 2], [1], ...
    check(r.returncode == 0 and "'new_frames': 15," in out.split("double:")[0]
          and "'new_frames': 8," in out.split("double:", 1)[-1],
          "both loops ran: 15 frames gathered lockstep, 8 double-buffered")
    check(out.count("producer counters {'published'") == 6, "every game's counters printed")


if __name__ == "__main__":
    cmds = {"fakecuda": 1, "fakesem": 0, "reconnect": 0, "native": 0, "ptx": 0, "cuda": 1,
            "example": 1}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds or len(sys.argv) < 2 + cmds[sys.argv[1]]:
        print(__doc__)
        sys.exit(2)
    fn = globals()[sys.argv[1]]
    fn(*sys.argv[2:2 + cmds[sys.argv[1]]])
    print("PASS" if T.failures == 0 else f"{T.failures} failures")
    sys.exit(1 if T.failures else 0)
