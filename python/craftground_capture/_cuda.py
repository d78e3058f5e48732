"""Every call of the package into CUDA's libraries, through ctypes (no
compiled extension): libcuda's primary contexts, the v1 IPC handle's
open and close (and libcudart's, the fallback), the ring's imports (external
memory and timeline semaphores), the vector learner's batch (its memory, the
gather kernel, events), and the copies between GPUs. Each call's result is
checked by one checker that names the call and the driver's error.

A HIP/ROCm learner is a sibling file with the importer's members
(CudaImporter's: open_device, import_memory, import_semaphore, wait, order,
synchronize, to_host, free) handed to RingLearner as importer= (see
docs/architecture.md, "The learner package's layers").
"""
import ctypes
import ctypes.util
import os
import struct
from typing import Any, Dict, List, Optional, Tuple

from ._libs import load_library
from .errors import DeviceError, RingError

MEM_HANDLE_SIZE = 64  # cudaIpcMemHandle_t
_LAZY_ENABLE_PEER_ACCESS = 1  # CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS == cudaIpcMemLazyEnablePeerAccess
_MEMCPY_DEVICE_TO_HOST = 2    # cudaMemcpyDeviceToHost

# CUDA driver API values (cuda.h).
_CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD = 1
_CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD = 9
CU_STREAM_LEGACY = 1
_CU_EVENT_DISABLE_TIMING = 2
_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704
_CU_MEMHOSTALLOC_PORTABLE = 1  # pinned for every context: the H2D runs in another one
_CU_STREAM_NON_BLOCKING = 1

# The OS handles a transport hands over (its handle_type), as CUDA imports them: the
# external memory's handle type and the timeline semaphore's. A Windows transport's
# "opaque_win32" would be (2, 10), the handle then in the union's win32 member.
HANDLE_TYPES = {"opaque_fd": (_CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD,
                              _CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD)}


# --- libcuda, and the v1 IPC handle's calls -------------------------------------------------

class IpcMemHandle(ctypes.Structure):  # passed by value, as the C prototypes take it
    _fields_ = [("reserved", ctypes.c_ubyte * MEM_HANDLE_SIZE)]

    @classmethod
    def of(cls, mem_handle):
        # from_buffer_copy keeps every byte (a c_char field would stop at a NUL).
        return cls.from_buffer_copy(bytes(mem_handle))


