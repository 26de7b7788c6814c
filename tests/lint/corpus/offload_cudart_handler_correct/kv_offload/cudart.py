import ctypes
import ctypes.util
import logging

from .constants import (
    CUDA_ERROR_NOT_READY,
    CUDA_EVENT_DISABLE_TIMING,
    CUDA_SUCCESS,
    CUDART_LIB_CANDIDATES,
)

logger = logging.getLogger(__name__)


def _load_cudart() -> ctypes.CDLL:
    for name in CUDART_LIB_CANDIDATES:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    path = ctypes.util.find_library("cudart")
    if path is None:
        raise RuntimeError("libcudart not found; cannot enable CPU offloading")
    return ctypes.CDLL(path)


lib = _load_cudart()
_vp = ctypes.c_void_p
lib.cudaMemcpyAsync.argtypes = [_vp, _vp, ctypes.c_size_t, ctypes.c_int, _vp]
lib.cudaMemcpyAsync.restype = ctypes.c_int
lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(_vp), ctypes.c_uint]
lib.cudaEventRecord.argtypes = [_vp, _vp]
lib.cudaStreamWaitEvent.argtypes = [_vp, _vp, ctypes.c_uint]
lib.cudaEventQuery.argtypes = [_vp]
lib.cudaEventSynchronize.argtypes = [_vp]
lib.cudaGetErrorString.argtypes = [ctypes.c_int]
lib.cudaGetErrorString.restype = ctypes.c_char_p


def check(err: int, what: str) -> None:
    if err != CUDA_SUCCESS:
        raise RuntimeError(f"{what} failed: {lib.cudaGetErrorString(err).decode()}")


def event_create() -> ctypes.c_void_p:
    event = _vp()
    check(lib.cudaEventCreateWithFlags(ctypes.byref(event), CUDA_EVENT_DISABLE_TIMING), "cudaEventCreate")
    return event


def event_record(event: ctypes.c_void_p, stream: int) -> None:
    check(lib.cudaEventRecord(event, _vp(stream)), "cudaEventRecord")


def stream_wait_event(stream: int, event: ctypes.c_void_p) -> None:
    check(lib.cudaStreamWaitEvent(_vp(stream), event, 0), "cudaStreamWaitEvent")


def event_query(event: ctypes.c_void_p) -> bool:
    err = lib.cudaEventQuery(event)
    if err == CUDA_ERROR_NOT_READY:
        return False
    check(err, "cudaEventQuery")
    return True


def event_synchronize(event: ctypes.c_void_p) -> None:
    check(lib.cudaEventSynchronize(event), "cudaEventSynchronize")
