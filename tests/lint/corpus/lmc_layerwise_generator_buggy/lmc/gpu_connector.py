"""Layer-wise GPU connector in the shape of LMCache's VLLMPagedMemLayerwiseGPUConnector
(without the GPU staging buffer): batched_from_gpu is a generator the cache engine advances
once per layer, right after that layer's attention wrote its KV into the paged cache. Each
step copies the layer's blocks of every chunk into the chunk's pinned MemoryObj on the store
stream and yields; the next step first waits for the previous layer's copies.

Bug: the store stream waits on the compute stream once, when the generator starts (layer 0).
Layer i's KV is written by kernels launched after that, between two next() calls, so the
copies of every later layer are not ordered behind the attention that writes them."""

from typing import List

import torch

from lmc.memory_management import MemoryObj


class VLLMPagedMemLayerwiseGPUConnector:
    def __init__(self, num_layers: int, block_size: int):
        self.num_layers = num_layers
        self.block_size = block_size
        self.store_stream = torch.cuda.Stream()
        self.kvcaches: List[torch.Tensor] = []

    def register_kv_caches(self, kvcaches: List[torch.Tensor]) -> None:
        # vLLM flash-attn layout, per layer: [2, num_blocks, block_size, num_heads, head_size]
        self.kvcaches = kvcaches

    def batched_from_gpu(self, memory_objs: List[List[MemoryObj]], chunk_blocks: List[List[int]]):
        current_stream = torch.cuda.current_stream()
        self.store_stream.wait_stream(current_stream)
        bs = self.block_size
        for layer_id in range(self.num_layers):
            kv_layer = self.kvcaches[layer_id]
            with torch.cuda.stream(self.store_stream):
                for memory_obj, block_ids in zip(memory_objs[layer_id], chunk_blocks):
                    dst = memory_obj.tensor
                    for i, block_id in enumerate(block_ids):
                        # expect: KVG001
                        dst[:, i * bs : (i + 1) * bs].copy_(kv_layer[:, block_id], non_blocking=True)
            yield
            self.store_stream.synchronize()
        yield
