"""Observation fields -> numpy arrays, upright (row 0 is the top row).

The library sends every CPU observation bottom-up (docs/wire-format.md):
RAW RGB8 rows, the rows of the PNG, and the depth floats. These functions
undo that, so the arrays look the way the game showed the frame.

Sizes are keyword-only (width=, height=): a RAW frame or depth field of W x H
has the same length as one of H x W, so swapped positional sizes would give
a garbled array without any error. A positional size raises TypeError (since
version 0.2.0). Data of the wrong length, and a PNG that does not decode
(through PIL or the built-in decoder), raise FormatError (a ValueError)
naming the field, the decoder's own exception chained as its __cause__.
"""
import io
import re
from typing import Optional, Sequence, Tuple, Union

import numpy as np

from ._types import Buffer, check_size
from .errors import FormatError, MissingDependencyError
from .png import PNG_SIGNATURE, decode_png

try:  # PIL is the standard decoder when present; the built-in one otherwise.
    from PIL import Image as _PILImage
except ImportError:  # pragma: no cover - depends on the machine
    _PILImage = None


def _keyword_size(fn: str, positional: Tuple[object, ...]) -> None:
    if positional:
        raise TypeError(f"{fn}() takes the size by keyword: {fn}(data, width=W, height=H) "
                        f"(positional sizes were removed in version 0.2.0, as swapped ones "
                        f"go unnoticed); got {len(positional)} extra positional argument(s)")


def raw_to_array(data: Buffer, *positional: object, width: Optional[int] = None,
                 height: Optional[int] = None) -> np.ndarray:
    """RAW bytes (RGB8, rows bottom-up) -> (height, width, 3) uint8, upright:
    raw_to_array(data, width=W, height=H), sizes in pixels, keyword-only.

    The result is a C-contiguous copy, so torch.from_numpy and friends take it
    as it is. Raises FormatError when the length is not H * W * 3 bytes,
    ValueError when a size is not a positive int, TypeError for positional
    sizes.
    """
    _keyword_size("raw_to_array", positional)
    width, height = check_size(width, height)
    buf = np.frombuffer(data, dtype=np.uint8)
    want = width * height * 3
    if buf.size != want:
        raise FormatError(f"RAW image of width {width}, height {height} needs {height} * {width} "
                          f"* 3 = {want} bytes, got {buf.size}")
    return np.ascontiguousarray(buf.reshape(height, width, 3)[::-1])


def _pil_reason(e: BaseException) -> str:
    """PIL's message without the BytesIO object it names as the file."""
    msg = re.sub(r"\s*<_io\.BytesIO object at 0x[0-9a-fA-F]+>", "", str(e))
    return f"{type(e).__name__}: {msg}" if msg else type(e).__name__


def _decode_pil(data: bytes, field: str) -> np.ndarray:
    if _PILImage is None:
        raise MissingDependencyError("decoder='pil' needs PIL (pip install Pillow), which is "
                                     "not importable here; decoder='builtin' or None decodes "
                                     "without it", name="PIL")
    try:
        with _PILImage.open(io.BytesIO(data)) as im:
            return np.asarray(im.convert("RGB"))
    except MemoryError:
        raise
    except Exception as e:  # PIL raises OSError, SyntaxError, ValueError, zlib.error, ...
        raise FormatError(f"{field}: PNG of {len(data)} bytes does not decode through PIL "
                          f"({_pil_reason(e)})") from e


def _decode_builtin(data: bytes, field: str) -> np.ndarray:
    try:
        img = decode_png(data)
    except FormatError as e:
        raise FormatError(f"{field}: {e}") from e
    if img.shape[2] < 3:
        raise FormatError(f"{field}: the built-in PNG decoder reads RGB or RGBA here; this PNG "
                          f"has {img.shape[2]} channel(s) (grey), which PIL converts")
    return img[..., :3]


