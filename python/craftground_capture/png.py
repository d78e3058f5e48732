"""A small PNG decoder (zlib + numpy) for when PIL is not importable.

Reads 8-bit, non-interlaced greyscale, grey+alpha, RGB and RGBA PNGs with any
of the five row filters, which covers every PNG the library writes (8-bit RGB,
SUB filter) and what common encoders write for such images. It checks chunk
CRCs and sizes and raises FormatError (a ValueError) naming the chunk on
anything it does not read.

The image data is inflated at most to the size IHDR implies, plus one byte:
a small file that inflates to far more than its header says is refused
after that many bytes, so memory stays about the image's size.

Average (3) and Paeth (4) rows depend on the byte to their left, so one row
cannot be undone with whole-row numpy operations. Pixel (y, x) depends only
on (y, x-1), (y-1, x) and (y-1, x-1), so the pixels of an anti-diagonal
x + y = k do not depend on each other: the decoder undoes the rows from the
first Average/Paeth row to the last one a diagonal at a time (any mix of
filters; numpy over skewed copies in which each diagonal is contiguous, in
strips of `width` rows so that the copies stay within 4 times the strip),
and the rows outside that span a row at a time. A file with only a few such
rows decodes them with a per-byte loop instead, which is cheaper there.
"""
import struct
import sys
import zlib

import numpy as np

from ._types import Buffer
from .errors import FormatError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_MAX_SIDE = 0x7FFFFFFF  # the PNG specification's limit on IHDR's width and height
_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples per pixel

# Rough costs (seconds, measured on a 2-core x86 machine) that choose how to
# undo Average and Paeth rows: a byte of the per-byte loop on a Paeth or an
# Average row, a diagonal step, a byte of the skewed copies. Only the speed
# depends on them; both ways give the same bytes.
_LOOP_BYTE_COST = {3: 75e-9, 4: 170e-9}
_STEP_COST = 8e-6
_SKEW_BYTE_COST = 3e-9
_MIN_STRIP = 64


def _chunks(data):
    pos = len(PNG_SIGNATURE)
    while pos < len(data):
        if pos + 8 > len(data):
            raise FormatError(f"PNG: truncated chunk header at byte {pos}")
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 8 + length
        if end + 4 > len(data):
            raise FormatError(f"PNG: chunk {ctype!r} of {length} bytes runs past the end of the "
                              f"data ({len(data)} bytes)")
        body = data[pos + 8:end]
        (crc,) = struct.unpack(">I", data[end:end + 4])
        if zlib.crc32(body, zlib.crc32(ctype)) != crc:
            raise FormatError(f"PNG: bad CRC in chunk {ctype!r}")
        yield ctype, body
        if ctype == b"IEND":
            return
        pos = end + 4
    raise FormatError("PNG: no IEND chunk")


def _inflate(idat, expected, size):
    """The IDAT chunks' zlib stream, inflated to exactly `expected` bytes
    (a bytearray). Never holds more than expected + 1 inflated bytes."""
    d = zlib.decompressobj()
    out = bytearray()
    try:
        for body in idat:
            data = body
            while data and not d.eof:
                out += d.decompress(data, expected + 1 - len(out))
                if len(out) > expected:
                    raise FormatError(f"PNG: IDAT inflates to more than the {expected} bytes "
                                      f"IHDR's {size} needs")
                data = d.unconsumed_tail
    except zlib.error as e:
        raise FormatError(f"PNG: IDAT is not a valid zlib stream ({e}) after {len(out)} of "
                          f"the {expected} bytes IHDR's {size} needs") from e
    if not d.eof:
        raise FormatError(f"PNG: IDAT is truncated: its zlib stream ends early, after {len(out)} "
                          f"of the {expected} bytes IHDR's {size} needs")
    if len(out) != expected:
        raise FormatError(f"PNG: IDAT inflates to {len(out)} bytes, IHDR's {size} needs "
                          f"{expected}")
    return out


def _unfilter_average(line, prev, bpp):
    cur = bytearray(line)
    for i in range(len(cur)):
        left = cur[i - bpp] if i >= bpp else 0
        cur[i] = (cur[i] + ((left + prev[i]) >> 1)) & 0xFF
    return cur


def _unfilter_paeth(line, prev, bpp):
    cur = bytearray(line)
    for i in range(len(cur)):
        if i >= bpp:
            a, c = cur[i - bpp], prev[i - bpp]
        else:
            a = c = 0
        b = prev[i]
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        pred = a if (pa <= pb and pa <= pc) else (b if pb <= pc else c)
        cur[i] = (cur[i] + pred) & 0xFF
    return cur


