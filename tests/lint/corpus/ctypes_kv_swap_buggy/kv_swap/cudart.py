"""Minimal ctypes binding of the CUDA runtime calls used for swapping."""
import ctypes
import ctypes.util

lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")

c_void_p, c_size_t, c_uint, c_int = (ctypes.c_void_p, ctypes.c_size_t,
                                     ctypes.c_uint, ctypes.c_int)


class MemLocation(ctypes.Structure):
    _fields_ = [("type", c_int), ("id", c_int)]


class MemcpyAttributes(ctypes.Structure):
    _fields_ = [("srcAccessOrder", c_int), ("srcLocHint", MemLocation),
                ("dstLocHint", MemLocation), ("flags", c_uint)]


lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(c_void_p), c_uint]
lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(c_void_p), c_uint]
lib.cudaEventRecord.argtypes = [c_void_p, c_void_p]
lib.cudaEventDestroy.argtypes = [c_void_p]
lib.cudaStreamWaitEvent.argtypes = [c_void_p, c_void_p, c_uint]
lib.cudaMemcpyAsync.argtypes = [c_void_p, c_void_p, c_size_t, c_int, c_void_p]
lib.cudaMemcpyBatchAsync.argtypes = [
    ctypes.POINTER(c_void_p), ctypes.POINTER(c_void_p),
    ctypes.POINTER(c_size_t), c_size_t,
    ctypes.POINTER(MemcpyAttributes), ctypes.POINTER(c_size_t), c_size_t,
    ctypes.POINTER(c_size_t), c_void_p
]


def check(code: int, what: str) -> None:
    if code != 0:
        raise RuntimeError(f"{what} failed with cudaError {code}")


def stream_create() -> c_void_p:
    handle = c_void_p()
    check(lib.cudaStreamCreateWithFlags(ctypes.byref(handle), 1),
          "cudaStreamCreateWithFlags")
    return handle


def event_create() -> c_void_p:
    handle = c_void_p()
    check(lib.cudaEventCreateWithFlags(ctypes.byref(handle), 2),
          "cudaEventCreateWithFlags")
    return handle


def event_record(event, stream) -> None:
    check(lib.cudaEventRecord(event, stream), "cudaEventRecord")


def event_destroy(event) -> None:
    check(lib.cudaEventDestroy(event), "cudaEventDestroy")


def stream_wait_event(stream, event) -> None:
    check(lib.cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")
