"""Device KV pool and the page-first pinned host pool that mirrors it."""

from typing import List, Optional

import torch

from .config import KV_DTYPE, PAGE_SIZE


class MHATokenToKVPool:
    def __init__(self, num_pages: int, layer_num: int, head_num: int, head_dim: int):
        self.layer_num = layer_num
        self.kv_buffer: List[torch.Tensor] = [
            torch.zeros((2, num_pages * PAGE_SIZE, head_num, head_dim), dtype=KV_DTYPE, device="cuda")
            for _ in range(layer_num)
        ]

    def page_view(self, layer_id: int, page: int) -> torch.Tensor:
        return self.kv_buffer[layer_id][:, page * PAGE_SIZE : (page + 1) * PAGE_SIZE]


class MHATokenToKVPoolHost:
    layout = "page_first"

    def __init__(self, device_pool: MHATokenToKVPool, num_pages: int):
        _, _, head_num, head_dim = device_pool.kv_buffer[0].shape
        self.layer_num = device_pool.layer_num
        self.kv_buffer = torch.empty(
            (num_pages, self.layer_num, 2, PAGE_SIZE, head_num, head_dim),
            dtype=KV_DTYPE,
            pin_memory=True,
        )
        self.free_pages: List[int] = list(range(num_pages))

    def alloc(self, n: int) -> Optional[torch.Tensor]:
        if n > len(self.free_pages):
            return None
        taken, self.free_pages = self.free_pages[:n], self.free_pages[n:]
        return torch.tensor(taken, dtype=torch.int64)

    def backup_from_device_all_layer(self, device_pool, host_pages, device_pages) -> None:
        for h_page, d_page in zip(host_pages.tolist(), device_pages.tolist()):
            for layer_id in range(self.layer_num):
                self.kv_buffer[h_page, layer_id].copy_(
                    device_pool.page_view(layer_id, d_page), non_blocking=True
                )
