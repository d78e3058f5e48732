"""Readers for the observations of the minecraft-capture native library.

The wire format is described in docs/wire-format.md of the repository. In
short: RAW and PNG images and depth travel bottom-up (the order glReadPixels
returns); every function here returns arrays upright (row 0 is the top row).

    from craftground_capture import decode_observation, image_to_array
    obs = decode_observation(message_bytes)          # fields 1, 24, 37, 38
    rgb = image_to_array(obs.image, width=w, height=h)   # (H, W, 3) uint8, upright

Sizes are keyword-only (width=, height=): swapped sizes of a RAW frame have
the same byte count, so they could not be caught. Bytes that do not read as
their format raise FormatError, a ValueError naming the field or chunk, with
the decoder's own exception (PIL's, zlib's) chained as __cause__.

What each kind of observation reads as, before any frame arrives:

    spec = observation_spec("png", width=w, height=h)  # shape (h, w, 3), uint8, 0-255
    space = gymnasium_box("png", width=w, height=h)    # gymnasium.spaces.Box (optional)

Only the standard library and numpy are needed. PIL decodes PNGs when it is
importable; otherwise a small decoder written with zlib and numpy does.
gymnasium is needed by gymnasium_box only (MissingDependencyError, an
ImportError, without it). The package ships py.typed: its hints are for type
checkers.
"""
from .errors import DeviceError, FormatError, MissingDependencyError
from .frames import depth_to_array, image_to_array, png_to_array, raw_to_array
from .message import Observation, decode_observation
from .png import decode_png
from .cuda_ipc import CudaIpcFrame, open_ipc_handle, parse_ipc_handle
from .ring import (Descriptor, RingError, RingFrame, RingLearner, RingPlane, StaleDescriptor,
                   handle_kind, parse_descriptor)
from .spec import ObservationSpec, gymnasium_box, observation_kinds, observation_spec
from .vector import VectorBatch, VectorLearner

__all__ = [
    "CudaIpcFrame",
    "Descriptor",
    "DeviceError",
    "FormatError",
    "MissingDependencyError",
    "Observation",
    "ObservationSpec",
    "RingError",
    "RingFrame",
    "RingLearner",
    "RingPlane",
    "StaleDescriptor",
    "VectorBatch",
    "VectorLearner",
    "decode_observation",
    "decode_png",
    "depth_to_array",
    "gymnasium_box",
    "handle_kind",
    "image_to_array",
    "observation_kinds",
    "observation_spec",
    "open_ipc_handle",
    "parse_descriptor",
    "parse_ipc_handle",
    "png_to_array",
    "raw_to_array",
]
__version__ = "0.2.0"
