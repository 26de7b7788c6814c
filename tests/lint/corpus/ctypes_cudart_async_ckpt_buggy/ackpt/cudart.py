"""Just the CUDA runtime calls the checkpointer needs, through ctypes (no extra dependency
beyond the libcudart that torch already ships)."""

import ctypes
import ctypes.util
import glob
import os

import torch

cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaEventDisableTiming = 0x02


def _load():
    name = ctypes.util.find_library("cudart")
    if name is None:
        lib_dir = os.path.join(os.path.dirname(torch.__file__), "lib")
        hits = sorted(glob.glob(os.path.join(lib_dir, "libcudart*.so*")))
        if not hits:
            raise OSError("libcudart not found")
        name = hits[-1]
    lib = ctypes.CDLL(name)
    lib.cudaMemcpyAsync.argtypes = [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p,
    ]
    lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
    lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
    lib.cudaEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.cudaEventSynchronize.argtypes = [ctypes.c_void_p]
    return lib


_lib = _load()


def _check(code: int, what: str) -> None:
    if code != 0:
        raise RuntimeError(f"{what} failed with cudaError {code}")


def memcpy_async(dst: int, src: int, nbytes: int, kind: int, stream: int) -> None:
    _check(_lib.cudaMemcpyAsync(dst, src, nbytes, kind, stream), "cudaMemcpyAsync")


def stream_synchronize(stream: int) -> None:
    _check(_lib.cudaStreamSynchronize(stream), "cudaStreamSynchronize")


def event_create() -> ctypes.c_void_p:
    ev = ctypes.c_void_p()
    _check(_lib.cudaEventCreateWithFlags(ctypes.byref(ev), cudaEventDisableTiming), "cudaEventCreate")
    return ev


def event_record(event: ctypes.c_void_p, stream: int) -> None:
    _check(_lib.cudaEventRecord(event, stream), "cudaEventRecord")


def event_synchronize(event: ctypes.c_void_p) -> None:
    _check(_lib.cudaEventSynchronize(event), "cudaEventSynchronize")
