# SPDX-License-Identifier: Apache-2.0
import logging
from typing import Generator, List, Optional, Sequence

import torch

from layerkv.config import LayerwiseStoreConfig
from layerkv.memory import MemoryObj

logger = logging.getLogger(__name__)


class LayerwisePagedGPUConnector:
    """Paged KV layers -> pinned memory objects, one layer per generator step."""

    def __init__(self, config: LayerwiseStoreConfig, device: torch.device):
        self.config = config
        self.num_layers = config.num_layers
        self.device = device
        self.store_stream = torch.cuda.Stream(device=device)
        self.kvcaches: Optional[List[torch.Tensor]] = None

    def bind_kvcaches(self, kvcaches: List[torch.Tensor]) -> None:
        if self.kvcaches is None:
            logger.info("binding %d paged KV layers", len(kvcaches))
            self.kvcaches = kvcaches

    def _flat_layer(self, layer_id: int) -> torch.Tensor:
        # [2, num_blocks, block_size, num_heads, head_size] -> [2, num_slots, hidden]
        kv = self.kvcaches[layer_id]
        return kv.view(kv.shape[0], kv.shape[1] * kv.shape[2], -1)

    def batched_from_gpu(
        self,
        memory_objs: List[List[MemoryObj]],
        starts: Sequence[int],
        ends: Sequence[int],
        slot_mapping: torch.Tensor,
        sync: bool = False,
    ) -> Generator[None, None, None]:
        assert self.kvcaches is not None, "kvcaches must be bound first"
        current_stream = torch.cuda.current_stream(self.device)

        for layer_id in range(self.num_layers):
            flat_kv = self._flat_layer(layer_id)
            with torch.cuda.stream(self.store_stream):
                self.store_stream.wait_stream(current_stream)
                for start, end, mobj in zip(starts, ends, memory_objs[layer_id]):
                    mobj.tensor.copy_(flat_kv[:, slot_mapping[start:end]], non_blocking=True)
            yield
            if sync:
                self.store_stream.synchronize()
            logger.debug("offload of layer %d issued", layer_id)

        self.store_stream.synchronize()
        yield
