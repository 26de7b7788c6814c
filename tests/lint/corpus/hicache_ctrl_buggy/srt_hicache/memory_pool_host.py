from typing import Optional

import torch

from srt_hicache.constants import LAYOUT_LAYER_FIRST, LAYOUT_PAGE_FIRST
from srt_hicache.utils import page_starts


class MHATokenToKVPoolHost:
    def __init__(
        self,
        device_pool,
        host_to_device_ratio: float,
        page_size: int,
        layout: str = LAYOUT_LAYER_FIRST,
        pin_memory: bool = True,
    ):
        self.device_pool = device_pool
        self.page_size = page_size
        self.layout = layout
        self.layer_num = device_pool.layer_num
        self.head_num = device_pool.head_num
        self.head_dim = device_pool.head_dim
        self.dtype = device_pool.dtype
        size = int(device_pool.size * host_to_device_ratio)
        self.size = size - size % page_size
        self.kv_buffer = self._init_kv_buffer(pin_memory)
        self.free_slots = torch.arange(self.size, dtype=torch.int64)

    def _init_kv_buffer(self, pin_memory: bool) -> torch.Tensor:
        if self.layout == LAYOUT_LAYER_FIRST:
            dims = (2, self.layer_num, self.size, self.head_num, self.head_dim)
        elif self.layout == LAYOUT_PAGE_FIRST:
            dims = (2, self.size, self.layer_num, self.head_num, self.head_dim)
        else:
            raise ValueError(f"Unsupported host layout: {self.layout}")
        return torch.empty(dims, dtype=self.dtype, device="cpu", pin_memory=pin_memory)

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        if need_size > len(self.free_slots):
            return None
        select_index = self.free_slots[:need_size]
        self.free_slots = self.free_slots[need_size:]
        return select_index

    def free(self, indices: torch.Tensor) -> int:
        self.free_slots = torch.cat([self.free_slots, indices])
        return len(indices)

    def backup_from_device_all_layer(self, device_pool, host_indices, device_indices):
        ps = self.page_size
        for h, d in zip(page_starts(host_indices, ps), page_starts(device_indices, ps)):
            src = device_pool.kv_buffer[:, :, d : d + ps]
            if self.layout == LAYOUT_LAYER_FIRST:
                # expect: KVG001
                self.kv_buffer[:, :, h : h + ps].copy_(src, non_blocking=True)
            else:
                # expect: KVG001
                self.kv_buffer[:, h : h + ps].copy_(src.transpose(1, 2), non_blocking=True)

    def load_to_device_per_layer(self, device_pool, host_indices, device_indices, layer_id):
        ps = self.page_size
        for h, d in zip(page_starts(host_indices, ps), page_starts(device_indices, ps)):
            dst = device_pool.kv_buffer[:, layer_id, d : d + ps]
            if self.layout == LAYOUT_LAYER_FIRST:
                dst.copy_(self.kv_buffer[:, layer_id, h : h + ps], non_blocking=True)
            else:
                dst.copy_(self.kv_buffer[:, h : h + ps, layer_id], non_blocking=True)
