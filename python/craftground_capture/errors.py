"""The package's own exceptions."""


class FormatError(ValueError):
    """Bytes from the other side (a PNG, a RAW frame, a message, a zero-copy
    descriptor) that do not read as their format. The message names the
    field or chunk and the offending values; a decoder's own exception (PIL's,
    zlib's) is chained as __cause__. A ValueError, so code written against
    earlier versions keeps catching it."""


class RingError(RuntimeError):
    """The ring cannot be used as asked (refused, closed, broken protocol)."""


class StaleDescriptor(RingError):
    """The descriptor names a frame (or a ring) that is gone."""


class DeviceError(RingError, ValueError):
    """`device=` names no CUDA device of this process (an ordinal out of
    range, a UUID of no device, a malformed UUID), the frames cannot reach
    it as `cross_gpu=` asks, or this process has no CUDA driver at all
    (libcuda.so.1 cannot be loaded). The message names what was asked and
    the devices that exist. A RingError (what the learner raises) and a
    ValueError (a bad argument)."""


class MissingDependencyError(ImportError):
    """An optional package a helper needs (gymnasium for gymnasium_box, PIL
    for decoder="pil") is not importable. `name` is the module's name; the
    message says what to install and what works without it. An ImportError,
    so `except ImportError` catches it."""
