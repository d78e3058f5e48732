"""Checks of the zero-copy v2 learner (python/craftground_capture/ring.py)
against a stand-in importer (no CUDA here).

Usage: test_ring.py unit              descriptor golden bytes, hello and fd
                                      passing from a producer written here
                                      from docs/zero-copy-v2/protocol.md, leases,
                                      streams, every bad input
       test_ring.py live PRODUCER     the real C producer (test_zc_ring
                                      serve, lavapipe): fds, leases,
                                      frames byte-exact, reclaim on close
       test_ring.py fakecuda PRODUCER the CUDA importer's ctypes calls
                                      against a stand-in libcuda built with
                                      cuda.h ($CRAFTGROUND_CAPTURE_LIBCUDA),
                                      frames from the real producer
       test_ring.py stdin-cuda W H N  the CUDA learner for RingJniTest: one
                                      descriptor a line on stdin (frame f
                                      of the pattern), "ok"/"bad" a line
       test_ring.py stdin-rgb [cuda]  the RGB-format learner for RingJniTest:
                                      "DESC WANT" a line, the frame must be
                                      WANT (through llvmpipe's memfd, or
                                      with cuda the real CUDA learner);
                                      "ok"/"bad"/"skip" a line
       test_ring.py cuda PRODUCER     the GPU machine: the real CUDA
                                      learner (libcuda) against the producer
                                      in semaphore mode, lockstep, every
                                      frame byte-exact (numpy, and CuPy /
                                      torch where present), two sizes
Exit 0 pass, 1 failure, 77 when what the check needs is missing.
"""
import fcntl
import mmap
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading

from craftground_capture import _posix as P
from craftground_capture import ring as R

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def raises(exc, fn, what, text=None):
    try:
        fn()
    except exc as e:
        check(text is None or text in str(e), f"{what}: {type(e).__name__}: {e}")
        return
    except Exception as e:
        check(False, f"{what}: {type(e).__name__} instead of {exc.__name__}: {e}")
        return
    check(False, f"{what}: no {exc.__name__}")


class FakeImporter:
    """Records every call; 'imports' fds by keeping them (or, for Mesa's
    llvmpipe memfds, by mapping the allocation behind the fd's header)."""

    def __init__(self):
        self.calls = []
        self.maps = []
        self.next_ptr = 0x7000_0000_0000

    def open_device(self, uuid):
        self.calls.append(("open_device", bytes(uuid)))
        return 0

    def import_memory(self, fd, size):
        st = os.fstat(fd)
        self.calls.append(("import_memory", size, st.st_size))
        m = None
        link = os.readlink(f"/proc/self/fd/{fd}")
        if "llvmpipe memory fd" in link and st.st_size >= 4096 + size:
            whole = mmap.mmap(fd, st.st_size, mmap.MAP_SHARED, mmap.PROT_READ)
            (off,) = struct.unpack_from("<Q", whole, 8)
            m = (whole, off)
        os.close(fd)  # a successful import owns the fd
        self.maps.append(m)
        self.next_ptr += 0x10_0000
        return (len(self.maps), self.next_ptr)

    def import_semaphore(self, fd):
        os.close(fd)
        self.calls.append(("import_semaphore",))
        return 0x5E3A

    def wait(self, sem, value, stream):
        self.calls.append(("wait", sem, value, stream))

    def order(self, src, dst):
        self.calls.append(("order", src, dst))

    def synchronize(self, stream):
        self.calls.append(("synchronize", stream))

    def free(self, memories, semaphore):
        self.calls.append(("free", len(memories), semaphore))

    def slot_bytes(self, slot, n):
        whole, off = self.maps[slot]
        return bytes(whole[off:off + n])


# --- a producer written from the document ------------------------------------

GOLDEN_DESC = bytes.fromhex(
    "43475a32" "0100" "c000"                          # magic, version 1, length 192
    "25000000" "80020000" "68010000" "000a0000"       # format 37, 640, 360, pitch 2560
    "03000000" "01000000"                             # 3 slots, mode 1
    "000102030405060708090a0b0c0d0e0f"                # device UUID
    "8877665544332211" "00100e0000000000"             # ring id, slot size 921600
    "02000000" "00000000" "0504030201000000"          # slot 2, reserved, frame
) + b"/run/x.sock".ljust(108, b"\0") + b"\0" * 4


# Version 2, by hand from the same table: format 23 (RGB8), 640x360, pitch
# 1920, slot size 691200, flags 0; and an RGBA one with ROWS_BOTTOM_UP.
GOLDEN_DESC_RGB = bytes.fromhex(
    "43475a32" "0200" "c000"                          # magic, version 2, length 192
    "17000000" "80020000" "68010000" "80070000"       # format 23, 640, 360, pitch 1920
    "03000000" "01000000"                             # 3 slots, mode 1
    "000102030405060708090a0b0c0d0e0f"                # device UUID
    "8877665544332211" "008c0a0000000000"             # ring id, slot size 691200
    "02000000" "00000000" "0504030201000000"          # slot 2, flags 0, frame
) + b"/run/x.sock".ljust(108, b"\0") + b"\0" * 4
GOLDEN_DESC_BOTTOM_UP = GOLDEN_DESC[:4] + b"\x02\x00" + GOLDEN_DESC[6:68] + b"\x01\0\0\0" + \
    GOLDEN_DESC[72:]


