from __future__ import annotations

import threading
from typing import Iterator, Optional

import torch

from .device_pool import HiCacheMHATokenToKVPool


def _page_pairs(host_indices: torch.Tensor, device_indices: torch.Tensor,
                page_size: int) -> Iterator[tuple[int, int]]:
    # Both index tensors live on the host and are page aligned.
    yield from zip(host_indices[::page_size].tolist(),
                   device_indices[::page_size].tolist())


class MHATokenToKVPoolHost:
    def __init__(self, device_pool: HiCacheMHATokenToKVPool,
                 host_to_device_ratio: float, page_size: int) -> None:
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        size = int(device_pool.size * host_to_device_ratio)
        self.size = size - size % page_size
        shape = (self.layer_num, self.size, device_pool.head_num, device_pool.head_dim)
        self.k_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=True)
        self.v_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=True)
        self.free_slots = torch.arange(self.size, dtype=torch.int64)
        self.lock = threading.RLock()

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        assert need_size % self.page_size == 0
        with self.lock:
            if need_size > len(self.free_slots):
                return None
            select, self.free_slots = (self.free_slots[:need_size],
                                       self.free_slots[need_size:])
            return select

    def free(self, indices: torch.Tensor) -> None:
        with self.lock:
            self.free_slots = torch.cat([self.free_slots, indices])

    def backup_from_device_all_layer(self, device_pool: HiCacheMHATokenToKVPool,
                                     host_indices: torch.Tensor,
                                     device_indices: torch.Tensor) -> None:
        ps = self.page_size
        pairs = list(_page_pairs(host_indices, device_indices, ps))
        for host_buf, dev_bufs in ((self.k_buffer, device_pool.k_buffer),
                                   (self.v_buffer, device_pool.v_buffer)):
            for layer_id in range(self.layer_num):
                for h, d in pairs:
                    # expect: KVG001
                    host_buf[layer_id, h:h + ps].copy_(dev_bufs[layer_id][d:d + ps], non_blocking=True)

    def load_to_device_per_layer(self, device_pool: HiCacheMHATokenToKVPool,
                                 host_indices: torch.Tensor,
                                 device_indices: torch.Tensor, layer_id: int) -> None:
        ps = self.page_size
        for host_buf, dev_bufs in ((self.k_buffer, device_pool.k_buffer),
                                   (self.v_buffer, device_pool.v_buffer)):
            for h, d in _page_pairs(host_indices, device_indices, ps):
                # expect: KVG004
                dev_bufs[layer_id][d:d + ps].copy_(host_buf[layer_id, h:h + ps], non_blocking=True)