def _unfilter_row(rows, out, y, width, bpp):
    """Row y into out[y + 1] (out has a zero row on top and bpp zero bytes on
    the left of every row)."""
    ftype, line = rows[y, 0], rows[y, 1:]
    prev, cur = out[y, bpp:], out[y + 1, bpp:]
    if ftype == 0:
        cur[:] = line
    elif ftype == 1:  # Sub: a running sum per channel along the row
        np.cumsum(line.reshape(width, bpp), axis=0, dtype=np.uint8,
                  out=cur.reshape(width, bpp))
    elif ftype == 2:  # Up
        np.add(line, prev, out=cur)
    elif ftype == 3:
        cur[:] = np.frombuffer(_unfilter_average(line.tobytes(), prev.tobytes(), bpp), np.uint8)
    else:
        cur[:] = np.frombuffer(_unfilter_paeth(line.tobytes(), prev.tobytes(), bpp), np.uint8)


def _view(buf, offset, shape, strides):
    """A read-only strided view of buf (1-D uint8) from byte `offset`; every
    byte it spans lies inside buf (strides are positive)."""
    end = offset + sum((n - 1) * st for n, st in zip(shape, strides)) + 1
    if end > buf.size:  # a bug in the caller's sizes, never the file's
        raise RuntimeError(f"strided view up to byte {end} of {buf.size}")
    return np.lib.stride_tricks.as_strided(buf[offset:], shape=shape, strides=strides,
                                           writeable=False)


def _unfilter_diagonal(rows, prev, width, bpp):
    """rows (n, 1 + width*bpp), any filters, below the decoded row `prev` ->
    (n, width, bpp), an anti-diagonal at a time.

    The filtered rows are copied skewed, src[k] holding pixels (y, k - y) for
    y = 0..n-1, so that each diagonal is contiguous. Diagonal m of the result
    holds pixel (j - 1, m - j - 1) at position j = 0..n: j = 0 is the row
    above, m = j the zero column left of the image. So pixel (y, x), on
    diagonal k = x + y of src, goes to diagonal k + 2 at y + 1; its left and
    up neighbours are at y + 1 and y of diagonal k + 1, up-left at y of
    diagonal k. The last two diagonals are kept as int16 vectors."""
    n, pitch = rows.shape
    steps, size = n + width - 1, (n + 1) * bpp
    src = np.ascontiguousarray(_view(rows.reshape(-1), 1, (steps, n, bpp), (bpp, pitch - bpp, 1)))
    src = src.reshape(steps, n * bpp)
    dst = np.zeros((steps + 2, size), np.uint8)
    above = prev.astype(np.int16).reshape(width, bpp)
    ftypes = rows[:, 0]
    paeth = np.repeat(ftypes == 4, bpp)
    # None, Sub, Up and Average predict (wa * left + wb * up) >> 1.
    wa = np.repeat(np.array([0, 2, 0, 1, 0], np.int16)[ftypes], bpp)
    wb = np.repeat(np.array([0, 0, 2, 1, 0], np.int16)[ftypes], bpp)
    npaeth = np.concatenate([[0], np.cumsum(ftypes == 4)])  # Paeth rows above row y
    d0, d1 = np.zeros(size, np.int16), np.zeros(size, np.int16)  # diagonals 0 and 1
    d1[:bpp] = above[0]
    for k in range(steps):
        y0, y1 = max(0, k - width + 1), min(n - 1, k) + 1
        i0, i1 = y0 * bpp, y1 * bpp
        a, b, c = d1[i0 + bpp:i1 + bpp], d1[i0:i1], d0[i0:i1]
        n_paeth = npaeth[y1] - npaeth[y0]
        if n_paeth:  # the predictor closest to a + b - c, ties to a, then b
            bc, ac = b - c, a - c
            pc = np.abs(bc + ac)
            pa, pb = np.abs(bc), np.abs(ac)
            use_a = (pa <= pb) & (pa <= pc)
            pred = c + use_a * ac + np.greater(pb <= pc, use_a) * bc
        if n_paeth < y1 - y0:
            lin = (a * wa[i0:i1] + b * wb[i0:i1]) >> 1
            pred = lin if not n_paeth else lin + paeth[i0:i1] * (pred - lin)
        pred += src[k, i0:i1]
        pred &= 0xFF
        d2 = np.zeros(size, np.int16)
        if k + 1 < width:
            d2[:bpp] = above[k + 1]
        d2[i0 + bpp:i1 + bpp] = pred
        dst[k + 2, i0 + bpp:i1 + bpp] = pred
        d0, d1 = d1, d2
    # Pixel (y, x) of the result is dst[x + y + 2][y + 1], read through a view.
    return _view(dst.reshape(-1), (2 * n + 3) * bpp, (n, width, bpp),
                 ((n + 2) * bpp, (n + 1) * bpp, 1))


def _strip_rows(width):
    """Rows undone together a diagonal at a time: each strip's skewed copies
    take (rows + width) * rows * bpp bytes, so strips of `width` rows keep
    them within 4 times the strip's image."""
    return max(width, _MIN_STRIP)


