from __future__ import annotations

import logging
from typing import Generator, List

import torch

from lmcache_lw.memory import MemoryFormat, MemoryObj

logger = logging.getLogger(__name__)


class VLLMPagedMemLayerwiseGPUConnector:
    """Moves KV between vLLM's paged layers and host chunks, one layer at a time."""

    def __init__(self, hidden_dim: int, num_layers: int, device: torch.device):
        self.hidden_dim = hidden_dim
        self.num_layers = num_layers
        self.device = device
        self.kvcaches: List[torch.Tensor] = []
        self.store_stream = torch.cuda.Stream(device=device)

    def initialize_kvcaches(self, kvcaches: List[torch.Tensor]) -> None:
        # each layer is [2, num_slots, hidden_dim]
        self.kvcaches = kvcaches

    def batched_from_gpu(
        self,
        memory_objs: List[List[MemoryObj]],
        starts: List[int],
        ends: List[int],
        **kwargs,
    ) -> Generator[None, None, None]:
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]
        sync: bool = kwargs["sync"]
        slot_mapping_full = torch.cat([slot_mapping[s:e] for s, e in zip(starts, ends)])
        num_tokens = slot_mapping_full.numel()
        tmp_buffer = torch.empty(
            (2, num_tokens, self.hidden_dim), dtype=self.kvcaches[0].dtype, device=self.device
        )
        offset = starts[0]
        current_stream = torch.cuda.current_stream()

        for layer_id in range(self.num_layers):
            with torch.cuda.stream(self.store_stream):
                self.store_stream.wait_stream(current_stream)
                torch.index_select(self.kvcaches[layer_id], 1, slot_mapping_full, out=tmp_buffer)
                for start, end, memory_obj in zip(starts, ends, memory_objs[layer_id]):
                    memory_obj.tensor.copy_(
                        tmp_buffer[:, start - offset : end - offset], non_blocking=True
                    )
                    memory_obj.fmt = MemoryFormat.KV_2LTD
            yield
            if sync:
                self.store_stream.synchronize()
            logger.debug("Finished offloading layer %d", layer_id)

        tmp_buffer.record_stream(self.store_stream)
        yield
