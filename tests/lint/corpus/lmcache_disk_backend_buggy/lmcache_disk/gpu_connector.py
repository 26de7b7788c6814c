from __future__ import annotations

from typing import List

import torch

from lmcache.logging import init_logger

from .memory_obj import MemoryObj

logger = init_logger(__name__)


class VLLMPagedMemGPUConnectorV2:
    def __init__(self, num_layers: int, block_size: int):
        self.num_layers = num_layers
        self.block_size = block_size
        self.store_stream = torch.cuda.Stream()

    def from_gpu(
        self, memory_obj: MemoryObj, block_ids: List[int], kvcaches: List[torch.Tensor]
    ) -> None:
        """Gather ``block_ids`` of every layer into ``memory_obj`` (async)."""
        self.store_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.store_stream):
            for layer_id, kv_layer in enumerate(kvcaches):
                for j, block_id in enumerate(block_ids):
                    memory_obj.tensor[layer_id, j].copy_(
                        kv_layer[block_id], non_blocking=True
                    )
            event = torch.cuda.Event()
            event.record(self.store_stream)
        memory_obj.ready_event = event
