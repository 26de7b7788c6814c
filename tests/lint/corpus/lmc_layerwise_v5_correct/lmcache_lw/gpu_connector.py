# SPDX-License-Identifier: Apache-2.0
# Standard
import logging
from typing import Generator, List

# Third Party
import torch

# First Party
from lmcache_lw.memory_management import MemoryObj

logger = logging.getLogger(__name__)


class VLLMPagedMemLayerwiseGPUConnector:
    """Moves KV between vLLM's paged GPU buffer and LMCache memory objects,
    one layer at a time so the transfer overlaps the forward pass.

    kvcaches[layer] has shape [2, num_blocks, block_size, num_heads, head_size].
    """

    def __init__(self, num_layers: int, num_heads: int, head_size: int, dtype: torch.dtype):
        self.num_layers = num_layers
        self.num_heads = num_heads
        self.head_size = head_size
        self.dtype = dtype
        self.kvcaches: List[torch.Tensor] = []
        self.store_stream = torch.cuda.Stream()

    def register_kv_caches(self, kvcaches: List[torch.Tensor]) -> None:
        assert len(kvcaches) == self.num_layers
        self.kvcaches = kvcaches

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, num_tokens, self.num_heads, self.head_size])

    def batched_from_gpu(
        self,
        memory_objs: List[List[MemoryObj]],
        starts: List[int],
        ends: List[int],
        **kwargs,
    ) -> Generator[None, None, None]:
        """Yields once per layer after that layer's D2H copies are queued,
        then once more after the store stream has drained (when ``sync``)."""
        if "slot_mapping" not in kwargs:
            raise ValueError("'slot_mapping' must be provided in kwargs.")
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]
        sync: bool = kwargs.get("sync", True)

        current_stream = torch.cuda.current_stream()

        for layer_id in range(self.num_layers):
            kv_flat = self.kvcaches[layer_id].flatten(1, 2)
            with torch.cuda.stream(self.store_stream):
                self.store_stream.wait_stream(current_stream)
                for start, end, memory_obj in zip(starts, ends, memory_objs[layer_id]):
                    slots = slot_mapping[start:end]
                    memory_obj.tensor.copy_(kv_flat[:, slots], non_blocking=True)
            yield

        if sync:
            self.store_stream.synchronize()
        yield
