"""Checks of the learner's side of descriptor version 3 (depth and stereo
planes, docs/zero-copy-v2/protocol.md "Depth and stereo planes"):
python/craftground_capture/ring.py and vector.py.

Usage: test_planes.py unit      golden version 3 descriptors written by hand,
                                every refusal the document lists (FormatError
                                naming the field), and frames of rings served
                                from Python (the producer of test_ring.py):
                                rgb / depth / eyes shapes, strides,
                                __cuda_array_interface__ and the DLPack
                                capsule's fields, one lease for all planes;
                                a stand-in importer, no CUDA
       test_planes.py fakecuda  the same rings read through the stand-in
                                libcuda ($CRAFTGROUND_CAPTURE_LIBCUDA): the
                                planes' values against the bytes written into
                                the slots at the documented offsets, and the
                                VectorLearner's rgb and depth batches (kernel
                                and memcpy gathers, flip), rings whose planes
                                differ refused
       test_planes.py live PRODUCER
                                a real producer's rings (test_zc_ring serve
                                ... planes: fence mode, lavapipe, Mesa's
                                memfds) through the stand-in libcuda: 1 and 2
                                eyes, linear and raw depth, down/upscaled;
                                RingLearner's frame.rgb / frame.depth and
                                VectorLearner's batch / batch.depth: shapes,
                                strides, dtypes, the RGB bytes against the
                                pattern at the target size (nearest), raw
                                depth bit-exact, linear within 2 ulps of
                                docs/wire-format.md "Depth" (float64)
Exit 0 pass, 1 failure, 77 (live) without a Mesa Vulkan device with
external memory.
"""
import ctypes
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ring as T  # noqa: E402  (check, raises, the Python producer)
from craftground_capture import ring as R  # noqa: E402

check, raises = T.check, T.raises

# --- golden bytes ---------------------------------------------------------------------------

# Bytes 0..191, by hand from the table of docs/zero-copy-v2/protocol.md (the same as
# tests/vulkan/test_zc_proto.c's): version 3, length 256, format 23,
# 640x360, pitch 1920, 3 slots, mode 1, UUID 00..0f, ring id
# 0x1122334455667788, slot size SLOT (per golden), slot 2, flags 0, frame
# 0x0102030405, path "/run/x.sock".
HEAD3 = (
    "43475a32" "0300" "0001"                          # magic, version 3, length 256
    "17000000" "80020000" "68010000" "80070000"       # format 23, 640, 360, pitch 1920
    "03000000" "01000000"                             # 3 slots, mode 1
    "000102030405060708090a0b0c0d0e0f"                # device UUID
    "8877665544332211" "SLOT"                         # ring id, slot size
    "02000000" "00000000" "0504030201000000"          # slot 2, flags 0, frame
)


def golden(slot_hex, tail_hex):
    head = bytes.fromhex(HEAD3.replace("SLOT", slot_hex))
    return head + b"/run/x.sock".ljust(108, b"\0") + b"\0" * 4 + bytes.fromhex(tail_hex).ljust(
        64, b"\0")


# 1 eye, linear depth, Z_ZERO_TO_ONE, near 0.05 (cdcc4c3d), far 1000
# (00007a44): colour eye stride 691200, depth at 691200, depth eye stride
# 921600, depth pitch 2560; slot 1612800 (0x189c00).
G_LINEAR = golden("009c180000000000",
                  "01000000" "64000000" "008c0a0000000000" "008c0a0000000000" "00100e0000000000"
                  "000a0000" "01000000" "01000000" "cdcc4c3d" "00007a44")
# 2 eyes, no depth; slot 1382400 (0x151800).
G_STEREO = golden("0018150000000000", "02000000" "00000000" "008c0a0000000000")
# 2 eyes, raw depth at 1382400, depth eye stride 921600; slot 3225600 (0x313800).
G_STEREO_RAW = golden("0038310000000000",
                      "02000000" "64000000" "008c0a0000000000" "0018150000000000"
                      "00100e0000000000" "000a0000" "02000000")
