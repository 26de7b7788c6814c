"""Copies a token range of the paged vLLM KV cache into a pinned memory object."""

from typing import List

import torch

from lmc_remote.memory import MemoryObj


class PagedGPUConnector:
    def __init__(self, kv_caches: List[torch.Tensor], block_size: int):
        self.kv_caches = kv_caches
        self.block_size = block_size
        self.store_stream = torch.cuda.Stream()

    def from_gpu(self, memory_obj: MemoryObj, block_ids: List[int]) -> None:
        self.store_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.store_stream):
            for layer_id, kv in enumerate(self.kv_caches):
                for i, block_id in enumerate(block_ids):
                    memory_obj.tensor[layer_id, i].copy_(kv[block_id], non_blocking=True)
        # the backend waits on this before it serializes the object
        memory_obj.copy_done.record()
