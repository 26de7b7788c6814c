"""Page-first pinned host pool: pages are contiguous so they can go to storage as-is."""

import logging
import threading
from typing import List, Optional

import torch

logger = logging.getLogger(__name__)


class PageFirstHostKVPool:
    def __init__(self, layer_num: int, head_num: int, head_dim: int, page_size: int,
                 num_pages: int, dtype: torch.dtype = torch.bfloat16):
        self.layer_num = layer_num
        self.page_size = page_size
        self.num_pages = num_pages
        # [num_pages, layer_num, 2 (k/v), page_size, head_num, head_dim]
        self.kv_buffer = torch.empty((num_pages, layer_num, 2, page_size, head_num, head_dim),
                                     dtype=dtype, pin_memory=True)
        self.page_nbytes = self.kv_buffer[0].numel() * self.kv_buffer.element_size()
        self._free: List[int] = list(range(num_pages))
        self._lock = threading.Lock()
        logger.info("host pool: %d pages of %d KiB", num_pages, self.page_nbytes // 1024)

    def alloc(self, n: int) -> Optional[List[int]]:
        with self._lock:
            if n > len(self._free):
                return None
            out, self._free = self._free[:n], self._free[n:]
            return out

    def free(self, pages: List[int]) -> None:
        with self._lock:
            self._free.extend(pages)

    def get_page(self, page: int) -> torch.Tensor:
        return self.kv_buffer[page]

    def backup_from_device(self, device_pool, host_pages: List[int], device_pages: List[int]) -> None:
        """Device -> host on the current stream. device_pool.get_kv_buffer(layer) is a CUDA
        tensor [2, device_size, head_num, head_dim]."""
        ps = self.page_size
        for layer_id in range(self.layer_num):
            src = device_pool.get_kv_buffer(layer_id)
            for hp, dp in zip(host_pages, device_pages):
                self.kv_buffer[hp, layer_id].copy_(src[:, dp * ps : (dp + 1) * ps], non_blocking=True)