class DriverApi:
    """libcuda: the primary context of the device, the same one CuPy, torch
    and the runtime use, made current only around each call."""
    name = "driver"

    def __init__(self) -> None:
        self.lib = lib = load_library("CRAFTGROUND_CAPTURE_LIBCUDA",
                                      ["libcuda.so.1", "libcuda.so",
                                       lambda: ctypes.util.find_library("cuda")])
        self._err_name = lib.cuGetErrorName
        self._err_name.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        self._call("cuInit", lib.cuInit(0))
        self.ctxs: Dict[int, ctypes.c_void_p] = {}

    def _fn(self, *names):
        for n in names:
            f = getattr(self.lib, n, None)
            if f is not None:
                return f
        raise OSError(f"libcuda has none of {names}")

    def _call(self, what, res):
        if res != 0:
            s = ctypes.c_char_p()
            self._err_name(res, ctypes.byref(s))
            raise RuntimeError(f"{what} failed: {(s.value or b'?').decode()} ({res})")

    def _push(self, device):
        if device not in self.ctxs:
            dev = ctypes.c_int()
            self._call(f"cuDeviceGet({device})", self.lib.cuDeviceGet(ctypes.byref(dev), device))
            ctx = ctypes.c_void_p()
            self._call("cuDevicePrimaryCtxRetain",
                       self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
            self.ctxs[device] = ctx
        self._call("cuCtxPushCurrent", self._fn("cuCtxPushCurrent_v2", "cuCtxPushCurrent")(
            self.ctxs[device]))

    def devices(self) -> List[Tuple[int, str, bytes]]:
        """(ordinal, name, 16-byte UUID) of every CUDA device this process
        sees (after CUDA_VISIBLE_DEVICES); no context is made."""
        n = ctypes.c_int()
        self._call("cuDeviceGetCount", self.lib.cuDeviceGetCount(ctypes.byref(n)))
        get_uuid = self._fn("cuDeviceGetUuid_v2", "cuDeviceGetUuid")
        out = []
        for i in range(n.value):
            dev = ctypes.c_int()
            self._call(f"cuDeviceGet({i})", self.lib.cuDeviceGet(ctypes.byref(dev), i))
            u = (ctypes.c_ubyte * 16)()
            self._call("cuDeviceGetUuid", get_uuid(u, dev))
            name = ctypes.create_string_buffer(256)
            self.lib.cuDeviceGetName.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
            self._call("cuDeviceGetName", self.lib.cuDeviceGetName(name, 256, dev))
            out.append((i, name.value.decode(errors="replace"), bytes(u)))
        return out

    def _pop(self):
        self._call("cuCtxPopCurrent", self._fn("cuCtxPopCurrent_v2", "cuCtxPopCurrent")(
            ctypes.byref(ctypes.c_void_p())))

    def open(self, mem_handle: bytes, device: int) -> int:
        """Map a 64-byte IPC memory handle of device `device`; its pointer."""
        self._push(device)
        try:
            ptr = ctypes.c_uint64()
            f = self._fn("cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle")
            f.argtypes = [ctypes.POINTER(ctypes.c_uint64), IpcMemHandle, ctypes.c_uint]
            self._call("cuIpcOpenMemHandle",
                       f(ctypes.byref(ptr), IpcMemHandle.of(mem_handle), _LAZY_ENABLE_PEER_ACCESS))
            return ptr.value
        finally:
            self._pop()

    def close(self, ptr: int, device: int) -> None:
        """Unmap what open() mapped."""
        self._push(device)
        try:
            f = self.lib.cuIpcCloseMemHandle
            f.argtypes = [ctypes.c_uint64]
            self._call("cuIpcCloseMemHandle", f(ptr))
        finally:
            self._pop()

    def to_host(self, dst: int, ptr: int, nbytes: int, device: int) -> None:
        """Copy nbytes at device pointer ptr into host memory at dst."""
        self._push(device)
        try:
            f = self._fn("cuMemcpyDtoH_v2", "cuMemcpyDtoH")
            f.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
            self._call("cuMemcpyDtoH", f(dst, ptr, nbytes))
        finally:
            self._pop()


class RuntimeApi:
    """libcudart: the calling thread's current device is switched only around
    each call."""
    name = "runtime"

    def __init__(self):
        self.lib = lib = load_library("CRAFTGROUND_CAPTURE_LIBCUDART",
                               ["libcudart.so", lambda: ctypes.util.find_library("cudart"),
                                "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"])
        lib.cudaGetErrorName.restype = ctypes.c_char_p
        lib.cudaGetErrorName.argtypes = [ctypes.c_int]
        lib.cudaIpcOpenMemHandle.argtypes = [ctypes.POINTER(ctypes.c_void_p), IpcMemHandle,
                                             ctypes.c_uint]
        lib.cudaIpcCloseMemHandle.argtypes = [ctypes.c_void_p]
        lib.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

    def _call(self, what, res):
        if res != 0:
            name = self.lib.cudaGetErrorName(res) or b"?"
            raise RuntimeError(f"{what} failed: {name.decode()} ({res})")

    def _on(self, device, what, fn):
        prev = ctypes.c_int()
        self._call("cudaGetDevice", self.lib.cudaGetDevice(ctypes.byref(prev)))
        self._call(f"cudaSetDevice({device})", self.lib.cudaSetDevice(device))
        try:
            self._call(what, fn())
        finally:
            self.lib.cudaSetDevice(prev.value)

    def open(self, mem_handle, device):
        ptr = ctypes.c_void_p()
        self._on(device, "cudaIpcOpenMemHandle", lambda: self.lib.cudaIpcOpenMemHandle(
            ctypes.byref(ptr), IpcMemHandle.of(mem_handle), _LAZY_ENABLE_PEER_ACCESS))
        return ptr.value

    def close(self, ptr, device):
        self._on(device, "cudaIpcCloseMemHandle", lambda: self.lib.cudaIpcCloseMemHandle(ptr))

    def to_host(self, dst, ptr, nbytes, device):
        self._on(device, "cudaMemcpy", lambda: self.lib.cudaMemcpy(
            dst, ptr, nbytes, _MEMCPY_DEVICE_TO_HOST))


_apis = {}


def ipc_api(backend: Optional[str]) -> Any:
    """The API the v1 reader opens IPC handles with (cuda_ipc): backend
    "driver" (libcuda), "runtime" (libcudart) or None (the driver, else the
    runtime), made once per process. RuntimeError when none loads."""
    order = {None: ("driver", "runtime"), "driver": ("driver",), "runtime": ("runtime",)}
    if backend not in order:
        raise ValueError(f"backend must be 'driver', 'runtime' or None, got {backend!r}")
    errors = []
    for name in order[backend]:
        if name not in _apis:
            try:
                _apis[name] = DriverApi() if name == "driver" else RuntimeApi()
            except (OSError, RuntimeError) as e:
                errors.append(f"CUDA {name} API: {e}")
                continue
        return _apis[name]
    raise RuntimeError("cannot open a CUDA IPC handle here: " + "; ".join(errors))


# --- importing a ring ---------------------------------------------------------------

class _FdHandle(ctypes.Structure):
    _fields_ = [("fd", ctypes.c_int), ("_pad", ctypes.c_int), ("_rest", ctypes.c_void_p)]


class _ExtMemHandleDesc(ctypes.Structure):  # CUDA_EXTERNAL_MEMORY_HANDLE_DESC
    _fields_ = [("type", ctypes.c_int), ("handle", _FdHandle), ("size", ctypes.c_ulonglong),
                ("flags", ctypes.c_uint), ("reserved", ctypes.c_uint * 16)]


class _ExtMemBufferDesc(ctypes.Structure):  # CUDA_EXTERNAL_MEMORY_BUFFER_DESC
    _fields_ = [("offset", ctypes.c_ulonglong), ("size", ctypes.c_ulonglong),
                ("flags", ctypes.c_uint), ("reserved", ctypes.c_uint * 16)]


class _ExtSemHandleDesc(ctypes.Structure):  # CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC
    _fields_ = [("type", ctypes.c_int), ("handle", _FdHandle), ("flags", ctypes.c_uint),
                ("reserved", ctypes.c_uint * 16)]


class _KeyedMutex(ctypes.Structure):
    _fields_ = [("key", ctypes.c_ulonglong), ("timeoutMs", ctypes.c_uint)]


class _SemWaitParamsInner(ctypes.Structure):
    _fields_ = [("fence_value", ctypes.c_ulonglong), ("nvSciSync", ctypes.c_ulonglong),
                ("keyedMutex", _KeyedMutex), ("reserved", ctypes.c_uint * 10)]


class _SemWaitParams(ctypes.Structure):  # CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS
    _fields_ = [("params", _SemWaitParamsInner), ("flags", ctypes.c_uint),
                ("reserved", ctypes.c_uint * 16)]


# Sizes as cuda.h lays the structs out on 64-bit Linux.
assert ctypes.sizeof(_ExtMemHandleDesc) == 104
assert ctypes.sizeof(_ExtMemBufferDesc) == 88
assert ctypes.sizeof(_ExtSemHandleDesc) == 96
assert ctypes.sizeof(_SemWaitParams) == 144


class CudaImporter(DriverApi):
    """Imports through the CUDA driver API (libcuda.so.1, loaded as the IPC
    reader loads it) into the primary context of the device whose UUID the
    descriptor names (never another), made current only around each call.
    handle_type: what the transport's memory and semaphore handles are
    (HANDLE_TYPES: "opaque_fd", POSIX file descriptors)."""

    def __init__(self, handle_type: str = "opaque_fd") -> None:
        if handle_type not in HANDLE_TYPES:
            raise RingError(f"the CUDA importer takes handles of kind "
                            f"{', '.join(map(repr, HANDLE_TYPES))}, not {handle_type!r}")
        self._mem_type, self._sem_type = HANDLE_TYPES[handle_type]
        try:
            super().__init__()  # libcuda ($CRAFTGROUND_CAPTURE_LIBCUDA), cuInit
        except OSError as e:  # no driver (no GPU here): the learners' own error
            raise DeviceError(f"no CUDA driver in this process: {e} (libcuda.so.1 comes with "
                              f"NVIDIA's driver; $CRAFTGROUND_CAPTURE_LIBCUDA names another "
                              f"file)") from None
        self.device: Optional[int] = None
        self._event: Optional[ctypes.c_void_p] = None

    def _call(self, what, res):
        try:
            super()._call(what, res)
        except RuntimeError as e:
            raise RingError(str(e)) from None

    def check(self, what: str, res: int) -> None:
        """RingError naming the driver call `what` when its result `res` is
        not CUDA_SUCCESS (0)."""
        self._call(what, res)

    def open_device(self, uuid: bytes) -> int:
        """The ordinal of the CUDA device whose UUID is `uuid` (16 bytes, the
        game's Vulkan device UUID); its primary context is retained. RingError
        when no device has it."""
        for i, _, u in self.devices():
            if u == bytes(uuid):
                self.device = i
                self._push(i)  # retains the primary context
                self._pop()
                return i
        raise RingError(f"no CUDA device has the game's Vulkan device UUID {bytes(uuid).hex()}")

    def _enter(self):
        self._push(self.device)

    def import_memory(self, fd: int, size: int) -> Tuple[Optional[int], int]:
        """(external memory handle, device pointer). fd is consumed on
        success; closed here on failure."""
        self._enter()
        try:
            d = _ExtMemHandleDesc(type=self._mem_type, size=size)
            d.handle.fd = fd
            ext = ctypes.c_void_p()
            try:
                self._call("cuImportExternalMemory",
                           self.lib.cuImportExternalMemory(ctypes.byref(ext), ctypes.byref(d)))
            except RingError:
                os.close(fd)
                raise
            b = _ExtMemBufferDesc(offset=0, size=size)
            ptr = ctypes.c_uint64()
            try:
                self._call("cuExternalMemoryGetMappedBuffer",
                           self.lib.cuExternalMemoryGetMappedBuffer(ctypes.byref(ptr), ext,
                                                                    ctypes.byref(b)))
            except RingError:
                self.lib.cuDestroyExternalMemory(ext)
                raise
            return ext.value, ptr.value
        finally:
            self._pop()

    def import_semaphore(self, fd: int) -> Optional[int]:
        """The timeline semaphore behind `fd`, imported (fd consumed on
        success, closed on failure)."""
        self._enter()
        try:
            d = _ExtSemHandleDesc(type=self._sem_type)
            d.handle.fd = fd
            sem = ctypes.c_void_p()
            try:
                self._call("cuImportExternalSemaphore",
                           self.lib.cuImportExternalSemaphore(ctypes.byref(sem), ctypes.byref(d)))
            except RingError:
                os.close(fd)
                raise
            return sem.value
        finally:
            self._pop()

    def wait(self, sem: int, value: int, stream: int) -> None:
        """Make `stream` wait on the GPU until the timeline reaches value."""
        self._enter()
        try:
            p = _SemWaitParams()
            p.params.fence_value = value
            arr = (ctypes.c_void_p * 1)(sem)
            f = self._fn("cuWaitExternalSemaphoresAsync")
            f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p]
            self._call("cuWaitExternalSemaphoresAsync", f(arr, ctypes.byref(p), 1, stream))
        finally:
            self._pop()

    def order(self, src: int, dst: int) -> None:
        """dst waits for everything queued on src so far (an event)."""
        self._enter()
        try:
            if self._event is None:
                ev = ctypes.c_void_p()
                self._call("cuEventCreate", self.lib.cuEventCreate(ctypes.byref(ev),
                                                                   _CU_EVENT_DISABLE_TIMING))
                self._event = ev
            self.lib.cuEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
            self.lib.cuStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
            self._call("cuEventRecord", self.lib.cuEventRecord(self._event, src))
            self._call("cuStreamWaitEvent", self.lib.cuStreamWaitEvent(dst, self._event, 0))
        finally:
            self._pop()

    def synchronize(self, stream: int) -> None:
        """Wait on the host until the work queued on `stream` is done."""
        self._enter()
        try:
            self.lib.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
            self._call("cuStreamSynchronize", self.lib.cuStreamSynchronize(stream))
        finally:
            self._pop()

    def to_host(self, dst: int, ptr: int, nbytes: int) -> None:  # type: ignore[override]
        """Copy nbytes at device pointer ptr into host memory at dst, on the
        ring's device."""
        # The IPC reader's copy, on the ring's device (its errors raise RingError
        # through this class's _call).
        super().to_host(dst, ptr, nbytes, self.device)  # type: ignore[arg-type]

    def free(self, memories: List[Tuple[Optional[int], int]], semaphore: Optional[int]) -> None:
        """Free the imported slots ((external memory, pointer) pairs) and the
        semaphore, then release the primary contexts."""
        self._enter()
        try:
            self.lib.cuCtxSynchronize()
            self.lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]
            self.lib.cuDestroyExternalMemory.argtypes = [ctypes.c_void_p]
            self.lib.cuDestroyExternalSemaphore.argtypes = [ctypes.c_void_p]
            for ext, ptr in memories:
                self.lib.cuMemFree_v2(ptr)
                self.lib.cuDestroyExternalMemory(ext)
            if semaphore:
                self.lib.cuDestroyExternalSemaphore(semaphore)
            if self._event is not None:
                self._fn("cuEventDestroy_v2", "cuEventDestroy")(self._event)
                self._event = None
        finally:
            self._pop()
        release = self._fn("cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease")
        for device in list(self.ctxs):
            dev = ctypes.c_int()
            if self.lib.cuDeviceGet(ctypes.byref(dev), device) == 0:
                release(dev)
            del self.ctxs[device]


