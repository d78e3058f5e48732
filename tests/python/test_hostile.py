"""The learner side against hostile producers and hostile arguments (issue 41).

Usage: test_hostile.py control   a producer written here from docs/zero-copy-v2.md
                                 that hands over a control block without the
                                 seals the protocol names (then shrinks it), a
                                 directory, a read-only file: each refused at
                                 connect with RingError, never a SIGBUS later
                                 (each learner runs in a child process: a
                                 signal is a failure, not a crash of the test)
       test_hostile.py nogpu     without libcuda ($CRAFTGROUND_CAPTURE_LIBCUDA
                                 names a library that does not exist):
                                 RingLearner and VectorLearner raise the
                                 package's DeviceError; VectorLearner.native
                                 readable on the class
Exit 0 pass, 1 failure, 77 when what the check needs is missing.
"""
import fcntl
import os
import signal
import subprocess
import sys
import tempfile

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
    # The seals the protocol names (docs/zero-copy-v2.md, "The control block"):
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


def nogpu():
    os.environ["CRAFTGROUND_CAPTURE_LIBCUDA"] = "/nonexistent/libcuda.so.1"
    from craftground_capture import DeviceError, VectorLearner
    from craftground_capture.vector import load_native

    desc = T.descriptor(RID, 0, 1, "/nonexistent/ring.sock", slots=2)
    T.raises(DeviceError, lambda: R.RingLearner(desc), "RingLearner without libcuda",
             "libcuda")
    T.raises(DeviceError, lambda: VectorLearner([desc]), "VectorLearner without libcuda",
             "libcuda")
    T.check(isinstance(DeviceError("x"), R.RingError), "DeviceError is a RingError")
    native = getattr(VectorLearner, "native", None)
    T.check(native is (load_native()[0] is not None),
            f"VectorLearner.native on the class: {native!r}")
    T.check(hasattr(VectorLearner, "native_why") and
            isinstance(VectorLearner.native_why, (str, type(None))),
            "VectorLearner.native_why on the class")


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        child_control(sys.argv[3])
        sys.exit(0)
    modes = {"control": control, "nogpu": nogpu}
    if len(sys.argv) < 2 or sys.argv[1] not in modes:
        print(__doc__)
        sys.exit(2)
    modes[sys.argv[1]]()
    print("PASS" if T.failures == 0 else f"{T.failures} failures")
    sys.exit(1 if T.failures else 0)
