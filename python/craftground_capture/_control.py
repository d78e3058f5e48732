"""The control block (docs/zero-copy-v2/protocol.md, "The control block"): the
4096-byte shared block a producer hands over with the hello, mapped by the
transport, whose lease words (frame << 8 | state) the learner moves with
64-bit compare-and-swaps (libatomic, the instructions C11 atomics use), and
the producer's counters in it."""
import ctypes
import ctypes.util
import struct
from typing import Any, Dict, Optional, Tuple

from ._libs import load_library
from ._transport import get as get_transport
from ._wire import (ACTIVE, CLOSED, CONTROL_HEADER, CONTROL_SIZE, COUNTER_NAMES, COUNTERS_OFFSET,
                    PRODUCER_STATE_OFFSET, PUBLISHED, RELEASED, SLOT_STRIDE, STATE_NAMES, VERSION,
                    lease_word, state_name, word_index)
from .errors import RingError, StaleDescriptor

SEQ_CST = 5  # __ATOMIC_SEQ_CST


class Atomics:
    """64-bit atomic load and compare-and-swap on shared memory, through
    libatomic (the same lock-free instructions C11 atomics use)."""

    def __init__(self):
        lib = load_library("CRAFTGROUND_CAPTURE_LIBATOMIC",
                           ["libatomic.so.1", lambda: ctypes.util.find_library("atomic")])
        self._cas = getattr(lib, "__atomic_compare_exchange_8")  # no name mangling
        self._cas.restype = ctypes.c_bool
        self._cas.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int,
                              ctypes.c_int]
        # The same function with no argtypes, for a hot loop that passes ctypes objects only
        # (a c_void_p address, the expected word byref, a c_uint64 desired; the orders as
        # ints): ctypes then converts nothing per call (about half the call's cost). Through
        # a PyDLL handle of the library: a compare-and-swap is a few instructions, so the
        # call keeps the GIL (a CDLL call releases and retakes it, and a learner with other
        # Python threads could lose the interpreter to one of them at every lease).
        keep = ctypes.PyDLL(lib._name, handle=lib._handle)
        self.cas_raw = keep._FuncPtr(("__atomic_compare_exchange_8", keep))
        self.cas_raw.restype = ctypes.c_bool
        self._load = getattr(lib, "__atomic_load_8")
        self._load.restype = ctypes.c_uint64
        self._load.argtypes = [ctypes.c_void_p, ctypes.c_int]

    SEQ_CST = SEQ_CST

    def load(self, addr):
        return self._load(addr, self.SEQ_CST)

    def cas(self, addr, expected, desired):
        """(True, expected) or (False, the current value)."""
        e = ctypes.c_uint64(expected)
        ok = self._cas(addr, ctypes.byref(e), desired, self.SEQ_CST, self.SEQ_CST)
        return bool(ok), e.value


_atomics: Optional[Atomics] = None