def norm_stream(stream: Any) -> int:
    """A CUstream value: None/0 -> the legacy default stream (1)."""
    if stream is None or stream == 0:
        return CU_STREAM_LEGACY
    if hasattr(stream, "cuda_stream"):  # torch.cuda.Stream
        return int(stream.cuda_stream) or CU_STREAM_LEGACY
    if hasattr(stream, "ptr"):  # cupy.cuda.Stream
        return int(stream.ptr) or CU_STREAM_LEGACY
    return int(stream)


# --- the copies between GPUs, the vector learner's batch -----------------------------------

class CrossGpuCalls:
    """The driver calls of the cross-GPU paths, mixed into BatchApi
    (whose _in_ctx, _fn and lib they use), each in the primary context of
    `self.device` unless it names another."""

    def ctx_of(self, ordinal: int) -> ctypes.c_void_p:
        """The retained primary context of device `ordinal`."""
        self._push(ordinal)  # retains it once
        self._pop()
        return self.ctxs[ordinal]

    def can_access_peer(self, a: int, b: int) -> bool:
        can, da, db = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        self._call("cuDeviceGet", self.lib.cuDeviceGet(ctypes.byref(da), a))
        self._call("cuDeviceGet", self.lib.cuDeviceGet(ctypes.byref(db), b))
        self._call("cuDeviceCanAccessPeer",
                   self.lib.cuDeviceCanAccessPeer(ctypes.byref(can), da, db))
        return bool(can.value)

    def enable_peer(self, a: int, b: int) -> Optional[str]:
        """Let device a's context access device b's memory; None when done
        (or already so), else the driver's error."""
        peer = self.ctx_of(b)
        f = self.lib.cuCtxEnablePeerAccess
        f.argtypes = [ctypes.c_void_p, ctypes.c_uint]
        self._push(a)
        try:
            res = f(peer, 0)
        finally:
            self._pop()
        if res in (0, _CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED):
            return None
        s = ctypes.c_char_p()
        self._err_name(res, ctypes.byref(s))
        return f"{(s.value or b'?').decode()} ({res})"

    def stream(self) -> int:
        s = ctypes.c_void_p()
        self.lib.cuStreamCreate.argtypes = [ctypes.c_void_p, ctypes.c_uint]
        self._in_ctx("cuStreamCreate", lambda: self.lib.cuStreamCreate(
            ctypes.byref(s), _CU_STREAM_NON_BLOCKING))
        return s.value

    def stream_free(self, s: int) -> None:
        f = self._fn("cuStreamDestroy_v2", "cuStreamDestroy")
        f.argtypes = [ctypes.c_void_p]
        self._in_ctx("cuStreamDestroy", lambda: f(s))

    def wait_event(self, stream: int, ev: int) -> None:
        """`stream` (of this device) waits for `ev` (of any device)."""
        self.lib.cuStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
        self._in_ctx("cuStreamWaitEvent", lambda: self.lib.cuStreamWaitEvent(stream, ev, 0))

    def host_alloc(self, nbytes: int) -> int:
        p = ctypes.c_void_p()
        self.lib.cuMemHostAlloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
        self._in_ctx("cuMemHostAlloc", lambda: self.lib.cuMemHostAlloc(
            ctypes.byref(p), nbytes, _CU_MEMHOSTALLOC_PORTABLE))
        return p.value

    def host_free(self, p: int) -> None:
        self.lib.cuMemFreeHost.argtypes = [ctypes.c_void_p]
        self._in_ctx("cuMemFreeHost", lambda: self.lib.cuMemFreeHost(p))

    def copy_peer(self, dst: int, dst_dev: int, src: int, src_dev: int, nbytes: int,
                  stream: int) -> None:
        f = self.lib.cuMemcpyPeerAsync
        f.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p,
                      ctypes.c_size_t, ctypes.c_void_p]
        dctx, sctx = self.ctx_of(dst_dev), self.ctx_of(src_dev)
        self._in_ctx("cuMemcpyPeerAsync", lambda: f(dst, dctx, src, sctx, nbytes, stream))

    def to_pinned(self, host: int, src: int, nbytes: int, stream: int) -> None:
        f = self._fn("cuMemcpyDtoHAsync_v2")
        f.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_void_p]
        self._in_ctx("cuMemcpyDtoHAsync", lambda: f(host, src, nbytes, stream))

    def from_pinned(self, dst: int, host: int, nbytes: int, stream: int) -> None:
        f = self._fn("cuMemcpyHtoDAsync_v2")
        f.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        self._in_ctx("cuMemcpyHtoDAsync", lambda: f(dst, host, nbytes, stream))