def descriptor(ring_id, slot, frame, path, mode=R.MODE_FENCE, slots=3, w=4, h=2, size=64, fmt=37,
               flags=0):
    b = bytearray(GOLDEN_DESC)
    bpp = 3 if fmt == R.FORMAT_RGB8 else 4
    if fmt == R.FORMAT_RGB8 or flags:
        struct.pack_into("<H", b, 4, 2)
    struct.pack_into("<IIIII", b, 8, fmt, w, h, w * bpp, slots)
    struct.pack_into("<I", b, 68, flags)
    struct.pack_into("<I", b, 28, mode)
    struct.pack_into("<QQI", b, 48, ring_id, size, slot)
    struct.pack_into("<Q", b, 72, frame)
    b[80:188] = path.encode().ljust(108, b"\0")
    return bytes(b)


SEALS = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL


def control_block(slots, ring_id, seals=SEALS):
    """A control block as the producer makes it (docs/zero-copy-v2/protocol.md): a
    4096-byte memfd sealed against shrinking and growing (`seals`: others
    for a hostile producer), the header written."""
    fd = os.memfd_create("test-control", os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, 4096)
    if seals:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    m = mmap.mmap(fd, 4096)
    struct.pack_into("<4sIIIQI", m, 0, b"CGZC", 1, slots, 64, ring_id, 1)
    return fd, m


def set_word(m, slot, frame, state):
    struct.pack_into("<Q", m, 64 + 64 * slot, (frame << 8) | state)


def get_word(m, slot):
    (w,) = struct.unpack_from("<Q", m, 64 + 64 * slot)
    return w & 0xFF, w >> 8


class FakeProducer:
    """Serves one hello per connection with the given fds (send_fds)."""

    def __init__(self, path, hello, fds, raw=None):
        self.path, self.hello, self.fds, self.raw = path, hello, fds, raw
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(4)
        self.conns = []
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            msg = self.raw if self.raw is not None else struct.pack(
                "<4sHHQIIQII24s", b"CGZH", 1, self.hello.get("status", 0), self.hello["ring_id"],
                self.hello["slots"], len(self.fds), self.hello["size"], self.hello["mode"], 4096,
                b"")
            if not msg:  # the producer hangs up at once
                c.close()
                continue
            socket.send_fds(c, [msg], self.fds) if self.fds else c.sendall(msg)
            self.conns.append(c)

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()
        os.unlink(self.path)


