from __future__ import annotations

import threading
from typing import List, Optional

import torch

from sgl_hicache.constants import HOST_TO_DEVICE_RATIO, PAGE_SIZE


class MHATokenToKVPoolHost:
    """Pinned host mirror of the device KV pool (page_first layout)."""

    def __init__(
        self,
        device_pool,
        host_to_device_ratio: float = HOST_TO_DEVICE_RATIO,
        page_size: int = PAGE_SIZE,
    ):
        self.device_pool = device_pool
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        self.num_pages = int(device_pool.num_pages * host_to_device_ratio)
        shape = (self.num_pages, 2, self.layer_num, page_size,
                 device_pool.head_num, device_pool.head_dim)
        self.kv_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=True)
        self.page_nbytes = self.kv_buffer[0].numel() * self.kv_buffer.element_size()
        self.free_pages: List[int] = list(range(self.num_pages))
        self.lock = threading.RLock()

    def alloc(self, need_pages: int) -> Optional[torch.Tensor]:
        with self.lock:
            if need_pages > len(self.free_pages):
                return None
            pages = self.free_pages[:need_pages]
            self.free_pages = self.free_pages[need_pages:]
        return torch.tensor(pages, dtype=torch.int64)

    def free(self, pages: torch.Tensor) -> int:
        with self.lock:
            self.free_pages.extend(pages.tolist())
        return len(pages)

    def page_ptrs(self, pages: torch.Tensor) -> List[int]:
        base = self.kv_buffer.data_ptr()
        return [base + p * self.page_nbytes for p in pages.tolist()]

    def get_flat_data_page(self, page: int) -> torch.Tensor:
        return self.kv_buffer[page].flatten()