# 2 eyes, linear depth, classic clip (flags 0), near 0.05, far 1000; C's layout.
G_STEREO_LINEAR = golden("0038310000000000",
                         "02000000" "64000000" "008c0a0000000000" "0018150000000000"
                         "00100e0000000000" "000a0000" "01000000" "00000000" "cdcc4c3d"
                         "00007a44")


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def goldens():
    base = dict(version=3, format=23, width=640, height=360, row_pitch=1920, slot_count=3,
                mode=1, device_uuid=bytes(range(16)), ring_id=0x1122334455667788, slot=2,
                flags=0, frame=0x0102030405, socket_path="/run/x.sock", color_eye_stride=691200)
    cases = [
        ("1 eye, linear depth", G_LINEAR,
         dict(slot_size=1612800, eyes=1, depth_format=100, depth_offset=691200,
              depth_eye_stride=921600, depth_row_pitch=2560, depth_encoding=1, depth_flags=1,
              near=f32(0.05), far=1000.0), "linear", True),
        ("2 eyes, no depth", G_STEREO,
         dict(slot_size=1382400, eyes=2, depth_format=0, depth_offset=0, depth_eye_stride=0,
              depth_row_pitch=0, depth_encoding=0, depth_flags=0, near=0.0, far=0.0),
         "none", False),
        ("2 eyes, raw depth", G_STEREO_RAW,
         dict(slot_size=3225600, eyes=2, depth_format=100, depth_offset=1382400,
              depth_eye_stride=921600, depth_row_pitch=2560, depth_encoding=2, depth_flags=0,
              near=0.0, far=0.0), "raw", False),
        ("2 eyes, linear depth", G_STEREO_LINEAR,
         dict(slot_size=3225600, eyes=2, depth_format=100, depth_offset=1382400,
              depth_eye_stride=921600, depth_row_pitch=2560, depth_encoding=1, depth_flags=0,
              near=f32(0.05), far=1000.0), "linear", False),
    ]
    for what, raw, fields, enc, z01 in cases:
        check(len(raw) == 256, f"{what}: golden is 256 bytes")
        d = R.parse_descriptor(raw)
        want = dict(base, **fields)
        got = {k: getattr(d, k) for k in want}
        bad = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
        check(not bad, f"{what}: fields" + (f" differ: {bad}" if bad else ""))
        check(d.depth_encoding_name == enc and d.z_zero_to_one == z01 and
              d.has_depth == (fields["depth_format"] == 100) and d.kind == "ring_rgb",
              f"{what}: encoding {d.depth_encoding_name}, z_zero_to_one {d.z_zero_to_one}")
        raises(R.FormatError, lambda raw=raw: R.parse_descriptor(raw[:255]), f"{what}: 255 bytes",
               "truncated")
        raises(R.FormatError, lambda raw=raw: R.parse_descriptor(raw[:192]), f"{what}: 192 bytes",
               "truncated")
    # Versions 1 and 2 read as one eye without depth.
    for name, raw in (("v1", T.GOLDEN_DESC), ("v2", T.GOLDEN_DESC_RGB)):
        d = R.parse_descriptor(raw)
        check(d.eyes == 1 and d.depth_format == 0 and not d.has_depth and d.color_eye_stride == 0
              and d.depth_encoding_name == "none", f"{name}: eyes 1, no depth plane")
    b = bytearray(G_LINEAR)
    b[190], b[250] = 0x5A, 0x5A
    check(R.parse_descriptor(bytes(b)).eyes == 1, "reserved bytes ignored")


def patch(raw, *edits):
    """edits: (offset, struct format, value)."""
    b = bytearray(raw)
    for off, fmt, val in edits:
        struct.pack_into("<" + fmt, b, off, val)
    return bytes(b)


