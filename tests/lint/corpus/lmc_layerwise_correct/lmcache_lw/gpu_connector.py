# SPDX-License-Identifier: Apache-2.0
import logging
from typing import Generator, List

import torch

from .kv_ops import chunk_block_ids, gather_layer_chunk
from .storage_manager import MemoryObj

logger = logging.getLogger(__name__)


class VLLMPagedMemLayerwiseGPUConnector:
    """Moves one layer of paged KV per step between GPU and host chunks."""

    def __init__(self, num_layers: int, block_size: int, device: torch.device):
        self.num_layers = num_layers
        self.block_size = block_size
        self.device = device
        self.store_stream = torch.cuda.Stream(device=device)

    def batched_from_gpu(
        self,
        memory_objs: List[List[MemoryObj]],
        starts: List[int],
        ends: List[int],
        **kwargs,
    ) -> Generator[None, None, None]:
        """Generator: one step per layer, plus a final step."""
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        block_ids: List[int] = kwargs["block_ids"]

        current_stream = torch.cuda.current_stream(self.device)
        for layer_id in range(self.num_layers):
            self.store_stream.wait_stream(current_stream)
            with torch.cuda.stream(self.store_stream):
                for memory_obj, start, end in zip(
                    memory_objs[layer_id], starts, ends
                ):
                    gather_layer_chunk(
                        kvcaches[layer_id],
                        chunk_block_ids(block_ids, start, end, self.block_size),
                        memory_obj.tensor,
                        self.block_size,
                    )
            yield

        self.store_stream.synchronize()
        logger.debug("Stored %d chunks for %d layers", len(starts), self.num_layers)
        yield
