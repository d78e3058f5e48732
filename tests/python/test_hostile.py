"""The learner side against hostile producers and hostile arguments (issue 41).

Usage: test_hostile.py control   a producer written here from docs/zero-copy-v2/protocol.md
                                 that hands over a control block without the
                                 seals the protocol names (then shrinks it), a
                                 directory, a read-only file: each refused at
                                 connect with RingError, never a SIGBUS later
                                 (each learner runs in a child process: a
                                 signal is a failure, not a crash of the test)
       test_hostile.py refs      the native helper's commit(): 1,000 failed
                                 commits leave every reference count as it was
       test_hostile.py race      the native helper's release() in one thread,
                                 ControlBlock.close() in another, for 3 s: no
                                 store into an unmapped block (a SIGSEGV fails)
       test_hostile.py args      the native helper's lease, release, poll and
                                 commit with arguments that run Python code
                                 (__eq__, properties, a ctypes query function)
                                 which frees what the call was reading: run
                                 with the helper built with ASan (LD_PRELOAD
                                 libasan, PYTHONMALLOC=malloc) a use after free
                                 is a report and a failure
       test_hostile.py nogpu     without libcuda ($CRAFTGROUND_CAPTURE_LIBCUDA
                                 names a library that does not exist):
                                 RingLearner and VectorLearner raise the
                                 package's DeviceError, and start no process
                                 (no ctypes.util.find_library: a learner
                                 reconnects on every game restart);
                                 VectorLearner.native readable on the class
Exit 0 pass, 1 failure, 77 when what the check needs is missing.
"""
import ctypes
import fcntl
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import test_ring as T
from craftground_capture import ring as R

RID = 0x5EA1ED


def child_control(kind):
    """One learner against one hostile control block; prints what it saw."""
    tmp = tempfile.mkdtemp(prefix="cg-hostile-")
    os.chmod(tmp, 0o700)
    path = os.path.join(tmp, "ring.sock")
    seals = {"unsealed": 0, "shrink-only": fcntl.F_SEAL_SHRINK,
             "grow-only": fcntl.F_SEAL_GROW,
             "sealed": fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL}
    if kind in seals:
        cfd, cmap = T.control_block(2, RID, seals=seals[kind])
    elif kind == "directory":
        cfd, cmap = os.open(tmp, os.O_RDONLY | os.O_DIRECTORY), None
    else:  # "read-only": a sealed memfd reopened read-only
        wfd, cmap = T.control_block(2, RID)
        cfd = os.open(f"/proc/self/fd/{wfd}", os.O_RDONLY)
        os.close(wfd)
    mems = [os.memfd_create(f"slot{i}") for i in range(2)]
    for fd in mems:
        os.ftruncate(fd, 64)
    prod = T.FakeProducer(path, dict(ring_id=RID, slots=2, size=64, mode=R.MODE_FENCE),
                          [cfd] + mems)
    desc = T.descriptor(RID, 0, 1, path, slots=2)
    try:
        ring = R.RingLearner(desc, T.FakeImporter())
    except R.RingError as e:
        print(f"refused: {type(e).__name__}: {e}")
        prod.close()
        return
    except Exception as e:
        print(f"other: {type(e).__name__}: {e}")
        prod.close()
        return
    if cmap is not None:
        T.set_word(cmap, 0, 1, R.PUBLISHED)
    try:
        os.ftruncate(cfd, 0)  # the producer shrinks the block after the hello
        shrunk = "shrunk"
    except OSError:
        shrunk = "shrink refused"  # sealed: the producer cannot shrink it
    try:
        with ring.acquire(desc) as f:
            f.release(synchronize=False)
        print(f"accepted ({shrunk}): acquire and release")
    except R.RingError as e:
        print(f"accepted ({shrunk}): {type(e).__name__}: {e}")
    ring.close()
    prod.close()


def run_child(*args):
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "child", *args],
                       capture_output=True, text=True, timeout=60)
    if p.returncode < 0:
        return f"killed by {signal.Signals(-p.returncode).name}"
    if p.returncode != 0:
        return f"exit {p.returncode}: {p.stderr.strip().splitlines()[-1:]}"
    return p.stdout.strip()


def control():
    # The seals the protocol names (docs/zero-copy-v2/protocol.md, "The control block"):
    # against shrinking and growing. Each case's outcome written here by hand.
    for kind, want in [("unsealed", "refused: RingError: zero-copy control block: not sealed"),
                       ("shrink-only", "refused: RingError: zero-copy control block: not sealed"),
                       ("grow-only", "refused: RingError: zero-copy control block: not sealed"),
                       ("directory", "refused: RingError: zero-copy control block: not a "),
                       ("read-only", "refused: RingError: zero-copy control block: cannot be "
                                     "mapped read/write"),
                       ("sealed", "accepted (shrink refused): acquire and release")]:
        got = run_child("control", kind)
        T.check(got.startswith(want), f"control block {kind}: {got}")


