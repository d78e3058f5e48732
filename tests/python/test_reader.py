"""Checks of the Python reader (python/craftground_capture) against the
library's own output and independent oracles.

Usage: test_reader.py unit            no files needed: the PNG decoder on
                                      every filter, the protobuf decoder on
                                      hand-made messages, DLPack export on
                                      host memory, the handle layout, errors
       test_reader.py frames DIR      files of ReaderFrames.java frames
       test_reader.py depth DIR       files of ReaderFrames.java depth
Exit 0 pass, 1 failure, 77 when what the check needs is missing.

Expected images are computed here: the known top-down pattern and the
nearest-neighbour mapping of consumer_check.py; expected depth from the eye
distances of the quads ReaderFrames drew; expected message fields from the
formula ReaderFrames used.
"""
import ctypes
import gc
import os
import struct
import sys
import zlib

import numpy as np

import craftground_capture as cc
from craftground_capture import _cuda, cuda_ipc

try:
    from PIL import Image
except ImportError:
    Image = None

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def raises(exc, fn, what, texts=(), absent=()):
    """fn() raises exc (or a subclass) whose message holds every one of texts
    and none of absent; returns the exception (None when it did not)."""
    try:
        fn()
    except exc as e:
        missing = [t for t in texts if t not in str(e)]
        present = [t for t in absent if t in str(e)]
        check(not missing and not present, f"{what}: {type(e).__name__}: {e}"
              + (f" (lacks {missing})" if missing else "")
              + (f" (holds {present})" if present else ""))
        return e
    except Exception as e:  # the wrong kind is a failure too
        check(False, f"{what}: {type(e).__module__}.{type(e).__name__} instead of "
                     f"{exc.__name__}: {e}")
        return None
    check(False, f"{what}: no {exc.__name__}")
    return None


# --- independent helpers ---------------------------------------------------

COLOUR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type


def png_chunk(t, body):
    return struct.pack(">I", len(body)) + t + body + struct.pack(">I", zlib.crc32(t + body))


def png_file(w, h, c, idat):
    """Signature, IHDR (8-bit, c channels), the IDAT chunks given, IEND."""
    ihdr = struct.pack(">IIBBBBB", w, h, 8, COLOUR_TYPE[c], 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
            + b"".join(png_chunk(b"IDAT", d) for d in idat) + png_chunk(b"IEND", b""))


