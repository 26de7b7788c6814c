import ctypes
import ctypes.util
import logging

logger = logging.getLogger(__name__)

cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02

_libname = ctypes.util.find_library("cudart") or "libcudart.so"
_lib = ctypes.CDLL(_libname)
_lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
_lib.cudaStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
_lib.cudaEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]


def _check(ret: int, what: str):
    if ret != 0:
        raise RuntimeError(f"{what} failed with cudaError {ret}")


def stream_create() -> ctypes.c_void_p:
    stream = ctypes.c_void_p()
    _check(_lib.cudaStreamCreateWithFlags(ctypes.byref(stream), cudaStreamNonBlocking), "cudaStreamCreateWithFlags")
    return stream


def event_create() -> ctypes.c_void_p:
    event = ctypes.c_void_p()
    _check(_lib.cudaEventCreateWithFlags(ctypes.byref(event), cudaEventDisableTiming), "cudaEventCreateWithFlags")
    return event


def event_record(event, stream):
    _check(_lib.cudaEventRecord(event, stream), "cudaEventRecord")


def stream_wait_event(stream, event):
    _check(_lib.cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def event_query(event) -> bool:
    return _lib.cudaEventQuery(event) == 0


def memcpy_h2d_async(dst_ptr: int, src_ptr: int, nbytes: int, stream):
    _check(_lib.cudaMemcpyAsync(dst_ptr, src_ptr, nbytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync")