def _diagonal_cost(n, width, bpp):
    strip = _strip_rows(width)
    cost = 0.0
    for s, count in ((strip, n // strip), (n % strip, 1)):
        if s and count:
            cost += count * ((s + width - 1) * _STEP_COST + (s + width) * s * bpp * _SKEW_BYTE_COST)
    return cost


def _unfilter(rows, width, bpp, method=None):
    """rows: (height, 1 + width*bpp) uint8, each a filter byte and a filtered
    row -> (height, width, bpp) uint8 (a view). method: "rows" (a row at a
    time, a per-byte loop for Average and Paeth), "diagonal" (the rows from
    the first Average/Paeth row to the last a diagonal at a time) or None
    (whichever the cost estimate says is faster)."""
    height, stride = rows.shape[0], rows.shape[1] - 1
    ftypes = rows[:, 0]
    bad = np.flatnonzero(ftypes > 4)
    if bad.size:
        raise FormatError(f"PNG: unknown filter type {ftypes[bad[0]]} on row {bad[0]} of IDAT")
    # A zero row above the image and a zero pixel left of every row.
    out = np.zeros((height + 1, stride + bpp), np.uint8)
    out3 = out.reshape(height + 1, width + 1, bpp)
    slow = np.flatnonzero(ftypes >= 3)
    lo = hi = height
    if slow.size and method != "rows":
        lo, hi = int(slow[0]), int(slow[-1]) + 1
        loop = sum(np.count_nonzero(ftypes == f) * stride * c for f, c in _LOOP_BYTE_COST.items())
        if method is None and loop < _diagonal_cost(hi - lo, width, bpp):
            lo = hi = height
    for y in range(lo):
        _unfilter_row(rows, out, y, width, bpp)
    strip = _strip_rows(width)
    for y in range(lo, hi, strip):
        e = min(y + strip, hi)
        out3[y + 1:e + 1, 1:] = _unfilter_diagonal(rows[y:e], out[y, bpp:], width, bpp)
    for y in range(hi, height):
        _unfilter_row(rows, out, y, width, bpp)
    return out3[1:, 1:]


def decode_png(data: Buffer) -> np.ndarray:
    """PNG bytes -> (height, width, channels) uint8 in the file's row order
    (first row of the file first; for the library's PNGs that is the bottom
    row of the picture), C-contiguous. channels: 1 grey, 2 grey + alpha, 3
    RGB, 4 RGBA; greyscale comes back as (height, width, 1).

    Raises FormatError (a ValueError) naming the chunk on a PNG it does not
    read: a bad signature, CRC or chunk length, an IHDR past the
    specification's 2^31 - 1 per side, an IDAT that is not zlib or does not
    inflate to exactly the size IHDR implies, an unknown row filter, or a
    kind it does not read (not 8-bit, interlaced; PIL reads those)."""
    data = bytes(data)
    if data[:8] != PNG_SIGNATURE:
        raise FormatError("not a PNG (bad signature)")
    header, idat = None, []
    for ctype, body in _chunks(data):
        if ctype == b"IHDR":
            if len(body) != 13:
                raise FormatError(f"PNG: IHDR is {len(body)} bytes, not 13")
            header = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat.append(body)
    if header is None:
        raise FormatError("PNG: no IHDR chunk")
    if not idat:
        raise FormatError("PNG: no IDAT chunk")
    width, height, depth, ctype, comp, filt, interlace = header
    if depth != 8 or ctype not in _CHANNELS:
        raise FormatError(f"PNG: only 8-bit grey/RGB(A) is read here (IHDR bit depth {depth}, "
                          f"colour type {ctype}); install PIL for other kinds")
    if comp != 0 or filt != 0 or interlace != 0:
        raise FormatError(f"PNG: IHDR compression {comp}, filter {filt}, interlace {interlace}: "
                          "only 0, 0, 0 (not interlaced) is read here")
    if width == 0 or height == 0:
        raise FormatError(f"PNG: IHDR size {width}x{height} is empty")
    if width > _MAX_SIDE or height > _MAX_SIDE:
        raise FormatError(f"PNG: IHDR size {width}x{height}: the specification allows at most "
                          f"{_MAX_SIDE} a side")
    bpp = _CHANNELS[ctype]
    stride = width * bpp
    if height * (stride + 1) > sys.maxsize:
        raise FormatError(f"PNG: IHDR size {width}x{height}x{bpp} is {height * (stride + 1)} "
                          f"bytes unpacked, more than this process can address")
    raw = _inflate(idat, height * (stride + 1), f"{width}x{height}x{bpp}")
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(height, stride + 1)
    return np.ascontiguousarray(_unfilter(rows, width, bpp))