def encode_png(img, filters):
    """A minimal PNG encoder for the tests: row y uses filter filters[y % n].
    img (H, W, C) uint8, C 1 to 4. Written from the PNG specification."""
    h, w, c = img.shape
    bpp, rows = c, []
    prev = np.zeros(w * c, np.int32)
    for y in range(h):
        cur = img[y].reshape(-1).astype(np.int32)
        left = np.concatenate([np.zeros(bpp, np.int32), cur[:-bpp]])
        upleft = np.concatenate([np.zeros(bpp, np.int32), prev[:-bpp]])
        f = filters[y % len(filters)]
        if f == 0:
            out = cur
        elif f == 1:
            out = cur - left
        elif f == 2:
            out = cur - prev
        elif f == 3:
            out = cur - (left + prev) // 2
        else:
            p = left + prev - upleft
            pa, pb, pc = abs(p - left), abs(p - prev), abs(p - upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
            out = cur - pred
        rows.append(bytes([f]) + (out & 255).astype(np.uint8).tobytes())
        prev = cur
    return png_file(w, h, c, [zlib.compress(b"".join(rows), 6)])


def png_filters_used(data):
    """Filter byte of every row (8-bit, non-interlaced PNG)."""
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, t = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if t == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif t == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, _, ctype, *_ = ihdr
    stride = w * {0: 1, 4: 2, 2: 3, 6: 4}[ctype] + 1
    raw = zlib.decompress(idat)
    return {raw[y * stride] for y in range(h)}


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(num, wire, payload):
    return varint(num << 3 | wire) + payload


def ld(num, data):
    return field(num, 2, varint(len(data)) + data)


# --- the PNG decoder's Average/Paeth paths, its inflate, the keyword sizes ----

def png_filters_both_ways(rng):
    """Every filter, mixed per row at random, through both ways the decoder
    undoes Average and Paeth rows (a row at a time with a per-byte loop, or
    a diagonal at a time) and through decode_png's own choice, at shapes
    that reach the edges: one row or column, strips of rows (the diagonal
    way works in strips of `width` rows, at least 64), Average/Paeth rows
    only in the middle. The oracle is the image itself (the test encoder
    writes it from the specification; PIL reads the encoder's output)."""
    from craftground_capture import png as cpng
    for h, w, c, how in [(1, 1, 3, "all"), (1, 40, 3, "all"), (40, 1, 4, "all"), (5, 300, 3, "all"),
                         (200, 3, 3, "all"), (150, 70, 4, "all"), (23, 31, 1, "all"),
                         (29, 17, 2, "all"), (90, 64, 3, "middle"), (64, 90, 3, "one")]:
        img = rng.integers(0, 256, (h, w, c), dtype=np.uint8)
        img[h // 2:] = (np.arange(w)[None, :, None] * 7 + np.arange(c) * 40) & 255  # smooth half
        if how == "all":
            filters = list(rng.integers(0, 5, h))
        elif how == "middle":  # 0-2 above and below, 3/4 in rows 30..59
            filters = [int(f) if 30 <= y < 60 else int(f) % 3
                       for y, f in enumerate(rng.integers(0, 5, h))]
        else:  # a single Paeth row among Sub/Up rows
            filters = [4 if y == 40 else 1 + y % 2 for y in range(h)]
        png = encode_png(img, filters)
        tag = f"{h}x{w}x{c}, filters {how} ({sorted(png_filters_used(png))})"
        if Image is not None and c in (3, 4):
            import io
            check(np.array_equal(np.asarray(Image.open(io.BytesIO(png))), img),
                  f"PIL reads the test encoder's PNG {tag}")
        got = cc.decode_png(png)
        check(got.shape == img.shape and np.array_equal(got, img), f"decode_png {tag}")
        stride = w * c + 1
        rows = np.frombuffer(zlib.decompress(png_idat(png)), np.uint8).reshape(h, stride)
        for method in ("rows", "diagonal"):
            got = np.asarray(cpng._unfilter(rows, w, c, method))
            check(np.array_equal(got, img), f"unfilter a {method.rstrip('s')} at a time: {tag}")
    if Image is not None:  # PIL's own encoder picks a filter per row
        import io
        y, x = np.mgrid[0:300, 0:333]
        img = np.stack([(x * 3 + y) & 255, (x * y // 64) & 255, (x ^ y) & 255], axis=2)
        img = (img + rng.integers(0, 3, img.shape)).astype(np.uint8)
        buf = io.BytesIO()
        Image.fromarray(img).save(buf, "PNG")
        used = sorted(png_filters_used(buf.getvalue()))
        check(np.array_equal(cc.decode_png(buf.getvalue()), img),
              f"decode_png reads PIL's 333x300 PNG (filters {used})")


def png_idat(data):
    """The IDAT bytes of a PNG, joined."""
    pos, out = 8, b""
    while pos < len(data):
        n, t = struct.unpack(">I4s", data[pos:pos + 8])
        if t == b"IDAT":
            out += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    return out


def png_bounded_inflate():
    """A 261 KB PNG with a small IHDR whose IDAT inflates to 256 MiB of zeros
    (the size in the issue) is refused as soon as the data passes what IHDR
    needs: peak memory of the decode (tracemalloc, which sees numpy's and
    zlib's allocations) stays near the image, not near 256 MiB."""
    import tracemalloc
    c = zlib.compressobj(9)
    zeros = bytes(1 << 20)
    bomb = b"".join(c.compress(zeros) for _ in range(256)) + c.flush()
    del zeros
    for w, h in ((1, 1), (300, 200)):
        data = png_file(w, h, 3, [bomb[i:i + 65536] for i in range(0, len(bomb), 65536)])
        need = h * (w * 3 + 1)
        tracemalloc.start()
        try:
            raises(cc.FormatError, lambda: cc.decode_png(data),
                   f"{len(data)}-byte PNG, IHDR {w}x{h}, IDAT inflating to 256 MiB",
                   ("IDAT", "IHDR"))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        limit = 2 * len(data) + 3 * need + (1 << 20)
        check(peak < limit, f"  peak memory {peak} bytes < {limit} (input twice, the image "
              f"thrice, 1 MiB; the IDAT inflates to {256 << 20})")
    # Just past and just short of what IHDR needs; the exact size reads.
    img = np.arange(5 * 4 * 3, dtype=np.uint8).reshape(5, 4, 3)
    raw = b"".join(b"\0" + img[y].tobytes() for y in range(5))
    check(np.array_equal(cc.decode_png(png_file(4, 5, 3, [zlib.compress(raw)])), img),
          "IDAT of exactly IHDR's size reads")
    raises(cc.FormatError, lambda: cc.decode_png(png_file(4, 5, 3, [zlib.compress(raw + b"\0")])),
           "IDAT one byte longer than IHDR's 4x5 needs", ("IDAT", "more than the 65 bytes"))
    raises(cc.FormatError, lambda: cc.decode_png(png_file(4, 5, 3, [zlib.compress(raw[:-1])])),
           "IDAT one byte shorter", ("IDAT", "64 bytes", "needs 65"))
    z = zlib.compress(raw)
    raises(cc.FormatError, lambda: cc.decode_png(png_file(4, 5, 3, [z[:len(z) // 2]])),
           "IDAT cut in the middle of its zlib stream", ("IDAT", "truncated"))
    raises(cc.FormatError, lambda: cc.decode_png(png_file(4, 5, 3, [z[:-2]])),
           "IDAT without the end of its checksum", ("IDAT", "truncated"))
    raises(cc.FormatError, lambda: cc.decode_png(png_file(4, 5, 3, [z[:2] + b"\xff" * 20])),
           "IDAT of bad deflate data", ("IDAT", "zlib"))
    raises(cc.FormatError, lambda: cc.decode_png(png_file(4, 5, 3, [])), "no IDAT", ("no IDAT",))
    split = png_file(4, 5, 3, [z[i:i + 3] for i in range(0, len(z), 3)])
    check(np.array_equal(cc.decode_png(split), img), "IDAT split into 3-byte chunks reads")
    bad = b"".join(bytes([5 if y == 3 else 0]) + img[y].tobytes() for y in range(5))
    raises(cc.FormatError, lambda: cc.decode_png(png_file(4, 5, 3, [zlib.compress(bad)])),
           "filter type 5", ("filter type 5 on row 3",))


def sizes_keyword_only():
    """image_to_array, raw_to_array and depth_to_array take the size by
    keyword only: a RAW frame of W x H has the length of one of H x W, so
    swapped positional sizes gave a garbled array without an error."""
    w, h = 4, 3
    raw = bytes(range(w * h * 3))
    want = np.frombuffer(raw, np.uint8).reshape(h, w, 3)[::-1]
    check(np.array_equal(cc.image_to_array(raw, width=w, height=h), want),
          "image_to_array(width=, height=)")
    check(np.array_equal(cc.image_to_array(raw, height=h, width=w), want),
          "keywords in either order")
    for name, fn in (("image_to_array", lambda: cc.image_to_array(raw, h, w)),
                     ("image_to_array, one size", lambda: cc.image_to_array(raw, w, height=h)),
                     ("raw_to_array", lambda: cc.raw_to_array(raw, h, w)),
                     ("depth_to_array", lambda: cc.depth_to_array([0.0] * 12, h, w))):
        raises(TypeError, fn, f"{name} with a positional size", ("width=W, height=H",))
    raises(cc.FormatError, lambda: cc.image_to_array(raw, width=w, height=h + 1),
           "RAW of the wrong length names both sizes", ("width 4, height 4", "48 bytes, got 36"))
    raises(cc.FormatError, lambda: cc.depth_to_array([0.0] * 11, width=w, height=h),
           "depth of the wrong length", ("12 floats, got 11",))
    png = encode_png(np.zeros((h, w, 3), np.uint8), [1])
    raises(cc.FormatError, lambda: cc.image_to_array(png, width=h, height=w),
           "PNG of another size than asked", ("width 4, height 3",))
    check(issubclass(cc.FormatError, ValueError), "FormatError is a ValueError")


# --- unit ------------------------------------------------------------------

def unit():
    rng = np.random.default_rng(1234)
    # Smooth gradients plus noise: every filter has real work to do.
    y, x = np.mgrid[0:23, 0:31]
    for c in (3, 4):
        img = np.empty((23, 31, c), np.uint8)
        for k in range(c):
            img[..., k] = (x * (3 + k) + y * (5 - k) + rng.integers(0, 9, (23, 31))) & 255
        for filters in ([0], [1], [2], [3], [4], [0, 1, 2, 3, 4]):
            png = encode_png(img, filters)
            check(png_filters_used(png) == set(filters), f"test encoder wrote filters {filters}")
            got = cc.decode_png(png)
            check(got.shape == img.shape and np.array_equal(got, img),
                  f"decode_png {c} channels, filters {filters}")
            if Image is not None:  # the encoder itself against a standard decoder
                import io
                check(np.array_equal(np.asarray(Image.open(io.BytesIO(png))), img),
                      f"PIL reads the test encoder's PNG ({c} channels, filters {filters})")
        up = cc.png_to_array(encode_png(img, [4, 3]), decoder="builtin")
        check(np.array_equal(up, img[::-1, :, :3]), f"png_to_array builtin, {c} channels: flipped, RGB")
    if Image is not None:
        import io
        noisy = rng.integers(0, 256, (40, 50, 3), dtype=np.uint8)
        noisy[:20] = (np.arange(50)[None, :, None] * 3 + np.arange(3)) & 255  # smooth half
        buf = io.BytesIO()
        Image.fromarray(noisy).save(buf, "PNG", optimize=True)
        check(np.array_equal(cc.decode_png(buf.getvalue()), noisy),
              f"decode_png reads PIL's PNG (filters {sorted(png_filters_used(buf.getvalue()))})")
    bad = bytearray(encode_png(img, [1]))
    bad[30] ^= 0xFF
    raises(ValueError, lambda: cc.decode_png(bytes(bad)), "corrupt PNG chunk")
    raises(ValueError, lambda: cc.decode_png(b"GIF89a" + bytes(20)), "not a PNG")
    png_filters_both_ways(rng)
    png_bounded_inflate()
    sizes_keyword_only()

    # RAW: bottom-up in, upright out.
    raw = bytes(range(2 * 3 * 3)) * 1
    want = np.frombuffer(raw, np.uint8).reshape(3, 2, 3)[::-1]
    got = cc.raw_to_array(raw, width=2, height=3)
    check(np.array_equal(got, want) and got.flags.c_contiguous, "raw_to_array flips, contiguous")
    check(np.array_equal(cc.image_to_array(raw, width=2, height=3), want), "image_to_array RAW")
    raises(ValueError, lambda: cc.raw_to_array(raw, width=3, height=3), "RAW of the wrong length")
    raises(ValueError, lambda: cc.raw_to_array(raw, width=0, height=3), "RAW width 0")
    raises(ValueError, lambda: cc.image_to_array(raw), "RAW without a size")

    # Depth: bottom-up floats in any form -> upright float32.
    vals = [0.5, 0.25, 1.0, 0.125, 0.75, 0.0]
    want = np.array(vals, np.float32).reshape(2, 3)[::-1]
    for form, v in (("list", vals), ("bytes", struct.pack("<6f", *vals)),
                    ("array", np.array(vals, np.float64))):
        d = cc.depth_to_array(v, width=3, height=2)
        check(d.dtype == np.float32 and np.array_equal(d, want), f"depth_to_array from {form}")
    check(np.array_equal(cc.depth_to_array(vals, width=3, height=2, far=160.0),
                         want * np.float32(160)), "depth_to_array far= scales to world units")
    raises(ValueError, lambda: cc.depth_to_array(vals, width=4, height=2),
           "depth of the wrong length")

    # Protobuf: hand-made messages, written from the wire-format rules.
    floats = [1.5, -2.25, 3.0e-3]
    packed = struct.pack("<3f", *floats)
    msg = (ld(1, b"first") + field(38, 5, struct.pack("<f", 9.0)) + ld(38, packed)
           + field(2, 0, varint(2 ** 63)) + field(3, 1, bytes(8)) + ld(24, b"second eye")
           + field(7, 5, bytes(4)) + field(9, 3, field(1, 0, varint(5)) + ld(2, b"x")) + field(9, 4, b"")
           + ld(37, b"h" * 68) + ld(1, b"image wins last") + ld(123456, b"far away field"))
    o = cc.decode_observation(msg)
    check(o.image == b"image wins last", "proto: last image wins")
    check(o.image_2 == b"second eye" and o.ipc_handle == b"h" * 68, "proto: image_2, ipc_handle")
    check(o.depth.dtype == np.float32 and np.array_equal(o.depth, np.array([9.0] + floats, np.float32)),
          "proto: unpacked + packed depth concatenated")
    e = cc.decode_observation(b"")
    check(e.image == b"" and e.depth.size == 0, "proto: empty message")
    raises(ValueError, lambda: cc.decode_observation(ld(1, b"abc")[:-1]), "proto: truncated bytes")
    raises(ValueError, lambda: cc.decode_observation(field(1, 0, varint(3))), "proto: image as varint")
    raises(ValueError, lambda: cc.decode_observation(ld(38, b"abc")), "proto: packed depth of 3 bytes")
    raises(ValueError, lambda: cc.decode_observation(b"\x80" * 11), "proto: endless varint")
    raises(ValueError, lambda: cc.decode_observation(field(9, 3, b"")), "proto: unterminated group")

    # The IPC handle's layout.
    h = bytes(range(64)) + struct.pack("<i", 2)
    mem, dev = cc.parse_ipc_handle(h)
    check(mem == bytes(range(64)) and dev == 2, "parse_ipc_handle: 64 bytes + LE device")
    c_handle = bytes(_cuda.IpcMemHandle.of(mem))
    check(c_handle == mem, "the 64 bytes handed to cuIpcOpenMemHandle are the handle's, NULs included")
    raises(ValueError, lambda: cc.parse_ipc_handle(h[:67]), "handle of 67 bytes")
    raises(ValueError, lambda: cc.parse_ipc_handle(b"\0\0\0\0"), "mach port given as CUDA handle")

    # DLPack export, on host memory (numpy consumes kDLCPU capsules): the
    # same struct layout and lifetime rules the CUDA frame uses.
    host = rng.integers(0, 256, (5, 7, 4), dtype=np.uint8)
    buf = cuda_ipc.DeviceBuffer(host.ctypes.data, host.shape, cuda_ipc.KDL_CPU, 0, owner=host)
    if hasattr(np, "from_dlpack"):
        arr = np.from_dlpack(buf)
        check(arr.shape == host.shape and arr.dtype == np.uint8 and np.array_equal(arr, host),
              "DLPack: numpy reads the exported tensor")
        host[0, 0, 0] ^= 0xFF
        check(arr[0, 0, 0] == host[0, 0, 0], "DLPack: zero-copy (a write shows through)")
        check(len(cuda_ipc._live) == 1, "DLPack: the tensor holds its export")
        del arr
        check(len(cuda_ipc._live) == 0, "DLPack: the consumer's deleter released it")
    cap = buf.__dlpack__(stream=None, max_version=(1, 0))
    check(len(cuda_ipc._live) == 1, "DLPack: an unconsumed capsule holds its export")
    del cap
    check(len(cuda_ipc._live) == 0, "DLPack: the capsule's destructor released it")
    check(buf.__dlpack_device__() == (1, 0), "DLPack: device of host memory")
    raises(BufferError, lambda: buf.__dlpack__(copy=True), "DLPack: copy=True refused")
    raises(AttributeError, lambda: buf.__cuda_array_interface__, "host memory has no CUDA interface")
    cuda = cuda_ipc.DeviceBuffer(0x7F0000001000, (360, 640, 4), cuda_ipc.KDL_CUDA, 3)
    cai = cuda.__cuda_array_interface__
    check(cai == {"shape": (360, 640, 4), "typestr": "|u1", "data": (0x7F0000001000, False),
                  "strides": None, "version": 3, "stream": None},
          "__cuda_array_interface__ v3 of a CUDA buffer")
    check(cuda.__dlpack_device__() == (2, 3), "DLPack device of a CUDA buffer: (kDLCUDA, ordinal)")


def fake_cuda(lib):
    """The zero-copy frame's ctypes calls against fake_cuda.c (a stand-in for
    libcuda and libcudart whose "device memory" is host memory)."""
    os.environ["CRAFTGROUND_CAPTURE_LIBCUDA"] = lib
    os.environ["CRAFTGROUND_CAPTURE_LIBCUDART"] = lib
    fake = ctypes.CDLL(lib)  # the same loaded instance the package gets
    mem = bytes([0]) + bytes((i * 29 + 7) & 255 for i in range(63))  # starts with a NUL
    assert 0 in mem  # a NUL inside the handle must survive the call
    handle = mem + struct.pack("<i", 1)
    w, h = 40, 30
    n = w * h * 4
    want = (np.frombuffer(mem, np.uint8)[np.arange(n) % 64] ^ (np.arange(n) & 255)).astype(
        np.uint8).reshape(h, w, 4)
    for backend in ("driver", "runtime"):
        frame = cc.open_ipc_handle(handle, w, h, backend=backend)
        tag = f"fake CUDA {backend}"
        check(frame.backend == backend and frame.shape == (h, w, 4) and frame.device == 1,
              f"{tag}: opened as a (H, W, 4) frame of device 1")
        check(fake.fake_open_count() == 1 and fake.fake_open_device() == 1,
              f"{tag}: the handle was opened once, on device 1")
        check(fake.fake_ctx_depth() == 0, f"{tag}: no context left pushed")
        mapped = np.ctypeslib.as_array((ctypes.c_uint8 * n).from_address(frame.ptr))
        check(np.array_equal(mapped.reshape(h, w, 4), want), f"{tag}: the pointer is the mapping")
        check(np.array_equal(frame.to_numpy(), want), f"{tag}: to_numpy copies the frame's bytes")
        cai = frame.__cuda_array_interface__
        check(cai["data"] == (frame.ptr, False) and cai["shape"] == (h, w, 4),
              f"{tag}: __cuda_array_interface__ points at it")
        check(frame.__dlpack_device__() == (2, 1), f"{tag}: DLPack device (kDLCUDA, 1)")
        frame.close()
        check(fake.fake_open_count() == 0 and fake.fake_ctx_depth() == 0, f"{tag}: close() unmaps")
        raises(ValueError, frame.to_numpy, f"{tag}: a closed frame")
        frame.close()  # twice is harmless
    dev = ctypes.c_int(-1)
    fake.cudaGetDevice(ctypes.byref(dev))
    check(dev.value == 0, "fake CUDA runtime: the caller's current device is restored")

    frame = cc.open_ipc_handle(handle, w, h)
    cap = frame.__dlpack__()
    del frame
    gc.collect()
    check(fake.fake_open_count() == 1, "fake CUDA: an exported tensor keeps the frame open")
    del cap
    gc.collect()
    check(fake.fake_open_count() == 0, "fake CUDA: the frame closes when nothing uses it")
    with cc.open_ipc_handle(handle, w, h) as frame:
        check(fake.fake_open_count() == 1, "fake CUDA: with block opens")
    check(fake.fake_open_count() == 0, "fake CUDA: with block closes")
    bad = mem + struct.pack("<i", 5)
    for backend, name in (("driver", "CUDA_ERROR_INVALID_DEVICE"), ("runtime", "cudaErrorInvalidDevice")):
        try:
            cc.open_ipc_handle(bad, w, h, backend=backend)
            check(False, f"fake CUDA {backend}: device 5 accepted")
        except RuntimeError as e:
            check(name in str(e) and "device 5" in str(e), f"fake CUDA {backend}: {e}")
    check(fake.fake_open_count() == 0 and fake.fake_ctx_depth() == 0,
          "fake CUDA: a failed open leaves nothing open or pushed")


# --- frames (the library's RAW and PNG through the JVM) -----------------------

def frames(d):
    from consumer_check import expected_observation, top_down

    cases = [(64, 48, 64, 48, True), (64, 48, 32, 24, True), (33, 17, 33, 17, False),
             (854, 480, 128, 128, True)]
    for w, h, tw, th, flip in cases:
        base = os.path.join(d, f"{w}x{h}_to_{tw}x{th}_{'flip' if flip else 'noflip'}")
        if flip:  # a top-down source, turned bottom-up by the library
            want = expected_observation(w, h, tw, th)
        else:  # a source that is bottom-up already: memory row 0 is the bottom
            want = top_down(w, h)[::-1]
        raw = open(base + ".raw", "rb").read()
        png = open(base + ".png", "rb").read()
        check(np.array_equal(cc.raw_to_array(raw, width=tw, height=th), want), f"RAW {base}")
        check(np.array_equal(cc.image_to_array(raw, width=tw, height=th), want),
              f"image_to_array RAW {base}")
        check(np.array_equal(cc.png_to_array(png, decoder="builtin"), want), f"PNG builtin {base}")
        if Image is not None:
            check(np.array_equal(cc.png_to_array(png, decoder="pil"), want), f"PNG PIL {base}")
        check(np.array_equal(cc.image_to_array(png, width=tw, height=th), want),
              f"image_to_array PNG {base}")
    # The check can fail: a read that forgets the flip does not match.
    w = expected_observation(64, 48, 64, 48)
    check(not np.array_equal(w, w[::-1]), "the test image is not symmetric under a flip")

    first = open(os.path.join(d, "64x48_to_64x48_flip.raw"), "rb").read()
    first_png = open(os.path.join(d, "64x48_to_64x48_flip.png"), "rb").read()
    handle = bytes((i * 37 + 11) & 255 for i in range(64)) + struct.pack("<i", 3)
    depth = np.float32(np.arange(1000)) * np.float32(0.37) - np.float32(5)
    for name in ("message.pb", "message_unknown.pb"):
        data = open(os.path.join(d, name), "rb").read()
        o = cc.decode_observation(data)
        check(o.image == first and o.image_2 == first_png, f"{name}: image, image_2 (protobuf-java)")
        check(o.ipc_handle == handle and cc.parse_ipc_handle(o.ipc_handle)[1] == 3,
              f"{name}: ipc_handle")
        check(np.array_equal(o.depth, depth), f"{name}: depth ({o.depth.size} floats)")
        check(np.array_equal(cc.image_to_array(o.image_2, width=64, height=48),
                             expected_observation(64, 48, 64, 48)), f"{name}: image_2 as an array")


# --- depth (the library's captureDepthImpl through the JVM on GL) --------------

QUADS = [(0, 0, 7, 19, 0.1), (7, 0, 14, 19, 1.0), (14, 0, 21, 19, 2.5), (21, 0, 28, 10, 10.0),
         (28, 0, 33, 19, 50.0), (21, 10, 28, 19, 99.0)]
DW, DH, NEAR, FAR = 37, 19, 0.1, 100.0


def expected_eye_z_upright():
    """Eye distance per pixel, upright. Quads are in GL window pixels from the
    bottom-left, so window row y is upright row DH - 1 - y."""
    z = np.full((DH, DW), FAR)
    for x0, y0, x1, y1, ez in QUADS:
        win = z[::-1]  # a view in window row order
        win[y0:y1, x0:x1] = np.minimum(win[y0:y1, x0:x1], ez)
    return z


def depth(d):
    ran = 0
    z = expected_eye_z_upright()
    check(not np.array_equal(z, z[::-1]), "the depth scene is not symmetric under a flip")
    for z01 in (False, True):
        lin_path = os.path.join(d, f"depth_{str(z01).lower()}_lin.f32")
        if not os.path.exists(lin_path):
            print(f"note: no depth for z01={z01} (no clip control on this driver)")
            continue
        ran += 1
        n, f = NEAR, FAR
        want_raw = n * (f - z) / (z * (f - n)) if z01 else ((2 * n * f / z - n - f) / (f - n) + 1) / 2
        tol = 1e-6 if z01 else 1e-4
        lin = cc.depth_to_array(open(lin_path, "rb").read(), width=DW, height=DH)
        check(lin.shape == (DH, DW) and lin.dtype == np.float32, f"depth z01={z01}: shape, dtype")
        check(np.abs(lin - z / f).max() <= tol, f"depth z01={z01}: linearised = eye distance / far")
        metres = cc.depth_to_array(open(lin_path, "rb").read(), width=DW, height=DH, far=f)
        check(np.abs(metres - z).max() <= tol * f, f"depth z01={z01}: far= gives eye distance")
        raw = cc.depth_to_array(open(lin_path.replace("_lin", "_raw"), "rb").read(), width=DW,
                                height=DH)
        check(np.abs(raw - want_raw).max() <= 1e-6, f"depth z01={z01}: raw reverse-Z depth")
        o = cc.decode_observation(open(os.path.join(d, f"depth_{str(z01).lower()}.pb"), "rb").read())
        check(np.array_equal(cc.depth_to_array(o.depth, width=DW, height=DH), lin),
              f"depth z01={z01}: the message's field 38 gives the same array")
    if not ran:
        print("SKIP: no depth files")
        sys.exit(77)


def main():
    mode = sys.argv[1]
    if mode == "unit":
        unit()
        if os.environ.get("CG_FAKE_CUDA"):
            fake_cuda(os.environ["CG_FAKE_CUDA"])
        else:
            print("note: CG_FAKE_CUDA not set: the ctypes CUDA calls were not exercised")
    elif mode == "frames":
        frames(sys.argv[2])
    elif mode == "depth":
        depth(sys.argv[2])
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(f"test_reader {mode}: {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