def refusals():
    huge4 = (1 << 64) - 4
    LIN, STE, RAW = G_LINEAR, G_STEREO, G_STEREO_RAW
    bad = [
        ("length 192", LIN, [(6, "H", 192)], "length field 192"),
        ("length 257", LIN, [(6, "H", 257)], "length field 257"),
        ("format 37 (pitch 2560)", LIN, [(8, "I", 37), (20, "I", 2560)], "format 37"),
        ("ROWS_BOTTOM_UP", LIN, [(68, "I", 1)], "ROWS_BOTTOM_UP"),
        ("version 4", LIN, [(4, "H", 4)], "version 4"),
        ("eyes 0", STE, [(192, "I", 0)], "eyes 0"),
        ("eyes 3", STE, [(192, "I", 3)], "eyes 3"),
        ("depth_format 99", LIN, [(196, "I", 99)], "depth_format 99"),
        ("depth_format 101", LIN, [(196, "I", 101)], "depth_format 101"),
        ("no depth, encoding 1", STE, [(228, "I", 1)], "depth_encoding 1"),
        ("no depth, offset 4", STE, [(208, "Q", 4)], "depth_offset 4"),
        ("no depth, stride 4", STE, [(216, "Q", 4)], "depth_eye_stride 4"),
        ("no depth, pitch 2560", STE, [(224, "I", 2560)], "depth_row_pitch 2560"),
        ("no depth, flags 1", STE, [(232, "I", 1)], "depth_flags 0x1"),
        ("no depth, near 1.0", STE, [(236, "I", 0x3F800000)], "near bits 0x3f800000"),
        ("no depth, far -0.0", STE, [(240, "I", 0x80000000)], "far bits 0x80000000"),
        ("encoding 0", LIN, [(228, "I", 0)], "depth_encoding 0"),
        ("encoding 3", RAW, [(228, "I", 3)], "depth_encoding 3"),
        ("depth pitch 2556", LIN, [(224, "I", 2556)], "depth_row_pitch 2556"),
        ("depth pitch 2564", RAW, [(224, "I", 2564)], "depth_row_pitch 2564"),
        ("depth offset % 4", LIN, [(208, "Q", 691202)], "depth_offset 691202"),
        ("depth stride % 4", RAW, [(216, "Q", 921601)], "depth_eye_stride 921601"),
        ("depth stride < W*H*4", RAW, [(216, "Q", 921596)], "depth_eye_stride 921596"),
        ("linear near 0", LIN, [(236, "I", 0)], "near 0.0"),
        ("linear near -1", LIN, [(236, "I", 0xBF800000)], "near -1.0"),
        ("linear near == far", LIN, [(236, "I", 0x447A0000)], "near 1000.0, far 1000.0"),
        ("linear near > far", LIN, [(240, "I", 0x3C23D70A)], "far 0.01"),
        ("linear near NaN", LIN, [(236, "I", 0x7FC00000)], "near nan"),
        ("linear far +inf", LIN, [(240, "I", 0x7F800000)], "far inf"),
        ("raw with flag 1", RAW, [(232, "I", 1)], "depth_flags 0x1"),
        ("raw with near 0.05", RAW, [(236, "I", 0x3D4CCCCD)], "near bits 0x3d4ccccd"),
        ("raw with far -0.0", RAW, [(240, "I", 0x80000000)], "far bits 0x80000000"),
        ("depth flag bit 1", LIN, [(232, "I", 3)], "depth_flags 0x3"),
        ("depth flag bit 31", STE, [(232, "I", 0x80000000)], "depth_flags 0x80000000"),
        ("color stride < W*H*3", STE, [(200, "Q", 691199)], "color_eye_stride 691199"),
        ("RGB eyes past the slot", STE, [(56, "Q", 1382399)], "slot_size 1382399"),
        ("color stride 2^64-1", STE, [(200, "Q", (1 << 64) - 1)],
         "color_eye_stride 18446744073709551615"),
        ("depth past the slot", RAW, [(56, "Q", 3225599)], "slot_size 3225599"),
        ("1-eye depth past the slot", LIN, [(56, "Q", 1612799)], "slot_size 1612799"),
        ("depth offset 2^64-4", RAW, [(208, "Q", huge4)], "depth_offset 18446744073709551612"),
        ("depth stride 2^64-4", RAW, [(216, "Q", huge4)], "depth_eye_stride 18446744073709551612"),
        ("depth offset + stride past 2^64", RAW, [(216, "Q", (1 << 64) - 1382400)],
         "depth planes"),
        ("depth overlaps eye 1's RGB", RAW, [(208, "Q", 1382396)],
         "depth_offset 1382396 overlaps"),
        ("depth at 0", LIN, [(208, "Q", 0)], "depth_offset 0 overlaps"),
    ]
    for what, base, edits, text in bad:
        raises(R.FormatError, lambda base=base, edits=edits: R.parse_descriptor(
            patch(base, *edits)), what, text)
    allowed = [
        ("1 eye: color stride not checked", LIN, [(200, "Q", (1 << 64) - 1)]),
        ("1 eye without depth in version 3", STE, [(192, "I", 1)]),
        ("packed planes", RAW, [(56, "Q", 3225600)]),
        ("slot larger", RAW, [(56, "Q", 4000000)]),
        ("near tiny, far huge", LIN, [(236, "I", 1), (240, "I", 0x7F7FFFFF)]),
    ]
    for what, base, edits in allowed:
        try:
            R.parse_descriptor(patch(base, *edits))
            check(True, f"{what}: allowed")
        except R.FormatError as e:
            check(False, f"{what}: refused: {e}")


# --- rings served from Python -----------------------------------------------------------------

def desc3(rid, slot, frame, path, w, h, eyes, ces, size, depth=0, doff=0, des=0, near=0.0,
          far=0.0, flags=0, slots=2, mode=R.MODE_SEMAPHORE):
    """A version 3 descriptor laid out by the table (struct at the documented offsets)."""
    b = bytearray(256)
    b[0:4] = b"CGZ2"
    struct.pack_into("<HHIIIIII", b, 4, 3, 256, 23, w, h, w * 3, slots, mode)
    b[32:48] = bytes(range(16))
    struct.pack_into("<QQIIQ", b, 48, rid, size, slot, 0, frame)
    b[80:80 + len(path)] = path.encode()
    struct.pack_into("<IIQQQIIIff", b, 192, eyes, 100 if depth else 0, ces, doff, des,
                     w * 4 if depth else 0, depth, flags, near, far)
    return bytes(b)


