import ctypes
import functools

from .constants import CUDART_SONAME, cudaEventDisableTiming, cudaStreamNonBlocking


class cudaMemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class cudaMemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", cudaMemLocation),
        ("dstLocHint", cudaMemLocation),
        ("flags", ctypes.c_uint),
    ]


class CudaRtError(RuntimeError):
    pass


@functools.lru_cache(maxsize=1)
def load() -> ctypes.CDLL:
    lib = ctypes.CDLL(CUDART_SONAME)
    lib.cudaGetErrorString.restype = ctypes.c_char_p
    lib.cudaMemcpyAsync.argtypes = [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p,
    ]
    lib.cudaMemcpyBatchAsync.argtypes = [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
        ctypes.POINTER(cudaMemcpyAttributes), ctypes.c_void_p, ctypes.c_size_t,
        ctypes.POINTER(ctypes.c_size_t), ctypes.c_void_p,
    ]
    return lib


def check(err: int) -> None:
    if err != 0:
        raise CudaRtError(load().cudaGetErrorString(err).decode())


def stream_create() -> ctypes.c_void_p:
    s = ctypes.c_void_p()
    check(load().cudaStreamCreateWithFlags(ctypes.byref(s), cudaStreamNonBlocking))
    return s


def event_create() -> ctypes.c_void_p:
    e = ctypes.c_void_p()
    check(load().cudaEventCreateWithFlags(ctypes.byref(e), cudaEventDisableTiming))
    return e


def event_record(event: ctypes.c_void_p, stream) -> None:
    handle = ctypes.c_void_p(stream) if isinstance(stream, int) else stream
    check(load().cudaEventRecord(event, handle))


def stream_wait_event(stream: ctypes.c_void_p, event: ctypes.c_void_p) -> None:
    check(load().cudaStreamWaitEvent(stream, event, 0))


def event_synchronize(event: ctypes.c_void_p) -> None:
    check(load().cudaEventSynchronize(event))


def event_destroy(event: ctypes.c_void_p) -> None:
    check(load().cudaEventDestroy(event))


def malloc_host(nbytes: int) -> int:
    p = ctypes.c_void_p()
    check(load().cudaMallocHost(ctypes.byref(p), ctypes.c_size_t(nbytes)))
    return int(p.value)
