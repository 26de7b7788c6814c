import ctypes
import functools

import numpy as np

from simple_offload.cuda_defs import (
    CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE,
    CUdeviceptr,
    CUmemcpyAttributes,
    CUmemLocation,
    CUresult,
    CUstream,
)

_size_p = ctypes.POINTER(ctypes.c_size_t)
_ptr_p = ctypes.POINTER(CUdeviceptr)


@functools.lru_cache(maxsize=1)
def _libcuda() -> ctypes.CDLL:
    lib = ctypes.CDLL("libcuda.so.1")
    fn = lib.cuMemcpyBatchAsync
    fn.restype = CUresult
    fn.argtypes = [
        _ptr_p, _ptr_p, _size_p, ctypes.c_size_t,
        ctypes.POINTER(CUmemcpyAttributes), _size_p, ctypes.c_size_t,
        _size_p, CUstream,
    ]
    return lib


def make_attrs(src_order: int, src_type: int, dst_type: int, device_id: int) -> CUmemcpyAttributes:
    attrs = CUmemcpyAttributes()
    attrs.srcAccessOrder = src_order
    attrs.srcLocHint = CUmemLocation(src_type, device_id)
    attrs.dstLocHint = CUmemLocation(dst_type, device_id)
    attrs.flags = CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def batch_memcpy(
    dst_ptrs: np.ndarray,
    src_ptrs: np.ndarray,
    sizes: np.ndarray,
    attrs: CUmemcpyAttributes,
    stream_handle: int,
) -> None:
    count = len(dst_ptrs)
    if count == 0:
        return
    dsts = dst_ptrs.ctypes.data_as(_ptr_p)
    srcs = src_ptrs.ctypes.data_as(_ptr_p)
    szs = sizes.ctypes.data_as(_size_p)
    attr_idx = ctypes.c_size_t(0)
    fail_idx = ctypes.c_size_t(0)
    stream = CUstream(stream_handle)
    rc = _libcuda().cuMemcpyBatchAsync(dsts, srcs, szs, count, ctypes.byref(attrs), ctypes.byref(attr_idx), 1, ctypes.byref(fail_idx), stream)
    if rc != 0:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: rc={rc} fail_idx={fail_idx.value}")