class Ring:
    """A ring of `slots` memfd slots served from Python: slot s holds eyes
    RGB planes (random bytes) at e * ces and depth planes (random floats) at
    doff + e * des; rgb[s][e], dep[s][e] are what was written."""

    def __init__(self, tmp, rid, w, h, eyes, ces, size, depth=0, doff=0, des=0, seed=1, slots=2,
                 near=0.5, far=100.0):
        import numpy as np

        rng = np.random.default_rng(seed)
        self.rid, self.w, self.h, self.eyes = rid, w, h, eyes
        self.kw = dict(w=w, h=h, eyes=eyes, ces=ces, size=size, depth=depth, doff=doff, des=des,
                       near=near if depth == R.DEPTH_LINEAR else 0.0,
                       far=far if depth == R.DEPTH_LINEAR else 0.0, slots=slots)
        self.path = os.path.join(tmp, f"ring{rid:x}.sock")
        cfd, self.cmap = T.control_block(slots, rid)
        fds, self.rgb, self.dep = [], [], []
        for s in range(slots):
            buf = bytearray(rng.integers(0, 256, size, dtype=np.uint8).tobytes())  # junk between
            rgb = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for _ in range(eyes)]
            dep = [rng.random((h, w), dtype=np.float32) for _ in range(eyes)]
            for e in range(eyes):
                buf[e * ces:e * ces + w * h * 3] = rgb[e].tobytes()
                if depth:
                    o = doff + e * des
                    buf[o:o + w * h * 4] = dep[e].astype("<f4").tobytes()
            fd = os.memfd_create(f"slot{s}")
            os.write(fd, bytes(buf))
            fds.append(fd)
            self.rgb.append(rgb)
            self.dep.append(dep)
        self.prod = T.FakeProducer(self.path, dict(ring_id=rid, slots=slots, size=size,
                                                   mode=R.MODE_SEMAPHORE),
                                   [cfd] + fds + [os.memfd_create("sem")])

    def desc(self, slot, frame, publish=True):
        if publish and frame:
            T.set_word(self.cmap, slot, frame, R.PUBLISHED)
        return desc3(self.rid, slot, frame, self.path, **self.kw)

    def close(self):
        self.prod.close()


def capsule_fields(cap):
    """(dtype code, bits, shape, strides or None, data) of a "dltensor" capsule."""
    from craftground_capture import cuda_ipc as C

    get = ctypes.PyDLL(None).PyCapsule_GetPointer  # its own prototype, not the package's
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    t = C._DLManagedTensor.from_address(get(cap, b"dltensor")).dl_tensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = None if not t.strides else tuple(t.strides[i] for i in range(t.ndim))
    return t.dtype.code, t.dtype.bits, shape, strides, t.data


# 5x3 target: 45 bytes of RGB, 60 of depth an eye. "padded": the producer's
# layout (cg_zc_planes_layout: 256-byte plane offsets); "packed": planes
# back to back (eye strides equal the plane sizes, depth at the next multiple
# of 4 after the RGB).
W, H = 5, 3
LAYOUTS = {
    "padded": dict(ces=256, doff=512, des=256, size=1024),
    "packed": dict(ces=45, doff=92, des=60, size=212),
}


