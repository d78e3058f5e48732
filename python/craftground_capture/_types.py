"""Type aliases shared by the modules' hints (not part of the API)."""
from typing import Union

# What the readers accept as bytes: bytes, bytearray, memoryview (a numpy
# uint8 array or an mmap passes too, through the buffer protocol).
Buffer = Union[bytes, bytearray, memoryview]
