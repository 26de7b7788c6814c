from __future__ import annotations

import logging
import threading
from typing import Optional

import torch

from hicache.memory_pool import MHATokenToKVPool
from hicache.utils import HICACHE_LAYOUTS, iter_contiguous_spans

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    def __init__(
        self,
        device_pool: MHATokenToKVPool,
        host_to_device_ratio: float,
        layout: str = "layer_first",
        pin_memory: bool = True,
    ):
        if layout not in HICACHE_LAYOUTS:
            raise ValueError(f"Unsupported layout {layout!r}")
        self.layout = layout
        self.page_size = device_pool.page_size
        self.layer_num = device_pool.layer_num
        self.size = int(device_pool.size * host_to_device_ratio)
        self.size -= self.size % self.page_size
        shape = (device_pool.head_num, device_pool.head_dim)
        if layout == "layer_first":
            dims = (self.layer_num, 2, self.size) + shape
        else:
            dims = (self.size, self.layer_num, 2) + shape
        self.kv_buffer = torch.empty(dims, dtype=device_pool.dtype, pin_memory=pin_memory)
        self.free_slots = torch.arange(self.size, dtype=torch.int64)
        self.lock = threading.RLock()

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        with self.lock:
            if need_size > self.free_slots.numel():
                return None
            select = self.free_slots[:need_size]
            self.free_slots = self.free_slots[need_size:]
            return select

    def free(self, indices: torch.Tensor) -> int:
        with self.lock:
            self.free_slots = torch.cat([self.free_slots, indices])
        return indices.numel()

    def backup_from_device_all_layer(
        self,
        device_pool: MHATokenToKVPool,
        host_indices: torch.Tensor,
        device_indices: torch.Tensor,
    ) -> None:
        for h0, d0, n in iter_contiguous_spans(host_indices, device_indices):
            if self.layout == "layer_first":
                self.kv_buffer[:, :, h0 : h0 + n].copy_(
                    device_pool.kv_buffer[:, :, d0 : d0 + n], non_blocking=True
                )
            else:
                src = device_pool.kv_buffer[:, :, d0 : d0 + n].permute(2, 0, 1, 3, 4)
                self.kv_buffer[h0 : h0 + n].copy_(src, non_blocking=True)
