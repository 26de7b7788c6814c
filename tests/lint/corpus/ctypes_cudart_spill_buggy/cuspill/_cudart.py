import ctypes
import ctypes.util

cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02

lib = ctypes.CDLL(ctypes.util.findlibrary("cudart") or "libcudart.so")
lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                 ctypes.c_int, ctypes.c_void_p]
lib.cudaStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
lib.cudaEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]


def check(err: int, what: str) -> None:
    if err != 0:
        raise RuntimeError(f"{what} failed with cudaError {err}")


def stream_create() -> ctypes.c_void_p:
    s = ctypes.c_void_p()
    check(lib.cudaStreamCreateWithFlags(ctypes.byref(s), cudaStreamNonBlocking), "cudaStreamCreateWithFlags")
    return s


def event_create() -> ctypes.c_void_p:
    e = ctypes.c_void_p()
    check(lib.cudaEventCreateWithFlags(ctypes.byref(e), cudaEventDisableTiming), "cudaEventCreateWithFlags")
    return e


def host_alloc(nbytes: int) -> ctypes.c_void_p:
    p = ctypes.c_void_p()
    check(lib.cudaHostAlloc(ctypes.byref(p), ctypes.c_size_t(nbytes), 0), "cudaHostAlloc")
    return p


def event_record(event, stream) -> None:
    check(lib.cudaEventRecord(event, stream), "cudaEventRecord")


def stream_wait_event(stream, event) -> None:
    check(lib.cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def event_synchronize(event) -> None:
    check(lib.cudaEventSynchronize(event), "cudaEventSynchronize")
