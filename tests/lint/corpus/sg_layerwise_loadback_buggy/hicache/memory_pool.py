"""Paged device KV pool, its page allocator, and the page-first pinned host pool."""

from typing import List, Optional

import torch

from .config import KV_DTYPE, PAGE_SIZE
from .layer_events import LayerDoneCounter


class MHATokenToKVPool:
    def __init__(self, num_pages: int, layer_num: int, head_num: int, head_dim: int):
        self.page_size = PAGE_SIZE
        self.layer_num = layer_num
        self.kv_buffer: List[torch.Tensor] = [
            torch.zeros((2, num_pages * PAGE_SIZE, head_num, head_dim), dtype=KV_DTYPE, device="cuda")
            for _ in range(layer_num)
        ]
        self.layer_transfer_counter: Optional[LayerDoneCounter] = None

    def register_layer_transfer_counter(self, counter: LayerDoneCounter) -> None:
        self.layer_transfer_counter = counter

    def get_kv_buffer(self, layer_id: int) -> torch.Tensor:
        if self.layer_transfer_counter is not None:
            self.layer_transfer_counter.wait_until(layer_id)
        return self.kv_buffer[layer_id]

    def page_view(self, layer_id: int, page: int) -> torch.Tensor:
        start = page * self.page_size
        return self.kv_buffer[layer_id][:, start : start + self.page_size]


class PagedAllocator:
    def __init__(self, num_pages: int):
        self.free_pages: List[int] = list(range(1, num_pages))  # page 0 is the padding page

    def alloc(self, num_pages: int) -> Optional[torch.Tensor]:
        if num_pages > len(self.free_pages):
            return None
        taken, self.free_pages = self.free_pages[:num_pages], self.free_pages[num_pages:]
        return torch.tensor(taken, dtype=torch.int64)

    def free(self, pages: torch.Tensor) -> None:
        self.free_pages.extend(pages.tolist())


class MHATokenToKVPoolHost:
    def __init__(self, device_pool: MHATokenToKVPool, num_pages: int):
        _, _, head_num, head_dim = device_pool.kv_buffer[0].shape
        self.layer_num = device_pool.layer_num
        self.kv_buffer = torch.empty(
            (num_pages, self.layer_num, 2, PAGE_SIZE, head_num, head_dim),
            dtype=KV_DTYPE,
            pin_memory=True,
        )

    def load_to_device_per_layer(
        self,
        device_pool: MHATokenToKVPool,
        host_pages: torch.Tensor,
        device_pages: torch.Tensor,
        layer_id: int,
    ) -> None:
        for h_page, d_page in zip(host_pages.tolist(), device_pages.tolist()):
            dst = device_pool.page_view(layer_id, d_page)
            # expect: KVG004
            dst.copy_(self.kv_buffer[h_page, layer_id], non_blocking=True)
