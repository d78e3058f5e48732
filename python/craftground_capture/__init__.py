"""Readers for the observations of the minecraft-capture native library.

The wire format is described in docs/wire-format.md of the repository. In
short: RAW and PNG images and depth travel bottom-up (the order glReadPixels
returns); every function here returns arrays upright (row 0 is the top row).

    from craftground_capture import decode_observation, image_to_array
    obs = decode_observation(message_bytes)          # fields 1, 24, 37, 38
    rgb = image_to_array(obs.image, width=w, height=h)   # (H, W, 3) uint8, upright

Sizes are keyword-only (width=, height=): swapped sizes of a RAW frame have
the same byte count, so they could not be caught. Bytes that do not read as
their format raise FormatError, a ValueError naming the field or chunk.

Only the standard library and numpy are needed. PIL decodes PNGs when it is
importable; otherwise a small decoder written with zlib and numpy does.
"""
from .errors import FormatError
from .frames import depth_to_array, image_to_array, png_to_array, raw_to_array
from .message import Observation, decode_observation
from .png import decode_png
from .cuda_ipc import CudaIpcFrame, open_ipc_handle, parse_ipc_handle
from .ring import RingFrame, RingLearner, handle_kind, parse_descriptor
from .vector import VectorBatch, VectorLearner

__all__ = [
    "CudaIpcFrame",
    "FormatError",
    "RingFrame",
    "RingLearner",
    "VectorBatch",
    "VectorLearner",
    "Observation",
    "decode_observation",
    "decode_png",
    "handle_kind",
    "depth_to_array",
    "image_to_array",
    "open_ipc_handle",
    "parse_descriptor",
    "parse_ipc_handle",
    "png_to_array",
    "raw_to_array",
]
__version__ = "0.2.0"
