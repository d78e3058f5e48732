"""The POSIX transport (_transport's interface): the producer's Unix socket,
the hello with its file descriptors (SCM_RIGHTS), the control block mapped
from its memfd, handles of kind "opaque_fd" (docs/zero-copy-v2/protocol.md, "The
hand-off"). A Windows transport (a named pipe, DuplicateHandle) is a sibling
file with the same four members."""
import array
import fcntl
import mmap
import os
import socket
import stat
from typing import Any, Dict, List, Tuple

from ._wire import CONTROL_SIZE, HELLO_SIZE, MAX_SLOTS, parse_hello
from .errors import RingError

# The seals a control block must carry (docs/zero-copy-v2/protocol.md, "The control block"):
# without F_SEAL_SHRINK the producer could truncate the file under the mapping and the
# next lease would kill this process with SIGBUS. (fcntl's names, Linux values.)
_F_GET_SEALS = getattr(fcntl, "F_GET_SEALS", 1034)
CONTROL_SEALS = getattr(fcntl, "F_SEAL_SHRINK", 0x2) | getattr(fcntl, "F_SEAL_GROW", 0x4)


def _recv_fds_compat(sock: socket.socket, bufsize: int, maxfds: int,
                     flags: int = 0) -> Tuple[bytes, List[int], int, Any]:
    """socket.recv_fds for Python 3.8 (it came in 3.9): the same recvmsg call
    and SCM_RIGHTS parsing, and like it, `flags` is not passed on."""
    fds = array.array("i")
    msg, ancdata, msg_flags, addr = sock.recvmsg(bufsize, socket.CMSG_LEN(maxfds * fds.itemsize))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
    return msg, list(fds), msg_flags, addr


_recv_fds = getattr(socket, "recv_fds", _recv_fds_compat)


def receive_ring(path: str, timeout: float = 10.0
                 ) -> Tuple[socket.socket, Dict[str, int], List[int]]:
    """Connect to the producer's socket at `path` (`timeout` in seconds);
    returns (socket, hello dict, fds). Every received fd is the caller's;
    none is left open on error. Raises RingError when nobody listens, the
    producer refuses (another learner, another user) or the hello is
    malformed."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
    except OSError as e:
        s.close()
        raise RingError(f"no zero-copy producer at {path}: {e.strerror or e}") from None
    fds: List[int] = []
    try:
        try:
            msg, fds, flags, _ = _recv_fds(s, HELLO_SIZE, MAX_SLOTS + 2, socket.MSG_WAITALL)
        except OSError as e:
            raise RingError(f"receiving the hello from {path}: {e}") from None
        if not msg:
            raise RingError(f"the producer at {path} closed the socket before the hello")
        hello = parse_hello(msg, len(fds), path, bool(flags & socket.MSG_CTRUNC))
        return s, hello, fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        s.close()
        raise


def map_control(fd: int) -> mmap.mmap:
    """The control block behind fd mapped read/write shared, once it is
    known to be a 4096-byte file sealed against shrinking and growing
    (CONTROL_SEALS); fd is closed here, mapped or not. RingError for
    anything else (a directory, a read-only fd, an unsealed memfd): never
    an OSError, never a SIGBUS later."""
    try:
        try:
            st = os.fstat(fd)
        except OSError as e:
            raise RingError(f"zero-copy control block: not a file ({e.strerror})") from None
        if not stat.S_ISREG(st.st_mode) or st.st_size < CONTROL_SIZE:
            raise RingError(f"zero-copy control block: not a {CONTROL_SIZE}-byte file")
        try:
            seals = fcntl.fcntl(fd, _F_GET_SEALS)
        except OSError:
            seals = 0  # not a memfd: no seals
        if seals & CONTROL_SEALS != CONTROL_SEALS:
            raise RingError(f"zero-copy control block: not sealed against shrinking and growing "
                            f"(seals {seals:#x}): the producer could shrink it under the mapping")
        try:
            return mmap.mmap(fd, CONTROL_SIZE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        except OSError as e:
            raise RingError(f"zero-copy control block: cannot be mapped read/write "
                            f"({e.strerror})") from None
    finally:
        os.close(fd)


class PosixTransport:
    """The POSIX transport: file descriptors over a Unix socket."""

    name = "posix"
    handle_type = "opaque_fd"  # what the GPU importer is told the slots' handles are

    def connect(self, address: str, timeout: float) -> Tuple[Any, Dict[str, int], List[Any]]:
        """receive_ring(address, timeout): (the socket, the hello, the fds)."""
        return receive_ring(address, timeout)

    def map_control(self, handle: Any) -> Any:
        """map_control(handle): the control block's mapping, fd consumed."""
        return map_control(handle)

    def close_handle(self, handle: Any) -> None:
        """Close a received fd that nobody took."""
        os.close(handle)
