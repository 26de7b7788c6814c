from __future__ import annotations

import logging
from typing import List, Optional

import torch

from mem_cache.layer_events import LayerDoneCounter

logger = logging.getLogger(__name__)


class TokenToKVPoolAllocator:
    """Hands out slot indices of the device pool; bookkeeping stays on host."""

    def __init__(self, size: int):
        self.size = size
        self.free_slots = torch.arange(1, size + 1, dtype=torch.int64)

    def available_size(self) -> int:
        return self.free_slots.numel()

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        if need_size > self.free_slots.numel():
            return None
        select = self.free_slots[:need_size]
        self.free_slots = self.free_slots[need_size:]
        return select

    def free(self, free_index: torch.Tensor) -> None:
        self.free_slots = torch.cat([self.free_slots, free_index])


class MHATokenToKVPool:
    def __init__(self, size, dtype, head_num, head_dim, layer_num, device="cuda"):
        self.size = size
        self.dtype = dtype
        self.head_num = head_num
        self.head_dim = head_dim
        self.layer_num = layer_num
        self.device = device
        shape = (size + 1, head_num, head_dim)
        self.k_buffer: List[torch.Tensor] = [
            torch.zeros(shape, dtype=dtype, device=device) for _ in range(layer_num)
        ]
        self.v_buffer: List[torch.Tensor] = [
            torch.zeros(shape, dtype=dtype, device=device) for _ in range(layer_num)
        ]
        self.layer_transfer_counter: Optional[LayerDoneCounter] = None

    def register_layer_transfer_counter(self, counter: LayerDoneCounter) -> None:
        self.layer_transfer_counter = counter

    def get_key_buffer(self, layer_id: int) -> torch.Tensor:
        if self.layer_transfer_counter is not None:
            self.layer_transfer_counter.wait_until(layer_id)
        return self.k_buffer[layer_id]

    def get_value_buffer(self, layer_id: int) -> torch.Tensor:
        if self.layer_transfer_counter is not None:
            self.layer_transfer_counter.wait_until(layer_id)
        return self.v_buffer[layer_id]
