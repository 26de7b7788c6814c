"""Minimal ctypes bindings for the handful of driver calls the dumper needs.

We talk to libcuda directly (rather than through torch) so that the copies can
be issued on a raw stream handle without going through the caching allocator.
"""

from __future__ import annotations

import ctypes
import functools

CUDA_SUCCESS = 0
CU_EVENT_DISABLE_TIMING = 0x2

CUresult = ctypes.c_int
CUstream = ctypes.c_void_p
CUevent = ctypes.c_void_p
CUdeviceptr = ctypes.c_uint64


@functools.lru_cache(maxsize=None)
def _libcuda() -> ctypes.CDLL:
    last_err: OSError | None = None
    for name in ("libcuda.so", "libcuda.so.1"):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError as e:
            last_err = e
    else:
        raise OSError("unable to load libcuda") from last_err

    sigs = {
        "cuMemcpyDtoHAsync_v2": [ctypes.c_void_p, CUdeviceptr, ctypes.c_size_t, CUstream],
        "cuEventCreate": [ctypes.POINTER(CUevent), ctypes.c_uint],
        "cuEventRecord": [CUevent, CUstream],
        "cuEventSynchronize": [CUevent],
        "cuEventDestroy_v2": [CUevent],
        "cuStreamWaitEvent": [CUstream, CUevent, ctypes.c_uint],
        "cuGetErrorName": [CUresult, ctypes.POINTER(ctypes.c_char_p)],
    }
    for fn, argtypes in sigs.items():
        getattr(lib, fn).argtypes = argtypes
        getattr(lib, fn).restype = CUresult
    return lib


libcuda = _libcuda()


def check(res: int, what: str) -> None:
    if res != CUDA_SUCCESS:
        name = ctypes.c_char_p()
        libcuda.cuGetErrorName(res, ctypes.byref(name))
        raise RuntimeError(f"{what} failed: {(name.value or b'?').decode()} ({res})")


def create_event() -> CUevent:
    ev = CUevent()
    check(libcuda.cuEventCreate(ctypes.byref(ev), CU_EVENT_DISABLE_TIMING), "cuEventCreate")
    return ev


def destroy_event(ev: CUevent) -> None:
    check(libcuda.cuEventDestroy_v2(ev), "cuEventDestroy")


def record_event(ev: CUevent, stream: int) -> None:
    check(libcuda.cuEventRecord(ev, CUstream(stream)), "cuEventRecord")


def stream_wait_event(stream: int, ev: CUevent) -> None:
    check(libcuda.cuStreamWaitEvent(CUstream(stream), ev, 0), "cuStreamWaitEvent")


def event_synchronize(ev: CUevent) -> None:
    check(libcuda.cuEventSynchronize(ev), "cuEventSynchronize")
