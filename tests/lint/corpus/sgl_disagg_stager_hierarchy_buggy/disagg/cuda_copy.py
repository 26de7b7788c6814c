"""Thin wrapper over the driver's batched memcpy (CUDA 12.8+): one call moves every page of a
request between the KV pool and the pinned staging buffer."""

from typing import List

from cuda.bindings import driver as cuda


class CopyError(RuntimeError):
    pass


def _check(result):
    err, *rest = result
    if err != cuda.CUresult.CUDA_SUCCESS:
        raise CopyError(f"cuMemcpyBatchAsync failed: {err}")
    return rest


def batch_memcpy(dst_ptrs: List[int], src_ptrs: List[int], sizes: List[int], src_order, stream) -> None:
    if not sizes:
        return
    attrs = cuda.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_order
    attrs.flags = cuda.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    _check(
        # expect: KVG002
        cuda.cuMemcpyBatchAsync(dst_ptrs, src_ptrs, sizes, len(sizes), [attrs], [0], 1, stream.cuda_stream)
    )
