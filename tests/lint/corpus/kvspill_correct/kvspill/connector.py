# SPDX-License-Identifier: Apache-2.0
import logging
from typing import List, Optional

import torch

from kvspill.config import SpillConfig
from kvspill.cuda_utils import fence, mark

logger = logging.getLogger(__name__)


class TensorMemoryObj:
    def __init__(self, tensor: torch.Tensor, key: str):
        self.tensor = tensor
        self.key = key
        self.ready_event: Optional[torch.cuda.Event] = None

    @property
    def byte_array(self) -> memoryview:
        return memoryview(self.tensor.view(torch.uint8).numpy()).cast("B")


class PagedKVStoreConnector:
    def __init__(self, config: SpillConfig, device: torch.device):
        self.config = config
        self.device = device
        self.store_stream = torch.cuda.Stream(device=device)

    @staticmethod
    def _flat(kv: torch.Tensor) -> torch.Tensor:
        # [2, num_blocks, block_size, num_heads, head_size] -> [2, num_slots, hidden]
        return kv.view(kv.shape[0], kv.shape[1] * kv.shape[2], -1)

    def from_gpu(
        self,
        memory_obj: TensorMemoryObj,
        start: int,
        end: int,
        kvcaches: List[torch.Tensor],
        slot_mapping: torch.Tensor,
    ) -> None:
        slots = slot_mapping[start:end]
        fence(self.store_stream)
        with torch.cuda.stream(self.store_stream):
            for layer_id, kv in enumerate(kvcaches):
                memory_obj.tensor[layer_id].copy_(self._flat(kv)[:, slots], non_blocking=True)
            memory_obj.ready_event = mark(self.store_stream)
        logger.debug("queued D2H for %s (%d tokens)", memory_obj.key, end - start)
