import logging
import threading
from typing import List, Optional

import torch

from hicache.memory_pool import MHATokenToKVPool

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    """Pinned host mirror of the device pool, layer-first layout."""

    def __init__(self, device_pool: MHATokenToKVPool, host_to_device_ratio: float, pin_memory: bool = True):
        self.page_size = device_pool.page_size
        self.layer_num = device_pool.layer_num
        num_pages = int(device_pool.size * host_to_device_ratio) // self.page_size
        self.size = num_pages * self.page_size
        self.kv_buffer = torch.empty(
            (self.layer_num, 2, self.size, device_pool.head_num, device_pool.head_dim),
            dtype=device_pool.dtype,
            device="cpu",
            pin_memory=pin_memory,
        )
        self.lock = threading.RLock()
        self.free_page_list: List[int] = list(range(num_pages))
        logger.info("Host KV pool: %d pages (%.2f GB)", num_pages, self.kv_buffer.nbytes / 1e9)

    def alloc_pages(self, num_pages: int) -> Optional[List[int]]:
        with self.lock:
            if num_pages > len(self.free_page_list):
                return None
            pages = self.free_page_list[:num_pages]
            del self.free_page_list[:num_pages]
            return pages

    def free(self, pages: List[int]) -> int:
        with self.lock:
            self.free_page_list.extend(pages)
        return len(pages)

    def page_view(self, layer_id: int, page: int) -> torch.Tensor:
        start = page * self.page_size
        return self.kv_buffer[layer_id, :, start : start + self.page_size]

    def backup_from_device_all_layer(
        self, device_pool: MHATokenToKVPool, host_pages: List[int], device_pages: List[int]
    ) -> None:
        for host_page, device_page in zip(host_pages, device_pages):
            for layer_id in range(self.layer_num):
                # expect: KVG001
                self.page_view(layer_id, host_page).copy_(device_pool.page_slice(layer_id, device_page), non_blocking=True)
