"""Checks of the reader package's public API as an RL user meets it
(python/craftground_capture): every public name documented and annotated,
the PEP 561 marker, the shape/dtype table of the observation kinds, the
gymnasium Box helper, and the package's own errors for bad bytes.

Usage: test_api.py
Exit 0 pass, 1 failure.

Expected shapes, dtypes and bounds are written out by hand from
docs/wire-format.md and README's Python section, not taken from the code.
The gymnasium helper runs against a stand-in module put in sys.modules (and
against the real gymnasium too where it is installed); PIL's errors are
those of the PIL installed here (Debian's python3-pil).
"""
import importlib
import inspect
import io
import os
import struct
import sys
import types
import typing
import zlib

import numpy as np

import craftground_capture as cc
import test_reader as T
from craftground_capture import frames as F

try:
    from PIL import Image
except ImportError:
    Image = None

# check / raises count into test_reader's failures; png_file writes PNGs from
# the specification (test_reader.py, the reader's other checks).
check, raises, png_file = T.check, T.raises, T.png_file


# --- every public name documented and annotated ---------------------------------

def _own(fn):
    """Whether fn (a function, or a property's getter) is the package's code,
    written in it (not made by dataclass or NamedTuple)."""
    return (getattr(fn, "__module__", "").startswith("craftground_capture")
            # generated code reads "<string>", a dataclass's __repr__ reprlib.py
            and os.path.dirname(fn.__code__.co_filename) == os.path.dirname(cc.__file__))


def _documented(obj, what):
    doc = inspect.getdoc(obj) or ""
    # A NamedTuple without a docstring gets "Name(field, ...)": not documentation.
    generated = isinstance(obj, type) and doc.startswith(obj.__name__ + "(")
    check(len(doc) >= 20 and not generated, f"{what} has a docstring")


def _annotated(fn, what, skip_self):
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())[1 if skip_self else 0:]
    bare = [p.name for p in params if p.annotation is inspect.Parameter.empty]
    ret = sig.return_annotation is not inspect.Signature.empty
    try:
        typing.get_type_hints(fn)  # every annotation resolves
        resolves = True
    except Exception as e:  # noqa: BLE001 - any failure is the finding
        resolves = e
    check(not bare and ret and resolves is True,
          f"{what} is annotated" + (f" (parameters without: {bare})" if bare else "")
          + ("" if ret else " (no return annotation)")
          + ("" if resolves is True else f" (hints do not resolve: {resolves})"))


def _check_public(name, obj):
    """A function, or a class and every non-private method and property it
    offers (inherited ones too, where the package wrote them)."""
    if inspect.isfunction(obj):
        _documented(obj, f"{name}()")
        _annotated(obj, f"{name}()", False)
        return
    if not inspect.isclass(obj):
        check(False, f"{name} is a function or a class (got {type(obj).__name__})")
        return
    _documented(obj, f"class {name}")
    members = {}
    for klass in reversed(obj.__mro__):  # what the class offers, inherited too
        members.update(vars(klass))
    for attr, value in sorted(members.items()):
        fn = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
        if not inspect.isfunction(fn) or not _own(fn):
            continue
        if attr.startswith("_") and not attr.startswith("__"):
            continue  # private
        label = f"{name}.{attr}"
        if not attr.startswith("__"):
            _documented(fn, label)
        _annotated(fn, label, not isinstance(value, staticmethod))


def public_names():
    names = cc.__all__
    check(len(names) == len(set(names)), "__all__ has no duplicates")
    for name in names:
        obj = getattr(cc, name, None)
        check(obj is not None, f"{name} in __all__ exists")
        if obj is not None:
            _check_public(name, obj)
    # The submodules' other public names (no leading underscore), which a user
    # can import too: craftground_capture.ring.receive_ring, ...
    pkg_dir = os.path.dirname(cc.__file__)
    mods = sorted(f[:-3] for f in os.listdir(pkg_dir) if f.endswith(".py") and f[0] != "_")
    check({"errors", "frames", "message", "png", "cuda_ipc", "ring", "spec"} <= set(mods),
          f"submodules: {mods}")
    for m in mods:
        mod = importlib.import_module(f"craftground_capture.{m}")
        for name, obj in sorted(vars(mod).items()):
            if (name.startswith("_") or name in cc.__all__ or not
                    (inspect.isfunction(obj) or inspect.isclass(obj))
                    or obj.__module__ != mod.__name__):
                continue
            _check_public(f"{m}.{name}", obj)
    # Attributes a user reads off the returned objects.
    for cname in ("Observation", "Descriptor", "ObservationSpec"):
        cls = getattr(cc, cname, None)
        if cls is None:
            check(False, f"craftground_capture.{cname} exists")
            continue
        hints = typing.get_type_hints(cls)
        fields = getattr(cls, "_fields", None) or getattr(cls, "__slots__", None) or \
            [f for f in getattr(cls, "__dataclass_fields__", {})]
        bare = [f for f in fields if f not in hints]
        check(fields and not bare, f"{cls.__name__}'s fields are annotated"
              + (f" (without: {bare})" if bare else ""))
    marker = os.path.join(os.path.dirname(cc.__file__), "py.typed")
    check(os.path.isfile(marker), "the package has the PEP 561 marker py.typed")