# --- the native helper (python/native/lease.c) -------------------------------------------

def need_native():
    from craftground_capture.vector import load_native

    nat, why = load_native()
    if nat is None:
        print(f"skip: no native helper ({why})")
        sys.exit(77)
    return nat


class Tup(tuple):
    """A tuple the allocator frees for real (a plain tuple of a small size goes to
    CPython's free list, where ASan cannot see a use after it is freed)."""


def big(n):
    """A new int object (never a cached small one) of value n."""
    return int(str(n))


def entry(row, desc, frame, ctl, addr):
    """An entry as the step keeps it (row, ring, descriptor, pointer, slot, frame,
    word view, word index, control block, word address)."""
    return Tup((row, None, desc, big(0x7000_0000_0000), 0, frame, None, None, ctl, addr))


class Desc:
    ring_id = RID


def refs():
    nat = need_native()
    rid, frame = big(10 ** 30), big(10 ** 31 + 1)

    class D:
        ring_id = rid

    for what, row, lens in [("row outside every list", 5, (1, 1, 1)),
                            ("row outside last and frames only", 5, (9, 1, 1)),
                            ("row outside frames only", 5, (9, 9, 1))]:
        e = entry(row, D(), frame, None, 0)
        before = (sys.getrefcount(rid), sys.getrefcount(frame), sys.getrefcount(True))
        errors = 0
        for _ in range(1000):
            try:
                nat.commit([e], [False] * lens[0], [None] * lens[1], [0] * lens[2])
            except IndexError:
                errors += 1
        after = (sys.getrefcount(rid), sys.getrefcount(frame), sys.getrefcount(True))
        T.check(errors == 1000, f"commit, {what}: 1000 IndexErrors ({errors})")
        T.check(after[:2] == before[:2],
                f"commit, {what}: references of ring id and frame {before[:2]} -> {after[:2]}")
    new, last, frames = [False], [None], [0]
    nat.commit([entry(0, D(), frame, None, 0)], new, last, frames)
    T.check(new == [True] and last[0] is rid and frames[0] is frame, "commit of a good entry")


def race():
    nat = need_native()
    stop, rounds, stores = time.monotonic() + 3.0, 0, 0
    while time.monotonic() < stop:
        cfd, cmap = T.control_block(2, RID)
        ctl = R.ControlBlock(cfd, 2, RID)
        T.set_word(cmap, 0, 1, R.ACTIVE)
        entries = [entry(0, Desc(), 1, ctl, ctl.word_address(0))] * 64
        go = threading.Event()
        t = threading.Thread(target=lambda: (go.wait(), ctl.close()))
        t.start()
        go.set()
        while t.is_alive():
            nat.release(entries)
            stores += 1
        t.join()
        nat.release(entries)  # closed: nothing is written
        cmap.close()
        rounds += 1
    T.check(rounds > 10, f"{rounds} closes raced {stores} releases, no store after an unmap")


