"""How the learner reaches a producer: the one small interface each OS's
transport implements, and the choice of one (docs/architecture.md, "The
learner package's layers"; the hand-off itself: docs/zero-copy-v2/protocol.md).

A transport connects to the address a descriptor names (its socket_path),
reads the hello and receives the OS handles that come with it (the control
block's, each slot's memory, the semaphore's: every one the caller's from
then on), maps the control block from its handle, and closes a handle that
nobody took. handle_type tells the GPU importer what the memory and
semaphore handles are ("opaque_fd": POSIX file descriptors).

POSIX today (_posix.PosixTransport: a Unix socket, SCM_RIGHTS, memfds). A
Windows transport (a named pipe, the handles duplicated into this process
with DuplicateHandle, the control block a file mapping, handle_type
"opaque_win32") is a sibling file and its row in TRANSPORTS; the learners
take it as transport="win32" (or as the default, on Windows). A transport's
file is imported only when it is chosen (fcntl and AF_UNIX are POSIX's), so
the package imports on every OS.
"""
import sys
from typing import Any, Callable, Dict, List, Protocol, Tuple

from .errors import RingError


class Transport(Protocol):
    """What a learner needs of a transport (PosixTransport is one)."""

    name: str
    handle_type: str

    def connect(self, address: str, timeout: float) -> Tuple[Any, Dict[str, int], List[Any]]:
        """(the connection: kept open while the learner is connected, then
        close()d; the hello, as _wire.parse_hello returns it; the handles, in
        the hello's order). RingError when nobody serves the address, the
        producer refuses or the hello is malformed; no handle left open."""
        ...

    def map_control(self, handle: Any) -> Any:
        """The control block behind `handle` (consumed), mapped read/write: a
        writable buffer of _wire.CONTROL_SIZE bytes with close(). RingError
        when it is not a block the producer cannot shrink under us."""
        ...

    def close_handle(self, handle: Any) -> None:
        """Close a received handle that nobody took."""
        ...


def _make_posix() -> Any:
    from ._posix import PosixTransport

    return PosixTransport()


# Transports by name, each made (its file imported) when chosen; a new OS's is a file and
# a row here.
TRANSPORTS: Dict[str, Callable[[], Any]] = {"posix": _make_posix}


def default_name() -> str:
    """The transport of this OS: "posix" (Linux; the only one so far)."""
    return "win32" if sys.platform == "win32" else "posix"


def get(transport: Any = None) -> Any:
    """The transport `transport` names: None (this OS's), a name of
    TRANSPORTS, or an object with the interface's members (kept as it is).
    RingError for a name with no transport in this package."""
    if transport is None:
        transport = default_name()
    if not isinstance(transport, str):
        return transport
    make = TRANSPORTS.get(transport)
    if make is None:
        raise RingError(f"no zero-copy transport {transport!r} in this package (there is "
                        f"{', '.join(map(repr, TRANSPORTS))})")
    return make()