def planes_unit(tmp):
    for name, lay in LAYOUTS.items():
        ring = Ring(tmp, 0x300 + len(name), W, H, 2, lay["ces"], lay["size"],
                    depth=R.DEPTH_LINEAR, doff=lay["doff"], des=lay["des"])
        imp = T.FakeImporter()
        lr = R.RingLearner(ring.desc(0, 0), imp)
        base = lr._memories[1][1]
        f = lr.acquire(ring.desc(1, 5), 7)
        packed = name == "packed"
        want_rgb_strides = None if packed else (256, 15, 3, 1)
        want_dep_strides = None if packed else (256, 20, 4)
        cai = f.rgb.__cuda_array_interface__
        check(f.eyes == 2 and f.rgb is f and cai["shape"] == (2, H, W, 3) and
              cai["typestr"] == "|u1" and cai["strides"] == want_rgb_strides and
              cai["data"][0] == base and cai["stream"] == 7,
              f"{name}: frame.rgb (2, 3, 5, 3) uint8 at the slot, strides {cai['strides']}")
        dp = f.depth
        cai = dp.__cuda_array_interface__
        check(cai["shape"] == (2, H, W) and cai["typestr"] == "<f4" and
              cai["strides"] == want_dep_strides and cai["data"][0] == base + lay["doff"] and
              cai["stream"] == 7 and dp.nbytes == 2 * H * W * 4,
              f"{name}: frame.depth (2, 3, 5) float32 at depth_offset, strides {cai['strides']}")
        check(dp.encoding == "linear" and dp.near == 0.5 and dp.far == 100.0 and
              not dp.z_zero_to_one, f"{name}: the depth plane's encoding, near, far")
        code, bits, shape, strides, data = capsule_fields(dp.__dlpack__())
        check((code, bits, shape, data) == (2, 32, (2, H, W), base + lay["doff"]) and
              strides == (None if packed else (64, 5, 1)),
              f"{name}: depth DLPack float32 (2, 3, 5), element strides {strides}")
        code, bits, shape, strides, data = capsule_fields(f.__dlpack__())
        check((code, bits, shape, data) == (1, 8, (2, H, W, 3), base) and
              strides == (None if packed else (256, 15, 3, 1)),
              f"{name}: rgb DLPack uint8 (2, 3, 5, 3), element strides {strides}")
        n = len(imp.calls)
        dp.__dlpack__(stream=9)
        check(imp.calls[n:] == [("order", 7, 9)], "depth __dlpack__(stream=9) orders stream 9")
        check(f.depth is dp, "one depth plane object per frame")
        f.release()
        check(T.get_word(ring.cmap, 1) == (R.RELEASED, 5) and
              [c[0] for c in imp.calls].count("synchronize") == 1,
              f"{name}: one release (one synchronize) gives back the slot of every plane")
        raises(ValueError, lambda: dp.__cuda_array_interface__, f"{name}: depth after release",
               "released")
        lr.close()
        ring.close()
    # One eye with raw depth: (H, W, 3) and (H, W), no eye axis.
    ring = Ring(tmp, 0x310, W, H, 1, 256, 512, depth=R.DEPTH_RAW, doff=256, des=256)
    lr = R.RingLearner(ring.desc(0, 0), T.FakeImporter())
    with lr.acquire(ring.desc(0, 3)) as f:
        check(f.eyes == 1 and f.shape == (H, W, 3) and f.__cuda_array_interface__["strides"] is
              None and f.depth.shape == (H, W) and f.depth.__cuda_array_interface__["strides"]
              is None and f.depth.encoding == "raw" and f.depth.near == 0.0,
              "1 eye, raw depth: (3, 5, 3) and (3, 5), dense")
    lr.close()
    ring.close()
    # A version 2 ring: today's frame, rgb is the frame, no depth.
    cfd, cmap = T.control_block(2, 0x320)
    path = os.path.join(tmp, "v2.sock")
    prod = T.FakeProducer(path, dict(ring_id=0x320, slots=2, size=64, mode=R.MODE_SEMAPHORE),
                          [cfd, os.memfd_create("a"), os.memfd_create("b"),
                           os.memfd_create("sem")])
    d = T.descriptor(0x320, 1, 4, path, mode=R.MODE_SEMAPHORE, slots=2, fmt=R.FORMAT_RGB8)
    T.set_word(cmap, 1, 4, R.PUBLISHED)
    lr = R.RingLearner(d, T.FakeImporter())
    with lr.acquire(d) as f:
        check(f.eyes == 1 and f.rgb is f and f.depth is None and f.shape == (2, 4, 3),
              "version 2: eyes 1, rgb is the frame (2, 4, 3), depth None")
    lr.close()
    prod.close()


def unit():
    goldens()
    refusals()
    tmp = tempfile.mkdtemp(prefix="cg-zc-planes-")
    os.chmod(tmp, 0o700)
    try:
        planes_unit(tmp)
    finally:
        os.rmdir(tmp)


# --- through the stand-in libcuda ----------------------------------------------------------------

