"""Device and host KV pools used by hierarchical caching."""

from __future__ import annotations

from collections import deque
from typing import Optional

import torch


class MHATokenToKVPool:
    """Device pool: ``[2, layer_num, num_pages, page_size, head_num, head_dim]``."""

    def __init__(self, size, page_size, dtype, head_num, head_dim, layer_num, device="cuda"):
        self.page_size = page_size
        self.layer_num = layer_num
        self.num_pages = size // page_size
        self.dtype = dtype
        self.kv_buffer = torch.zeros(
            (2, layer_num, self.num_pages, page_size, head_num, head_dim),
            dtype=dtype,
            device=device,
        )

    def set_kv_buffer(self, layer_id: int, loc: torch.Tensor, cache_k, cache_v) -> None:
        k = self.kv_buffer[0, layer_id].flatten(0, 1)
        v = self.kv_buffer[1, layer_id].flatten(0, 1)
        k[loc] = cache_k
        v[loc] = cache_v

    def page(self, page_idx: int) -> torch.Tensor:
        return self.kv_buffer[:, :, page_idx]


class MHATokenToKVPoolHost:
    """Pinned host pool, page-first so one page is one contiguous chunk for storage."""

    def __init__(self, device_pool: MHATokenToKVPool, host_to_device_ratio: float = 2.0):
        _, layer_num, _, page_size, head_num, head_dim = device_pool.kv_buffer.shape
        self.page_size = page_size
        self.num_pages = int(device_pool.num_pages * host_to_device_ratio)
        self.kv_buffer = torch.empty(
            (self.num_pages, 2, layer_num, page_size, head_num, head_dim),
            dtype=device_pool.dtype,
            pin_memory=True,
        )
        self.free_pages: deque[int] = deque(range(self.num_pages))

    def alloc(self, n: int) -> Optional[list[int]]:
        if n > len(self.free_pages):
            return None
        return [self.free_pages.popleft() for _ in range(n)]

    def free(self, pages: list[int]) -> None:
        self.free_pages.extend(pages)

    def get_page_buffer(self, page: int) -> torch.Tensor:
        return self.kv_buffer[page]
