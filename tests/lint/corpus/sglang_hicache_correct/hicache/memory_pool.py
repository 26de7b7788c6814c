from __future__ import annotations

import logging
import threading
from typing import List, Optional

import torch

logger = logging.getLogger(__name__)


class MHATokenToKVPool:
    """Device KV pool, page-contiguous: kv_buffer[k/v, layer, token, head, dim]."""

    def __init__(self, size: int, page_size: int, head_num: int, head_dim: int, layer_num: int,
                 dtype: torch.dtype, device: str = "cuda") -> None:
        self.size = size
        self.page_size = page_size
        self.layer_num = layer_num
        self.device = device
        self.kv_buffer = torch.zeros((2, layer_num, size, head_num, head_dim), dtype=dtype, device=device)
        self._free_pages = list(range(0, size, page_size))

    def alloc(self, need_size: int) -> Optional[List[int]]:
        num_pages = -(-need_size // self.page_size)
        if num_pages > len(self._free_pages):
            return None
        pages, self._free_pages = self._free_pages[:num_pages], self._free_pages[num_pages:]
        return pages

    def free(self, pages: List[int]) -> None:
        self._free_pages.extend(pages)

    def set_kv_buffer(self, layer_id: int, loc: torch.Tensor, cache_k: torch.Tensor, cache_v: torch.Tensor) -> None:
        # called by the attention backend on the forward stream
        self.kv_buffer[0, layer_id, loc] = cache_k
        self.kv_buffer[1, layer_id, loc] = cache_v


class MHATokenToKVPoolHost:
    """Pinned host mirror of the device pool, same page layout."""

    def __init__(self, device_pool: MHATokenToKVPool, host_to_device_ratio: float = 2.0) -> None:
        self.page_size = device_pool.page_size
        self.size = int(device_pool.size * host_to_device_ratio) // self.page_size * self.page_size
        _, layer_num, _, head_num, head_dim = device_pool.kv_buffer.shape
        self.kv_buffer = torch.empty(
            (2, layer_num, self.size, head_num, head_dim), dtype=device_pool.kv_buffer.dtype, pin_memory=True
        )
        self._free_pages = list(range(0, self.size, self.page_size))
        self._busy: set[int] = set()
        self.lock = threading.RLock()

    def alloc(self, need_size: int) -> Optional[List[int]]:
        with self.lock:
            num_pages = -(-need_size // self.page_size)
            if num_pages > len(self._free_pages):
                return None
            pages, self._free_pages = self._free_pages[:num_pages], self._free_pages[num_pages:]
            self._busy.update(pages)
            return pages

    def free(self, pages: List[int]) -> None:
        with self.lock:
            self._busy.difference_update(pages)
            self._free_pages.extend(pages)

    def complete_io(self, pages: List[int]) -> None:
        with self.lock:
            self._busy.difference_update(pages)

    def backup_from_device(self, device_pool: MHATokenToKVPool, host_pages: List[int], device_pages: List[int]) -> None:
        p = self.page_size
        for h, d in zip(host_pages, device_pages):
            self.kv_buffer[:, :, h : h + p].copy_(device_pool.kv_buffer[:, :, d : d + p], non_blocking=True)

    def load_to_device(self, device_pool: MHATokenToKVPool, host_pages: List[int], device_pages: List[int]) -> None:
        p = self.page_size
        for h, d in zip(host_pages, device_pages):
            device_pool.kv_buffer[:, :, d : d + p].copy_(self.kv_buffer[:, :, h : h + p], non_blocking=True)
