from dataclasses import dataclass
from typing import List

from cuda.bindings import driver


@dataclass(frozen=True)
class BatchCopyOptions:
    src_access_order: driver.CUmemcpySrcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    prefer_overlap_with_compute: bool = True


def batch_copy_pages(dst_ptrs: List[int], src_ptrs: List[int], nbytes: int, stream_handle: int,
                     options: BatchCopyOptions) -> None:
    count = len(dst_ptrs)
    if count == 0:
        return
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = options.src_access_order
    if options.prefer_overlap_with_compute:
        attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    # expect: KVG002
    result = driver.cuMemcpyBatchAsync(dst_ptrs, src_ptrs, [nbytes] * count, count, [attrs], [0], 1,
                                       stream_handle)
    if result[0] != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync: {result[0]}")
