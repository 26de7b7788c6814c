import threading
from typing import List, Optional

import torch

from hicache.memory_pool import MHATokenToKVPool


class MHATokenToKVPoolHost:
    def __init__(
        self,
        device_pool: MHATokenToKVPool,
        host_to_device_ratio: float,
        page_size: int,
    ):
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        self.size = int(device_pool.size * host_to_device_ratio)
        self.size -= self.size % page_size
        self.kv_buffer = torch.empty(
            (2, self.layer_num, self.size, device_pool.head_num, device_pool.head_dim),
            dtype=device_pool.dtype,
            device="cpu",
            pin_memory=True,
        )
        self.lock = threading.RLock()
        self.free_slots: List[int] = list(range(0, self.size, page_size))

    def alloc(self, need_size: int) -> Optional[List[int]]:
        num_pages = need_size // self.page_size
        with self.lock:
            if num_pages > len(self.free_slots):
                return None
            slots = self.free_slots[:num_pages]
            self.free_slots = self.free_slots[num_pages:]
        return slots

    def free(self, page_starts: List[int]) -> None:
        with self.lock:
            self.free_slots.extend(page_starts)

    def backup_from_device_all_layer(
        self,
        device_pool: MHATokenToKVPool,
        host_starts: List[int],
        device_starts: List[int],
    ) -> None:
        ps = self.page_size
        for layer_id in range(self.layer_num):
            for h, d in zip(host_starts, device_starts):
                self.kv_buffer[:, layer_id, h : h + ps].copy_(device_pool.kv_buffer[:, layer_id, d : d + ps], non_blocking=True)

    def load_to_device_per_layer(
        self,
        device_pool: MHATokenToKVPool,
        host_starts: List[int],
        device_starts: List[int],
        layer_id: int,
    ) -> None:
        ps = self.page_size
        for h, d in zip(host_starts, device_starts):
            device_pool.kv_buffer[:, layer_id, d : d + ps].copy_(self.kv_buffer[:, layer_id, h : h + ps], non_blocking=True)
