"""A stand-in for `test_zc_ring serve MODE W H N STEP` on a machine without
the producer's GPU: the same command line and output, the ring served from
Python (test_ring.FakeProducer: the hello and fds as docs/zero-copy-v2/protocol.md
has them), slots in memfds that the stand-in libcuda maps, on the "GPU"
whose UUID is $CG_VKT_DEVICE_UUID (the stand-in's device 0 when unset).

Frame f is the test pattern (test_ring.pattern) written into slot
(f - 1) % 3 on the host, published (lease word PUBLISHED) and its
descriptor printed in hex; with STEP=1 a line on stdin comes before each
frame. A slot still ACTIVE when its turn comes ends the run with exit 1
(lockstep: the learner released it). Then, as the real one, it serves until
stdin closes and prints "states: ..." and "libcuda: no". Test-only: it lets
test_device.py cuda (the 2-GPU machine's script) run against the stand-in.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ring as T  # noqa: E402
from craftground_capture import ring as R  # noqa: E402

SLOTS = 3


def main(argv):
    if len(argv) != 6 or argv[0] != "serve":
        print(__doc__, file=sys.stderr)
        return 2
    mode = R.MODE_SEMAPHORE if argv[1] == "semaphore" else R.MODE_FENCE
    w, h, n, step = (int(x) for x in argv[2:])
    uuid = bytes.fromhex(os.environ.get("CG_VKT_DEVICE_UUID") or "ee" * 16)
    size = w * h * 4
    tmp = tempfile.mkdtemp(prefix="cg-fake-game-")
    os.chmod(tmp, 0o700)
    rid = int.from_bytes(os.urandom(7), "little") | 1
    cfd, cmap = T.control_block(SLOTS, rid)
    fds, maps = [], []
    for i in range(SLOTS):
        fd = os.memfd_create(f"slot{i}")
        os.ftruncate(fd, size)
        fds.append(fd)
        maps.append(fd)
    if mode == R.MODE_SEMAPHORE:
        fds.append(os.memfd_create("sem"))
    path = os.path.join(tmp, "ring.sock")
    prod = T.FakeProducer(path, dict(ring_id=rid, slots=SLOTS, size=size, mode=mode), [cfd] + fds)
    rc = 0
    for f in range(1, n + 1):
        if step and not sys.stdin.readline():
            break
        slot = (f - 1) % SLOTS
        if T.get_word(cmap, slot)[0] == R.ACTIVE:
            print(f"serve: frame {f}: slot {slot} still ACTIVE", file=sys.stderr)
            rc = 1
            break
        os.pwrite(maps[slot], T.pattern(w, h, f).tobytes(), 0)
        T.set_word(cmap, slot, f, R.PUBLISHED)
        desc = bytearray(T.descriptor(rid, slot, f, path, mode=mode, slots=SLOTS, w=w, h=h,
                                      size=size))
        desc[32:48] = uuid
        print(desc.hex(), flush=True)
    for _ in sys.stdin:
        pass
    print("states: " + " ".join(str(T.get_word(cmap, i)[0]) for i in range(SLOTS)))
    print("libcuda: no", flush=True)
    prod.close()
    os.rmdir(tmp)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