def png_to_array(data: Buffer, decoder: Optional[str] = None, *,
                 field: str = "image") -> np.ndarray:
    """PNG bytes (rows bottom-up, as the library sends them) -> (H, W, 3) uint8,
    upright (row 0 is the picture's top), H and W from the PNG's header.

    decoder: "pil", "builtin" or None (PIL when importable, else built-in).
    An alpha channel, if a PNG has one, is dropped (the library writes RGB).
    field: the message field the bytes came from, named in errors.

    Raises FormatError (a ValueError) naming `field` when the bytes are not a
    PNG or do not decode, with the decoder's exception (PIL's
    UnidentifiedImageError, the built-in decoder's FormatError naming the
    chunk, ...) as __cause__; MissingDependencyError (an ImportError) for
    decoder="pil" without PIL; ValueError for an unknown decoder.
    """
    if decoder is None:
        decoder = "pil" if _PILImage is not None else "builtin"
    if decoder not in ("pil", "builtin"):
        raise ValueError(f"decoder must be 'pil', 'builtin' or None, got {decoder!r}")
    data = bytes(data)
    if data[:8] != PNG_SIGNATURE:
        raise FormatError(f"{field}: not a PNG (its first bytes are {data[:8].hex() or 'none'}, "
                          f"a PNG's are {PNG_SIGNATURE.hex()})")
    img = _decode_pil(data, field) if decoder == "pil" else _decode_builtin(data, field)
    return np.ascontiguousarray(img[::-1])


def image_to_array(data: Buffer, *positional: object, width: Optional[int] = None,
                   height: Optional[int] = None, decoder: Optional[str] = None,
                   field: str = "image") -> np.ndarray:
    """An `image` / `image_2` field, RAW or PNG (told apart by the PNG signature),
    -> (height, width, 3) uint8, upright: image_to_array(data, width=W, height=H),
    sizes in pixels, keyword-only.

    RAW needs width and height and must be H * W * 3 bytes; for a PNG they are
    optional and checked when given. decoder: as png_to_array's. field: the
    field's name for error messages ("image_2" for the second eye).

    Raises FormatError (a ValueError) naming the field for a RAW length or PNG
    size that does not match, or a PNG that does not decode; ValueError when a
    RAW image has no size; TypeError for positional sizes.
    """
    _keyword_size("image_to_array", positional)
    if bytes(data[:8]) == PNG_SIGNATURE:
        img = png_to_array(data, decoder, field=field)
        if (width is not None and img.shape[1] != width) or (
                height is not None and img.shape[0] != height):
            raise FormatError(f"{field}: PNG is width {img.shape[1]}, height {img.shape[0]}; "
                              f"expected width {width}, height {height}")
        return img
    if width is None or height is None:
        raise ValueError("a RAW image needs width= and height= (the message does not carry them)")
    return raw_to_array(data, width=width, height=height)


def depth_to_array(values: Union[Buffer, Sequence[float], np.ndarray], *positional: object,
                   width: Optional[int] = None, height: Optional[int] = None,
                   far: Optional[float] = None) -> np.ndarray:
    """The `depth` field -> (height, width) float32, upright:
    depth_to_array(values, width=W, height=H), sizes in pixels, keyword-only.
    It must hold H * W floats, else FormatError.

    values: the floats as a sequence (a list, protobuf's repeated field, a
    numpy array) or as bytes of little-endian float32 (the packed field's
    payload, a float[] written to a file).

    With requiresDepthConversion the library sends eye distance / far (the
    near plane reads near/far, the far plane and the sky 1.0); pass `far` to
    get the eye distance in world units (blocks) instead. Without conversion
    the values are the raw reverse-Z depth buffer (1 near, 0 far) and `far`
    must stay None.

    Raises FormatError when the count is not H * W (or the bytes are not
    whole floats), ValueError when a size is not a positive int, TypeError
    for positional sizes.
    """
    _keyword_size("depth_to_array", positional)
    width, height = check_size(width, height)
    if isinstance(values, (bytes, bytearray, memoryview)):
        nbytes = memoryview(values).nbytes
        if nbytes % 4:
            raise FormatError(f"depth of {nbytes} bytes is not whole little-endian float32s "
                              f"(4 bytes each)")
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
