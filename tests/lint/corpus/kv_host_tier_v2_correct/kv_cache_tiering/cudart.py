"""Thin ctypes binding over the bits of libcudart the host tier needs."""
import ctypes

from .constants import (
    CUDA_EVENT_DISABLE_TIMING,
    CUDA_STREAM_NON_BLOCKING,
    CUDA_SUCCESS,
    LIBCUDART_CANDIDATES,
)


def _load() -> ctypes.CDLL:
    for name in LIBCUDART_CANDIDATES:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise OSError(f"none of {LIBCUDART_CANDIDATES} could be loaded")


CUDART = _load()
CUDART.cudaMemcpyAsync.argtypes = [
    ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p,
]
CUDART.cudaMemcpyAsync.restype = ctypes.c_int


def as_handle(value) -> ctypes.c_void_p:
    """Accept either a raw integer handle (torch's ``cuda_stream``) or a c_void_p."""
    return value if isinstance(value, ctypes.c_void_p) else ctypes.c_void_p(value)


def check(status: int, what: str = "cuda call") -> None:
    if status != CUDA_SUCCESS:
        msg = CUDART.cudaGetErrorString
        msg.restype = ctypes.c_char_p
        raise RuntimeError(f"{what} failed: {msg(status).decode()}")


def stream_create() -> ctypes.c_void_p:
    handle = ctypes.c_void_p()
    check(CUDART.cudaStreamCreateWithFlags(ctypes.byref(handle), CUDA_STREAM_NON_BLOCKING))
    return handle


def event_create() -> ctypes.c_void_p:
    handle = ctypes.c_void_p()
    check(CUDART.cudaEventCreateWithFlags(ctypes.byref(handle), CUDA_EVENT_DISABLE_TIMING))
    return handle


def event_record(event, stream) -> None:
    check(CUDART.cudaEventRecord(event, as_handle(stream)), "cudaEventRecord")


def stream_wait_event(stream, event) -> None:
    check(CUDART.cudaStreamWaitEvent(as_handle(stream), event, 0), "cudaStreamWaitEvent")


def event_synchronize(event) -> None:
    check(CUDART.cudaEventSynchronize(event), "cudaEventSynchronize")


def event_destroy(event) -> None:
    check(CUDART.cudaEventDestroy(event), "cudaEventDestroy")
