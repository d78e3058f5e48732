"""The shape, dtype, value range and row order of each observation kind, as data.

What an RL user declares as the observation space before the first frame
arrives, written out from docs/wire-format.md: the arrays the readers of this
package return, for a frame of width x height pixels. Arrays are
(height, width, channels) or (height, width), C order, row 0 first.

    spec = observation_spec("png", width=640, height=360)
    spec.shape, spec.dtype          # (360, 640, 3), dtype('uint8')
    space = gymnasium_box("png", width=640, height=360)   # needs gymnasium
    VectorLearner(...).single_observation_space            # planes_space(), below

| kind        | shape      | dtype   | range          | rows     | from                      |
| ----------- | ---------- | ------- | -------------- | -------- | ------------------------- |
| "raw"       | (H, W, 3)  | uint8   | 0-255          | upright  | image_to_array (RAW RGB8) |
| "png"       | (H, W, 3)  | uint8   | 0-255          | upright  | image_to_array (a PNG)    |
| "depth"     | (H, W)     | float32 | 0-1 (0-far)    | upright  | depth_to_array            |
| "cuda_ipc"  | (H, W, 4)  | uint8   | 0-255          | source   | open_ipc_handle (v1)      |
| "ring_rgba" | (H, W, 4)  | uint8   | 0-255          | source   | RingLearner.acquire (v2)  |
| "ring_rgb"  | (H, W, 3)  | uint8   | 0-255          | upright  | RingLearner.acquire (v2)  |
| "ring_depth"| (H, W)     | float32 | 0-1 (0-far)    | upright  | RingFrame.depth (v3)      |

A ring of two eyes (descriptor version 3) prepends the eye axis to its kinds:
observation_spec("ring_rgb", width=w, height=h, eyes=2).shape is (2, h, w, 3).

"source" rows are in the producer's order: bottom-up for a GL texture (the
v1 frame; a v2 RGBA ring says so in RingFrame.rows_bottom_up), upright for a
Vulkan image. Channel order of the RGBA kinds: RGBA, or BGRA for a ring whose
channel_order says so.
"""
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import numpy as np

from ._types import check_size
from .errors import MissingDependencyError


@dataclass(frozen=True)
class ObservationSpec:
    """The array one observation kind reads as, for one frame size.

    kind: the kind's name (see observation_kinds()). shape: (height, width,
    channels) or (height, width) for depth. dtype: a numpy dtype. low, high:
    the values' bounds, inclusive (0-255 for the images; 0-1 for depth, as
    eye distance / far or raw reverse-Z, or 0-far with far=). rows: "upright"
    (row 0 is the picture's top) or "source" (the producer's row order; flip
    a GL frame). device: "cpu" (a numpy array) or "cuda" (device memory, read
    through DLPack / __cuda_array_interface__). reader: the call that returns
    it."""

    kind: str
    shape: Tuple[int, ...]
    dtype: np.dtype
    low: float
    high: float
    rows: str
    device: str
    reader: str


# kind -> (channels or None, dtype, rows, device, reader)
_KINDS: Dict[str, Tuple[Optional[int], Any, str, str, str]] = {
    "raw": (3, np.uint8, "upright", "cpu", "image_to_array / raw_to_array"),
    "png": (3, np.uint8, "upright", "cpu", "image_to_array / png_to_array"),
    "depth": (None, np.float32, "upright", "cpu", "depth_to_array"),
    "cuda_ipc": (4, np.uint8, "source", "cuda", "open_ipc_handle"),
    "ring_rgba": (4, np.uint8, "source", "cuda", "RingLearner.acquire"),
    "ring_rgb": (3, np.uint8, "upright", "cuda", "RingLearner.acquire"),
    "ring_depth": (None, np.float32, "upright", "cuda", "RingFrame.depth"),
}
_EYE_KINDS = ("ring_rgb", "ring_depth")  # the kinds a two-eye ring gives


def observation_kinds() -> Tuple[str, ...]:
    """The names observation_spec() knows: "raw", "png", "depth",
    "cuda_ipc", "ring_rgba", "ring_rgb" (a ring's Descriptor.kind) and
    "ring_depth" (a version 3 ring's depth plane, RingFrame.depth)."""
    return tuple(_KINDS)