# --- the shape and dtype of each observation kind ------------------------------------

# Hand-written from docs/wire-format.md / README: kind -> (shape for width 5,
# height 3, dtype, low, high).
EXPECTED = {
    "raw": ((3, 5, 3), np.uint8, 0, 255),        # image_to_array of RAW RGB8
    "png": ((3, 5, 3), np.uint8, 0, 255),        # image_to_array of a PNG
    "depth": ((3, 5), np.float32, 0.0, 1.0),     # eye distance / far, or reverse-Z
    "cuda_ipc": ((3, 5, 4), np.uint8, 0, 255),   # the v1 zero-copy frame, RGBA
    "ring_rgba": ((3, 5, 4), np.uint8, 0, 255),  # v2 ring, RGBA/BGRA slots
    "ring_rgb": ((3, 5, 3), np.uint8, 0, 255),   # v2 ring, format 23
    "ring_depth": ((3, 5), np.float32, 0.0, 1.0),  # v3 ring's depth plane (linear or raw)
}


def spec():
    check(set(cc.observation_kinds()) == set(EXPECTED),
          f"observation_kinds(): {cc.observation_kinds()}")
    for kind, (shape, dtype, low, high) in EXPECTED.items():
        s = cc.observation_spec(kind, width=5, height=3)
        check(s.kind == kind and s.shape == shape and s.dtype == np.dtype(dtype)
              and s.low == low and s.high == high,
              f"observation_spec({kind!r}, width=5, height=3): {s.shape} {s.dtype} "
              f"[{s.low}, {s.high}], want {shape} {np.dtype(dtype)} [{low}, {high}]")
        check(isinstance(s.dtype, np.dtype), f"{kind}: dtype is a numpy dtype")
        check(s.rows in ("upright", "source"), f"{kind}: rows {s.rows!r} says the row order")
    check(cc.observation_spec("depth", width=5, height=3, far=160.0).high == 160.0,
          "depth with far=160: high 160 (world units)")
    check(cc.observation_spec("raw", width=640, height=360).shape == (360, 640, 3),
          "raw 640x360: (360, 640, 3)")
    check(cc.observation_spec("ring_rgba", width=640, height=360).rows == "source"
          and cc.observation_spec("cuda_ipc", width=640, height=360).rows == "source"
          and cc.observation_spec("ring_rgb", width=640, height=360).rows == "upright"
          and cc.observation_spec("png", width=640, height=360).rows == "upright",
          "row order: RGBA zero-copy frames as the source stores them, the rest upright")
    raises(ValueError, lambda: cc.observation_spec("jpeg", width=5, height=3), "unknown kind",
           ("jpeg", "raw", "ring_rgb"))
    raises(ValueError, lambda: cc.observation_spec("raw", width=0, height=3), "width 0", ("width",))
    raises(ValueError, lambda: cc.observation_spec("raw", width=5, height=True), "height True",
           ("height",))
    raises(TypeError, lambda: cc.observation_spec("raw", 5, 3), "positional sizes")
    raises(ValueError, lambda: cc.observation_spec("raw", width=5, height=3, far=10.0),
           "far= for an image", ("far",))
    raises(ValueError, lambda: cc.observation_spec("depth", width=5, height=3, far=-1.0),
           "far=-1", ("far",))
    # Two eyes (descriptor version 3): the eye axis first, ring kinds only.
    check(cc.observation_spec("ring_rgb", width=5, height=3, eyes=2).shape == (2, 3, 5, 3)
          and cc.observation_spec("ring_depth", width=5, height=3, eyes=2).shape == (2, 3, 5)
          and cc.observation_spec("ring_depth", width=5, height=3, eyes=2).dtype == np.float32,
          "eyes=2: (2, 3, 5, 3) uint8 and (2, 3, 5) float32")
    raises(ValueError, lambda: cc.observation_spec("png", width=5, height=3, eyes=2),
           "eyes=2 for a PNG", ("eyes=2",))
    for bad in (0, 3, True):
        raises(ValueError, lambda bad=bad: cc.observation_spec(
            "ring_rgb", width=5, height=3, eyes=bad), f"eyes={bad!r}", ("eyes",))

    # The table tells the truth about what the readers return.
    raw = bytes(range(45))
    img = cc.image_to_array(raw, width=5, height=3)
    s = cc.observation_spec("raw", width=5, height=3)
    check(img.shape == s.shape and img.dtype == s.dtype, "image_to_array(RAW) matches the raw spec")
    dep = cc.depth_to_array([0.5] * 15, width=5, height=3)
    s = cc.observation_spec("depth", width=5, height=3)
    check(dep.shape == s.shape and dep.dtype == s.dtype, "depth_to_array matches the depth spec")


