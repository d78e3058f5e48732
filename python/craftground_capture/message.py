"""ObservationSpaceMessage fields 1, 24, 37 and 38, decoded by hand.

So that a user without the protobuf package can read a message: proto3 wire
format (varints, length-delimited fields, packed or unpacked floats), the
four fields this library produces, every other field skipped. Numbers and
types are those of the mod's full schema (proto/observation.proto).
"""
from typing import Any, NamedTuple, Union

import numpy as np

from ._types import Buffer
from .errors import FormatError

IMAGE, IMAGE_2, IPC_HANDLE, DEPTH = 1, 24, 37, 38
_VARINT, _I64, _LEN, _SGROUP, _EGROUP, _I32 = 0, 1, 2, 3, 4, 5


class Observation(NamedTuple):
    """The four fields of an ObservationSpaceMessage this library produces, as
    sent (decode_observation returns it). image, image_2: RAW RGB8 or PNG
    bytes, rows bottom-up, b"" when absent (image_to_array makes them (H, W, 3)
    uint8 upright). ipc_handle: a 68-byte CUDA IPC handle, a v2 ring
    descriptor or a 4-byte mach port, b"" when absent (handle_kind tells
    which). depth: 1-D float32 of H * W values, rows bottom-up, empty when
    absent (depth_to_array makes it (H, W) upright)."""

    image: bytes        # RAW RGB8 or PNG, rows bottom-up (b"" when absent)
    image_2: bytes      # the second eye, same format
    ipc_handle: bytes   # 68-byte CUDA IPC handle, ring descriptor or 4-byte mach port
    depth: np.ndarray   # float32, bottom-up rows (empty when absent)


def _varint(buf, pos):
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise FormatError("protobuf: truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise FormatError("protobuf: varint longer than 10 bytes")


def _skip(buf, pos, wire, field, depth=0):
    """Position after the value of a field we do not read."""
    if wire == _VARINT:
        return _varint(buf, pos)[1]
    if wire == _I64:
        pos += 8
    elif wire == _I32:
        pos += 4
    elif wire == _LEN:
        n, pos = _varint(buf, pos)
        pos += n
    elif wire == _SGROUP:  # deprecated groups: skip to the matching end tag
        if depth > 64:
            raise FormatError("protobuf: groups nested too deeply")
        while True:
            tag, pos = _varint(buf, pos)
            if tag & 7 == _EGROUP:
                if tag >> 3 != field:
                    raise FormatError("protobuf: mismatched end of group")
                return pos
            pos = _skip(buf, pos, tag & 7, tag >> 3, depth + 1)
    else:
        raise FormatError(f"protobuf: bad wire type {wire} for field {field}")
    if pos > len(buf):
        raise FormatError(f"protobuf: field {field} runs past the end of the message")
    return pos


def decode_observation(message: Union[Buffer, Any]) -> Observation:
    """Serialized ObservationSpaceMessage (bytes, or a protobuf message object
    with SerializeToString) -> Observation(image, image_2, ipc_handle, depth).

    Fields 1, 24, 37 and 38 are read (the last occurrence of a bytes field
    wins, depth floats accumulate, packed or not); every other field is
    skipped. Turn the fields into arrays with image_to_array and
    depth_to_array. Raises FormatError (a ValueError) naming the field on a
    message that is not proto3 wire format: a truncated or over-long
    varint, a field running past the end, a wrong wire type for one of the
    four fields, field number 0, unbalanced groups."""
    if hasattr(message, "SerializeToString"):
        message = message.SerializeToString()
    buf = memoryview(message).cast("B")
    fields = {IMAGE: b"", IMAGE_2: b"", IPC_HANDLE: b""}
    depth_parts = []
    pos = 0
    while pos < len(buf):
        tag, pos = _varint(buf, pos)
        field, wire = tag >> 3, tag & 7
        if field == 0:
            raise FormatError("protobuf: field number 0")
        if field in fields or (field == DEPTH and wire == _LEN):
            if wire != _LEN:
                raise FormatError(f"protobuf: field {field} has wire type {wire}, expected 2")
            n, pos = _varint(buf, pos)
            if pos + n > len(buf):
                raise FormatError(f"protobuf: field {field} runs past the end of the message")
            value = bytes(buf[pos:pos + n])
            pos += n
            if field == DEPTH:  # packed: n / 4 little-endian floats
                if n % 4:
                    raise FormatError(f"protobuf: packed depth of {n} bytes is not whole floats")
                depth_parts.append(value)
            else:
                fields[field] = value  # the last occurrence wins, as in protobuf
        elif field == DEPTH and wire == _I32:  # unpacked: one float per entry
            if pos + 4 > len(buf):
                raise FormatError("protobuf: depth float runs past the end of the message")
            depth_parts.append(bytes(buf[pos:pos + 4]))
            pos += 4
        elif field == DEPTH:
            raise FormatError(f"protobuf: field 38 has wire type {wire}, expected 2 or 5")
        else:
            pos = _skip(buf, pos, wire, field)
    depth = np.frombuffer(b"".join(depth_parts), dtype="<f4").astype(np.float32)
    return Observation(fields[IMAGE], fields[IMAGE_2], fields[IPC_HANDLE], depth)