def observation_spec(kind: str, *, width: int, height: int, far: Optional[float] = None,
                     eyes: int = 1) -> ObservationSpec:
    """The shape, dtype, bounds and row order of `kind` for a frame of width x
    height pixels: observation_spec("raw", width=640, height=360).shape is
    (360, 640, 3). Sizes are keyword-only, as in image_to_array.

    far: depth only, the far plane in blocks when depth_to_array is called
    with far= (the values are then eye distances, 0 to far); None for values
    of 0 to 1. eyes: 2 for a stereo ring ("ring_rgb", "ring_depth"): the
    shape gets the eye axis first. Raises ValueError for an unknown kind
    (naming the known ones), a size that is not a positive int, a far that
    is not a positive number or given for an image kind, or eyes other than
    1 or 2 (2 only for the ring kinds above)."""
    if kind not in _KINDS:
        raise ValueError(f"observation kind {kind!r} unknown; the kinds are "
                         f"{', '.join(map(repr, _KINDS))}")
    width, height = check_size(width, height)
    channels, dtype, rows, device, reader = _KINDS[kind]
    high = 255.0
    if channels is None:
        high = 1.0
        if far is not None:
            if isinstance(far, bool) or not isinstance(far, (int, float, np.floating)) \
                    or not 0 < far < float("inf"):
                raise ValueError(f"far must be a positive finite number (blocks), got {far!r}")
            high = float(far)
    elif far is not None:
        raise ValueError(f"far= is for kind 'depth' only, not {kind!r}")
    if isinstance(eyes, bool) or eyes not in (1, 2):
        raise ValueError(f"eyes must be 1 or 2, got {eyes!r}")
    if eyes == 2 and kind not in _EYE_KINDS:
        raise ValueError(f"eyes=2 is for the kinds {', '.join(map(repr, _EYE_KINDS))}, not "
                         f"{kind!r}")
    shape = (height, width) if channels is None else (height, width, channels)
    if eyes == 2:
        shape = (2,) + shape
    dt = np.dtype(dtype)
    low = 0.0
    if dt.kind == "u":
        low, high = 0, int(high)  # whole numbers for the integer kinds
    return ObservationSpec(kind, shape, dt, low, high, rows, device, reader)


def gymnasium_box(kind: str, *, width: int, height: int, far: Optional[float] = None,
                  eyes: int = 1) -> Any:
    """A gymnasium.spaces.Box for `kind` (arguments as observation_spec's):
    Box(low, high, shape, dtype) with the spec's bounds, shape and dtype, e.g.
    gymnasium_box("png", width=640, height=360) is Box(0, 255, (360, 640, 3),
    uint8). Raises MissingDependencyError (an ImportError, name "gymnasium")
    when gymnasium is not importable, and what observation_spec raises."""
    s = observation_spec(kind, width=width, height=height, far=far, eyes=eyes)
    try:
        from gymnasium import spaces  # type: ignore
    except ImportError as e:
        raise MissingDependencyError(
            "gymnasium_box needs gymnasium, which is not importable here (pip install "
            "gymnasium); observation_spec() gives the same shape, dtype and bounds without it",
            name="gymnasium") from e
    return spaces.Box(low=s.dtype.type(s.low), high=s.dtype.type(s.high), shape=s.shape,
                      dtype=s.dtype)


class BoxSpace:
    """A box of the package's own, shaped as gymnasium.spaces.Box (which
    planes_space returns where gymnasium is importable): shape, dtype, low
    and high (read-only arrays of `shape`, the bounds inclusive), and
    contains(x) (an array of that shape and dtype within the bounds)."""

    def __init__(self, low: Any, high: Any, shape: Tuple[int, ...], dtype: Any) -> None:
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        # Broadcast views: a batch's bounds take no memory of the batch's size.
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), self.shape)
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), self.shape)

    def contains(self, x: Any) -> bool:
        """Whether x is an array of this shape and dtype within the bounds."""
        a = np.asarray(x)
        return (a.shape == self.shape and a.dtype == self.dtype and bool((a >= self.low).all())
                and bool((a <= self.high).all()))

    __contains__ = contains

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, BoxSpace) and (self.shape, self.dtype) == (other.shape,
                                                                             other.dtype)
                and np.array_equal(self.low, other.low) and np.array_equal(self.high, other.high))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        lo, hi = (b.flat[0] if b.size else None for b in (self.low, self.high))
        return f"BoxSpace({lo}, {hi}, {self.shape}, {self.dtype})"


class DictSpace:
    """Named spaces of the package's own, shaped as gymnasium.spaces.Dict:
    `spaces` (name -> space), space[name], keys(), contains(x) (a dict of
    the same names, each contained)."""

    def __init__(self, spaces: Dict[str, Any]) -> None:
        self.spaces = dict(spaces)

    def __getitem__(self, name: str) -> Any:
        return self.spaces[name]

    def keys(self) -> Any:
        """The planes' names, in order."""
        return self.spaces.keys()

    def contains(self, x: Any) -> bool:
        """Whether x is a dict of the same names, each in its space."""
        return (isinstance(x, dict) and x.keys() == self.spaces.keys()
                and all(self.spaces[k].contains(v) for k, v in x.items()))

    __contains__ = contains

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DictSpace) and self.spaces == other.spaces

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"DictSpace({self.spaces!r})"


def planes_space(specs: Dict[str, ObservationSpec], batch: Optional[int] = None) -> Any:
    """The space of one observation made of the planes `specs` (name -> its
    ObservationSpec, e.g. {"rgb": ..., "depth": ...}), with a batch axis of
    `batch` rows first when given: one plane is its Box, several a Dict of
    Boxes by name. gymnasium.spaces.Box/Dict where gymnasium is importable,
    else BoxSpace/DictSpace (the same shape, dtype, low and high)."""
    try:
        from gymnasium import spaces  # type: ignore
        box, named = spaces.Box, spaces.Dict
    except ImportError:
        box, named = BoxSpace, DictSpace
    lead = () if batch is None else (int(batch),)
    boxes = {name: box(low=s.dtype.type(s.low), high=s.dtype.type(s.high), shape=lead + s.shape,
                       dtype=s.dtype) for name, s in specs.items()}
    if len(boxes) == 1:
        return next(iter(boxes.values()))
    return named(boxes)
