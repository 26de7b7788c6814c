"""Minimal ctypes binding for the handful of CUDA runtime calls the block mover needs."""
import ctypes
import ctypes.util
import enum


class cudaMemcpyKind(enum.IntEnum):
    cudaMemcpyHostToHost = 0
    cudaMemcpyHostToDevice = 1
    cudaMemcpyDeviceToHost = 2
    cudaMemcpyDeviceToDevice = 3
    cudaMemcpyDefault = 4


cudaEventDisableTiming = 0x02


class CudaRTError(RuntimeError):
    pass


def _load_libcudart() -> ctypes.CDLL:
    candidates = ["libcudart.so", "libcudart.so.12", ctypes.util.find_library("cudart")]
    for name in filter(None, candidates):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise OSError("unable to load libcudart")


libcudart = _load_libcudart()
_c_void_p, _c_int = ctypes.c_void_p, ctypes.c_int
libcudart.cudaMemcpyAsync.argtypes = [_c_void_p, _c_void_p, ctypes.c_size_t, _c_int, _c_void_p]
libcudart.cudaMemcpyAsync.restype = _c_int
libcudart.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(_c_void_p), ctypes.c_uint]
libcudart.cudaEventCreateWithFlags.restype = _c_int
libcudart.cudaEventRecord.argtypes = [_c_void_p, _c_void_p]
libcudart.cudaEventRecord.restype = _c_int
libcudart.cudaStreamWaitEvent.argtypes = [_c_void_p, _c_void_p, ctypes.c_uint]
libcudart.cudaStreamWaitEvent.restype = _c_int
libcudart.cudaEventDestroy.argtypes = [_c_void_p]
libcudart.cudaEventDestroy.restype = _c_int
libcudart.cudaGetErrorString.argtypes = [_c_int]
libcudart.cudaGetErrorString.restype = ctypes.c_char_p


def check(err: int) -> None:
    if err != 0:
        raise CudaRTError(f"{libcudart.cudaGetErrorString(err).decode()} (error {err})")


def event_create() -> ctypes.c_void_p:
    event = ctypes.c_void_p()
    check(libcudart.cudaEventCreateWithFlags(ctypes.byref(event), cudaEventDisableTiming))
    return event