GATHER_MAX = 256  # entries of one launch (kernels/gather.cu, CG_GATHER_MAX)
BLOCK = 256  # threads of one block of the gather
_CUDA_ERROR_NOT_READY = 600
_CU_MEMORYTYPE_DEVICE = 2
_PTX_PATH = os.path.join(os.path.dirname(__file__), "kernels", "gather.ptx")
# The argtypes of the step's driver calls, made once (bound() sets them once per function).
_WAIT_TYPES = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p)
_TWO_PTRS = (ctypes.c_void_p, ctypes.c_void_p)
_ONE_PTR = (ctypes.c_void_p,)


class GatherList(ctypes.Structure):  # struct cg_gather_list, passed by value
    _fields_ = [("src", ctypes.c_uint64 * GATHER_MAX), ("dst_index", ctypes.c_uint32 * GATHER_MAX)]


class Memcpy2D(ctypes.Structure):  # CUDA_MEMCPY2D
    _fields_ = [("srcXInBytes", ctypes.c_size_t), ("srcY", ctypes.c_size_t),
                ("srcMemoryType", ctypes.c_int), ("srcHost", ctypes.c_void_p),
                ("srcDevice", ctypes.c_uint64), ("srcArray", ctypes.c_void_p),
                ("srcPitch", ctypes.c_size_t), ("dstXInBytes", ctypes.c_size_t),
                ("dstY", ctypes.c_size_t), ("dstMemoryType", ctypes.c_int),
                ("dstHost", ctypes.c_void_p), ("dstDevice", ctypes.c_uint64),
                ("dstArray", ctypes.c_void_p), ("dstPitch", ctypes.c_size_t),
                ("WidthInBytes", ctypes.c_size_t), ("Height", ctypes.c_size_t)]


