# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Generator, List
import logging

# Third Party
import torch

# First Party
from .memory_obj import MemoryObj

logger = logging.getLogger(__name__)


class VLLMPagedMemLayerwiseGPUConnector:
    """Moves paged KV between vLLM's GPU cache and host memory objects,
    one layer per generator step so that stores overlap the forward pass."""

    def __init__(self, num_layers: int, block_size: int, device: torch.device):
        self.num_layers = num_layers
        self.block_size = block_size
        self.device = device
        self.store_stream = torch.cuda.Stream(device=device)

    def get_shape(self, num_heads: int, head_dim: int) -> torch.Size:
        return torch.Size([2, self.block_size, num_heads, head_dim])

    def batched_from_gpu(
        self,
        memory_objs: List[List[MemoryObj]],
        block_ids: List[int],
        **kwargs,
    ) -> Generator[None, None, None]:
        """Yields once per layer and once more when the store is flushed.

        memory_objs is indexed [layer_id][chunk]; block_ids are the vLLM
        block ids backing each chunk, already resolved on the host.
        """
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        sync: bool = kwargs.get("sync", False)
        assert len(memory_objs) == self.num_layers

        current_stream = torch.cuda.current_stream()
        self.store_stream.wait_stream(current_stream)
        for layer_id in range(self.num_layers):
            kv_layer = kvcaches[layer_id]
            with torch.cuda.stream(self.store_stream):
                for obj, block_id in zip(memory_objs[layer_id], block_ids):
                    # expect: KVG001
                    obj.tensor.copy_(kv_layer[:, block_id], non_blocking=True)
            yield

        if sync:
            self.store_stream.synchronize()
        logger.debug("Stored %d chunks x %d layers", len(block_ids), self.num_layers)
        yield