def unit():
    d = R.parse_descriptor(GOLDEN_DESC)
    check((d.format, d.width, d.height, d.row_pitch, d.slot_count, d.mode) ==
          (37, 640, 360, 2560, 3, 1), "golden descriptor: sizes and mode")
    check(d.device_uuid == bytes(range(16)) and d.ring_id == 0x1122334455667788 and
          d.slot_size == 921600 and d.slot == 2 and d.frame == 0x0102030405 and
          d.socket_path == "/run/x.sock", "golden descriptor: uuid, ring, slot, frame, path")
    check(R.handle_kind(GOLDEN_DESC) == "ring" and R.handle_kind(b"\0" * 68) == "cuda_ipc" and
          R.handle_kind(b"\1\0\0\0") == "mach_port", "handle kinds by magic and length")
    raises(ValueError, lambda: R.handle_kind(b"\0" * 10), "10-byte handle")
    # The documented rule (docs/wire-format.md, "Telling the ipc_handle kinds
    # apart"), with hand-written headers: magic, u16 version, u16 length.
    future = b"CGH1" + struct.pack("<HH", 1, 68) + bytes(60)
    raises(ValueError, lambda: R.handle_kind(future), "68 bytes tagged CGH1: not CUDA",
           "tagged CGH1")
    raises(ValueError, lambda: R.handle_kind(b"CGZ9" + struct.pack("<HH", 3, 200) + bytes(192)),
           "unknown tag of 200 bytes", "tagged CGZ9")
    check(R.handle_kind(b"CGZ2" + bytes(64)) == "ring", "68 bytes starting CGZ2: the ring's")
    # Not a tag: the length field does not fit, the namespace differs, or
    # fewer than 8 bytes; those stay the untagged kinds by their length.
    check(R.handle_kind(b"CGH1" + struct.pack("<HH", 1, 69) + bytes(60)) == "cuda_ipc",
          "CG magic with a length beyond the bytes is no tag")
    check(R.handle_kind(b"CGh1" + struct.pack("<HH", 1, 68) + bytes(60)) == "cuda_ipc",
          "a lower-case letter is outside the tag namespace")
    check(R.handle_kind(b"XGH1" + struct.pack("<HH", 1, 68) + bytes(60)) == "cuda_ipc",
          "no CG prefix: untagged")
    check(R.handle_kind(b"CGZ2") == "mach_port" and R.handle_kind(b"CGH1") == "mach_port",
          "4 bytes cannot hold a tag: a mach port")
    raises(ValueError, lambda: R.handle_kind(b"CGH1" + struct.pack("<HH", 1, 8)),
           "an unknown 8-byte tagged handle", "tagged CGH1")

    def patched(off, val):
        b = bytearray(GOLDEN_DESC)
        b[off] = val
        return bytes(b)

    raises(ValueError, lambda: R.parse_descriptor(GOLDEN_DESC[:100]), "truncated", "truncated")
    raises(ValueError, lambda: R.parse_descriptor(patched(4, 3)), "unknown version", "version 3")
    raises(ValueError, lambda: R.parse_descriptor(patched(4, 0)), "version 0", "version 0")
    raises(ValueError, lambda: R.parse_descriptor(patched(8, 23)), "format 23 in version 1",
           "format 23 unknown in version 1")
    check(R.parse_descriptor(patched(68, 0xFF)).flags == 0, "version 1: offset 68 ignored")
    check(d.version == 1 and d.channels == 4 and not d.rows_bottom_up, "v1: 4 channels, flags 0")
    check(d.format_name == "R8G8B8A8_UNORM" and d.channel_order == "RGBA", "format 37 is RGBA")
    # A B8G8R8A8 swapchain image's copy (format 44 at offset 8, as the producer writes it).
    for fmt, name, order in ((44, "B8G8R8A8_UNORM", "BGRA"), (50, "B8G8R8A8_SRGB", "BGRA"),
                             (43, "R8G8B8A8_SRGB", "RGBA")):
        b = R.parse_descriptor(patched(8, fmt))
        check(b.format == fmt and b.format_name == name and b.channel_order == order,
              f"format {fmt} reported as {name}, {order}")

    # Version 2.
    v = R.parse_descriptor(GOLDEN_DESC_RGB)
    check((v.version, v.format, v.width, v.height, v.row_pitch, v.slot_size, v.flags, v.channels)
          == (2, 23, 640, 360, 1920, 691200, 0, 3), "golden v2 RGB descriptor")
    check(v.format_name == "R8G8B8_UNORM" and v.channel_order == "RGB", "format 23 is RGB")
    bu = R.parse_descriptor(GOLDEN_DESC_BOTTOM_UP)
    check(bu.format == 37 and bu.flags == 1 and bu.rows_bottom_up and bu.channels == 4,
          "golden v2 RGBA descriptor with ROWS_BOTTOM_UP")
    # The kind names observation_spec's entry: RGB slots (H, W, 3), RGBA ones (H, W, 4).
    check(v.kind == "ring_rgb" and d.kind == "ring_rgba" and bu.kind == "ring_rgba",
          f"Descriptor.kind: {v.kind}, {d.kind}, {bu.kind}")
    from craftground_capture import observation_spec
    check(observation_spec(v.kind, width=v.width, height=v.height).shape == (360, 640, 3)
          and observation_spec(d.kind, width=d.width, height=d.height).shape == (360, 640, 4),
          "observation_spec of the golden descriptors: (360, 640, 3) and (360, 640, 4)")

    def patched2(base, off, val):
        b = bytearray(base)
        b[off] = val
        return bytes(b)

    for what, raw, text in [
            ("flag bit 1", patched2(GOLDEN_DESC_BOTTOM_UP, 68, 3), "unknown bits"),
            ("flag bit 31", patched2(GOLDEN_DESC_BOTTOM_UP, 71, 0x80), "unknown bits"),
            ("RGB with ROWS_BOTTOM_UP", patched2(GOLDEN_DESC_RGB, 68, 1), "upright"),
            ("RGB pitch wider than width*3", patched2(GOLDEN_DESC_RGB, 21, 0x0A), "row pitch"),
            ("RGB pitch width*3 + 1", patched2(GOLDEN_DESC_RGB, 20, 0x81), "row pitch"),
            ("RGB pitch width*3 - 1", patched2(GOLDEN_DESC_RGB, 20, 0x7F), "row pitch"),
            ("RGB slot size below pitch*height", patched2(GOLDEN_DESC_RGB, 57, 0x8B), "slot size"),
            ("format 22 in version 2", patched2(GOLDEN_DESC_RGB, 8, 22), "format 22"),
            ("format 24 in version 2", patched2(GOLDEN_DESC_RGB, 8, 24), "format 24"),
            ("RGB version 3", patched2(GOLDEN_DESC_RGB, 4, 3), "version 3")]:
        raises(ValueError, lambda raw=raw: R.parse_descriptor(raw), what, text)
    raises(ValueError, lambda: R.parse_descriptor(patched(3, 0x31)), "bad magic", "CGZ2")
    raises(ValueError, lambda: R.parse_descriptor(b"\xab" * 68), "v1 handle", "v1 CUDA")
    raises(ValueError, lambda: R.parse_descriptor(patched(64, 3)), "slot 3 of 3", "slot 3")
    raises(ValueError, lambda: R.parse_descriptor(patched(28, 7)), "mode 7", "mode 7")
    raises(ValueError, lambda: R.parse_descriptor(patched(80, 0)), "empty path", "path")
    raises(R.FormatError, lambda: R.parse_descriptor(patched(81, 0xFF)), "socket_path not UTF-8",
           "socket_path b'/\\xffun/x.sock' is not UTF-8")

    tmp = tempfile.mkdtemp(prefix="cg-zc-py-")
    os.chmod(tmp, 0o700)
    path = os.path.join(tmp, "ring.sock")
    rid = 0xA1B2C3D4
    # Closed socket: nobody listens.
    raises(R.RingError, lambda: R.RingLearner(descriptor(rid, 0, 1, path), FakeImporter()),
           "no producer", "no zero-copy producer")

    # Semaphore mode, 3 slots: control + 3 memories + semaphore.
    cfd, cmap = control_block(3, rid)
    mems = [os.memfd_create(f"slot{i}") for i in range(3)]
    sem = os.memfd_create("semaphore")
    for fd in mems:
        os.ftruncate(fd, 64)
    prod = FakeProducer(path, dict(ring_id=rid, slots=3, size=64, mode=R.MODE_SEMAPHORE),
                        [cfd] + mems + [sem])
    imp = FakeImporter()
    desc1 = descriptor(rid, 1, 7, path, mode=R.MODE_SEMAPHORE)
    ring = R.RingLearner(desc1, imp)
    kinds = [c[0] for c in imp.calls]
    check(kinds == ["open_device", "import_memory", "import_memory", "import_memory",
                    "import_semaphore"], f"imports each fd once, in order: {kinds}")
    check(imp.calls[0][1] == bytes(range(16)), "device chosen by the descriptor's UUID")
    check(all(c[1] == 64 for c in imp.calls if c[0] == "import_memory"), "imported at slot size")

    # Leases.
    raises(R.StaleDescriptor, lambda: ring.acquire(desc1, 5), "acquire of an unpublished slot",
           "EMPTY")
    set_word(cmap, 1, 7, R.PUBLISHED)
    f = ring.acquire(desc1, 5)
    check(get_word(cmap, 1) == (R.ACTIVE, 7), "ACTIVE in the control block")
    check(imp.calls[-1] == ("wait", 0x5E3A, 7, 5), f"stream 5 waits for value 7: {imp.calls[-1]}")
    cai = f.__cuda_array_interface__
    check(cai["version"] == 3 and cai["stream"] == 5 and cai["shape"] == (2, 4, 4) and
          cai["typestr"] == "|u1" and cai["data"][0] == ring._memories[1][1] and
          cai["strides"] is None, f"__cuda_array_interface__ {cai}")
    check(f.__dlpack_device__() == (2, 0), "DLPack device (CUDA, 0)")
    cap = f.__dlpack__(stream=9)
    check(imp.calls[-1] == ("order", 5, 9) and type(cap).__name__ == "PyCapsule",
          "__dlpack__(stream=9) orders stream 9 after the wait")
    n = len(imp.calls)
    f.__dlpack__(stream=5)
    f.__dlpack__(stream=-1)
    check(len(imp.calls) == n, "same stream or -1: no extra ordering")
    raises(R.RingError, lambda: ring.acquire(desc1, 5), "acquire twice", "already acquired")
    f.release()
    check(get_word(cmap, 1) == (R.RELEASED, 7), "RELEASED after release()")
    check(imp.calls[-1] == ("synchronize", 5), "release synchronises the frame's stream")
    f.release()  # twice: no-op
    raises(R.StaleDescriptor, lambda: ring.acquire(desc1), "acquire of a released frame",
           "RELEASED")
    # Context manager; None = the legacy default stream.
    desc2 = descriptor(rid, 2, 8, path, mode=R.MODE_SEMAPHORE)
    set_word(cmap, 2, 8, R.PUBLISHED)
    with ring.acquire(desc2) as f2:
        check(f2.stream == 1 and get_word(cmap, 2) == (R.ACTIVE, 8), "None -> stream 1, ACTIVE")
    check(get_word(cmap, 2) == (R.RELEASED, 8), "context manager released")
    # Stale: the producer reused the slot.
    set_word(cmap, 0, 9, R.PUBLISHED)
    raises(R.StaleDescriptor, lambda: ring.acquire(descriptor(rid, 0, 6, path, R.MODE_SEMAPHORE)),
           "frame overwritten", "holds frame 9")
    raises(R.StaleDescriptor, lambda: ring.acquire(descriptor(rid + 1, 0, 9, path, R.MODE_SEMAPHORE)),
           "descriptor of another ring", "re-initialised")
    raises(ValueError, lambda: ring.acquire(descriptor(rid, 0, 0, path, R.MODE_SEMAPHORE)),
           "frame 0 (the template)", "template")
    # The RGB slot format (version 2, format 23): (H, W, 3), upright, nothing flipped here.
    drgb = descriptor(rid, 2, 11, path, R.MODE_SEMAPHORE, fmt=R.FORMAT_RGB8)
    set_word(cmap, 2, 11, R.PUBLISHED)
    with ring.acquire(drgb, 5) as fr:
        cai = fr.__cuda_array_interface__
        check(cai["shape"] == (2, 4, 3) and cai["strides"] is None and cai["typestr"] == "|u1"
              and cai["data"][0] == ring._memories[2][1] and fr.nbytes == 24,
              f"RGB frame: (H, W, 3), packed: {cai}")
        check(fr.format == 23 and fr.flags == 0 and not fr.rows_bottom_up, "RGB frame is upright")
        check(imp.calls[-1] == ("wait", 0x5E3A, 11, 5), "RGB frame: stream waits for its value")
    check(get_word(cmap, 2) == (R.RELEASED, 11), "RGB frame released")
    # A version 2 RGBA frame whose rows are bottom up: reported, not flipped.
    dbu = descriptor(rid, 2, 12, path, R.MODE_SEMAPHORE, flags=R.FLAG_ROWS_BOTTOM_UP)
    set_word(cmap, 2, 12, R.PUBLISHED)
    with ring.acquire(dbu, 5) as fb:
        check(fb.shape == (2, 4, 4) and fb.rows_bottom_up and fb.flags == 1 and
              fb.__cuda_array_interface__["strides"] is None, "bottom-up RGBA frame: flags reported")
    # Close releases every held frame.
    set_word(cmap, 0, 10, R.PUBLISHED)
    ring.acquire(descriptor(rid, 0, 10, path, R.MODE_SEMAPHORE))
    ring.close()
    check(get_word(cmap, 0) == (R.RELEASED, 10), "close released the held frame")
    check(imp.calls[-1] == ("free", 3, 0x5E3A), "close freed 3 memories and the semaphore")
    raises(R.RingError, lambda: ring.acquire(desc1), "acquire after close", "closed")
    raises(R.RingError, lambda: ring.state(0), "state() after close", "closed")
    # The ring closed by the producer. This learner receives the fds through
    # the stand-in for socket.recv_fds that Python 3.8 (no recv_fds) uses.
    saved, P._recv_fds = P._recv_fds, P._recv_fds_compat
    try:
        rl = R.RingLearner(desc1, FakeImporter())
    finally:
        P._recv_fds = saved
    check(len(rl._memories) == 3 and rl._semaphore is not None and rl._control is not None,
          "Python 3.8's recv_fds stand-in: control block, 3 memories and the semaphore")
    set_word(cmap, 1, 0, R.CLOSED)
    raises(R.RingError, lambda: rl.acquire(desc1), "ring destroyed", "destroyed")
    # A lease word whose state byte is none of the six (a corrupt control block).
    for st in (6, 0xFF):
        set_word(cmap, 1, 7, st)
        raises(R.RingError, lambda: rl.acquire(desc1), f"lease word of state {st}",
               f"has state {st}, none of 0-5")
    rl.close()
    prod.close()

    # Bad hellos, each a clear error with no fd left behind.
    def hello(status=0, version=1, nfd=None, size=64, magic=b"CGZH", mode=R.MODE_FENCE, slots=2):
        return struct.pack("<4sHHQIIQII24s", magic, version, status, rid, slots,
                           slots + 1 if nfd is None else nfd, size, mode, 4096, b"")

    fds_open_before = len(os.listdir("/proc/self/fd"))
    dfence = descriptor(rid, 0, 1, path, slots=2)
    for what, raw, nfds, text in [
            ("busy", hello(status=1), 0, "another learner"),
            ("other uid", hello(status=2), 0, "another user"),
            ("truncated hello", hello()[:20], 3, "truncated"),
            ("unknown hello version", hello(version=4), 3, "version 4"),
            ("bad hello magic", hello(magic=b"XXXX"), 3, "magic"),
            ("fd count mismatch", hello(nfd=3), 2, "fds for 2 slots"),
            ("closed before hello", b"", 0, "closed the socket")]:
        fds = [os.memfd_create("x") for _ in range(nfds)]
        p = FakeProducer(path, None, fds, raw=raw)
        raises(R.RingError, lambda: R.RingLearner(dfence, FakeImporter()), what, text)
        p.close()
        for fd in fds:
            os.close(fd)
    check(len(os.listdir("/proc/self/fd")) == fds_open_before, "no fd leaked by the refusals")
    # A ring that does not match the descriptor (re-initialised game).
    cfd2, _ = control_block(2, rid + 5)
    p = FakeProducer(path, dict(ring_id=rid + 5, slots=2, size=64, mode=R.MODE_FENCE),
                     [cfd2, os.memfd_create("a"), os.memfd_create("b")])
    raises(R.StaleDescriptor, lambda: R.RingLearner(dfence, FakeImporter()), "socket of another ring",
           "another ring")
    p.close()
    os.rmdir(tmp)


