import logging
import threading
from typing import List, Optional

import torch

from .constants import DEFAULT_HOST_TO_DEVICE_RATIO, DEFAULT_PAGE_SIZE

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    """Pinned host mirror of the device KV pool, page-first per layer."""

    def __init__(
        self,
        device_pool,
        host_to_device_ratio: float = DEFAULT_HOST_TO_DEVICE_RATIO,
        page_size: int = DEFAULT_PAGE_SIZE,
        pin_memory: bool = True,
    ):
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        self.head_num = device_pool.head_num
        self.head_dim = device_pool.head_dim
        self.dtype = device_pool.store_dtype
        self.num_pages = int(device_pool.num_pages * host_to_device_ratio)
        shape = (
            self.layer_num,
            self.num_pages,
            page_size,
            self.head_num,
            self.head_dim,
        )
        self.k_buffer = torch.empty(shape, dtype=self.dtype, pin_memory=pin_memory)
        self.v_buffer = torch.empty(shape, dtype=self.dtype, pin_memory=pin_memory)
        self.lock = threading.RLock()
        self.free_pages: List[int] = list(range(self.num_pages))
        logger.info(
            "Allocated host KV pool: %d pages x %d layers (%.2f GB)",
            self.num_pages,
            self.layer_num,
            2 * self.k_buffer.numel() * self.k_buffer.element_size() / 1e9,
        )

    def available_size(self) -> int:
        with self.lock:
            return len(self.free_pages)

    def alloc_pages(self, num_pages: int) -> Optional[List[int]]:
        with self.lock:
            if num_pages > len(self.free_pages):
                return None
            pages = self.free_pages[:num_pages]
            self.free_pages = self.free_pages[num_pages:]
            return pages

    def free_pages_back(self, pages: List[int]) -> int:
        with self.lock:
            self.free_pages.extend(pages)
        return len(pages)

    def backup_from_device_all_layer(
        self, device_pool, host_pages: List[int], device_pages: List[int]
    ) -> None:
        for layer_id in range(self.layer_num):
            k_dev = device_pool.k_buffer[layer_id]
            v_dev = device_pool.v_buffer[layer_id]
            for hp, dp in zip(host_pages, device_pages):
                self.k_buffer[layer_id, hp].copy_(k_dev[dp], non_blocking=True)
                self.v_buffer[layer_id, hp].copy_(v_dev[dp], non_blocking=True)