# --- the gymnasium Box helper ------------------------------------------------------------

class _StandInBox:
    def __init__(self, low, high, shape=None, dtype=np.float32, seed=None):
        self.low, self.high, self.shape, self.dtype = low, high, tuple(shape), np.dtype(dtype)


def _stand_in_gymnasium():
    gym = types.ModuleType("gymnasium")
    spaces = types.ModuleType("gymnasium.spaces")
    spaces.Box = _StandInBox
    gym.spaces = spaces
    return {"gymnasium": gym, "gymnasium.spaces": spaces}


def _with_modules(mods, fn):
    saved = {k: sys.modules[k] for k in mods if k in sys.modules}
    sys.modules.update(mods)
    try:
        return fn()
    finally:
        for k in mods:
            sys.modules.pop(k, None)
        sys.modules.update(saved)


def gym_box():
    box = _with_modules(_stand_in_gymnasium(),
                        lambda: cc.gymnasium_box("raw", width=5, height=3))
    check(isinstance(box, _StandInBox) and box.shape == (3, 5, 3) and box.dtype == np.uint8
          and box.low == 0 and box.high == 255,
          "gymnasium_box('raw') builds spaces.Box(0, 255, (3, 5, 3), uint8) (stand-in)")
    box = _with_modules(_stand_in_gymnasium(),
                        lambda: cc.gymnasium_box("depth", width=5, height=3, far=100.0))
    check(box.shape == (3, 5) and box.dtype == np.float32 and box.low == 0.0 and box.high == 100.0,
          "gymnasium_box('depth', far=100) is Box(0, 100, (3, 5), float32) (stand-in)")
    # Not installed: sys.modules[name] = None makes `import name` raise ImportError.
    e = _with_modules({"gymnasium": None, "gymnasium.spaces": None},
                      lambda: raises(ImportError, lambda: cc.gymnasium_box(
                          "raw", width=5, height=3), "gymnasium missing",
                          ("gymnasium", "pip install")))
    check(isinstance(e, cc.MissingDependencyError) and e.name == "gymnasium"
          and isinstance(e.__cause__, ImportError),
          "gymnasium missing: MissingDependencyError(name='gymnasium'), the ImportError chained")
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        print("note: gymnasium is not installed; the helper ran against a stand-in only")
        return
    for kind, (shape, dtype, low, high) in EXPECTED.items():
        box = cc.gymnasium_box(kind, width=5, height=3)
        check(isinstance(box, gymnasium.spaces.Box) and box.shape == shape
              and box.dtype == np.dtype(dtype) and box.contains(np.full(shape, high, dtype))
              and not box.contains(np.zeros(shape[::-1] if len(shape) == 2 else (5, 3, 9), dtype)),
              f"real gymnasium Box for {kind}: {box}")


# --- the package's own errors for bad bytes ---------------------------------------------

# A 2x2 RGB PNG, rows unfiltered; the first file row (the picture's bottom) is 0x10.
GOOD = png_file(2, 2, 3, [zlib.compress(b"\0" + b"\x10" * 6 + b"\0" + b"\x20" * 6)])
BAD_CRC = GOOD[:40] + bytes([GOOD[40] ^ 1]) + GOOD[41:]       # a byte of IDAT's type
GARBAGE = b"\x89PNG\r\n\x1a\n" + b"x" * 40                      # the signature, then nonsense
BAD_ZLIB = png_file(2, 2, 3, [b"\x78\x9c" + b"\xff" * 10])       # IDAT not a deflate stream
HUGE = png_file(0x7FFFFFFF, 0x7FFFFFFF, 4, [zlib.compress(b"\0" * 64)])  # IHDR's maximum size