def live(producer):
    proc = subprocess.Popen([producer, "serve", "fence", "37", "23", "3", "0"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    lines = [proc.stdout.readline().strip() for _ in range(3)]
    if not all(lines):
        proc.stdin.close()
        rc = proc.wait()
        if rc == 77:
            print("SKIP python_ring_live: no Vulkan device with external memory")
            sys.exit(77)
        check(False, f"producer gave no descriptors (exit {rc})")
        return
    descs = [bytes.fromhex(x) for x in lines]
    imp = FakeImporter()
    ring = R.RingLearner(descs[0], imp)
    check(ring.slot_count == 3 and len([c for c in imp.calls if c[0] == "import_memory"]) == 3,
          "3 slots imported, no semaphore (fence mode)")
    check(not any(c[0] == "import_semaphore" for c in imp.calls), "fence mode sends no semaphore")
    import numpy as np

    w, h = 37, 23
    for fnum, raw in enumerate(descs, 1):
        d = R.parse_descriptor(raw)
        fr = ring.acquire(raw)
        check(ring.state(d.slot) == ("ACTIVE", fnum), f"frame {fnum} ACTIVE in slot {d.slot}")
        check(not any(c[0] == "wait" for c in imp.calls), "fence mode: no GPU wait")
        if imp.maps[d.slot] is not None:
            got = np.frombuffer(imp.slot_bytes(d.slot, w * h * 4), np.uint8).reshape(h, w, 4)
            y, x = np.mgrid[0:h, 0:w]
            want = np.stack([(x * 7 + fnum * 13) % 256, (y * 5 + fnum * 29) % 256,
                             ((x ^ y) + fnum * 3) % 256, np.full_like(x, (255 - fnum) % 256)],
                            axis=-1).astype(np.uint8)
            check(np.array_equal(got, want), f"frame {fnum} byte-exact (through llvmpipe's memfd)")
        else:
            print(f"note: the exported fd is not an llvmpipe memfd: bytes of frame {fnum} unchecked")
        if fnum == 1:
            fr.release()
            check(ring.state(d.slot) == ("RELEASED", 1), "frame 1 RELEASED")
    # A second learner while this one is connected: refused.
    raises(R.RingError, lambda: R.RingLearner(descs[0], FakeImporter()), "second learner",
           "another learner")
    # Leave holding frames 2 and 3 without releasing: the producer reclaims.
    ring._held.clear()  # as a crashed learner would: nothing released
    ring._control.close()
    ring._control = None
    ring._sock.close()
    ring._sock = None
    proc.stdin.close()
    tail = proc.stdout.read().split("\n")
    rc = proc.wait()
    check(rc == 0 and tail[0] == "states: 4 4 4",
          f"after the learner left, every slot RELEASED ('{tail[0]}', exit {rc})")
    check(tail[1] == "libcuda: no", f"the producer never mapped libcuda ({tail[1]})")


def pattern(w, h, f):
    import numpy as np

    y, x = np.mgrid[0:h, 0:w]
    return np.stack([(x * 7 + f * 13) % 256, (y * 5 + f * 29) % 256, ((x ^ y) + f * 3) % 256,
                     np.full_like(x, (255 - f) % 256)], axis=-1).astype(np.uint8)


def cuda(producer):
    try:
        importer = R.CudaImporter()
        n = ctypes_count(importer)
    except (OSError, R.RingError) as e:
        print(f"SKIP python_ring_cuda: no CUDA driver or device here: {e}")
        sys.exit(77)
    if n == 0:
        print("SKIP python_ring_cuda: no CUDA device")
        sys.exit(77)
    import numpy as np

    try:
        import cupy
    except ImportError:
        cupy = None
    try:
        import torch
    except ImportError:
        torch = None
    for w, h, frames in ((64, 48, 300), (640, 360, 120)):
        proc = subprocess.Popen([producer, "serve", "semaphore", str(w), str(h), str(frames), "1"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ring, bad, n_ok = None, 0, 0
        for f in range(1, frames + 1):
            proc.stdin.write("go\n")
            proc.stdin.flush()
            line = proc.stdout.readline().strip()
            if not line:
                break
            if ring is None:
                ring = R.RingLearner(bytes.fromhex(line), importer if w == 64 else R.CudaImporter())
            with ring.acquire(bytes.fromhex(line)) as fr:
                got = fr.to_numpy()
                ok = np.array_equal(got, pattern(w, h, f))
                if ok and cupy is not None and f % 10 == 0:
                    ok = bool((cupy.asnumpy(cupy.asarray(fr)) == got).all())
                if ok and torch is not None and f % 10 == 5:
                    ok = bool((torch.from_dlpack(fr).cpu().numpy() == got).all())
                    torch.cuda.synchronize()
            bad += not ok
            n_ok += ok
        check(n_ok == frames and bad == 0,
              f"{w}x{h}: {n_ok}/{frames} frames byte-exact through CUDA (semaphore mode, lockstep"
              f"{', CuPy' if cupy else ''}{', torch' if torch else ''})")
        if ring is not None:
            ring.close()
        proc.stdin.close()
        tail = proc.stdout.read().split("\n")
        rc = proc.wait()
        check(rc == 0 and tail[0].startswith("states:") and " 3" not in tail[0],
              f"{w}x{h}: producer exit {rc}, no slot left ACTIVE ({tail[0]})")
        check(len(tail) > 1 and tail[1] == "libcuda: no", "no libcuda in the producer process")


def fakecuda(producer):
    import ctypes

    import numpy as np

    imp = R.CudaImporter()  # the stand-in, through $CRAFTGROUND_CAPTURE_LIBCUDA
    lib = imp.lib
    counts = (ctypes.c_int * 7)()

    def c():
        lib.fake_ext_counts(counts)
        return dict(zip(("imports", "sems", "waits", "freed", "depth", "bad", "retained"),
                        counts))

    raises(R.RingError, lambda: R.RingLearner(descriptor(1, 0, 1, "/nonexistent.sock"), imp),
           "no CUDA device with the game's UUID", "no CUDA device has")
    w, h, frames = 37, 23, 6
    proc = subprocess.Popen([producer, "serve", "fence", str(w), str(h), str(frames), "1"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ring, good = None, 0
    for f in range(1, frames + 1):
        proc.stdin.write("go\n")
        proc.stdin.flush()
        line = proc.stdout.readline().strip()
        if not line:
            proc.stdin.close()
            if proc.wait() == 77:
                print("SKIP python_ring_fakecuda: no Vulkan device with external memory")
                sys.exit(77)
            break
        raw = bytes.fromhex(line)
        if ring is None and not R.parse_descriptor(raw).device_uuid.startswith(b"mesa"):
            # Only Mesa's exports are memfds the stand-in can map (not NVIDIA's).
            proc.stdin.close()
            proc.wait()
            print("SKIP python_ring_fakecuda: the Vulkan device is not Mesa's")
            sys.exit(77)
        if ring is None:
            lib.fake_ext_set_uuid(R.parse_descriptor(raw).device_uuid)
            ring = R.RingLearner(raw, imp)
            check(ring.device == 1, "the device whose UUID matches (1 of 2) is chosen")
        with ring.acquire(raw) as fr:
            good += np.array_equal(fr.to_numpy(), pattern(w, h, f))
    check(good == frames, f"{good}/{frames} frames byte-exact through the ctypes CUDA calls")
    check(c()["imports"] == 3 and c()["sems"] == 0 and c()["waits"] == 0,
          f"3 memories imported once, no semaphore in fence mode: {c()}")
    ring.close()
    check(c()["freed"] == 3 and c()["depth"] == 0 and c()["bad"] == 0,
          f"close freed 3 buffers; every push popped, only the matched context: {c()}")
    proc.stdin.close()
    proc.wait()

    # Semaphore mode against the producer written here: the wait's value and stream.
    tmp = tempfile.mkdtemp(prefix="cg-zc-py-")
    os.chmod(tmp, 0o700)
    path = os.path.join(tmp, "ring.sock")
    rid = 0x77
    cfd, cmap = control_block(2, rid)
    mems = []
    for i in range(2):
        fd = os.memfd_create(f"slot{i}")
        os.write(fd, pattern(4, 2, 40 + i).tobytes())
        mems.append(fd)
    prod = FakeProducer(path, dict(ring_id=rid, slots=2, size=32, mode=R.MODE_SEMAPHORE),
                        [cfd] + mems + [os.memfd_create("sem")])
    d = descriptor(rid, 1, 41, path, mode=R.MODE_SEMAPHORE, slots=2, size=32)
    lib.fake_ext_set_uuid(bytes(range(16)))
    # A learner whose device matches but whose game is gone (what a VectorLearner meets at
    # every step while a row's game restarts) gives back the primary context it retained.
    check(c()["retained"] == 0, f"no primary context retained after close: {c()}")
    gone = descriptor(rid, 1, 41, os.path.join(tmp, "gone.sock"), mode=R.MODE_SEMAPHORE,
                      slots=2, size=32)
    for _ in range(3):
        raises(R.RingError, lambda: R.RingLearner(gone, R.CudaImporter()),
               "a ring nobody serves")
    check(c()["retained"] == 0, f"failed connects release the context they retained: {c()}")
    ring = R.RingLearner(d, imp)
    set_word(cmap, 1, 41, R.PUBLISHED)
    fr = ring.acquire(d, 77)
    stream = ctypes.c_void_p()
    lib.fake_ext_last_wait.restype = ctypes.c_ulonglong
    value = lib.fake_ext_last_wait(ctypes.byref(stream))
    check(value == 41 and stream.value == 77, f"cuWaitExternalSemaphoresAsync(value {value}, "
                                              f"stream {stream.value})")
    check(np.array_equal(fr.to_numpy(), pattern(4, 2, 41)), "slot 1 read through the fake")
    fr.release()
    ring.close()
    prod.close()
    os.rmdir(tmp)


def stdin_cuda(w, h, n):
    import numpy as np

    importer = cuda_importer_or_skip("stdin-cuda")
    print("ready", flush=True)
    ring, good = None, 0
    for f in range(1, n + 1):
        line = sys.stdin.readline().strip()
        if not line:
            break
        raw = bytes.fromhex(line)
        if ring is None:
            ring = R.RingLearner(raw, importer)
        with ring.acquire(raw) as fr:
            ok = np.array_equal(fr.to_numpy(), pattern(w, h, f))
        good += ok
        print("ok" if ok else "bad", flush=True)
    if ring is not None:
        ring.close()
    sys.exit(0 if good == n else 1)


def cuda_importer_or_skip(what):
    try:
        importer = R.CudaImporter()
        if ctypes_count(importer) == 0:
            raise R.RingError("no CUDA device")
    except (OSError, R.RingError) as e:
        print(f"SKIP {what}: {e}", file=sys.stderr)
        sys.exit(77)
    return importer


def stdin_rgb(use_cuda):
    """RingJniTest's RGB rounds: one line "DESC WANT" a frame (hex): the
    frame the descriptor names must be (H, W, 3), upright, and equal WANT
    (the Java side's RAW bytes of the same frame from
    convertCapturedFrameImpl, rows reversed). Read through llvmpipe's memfd
    (lavapipe, fence mode), or with use_cuda by the real CUDA learner
    (to_numpy on its stream, semaphore mode). Answers "ok", "bad" or "skip"
    (an fd that is not an llvmpipe memfd)."""
    imp = cuda_importer_or_skip("stdin-rgb cuda") if use_cuda else FakeImporter()
    print("ready", flush=True)
    ring = None
    for line in sys.stdin:
        parts = line.split()
        if len(parts) != 2:
            break
        raw, want = bytes.fromhex(parts[0]), bytes.fromhex(parts[1])
        d = R.parse_descriptor(raw)
        if ring is None:
            ring = R.RingLearner(raw, imp)
        with ring.acquire(raw) as fr:
            shape_ok = (fr.shape == (d.height, d.width, 3) and fr.format == R.FORMAT_RGB8 and
                        not fr.rows_bottom_up)
            if use_cuda:
                answer = "ok" if shape_ok and fr.to_numpy().tobytes() == want else "bad"
            elif imp.maps[fr.slot] is None:
                answer = "skip"
            else:
                got = imp.slot_bytes(fr.slot, len(want))
                answer = "ok" if shape_ok and got == want else "bad"
        print(answer, flush=True)
    if ring is not None:
        ring.close()
    sys.exit(0)


def run_modes(modes, doc):
    """The main of a test script of modes: run sys.argv[1]'s, print PASS or the
    failure count, exit 0/1 (2 and the usage for an unknown mode)."""
    if len(sys.argv) < 2 or sys.argv[1] not in modes:
        print(doc)
        sys.exit(2)
    modes[sys.argv[1]]()
    print("PASS" if failures == 0 else f"{failures} failures")
    sys.exit(1 if failures else 0)


def ctypes_count(importer):
    import ctypes

    n = ctypes.c_int()
    importer._call("cuDeviceGetCount", importer.lib.cuDeviceGetCount(ctypes.byref(n)))
    return n.value


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("unit", "live", "cuda", "fakecuda", "stdin-cuda",
                                                 "stdin-rgb"):
        print(__doc__)
        sys.exit(2)
    if sys.argv[1] == "unit":
        unit()
    elif sys.argv[1] == "live":
        live(sys.argv[2])
    elif sys.argv[1] == "stdin-rgb":
        stdin_rgb(sys.argv[2:] == ["cuda"])
    elif sys.argv[1] == "stdin-cuda":
        stdin_cuda(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "fakecuda":
        fakecuda(sys.argv[2])
    else:
        cuda(sys.argv[2])
    print("PASS" if failures == 0 else f"{failures} failures")
    sys.exit(1 if failures else 0)