def args():
    nat = need_native()
    rounds = 0
    # lease(): the last ring id's __eq__ empties the lists the call read its row from.
    raw = T.descriptor(RID, 0, 1, "/nonexistent/ring.sock", slots=2)
    cfd, cmap = T.control_block(2, RID)
    ctl = R.ControlBlock(cfd, 2, RID)

    class Ring:
        _control = None  # not the template's block: the row is a miss

    def template(ring, ptrs, ks, addrs):
        return Tup((ring, ctl, Desc(), raw[:64], raw[68:72], raw[80:], big(RID), 2, None, ptrs,
                    None, big(8 * 4), None, ks, addrs))

    class Eq:
        def __init__(self, *lists):
            self.lists = lists

        def __eq__(self, other):
            for li in self.lists:
                li.clear()
            return False

        __hash__ = None

    rows, descs, cached = [0], [bytes(bytearray(raw))], []
    cached.append(template(Ring(), [big(1 << 45)], [big(1 << 40)], [big(ctl.word_address(0))]))
    res = try_call(nat.lease, rows, descs, cached, [big(5)], [Eq(cached, descs, rows)])
    T.check(res == "RuntimeError" or (res[0] == [] and res[7] == [0] and res[8] == [raw]),
            f"lease, __eq__ empties the step's lists: {summary(res)}")
    rounds += 1

    # lease(): the ring's _control property empties the template's lists between the
    # two passes (its second read).
    ptrs, ks, addrs = [big(1 << 45)], [big(1 << 40)], [big(ctl.word_address(0))]

    class Prop:
        n = 0

        @property
        def _control(self):
            Prop.n += 1
            if Prop.n == 2:
                for li in (ptrs, ks, addrs):
                    li.clear()
            return ctl

    T.set_word(cmap, 0, 1, R.PUBLISHED)
    cached = [template(Prop(), ptrs, ks, addrs)]
    del ptrs[:0], ks[:0]
    res = try_call(nat.lease, [0], [bytes(bytearray(raw))], cached, [0], [None])
    word = T.get_word(cmap, 0)
    took = isinstance(res, tuple) and len(res[0]) == 1
    T.check(isinstance(res, tuple) and (took and word == (R.ACTIVE, 1) and res[2] == [1 << 45])
            or (not took and word == (R.PUBLISHED, 1)),
            f"lease, a property empties the template's lists: {summary(res)}, word {word}")
    rounds += 1

    # release(): the block's _map property empties the entries being released.
    class Ctl:
        @property
        def _map(self):
            entries.clear()
            return ctl._map

    T.set_word(cmap, 0, 7, R.ACTIVE)
    entries = [entry(0, Desc(), big(7), Ctl(), big(ctl.word_address(0)))]
    res = try_call(nat.release, entries)
    T.check(res in (0, 1) and T.get_word(cmap, 0) in ((R.RELEASED, 7), (R.ACTIVE, 7)),
            f"release, a property empties the entries: {res!r}, word {T.get_word(cmap, 0)}")
    rounds += 1

    # commit(): the descriptor's ring_id property empties the entries.
    class Rid:
        @property
        def ring_id(self):
            entries.clear()
            return RID

    entries = [entry(0, Rid(), big(1 << 50), None, 0)]
    new, last, frames = [False], [None], [0]
    res = try_call(nat.commit, entries, new, last, frames)
    T.check(res is None and frames == [1 << 50] and last == [RID],
            f"commit, a property empties the entries: {res!r}, frames {frames}")
    rounds += 1

    # poll(): the driver's event query (a ctypes function) empties pending.
    query_t = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
    other_t = ctypes.CFUNCTYPE(ctypes.c_int)
    pending, free_events = [], []

    def query(ev):
        pending.clear()
        return 0

    q, other = query_t(query), other_t(lambda: 0)
    fn = [ctypes.cast(other, ctypes.c_void_p).value] * 3 + [ctypes.cast(q, ctypes.c_void_p).value]
    drv = nat.driver(fn[0], fn[1], fn[2], fn[3], 0, 0, 1, 4, 0)
    T.set_word(cmap, 0, 9, R.ACTIVE)
    pending.append(Tup((big(0xE0E0E0), [entry(0, Desc(), big(9), ctl, ctl.word_address(0))])))
    res = try_call(nat.poll, drv, pending, free_events)
    T.check((res == "RuntimeError" or res == (1, None, 0)) and T.get_word(cmap, 0) ==
            (R.RELEASED, 9), f"poll, the query empties pending: {summary(res)}, word "
                             f"{T.get_word(cmap, 0)}")
    rounds += 1
    ctl.close()
    cmap.close()
    T.check(rounds == 5, "every hostile call returned")


def try_call(fn, *a):
    try:
        return fn(*a)
    except RuntimeError:
        return "RuntimeError"


def summary(res):
    if isinstance(res, tuple) and len(res) == 9:
        return f"{len(res[0])} entries, misses {res[7]}"
    return repr(res)


def nogpu():
    os.environ["CRAFTGROUND_CAPTURE_LIBCUDA"] = "/nonexistent/libcuda.so.1"
    from craftground_capture import DeviceError, VectorLearner

    desc = T.descriptor(RID, 0, 1, "/nonexistent/ring.sock", slots=2)
    forks = []
    popen_init = subprocess.Popen.__init__

    def counted(self, *a, **k):
        forks.append(a[0] if a else k.get("args"))
        popen_init(self, *a, **k)

    subprocess.Popen.__init__ = counted
    try:
        T.raises(DeviceError, lambda: R.RingLearner(desc), "RingLearner without libcuda",
                 "libcuda")
        T.raises(DeviceError, lambda: VectorLearner([desc]), "VectorLearner without libcuda",
                 "libcuda")
    finally:
        subprocess.Popen.__init__ = popen_init
    T.check(not forks, f"loading the driver named by CRAFTGROUND_CAPTURE_LIBCUDA started "
            f"{len(forks)} processes: {forks[:3]}")
    T.check(isinstance(DeviceError("x"), R.RingError), "DeviceError is a RingError")
    # What ctest hands over: the helper's path (it loads), or 0 (the Python rules).
    want = os.environ.get("CRAFTGROUND_CAPTURE_NATIVE", "0") != "0"
    native = getattr(VectorLearner, "native", None)
    T.check(native is want, f"VectorLearner.native on the class: {native!r}, want {want}")
    T.check(hasattr(VectorLearner, "native_why") and
            isinstance(VectorLearner.native_why, (str, type(None))),
            "VectorLearner.native_why on the class")


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        child_control(sys.argv[3])
        sys.exit(0)
    T.run_modes({"control": control, "nogpu": nogpu, "refs": refs, "race": race, "args": args},
                __doc__)
