"""The package's own exceptions."""


class FormatError(ValueError):
    """Bytes from the other side (a PNG, a RAW frame, a message, a zero-copy
    descriptor) that do not read as their format. The message names the
    field or chunk and the offending values. A ValueError, so code written
    against earlier versions keeps catching it."""
