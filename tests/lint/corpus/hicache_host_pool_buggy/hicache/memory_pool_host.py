from __future__ import annotations

import logging
import threading
from typing import Iterator, Optional, Tuple

import torch

from .memory_pool import MHATokenToKVPool

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    def __init__(
        self,
        device_pool: MHATokenToKVPool,
        host_to_device_ratio: float,
        page_size: int,
        pin_memory: bool = True,
    ):
        self.device_pool = device_pool
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        size = int(device_pool.size * host_to_device_ratio)
        self.size = size - size % page_size
        self.kv_buffer = torch.empty(
            (2, self.layer_num, self.size, device_pool.head_num, device_pool.head_dim),
            dtype=device_pool.dtype,
            device="cpu",
            pin_memory=pin_memory,
        )
        self.free_slots = torch.arange(self.size, dtype=torch.int64)
        self.lock = threading.RLock()

    def available_size(self) -> int:
        return len(self.free_slots)

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        with self.lock:
            if need_size > self.available_size():
                return None
            select_index = self.free_slots[:need_size]
            self.free_slots = self.free_slots[need_size:]
            return select_index

    def free(self, indices: torch.Tensor) -> int:
        with self.lock:
            self.free_slots = torch.cat([self.free_slots, indices])
        return len(indices)

    def _page_pairs(
        self, host_indices: torch.Tensor, device_indices: torch.Tensor
    ) -> Iterator[Tuple[int, int]]:
        ps = self.page_size
        return zip(host_indices[::ps].tolist(), device_indices[::ps].tolist())

    def backup_from_device_all_layer(
        self,
        device_pool: MHATokenToKVPool,
        host_indices: torch.Tensor,
        device_indices: torch.Tensor,
    ) -> None:
        ps = self.page_size
        for h, d in self._page_pairs(host_indices, device_indices):
            # expect: KVG001
            self.kv_buffer[:, :, h : h + ps].copy_(
                device_pool.kv_buffer[:, :, d : d + ps], non_blocking=True
            )
