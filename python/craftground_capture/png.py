"""A small PNG decoder (zlib + numpy) for when PIL is not importable.

Reads 8-bit, non-interlaced greyscale, grey+alpha, RGB and RGBA PNGs with any
of the five row filters, which covers every PNG the library writes (8-bit RGB,
SUB filter) and what common encoders write for such images. It checks chunk
CRCs and sizes and raises ValueError on anything it does not read.
"""
import struct
import zlib

import numpy as np

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples per pixel


def _chunks(data):
    pos = len(PNG_SIGNATURE)
    while pos < len(data):
        if pos + 8 > len(data):
            raise ValueError("PNG: truncated chunk header")
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 8 + length
        if end + 4 > len(data):
            raise ValueError(f"PNG: chunk {ctype!r} runs past the end of the data")
        body = data[pos + 8:end]
        (crc,) = struct.unpack(">I", data[end:end + 4])
        if zlib.crc32(body, zlib.crc32(ctype)) != crc:
            raise ValueError(f"PNG: bad CRC in chunk {ctype!r}")
        yield ctype, body
        if ctype == b"IEND":
            return
        pos = end + 4
    raise ValueError("PNG: no IEND chunk")


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


def decode_png(data):
    """PNG bytes -> (height, width, channels) uint8 in the file's row order
    (first row of the file first; for the library's PNGs that is the bottom
    row of the picture). Greyscale comes back as (height, width, 1)."""
    data = bytes(data)
    if data[:8] != PNG_SIGNATURE:
        raise ValueError("not a PNG (bad signature)")
    header, idat = None, []
    for ctype, body in _chunks(data):
        if ctype == b"IHDR":
            if len(body) != 13:
                raise ValueError("PNG: IHDR is not 13 bytes")
            header = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat.append(body)
    if header is None:
        raise ValueError("PNG: no IHDR chunk")
    width, height, depth, ctype, comp, filt, interlace = header
    if depth != 8 or ctype not in _CHANNELS:
        raise ValueError(f"PNG: only 8-bit grey/RGB(A) is read here (bit depth {depth}, "
                         f"colour type {ctype}); install PIL for other kinds")
    if comp != 0 or filt != 0 or interlace != 0:
        raise ValueError("PNG: interlaced or non-standard compression/filter method")
    if width == 0 or height == 0:
        raise ValueError("PNG: zero width or height")
    bpp = _CHANNELS[ctype]
    stride = width * bpp
    raw = zlib.decompress(b"".join(idat))
    if len(raw) != height * (stride + 1):
        raise ValueError(f"PNG: {len(raw)} bytes of image data, expected {height * (stride + 1)}")
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(height, stride + 1)
    out = np.empty((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.uint8)
    for y in range(height):
        ftype, line = rows[y, 0], rows[y, 1:]
        if ftype == 0:
            cur = line
        elif ftype == 1:  # Sub: a running sum per channel along the row
            cur = np.cumsum(line.reshape(width, bpp), axis=0, dtype=np.uint8).reshape(-1)
        elif ftype == 2:  # Up
            cur = line + prev
        elif ftype == 3:  # Average and Paeth depend on the byte just decoded
            cur = np.frombuffer(_unfilter_average(line.tobytes(), prev.tobytes(), bpp), np.uint8)
        elif ftype == 4:
            cur = np.frombuffer(_unfilter_paeth(line.tobytes(), prev.tobytes(), bpp), np.uint8)
        else:
            raise ValueError(f"PNG: unknown filter type {ftype} on row {y}")
        out[y] = cur
        prev = out[y]
    return out.reshape(height, width, bpp)