class ControlBlock:
    """The mapped control block (a memfd received from the producer): the
    lease word of each slot (frame << 8 | state, states EMPTY to CLOSED),
    leased by compare-and-swap. `handle` (an fd on POSIX) is consumed:
    `transport` (_transport.get's argument: None for this OS's) maps it.
    RingError when it is not the 4096-byte block of ring `ring_id` with
    `slot_count` slots, sealed against shrinking and growing."""

    def __init__(self, handle: Any, slot_count: int, ring_id: int, transport: Any = None) -> None:
        global _atomics
        if _atomics is None:
            _atomics = Atomics()
        self._at = _atomics
        self.cas_raw = _atomics.cas_raw  # libatomic's, for a hot loop's own (VectorLearner's)
        # (The native helper reads the mapping as _map: python/native/lease.c.)
        self._map: Any = get_transport(transport).map_control(handle)
        self._buf: Any = (ctypes.c_uint8 * CONTROL_SIZE).from_buffer(self._map)
        self._base = ctypes.addressof(self._buf)
        # The block as 64-bit words, for VectorLearner's release: a plain store of
        # F<<8|RELEASED over its own ACTIVE(F) lease (docs/zero-copy-v2/protocol.md, "Release");
        # released by close(), after which a store raises ValueError, never writes.
        view = memoryview(self._map)
        self.word_view: Any = view.cast("Q")
        view.release()
        magic, version, slots, stride, rid = CONTROL_HEADER.unpack_from(self._map, 0)
        if (magic, version, slots, stride, rid) != (b"CGZC", VERSION, slot_count, SLOT_STRIDE,
                                                     ring_id):
            self.close()
            raise RingError("zero-copy control block does not match the hello (magic, version, "
                            "slot count or ring id)")
        self.slot_count = slot_count
        # Each slot's lease word address as a c_void_p, for cas_raw (VectorLearner's lease;
        # valid while the block is mapped: the lease first checks that the block is still its
        # ring's, which RingLearner.close unmaps and drops).
        self.word_ptrs = tuple(ctypes.c_void_p(self._addr(k)) for k in range(slot_count))

    word_index = staticmethod(word_index)  # slot's lease word as an index of word_view

    def _addr(self, slot):
        return self._base + 8 * word_index(slot)

    def word_address(self, slot: int) -> int:
        """The address of slot `slot`'s lease word in this process (valid
        while the block is mapped), for a compare-and-swap of one's own."""
        if not 0 <= slot < self.slot_count:
            raise RingError(f"slot {slot} is outside the ring's {self.slot_count} slots")
        return self._addr(slot)

    def word(self, slot: int) -> int:
        """Slot `slot`'s 64-bit lease word, loaded atomically."""
        return self._at.load(self._addr(slot))

    def state(self, slot: int) -> Tuple[int, int]:
        """(state, frame) of slot `slot`'s lease word."""
        w = self.word(slot)
        return w & 0xFF, w >> 8

    def producer_closed(self) -> bool:
        """Whether the producer marked the ring closed (header word 2)."""
        return struct.unpack_from("<I", self._map, PRODUCER_STATE_OFFSET)[0] == 2

    def _swap(self, slot, expected, desired):
        """(True, expected) or (False, the word's value): one compare-and-swap
        of slot's lease word. RingError once the block is closed (never a
        write to unmapped memory) or for a slot outside the ring."""
        if self._map is None:
            raise RingError("the zero-copy control block is closed")
        return self._at.cas(self.word_address(slot), expected, desired)

    def acquire(self, slot: int, frame: int) -> None:
        """PUBLISHED -> ACTIVE for (slot, frame) (already ACTIVE passes).
        RingError when the ring is closed or the word is corrupt,
        StaleDescriptor when the slot holds another frame."""
        ok, cur = self._swap(slot, lease_word(frame, PUBLISHED), lease_word(frame, ACTIVE))
        if ok or cur == lease_word(frame, ACTIVE):
            return
        state, held = cur & 0xFF, cur >> 8
        if state == CLOSED:
            raise RingError("the zero-copy ring was destroyed by the game")
        if state >= len(STATE_NAMES):
            raise RingError(f"slot {slot}'s lease word {cur:#018x} has state {state}, none of "
                            f"0-{len(STATE_NAMES) - 1} (the control block is corrupt)")
        raise StaleDescriptor(f"slot {slot} holds frame {held} ({STATE_NAMES[state]}), not "
                              f"frame {frame}: the learner fell more than a ring behind")

    def release(self, slot: int, frame: int) -> None:
        """ACTIVE -> RELEASED for (slot, frame); RingError when the word is
        no longer that frame's ACTIVE one (the producer reclaimed it)."""
        ok, cur = self._swap(slot, lease_word(frame, ACTIVE), lease_word(frame, RELEASED))
        if not ok:
            raise RingError(f"release of slot {slot} frame {frame}: it is frame {cur >> 8}, "
                            f"{state_name(cur & 0xFF)}")

    def counters(self) -> Optional[Dict[str, int]]:
        """The producer's counters (docs/zero-copy-v2/protocol.md, "Counters"), or None
        when the counters' magic is absent. Read, never trusted: diagnostics."""
        magic, count = struct.unpack_from("<4sI", self._map, COUNTERS_OFFSET)
        if magic != b"CGZS":
            return None
        n = min(count, len(COUNTER_NAMES), (CONTROL_SIZE - COUNTERS_OFFSET - 8) // 8)
        return {COUNTER_NAMES[i]: self._at.load(self._base + COUNTERS_OFFSET + 8 + 8 * i)
                for i in range(n)}

    def close(self) -> None:
        """Unmap the block (once; later calls do nothing). "Closed" is
        published (_map None, the word view released) before the unmap,
        which releases the GIL: another thread that looks then sees a closed
        block, never a mapped one that is going away. The native helper
        stores under an export of the map, which the unmap waits out (an
        mmap with exports is unmapped when the last one goes)."""
        m = self._map
        if m is None:
            return
        self._map = None
        self._buf = None
        self.word_view.release()
        try:
            m.close()
        except BufferError:
            pass  # exported right now: unmapped with the mmap object, once the export ends
