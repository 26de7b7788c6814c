"""A KV store path with both hazards kvguard exists for (run `kvguard check examples/`)."""

import torch
from cuda.bindings import driver


def store_blocks(cpu_cache: torch.Tensor, gpu_cache: torch.Tensor, blocks: list[int], store_stream: torch.cuda.Stream) -> None:
    # No barrier: the store stream may read blocks the compute stream is still writing.
    with torch.cuda.stream(store_stream):
        for block in blocks:
            cpu_cache[block].copy_(gpu_cache[block], non_blocking=True)


def store_batch(dsts: list[int], srcs: list[int], sizes: list[int], store_stream: torch.cuda.Stream) -> None:
    store_stream.wait_stream(torch.cuda.current_stream())
    attrs = driver.CUmemcpyAttributes()
    # ANY lets the driver read the GPU source before the barrier above takes effect.
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(srcs), [attrs], [0], 1, store_stream.cuda_stream)


def offload_step(gpu_cache: torch.Tensor, blocks: list[int], store_stream: torch.cuda.Stream) -> torch.Tensor:
    cpu_cache = torch.empty(gpu_cache.shape, dtype=gpu_cache.dtype, pin_memory=True)
    store_blocks(cpu_cache, gpu_cache, blocks, store_stream)
    return cpu_cache