def errors():
    want = np.array([[[0x20] * 3] * 2, [[0x10] * 3] * 2], np.uint8)
    for dec in ("builtin", "pil") if Image is not None else ("builtin",):
        check(np.array_equal(cc.png_to_array(GOOD, decoder=dec), want), f"{dec}: the good PNG reads")
    if Image is None:
        print("note: PIL is not importable; its path was not checked")
    cases = [("bad CRC", BAD_CRC), ("garbage after the signature", GARBAGE),
             ("IDAT not zlib", BAD_ZLIB)]
    for dec in ("pil", "builtin") if Image is not None else ("builtin",):
        for what, data in cases:
            e = raises(cc.FormatError, lambda d=data: cc.png_to_array(d, decoder=dec),
                       f"{dec}: {what}", ("image",), ("BytesIO",))
            check(e is not None and isinstance(e, ValueError) and e.__cause__ is not None,
                  f"{dec}: {what}: a ValueError, its cause chained "
                  f"({type(e.__cause__).__module__}.{type(e.__cause__).__name__})"
                  if e is not None else f"{dec}: {what}: no FormatError")
            raises(cc.FormatError, lambda d=data: cc.image_to_array(
                d, width=2, height=2, decoder=dec, field="image_2"),
                f"{dec}: {what} through image_to_array names image_2", ("image_2",))
        if dec == "pil":
            e = raises(cc.FormatError, lambda: cc.png_to_array(BAD_CRC, decoder="pil"),
                       "pil: the issue's corrupt PNG", ("image", "PIL"), ("BytesIO",))
            from PIL import UnidentifiedImageError
            check(e is not None and isinstance(e.__cause__, UnidentifiedImageError),
                  "pil: the cause is PIL's UnidentifiedImageError")
            gif = io.BytesIO()
            Image.new("RGB", (2, 2)).save(gif, "GIF")
            raises(cc.FormatError, lambda: cc.png_to_array(gif.getvalue(), decoder="pil"),
                   "pil: a GIF is not a PNG", ("image", "not a PNG"))
    e = raises(cc.FormatError, lambda: cc.png_to_array(HUGE, decoder="builtin"),
               "builtin: IHDR 2147483647x2147483647 RGBA", ("image", "2147483647"))
    raises(cc.FormatError, lambda: cc.decode_png(png_file(0x80000000, 1, 3, [zlib.compress(b"\0")])),
           "builtin: IHDR width 2^31 (past the PNG maximum)", ("2147483648",))
    e = raises(cc.FormatError, lambda: cc.png_to_array(BAD_CRC, decoder="builtin"),
               "builtin: bad CRC names the field and the chunk", ("image", "CRC"))
    check(e is not None and isinstance(e.__cause__, cc.FormatError),
          "builtin: the decoder's own FormatError is chained")
    e = raises(cc.FormatError, lambda: cc.png_to_array(BAD_ZLIB, decoder="builtin"),
               "builtin: IDAT not zlib", ("image", "IDAT", "zlib"))
    check(e is not None and isinstance(e.__cause__, cc.FormatError)
          and isinstance(e.__cause__.__cause__, zlib.error),
          "builtin: IDAT not zlib: the decoder's FormatError, and zlib's error under it, chained")

    saved = F._PILImage
    F._PILImage = None  # as on a machine without PIL
    try:
        e = raises(ImportError, lambda: cc.png_to_array(GOOD, decoder="pil"), "decoder='pil' "
                   "without PIL", ("PIL", "builtin"))
        check(isinstance(e, cc.MissingDependencyError), "without PIL: MissingDependencyError")
        check(np.array_equal(cc.png_to_array(GOOD), want), "without PIL: None picks the builtin")
    finally:
        F._PILImage = saved

    raises(cc.FormatError, lambda: cc.depth_to_array(b"\0" * 7, width=1, height=2),
           "depth bytes not whole floats", ("depth", "7 bytes"))
    raises(cc.FormatError, lambda: cc.parse_ipc_handle(b"\0" * 67), "ipc handle of 67 bytes",
           ("68", "67"))
    raises(cc.FormatError, lambda: cc.parse_ipc_handle(b"\0" * 64 + struct.pack("<i", -1)),
           "ipc handle of device -1", ("-1",))


def main():
    public_names()
    spec()
    gym_box()
    errors()
    print(f"test_api: {T.failures} failures")
    return 1 if T.failures else 0


if __name__ == "__main__":
    sys.exit(main())
