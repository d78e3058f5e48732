"""The 68-byte CUDA IPC handle opened as a zero-copy GPU array.

Layout (docs/wire-format.md): the 64-byte cudaIpcMemHandle_t (the driver's
CUipcMemHandle is the same bytes), then the device ordinal as a little-endian
int32. Behind it: height x width x 4 RGBA8 bytes, tightly packed, in the
source's row order (bottom-up for a GL texture), complete whenever the mod's
per-frame call has returned.

open_ipc_handle() maps it into this process through ctypes on the CUDA driver
(libcuda) or runtime (libcudart), no compiled extension, and returns an object
that torch, CuPy, JAX or numba take without a copy through
__cuda_array_interface__ (version 3) or __dlpack__ / __dlpack_device__:

    frame = open_ipc_handle(obs.ipc_handle, width, height)
    t = torch.from_dlpack(frame)          # (H, W, 4) uint8 on cuda:N, no copy
    img = cupy.asarray(frame)             # the same memory
"""
import ctypes
import struct
import threading
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from ._cuda import MEM_HANDLE_SIZE, ipc_api
from ._types import Buffer, Closes
from ._wire import CUDA_IPC_HANDLE_SIZE as HANDLE_SIZE
from .errors import FormatError

# DLPack (dlpack.h, version 0.x ABI, the "dltensor" capsule every consumer reads).
KDL_CPU, KDL_CUDA = 1, 2
_KDL_UINT, _KDL_FLOAT = 1, 2


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _DELETER)]


_CAPSULE_NAME = b"dltensor"
_live: Dict[int, Tuple[Any, ...]] = {}  # manager_ctx key -> what an exported tensor keeps alive
_live_lock = threading.Lock()
_next_key = [1]


def _release(key):
    with _live_lock:
        _live.pop(key, None)


@_DELETER
def _dl_deleter(managed_ptr):
    # Called by the consumer when its tensor dies (any thread; ctypes takes the GIL).
    if managed_ptr:
        _release(_DLManagedTensor.from_address(managed_ptr).manager_ctx)


_pyapi = ctypes.pythonapi
_pyapi.PyCapsule_New.restype = ctypes.py_object
_pyapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_pyapi.PyCapsule_IsValid.restype = ctypes.c_int
_pyapi.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_pyapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_pyapi.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):
    # A consumer renames the capsule to "used_dltensor" and owns the tensor
    # from then on; a capsule still named "dltensor" was never consumed.
    if _pyapi.PyCapsule_IsValid(capsule, _CAPSULE_NAME):
        ptr = _pyapi.PyCapsule_GetPointer(capsule, _CAPSULE_NAME)
        _release(_DLManagedTensor.from_address(ptr).manager_ctx)


