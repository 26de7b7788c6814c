"""Thin ctypes wrapper over libcuda's cuMemcpyBatchAsync."""

import ctypes

_lib = ctypes.CDLL("libcuda.so.1")
_batch = _lib.cuMemcpyBatchAsync
_batch.restype = ctypes.c_int


def batch_copy(dst_ptrs, src_ptrs, nbytes, attrs, stream):
    n = len(src_ptrs)
    dsts = (ctypes.c_uint64 * n)(*dst_ptrs)
    srcs = (ctypes.c_uint64 * n)(*src_ptrs)
    sizes = (ctypes.c_size_t * n)(*([nbytes] * n))
    attr_idx = ctypes.c_size_t(0)
    fail_idx = ctypes.c_size_t(0)
    # expect: KVG001, KVG002
    err = _batch(dsts, srcs, sizes, ctypes.c_size_t(n), ctypes.byref(attrs),
                 ctypes.byref(attr_idx), ctypes.c_size_t(1), ctypes.byref(fail_idx),
                 ctypes.c_void_p(stream.cuda_stream))
    if err != 0:
        raise RuntimeError(f"cuMemcpyBatchAsync: error {err} at copy {fail_idx.value}")
