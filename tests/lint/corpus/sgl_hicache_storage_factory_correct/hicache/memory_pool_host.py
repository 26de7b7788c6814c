"""Pinned host mirror of the device KV pool, page-first: one row per page holding every
layer's K and V of that page."""

from typing import List

import torch


class HostKVCache:

    def __init__(self, num_pages: int, page_bytes: int):
        self.page_bytes = page_bytes
        self.kv_buffer = torch.empty((num_pages, page_bytes), dtype=torch.uint8, device="cpu", pin_memory=True)
        self.free_pages: List[int] = list(range(num_pages))

    def alloc(self, n: int):
        if len(self.free_pages) < n:
            return None
        pages, self.free_pages = self.free_pages[:n], self.free_pages[n:]
        return pages

    def free(self, pages: List[int]) -> None:
        self.free_pages.extend(pages)

    def get_flat_data_page(self, page: int) -> torch.Tensor:
        return self.kv_buffer[page]

    def backup_from_device_all_layer(self, device_pool, host_pages: List[int], device_pages: List[int]) -> None:
        for h, d in zip(host_pages, device_pages):
            self.kv_buffer[h].copy_(device_pool.page_view(d), non_blocking=True)