def fakecuda():
    import numpy as np

    from craftground_capture import vector as V

    lib = R.CudaImporter().lib
    lib.fake_ext_set_uuid(bytes(range(16)))
    tmp = tempfile.mkdtemp(prefix="cg-zc-planes-")
    os.chmod(tmp, 0o700)
    for name, lay in LAYOUTS.items():
        rings = [Ring(tmp, 0x400 + 16 * k + len(name), W, H, 2, lay["ces"], lay["size"],
                      depth=R.DEPTH_LINEAR, doff=lay["doff"], des=lay["des"], seed=10 + k)
                 for k in range(2)]
        lr = R.RingLearner(rings[0].desc(0, 0))
        with lr.acquire(rings[0].desc(1, 3), 5) as f:
            got, dep = f.rgb.to_numpy(), f.depth.to_numpy()
            check(got.shape == (2, H, W, 3) and np.array_equal(got, np.stack(rings[0].rgb[1])),
                  f"{name}: frame.rgb's values are the slot's two RGB planes")
            check(dep.dtype == np.float32 and dep.shape == (2, H, W) and
                  np.array_equal(dep, np.stack(rings[0].dep[1])),
                  f"{name}: frame.depth's values are the slot's two depth planes")
        lr.close()
        for gather in ("kernel", "memcpy"):
            for flip in (None, True):
                vec = V.VectorLearner([r.desc(0, 0) for r in rings], gather=gather, flip=flip)
                tag = f"{name} [{gather}{', flip' if flip else ''}]"
                frame = 20 + 2 * (gather == "memcpy") + (flip is True)
                b = vec.step([rings[0].desc(1, frame), rings[1].desc(0, frame)], stream=3)
                want = np.stack([np.stack(rings[0].rgb[1]), np.stack(rings[1].rgb[0])])
                wdep = np.stack([np.stack(rings[0].dep[1]), np.stack(rings[1].dep[0])])
                if flip:
                    want, wdep = want[:, :, ::-1], wdep[:, :, ::-1]
                check(vec.gather == gather and b.shape == (2, 2, H, W, 3) and b.rgb is b and
                      np.array_equal(b.to_numpy(), want),
                      f"{tag}: rgb batch (2, 2, 3, 5, 3), each eye of each ring")
                dcai = b.depth.__cuda_array_interface__
                check(b.depth is b.depth_batch and dcai["shape"] == (2, 2, H, W) and
                      dcai["typestr"] == "<f4" and dcai["strides"] is None and
                      dcai["stream"] == 3 and np.array_equal(b.depth.to_numpy(), wdep),
                      f"{tag}: depth batch (2, 2, 3, 5) float32, each eye's floats")
                code, bits, shape, strides, _ = capsule_fields(b.depth.__dlpack__())
                check((code, bits, shape, strides) == (2, 32, (2, 2, H, W), None),
                      f"{tag}: depth batch DLPack float32 (2, 2, 3, 5), compact")
                vec.close()
                check(T.get_word(rings[0].cmap, 1) == (R.RELEASED, frame),
                      f"{tag}: the lease went back")
        for r in rings:
            r.close()
    # Rings whose planes differ are refused, naming what differs.
    a = Ring(tmp, 0x500, W, H, 2, 256, 1024, depth=R.DEPTH_LINEAR, doff=512, des=256)
    b1 = Ring(tmp, 0x501, W, H, 1, 256, 512, depth=R.DEPTH_LINEAR, doff=256, des=256)
    b2 = Ring(tmp, 0x502, W, H, 2, 256, 512)
    b3 = Ring(tmp, 0x503, W, H, 2, 256, 1024, depth=R.DEPTH_RAW, doff=512, des=256)
    for other, text in ((b1, "eyes 1, ring 0 2"), (b2, "depth none, ring 0 linear"),
                        (b3, "depth raw, ring 0 linear")):
        raises(R.RingError, lambda other=other: V.VectorLearner([a.desc(0, 0), other.desc(0, 0)]),
               f"a ring with other planes: {text}", text)
    # 12-byte rows (words possible) but an eye stride of 37: eye 1 starts
    # unaligned, so the launch moves bytes (the kernel's 7th argument, words, is 0).
    u = Ring(tmp, 0x505, 4, 3, 2, 37, 76, seed=31)
    vec = V.VectorLearner([u.desc(0, 0)], gather="kernel")
    launches = []
    real = vec._api.launch
    vec._api.launch = lambda fn, grid, params, s: (
        launches.append(ctypes.c_uint32.from_address(params[6]).value),
        real(fn, grid, params, s))
    bt = vec.step([u.desc(1, 4)])
    check(launches == [0] and np.array_equal(bt.to_numpy()[0], np.stack(u.rgb[1])),
          f"eye stride 37: one byte-wise launch (words {launches}), both eyes exact")
    vec.close()
    u.close()
    # One eye with depth: (N, H, W, 3) and (N, H, W).
    c = Ring(tmp, 0x504, W, H, 1, 256, 512, depth=R.DEPTH_RAW, doff=256, des=256, seed=30)
    vec = V.VectorLearner([c.desc(0, 0)])
    bt = vec.step([c.desc(1, 9)])
    check(bt.shape == (1, H, W, 3) and bt.depth.shape == (1, H, W) and
          np.array_equal(bt.to_numpy()[0], c.rgb[1][0]) and
          np.array_equal(bt.depth.to_numpy()[0], c.dep[1][0]),
          "1 eye, raw depth: batches (1, 3, 5, 3) and (1, 3, 5) hold the slot's planes")
    vec.close()
    for r in (a, b1, b2, b3, c):
        r.close()
    os.rmdir(tmp)


# --- a real producer (test_zc_ring serve ... planes, fence mode, lavapipe) ---------------------

# (source W, H, target W, H, eyes, encoding, near, far, zZeroToOne, gather):
# down- and upscaled, 1 and 2 eyes, linear (both clip conventions) and raw.
LIVE = [
    (37, 23, 16, 11, 1, "linear", 0.05, 1000.0, 1, "kernel"),
    (33, 20, 47, 29, 2, "linear", 0.1, 100.0, 0, "memcpy"),
    (41, 23, 19, 29, 2, "raw", 0, 0, 0, "kernel"),
    (24, 16, 24, 16, 1, "raw", 0, 0, 0, "memcpy"),
]


