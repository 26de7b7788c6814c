import ctypes
import ctypes.util
from ctypes import c_int, c_size_t, c_uint, c_void_p

from .constants import LIBCUDART_CANDIDATES, cudaEventDisableTiming, cudaSuccess

cudaStream_t = c_void_p
cudaEvent_t = c_void_p
cudaHostFn_t = ctypes.CFUNCTYPE(None, c_void_p)


def _load():
    for name in LIBCUDART_CANDIDATES:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    found = ctypes.util.find_library("cudart")
    if found is None:
        raise OSError("libcudart not found")
    return ctypes.CDLL(found)


_lib = _load()
_lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(cudaStream_t), c_uint]
_lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(cudaEvent_t), c_uint]
_lib.cudaEventRecord.argtypes = [cudaEvent_t, cudaStream_t]
_lib.cudaStreamWaitEvent.argtypes = [cudaStream_t, cudaEvent_t, c_uint]
_lib.cudaMemcpyAsync.argtypes = [c_void_p, c_void_p, c_size_t, c_int, cudaStream_t]
_lib.cudaHostAlloc.argtypes = [ctypes.POINTER(c_void_p), c_size_t, c_uint]
_lib.cudaLaunchHostFunc.argtypes = [cudaStream_t, cudaHostFn_t, c_void_p]
_lib.cudaStreamSynchronize.argtypes = [cudaStream_t]


def check(status: int, what: str) -> None:
    if status != cudaSuccess:
        raise RuntimeError(f"{what} failed with cudaError {status}")


cudart = _lib


class StreamFence:
    """One reusable event: mark a point on a producer, let a consumer wait for it."""

    def __init__(self):
        self._event = cudaEvent_t()
        check(cudart.cudaEventCreateWithFlags(ctypes.byref(self._event),
                                              cudaEventDisableTiming),
              "cudaEventCreateWithFlags")

    def mark(self, producer_stream: int) -> None:
        check(cudart.cudaEventRecord(self._event, producer_stream), "cudaEventRecord")

    def join(self, consumer_stream) -> None:
        check(cudart.cudaStreamWaitEvent(consumer_stream, self._event, 0),
              "cudaStreamWaitEvent")
