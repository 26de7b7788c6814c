"""The few libcudart entry points the staging sender needs, through ctypes."""

import ctypes

cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2

_lib = ctypes.CDLL("libcudart.so.12")
_lib.cudaMemcpyAsync.restype = ctypes.c_int
_lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                 ctypes.c_int, ctypes.c_void_p]


def memcpy_async(dst: int, src: int, nbytes: int, kind: int, stream: int) -> None:
    # expect: KVG001
    err = _lib.cudaMemcpyAsync(ctypes.c_void_p(dst), ctypes.c_void_p(src),
                               ctypes.c_size_t(nbytes), kind, ctypes.c_void_p(stream))
    if err != 0:
        raise RuntimeError(f"cudaMemcpyAsync failed with error {err}")
