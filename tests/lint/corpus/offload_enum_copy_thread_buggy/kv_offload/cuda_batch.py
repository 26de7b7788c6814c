"""cuMemcpyBatchAsync through cuda-python's driver bindings."""

import enum
from typing import Sequence

from cuda.bindings import driver


class SrcAccessOrder(enum.IntEnum):
    """CUmemcpySrcAccessOrder, spelt so that handler configs stay readable."""
    STREAM = 1
    DURING_API_CALL = 2
    ANY = 3


def memcpy_batch(dst_ptrs: Sequence[int], src_ptrs: Sequence[int], sizes: Sequence[int],
                 order: SrcAccessOrder, stream_handle: int) -> None:
    if not sizes:
        return
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder(int(order))
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    # expect: KVG002
    result = driver.cuMemcpyBatchAsync(list(dst_ptrs), list(src_ptrs), list(sizes), len(sizes),
                                       [attrs], [0], 1, stream_handle)
    if result[0] != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {result[0]}")
