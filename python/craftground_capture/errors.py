"""The package's own exceptions."""


class FormatError(ValueError):
    """Bytes from the other side (a PNG, a RAW frame, a message, a zero-copy
    descriptor) that do not read as their format. The message names the
    field or chunk and the offending values; a decoder's own exception (PIL's,
    zlib's) is chained as __cause__. A ValueError, so code written against
    earlier versions keeps catching it."""


class MissingDependencyError(ImportError):
    """An optional package a helper needs (gymnasium for gymnasium_box, PIL
    for decoder="pil") is not importable. `name` is the module's name; the
    message says what to install and what works without it. An ImportError,
    so `except ImportError` catches it."""