assert ctypes.sizeof(GatherList) == 3072
assert ctypes.sizeof(Memcpy2D) == 128


class LaunchArgs:
    """cg_gather's arguments (the list, the batch's base, height, row
    bytes, pitch, flip, words), made once: cuLaunchKernel copies the values
    at the call, so one set serves every launch; `params` points at them."""

    def __init__(self):
        self.lst = GatherList()
        self.packs = {}  # n -> the struct packing n sources, n indices
        self.vals = [ctypes.c_uint64()] + [ctypes.c_uint32() for _ in range(5)]
        self.params = (ctypes.c_void_p * 7)(*[ctypes.addressof(o) for o in [self.lst] + self.vals])
        self.last = None  # the scalars last set (a step's are its last step's, mostly)

    def set(self, index, src, base, height, row, pitch, flip, words):
        """index, src: each entry's batch frame index and source pointer (at
        most GATHER_MAX)."""
        n = len(src)
        packs = self.packs.get(n)
        if packs is None:
            packs = self.packs[n] = (struct.Struct(f"<{n}Q"), struct.Struct(f"<{n}I"))
        packs[0].pack_into(self.lst, 0, *src)
        packs[1].pack_into(self.lst, GatherList.dst_index.offset, *index)
        scalars = (base, height, row, pitch, flip, words)
        if scalars != self.last:
            for v, x in zip(self.vals, scalars):
                v.value = x
            self.last = scalars
        return self.params


