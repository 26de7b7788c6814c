"""cudaMemcpyBatchAsync through ctypes (CUDA 12.8 runtime signature, with failIdx)."""

import ctypes

_lib = ctypes.CDLL("libcudart.so.12")

# cudaMemcpySrcAccessOrder
ORDER_STREAM = 1
ORDER_DURING_API_CALL = 2
ORDER_ANY = 3


class CudaMemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class CudaMemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", CudaMemLocation),
        ("dstLocHint", CudaMemLocation),
        ("flags", ctypes.c_uint),
    ]


def memcpy_batch_async(dst_ptrs, src_ptrs, sizes, attrs, stream_handle):
    count = len(sizes)
    dsts = (ctypes.c_void_p * count)(*dst_ptrs)
    srcs = (ctypes.c_void_p * count)(*src_ptrs)
    lens = (ctypes.c_size_t * count)(*sizes)
    attrs_idx = ctypes.c_size_t(0)
    fail_idx = ctypes.c_size_t(0)
    # expect: KVG002
    err = _lib.cudaMemcpyBatchAsync(dsts, srcs, lens, ctypes.c_size_t(count),
                                    ctypes.byref(attrs), ctypes.byref(attrs_idx),
                                    ctypes.c_size_t(1), ctypes.byref(fail_idx),
                                    ctypes.c_void_p(stream_handle))
    if err != 0:
        raise RuntimeError(f"cudaMemcpyBatchAsync failed (err={err}, failIdx={fail_idx.value})")
