from typing import List

import torch
from cuda.bindings import runtime as cudart


def batch_copy(dst_ptrs: List[int], src_ptrs: List[int], sizes: List[int],
               attrs: cudart.cudaMemcpyAttributes, stream: torch.cuda.Stream) -> None:
    count = len(sizes)
    if count == 0:
        return
    # expect: KVG002
    result = cudart.cudaMemcpyBatchAsync(dst_ptrs, src_ptrs, sizes, count, [attrs], [0], 1,
                                         stream.cuda_stream)
    if result[0] != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"cudaMemcpyBatchAsync failed: {result[0]}")
