"""The same store path, ordered: `kvguard check examples/store_fixed.py` passes."""

import torch
from cuda.bindings import driver


def store_blocks(cpu_cache: torch.Tensor, gpu_cache: torch.Tensor, blocks: list[int], store_stream: torch.cuda.Stream) -> None:
    # On the compute thread, after the forward pass wrote the blocks.
    store_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(store_stream):
        for block in blocks:
            cpu_cache[block].copy_(gpu_cache[block], non_blocking=True)


def store_batch(dsts: list[int], srcs: list[int], sizes: list[int], store_stream: torch.cuda.Stream) -> None:
    store_stream.wait_stream(torch.cuda.current_stream())
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
    driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(srcs), [attrs], [0], 1, store_stream.cuda_stream)
