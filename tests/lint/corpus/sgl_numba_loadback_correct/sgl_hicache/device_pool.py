import logging
from typing import List, Optional

import numpy as np
from numba import cuda

from .constants import DEFAULT_PAGE_SIZE

logger = logging.getLogger(__name__)


class PageAllocator:
    def __init__(self, num_pages: int):
        self.free_pages: List[int] = list(range(num_pages))

    def alloc(self, n: int) -> Optional[List[int]]:
        if n > len(self.free_pages):
            return None
        pages, self.free_pages = self.free_pages[:n], self.free_pages[n:]
        return pages

    def free(self, pages: List[int]) -> None:
        self.free_pages.extend(pages)


class NumbaMHATokenToKVPool:
    """Device KV pool; the model runner issues attention on forward_stream."""

    def __init__(self, layer_num: int, num_pages: int, head_num: int, head_dim: int,
                 page_size: int = DEFAULT_PAGE_SIZE, dtype=np.float16):
        self.layer_num = layer_num
        self.num_pages = num_pages
        self.page_size = page_size
        self.head_num = head_num
        self.head_dim = head_dim
        self.dtype = dtype
        shape = (num_pages, page_size, head_num, head_dim)
        self.k_buffer = [cuda.device_array(shape, dtype=dtype) for _ in range(layer_num)]
        self.v_buffer = [cuda.device_array(shape, dtype=dtype) for _ in range(layer_num)]
        self.forward_stream = cuda.stream()
        self.layer_transfer_counter = None

    def register_layer_transfer_counter(self, counter) -> None:
        self.layer_transfer_counter = counter

    def get_kv_buffer(self, layer_id: int):
        if self.layer_transfer_counter is not None:
            self.layer_transfer_counter.wait_until(layer_id, self.forward_stream)
        return self.k_buffer[layer_id], self.v_buffer[layer_id]
