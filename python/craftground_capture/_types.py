"""Type aliases and a base class shared by the modules (not part of the API)."""
from typing import TypeVar, Union

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
