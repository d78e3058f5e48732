"""Observation fields -> numpy arrays, upright (row 0 is the top row).

The library sends every CPU observation bottom-up (docs/wire-format.md):
RAW RGB8 rows, the rows of the PNG, and the depth floats. These functions
undo that, so the arrays look the way the game showed the frame.

Sizes are keyword-only (width=, height=): a RAW frame or depth field of W x H
has the same length as one of H x W, so swapped positional sizes would give
a garbled array without any error. A positional size raises TypeError (since
version 0.2.0). Data of the wrong length raises FormatError (a ValueError).
"""
import io

import numpy as np

from .errors import FormatError
from .png import PNG_SIGNATURE, decode_png

try:  # PIL is the standard decoder when present; the built-in one otherwise.
    from PIL import Image as _PILImage
except ImportError:  # pragma: no cover - depends on the machine
    _PILImage = None


def _keyword_size(fn, positional):
    if positional:
        raise TypeError(f"{fn}() takes the size by keyword: {fn}(data, width=W, height=H) "
                        f"(positional sizes were removed in version 0.2.0, as swapped ones "
                        f"go unnoticed); got {len(positional)} extra positional argument(s)")


def _check_size(width, height):
    for name, v in (("width", width), ("height", height)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    return int(width), int(height)


def raw_to_array(data, *positional, width=None, height=None):
    """RAW bytes (RGB8, rows bottom-up) -> (height, width, 3) uint8, upright:
    raw_to_array(data, width=W, height=H). The length must be H * W * 3.

    The result is a C-contiguous copy, so torch.from_numpy and friends take it
    as it is.
    """
    _keyword_size("raw_to_array", positional)
    width, height = _check_size(width, height)
    buf = np.frombuffer(data, dtype=np.uint8)
    want = width * height * 3
    if buf.size != want:
        raise FormatError(f"RAW image of width {width}, height {height} needs {height} * {width} "
                          f"* 3 = {want} bytes, got {buf.size}")
    return np.ascontiguousarray(buf.reshape(height, width, 3)[::-1])


def png_to_array(data, decoder=None):
    """PNG bytes (rows bottom-up, as the library sends them) -> (H, W, 3) uint8, upright.

    decoder: "pil", "builtin" or None (PIL when importable, else built-in).
    An alpha channel, if a PNG has one, is dropped (the library writes RGB).
    """
    if decoder is None:
        decoder = "pil" if _PILImage is not None else "builtin"
    if decoder == "pil":
        if _PILImage is None:
            raise ImportError("PIL is not importable; use decoder='builtin'")
        with _PILImage.open(io.BytesIO(bytes(data))) as im:
            img = np.asarray(im.convert("RGB"))
    elif decoder == "builtin":
        img = decode_png(data)
        if img.ndim == 2 or img.shape[2] < 3:
            raise FormatError(f"built-in PNG decoder: {img.shape[2]} channels, expected an RGB "
                              "or RGBA PNG")
        img = img[..., :3]
    else:
        raise ValueError(f"decoder must be 'pil', 'builtin' or None, got {decoder!r}")
    return np.ascontiguousarray(img[::-1])


def image_to_array(data, *positional, width=None, height=None, decoder=None):
    """An `image` / `image_2` field, RAW or PNG (told apart by the PNG signature),
    -> (height, width, 3) uint8, upright: image_to_array(data, width=W, height=H).
    RAW needs width and height (keyword-only) and must be H * W * 3 bytes; for a
    PNG they are optional and checked when given."""
    _keyword_size("image_to_array", positional)
    if bytes(data[:8]) == PNG_SIGNATURE:
        img = png_to_array(data, decoder)
        if (width is not None and img.shape[1] != width) or (
                height is not None and img.shape[0] != height):
            raise FormatError(f"PNG is width {img.shape[1]}, height {img.shape[0]}; expected "
                              f"width {width}, height {height}")
        return img
    if width is None or height is None:
        raise ValueError("a RAW image needs width= and height= (the message does not carry them)")
    return raw_to_array(data, width=width, height=height)


def depth_to_array(values, *positional, width=None, height=None, far=None):
    """The `depth` field -> (height, width) float32, upright:
    depth_to_array(values, width=W, height=H). It must hold H * W floats.

    values: the floats as a sequence (a list, protobuf's repeated field, a
    numpy array) or as bytes of little-endian float32 (the packed field's
    payload, a float[] written to a file).

    With requiresDepthConversion the library sends eye distance / far (the
    near plane reads near/far, the far plane and the sky 1.0); pass `far` to
    get the eye distance in world units (blocks) instead. Without conversion
    the values are the raw reverse-Z depth buffer (1 near, 0 far) and `far`
    must stay None.
    """
    _keyword_size("depth_to_array", positional)
    width, height = _check_size(width, height)
    if isinstance(values, (bytes, bytearray, memoryview)):
        arr = np.frombuffer(values, dtype="<f4").astype(np.float32)
    else:
        arr = np.asarray(values, dtype=np.float32).reshape(-1)
    if arr.size != width * height:
        raise FormatError(f"depth of width {width}, height {height} needs {height} * {width} = "
                          f"{width * height} floats, got {arr.size}")
    out = np.ascontiguousarray(arr.reshape(height, width)[::-1])
    if far is not None:
        out *= np.float32(far)
    return out
