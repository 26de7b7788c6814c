from __future__ import annotations

from typing import Generator, List

import torch

from lmcache.logging import init_logger

from .config import LMCacheEngineMetadata
from .memory_management import MemoryObj

logger = init_logger(__name__)


class VLLMPagedMemLayerwiseGPUConnector:
    """Moves one layer of paged KV per step between vLLM's cache and host."""

    def __init__(self, metadata: LMCacheEngineMetadata):
        self.num_layers = metadata.num_layers
        self.block_size = metadata.block_size
        self.store_stream = torch.cuda.Stream()

    def batched_from_gpu(
        self,
        memory_objs: List[List[MemoryObj]],
        chunk_block_ids: List[List[int]],
        kvcaches: List[torch.Tensor],
    ) -> Generator[None, None, None]:
        """memory_objs is indexed [layer][chunk]; kvcaches[layer] is
        [num_blocks, 2, block_size, heads, dim]."""
        current_stream = torch.cuda.current_stream()
        self.store_stream.wait_stream(current_stream)
        for layer_id in range(self.num_layers):
            kv_layer = kvcaches[layer_id]
            with torch.cuda.stream(self.store_stream):
                for obj, block_ids in zip(memory_objs[layer_id], chunk_block_ids):
                    for j, block_id in enumerate(block_ids):
                        # expect: KVG001
                        obj.tensor[j].copy_(kv_layer[block_id], non_blocking=True)
            yield
        self.store_stream.synchronize()
        logger.debug("layerwise store of %d chunks done", len(chunk_block_ids))
        yield
