from __future__ import annotations

from typing import Optional

import torch

from .layer_events import LayerDoneCounter


class MHATokenToKVPool:
    def __init__(self, size: int, page_size: int, dtype: torch.dtype,
                 head_num: int, head_dim: int, layer_num: int, device: str):
        self.size = size
        self.page_size = page_size
        self.dtype = dtype
        self.layer_num = layer_num
        self.device = device
        self.kv_buffer = torch.zeros(
            (2, layer_num, size + page_size, head_num, head_dim),
            dtype=dtype, device=device,
        )
        self.layer_transfer_counter: Optional[LayerDoneCounter] = None

    def register_layer_transfer_counter(self, counter: LayerDoneCounter) -> None:
        self.layer_transfer_counter = counter

    def get_kv_buffer(self, layer_id: int):
        if self.layer_transfer_counter is not None:
            self.layer_transfer_counter.wait_until(layer_id)
        return self.kv_buffer[0, layer_id], self.kv_buffer[1, layer_id]


class TokenToKVPoolAllocator:
    def __init__(self, kvcache: MHATokenToKVPool):
        self._kvcache = kvcache
        self.free_pages = torch.arange(1, kvcache.size // kvcache.page_size + 1)

    def get_kvcache(self) -> MHATokenToKVPool:
        return self._kvcache

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        ps = self._kvcache.page_size
        num_pages = (need_size + ps - 1) // ps
        if num_pages > len(self.free_pages):
            return None
        pages, self.free_pages = self.free_pages[:num_pages], self.free_pages[num_pages:]
        return (pages[:, None] * ps + torch.arange(ps)).reshape(-1)[:need_size]

    def free(self, indices: torch.Tensor) -> None:
        ps = self._kvcache.page_size
        self.free_pages = torch.cat([self.free_pages, indices[::ps] // ps])