class DeviceBuffer:
    """A C-contiguous uint8 array at `ptr` of `shape`, exported through
    __cuda_array_interface__ (CUDA only) and DLPack. `owner` is kept alive
    as long as any exported tensor is. Subclasses of another element type
    set _dl_dtype (DLPack code, bits) and, when not C-contiguous,
    _dl_strides()."""

    _dl_dtype = (_KDL_UINT, 8)

    def __init__(self, ptr: int, shape: Sequence[int], device_type: int, device_id: int,
                 owner: Optional[object] = None) -> None:
        self.ptr = int(ptr)
        self.shape = tuple(int(s) for s in shape)
        self.device_type = device_type
        self.device = int(device_id)
        self._owner = owner
        n = 1
        for s in self.shape:
            n *= s
        self.nbytes = n

    def _check_open(self):
        if not self.ptr:
            raise ValueError("the buffer is closed")

    def _dl_strides(self) -> Optional[Tuple[int, ...]]:
        """Strides in elements for DLPack; None: compact row-major."""
        return None

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]:
        self._check_open()
        if self.device_type != KDL_CUDA:
            raise AttributeError("__cuda_array_interface__: not CUDA memory")
        # stream None: the producer finished the frame before announcing it.
        return {"shape": self.shape, "typestr": "|u1", "data": (self.ptr, False),
                "strides": None, "version": 3, "stream": None}

    def __dlpack_device__(self) -> Tuple[int, int]:
        return (self.device_type, self.device)

    def __dlpack__(self, *, stream: Optional[Any] = None,
                   max_version: Optional[Tuple[int, int]] = None,
                   dl_device: Optional[Tuple[int, int]] = None,
                   copy: Optional[bool] = None) -> Any:
        """A "dltensor" capsule (DLPack 0.x ABI, which consumers accept
        whatever max_version they ask for). No stream work is needed: the
        frame is complete when the producer's call returns."""
        self._check_open()
        if copy:
            raise BufferError("this buffer can only be shared, not copied")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"buffer lives on {self.__dlpack_device__()}, not {tuple(dl_device)}")
        ndim = len(self.shape)
        shape = (ctypes.c_int64 * ndim)(*self.shape)
        managed = _DLManagedTensor()
        t = managed.dl_tensor
        t.data = self.ptr
        t.device = _DLDevice(self.device_type, self.device)
        t.ndim = ndim
        t.dtype = _DLDataType(self._dl_dtype[0], self._dl_dtype[1], 1)
        t.shape = shape
        el = self._dl_strides()
        strides = None if el is None else (ctypes.c_int64 * ndim)(*el)
        t.strides = strides  # None: compact row-major
        t.byte_offset = 0
        with _live_lock:
            key = _next_key[0]
            _next_key[0] += 1
            _live[key] = (managed, shape, strides, self)
        managed.manager_ctx = key
        managed.deleter = _dl_deleter
        return _pyapi.PyCapsule_New(ctypes.addressof(managed), _CAPSULE_NAME,
                                    ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def parse_ipc_handle(data: Buffer) -> Tuple[bytes, int]:
    """The 68-byte `ipc_handle` field of the v1 zero-copy path -> (the 64-byte
    cudaIpcMemHandle_t, the CUDA device ordinal from its little-endian int32
    at byte 64). Raises FormatError (a ValueError) for another length (a
    4-byte mach port, a v2 ring descriptor: see handle_kind) or a negative
    device."""
    data = bytes(data)
    if len(data) != HANDLE_SIZE:
        raise FormatError(f"ipc_handle: a CUDA IPC handle is {HANDLE_SIZE} bytes, got {len(data)}"
                          + (" (4 bytes is a macOS mach port)" if len(data) == 4 else ""))
    (device,) = struct.unpack("<i", data[MEM_HANDLE_SIZE:])
    if device < 0:
        raise FormatError(f"ipc_handle: the CUDA IPC handle names device {device}")
    return data[:MEM_HANDLE_SIZE], device


class CudaIpcFrame(DeviceBuffer, Closes):
    """The producer's shared frame buffer, opened in this process: shape
    (height, width, 4) uint8 RGBA in the source's row order (bottom-up for a
    GL texture), C-contiguous, on CUDA device `device`. Use it with
    torch.from_dlpack, cupy.asarray, jax.dlpack.from_dlpack, or to_numpy().
    close() (or the end of a with block) unmaps it; tensors made from it must
    not be used afterwards. open_ipc_handle() says what the arguments are
    and what is raised."""

    def __init__(self, handle: Buffer, width: int, height: int,
                 backend: Optional[str] = None) -> None:
        self.ptr = 0
        mem, device = parse_ipc_handle(handle)
        if width <= 0 or height <= 0:
            raise ValueError(f"bad frame size {width}x{height}")
        self._api = ipc_api(backend)
        self.backend = self._api.name
        try:
            ptr = self._api.open(mem, device)
        except RuntimeError as e:
            raise RuntimeError(f"opening the CUDA IPC handle of device {device} "
                               f"(CUDA {self.backend} API): {e}") from None
        super().__init__(ptr, (height, width, 4), KDL_CUDA, device)

    def to_numpy(self) -> np.ndarray:
        """A host copy (numpy, same shape), e.g. to check bytes or save a frame."""
        self._check_open()
        out = np.empty(self.shape, dtype=np.uint8)
        self._api.to_host(out.ctypes.data, self.ptr, self.nbytes, self.device)
        return out

    def close(self) -> None:
        """Unmap the buffer (once; later calls do nothing)."""
        if self.ptr:
            ptr, self.ptr = self.ptr, 0
            self._api.close(ptr, self.device)


def open_ipc_handle(handle: Buffer, width: int, height: int,
                    backend: Optional[str] = None) -> CudaIpcFrame:
    """Open a 68-byte CUDA IPC handle (the `ipc_handle` field) as a zero-copy
    (height, width, 4) uint8 RGBA frame in the source's row order; width and
    height in pixels, as the mod was configured (the handle does not carry
    them). backend: "driver" (libcuda), "runtime" (libcudart) or None (the
    driver, else the runtime). Open it once and keep it: the producer refills
    the same buffer every frame.

    $CRAFTGROUND_CAPTURE_LIBCUDA / $CRAFTGROUND_CAPTURE_LIBCUDART name the
    library to load when the usual names do not find it. Raises FormatError
    for a handle that is not 68 bytes or names a negative device,
    ValueError for a size that is not positive or an unknown backend,
    RuntimeError when no CUDA API loads or the driver refuses the handle."""
    return CudaIpcFrame(handle, width, height, backend)
