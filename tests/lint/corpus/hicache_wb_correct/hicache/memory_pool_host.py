import logging
import threading
from typing import List, Optional

import torch

from .config import HiCacheConfig
from .utils import page_runs

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    """Pinned host mirror of the device KV pool, one [2, size, H, D] buffer per layer."""

    def __init__(self, device_pool, config: HiCacheConfig):
        self.device_pool = device_pool
        self.page_size = config.page_size
        self.layer_num = device_pool.layer_num
        self.dtype = device_pool.dtype
        self.head_num = device_pool.head_num
        self.head_dim = device_pool.head_dim

        self.size = int(device_pool.size * config.host_to_device_ratio)
        self.size -= self.size % self.page_size
        self.num_pages = self.size // self.page_size

        logger.info("Allocating host KV cache with %d pages", self.num_pages)
        self.kv_buffer = [
            torch.empty(
                (2, self.size, self.head_num, self.head_dim),
                dtype=self.dtype,
                pin_memory=config.pin_memory,
            )
            for _ in range(self.layer_num)
        ]
        self._lock = threading.RLock()
        self._free_pages: List[int] = list(range(self.num_pages))

    def alloc_pages(self, num_pages: int) -> Optional[List[int]]:
        with self._lock:
            if num_pages > len(self._free_pages):
                return None
            pages = self._free_pages[:num_pages]
            del self._free_pages[:num_pages]
            return pages

    def free_pages(self, pages: List[int]) -> int:
        with self._lock:
            self._free_pages.extend(pages)
        return len(pages)

    def backup_from_device_all_layer(
        self, device_pool, host_pages: List[int], device_pages: List[int], io_backend: str
    ) -> None:
        if io_backend != "direct":
            raise ValueError(f"Unsupported io backend: {io_backend}")
        runs = list(page_runs(host_pages, device_pages, self.page_size))
        for layer_id in range(self.layer_num):
            src = device_pool.kv_buffer[layer_id]
            dst = self.kv_buffer[layer_id]
            for h_start, d_start, length in runs:
                dst[:, h_start : h_start + length].copy_(src[:, d_start : d_start + length], non_blocking=True)

    def load_to_device_per_layer(
        self,
        device_pool,
        host_pages: List[int],
        device_pages: List[int],
        layer_id: int,
        io_backend: str,
    ) -> None:
        if io_backend != "direct":
            raise ValueError(f"Unsupported io backend: {io_backend}")
        src = self.kv_buffer[layer_id]
        dst = device_pool.kv_buffer[layer_id]
        for h_start, d_start, length in page_runs(host_pages, device_pages, self.page_size):
            dst[:, d_start : d_start + length].copy_(src[:, h_start : h_start + length], non_blocking=True)