def nearest(img, tw, th):
    """Slot pixel (x, Y) of docs/zero-copy-v2/protocol.md "The RGB slot format" (and
    "Sampling" for depth) from image img (row 0 first in memory), flip 1."""
    import numpy as np

    sh, sw = img.shape[:2]
    Y, x = np.mgrid[0:th, 0:tw]
    sy = (th - 1 - Y) * sh // th
    return img[sh - 1 - sy, x * sw // tw]


def serve_depth(w, h, f, eye):
    """tests/vulkan/depth_ref.h's depth_serve_pattern, written again here:
    the raw depth image (h, w) float32 of eye `eye` of frame f."""
    import numpy as np

    m = 0xFFFFFFFF
    y, x = np.mgrid[0:h, 0:w].astype(np.uint64)
    k = ((x * 73856093) & m) ^ ((y * 19349663) & m) ^ (((2 * f + eye) * 83492791) & m)
    k ^= k >> 13
    k = (k * 0x5BD1E995) & m
    k ^= k >> 15
    m = k % 16
    bits = np.where(m == 0, 0, np.where(m == 1, 0x3F800000, k % 0x3F800001))
    uniform = (k >> 8).astype(np.float64) / 2.0**24  # exact in float32 (24 bits)
    return np.where(m >= 8, uniform, bits.astype(np.uint32).view(np.float32)).astype(np.float32)


def linear_ref(d, n, f, z01):
    """docs/wire-format.md "Depth" in float64 (numpy), then float32."""
    import numpy as np

    d, n, f = d.astype(np.float64), np.float64(n), np.float64(f)
    z = n * f / (n + d * (f - n)) if z01 else 2 * n * f / (n + f + (2 * d - 1) * (f - n))
    return (z / f).astype(np.float32)


def ulps(got, want):
    """Float distance of float32 arrays (anything negative or not finite: 2^32)."""
    import numpy as np

    g = got.view(np.uint32).astype(np.int64)
    w = want.view(np.uint32).astype(np.int64)
    bad = ~np.isfinite(got) | (got < 0)
    return np.where(bad, 1 << 32, np.abs(g - w))


def oracle(cfg, f):
    """Frame f's planes as the slot must hold them: rgb (eyes, th, tw, 3)
    uint8, raw depth (eyes, th, tw) float32, or None without depth."""
    import numpy as np

    sw, sh, tw, th, eyes, enc = cfg[:6]
    rgb = np.stack([nearest(T.pattern(sw, sh, 2 * f + e)[:, :, :3], tw, th) for e in range(eyes)])
    raw = None if enc == "none" else np.stack(
        [nearest(serve_depth(sw, sh, f, e), tw, th) for e in range(eyes)])
    return rgb, raw


def depth_ok(cfg, got, raw, what):
    """raw: bit-exact; linear: <= 2 float ulps of the formula."""
    import numpy as np

    enc, n, far, z01 = cfg[5:9]
    if enc == "raw":
        same = got.view(np.uint32) == raw.view(np.uint32)
        check(bool(same.all()), f"{what}: raw depth bit-exact ({int((~same).sum())} differ)")
        return
    u = ulps(got, linear_ref(raw, np.float32(n), np.float32(far), z01))
    check(int(u.max()) <= 2, f"{what}: linear depth within {int(u.max())} ulps of the formula "
                             f"(<= 2; {int((u > 2).sum())} beyond)")


def live_layout(cfg):
    """The producer's plane layout (docs/zero-copy-v2/protocol.md, cg_zc_planes_layout)."""
    def up(v, a):
        return (v + a - 1) // a * a

    tw, th, eyes = cfg[2], cfg[3], cfg[4]
    ces = up(up(tw * th * 3, 12), 256)
    des = up(tw * th * 4, 256)
    return ces, eyes * ces, des


def live_config(producer, lib, cfg, use_cuda=False):
    """One configuration; use_cuda: the real driver and the producer in
    semaphore mode (the GPU machine), else the stand-in and fence mode."""
    import numpy as np

    import test_vector as TV
    from craftground_capture import vector as V

    sw, sh, tw, th, eyes, enc, n, far, z01, gather = cfg
    extra = ["planes", eyes, enc, tw, th] + ([n, far, z01] if enc == "linear" else [])
    tag = f"{sw}x{sh} -> {tw}x{th}, {eyes} eye{'s' if eyes > 1 else ''}, {enc}"
    ces, doff, des = live_layout(cfg)
    lead = (eyes,) if eyes > 1 else ()
    want_rgb = (lead + (th, tw, 3), None if eyes == 1 or ces == tw * th * 3 else
                (ces, tw * 3, 3, 1))
    want_dep = (lead + (th, tw), None if eyes == 1 or des == tw * th * 4 else (des, tw * 4, 4))

    mode = "semaphore" if use_cuda else "fence"
    # Streams: the stand-in's are tags; the real driver's default stream is 0.
    s_ring, s_vec = (0, 0) if use_cuda else (5, 3)
    # RingLearner: frames 1..3 of one producer.
    game = TV.Game(producer, sw, sh, mode=mode, extra=extra)
    raw = game.go()
    d = R.parse_descriptor(raw)
    if use_cuda:
        pass
    elif not d.device_uuid.startswith(b"mesa"):
        game.close()
        print("SKIP python_planes_live: the Vulkan device is not Mesa's (the stand-in maps only "
              "its memfds)")
        sys.exit(77)
    else:
        lib.fake_ext_set_uuid(d.device_uuid)
    check(len(raw) == 256 and d.version == 3 and d.format == R.FORMAT_RGB8 and d.eyes == eyes and
          (d.width, d.height) == (tw, th) and d.depth_encoding_name == enc and
          d.color_eye_stride == ces and d.depth_offset == doff and d.depth_eye_stride == des and
          d.depth_row_pitch == tw * 4 and d.near == np.float32(n) and d.far == np.float32(far) and
          d.z_zero_to_one == bool(z01),
          f"{tag}: the descriptor (version 3, {d.eyes} eyes, {d.depth_encoding_name}, strides "
          f"{d.color_eye_stride}/{d.depth_eye_stride}, depth at {d.depth_offset})")
    ring = R.RingLearner(raw, R.CudaImporter())
    for f in range(1, 4):
        raw = raw if f == 1 else game.go()
        with ring.acquire(raw, s_ring) as fr:
            rgb, dep = fr.rgb, fr.depth
            rc, dc = rgb.__cuda_array_interface__, dep.__cuda_array_interface__
            check(fr.eyes == eyes and (rc["shape"], rc["strides"]) == want_rgb and
                  rc["typestr"] == "|u1" and (dc["shape"], dc["strides"]) == want_dep and
                  dc["typestr"] == "<f4" and dep.encoding == enc,
                  f"{tag} frame {f}: rgb {rc['shape']} {rc['typestr']} strides {rc['strides']}, "
                  f"depth {dc['shape']} {dc['typestr']} strides {dc['strides']}")
            got, gdep = rgb.to_numpy(), dep.to_numpy()
            want, wraw = oracle(cfg, f)
            if eyes == 1:
                want, wraw = want[0], wraw[0]
            differ = int((got != want).sum()) if got.shape == want.shape else got.shape
            check(got.dtype == np.uint8 and gdep.dtype == np.float32 and
                  np.array_equal(got, want),
                  f"{tag} frame {f}: frame.rgb is the pattern 2f + e at the target size (nearest)"
                  f" ({differ} differ)")
            depth_ok(cfg, gdep, wraw, f"{tag} frame {f}: frame.depth")
    ring.close()
    game.proc.stdin.close()
    tail = game.proc.stdout.read().split("\n")
    rc = game.proc.wait()
    check(rc == 0 and tail[0] == "states: 4 4 4" and tail[1] == "libcuda: no",
          f"{tag}: the producer exits 0, every slot RELEASED, no libcuda ({tail[:2]}, exit {rc})")

    # VectorLearner: two producers, ring 0 a frame ahead of ring 1.
    games = [TV.Game(producer, sw, sh, mode=mode, extra=extra) for _ in range(2)]
    games[0].go()
    descs = [g.go() for g in games]
    vec = V.VectorLearner(descs, gather=gather)
    for step in range(2):
        if step:
            descs = [g.go() for g in games]
        b = vec.step(descs, stream=s_vec)
        frames = [g.frame for g in games]
        rgbs, raws = zip(*(oracle(cfg, f) for f in frames))
        want, wraw = np.stack(rgbs), np.stack(raws)
        if eyes == 1:
            want, wraw = want[:, 0], wraw[:, 0]
        bc, dc = b.__cuda_array_interface__, b.depth.__cuda_array_interface__
        shp = (2,) + lead
        check(vec.gather == gather and b.rgb is b and bc["shape"] == shp + (th, tw, 3) and
              bc["typestr"] == "|u1" and bc["strides"] is None and
              dc["shape"] == shp + (th, tw) and dc["typestr"] == "<f4" and dc["strides"] is None,
              f"{tag} [{vec.gather}] step {step + 1}: batch {bc['shape']} {bc['typestr']}, "
              f"batch.depth {dc['shape']} {dc['typestr']}, compact")
        got, gdep = b.to_numpy(), b.depth.to_numpy()
        check(b.frames == tuple(frames) and np.array_equal(got, want),
              f"{tag} [{vec.gather}] step {step + 1}: batch rows hold frames {b.frames} "
              f"(want {tuple(frames)}), each eye's pattern")
        depth_ok(cfg, gdep, wraw, f"{tag} [{vec.gather}] step {step + 1}: batch.depth")
    vec.close()
    for g in games:
        check(g.close() == 0, f"{tag}: a vector producer exits 0")


def live(producer):
    lib = R.CudaImporter().lib  # the stand-in, through $CRAFTGROUND_CAPTURE_LIBCUDA
    for cfg in LIVE:
        live_config(producer, lib, cfg)


def cuda(producer):
    """The same against the real CUDA driver, the producer in semaphore mode
    (the GPU machine); 77 without a driver or a device."""
    try:
        importer = R.CudaImporter()
        if T.ctypes_count(importer) == 0:
            raise R.RingError("no CUDA device")
    except (OSError, R.RingError) as e:
        print(f"SKIP python_planes_cuda: no CUDA driver or device here: {e}")
        sys.exit(77)
    for cfg in LIVE:
        live_config(producer, importer.lib, cfg, use_cuda=True)


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("unit", "fakecuda", "live", "cuda"):
        print(__doc__)
        sys.exit(2)
    globals()[sys.argv[1]](*sys.argv[2:])
    print("PASS" if T.failures == 0 else f"{T.failures} failures")
    sys.exit(1 if T.failures else 0)
