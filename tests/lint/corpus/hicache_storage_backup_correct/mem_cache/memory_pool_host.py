import logging
from typing import Optional

import torch

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    """Host KV pool in page_first_direct layout: [num_pages, layer, 2, page, head, dim]."""

    def __init__(self, device_pool, host_to_device_ratio: float, page_size: int):
        self.layout = "page_first_direct"
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        self.size = int(device_pool.size * host_to_device_ratio) // page_size * page_size
        self.kv_buffer = torch.empty(
            (self.size // page_size, self.layer_num, 2, page_size,
             device_pool.head_num, device_pool.head_dim),
            dtype=device_pool.store_dtype,
            device="cpu",
            pin_memory=True,
        )
        self.free_slots = torch.arange(self.size, dtype=torch.int64)

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        if need_size > len(self.free_slots):
            return None
        select_index, self.free_slots = self.free_slots[:need_size], self.free_slots[need_size:]
        return select_index

    def free(self, indices: torch.Tensor) -> int:
        self.free_slots = torch.cat([self.free_slots, indices])
        return len(indices)

    def get_flat_data_page(self, index: int) -> torch.Tensor:
        return self.kv_buffer[index // self.page_size].flatten()

    def backup_from_device_all_layer(self, device_pool, host_indices, device_indices) -> None:
        p = self.page_size
        host_pages = (host_indices[::p] // p).tolist()
        device_starts = device_indices[::p].tolist()
        for layer_id in range(self.layer_num):
            src = device_pool.kv_buffer[:, layer_id]
            for page, d in zip(host_pages, device_starts):
                self.kv_buffer[page, layer_id].copy_(src[:, d : d + p], non_blocking=True)
