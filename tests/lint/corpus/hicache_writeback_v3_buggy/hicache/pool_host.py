from __future__ import annotations

import logging
import threading
from typing import Optional

import torch

from hicache.consts import DEFAULT_PAGE_SIZE, HICACHE_LAYOUT_LAYER_FIRST

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    """Pinned host mirror of the device KV pool (layer-first layout)."""

    def __init__(
        self,
        device_pool,
        host_to_device_ratio: float,
        page_size: int = DEFAULT_PAGE_SIZE,
        pin_memory: bool = True,
    ):
        self.device_pool = device_pool
        self.page_size = page_size
        self.layout = HICACHE_LAYOUT_LAYER_FIRST
        self.layer_num = device_pool.layer_num
        self.size = int(device_pool.size * host_to_device_ratio)
        self.size -= self.size % page_size
        shape = (self.layer_num, self.size, device_pool.head_num, device_pool.head_dim)
        self.k_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=pin_memory)
        self.v_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=pin_memory)
        self.free_slots = torch.arange(self.size, dtype=torch.int64)
        self.lock = threading.RLock()
        logger.info("Allocated host KV pool with %d tokens", self.size)

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        with self.lock:
            if need_size > len(self.free_slots):
                return None
            select, self.free_slots = (
                self.free_slots[:need_size],
                self.free_slots[need_size:],
            )
            return select

    def free(self, indices: torch.Tensor) -> int:
        with self.lock:
            self.free_slots = torch.cat([self.free_slots, indices])
        return len(indices)

    def _page_pairs(self, host_indices: torch.Tensor, device_indices: torch.Tensor):
        ps = self.page_size
        return zip(host_indices[::ps].tolist(), device_indices[::ps].tolist())

    def backup_from_device_all_layer(
        self, device_pool, host_indices: torch.Tensor, device_indices: torch.Tensor
    ) -> None:
        ps = self.page_size
        pairs = list(self._page_pairs(host_indices, device_indices))
        for layer_id in range(self.layer_num):
            for h, d in pairs:
                # expect: KVG001
                self.k_buffer[layer_id, h : h + ps].copy_(device_pool.k_buffer[layer_id][d : d + ps], non_blocking=True)
                # expect: KVG001
                self.v_buffer[layer_id, h : h + ps].copy_(device_pool.v_buffer[layer_id][d : d + ps], non_blocking=True)

    def load_to_device_per_layer(
        self,
        device_pool,
        host_indices: torch.Tensor,
        device_indices: torch.Tensor,
        layer_id: int,
    ) -> None:
        ps = self.page_size
        for h, d in self._page_pairs(host_indices, device_indices):
            device_pool.k_buffer[layer_id][d : d + ps].copy_(self.k_buffer[layer_id, h : h + ps], non_blocking=True)
            device_pool.v_buffer[layer_id][d : d + ps].copy_(self.v_buffer[layer_id, h : h + ps], non_blocking=True)