class BatchApi(CrossGpuCalls, CudaImporter):
    """The driver calls of the batch (its memory, the gather, the events),
    in the primary context of the batch's device, retained by this object
    (and the cross-GPU copies' calls, CrossGpuCalls)."""

    held = 0  # > 0: the batch's context is current (step() made it so once)

    def _raw(self, fn):
        """fn()'s result, with the batch's context current."""
        if self.held:
            return fn()
        self._enter()
        try:
            return fn()
        finally:
            self._pop()

    def _in_ctx(self, what, fn):
        self._call(what, self._raw(fn))

    def _now(self, what, f, *args):
        """f(*args) with the batch's context current (held: as it is, no
        closure made), RingError naming `what` when it fails."""
        res = f(*args) if self.held else self._raw(lambda: f(*args))
        if res:
            self._call(what, res)

    _stack = None  # (cuCtxPushCurrent, the batch's context, cuCtxPopCurrent, its out-arg,
    #                 cuCtxGetCurrent or None, its out-arg, a reference to that)
    _pushes = None  # per hold() not yet undone: whether it pushed

    def hold(self):
        """Make the batch's context current until unhold(): step()'s calls
        then make no push and pop of their own. A thread that has it current
        already (a training loop's: torch and CuPy use the device's primary
        context, which is the batch's) gets no push and pop at all."""
        st = self._stack
        if st is None:
            self._enter()  # the context retained, the functions found: kept for later holds
            cur = ctypes.c_void_p()
            self._stack = (self._fn("cuCtxPushCurrent_v2", "cuCtxPushCurrent"),
                           self.ctxs[self.device], self._fn("cuCtxPopCurrent_v2",
                                                            "cuCtxPopCurrent"),
                           ctypes.byref(ctypes.c_void_p()),
                           getattr(self.lib, "cuCtxGetCurrent", None), cur, ctypes.byref(cur))
            self._pushes = [True]
        elif st[4] is not None and st[4](st[6]) == 0 and st[5].value == st[1].value:
            self._pushes.append(False)
        else:
            res = st[0](st[1])
            if res:
                self._call("cuCtxPushCurrent", res)
            self._pushes.append(True)
        self.held += 1

    def unhold(self):
        self.held -= 1
        if self._pushes.pop():
            st = self._stack
            res = st[2](st[3])
            if res:
                self._call("cuCtxPopCurrent", res)

    def pushed(self):
        """Whether the innermost hold() pushed the batch's context."""
        return bool(self.held and self._pushes[-1])

    def outside(self, fn):
        """fn(), with the batch's context popped for it where the innermost
        hold() pushed it (a ring connecting in the middle of a step imports
        in its own GPU's context), pushed again after."""
        pushed = self.pushed()
        if pushed:
            self._pop()
        try:
            return fn()
        finally:
            if pushed:
                self._enter()

    def bound(self, argtypes, *names):
        """The first of `names` libcuda has, its argtypes set once."""
        cache = self.__dict__.setdefault("_bound", {})
        f = cache.get(names)
        if f is None:
            f = self._fn(*names)
            f.argtypes = argtypes
            cache[names] = f
        return f

    def alloc(self, nbytes):
        ptr = ctypes.c_uint64()
        f = self._fn("cuMemAlloc_v2")
        f.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
        self._in_ctx("cuMemAlloc", lambda: f(ctypes.byref(ptr), nbytes))
        return ptr.value

    def free_ptr(self, ptr):
        f = self._fn("cuMemFree_v2")
        f.argtypes = [ctypes.c_uint64]
        self._in_ctx("cuMemFree", lambda: f(ptr))

    def load_gather(self):
        """The gather kernel's CUfunction, or None (and why) where the driver
        cannot load the shipped PTX."""
        if getattr(self.lib, "cuModuleLoadData", None) is None:
            return None, "libcuda has no cuModuleLoadData"
        with open(_PTX_PATH, "rb") as f:
            ptx = f.read() + b"\0"
        self._module_image = ctypes.create_string_buffer(ptx, len(ptx))
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        self.lib.cuModuleLoadData.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.lib.cuModuleGetFunction.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                                 ctypes.c_char_p]
        try:
            self._in_ctx("cuModuleLoadData",
                         lambda: self.lib.cuModuleLoadData(ctypes.byref(mod), self._module_image))
        except RingError as e:
            return None, str(e)
        self.module = mod
        self._in_ctx("cuModuleGetFunction", lambda: self.lib.cuModuleGetFunction(
            ctypes.byref(fn), mod, b"cg_gather"))
        return fn, None

    _launch_args = None  # cuLaunchKernel with no argtypes and its ctypes arguments (launch)

    def launch(self, fn, grid, params, stream):
        """cg_gather on grid (x, y) of 256-thread blocks; params: the
        kernel's argument pointers (a _LaunchArgs' params). The call is
        given ctypes objects only (made once; grid and stream set per call),
        so ctypes converts none of its 11 arguments."""
        la = self._launch_args
        if la is None:
            f = self.lib._FuncPtr(("cuLaunchKernel", self.lib))
            la = self._launch_args = (f, ctypes.c_uint(), ctypes.c_uint(), ctypes.c_void_p(),
                                      [ctypes.c_uint(x) for x in (1, BLOCK, 1, 1, 0)])
        f, gx, gy, sv, (one, block, one_y, one_z, shared) = la
        gx.value, gy.value, sv.value = grid[0], grid[1], stream
        fp = fn if isinstance(fn, ctypes.c_void_p) else ctypes.c_void_p(fn)
        self._now("cuLaunchKernel", f, fp, gx, gy, one, block, one_y, one_z, shared, sv, params,
                  None)

    def copy_2d(self, src, src_pitch, dst, dst_pitch, width, height, stream):
        p = Memcpy2D(srcMemoryType=_CU_MEMORYTYPE_DEVICE, srcDevice=src, srcPitch=src_pitch,
                      dstMemoryType=_CU_MEMORYTYPE_DEVICE, dstDevice=dst, dstPitch=dst_pitch,
                      WidthInBytes=width, Height=height)
        f = self._fn("cuMemcpy2DAsync_v2")
        f.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self._in_ctx("cuMemcpy2DAsync", lambda: f(ctypes.byref(p), stream))

    def wait_many(self, sems, values, stream):
        """One cuWaitExternalSemaphoresAsync for every (semaphore, value)."""
        n = len(sems)
        arrays = self.__dict__.setdefault("_wait_arrays", {})
        if n not in arrays:  # the handles, the params (fence_value at 0 of each 144 bytes)
            arrays[n] = ((ctypes.c_void_p * n)(), (_SemWaitParams * n)(),
                         struct.Struct(f"<{n}Q"), struct.Struct("<" + "Q136x" * n))
        arr, params, pack_sems, pack_values = arrays[n]
        pack_sems.pack_into(arr, 0, *sems)  # one call each, the rest of each params zero
        pack_values.pack_into(params, 0, *values)
        f = self.bound(_WAIT_TYPES, "cuWaitExternalSemaphoresAsync")
        self._now("cuWaitExternalSemaphoresAsync", f, arr, params, n, stream)

    def event(self):
        ev = ctypes.c_void_p()
        self._in_ctx("cuEventCreate", lambda: self.lib.cuEventCreate(
            ctypes.byref(ev), _CU_EVENT_DISABLE_TIMING))
        return ev.value

    def record(self, ev, stream):
        self._now("cuEventRecord", self.bound(_TWO_PTRS, "cuEventRecord"), ev, stream)

    def done(self, ev):
        """Has the work before the event completed? Never waits."""
        f = self.bound(_ONE_PTR, "cuEventQuery")
        res = f(ev) if self.held else self._raw(lambda: f(ev))  # NOT_READY is an answer here
        if res == _CUDA_ERROR_NOT_READY:
            return False
        self._call("cuEventQuery", res)
        return True

    def event_wait(self, ev):
        f = self.lib.cuEventSynchronize
        f.argtypes = [ctypes.c_void_p]
        self._in_ctx("cuEventSynchronize", lambda: f(ev))

    def event_free(self, ev):
        f = self._fn("cuEventDestroy_v2", "cuEventDestroy")
        f.argtypes = [ctypes.c_void_p]
        self._in_ctx("cuEventDestroy", lambda: f(ev))

    def native_driver(self, nat, fn, base, height, row, flip):
        """The native helper's handle on the step's driver calls (lease.c's
        driver()): the addresses of the functions this libcuda has, the very
        ones the ctypes calls use; None where it lacks one."""
        addrs = []
        for name in ("cuWaitExternalSemaphoresAsync", "cuLaunchKernel", "cuEventRecord",
                     "cuEventQuery"):
            f = getattr(self.lib, name, None)
            if f is None:
                return None
            addrs.append(ctypes.cast(f, ctypes.c_void_p).value)
        fp = fn.value if isinstance(fn, ctypes.c_void_p) else fn
        return nat.driver(*addrs, fp or 0, base, height, row, int(flip))

    def unload(self):
        if getattr(self, "module", None):
            self.lib.cuModuleUnload.argtypes = [ctypes.c_void_p]
            self._in_ctx("cuModuleUnload", lambda: self.lib.cuModuleUnload(self.module))
            self.module = None


def api_on(ordinal: int) -> Any:
    """A BatchApi (the batch's calls and CrossGpuCalls) whose calls run in
    the primary context of device `ordinal` (retained here)."""
    api = BatchApi()
    api.device = ordinal
    api.ctx_of(ordinal)
    return api
