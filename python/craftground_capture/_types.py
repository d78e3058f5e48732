"""Type aliases, a base class and a check shared by the modules (not part
of the API)."""
from typing import Tuple, TypeVar, Union

import numpy as np

# What the readers accept as bytes: bytes, bytearray, memoryview (a numpy
# uint8 array or an mmap passes too, through the buffer protocol).
Buffer = Union[bytes, bytearray, memoryview]


_C = TypeVar("_C", bound="Closes")


class Closes:
    """What owns driver resources and a close(): a context manager that
    closes on exit, and closes when collected (errors then are swallowed: at
    interpreter shutdown the driver may be gone)."""

    def close(self) -> None:  # pragma: no cover - every subclass has its own
        raise NotImplementedError

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def check_size(width: object, height: object) -> Tuple[int, int]:
    """(width, height) as ints; ValueError unless both are positive ints."""
    for name, v in (("width", width), ("height", height)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    return int(width), int(height)  # type: ignore[call-overload]
