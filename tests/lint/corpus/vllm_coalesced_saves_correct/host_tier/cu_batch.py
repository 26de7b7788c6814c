"""cuMemcpyBatchAsync through a function pointer from cuGetProcAddress, called with ctypes
(no dependency on the cuda-python version's own wrapper of the batch API)."""

import ctypes
from typing import Sequence

from cuda.bindings import driver

CU_MEMCPY_SRC_ACCESS_ORDER_STREAM = 1
CU_MEMCPY_SRC_ACCESS_ORDER_ANY = 3
CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE = 1
CU_MEM_LOCATION_TYPE_DEVICE = 1
CU_MEM_LOCATION_TYPE_HOST = 2


class CUmemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint), ("id", ctypes.c_int)]


class CUmemcpyAttributes(ctypes.Structure):
    _fields_ = [("srcAccessOrder", ctypes.c_uint), ("srcLocHint", CUmemLocation),
                ("dstLocHint", CUmemLocation), ("flags", ctypes.c_uint)]


_PFN = ctypes.CFUNCTYPE(ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                        ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                        ctypes.c_void_p, ctypes.c_void_p)
_batch_fn = None


def _resolve():
    global _batch_fn
    if _batch_fn is None:
        err, ptr, _ = driver.cuGetProcAddress(b"cuMemcpyBatchAsync", 12080, 0)
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuGetProcAddress(cuMemcpyBatchAsync): {err}")
        _batch_fn = _PFN(ptr)
    return _batch_fn


def device_to_host_attrs(device_index: int) -> CUmemcpyAttributes:
    # the source is the live KV cache: read it in stream order
    return CUmemcpyAttributes(
        srcAccessOrder=CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
        srcLocHint=CUmemLocation(CU_MEM_LOCATION_TYPE_DEVICE, device_index),
        dstLocHint=CUmemLocation(CU_MEM_LOCATION_TYPE_HOST, 0),
        flags=CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE,
    )


def memcpy_batch(dsts: Sequence[int], srcs: Sequence[int], sizes: Sequence[int],
                 attrs: CUmemcpyAttributes, stream_handle: int) -> None:
    n = len(sizes)
    fail_idx = ctypes.c_size_t(0)
    attrs_idx = ctypes.c_size_t(0)
    err = _resolve()((ctypes.c_uint64 * n)(*dsts), (ctypes.c_uint64 * n)(*srcs),
                     (ctypes.c_size_t * n)(*sizes), n, ctypes.byref(attrs),
                     ctypes.byref(attrs_idx), 1, ctypes.byref(fail_idx), stream_handle)
    if err != 0:
        raise RuntimeError(f"cuMemcpyBatchAsync failed ({err}) at copy {fail_idx.value}")
